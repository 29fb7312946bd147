// Bindings and helpers shared by the voxelizer's compute shaders (one
// descriptor layout for all of them).
#ifndef PYRAMARCH_VOX_COMPUTE_GLSL
#define PYRAMARCH_VOX_COMPUTE_GLSL
#include "voxelizer/vox_shared.h"
#include "voxelizer/vox_common.glsl"

layout(local_size_x = VOX_GROUP_SIZE) in;
layout(push_constant) uniform Push { ComputeParams params; };
layout(std430, set = 0, binding = 0) coherent buffer Counters { VoxCounters counters; };
layout(std430, set = 0, binding = 1) buffer Dispatch { uvec4 dispatchArgs[]; };
layout(std430, set = 0, binding = 2) readonly buffer Fragments { uvec4 fragments[]; };
layout(std430, set = 0, binding = 3) coherent buffer Nodes { VoxNode nodes[]; };
layout(std430, set = 0, binding = 4) buffer Dense { float dense[]; };

// Descends from the root to the node of `level` containing voxel `c`; false
// when a node on the way has no children (the pool ran out: truncated tree).
bool voxDescend(uvec3 c, uint level, out uint node) {
    node = 0u;
    uint depth = params.dims.w;
    for (uint k = 0u; k < level; ++k) {
        uint child = nodes[node].child;
        if (child == 0u || child >= VOX_FLAG) return false;
        node = 8u * child + voxOctant(c, k, depth);
    }
    return true;
}

#endif
