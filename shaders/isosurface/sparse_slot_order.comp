#version 460
// Sparse domains: the pool slots in a fixed order. Classify claims a slot
// per row pair with a cut cell by an atomic (the order the threads run in)
// and stages there (binding 6, kIsoSlotStageWords words a slot) the pair's
// 6 sample rows (2 words: sparse_pair_cases.glsl), record (listed brick
// << 5 | pair) and level-1 sums; it also sets the pair's bit in its listed brick's mask
// (binding 3), from which <name>.sparse.slots.order (sparse_order.comp)
// found each listed brick's first place. A pair's place is then the cut
// pairs before it in list order: its brick's first place and the brick's
// pairs before it.
// One pass, <name>.sparse.slots.place, a thread per claimed slot (the
// dispatch the order pass wrote): the pair's cases rebuilt from its rows
// (no case counts: the sums come staged) -> levels 0, 1 and 2 at its place, the record into slotRecords there. The
// staging is a buffer of its own, so no thread's writes can land on a slot
// another has still to read. A place nothing reaches (a pool overflow: the
// pair's claim fell past the pool) keeps the level-2 zero of
// <name>.sparse.clear and counts nothing (its levels 0 and 1 are stale:
// readers of every slot's cases, sparse_vertex_count.comp, skip a slot whose
// count is 0).
// So the pool, the pyramid above it and the triangles come in list order,
// the same in every run. Compiled by the build: no field read.
#include "isosurface/common.glsl"
#include "isosurface/sparse_pair_cases.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer CountersBuf { IsoCounters counters; };
layout(set = 0, binding = 2, std430) writeonly buffer PyramidBuf { uint pyramid[]; };
// The same buffer as quads: level 0 is quad-aligned (pyramidLevels), a slot's 16 cases one uvec4.
layout(set = 0, binding = 2, std430) writeonly buffer PyramidQuadBuf { uvec4 pyramidQuads[]; };
// Per listed brick its cut pairs' mask; from word sparseLimits.x each one's first place.
layout(set = 0, binding = 3, std430) readonly buffer PairOrderBuf { uint pairOrder[]; };
layout(set = 0, binding = 4, std430) writeonly buffer SlotBuf { uint slotRecords[]; };
layout(set = 0, binding = 5, std430) readonly buffer BrickListBuf { uint bricks[]; };
layout(set = 0, binding = 6, std430) readonly buffer SlotStageBuf { uvec4 slotStage[]; };

void main() {
    const uint slot = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    if (slot >= min(counters.sparseSlots, grid.sparseLimits.y)) return;
    const uvec4 staged = slotStage[slot];
    const uint rows0 = staged.x, rows1 = staged.y, record = staged.z, sums1 = staged.w;
    const uint listed = record >> 5, pair = record & 31u;
    const uint place = pairOrder[grid.sparseLimits.x + listed] + uint(bitCount(pairOrder[listed] & ((1u << pair) - 1u)));
    if (place >= grid.sparseLimits.y) return;
    const uint packed = bricks[listed];
    const uint mask = (1u << kIsoBrickAxisBits) - 1u;
    const uvec3 b = uvec3(packed & mask, (packed >> kIsoBrickAxisBits) & mask, packed >> (2 * kIsoBrickAxisBits));
    const uvec3 c0 = b * kIsoBrickCells + uvec3(0u, (pair & 3u) * 2u, pair >> 2);
    const uvec4 cases = isoPairCaseWords(rows0 & 0x1ffu, (rows0 >> 9) & 0x1ffu, (rows0 >> 18) & 0x1ffu,
                                         rows1 & 0x1ffu, (rows1 >> 9) & 0x1ffu, (rows1 >> 18) & 0x1ffu,
                                         min(kIsoBrickCells, grid.cells.x - c0.x), c0.y + 1u < grid.cells.y);
    pyramidQuads[(grid.levels[0].x >> 2) + place] = cases;
    pyramid[grid.levels[1].x + place] = sums1;
    pyramid[grid.levels[2].x + place] = isoByteSum(sums1);
    slotRecords[place] = record;
}
