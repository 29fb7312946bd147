#version 460
// One thread per node of the level: a flagged node (with cursors: a node
// whose occupancy bit is set) gets a tile of 8
// children from the pool's atomic counter (step 2). When the pool is full the
// node keeps no children (the tree is truncated, never corrupt) and the
// request is still counted, so the needed size can be reported.
#include "voxelizer/vox_compute.glsl"

// Binding 12 of vox_compute.glsl, 4 nodes at a time: a tile's 8 nodes are 8
// consecutive, 32-byte aligned words.
layout(std430, set = 0, binding = 12) writeonly buffer NodeCoord4 { uvec4 nodeCoord4[]; };

void main() {
    uint l = params.level;
    uint first = counters.levelTileStart[l], last = counters.levelTileEnd[l];
    uint i = voxThreadIndex();
    if (i >= 8u * (last - first)) return;
    uint node = 8u * first + i;
    if ((kVoxFlags & VOX_CURSORS) != 0u) {
        // The node's bit in its level's occupancy bitmap (cell_levels.comp)
        // instead of a flag pass over the cells. Nodes 1..7 of the root
        // tile are unused (their coordinates are the root's).
        uint m = voxMorton(voxUnpack(nodeCoord[node]));
        uint word = cells[params.levelBits + (m >> 5u)], below = word & ((1u << (m & 31u)) - 1u);
        if ((word & (1u << (m & 31u))) == 0u || (l == 0u && i != 0u)) return;
        // The leaves' parents: the cell's cursor (its list index is the
        // rank query of voxCellIndex, on the word already loaded). Cells
        // whose node of this level did not fit the pool keep a stale
        // cursor; leaf.comp and leaf_merge.comp then descend from the root.
        if (l + 1u == params.dims.w) cursors[cells[params.cellWords + (m >> 5u)] + bitCount(below)] = node;
    } else if (nodeChild[node] != VOX_FLAG) {
        return;
    }
    uint tile = atomicAdd(counters.tileCount, 1u);
    if (tile < params.tileCapacity) {
        nodeChild[node] = tile;
        // Children's coordinates at their level, for consumers that walk a
        // level's node range without descending (init keeps them).
        // Two wide stores (lavapipe stores lane by lane): child k at c + its
        // octant bits, x | y << 10 | z << 20 packed, so + 1, + 1024, + 1048576.
        uint c = voxPack(voxUnpack(nodeCoord[node]) * 2u);
        uvec4 lo = uvec4(c, c + 1u, c + 1024u, c + 1025u);
        nodeCoord4[2u * tile] = lo;
        nodeCoord4[2u * tile + 1u] = lo + 1048576u;
    } else {
        nodeChild[node] = 0u;
        atomicAdd(counters.tilesFailed, 1u);
        if (l + 1u < params.dims.w) counters.failedAboveLeaves = 1u;
    }
}
