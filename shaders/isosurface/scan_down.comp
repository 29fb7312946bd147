#version 460
// Scan baseline (the CUDA marchingCubes sample's prefix-sum pipeline, docs/algorithms.md; on the same reduction tree):
// down-sweep of a 4-ary exclusive scan. The pyramid levels are the up-sweep;
// this writes, for level k >= 1 (pc.srcLevel), the exclusive prefix of each
// element: its parent's prefix plus the sums of its preceding siblings.
// Level 0's prefixes are finished by generate.comp itself.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer PyramidBuf { uint pyramid[]; };
layout(set = 0, binding = 2, std430) buffer OffsetsBuf { uint offsets[]; }; // levels >= 1, from levels[1].z

void main() {
    const uint k = pc.srcLevel;
    const uint i = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    if (i >= grid.levels[k].y) return;
    const uint top = grid.levelCount - 1;
    const uint parent = i / 4;
    uint prefix = isoOpaque(k + 1) == top ? 0u : offsets[grid.levels[k + 1].z - grid.levels[1].z + parent];
    if (isoOpaque(k) < grid.packedLevels) {
        // u8 level (level 1 of the cell tree): the 4 siblings are one word;
        // keep the bytes before i's and add them up (each <= 60).
        const uint shift = (i & 3u) * 8u;
        const uint w = pyramid[grid.levels[k].x + parent] & ((1u << shift) - 1u); // shift 0: no siblings
        const uint pairs = (w & 0x00ff00ffu) + ((w >> 8) & 0x00ff00ffu);
        prefix += (pairs & 0xffffu) + (pairs >> 16);
    } else {
        for (uint j = parent * 4; j < i; ++j) prefix += pyramid[grid.levels[k].x + j]; // 32-bit sums
    }
    offsets[grid.levels[k].z - grid.levels[1].z + i] = prefix;
}
