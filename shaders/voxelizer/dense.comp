#version 460
// One thread per voxel fragment: mark its voxel in the dense float grid
// (x fastest; 1 = occupied, 0 = empty, cleared by a transfer before).
// Concurrent writers store the same value.
#include "voxelizer/vox_compute.glsl"

void main() {
    uint i = voxThreadIndex();
    if (i >= counters.fragmentsStored) return;
    uvec3 c = voxUnpack(fragments[i].x);
    if (any(greaterThanEqual(c, params.dims.xyz))) return;
    dense[c.x + params.dims.x * (c.y + params.dims.y * c.z)] = 1.0;
}
