#version 460
// Empty-space skipping, every frame (IsoGrid.patchList). Two passes of this
// shader (pc.srcLevel):
// 0, <name>.classify.activate: one thread per classify patch appends the
//    patch to the list unless its value bounds lie entirely below or
//    entirely at/above this frame's iso value: such a patch has no
//    triangle, and its pyramid words are the zeros the clear pass left in
//    levels 0..2, as the dense classify writes for such runs (cases 0, also
//    inside: see classify.comp).
// 1, <name>.classify.args: one invocation turns the count into classify's
//    indirect dispatch (kIsoPatchesPerGroup patches per group, folded as
//    every module dispatch) and the bound classify checks.
// The list order follows the atomics and may change from run to run; it
// never reaches the output, since each patch writes its own pyramid words.
// ISO_SUBGROUP_ATOMICS (the activate.subgroup.comp variant): one atomic per
// subgroup reserves the slots of all its listed patches (ballot).
#ifdef ISO_SUBGROUP_ATOMICS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#endif
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer PatchBoundsBuf { vec2 patchBounds[]; };
// A second interval per patch (volumes: the cells of runs past their first
// row, patch_bounds.comp); the other sources bind patchBounds here again.
layout(set = 0, binding = 4, std430) readonly buffer PatchWrapBoundsBuf { vec2 patchWrapBounds[]; };
layout(set = 0, binding = 2, std430) buffer ListBuf {
    IsoPatchList head;
    uint patches[];
};
layout(set = 0, binding = 3, std430) writeonly buffer DispatchBuf { uvec4 dispatchArgs; };

void main() {
    if (isoOpaque(pc.srcLevel) == 0u) {
        const uint patchId = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
        // A NaN iso value lists nothing: the dense classify finds no
        // corner inside then (load >= NaN is false), all zeros as well.
        bool listed = false;
        if (patchId < grid.patchCount) {
            const vec2 b = patchBounds[patchId], w = patchWrapBounds[patchId];
            listed = (b.y >= pc.iso && b.x < pc.iso) || (w.y >= pc.iso && w.x < pc.iso);
        }
#ifdef ISO_SUBGROUP_ATOMICS
        const uvec4 ballot = subgroupBallot(listed);
        const uint count = subgroupBallotBitCount(ballot);
        if (count == 0u) return;
        uint first = 0u;
        if (subgroupElect()) first = atomicAdd(head.appended, count);
        first = subgroupBroadcastFirst(first);
        if (listed) patches[first + subgroupBallotExclusiveBitCount(ballot)] = patchId;
#else
        if (listed) patches[atomicAdd(head.appended, 1u)] = patchId;
#endif
        return;
    }
    const uint listed = min(head.appended, grid.patchCount);
    const uint groups = (listed + kIsoPatchesPerGroup - 1u) / kIsoPatchesPerGroup;
    const uint gx = min(groups, grid.maxGroupsX);
    head.listed = listed;
    dispatchArgs = uvec4(gx, gx == 0u ? 1u : (groups + gx - 1u) / gx, 1u, 0u);
}
