// Structs shared by the voxelizer's C++ and GLSL (std430 / push constants).
// Included by GLSL with #include "voxelizer/vox_shared.h".
#ifndef PYRAMARCH_VOX_SHARED_H
#define PYRAMARCH_VOX_SHARED_H

#ifdef __cplusplus
#include <cstdint>
namespace pyramarch::voxel::gpu {
using uint = uint32_t;
struct vec4 { float x, y, z, w; };
struct uvec4 { uint32_t x, y, z, w; };
#define VOX_CONST constexpr uint32_t
#define VOX_SHARED_FUNCTION constexpr inline
#else
#define VOX_CONST const uint
#define VOX_SHARED_FUNCTION
#endif

// Octree depth is at most 10 (1024^3), so levels 0..10.
VOX_CONST VOX_MAX_LEVELS = 11u;
VOX_CONST VOX_GROUP_SIZE = 64u;
// Child-pointer flag set by the flag pass ("subdivide me"); tile indices stay below it.
VOX_CONST VOX_FLAG = 0x80000000u;

// The low 10 bits of v spread to every third bit: one axis of a Morton
// index (up to 10 bits per axis). Cells of one parent are 8 consecutive
// indices, so a list in index order keeps siblings together; the host
// orders scattered mesh files by the same code.
VOX_SHARED_FUNCTION uint voxSpread3(uint v) {
    v &= 1023u;
    v = (v | (v << 16)) & 0x030000ffu;
    v = (v | (v << 8)) & 0x0300f00fu;
    v = (v | (v << 4)) & 0x030c30c3u;
    v = (v | (v << 2)) & 0x09249249u;
    return v;
}

// RasterParams.flags
VOX_CONST VOX_HAS_COLORS = 1u;
VOX_CONST VOX_HAS_NORMALS = 2u;
VOX_CONST VOX_HW_CONSERVATIVE = 4u; // the rasterizer overestimates; the geometry shader does not dilate
VOX_CONST VOX_THIN = 8u;            // 6-separating test instead of the conservative (26-separating) one
// Triangles whose candidate voxel box holds at most offsets.w voxels go
// through small_triangles.comp, the others through the raster (both test).
VOX_CONST VOX_SPLIT = 16u;

struct RasterParams {
    vec4 origin;      // xyz: grid origin (world)
    vec4 invSize;     // xyz: 1 / voxel size (world -> grid space)
    uvec4 dims;       // xyz: grid dims, w: viewport side in pixels
    uvec4 counts;     // x: triangles, y: vertices, z: fragment capacity, w: flags
    uvec4 offsets;    // word offsets into the mesh buffer: x indices, y colours, z normals (positions at 0);
                      // w: with VOX_SPLIT, the largest candidate box (voxels) the compute path takes
    uvec4 solid;      // solid.comp: x word offset of the row prefix in the mesh buffer, y words per bitmap
                      // column, z words of one bitmap, w flip threads (VOX_SOLID_ROWS_PER_THREAD rows each)
    uvec4 order;      // VOX_SPLIT: x word offset in the mesh buffer of the order small_triangles.comp's threads
                      // take the triangles in (a permutation of 0..counts.x - 1; blocks sorted by box size,
                      // then the triangles the raster may take), y its index of the first of those (the
                      // raster pass draws order[y..counts.x)); z word offset of the large triangles'
                      // compute tiles (ConservativeMethod::Compute: triangle, box min, box max, each box
                      // packed 10:10:10), w 1 in the launch over those tiles (counts.x tiles), else 0
};
// solid.comp's flip stage: rows of one triangle per thread (the binary
// search for the thread's triangle and its vertex loads, lane by lane on
// lavapipe, were most of a thread's work when each took one row).
VOX_CONST VOX_SOLID_ROWS_PER_THREAD = 4u;

struct ComputeParams {
    uvec4 dims;       // xyz: grid dims, w: octree depth D
    uint level;       // level this launch works on
    uint fragmentCapacity;
    uint tileCapacity;
    uint hashMask;    // OctreeBuild::TileHash: tile hash slots - 1 (a power of two minus one)
    uint cellWords;   // words of the cell bitmap; the cell list follows it in the same buffer
    // OctreeBuild::OccupancyLevels: word offsets in the cells buffer of the
    // occupancy bitmap of `level` and of level + 1, and the words of the
    // latter (cell_levels.comp, alloc.comp; level D - 1 is the cell bitmap).
    // alloc_top.comp: levelBits is level 0's bitmap, `level` the levels it
    // allocates, childWords the occupancy levels it derives first.
    uint levelBits;
    uint childBits;
    uint childWords;
};

// The build's flags (below) are fixed for a voxelizer's lifetime and reach
// the compute shaders that branch on them (flag, leaf, leaf_merge, cell_list)
// as specialization constant VOX_FLAGS_SPEC_ID (kVoxFlags in
// vox_compute.glsl), not as a push constant: lavapipe runs both sides of a
// branch, even a uniform one, so each pipeline compiles its build's branches only.
VOX_CONST VOX_FLAGS_SPEC_ID = 1u;
// raster.frag's test mode (kVoxThin): 1 in the pipeline for VoxelMode::Thin,
// which the voxelizer creates when a thin mesh is first set. Same reason: the
// thin mode's column loop cost a trip per fragment in every conservative run.
VOX_CONST VOX_THIN_SPEC_ID = 3u;

// Build flag, OctreeBuild::OccupancyLevels: alloc.comp reads each level's
// occupancy bitmap (one thread per 4 nodes) and stores each occupied cell's
// level D - 1 node (its cursor, in the cursor buffer), which leaf/leaf_merge
// read instead of descending from the root. Without it (RootDescent) the
// flag passes descend from the root.
VOX_CONST VOX_CURSORS = 1u;
VOX_CONST VOX_NO_NODE = 0xffffffffu;
// Build flag, OctreeBuild::TileHash: the octree was built from a tile hash
// (keys.comp / link.comp), so the leaf pass finds a fragment's leaf tile in it.
VOX_CONST VOX_TILE_HASH = 2u;
// Build flag: LeafMerge::PerCell, fragments are sorted by cell and
// one thread per cell merges its leaves and their parent (leaf_sort.comp,
// leaf_merge.comp) instead of one thread per fragment with atomics.
VOX_CONST VOX_SORTED_LEAVES = 4u;

// OctreeBuild::TileHash: one hash of the tiles that exist (open addressing, linear
// probing), in one buffer of 3 x slots words: [0, S) keys (VOX_HASH_EMPTY =
// free; key = level << 27 | parent coordinates packed 9:9:9), [S, 2S) the
// tile's index within its level, [2S, 3S) the list of filled slots in
// insertion order (counted by VoxCounters.tileEntries).
VOX_CONST VOX_HASH_EMPTY = 0xffffffffu;
// Dispatch entry sized by the tile list (one thread per existing tile).
VOX_CONST VOX_DISPATCH_TILES = VOX_MAX_LEVELS + 1u;
// Dispatch entry sized by the occupied-cell list (one thread per cell).
VOX_CONST VOX_DISPATCH_CELLS = VOX_DISPATCH_TILES + 1u;
// LeafMerge::PerCell: one of the two merges runs, chosen on the GPU after the
// sort (args.comp): per cell (entry VOX_DISPATCH_LEAF_MERGE = the cells), or,
// when a cell holds more than VOX_MERGE_MAX_CELL_FRAGMENTS fragments, per
// fragment with atomics (VOX_DISPATCH_LEAF_ATOMIC = the fragments) and the
// deepest mipmap launch (VOX_DISPATCH_DEEP_MIPMAP = that level's nodes); the
// other entries are zero.
VOX_CONST VOX_DISPATCH_LEAF_ATOMIC = VOX_DISPATCH_CELLS + 1u;
VOX_CONST VOX_DISPATCH_LEAF_MERGE = VOX_DISPATCH_CELLS + 2u;
VOX_CONST VOX_DISPATCH_DEEP_MIPMAP = VOX_DISPATCH_CELLS + 3u;
// OccupancyLevels, RootDescent: entry VOX_DISPATCH_QUADS + l = one thread
// per 4 nodes of level l (init.comp's wide stores; OccupancyLevels'
// alloc.comp, the occupancy nibbles).
VOX_CONST VOX_DISPATCH_QUADS = VOX_DISPATCH_CELLS + 4u;
// TrianglePath::Split with the exact fallback: one thread per triangle that
// has undecided pairs (small_triangles.comp's second pass); w counts them.
VOX_CONST VOX_DISPATCH_UNDECIDED = VOX_DISPATCH_QUADS + VOX_MAX_LEVELS;
// One thread per VOX_RANGE_CELLS occupied cells (leaf_sort.comp's ranges
// step: one atomic on the shared range counter per that many cells).
VOX_CONST VOX_DISPATCH_CELL_RUNS = VOX_DISPATCH_UNDECIDED + 1u;
VOX_CONST VOX_RANGE_CELLS = 8u;
VOX_CONST VOX_DISPATCH_ENTRIES = VOX_DISPATCH_CELL_RUNS + 1u;
// small_triangles.comp's pass (1 = the second, over the listed triangles).
VOX_CONST VOX_DECIDE_PASS_SPEC_ID = 4u;
// The most fragments one leaf_merge.comp thread loops over. Lavapipe ends a
// shader's loops after 65535 iterations in all (measured: a cell of ~130k
// fragments merged 65532 of them), and one thread looping that long would
// be slow on any device.
VOX_CONST VOX_MERGE_MAX_CELL_FRAGMENTS = 16384u;

// One fragment record: the voxels of one 2^3 cell (level D - 1 node) that
// one triangle overlaps. x: packed coordinates (10:10:10) of one voxel of
// the cell, y: RGB8 colour and, in the top byte, the voxel mask (bit o =
// the cell's voxel o, child order c below), z: normal (snorm 10:10:10),
// w: source triangle index (VOX_NO_TRIANGLE: interior voxels of the solid
// fill). The counters and capacities count records.
VOX_CONST VOX_NO_TRIANGLE = 0xffffffffu;
// (declared as uvec4 in GLSL)

// GPU counters and the octree's level bookkeeping.
struct VoxCounters {
    uint fragmentCount;    // fragments produced (may exceed the capacity: the needed size)
    uint fragmentsStored;  // min(fragmentCount, capacity)
    uint tileCount;        // tiles requested, root tile included (may exceed the capacity)
    uint tilesFailed;      // tile requests refused because the pool was full
    uint failedAboveLeaves;// 1 when a refusal happened above the last level (needed size is a lower bound)
    uint depthOverflow;    // pixel columns whose candidate depth range exceeded the shader's bound
    uint leafFragments;    // fragments merged into a leaf
    uint tileEntries;      // OctreeBuild::TileHash: tiles entered in the hash (root tile excluded)
    uint levelTileStart[12];
    uint levelTileEnd[12];
    uint cellCount;        // occupied cells of level D - 1 (the parents of leaves) in the cell list
    uint sortedFragments;  // LeafMerge::PerCell: fragments given a slot in the sorted list (= fragmentsStored)
    uint cellsOverMergeLimit; // LeafMerge::PerCell: cells over VOX_MERGE_MAX_CELL_FRAGMENTS (then the atomic merge ran)
    uint solidInterior;    // solid.comp: interior fragments appended (inside voxels the surface lacks)
    uint solidOddColumns;  // solid.comp: voxel columns crossed an odd number of times (left empty)
};

// Dispatch buffer: entry 0 = one thread per stored fragment, entry 1 + l =
// one thread per node of level l, entry VOX_DISPATCH_TILES = one thread per
// tile of OctreeBuild::TileHash's hash, entry VOX_DISPATCH_CELLS = one thread
// per occupied cell of level D - 1. Each entry is a VkDispatchIndirectCommand
// padded to 16 bytes; w holds the thread count.

// The octree's node pool, structure of arrays: one buffer of one 32-bit
// word per node for each field, each its own binding, so the pool's tile
// capacity is bounded by maxStorageBufferRange / (8 nodes x 4 bytes) instead
// of / (8 x 32 bytes) for the former 32-byte node record (28 bytes per node
// in all now: its pad word is gone). Nodes come in
// 2x2x2 tiles: tile t holds nodes 8t..8t+7, child c of a node with child
// pointer t is node 8t + c with c = (x&1) | (y&1)<<1 | (z&1)<<2 at the
// child's level. Node 0 is the root (nodes 1..7 of tile 0 are unused).
//   VOX_NODE_CHILD   uint  tile index of the children, 0 = none (empty, leaf or truncated)
//   VOX_NODE_COLOR   uint  RGB8 mean; A = number of fragments merged (saturates at 255)
//   VOX_NODE_COUNT   uint  voxel fragments below this node
//   VOX_NODE_NX..NZ  int   normal sum, fixed point (VOX_NORMAL_SCALE)
//   VOX_NODE_COORD   uint  the node's coordinates at its level, packed 10:10:10
// LeafMerge::Atomic: leaves, between vox.leaf and the first mipmap launch, hold colour channel
// sums instead: R in COLOR, G in CHILD, B added to COORD (see leaf.comp).
VOX_CONST VOX_NODE_CHILD = 0u;
VOX_CONST VOX_NODE_COLOR = 1u;
VOX_CONST VOX_NODE_COUNT = 2u;
VOX_CONST VOX_NODE_NX = 3u;
VOX_CONST VOX_NODE_NY = 4u;
VOX_CONST VOX_NODE_NZ = 5u;
VOX_CONST VOX_NODE_COORD = 6u;
VOX_CONST VOX_NODE_ARRAYS = 7u;
// Compute bindings (vox_compute.glsl): the child pointers keep binding 3,
// array a > 0 is binding 6 + a (7..12), after the tile hash.
// The texel and uniform views of the shaders built with VOX_TEXEL_READS
// (vox_compute.glsl): fragments (RGBA32UI), cells (R32UI), the leaf sort
// (RG32UI), the cell cursors (R32UI), the counters (std140), and the cells
// as a storage texel buffer (cell_mark.comp's loads).
VOX_CONST VOX_TEXEL_BINDING_FRAGMENTS = 15u;
VOX_CONST VOX_TEXEL_BINDING_CELLS = 16u;
VOX_CONST VOX_TEXEL_BINDING_SORT = 17u;
VOX_CONST VOX_TEXEL_BINDING_CURSORS = 18u;
VOX_CONST VOX_UNIFORM_BINDING_COUNTERS = 19u;
VOX_CONST VOX_IMAGE_BINDING_CELLS = 20u;
// mipmap.comp's texel reads of the node pool: the child pointers as R32UI,
// the five value arrays (colour, count, nx, ny, nz) as RGBA32UI, 4 nodes a texel.
VOX_CONST VOX_TEXEL_BINDING_NODE_CHILD = 21u;
VOX_CONST VOX_TEXEL_BINDING_NODE_VALUES = 22u; // .. 26
// alloc.comp's texel reads of the node coordinates (R32UI).
VOX_CONST VOX_TEXEL_BINDING_NODE_COORD = 27u;
VOX_CONST VOX_COMPUTE_BINDINGS = 28u;
// small_triangles.comp's R32UI texel view of the mesh buffer (binding 0's),
// after the raster's bindings 0-2 and the exact pass's 3 and 4.
VOX_CONST VOX_SMALL_TRIANGLES_MESH_TEXELS = 5u;
VOX_CONST VOX_NORMAL_SCALE = 1024u;

#ifdef __cplusplus
static_assert(sizeof(RasterParams) == 112);
static_assert(sizeof(ComputeParams) == 48);
} // namespace pyramarch::voxel::gpu
#endif
#endif
