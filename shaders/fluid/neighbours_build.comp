#version 460
// Neighbour lists, once per step after the sort: every sorted particle
// visits the 27 cells around its cell (about 216 candidates at rest) and
// keeps the others within h of its predicted position (about 33), so the
// solver iterations and XSPH, 2K + 1 passes, loop over the short list
// instead of the candidates (the paper also finds neighbours once per step).
#include "fluid/fluid_common.glsl"
#include "fluid/neighbours.glsl"

layout(local_size_x = kFluidGroupSize) in;

layout(set = 0, binding = 0, std430) readonly buffer StartsBuf { uint cellStart[]; };
layout(set = 0, binding = 1, std430) readonly buffer SortedCellBuf { uint sortedCell[]; };
layout(set = 0, binding = 2, std430) readonly buffer PositionBuf { vec4 position[]; };
layout(set = 0, binding = 3, std430) writeonly buffer ListBuf { uint neighbourList[]; };
layout(set = 0, binding = 4, std430) writeonly buffer CountBuf { uint neighbourCount[]; };

void main() {
    const uint i = threadIndex(kFluidGroupSize);
    if (i >= pc.particles) return;
    const vec3 pi = position[i].xyz;
    const float h2 = pc.h * pc.h;
    uint count = 0u;
    FOR_NEIGHBOURS(i)
        if (j != i && count < kMaxNeighbours) {
            const vec3 d = pi - position[j].xyz;
            if (dot(d, d) < h2) {
                neighbourList[i * kMaxNeighbours + count] = j;
                ++count;
            }
        }
    END_NEIGHBOURS
    neighbourCount[i] = count;
}
