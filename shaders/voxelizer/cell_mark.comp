#version 460
// One thread per fragment record (vox_shared.h): set the bit of the level
// D - 1 cell (the leaves' parent) holding it. The tree build then runs over the occupied
// cells (cell_list.comp) instead of over every fragment: a closed mesh has
// about 1.5-2 fragments per leaf and 3-4 leaves per parent, so each of the
// D flag passes (or the tile hash key pass) does 5-8x fewer threads.
#define VOX_TEXEL_READS
#include "voxelizer/vox_compute.glsl"

#ifdef VOX_TEXEL_READS
// The bitmap (binding 13's buffer) loaded through a storage texel view: the
// loads are vector gathers on lavapipe. The atomic goes through the storage
// buffer: lavapipe's image atomics take its texel path per lane, and cost
// this pass about 8 % more (UV sphere, knot and dragon at R = 512).
layout(set = 0, binding = VOX_IMAGE_BINDING_CELLS, r32ui) uniform coherent uimageBuffer cellImage;
uint cellWord(uint w) { return imageLoad(cellImage, int(w)).x; }
#else
uint cellWord(uint w) { return cells[w]; }
#endif
void setCellBit(uint w, uint m) { atomicOr(cells[w], m); }

void main() {
    uint i = voxThreadIndex();
    if (i >= voxStoredFragments()) return;
    uint b = voxMorton(voxUnpack(voxFragment(i).x) >> 1u);
    uint w = b >> 5u, m = 1u << (b & 31u);
    // Neighbouring fragments mostly share a cell: the load skips the atomic
    // (on lavapipe an atomic costs far more than a load).
    if ((cellWord(w) & m) == 0u) setCellBit(w, m);
}
