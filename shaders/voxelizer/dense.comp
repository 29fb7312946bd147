#version 460
// One thread per fragment record: mark its voxels in the dense float grid
// (x fastest; 1 = occupied, 0 = empty, cleared by a transfer before).
// Concurrent writers store the same value.
#include "voxelizer/vox_compute.glsl"

void main() {
    uint i = voxThreadIndex();
    if (i >= counters.fragmentsStored) return;
    uvec4 f = fragments[i];
    uvec3 c = voxUnpack(f.x);
    for (uint m = voxRecordMask(f); m != 0u; m &= m - 1u) {
        uvec3 v = voxCellVoxel(c, uint(findLSB(m)));
        if (all(lessThan(v, params.dims.xyz))) dense[v.x + params.dims.x * (v.y + params.dims.y * v.z)] = 1.0;
    }
}
