#version 460
// One thread per node of the level: a flagged node gets a tile of 8
// children from the pool's atomic counter (step 2). When the pool is full the
// node keeps no children (the tree is truncated, never corrupt) and the
// request is still counted, so the needed size can be reported.
// OccupancyLevels (VOX_CURSORS): one thread per 4 nodes, the flags are the nodes'
// bits in their level's occupancy bitmap (cell_levels.comp).
#define VOX_TEXEL_READS
#include "voxelizer/vox_compute.glsl"

#ifdef VOX_TEXEL_READS
// OccupancyLevels reads the level's coordinates (written by the launch
// above) and the bitmaps through texel views: vector gathers on lavapipe,
// where storage loads run lane by lane.
layout(set = 0, binding = VOX_TEXEL_BINDING_NODE_COORD) uniform usamplerBuffer nodeCoordTexels;
uint coordOf(uint node) { return texelFetch(nodeCoordTexels, int(node)).x; }
#else
uint coordOf(uint node) { return nodeCoord[node]; }
#endif

#include "voxelizer/vox_alloc.glsl"

void main() {
    uint l = params.level;
    uint first = counters.levelTileStart[l], last = counters.levelTileEnd[l];
    uint i = voxThreadIndex();
    if ((kVoxFlags & VOX_CURSORS) != 0u) {
        // The leaf tiles, one per occupied cell (allocQuad), requested at once.
        if (i == 0u && l + 1u == params.dims.w) atomicAdd(counters.tileCount, counters.cellCount);
        if (i < 2u * (last - first)) allocQuad(l, 2u * first + i, l == 0u, params.levelBits);
        return;
    }
    if (i >= 8u * (last - first)) return;
    uint node = 8u * first + i;
    if (nodeChild[node] != VOX_FLAG) return;
    uint tile = atomicAdd(counters.tileCount, 1u);
    if (tile < params.tileCapacity) {
        nodeChild[node] = tile;
        // Children's coordinates at their level, for consumers that walk a
        // level's node range without descending (init keeps them).
        writeChildCoords(tile, nodeCoord[node]);
    } else {
        nodeChild[node] = 0u;
        failed(l, 1u);
    }
}
