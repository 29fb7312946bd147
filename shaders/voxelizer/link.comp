#version 460
// OctreeBuild::TileHash, one thread per tile entered by keys.comp: write the
// tile's 8 nodes (coordinates at their level, empty values) with their child
// pointers found in the tile hash, and link a level-1 tile to the root. Only
// this thread writes these nodes, so no ordering between tiles is needed.
// Tiles beyond the pool's capacity are skipped and their parents keep no
// children (a truncated tree, every pointer valid).
#include "voxelizer/vox_compute.glsl"

void main() {
    uint e = voxThreadIndex();
    uint slots = params.hashMask + 1u;
    if (e >= min(counters.tileEntries, voxMaxTileEntries())) return;
    uint s = tileHash[2u * slots + e];
    if (s == VOX_NO_NODE) return; // a reserved entry whose key another thread entered
    uint key = tileHash[s];
    uint l = key >> 27;
    uint tile = counters.levelTileStart[l] + tileHash[slots + s];
    if (tile >= counters.levelTileEnd[l]) return;
    uvec3 parent = uvec3(key & 511u, (key >> 9) & 511u, (key >> 18) & 511u);
    if (l == 1u) nodeChild[0] = tile;
    for (uint k = 0u; k < 8u; ++k) {
        uvec3 c = parent * 2u + uvec3(k & 1u, (k >> 1) & 1u, (k >> 2) & 1u);
        uint child = l < params.dims.w ? voxHashTile(l + 1u, voxTileKey(l + 1u, c)) : 0u;
        voxNodeInit(8u * tile + k, child, voxPack(c));
    }
}
