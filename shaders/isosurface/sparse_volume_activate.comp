#version 460
// Sparse volume, passes <name>.sparse.activate (pc.srcLevel 2),
// <name>.sparse.list (4) and <name>.sparse.args (3). The host's upload left
// the volume's surface bricks (those a cell of which an iso value of the
// upload's range can cut) with the value range of their 9^3 samples,
// surface brick i's samples at pool slot i (sparse_volume.cpp); mode 2, a
// thread per surface brick (pc.itemCount of them), marks those whose range
// reaches this frame's iso value: min < iso <= max, as a cut cell needs
// (NaN samples count as -infinity); bit i & 31 of word i / 32.
// <name>.sparse.bricks.order (sparse_order.comp) gives each word of marks
// its first list entry; mode 4, a thread per word, lists its bricks in
// surface brick order with their slots, the same order in every run. Past
// the list's capacity they only count (stats: needed, overflow). Mode 3:
// the count -> classify's indirect dispatch. Compiled by the build: no user
// snippet.
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
layout(set = 0, binding = 6, std430) buffer MarksBuf { uint marks[]; };
// Per word of marks, its first list entry (sparse_order.comp).
layout(set = 0, binding = 7, std430) readonly buffer BasesBuf { uint bases[]; };

void main() {
    const uint thread = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    // One structured if/else (see sparse_activate.glsl).
    const uint mode = isoOpaque(pc.srcLevel);
    if (mode == 2u) {
        if (thread < pc.itemCount) {
            const uvec4 brick = surfaceBricks[thread];
            if (uintBitsToFloat(brick.y) < pc.iso && uintBitsToFloat(brick.z) >= pc.iso)
                atomicOr(marks[thread / 32u], 1u << (thread & 31u));
        }
    } else if (mode == 4u) {
        if (thread < (pc.itemCount + 31u) / 32u) {
            uint at = bases[thread];
            for (uint bits = marks[thread]; bits != 0u && at < grid.sparseLimits.x; bits &= bits - 1u, ++at) {
                const uint i = thread * 32u + uint(findLSB(bits));
                bricks[at] = surfaceBricks[i].x;
                brickSlots[at] = i;
            }
        }
    } else {
        const uint listed = min(counters.sparseBricks, grid.sparseLimits.x);
        const uint groups = (listed + kIsoBricksPerGroup - 1u) / kIsoBricksPerGroup;
        const uint gx = min(groups, grid.maxGroupsX);
        classifyDispatch = uvec4(gx, gx == 0u ? 1u : (groups + gx - 1u) / gx, 1u, 0u);
    }
}
