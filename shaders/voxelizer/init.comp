#version 460
// One thread per node of the tiles just allocated for level `level`:
// null children and empty values (step 3). The pool is reused every frame,
// so this is what makes old contents unreachable.
#include "voxelizer/vox_compute.glsl"

void main() {
    uint l = params.level;
    uint first = counters.levelTileStart[l], last = counters.levelTileEnd[l];
    uint i = voxThreadIndex();
    if (i >= 8u * (last - first)) return;
    // The coordinate was written by the allocating parent (not read and
    // rewritten here: a load and a store per node saved); everything else
    // starts empty.
    uint node = 8u * first + i;
    nodeChild[node] = 0u;
    nodeColor[node] = 0u;
    nodeCount[node] = 0u;
    nodeNx[node] = 0;
    nodeNy[node] = 0;
    nodeNz[node] = 0;
}
