// Bindings and helpers shared by the voxelizer's compute shaders (one
// descriptor layout for all of them; each pipeline's descriptor types come
// from its SPIR-V).
#ifndef PYRAMARCH_VOX_COMPUTE_GLSL
#define PYRAMARCH_VOX_COMPUTE_GLSL
// A shader that defines VOX_TEXEL_READS before including this file reads the
// data its pass does not write through texel buffers and the counters
// through a uniform buffer (the helpers below); its `.storage` variant, built
// with VOX_STORAGE_READS, reads the same words through the storage buffers,
// for devices whose maxTexelBufferElements does not cover the buffers
// (VoxelizerCreateInfo::texelReads). Why: lavapipe runs every storage-buffer
// access as a loop over the SIMD lanes, but gathers texels as vectors and
// loads a uniform address once (docs/design-notes/2026-11-21-voxelizer-octree.md,
// "Texel reads, thin and exact passes").
#if defined(VOX_TEXEL_READS) && defined(VOX_STORAGE_READS)
#undef VOX_TEXEL_READS
#endif
#include "voxelizer/vox_shared.h"
#include "voxelizer/vox_common.glsl"

layout(local_size_x = VOX_GROUP_SIZE) in;
layout(push_constant) uniform Push { ComputeParams params; };
// VOX_CURSORS | VOX_TILE_HASH | VOX_SORTED_LEAVES (VOX_FLAGS_SPEC_ID, vox_shared.h).
layout(constant_id = 1) const uint kVoxFlags = 0u;
layout(std430, set = 0, binding = 0) coherent buffer Counters { VoxCounters counters; };
layout(std430, set = 0, binding = 1) buffer Dispatch { uvec4 dispatchArgs[]; };
layout(std430, set = 0, binding = 2) readonly buffer Fragments { uvec4 fragments[]; };
// The node pool, one array per field (see vox_shared.h), bindings 3, 7..12.
layout(std430, set = 0, binding = 3) coherent buffer NodeChild { uint nodeChild[]; };
layout(std430, set = 0, binding = 4) buffer Dense { float dense[]; };
layout(std430, set = 0, binding = 5) buffer Cursors { uint cursors[]; };
// OctreeBuild::TileHash: the tile hash (see vox_shared.h for its three regions).
layout(std430, set = 0, binding = 6) coherent buffer TileHash { uint tileHash[]; };
layout(std430, set = 0, binding = 7) coherent buffer NodeColor { uint nodeColor[]; };
layout(std430, set = 0, binding = 8) coherent buffer NodeCount { uint nodeCount[]; };
layout(std430, set = 0, binding = 9) coherent buffer NodeNx { int nodeNx[]; };
layout(std430, set = 0, binding = 10) coherent buffer NodeNy { int nodeNy[]; };
layout(std430, set = 0, binding = 11) coherent buffer NodeNz { int nodeNz[]; };
layout(std430, set = 0, binding = 12) coherent buffer NodeCoord { uint nodeCoord[]; };
// Occupied cells of level D - 1 (the leaves' parents), three regions of one
// buffer: [0, W) a bitmap in Morton order (cell_mark.comp), W =
// params.cellWords; [W, 2W) per non-zero word, the list index of its first
// cell; [2W, ...) the list of occupied cells (cell_list.comp;
// counters.cellCount entries, each the cell's first leaf coordinates packed
// 10:10:10, so the level-D helpers below apply unchanged).
#ifndef VOX_CELLS_COHERENT
#define VOX_CELLS_COHERENT
#endif
layout(std430, set = 0, binding = 13) VOX_CELLS_COHERENT buffer Cells { uint cells[]; };
// LeafMerge::PerCell (VOX_SORTED_LEAVES): the fragments sorted by occupied
// cell (leaf_sort.comp), pairs of words, C = params.fragmentCapacity (cell
// list indices are below it): [0, C) per cell (fragment count, end of its
// range; the start once the scatter step ran), [C, 2C) per fragment
// (octant << 24 | RGB8, packed normal). Pairs: one access per lane instead
// of two on a device that loads lane by lane.
layout(std430, set = 0, binding = 14) buffer LeafSort { uvec2 leafSort[]; };

