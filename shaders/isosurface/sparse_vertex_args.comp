#version 460
// Indexed output on a sparse domain, pass <name>.sparse.vertices.args: one
// invocation after classify, the pool slots claimed this frame (within the
// pool) -> the indirect dispatch of the per-slot passes
// (sparse_vertex_count.comp, sparse_vertex_bases.comp), folded as args.comp
// folds its own. Runs before <name>.args, which resets the counters.
#include "isosurface/common.glsl"

layout(local_size_x = 1) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer CountersBuf { IsoCounters counters; };
layout(set = 0, binding = 2, std430) writeonly buffer DispatchBuf { uvec4 dispatchArgs; };

void main() {
    const uint slots = min(counters.sparseSlots, grid.sparseLimits.y);
    const uint groups = (slots + kIsoGroupSize - 1u) / kIsoGroupSize;
    const uint gx = min(groups, grid.maxGroupsX);
    dispatchArgs = uvec4(gx, gx == 0u ? 1u : (groups + gx - 1u) / gx, 1u, slots);
}
