#version 460
// One thread per 4 nodes (half a tile) of the tiles just allocated for level
// `level`: null children and empty values (step 3). The pool is reused every
// frame, so this is what makes old contents unreachable (vox_init.glsl).
#include "voxelizer/vox_compute.glsl"

// Binding 3 of vox_compute.glsl, 4 nodes at a time (vox_init.glsl).
layout(std430, set = 0, binding = 3) writeonly buffer NodeChild4 { uvec4 nodeChild4[]; };
#include "voxelizer/vox_init.glsl"

void main() {
    uint l = params.level;
    uint first = counters.levelTileStart[l], last = counters.levelTileEnd[l];
    uint i = voxThreadIndex();
    if (i >= 2u * (last - first)) return;
    voxEmptyQuad(2u * first + i);
}