#ifdef VOX_TEXEL_READS
// Views of bindings 2, 13, 14 and 5's buffers (VOX_TEXEL_BINDING_* in
// vox_shared.h) and the counters as a std140 uniform block (VoxCounters'
// words in uvec4s: the same bytes in std140 and std430).
layout(set = 0, binding = VOX_TEXEL_BINDING_FRAGMENTS) uniform usamplerBuffer fragmentTexels; // RGBA32UI
layout(set = 0, binding = VOX_TEXEL_BINDING_CELLS) uniform usamplerBuffer cellTexels;         // R32UI
layout(set = 0, binding = VOX_TEXEL_BINDING_SORT) uniform usamplerBuffer sortTexels;          // RG32UI
layout(set = 0, binding = VOX_TEXEL_BINDING_CURSORS) uniform usamplerBuffer cursorTexels;     // R32UI
layout(set = 0, binding = VOX_UNIFORM_BINDING_COUNTERS, std140) uniform CountersView {
    uvec4 head0;              // fragmentCount, fragmentsStored, tileCount, tilesFailed
    uvec4 head1;              // failedAboveLeaves, depthOverflow, leafFragments, tileEntries
    uvec4 levelTileStart4[3];
    uvec4 levelTileEnd4[3];
    uvec4 tail;               // cellCount, sortedFragments, cellsOverMergeLimit, (pad)
} countersView;
uvec4 voxFragment(uint i) { return texelFetch(fragmentTexels, int(i)); }
uint voxCellWord(uint i) { return texelFetch(cellTexels, int(i)).x; }
uvec2 voxSortPair(uint i) { return texelFetch(sortTexels, int(i)).xy; }
uint voxCursor(uint i) { return texelFetch(cursorTexels, int(i)).x; }
// Counters a pass reads but does not change.
uint voxStoredFragments() { return countersView.head0.y; }
uint voxTilesFailed() { return countersView.head0.w; }
uint voxFailedAboveLeaves() { return countersView.head1.x; }
uint voxCellCount() { return countersView.tail.x; }
uint voxLevelTileStart(uint l) { return countersView.levelTileStart4[l >> 2u][l & 3u]; }
#else
uvec4 voxFragment(uint i) { return fragments[i]; }
uint voxCellWord(uint i) { return cells[i]; }
uvec2 voxSortPair(uint i) { return leafSort[i]; }
uint voxCursor(uint i) { return cursors[i]; }
uint voxStoredFragments() { return counters.fragmentsStored; }
uint voxTilesFailed() { return counters.tilesFailed; }
uint voxFailedAboveLeaves() { return counters.failedAboveLeaves; }
uint voxCellCount() { return counters.cellCount; }
uint voxLevelTileStart(uint l) { return counters.levelTileStart[l]; }
#endif

// List index of the occupied cell holding level-D coordinates `c`: its
// word's first index plus the set bits before it (a rank query).
uint voxCellIndex(uvec3 c) {
    uint b = voxMorton(c >> 1u);
    uint w = b >> 5u;
    return voxCellWord(params.cellWords + w) + bitCount(voxCellWord(w) & ((1u << (b & 31u)) - 1u));
}

// floor(a / b) for 1 <= b < 2^24 when the quotient is at most 255 (a mean
// of 8-bit channels; at 2^24 fragments in one voxel the sums stop fitting 32
// bits anyway): the float quotient is within 1 of it and one
// integer step each way makes it exact. Lavapipe divides integers one lane
// at a time; floats it divides in vector registers.
uvec3 divSmall(uvec3 a, uint b) {
    uvec3 q = uvec3(vec3(a) / float(b));
    q -= uvec3(greaterThan(q * b, a));
    q += uvec3(lessThanEqual((q + 1u) * b, a));
    return q;
}

// A leaf's RGBA8 from its channel sums and fragment count: the rounded mean
// (round half up, as the CPU reference) with A = min(count, 255).
uint voxLeafColor(uvec3 sum, uint count) {
    uvec3 q = divSmall(sum, count), r = sum - q * count;
    uvec3 mean = q + uvec3(greaterThanEqual(2u * r, uvec3(count)));
    return mean.x | (mean.y << 8) | (mean.z << 16) | (min(count, 255u) << 24);
}

// Writes an interior node from its `filled` (> 0) non-empty children: the
// sum of their RGB8 colours, of their counts and of their normals. The
// root's count is every (voxel, triangle) pair merged into a reachable leaf,
// so the pass that writes the root (the top mipmap launch, or the merge when
// the root is the leaves' parent) stores it as counters.leafFragments: one
// store by one thread, where an atomic per leaves' parent (each a locked
// instruction per lane on lavapipe, which waits for the lane's earlier
// stores to drain) cost the merge a tenth of its time.
void voxWriteInterior(uint node, uvec3 rgb, uint filled, uint count, vec3 n) {
    if (node == 0u) counters.leafFragments = count;
    uvec3 avg = divSmall(2u * rgb + filled, 2u * filled); // round half up
    nodeColor[node] = avg.x | (avg.y << 8) | (avg.z << 16) | (min(count, 255u) << 24);
    nodeCount[node] = count;
    float len = length(n);
    ivec3 fn = len > 0.0 ? ivec3(round(n / len * float(VOX_NORMAL_SCALE))) : ivec3(0);
    nodeNx[node] = fn.x;
    nodeNy[node] = fn.y;
    nodeNz[node] = fn.z;
}

// Writes a node with child pointer `child`, coordinates `coord` and empty values.
void voxNodeInit(uint node, uint child, uint coord) {
    nodeChild[node] = child;
    nodeColor[node] = 0u;
    nodeCount[node] = 0u;
    nodeNx[node] = 0;
    nodeNy[node] = 0;
    nodeNz[node] = 0;
    nodeCoord[node] = coord;
}

