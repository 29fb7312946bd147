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

// Bindings 7..11 of vox_compute.glsl, 4 nodes at a time (init.comp's stores).
layout(std430, set = 0, binding = 7) coherent writeonly buffer NodeColor4 { uvec4 nodeColor4[]; };
layout(std430, set = 0, binding = 8) coherent writeonly buffer NodeCount4 { uvec4 nodeCount4[]; };
layout(std430, set = 0, binding = 9) coherent writeonly buffer NodeNx4 { ivec4 nodeNx4[]; };
layout(std430, set = 0, binding = 10) coherent writeonly buffer NodeNy4 { ivec4 nodeNy4[]; };
layout(std430, set = 0, binding = 11) coherent writeonly buffer NodeNz4 { ivec4 nodeNz4[]; };

// The phase's writes (node arrays, counters, dispatch entries) visible to
// the whole workgroup before the next phase starts.
void phaseDone() {
    memoryBarrierBuffer();
    barrier();
}

// Words of level l's occupancy bitmap (cell_levels.comp).
uint levelWords(uint l) { return max(1u, (1u << (3u * l)) >> 5u); }

void main() {
    uint t = gl_LocalInvocationID.x;
    // First the occupancy bitmaps of levels params.childWords - 1 .. 0
    // (cell_levels.comp's launches for them), each from the one below.
    for (uint l = params.childWords; l-- > 0u;) {
        uint at = params.levelBits; // level 0's bitmap; the levels follow each other
        for (uint k = 0u; k < l; ++k) at += levelWords(k);
        for (uint j = t; j < levelWords(l); j += VOX_GROUP_SIZE)
            cells[at + j] = voxLevelWord(at + levelWords(l), levelWords(l + 1u), j);
        phaseDone();
    }
    uint levelBits = params.levelBits;
    for (uint l = 0u; l < params.level; ++l) {
        uint first = counters.levelTileStart[l], last = counters.levelTileEnd[l];
        for (uint i = t; i < 2u * (last - first); i += VOX_GROUP_SIZE) allocQuad(l, 2u * first + i, l == 0u, levelBits);
        levelBits += levelWords(l);
        phaseDone();
        if (t == 0u) voxLevelArgs(l);
        phaseDone();
        first = counters.levelTileStart[l + 1u];
        last = counters.levelTileEnd[l + 1u];
        // Null children and empty values; the coordinates came with the allocation.
        for (uint i = t; i < 2u * (last - first); i += VOX_GROUP_SIZE) {
            uint q = 2u * first + i;
            nodeChild4[q] = uvec4(0u);
            nodeColor4[q] = uvec4(0u);
            nodeCount4[q] = uvec4(0u);
            nodeNx4[q] = ivec4(0);
            nodeNy4[q] = ivec4(0);
            nodeNz4[q] = ivec4(0);
        }
        phaseDone();
    }
}
