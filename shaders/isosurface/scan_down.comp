#version 460
// Scan baseline (the CUDA marchingCubes sample's prefix-sum pipeline, docs/algorithms.md; on the same reduction tree):
// down-sweep of a 4-ary exclusive scan. The pyramid levels are the up-sweep;
// this writes, for level k >= 1 (pc.srcLevel), the exclusive prefix of each
// element: its parent's prefix plus the sums of its preceding siblings.
// Level 0's prefixes are finished by generate.comp itself.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std430) readonly buffer GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer PyramidBuf { uint pyramid[]; };
layout(set = 0, binding = 2, std430) buffer OffsetsBuf { uint offsets[]; }; // levels >= 1, from levelOffset[1]

void main() {
    const uint k = pc.srcLevel;
    const uint i = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    if (i >= grid.levelSize[k]) return;
    const uint top = grid.levelCount - 1;
    const uint parent = i / 4;
    uint prefix = k + 1 == top ? 0u : offsets[grid.levelOffset[k + 1] - grid.levelOffset[1] + parent];
    for (uint j = parent * 4; j < i; ++j) prefix += ISO_LEVEL_RAW(pyramid, grid, k, j); // k >= 1: sums (u8 at level 1)
    offsets[grid.levelOffset[k] - grid.levelOffset[1] + i] = prefix;
}
