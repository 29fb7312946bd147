#version 460
// HistoPyramid reduction, fan-out 4, several levels per dispatch: a group
// of 256 threads reads 1024 elements of level L (4 per thread) and writes
// 256 elements of L+1, then 64 of L+2, 16 of L+3 and 4 of L+4 from shared
// memory. Level sizes need no padding: reads past a level's end count 0.
// ISO_BUILD_LIST (a grid that fits, as bricks: the first pass over the
// pool's level 3, which classify summed): a group per listed build group of brick_list.comp (an
// indirect dispatch), group i reducing the words of list entry i's group;
// the levels of the groups not listed were cleared before.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoBuildGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) buffer PyramidBuf { uint pyramid[]; };
#ifdef ISO_BUILD_LIST
layout(set = 0, binding = 2, std430) readonly buffer CountersBuf { IsoCounters counters; };
layout(set = 0, binding = 3, std430) readonly buffer ListBuf { uint list[]; };
#endif

shared uint partial[kIsoBuildGroupSize];

void main() {
#ifdef ISO_BUILD_LIST
    // A folded dispatch may have a few groups past the list (the whole group returns).
    if (linearGroup() >= counters.sparseSupers) return;
    const uint group = list[grid.sparseLimits.z + linearGroup()];
#else
    const uint group = linearGroup();
#endif
    const uint t = gl_LocalInvocationIndex;
    const uint src = pc.srcLevel;
    const uint srcOffset = grid.levels[src].x;
    const uint srcSize = grid.levels[src].y;
    // Level 0 of the cell/edge pyramids holds count | bits << 4: only the
    // count is summed (baseMask); particle bin counts use all bits.
    const uint mask = src == 0 ? grid.baseMask : 0xffffffffu;
    const uint first = group * (kIsoBuildGroupSize * 4) + t * 4;
    uint sum = 0;
    for (uint c = 0; c < 4; ++c)
        if (first + c < srcSize) sum += pyramid[srcOffset + first + c] & mask;
    uint width = kIsoBuildGroupSize;
    uint e = group * width + t;
    if (e < grid.levels[src + 1].y) pyramid[grid.levels[src + 1].x + e] = sum;
    partial[t] = sum;
    for (uint k = 2; k <= isoOpaque(pc.numLevels); ++k) {
        barrier();
        width /= 4;
        uint v = 0;
        if (t < width) v = partial[4 * t] + partial[4 * t + 1] + partial[4 * t + 2] + partial[4 * t + 3];
        barrier();
        if (t < width) {
            partial[t] = v;
            e = group * width + t;
            if (e < grid.levels[src + k].y) pyramid[grid.levels[src + k].x + e] = v;
        }
    }
}
