#version 460
// One thread per voxel fragment: mark the level-`level` node containing it
// for subdivision (Crassin & Green 2012, 22.5.4 step 1; docs/algorithms.md).
#include "voxelizer/vox_compute.glsl"

void main() {
    uint i = voxThreadIndex();
    if (i >= counters.fragmentsStored) return;
    uvec3 c = voxUnpack(fragments[i].x);
    uint node;
    if (!voxFragmentNode(i, c, params.level, true, node)) return;
    // Every writer stores the same value: no atomic needed.
    nodeChild[node] = VOX_FLAG;
}
