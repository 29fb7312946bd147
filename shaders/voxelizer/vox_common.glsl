// GLSL helpers shared by the voxelizer's compute shaders.
#ifndef PYRAMARCH_VOX_COMMON_GLSL
#define PYRAMARCH_VOX_COMMON_GLSL

uint voxPack(uvec3 c) { return c.x | (c.y << 10) | (c.z << 20); }
uvec3 voxUnpack(uint k) { return uvec3(k & 1023u, (k >> 10) & 1023u, (k >> 20) & 1023u); }

// Launches larger than maxComputeWorkGroupCount[0] (65535 on many devices)
// are folded into (x, y); this recovers the linear thread index.
uint voxThreadIndex() {
    // VOX_GROUP_SIZE, not gl_WorkGroupSize: this file is included before the
    // local_size declaration, where gl_WorkGroupSize would still be (1,1,1).
    return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * VOX_GROUP_SIZE + gl_LocalInvocationID.x;
}

uvec4 voxDispatchFor(uint threads) {
    uint groups = (threads + VOX_GROUP_SIZE - 1u) / VOX_GROUP_SIZE;
    uint x = min(groups, 65535u);
    uint y = x == 0u ? 0u : (groups + x - 1u) / x;
    return uvec4(x, x == 0u ? 0u : y, x == 0u ? 0u : 1u, threads);
}

// Child slot of coordinate `c` below a node of level `level` in a tree of depth `depth`.
uint voxOctant(uvec3 c, uint level, uint depth) {
    uint s = depth - level - 1u;
    return ((c.x >> s) & 1u) | (((c.y >> s) & 1u) << 1) | (((c.z >> s) & 1u) << 2);
}

#endif
