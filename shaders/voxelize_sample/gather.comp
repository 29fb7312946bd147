#version 460
// One thread per node of the chosen octree level (the voxelizer's own
// indirect launch for that level): every non-empty node becomes a cube
// instance (coordinates, merged colour); the draw's instance count is the
// append counter, so the CPU never learns it.
#include "voxelizer/vox_shared.h"
#include "voxelize_sample/sample_shared.h"

layout(local_size_x = 64) in;
layout(push_constant) uniform Push { GatherParams params; };
layout(std430, set = 0, binding = 0) readonly buffer Counters { VoxCounters counters; };
// The voxelizer's node arrays this pass reads (one word per node each).
layout(std430, set = 0, binding = 1) readonly buffer NodeCount { uint nodeCount[]; };
layout(std430, set = 0, binding = 4) readonly buffer NodeCoord { uint nodeCoord[]; };
layout(std430, set = 0, binding = 5) readonly buffer NodeColor { uint nodeColor[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Instances { uvec2 instances[]; };
// VkDrawIndirectCommand: vertexCount, instanceCount, firstVertex, firstInstance.
layout(std430, set = 0, binding = 3) buffer DrawArgs { uint draw[4]; };

void main() {
    uint l = params.level;
    uint first = counters.levelTileStart[l], last = counters.levelTileEnd[l];
    // Same folding as the voxelizer's launches (64 threads per group).
    uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u + gl_LocalInvocationID.x;
    if (i >= 8u * (last - first)) return;
    uint node = 8u * first + i;
    if (nodeCount[node] == 0u) return;
    uint slot = atomicAdd(draw[1], 1u);
    if (slot < params.capacity) instances[slot] = uvec2(nodeCoord[node], nodeColor[node]);
}
