#version 460
// Sparse domains: the pool slots in a fixed order. Classify claims a slot
// per row pair with a cut cell by an atomic (the order the threads run in)
// and leaves there, in the slot's level-0 words, the pair's 6 sample rows
// (2 words: sparse_pair_cases.glsl) and record (listed brick << 5 | pair);
// it also sets the pair's bit in its listed brick's mask (binding 3), from
// which <name>.sparse.slots.order (sparse_order.comp) found the first slot
// of each chunk of 8 listed bricks. A pair's place
// is then the cut pairs before it in list order: its chunk's first slot,
// the pairs of the chunk's bricks before its own, those of its brick before
// it. Two passes (pc.srcLevel), a thread per claimed slot (the dispatch the
// order pass wrote):
//   0 <name>.sparse.slots.place: claimed slot -> its place: the rows into
//     levels 1 and 2 there (bit 31 of the level-2 word: written this frame;
//     <name>.sparse.clear zeroed level 2), the record into slotRecords
//   1 <name>.sparse.slots.cases: each place, its cases rebuilt from the rows
//     -> levels 0, 1 and 2 (what classify wrote at its slot before). A place
//     nothing reached (a pool overflow: the pair's claim fell past the pool)
//     counts nothing.
// So the pool, the pyramid above it and the triangles come in list order,
// the same in every run. Compiled by the build: no field read.
#include "isosurface/common.glsl"
#include "isosurface/sparse_pair_cases.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer CountersBuf { IsoCounters counters; };
layout(set = 0, binding = 2, std430) buffer PyramidBuf { uint pyramid[]; };
// Per listed brick its cut pairs' mask; from word sparseLimits.x each chunk's first slot.
layout(set = 0, binding = 3, std430) readonly buffer PairOrderBuf { uint pairOrder[]; };
layout(set = 0, binding = 4, std430) buffer SlotBuf { uint slotRecords[]; };
layout(set = 0, binding = 5, std430) readonly buffer BrickListBuf { uint bricks[]; };

void main() {
    const uint slot = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    const uint slots = min(counters.sparseSlots, grid.sparseLimits.y);
    // One structured if/else (see sparse_activate.glsl).
    if (slot < slots) {
        if (isoOpaque(pc.srcLevel) == 0u) {
            const uint w0 = grid.levels[0].x + slot * 4u;
            const uint rows0 = pyramid[w0], rows1 = pyramid[w0 + 1u], record = pyramid[w0 + 2u];
            const uint listed = record >> 5, pair = record & 31u;
            uint place = pairOrder[grid.sparseLimits.x + (listed >> 3)];
            for (uint j = listed & ~7u; j < listed; ++j) place += uint(bitCount(pairOrder[j]));
            place += uint(bitCount(pairOrder[listed] & ((1u << pair) - 1u)));
            if (place < grid.sparseLimits.y) {
                pyramid[grid.levels[1].x + place] = rows0;
                pyramid[grid.levels[2].x + place] = rows1 | 0x80000000u;
                slotRecords[place] = record;
            }
        } else {
            const uint w2 = pyramid[grid.levels[2].x + slot];
            uvec4 cases = uvec4(0u);
            uint sums1 = 0u, actives = 0u;
            if ((w2 & 0x80000000u) != 0u) {
                const uint rows0 = pyramid[grid.levels[1].x + slot], record = slotRecords[slot];
                const uint pair = record & 31u, packed = bricks[record >> 5];
                const uint mask = (1u << kIsoBrickAxisBits) - 1u;
                const uvec3 b =
                    uvec3(packed & mask, (packed >> kIsoBrickAxisBits) & mask, packed >> (2 * kIsoBrickAxisBits));
                const uvec3 c0 = b * kIsoBrickCells + uvec3(0u, (pair & 3u) * 2u, pair >> 2);
                isoPairCases(rows0 & 0x1ffu, (rows0 >> 9) & 0x1ffu, (rows0 >> 18) & 0x1ffu, w2 & 0x1ffu,
                             (w2 >> 9) & 0x1ffu, (w2 >> 18) & 0x1ffu, min(kIsoBrickCells, grid.cells.x - c0.x),
                             c0.y + 1u < grid.cells.y, cases, sums1, actives);
            }
            const uint w0 = grid.levels[0].x + slot * 4u;
            pyramid[w0] = cases.x;
            pyramid[w0 + 1u] = cases.y;
            pyramid[w0 + 2u] = cases.z;
            pyramid[w0 + 3u] = cases.w;
            pyramid[grid.levels[1].x + slot] = sums1;
            pyramid[grid.levels[2].x + slot] = isoByteSum(sums1);
        }
    }
}