// Hash key of the tile holding the level-`level` nodes (level >= 1) whose
// parent has coordinates `parent` at level - 1 (< 512 per axis).
uint voxTileKey(uint level, uvec3 parent) {
    return (level << 27) | parent.x | (parent.y << 9) | (parent.z << 18);
}
uint voxHashSlot(uint key) {
    uint x = key; // murmur3 finaliser (a Morton-order slot measured no faster)
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x & params.hashMask;
}
// OctreeBuild::TileHash: the tile list (third part of the hash buffer) has this
// many entries at most; keys.comp reserves one before entering a key.
uint voxMaxTileEntries() {
    uint slots = params.hashMask + 1u;
    return slots - slots / 4u;
}
// Slot holding `key`, or VOX_NO_NODE when the tile does not exist.
uint voxHashFind(uint key) {
    uint s = voxHashSlot(key);
    for (uint probe = 0u; probe <= params.hashMask; ++probe) {
        uint k = tileHash[s];
        if (k == key) return s;
        if (k == VOX_HASH_EMPTY) return VOX_NO_NODE;
        s = (s + 1u) & params.hashMask;
    }
    return VOX_NO_NODE;
}
// Tile index of the level-`level` tile with key `key` (after the tile hash
// args pass turned per-level counts into tile ranges), or 0 when it does not
// exist or did not fit the pool.
uint voxHashTile(uint level, uint key) {
    uint s = voxHashFind(key);
    if (s == VOX_NO_NODE) return 0u;
    uint tile = counters.levelTileStart[level] + tileHash[params.hashMask + 1u + s];
    return tile < counters.levelTileEnd[level] ? tile : 0u;
}

// OctreeBuild::OccupancyLevels: the words of level l's occupancy bitmap
// (the host's levelWordsFor).
uint voxLevelWords(uint l) { return max(1u, (1u << (3u * l)) >> 5u); }

// Bit b set when byte b of bitmap word w is nonzero: Morton order at each
// level, so a node's 8 children are one byte of the level below.
uint voxNonzeroBytes(uint w) {
    return ((w & 0xffu) != 0u ? 1u : 0u) | ((w & 0xff00u) != 0u ? 2u : 0u) | ((w & 0xff0000u) != 0u ? 4u : 0u) |
           ((w & 0xff000000u) != 0u ? 8u : 0u);
}

// Word j of a level's occupancy bitmap from the bitmap of the level below
// (`childWords` words at `childBits` in the cells buffer): the 32 bytes of 8
// words ORed to bits.
uint voxLevelWord(uint childBits, uint childWords, uint j) {
    uint bits = 0u;
    for (uint b = 0u; b < 8u; ++b) {
        uint at = 8u * j + b;
        bits |= voxNonzeroBytes(at < childWords ? cells[childBits + at] : 0u) << (4u * b);
    }
    return bits;
}

// After level l's allocation: level l + 1's tile range (the tiles
// allocated since level l's end, clamped to the pool) and the launches over
// it (mipmap: a thread per node; init and alloc: a thread per 4 nodes).
// One thread (args.comp's launch per level, or alloc_top.comp).
void voxLevelArgs(uint l) {
    uint start = counters.levelTileEnd[l];
    uint end = max(start, min(counters.tileCount, params.tileCapacity));
    counters.levelTileStart[l + 1u] = start;
    counters.levelTileEnd[l + 1u] = end;
    dispatchArgs[l + 2u] = voxDispatchFor(8u * (end - start));
    // The leaf tiles: LeafMerge::PerCell's merge (sortedFragments != 0 only
    // there) writes all 8 leaves of every tile, child pointers included, so
    // their init launch runs only for the per-fragment atomic merge (which
    // sums into zeroed leaves).
    bool merged = l + 1u == params.dims.w && counters.sortedFragments != 0u && counters.cellsOverMergeLimit == 0u;
    dispatchArgs[VOX_DISPATCH_QUADS + l + 1u] = voxDispatchFor(merged ? 0u : 2u * (end - start));
}

// Descends from the root to the node of `level` containing voxel `c`; false
// when a node on the way has no children (the pool ran out: truncated tree).
bool voxDescend(uvec3 c, uint level, out uint node) {
    node = 0u;
    uint depth = params.dims.w;
    for (uint k = 0u; k < level; ++k) {
        uint child = nodeChild[node];
        if (child == 0u || child >= VOX_FLAG) return false;
        node = 8u * child + voxOctant(c, k, depth);
    }
    return true;
}

// The node of `level` containing fragment i's voxel `c`. With cursors it
// steps one level from the node the previous launch stored for the fragment
// (O(1) per level instead of O(level)); `store` keeps the result for the next
// level. False when the tree was truncated above.
bool voxFragmentNode(uint i, uvec3 c, uint level, bool store, out uint node) {
    if ((kVoxFlags & VOX_CURSORS) == 0u) return voxDescend(c, level, node);
    node = 0u;
    if (level > 0u) {
        uint parent = cursors[i];
        uint child = parent == VOX_NO_NODE ? 0u : nodeChild[parent];
        if (child == 0u || child >= VOX_FLAG) {
            if (store) cursors[i] = VOX_NO_NODE;
            return false;
        }
        node = 8u * child + voxOctant(c, level - 1u, params.dims.w);
    }
    if (store) cursors[i] = node;
    return true;
}

#endif
