// OccupancyLevels' allocation of one level's quads (alloc.comp, one launch
// per level; alloc_top.comp, the levels near the root in one workgroup).
// The includer defines coordOf(node) (a node's packed coordinates) and, for
// views that a later phase of the same launch reads, VOX_ALLOC_COHERENT.
#ifndef PYRAMARCH_VOX_ALLOC_GLSL
#define PYRAMARCH_VOX_ALLOC_GLSL
#ifndef VOX_ALLOC_COHERENT
#define VOX_ALLOC_COHERENT
#endif

// Binding 12 of vox_compute.glsl, 4 nodes at a time: a tile's 8 nodes are 8
// consecutive, 32-byte aligned words.
layout(std430, set = 0, binding = 12) VOX_ALLOC_COHERENT writeonly buffer NodeCoord4 { uvec4 nodeCoord4[]; };

layout(std430, set = 0, binding = 3) VOX_ALLOC_COHERENT buffer NodeChild4 { uvec4 nodeChild4[]; };

// The children's coordinates of the node with coordinates `pc` (packed) for
// the new tile: two wide stores (lavapipe stores lane by lane): child k at
// 2 pc + its octant bits, x | y << 10 | z << 20 packed, so + 1, + 1024, + 1048576.
void writeChildCoords(uint tile, uint pc) {
    uint c = voxPack(voxUnpack(pc) * 2u);
    uvec4 lo = uvec4(c, c + 1u, c + 1024u, c + 1025u);
    nodeCoord4[2u * tile] = lo;
    nodeCoord4[2u * tile + 1u] = lo + 1048576u;
}

void failed(uint l, uint n) {
    atomicAdd(counters.tilesFailed, n);
    if (l + 1u < params.dims.w) counters.failedAboveLeaves = 1u;
}

// Nodes 4q .. 4q + 3 of level l, from their bits (level l's bitmap at word
// `levelBits` of the cells buffer): a tile's nodes have 8
// consecutive Morton codes (the octant is the low 3 bits), so 4 nodes are a
// nibble of one bitmap word: one coordinate load, one word and one atomic
// per 4 nodes instead of two loads and an atomic per node.
void allocQuad(uint l, uint q, bool root, uint levelBits) {
    uint pc = coordOf(4u * q);
    uint m = voxMorton(voxUnpack(pc));
    uint word = voxCellWord(levelBits + (m >> 5u));
    uint bits = (word >> (m & 31u)) & 15u;
    if (root) bits &= q == 0u ? 1u : 0u; // nodes 1..7 of the root tile are unused
    if (bits == 0u) return;
    uvec4 child = uvec4(0u);
    uint refused = 0u;
    if (l + 1u == params.dims.w) {
        // The leaves' parents (l is the same in every lane: one side runs).
        // Each is an occupied cell, and the cell with list index k gets leaf
        // tile levelTileEnd[l] + k (main adds the cells to tileCount once):
        // no atomic per 4 nodes (a locked instruction per lane on lavapipe,
        // which waits for the lane's earlier stores), and leaf_merge.comp
        // finds the tile from k without loading the pointer; consecutive
        // cells' leaves are consecutive tiles. The index is the rank query
        // of voxCellIndex on the word already loaded; the cells' cursors are
        // stored for the merge. The leaves' coordinates are the merge's to
        // write; here only when the per-fragment merge runs instead.
        uint rank = voxCellWord(params.cellWords + (m >> 5u)) + bitCount(word & ((1u << (m & 31u)) - 1u));
        uint base = counters.levelTileEnd[l] + rank;
        bool coords = (kVoxFlags & VOX_SORTED_LEAVES) == 0u || counters.cellsOverMergeLimit != 0u;
        for (uint k = 0u, b = bits; b != 0u; ++k) {
            uint s = uint(findLSB(b));
            b &= b - 1u;
            cursors[rank + k] = 4u * q + s;
            uint tile = base + k;
            if (tile < params.tileCapacity) {
                child[s] = tile;
                if (coords) writeChildCoords(tile, pc + (s & 1u) + ((s >> 1u) & 1u) * 1024u);
            } else {
                ++refused;
            }
        }
    } else {
        uint base = atomicAdd(counters.tileCount, bitCount(bits));
        for (uint k = 0u, b = bits; b != 0u; ++k) {
            uint s = uint(findLSB(b));
            b &= b - 1u;
            uint tile = base + k;
            if (tile < params.tileCapacity) {
                child[s] = tile;
                // Node 4q + s lies s & 1 along x and (s >> 1) & 1 along y from node 4q.
                writeChildCoords(tile, pc + (s & 1u) + ((s >> 1u) & 1u) * 1024u);
            } else {
                ++refused;
            }
        }
    }
    nodeChild4[q] = child;
    if (refused != 0u) failed(l, refused);
}

#endif
