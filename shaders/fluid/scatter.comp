#version 460
// Counting sort, scatter: particle i goes to slot cellStart[cell] + rank.
#include "fluid/fluid_common.glsl"

layout(local_size_x = kFluidGroupSize) in;

layout(set = 0, binding = 0, std430) readonly buffer CellRankBuf { uvec2 cellRank[]; };
layout(set = 0, binding = 1, std430) readonly buffer StartsBuf { uint cellStart[]; };
layout(set = 0, binding = 2, std430) writeonly buffer SortedIndexBuf { uint sortedIndex[]; };

void main() {
    const uint i = threadIndex(kFluidGroupSize);
    if (i >= pc.particles) return;
    const uvec2 cr = cellRank[i];
    // The ranks of a cell are 0..count-1, so the slot stays inside the
    // cell's range [cellStart[cell], cellStart[cell + 1]) of [0, particles).
    sortedIndex[cellStart[cr.x] + cr.y] = i;
}
