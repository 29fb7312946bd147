#version 460
// One thread per voxel fragment: set the bit of the level D - 1 cell (the
// leaf's parent) holding it. The tree build then runs over the occupied
// cells (cell_list.comp) instead of over every fragment: a closed mesh has
// about 1.5-2 fragments per leaf and 3-4 leaves per parent, so each of the
// D flag passes (or the bottom-up key pass) does 5-8x fewer threads.
#include "voxelizer/vox_compute.glsl"

void main() {
    uint i = voxThreadIndex();
    if (i >= counters.fragmentsStored) return;
    uint b = voxMorton(voxUnpack(fragments[i].x) >> 1u);
    uint w = b >> 5u, m = 1u << (b & 31u);
    // Neighbouring fragments mostly share a cell: the load skips the atomic
    // (on lavapipe an atomic costs far more than a load).
    if ((cells[w] & m) == 0u) atomicOr(cells[w], m);
}
