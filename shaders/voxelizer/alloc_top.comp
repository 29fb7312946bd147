#version 460
// OctreeBuild::OccupancyLevels: the tree build's levels next to the root in
// one workgroup. First the occupancy bitmaps of levels params.childWords - 1
// .. 0 (cell_levels.comp's work for them), then for l = 0 ..
// params.level - 1: alloc.comp's allocation of
// level l's quads, args.comp's bookkeeping of level l + 1 (its tile range
// and launches) and init.comp's emptying of level l + 1's tiles, with a
// barrier between the phases. One launch instead of three per level: those
// levels hold a few thousand nodes at most, and each launch cost lavapipe
// ~0.1 ms of fixed time. Storage reads only: each phase reads what the one
// before wrote in this launch.
#define VOX_ALLOC_COHERENT coherent
#define VOX_CELLS_COHERENT coherent
#include "voxelizer/vox_compute.glsl"

uint coordOf(uint node) { return nodeCoord[node]; }

#include "voxelizer/vox_alloc.glsl"

#define VOX_INIT_COHERENT coherent
#include "voxelizer/vox_init.glsl"

// The phase's writes (node arrays, counters, dispatch entries) visible to
// the whole workgroup before the next phase starts.
void phaseDone() {
    memoryBarrierBuffer();
    barrier();
}

void main() {
    uint t = gl_LocalInvocationID.x;
    // First the occupancy bitmaps of levels params.childWords - 1 .. 0
    // (cell_levels.comp's launches for them), each from the one below.
    for (uint l = params.childWords; l-- > 0u;) {
        uint at = params.levelBits; // level 0's bitmap; the levels follow each other
        for (uint k = 0u; k < l; ++k) at += voxLevelWords(k);
        for (uint j = t; j < voxLevelWords(l); j += VOX_GROUP_SIZE)
            cells[at + j] = voxLevelWord(at + voxLevelWords(l), voxLevelWords(l + 1u), j);
        phaseDone();
    }
    uint levelBits = params.levelBits;
    for (uint l = 0u; l < params.level; ++l) {
        uint first = counters.levelTileStart[l], last = counters.levelTileEnd[l];
        for (uint i = t; i < 2u * (last - first); i += VOX_GROUP_SIZE) allocQuad(l, 2u * first + i, l == 0u, levelBits);
        levelBits += voxLevelWords(l);
        phaseDone();
        if (t == 0u) voxLevelArgs(l);
        phaseDone();
        first = counters.levelTileStart[l + 1u];
        last = counters.levelTileEnd[l + 1u];
        for (uint i = t; i < 2u * (last - first); i += VOX_GROUP_SIZE) voxEmptyQuad(2u * first + i);
        phaseDone();
    }
}
