// GLSL helpers shared by the voxelizer's compute shaders.
#ifndef PYRAMARCH_VOX_COMMON_GLSL
#define PYRAMARCH_VOX_COMMON_GLSL

uint voxPack(uvec3 c) { return c.x | (c.y << 10) | (c.z << 20); }
uvec3 voxUnpack(uint k) { return uvec3(k & 1023u, (k >> 10) & 1023u, (k >> 20) & 1023u); }

// A fragment record (vox_shared.h) holds the voxels of one 2^3 cell: bit o
// of its mask is the cell's voxel o (child order), voxCellVoxel(c, o) for
// any voxel c of the cell.
uint voxRecordMask(uvec4 f) { return f.y >> 24; }
uvec3 voxCellVoxel(uvec3 c, uint o) { return (c & ~1u) | uvec3(o & 1u, (o >> 1) & 1u, (o >> 2) & 1u); }

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

// Morton index of a cell: voxSpread3 (vox_shared.h) of each axis.
uint voxCompact3(uint v) {
    v &= 0x09249249u;
    v = (v | (v >> 2)) & 0x030c30c3u;
    v = (v | (v >> 4)) & 0x0300f00fu;
    v = (v | (v >> 8)) & 0x030000ffu;
    v = (v | (v >> 16)) & 1023u;
    return v;
}
uint voxMorton(uvec3 c) { return voxSpread3(c.x) | (voxSpread3(c.y) << 1) | (voxSpread3(c.z) << 2); }
uvec3 voxUnmorton(uint m) { return uvec3(voxCompact3(m), voxCompact3(m >> 1), voxCompact3(m >> 2)); }

#endif
