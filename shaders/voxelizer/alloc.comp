#version 460
// One thread per node of the level: a flagged node gets a tile of 8
// children from the pool's atomic counter (step 2). When the pool is full the
// node keeps no children (the tree is truncated, never corrupt) and the
// request is still counted, so the needed size can be reported.
#include "voxelizer/vox_compute.glsl"

void main() {
    uint l = params.level;
    uint first = counters.levelTileStart[l], last = counters.levelTileEnd[l];
    uint i = voxThreadIndex();
    if (i >= 8u * (last - first)) return;
    uint node = 8u * first + i;
    if (nodeChild[node] != VOX_FLAG) return;
    uint tile = atomicAdd(counters.tileCount, 1u);
    if (tile < params.tileCapacity) {
        nodeChild[node] = tile;
        // Children's coordinates at their level, for consumers that walk a
        // level's node range without descending (init keeps them).
        uvec3 c = voxUnpack(nodeCoord[node]) * 2u;
        for (uint k = 0u; k < 8u; ++k)
            nodeCoord[8u * tile + k] = voxPack(c + uvec3(k & 1u, (k >> 1) & 1u, (k >> 2) & 1u));
    } else {
        nodeChild[node] = 0u;
        atomicAdd(counters.tilesFailed, 1u);
        if (l + 1u < params.dims.w) counters.failedAboveLeaves = 1u;
    }
}
