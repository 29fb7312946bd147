#version 460
// Sparse volume, passes <name>.sparse.activate (pc.srcLevel 2) and
// <name>.sparse.args (3). The host's upload left the volume's surface
// bricks (those a cell of which an iso value of the upload's range can cut)
// with the value range of their 9^3 samples, surface brick i's samples at
// pool slot i (sparse_volume.cpp); mode 2, a thread per surface brick
// (pc.itemCount of them), lists those whose range reaches this frame's iso
// value, with their slots: min < iso <= max, as a cut cell needs
// (NaN samples count as -infinity). Past the list's capacity it only counts
// (stats: needed, overflow). Mode 3: the count -> classify's indirect
// dispatch. Compiled by the build: no user snippet. Appends follow the
// atomics: the order reaches the output only as the triangles' order.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) buffer CountersBuf { IsoCounters counters; };
layout(set = 0, binding = 2, std430) writeonly buffer BrickListBuf { uint bricks[]; };
layout(set = 0, binding = 3, std430) writeonly buffer DispatchBuf { uvec4 classifyDispatch; };
// Per surface brick: x the list entry (10-bit coordinates per axis), y and z
// the bits of its samples' min and max.
layout(set = 0, binding = 4, std430) readonly buffer SurfaceBricksBuf { uvec4 surfaceBricks[]; };
// Per listed brick: its surface brick's index, which is its pool slot.
layout(set = 0, binding = 5, std430) writeonly buffer BrickSlotsBuf { uint brickSlots[]; };

void main() {
    const uint thread = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    // One structured if/else (see sparse_activate.glsl).
    if (isoOpaque(pc.srcLevel) == 2u) {
        if (thread < pc.itemCount) {
            const uvec4 brick = surfaceBricks[thread];
            if (uintBitsToFloat(brick.y) < pc.iso && uintBitsToFloat(brick.z) >= pc.iso) {
                const uint at = atomicAdd(counters.sparseBricks, 1u);
                if (at < grid.sparseLimits.x) {
                    bricks[at] = brick.x;
                    brickSlots[at] = thread;
                }
            }
        }
    } else {
        const uint listed = min(counters.sparseBricks, grid.sparseLimits.x);
        const uint groups = (listed + kIsoBricksPerGroup - 1u) / kIsoBricksPerGroup;
        const uint gx = min(groups, grid.maxGroupsX);
        classifyDispatch = uvec4(gx, gx == 0u ? 1u : (groups + gx - 1u) / gx, 1u, 0u);
    }
}
