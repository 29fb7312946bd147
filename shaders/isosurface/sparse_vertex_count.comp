#version 460
// Indexed output on a sparse domain, pass <name>.sparse.vertices.count: a
// thread per pool slot claimed this frame (indirect, sparse_vertex_args.comp).
// From the slot's 16 MC cases (pool pyramid level 0) and its cells'
// positions in the virtual grid (record -> brick, pair) it counts the cut
// edges each cell owns (vertex_owner.glsl, as the dense classify does) into
// the vertex pyramid: level 0 the u8 sums of its 4 quads of 4 cells (one
// word), level 1 their total (one word), the shape of the dense vertex
// pyramid with a slot for a classify run. It also enters the slot in the
// owner lookup (sparse_indexed.glsl): its brick in the hash (every slot of
// a brick inserts the same key and index, so no order matters), its pool
// slot under (brick, pair), and the brick's lowest slot. No field read.
// A grid that fits (ISO_DIRECT_BRICKS): every slot of every brick, slot
// 32 i + p being brick i's pair p, and no lookup (an owner's slot is
// arithmetic).
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std140) uniform VertexGridBuf { IsoGrid vertexGrid; };
layout(set = 0, binding = 2, std430) readonly buffer PyramidBuf { uvec4 poolCases[]; };
layout(set = 0, binding = 3, std430) writeonly buffer VertexPyramidBuf { uint vertexPyramid[]; };
layout(set = 0, binding = 4, std430) readonly buffer CountersBuf { IsoCounters counters; };
#ifdef ISO_DIRECT_BRICKS
#define ISO_SPARSE_NO_LOOKUP
#else
layout(set = 0, binding = 5, std430) readonly buffer SlotBuf { uint slotRecords[]; };
layout(set = 0, binding = 6, std430) readonly buffer BrickListBuf { uint bricks[]; };
layout(set = 0, binding = 7, std430) buffer LookupBuf { uint sparseLookup[]; };
#endif

#include "isosurface/sparse_indexed.glsl"
#include "isosurface/vertex_owner.glsl"

void main() {
    const uint slot = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
#ifdef ISO_DIRECT_BRICKS
    if (slot >= grid.sparseLimits.y) return;
    const ivec3 c0 = ivec3(isoPairOrigin(isoBrickOf(slot >> 5, grid.sparse, grid.brickDivisors), slot & 31u));
#else
    if (slot >= min(counters.sparseSlots, grid.sparseLimits.y)) return;
    // A place no pair reached (a pool overflow: sparse_slot_order.comp) has
    // count 0 and stale cases and record: no vertex, no lookup entry.
    const uint countWord = grid.levels[2].x + slot;
    if (poolCases[countWord >> 2][countWord & 3u] == 0u) {
        vertexPyramid[vertexGrid.levels[0].x + slot] = 0u;
        vertexPyramid[vertexGrid.levels[1].x + slot] = 0u;
        return;
    }
    const uint record = slotRecords[slot];
    const uint listed = record >> 5, pair = record & 31u, packed = bricks[listed];
    const ivec3 c0 = ivec3(isoPairOrigin(isoUnpackBrick(packed), pair));
#endif
    // Level 0 is quad-aligned (pyramidLevels): the slot's 16 cases are one uvec4.
    const uvec4 cases = poolCases[(grid.levels[0].x >> 2) + slot];
    uint sums = 0u;
    for (uint i = 0u; i < kIsoClassifyCells; ++i) {
        const uint q = i >> 2;
        const uint word = q == 0u ? cases.x : q == 1u ? cases.y : q == 2u ? cases.z : cases.w;
        const uint mcCase = (word >> (8u * (i & 3u))) & 0xffu;
        // Cells past the grid's last (a short last brick) have case 0: no cut edge.
        const ivec3 c = c0 + ivec3(i & 7u, i >> 3, 0);
        sums += isoOwnedVertexCount(isoCornerBitsByCode(mcCase), isoBoundaryBits(c)) << (8u * q);
    }
    vertexPyramid[vertexGrid.levels[0].x + slot] = sums;
    vertexPyramid[vertexGrid.levels[1].x + slot] = (sums * 0x01010101u) >> 24;
#ifndef ISO_DIRECT_BRICKS

    sparseLookup[isoPairSlotWord(listed, pair)] = slot;
    // The brick's lowest slot fills its neighbour entries in the bases pass
    // (once per brick, not once per slot: 7 hash probes each).
    atomicMin(sparseLookup[isoNeighbourWord(listed, 0u)], slot);
    const uint bits = isoBrickHashBits(), mask = (1u << bits) - 1u, key = packed + 1u;
    uint h = isoBrickHashStart(key, bits);
    // At most half full: a free entry or the key comes within a few probes.
    for (uint probe = 0u; probe <= mask; ++probe, h = (h + 1u) & mask) {
        const uint seen = atomicCompSwap(sparseLookup[2u * h], 0u, key);
        if (seen == 0u || seen == key) {
            sparseLookup[2u * h + 1u] = listed;
            break;
        }
    }
#endif
}
