// Voxelizer: an indexed triangle mesh -> voxel fragments (one graphics pass,
// conservative rasterization along each triangle's dominant axis) -> a sparse
// voxel octree built with indirect compute launches (OctreeBuild), plus an
// optional dense float grid. Everything is recorded once; the host never
// reads a count back. Algorithm: Crassin & Green, "Octree-Based Sparse
// Voxelization Using the GPU Hardware Rasterizer" (Crassin & Green 2012, docs/algorithms.md).
//
// Frame:
//     voxelizer->setMesh(mesh, grid);    // host side: validate + stage (dynamic meshes: every frame)
//     voxelizer->addPasses(graph);       // once, into the host's render graph
//     graph.compile(); graph.execute(cmd);
// or, without a host graph, voxelizer->record(cmd) every frame.
//
// Resources are created once by create() and never re-created: a mesh may
// change every frame (up to maxVertices / maxTriangles) as may the grid (up
// to maxResolution per axis).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <vulkan/vulkan_core.h>

#include "pyramarch/engine/memory.h"
#include "pyramarch/engine/render_graph.h"
#include "pyramarch/engine/status.h"
#include "pyramarch/voxelizer/mesh.h"

namespace pyramarch {
class Device;
}

namespace pyramarch::voxel {

enum class VoxelMode : uint8_t {
    // 26-separating: every voxel the triangle touches (open set) is marked,
    // nothing it does not touch (closed set) is. The default.
    Conservative,
    // 6-separating (Schwarz & Seidel): a voxel is marked when the triangle's
    // plane crosses the voxel's inner diamond (the octahedron through its face
    // centres) and each axis projection of the triangle overlaps the
    // projected diamond. Thinner, still watertight for closed meshes.
    Thin,
};

enum class ConservativeMethod : uint8_t {
    Auto,           // hardware when the device has VK_EXT_conservative_rasterization, else geometry shader
    GeometryShader, // force the geometry-shader dilation + fragment bounding-box kill
    Hardware,       // require VK_EXT_conservative_rasterization (create() fails without it)
};

// Which path turns triangles into voxel fragments. Both apply the same
// exact overlap test to the same grid-space vertices and write the same
// fragment records, so the (voxel, triangle) pairs are the same; only the
// list's order (and the time) differs.
enum class TrianglePath : uint8_t {
    // Every triangle through the rasterizer (geometry-shader dilation or
    // hardware overestimation, one pixel column per fragment).
    Raster,
    // Triangles whose candidate voxel box holds at most smallTriangleVoxels
    // voxels through a compute pass (one thread per triangle testing every
    // voxel of its box), the others through the rasterizer. Each path's
    // shader applies the same split test: no read-back, no list.
    Split,
};

// Upper bound of VoxelizerCreateInfo::smallTriangleVoxels. One thread tests
// a triangle's whole box in one loop nest, and some drivers end a shader's
// loop after some ten thousand iterations: 4096 stays far below.
inline constexpr uint32_t kMaxSmallTriangleVoxels = 4096;

// How the octree is built from the voxel fragments. All three build it over
// the occupied level D - 1 cells (the leaves' parents; vox.cell_mark sets one
// bit per fragment in a Morton bitmap, vox.cell_list lists the set bits),
// not over every fragment, and all three give the same node pool layout
// (levels as contiguous tile ranges, coordinates, child pointers), the same
// leaves, merged values and per-level node counts, bit for bit
// (tests/voxelizer). They differ in how each level's nodes are found and
// allocated, in memory and in speed: OccupancyLevels is the fastest on every
// device measured (modules/voxelizer/README.md, "Octree builds").
enum class OctreeBuild {
    // The default (the fastest). Occupancy from the children up: each
    // level's occupancy bitmap is derived from the level below's
    // (vox.cell_levels.L: one bit per byte of the level below, Morton order,
    // from the cell bitmap up, one small launch per level); then pointers
    // are allocated level by level from the root, over that level's nodes
    // only (vox.alloc.L, one thread per 4 nodes, no flag pass). Allocation at
    // level D - 1 stores each cell's node (its cursor), so the leaf merge
    // finds it without a descent. Costs 1/7 of the cell bitmap for the upper
    // levels' bitmaps (0.3 MiB at R = 512) and 4 bytes per fragment of
    // capacity for the cursors.
    OccupancyLevels,
    // Crassin & Green 2012's top-down build (docs/algorithms.md): per level
    // from the root, a flag pass (one thread per occupied cell, descending
    // from the root to the cell's node of that level), allocate, initialise;
    // the leaf merge descends from the root too. D flag passes of up to D
    // steps per cell; no memory beyond the pool. The paper's algorithm: the
    // reference the other two are tested against.
    RootDescent,
    // One pass over the occupied cells enters each cell's leaf tile and, the
    // first time a tile is seen, its ancestors' tiles in a tile hash
    // (counting tiles per level; vox.keys), then one pass over the tiles that
    // exist links and initialises them (vox.link): no pass per level, and
    // tilesNeeded is exact even when the pool is far too small, so one retry
    // suffices (unless the hash, 2 slots per pool tile and at least 4096,
    // fills to 3/4). Costs the hash (12 bytes per slot), a hash lookup per
    // leaf tile in the merge, and locality (a level's tiles are numbered in
    // hash order, not parent order), which make it slower than
    // OccupancyLevels.
    TileHash,
};

// Leaf colour merge.
enum class ColorMerge {
    // Per-channel integer sums resolved to the rounded mean by the first
    // mipmap launch: exact and independent of fragment order (default).
    ExactMean,
    // Crassin & Green's RGBA8 moving average by compare-and-swap (listing 22.2):
    // one 32-bit word per leaf while merging, but it rounds at every merge and
    // its result depends on the order fragments arrive in (drift up to
    // (n+1)/4 per channel for n fragments).
    MovingAverage,
};

// How fragments are merged into their leaves (ColorMerge::ExactMean; the
// moving average always merges per fragment). Same octree, bit for bit.
enum class LeafMerge {
    // A counting sort of the fragments by their leaves' parent cell (two
    // atomics per fragment), then one thread per cell sums its leaves in
    // registers and writes them and the parent without atomics (the deepest
    // mipmap launch is folded in). 16 bytes per fragment of extra memory.
    // The default (the faster).
    PerCell,
    // One thread per fragment, seven atomics into its leaf (count, R, G, B,
    // normal x, y, z), resolved by the deepest mipmap launch.
    Atomic,
};

// The node pool's per-node arrays, each its own GPU buffer of uint32/int32
// per node (28 bytes per node in all; OctreeNode keeps a pad word on the host).
enum class NodeArray : uint32_t { Child, Color, Count, NormalX, NormalY, NormalZ, Coord };
inline constexpr uint32_t kNodeArrayCount = 7;
inline constexpr uint32_t kNodeArrayBytes = 4;                            // per node, per array
inline constexpr uint32_t kNodeBytes = kNodeArrayCount * kNodeArrayBytes; // per node, all arrays

struct VoxelizerCreateInfo {
    // Largest grid dimension ever used (1..1024). Fixes the octree depth
    // D = ceil(log2(maxResolution)) (at least 1) and the viewport side.
    uint32_t maxResolution = 256;
    uint32_t maxVertices = 1u << 18;
    uint32_t maxTriangles = 1u << 18;
    // Voxel-fragment list capacity (16 bytes each, at most maxStorageBufferRange / 16).
    uint32_t fragmentCapacity = 1u << 22;
    // Octree pool capacity in 2x2x2 tiles (root tile included). The pool is
    // structure-of-arrays, one buffer of 4 bytes per node for each of its 7
    // fields (224 bytes per tile in all), so the capacity is at most
    // maxTileCapacity(range, build) = maxStorageBufferRange / 32 (4 Mi tiles
    // on a 128 MiB range).
    uint32_t tileCapacity = 1u << 17;
    // Dense float grid (one float per voxel, x fastest) for grids of at most
    // this many voxels; 0 = no dense grid. At most maxStorageBufferRange / 4
    // (32 Mi voxels on a 128 MiB range, e.g. 256 x 256 x 512).
    uint64_t denseMaxVoxels = 0;
    ConservativeMethod method = ConservativeMethod::Auto;
    // The raster pass reserves fragment slots with one atomic per subgroup
    // when the device has basic, ballot and arithmetic subgroup operations in
    // fragment shaders (else one atomic per fragment). Same fragment set
    // either way; only the list's order differs. Default off (no faster
    // where measured: the raster's time is spent before the fragment shader).
    bool subgroupAppend = false;
    // Conservative mode: (voxel, triangle) pairs whose float overlap margins
    // are within their rounding-error bounds of zero are decided again in
    // double precision by the CPU reference's separating-axis test, so GPU
    // and reference agree on every pair (both paths). Needs shaderFloat64
    // (Device::limits()); without it, or with this off, the float test alone
    // decides (near-boundary pairs may then fall outside the closed
    // reference; modules/voxelizer/README.md, "Exact fallback"). Thin mode
    // always uses the float test. Default on.
    bool exactFallback = true;
    // Which octree build (see OctreeBuild); `pyramarch bench --octree-build
    // all` measures the three.
    OctreeBuild octreeBuild = OctreeBuild::OccupancyLevels;
    // Default Split: faster on meshes of many small triangles, level on the
    // rest.
    TrianglePath trianglePath = TrianglePath::Split;
    // TrianglePath::Split: the largest candidate voxel box (voxels,
    // 1..kMaxSmallTriangleVoxels) that the compute pass takes. Default 512
    // (larger values were no faster; the smallest keeps a thread's loop short).
    uint32_t smallTriangleVoxels = 512;
    // How fragments of one leaf merge their colours (see ColorMerge).
    ColorMerge colorMerge = ColorMerge::ExactMean;
    // How fragments reach their leaves (see LeafMerge); ignored (Atomic) with
    // ColorMerge::MovingAverage.
    LeafMerge leafMerge = LeafMerge::PerCell;
    // Frames the host may have in flight; sizes the staging and stats rings.
    uint32_t framesInFlight = 2;
    // Solid voxelization: the conservative surface plus every voxel whose
    // centre is inside the mesh (parity along x, README "Solid mode"); the
    // interior voxels become leaves, dense voxels and fragments (white, no
    // normal, triangle kNoTriangle). Needs a closed mesh: columns crossed an
    // odd number of times are counted (VoxelStats::solidOddColumns) and left
    // hollow. Needs shaderFloat64; costs two bitmaps of maxResolution^2 x
    // (maxResolution + 32) / 32 words. Default off.
    bool solid = false;
    // The passes over fragments and cells (cell mark, leaf sort, per-cell
    // merge) read what they do not write through texel buffers and read the
    // counters through a uniform buffer, where the device's
    // maxTexelBufferElements covers those buffers (texelReadsFit); else, or
    // with this off, through storage buffers (the same bits). Faster on
    // drivers that run storage-buffer accesses lane by lane but gather texels
    // as vectors (CPU drivers). Default on.
    bool texelReads = true;
};

// Whether every buffer the texel reads view (VoxelizerCreateInfo::texelReads)
// fits a device's maxTexelBufferElements: the fragment list (one RGBA32UI
// texel per fragment), the cell bitmap and list (R32UI), the leaf sort
// (RG32UI, two per fragment) and the cell cursors (R32UI, one per fragment).
// Vulkan guarantees only 65536 texels; desktop GPUs and CPU drivers allow
// 2^27 or more, which every capacity within a 128 MiB storage range fits.
bool texelReadsFit(const VoxelizerCreateInfo& info, uint64_t maxTexelBufferElements);

// Largest VoxelizerCreateInfo::tileCapacity a device with this
// maxStorageBufferRange accepts: every node array (kNodeArrayBytes per node,
// 8 nodes per tile) within the range and, for OctreeBuild::TileHash, the tile
// hash (12 bytes per slot, a power of two of at least 2 slots per tile) too.
// 4 Mi tiles (32 Mi nodes) on a 128 MiB range; the 32-byte-node pool of one
// buffer had range / 256 = 512 Ki.
uint32_t maxTileCapacity(uint64_t maxStorageBufferRange, OctreeBuild build = OctreeBuild::OccupancyLevels);

// Counters of one frame, read back by the host.
struct VoxelStats {
    uint64_t frame = 0;
    uint32_t triangles = 0;        // triangles drawn
    uint32_t skippedTriangles = 0; // not finite in grid space (found by setMesh)
    uint32_t fragmentsNeeded = 0;  // voxel fragments produced
    uint32_t fragmentsStored = 0;  // min(needed, capacity)
    bool fragmentOverflow = false;
    uint32_t tilesNeeded = 0;    // octree tiles requested, root tile included
    uint32_t tilesAllocated = 0; // min(needed, capacity)
    bool tileOverflow = false;
    // True when tilesNeeded is a lower bound (grow and retry). OccupancyLevels and
    // RootDescent: the pool ran out above the leaf level, so deeper levels were not even
    // requested. TileHash: the tile hash (2 slots per tile of capacity, at
    // least 4096) filled up.
    bool tilesNeededIsLowerBound = false;
    uint32_t leafFragments = 0;   // fragments merged into leaves (< stored when truncated)
    uint32_t depthOverflow = 0;   // diagnostic: pixel columns with more candidates than the shader's bound
    uint32_t levelNodes[11] = {}; // allocated nodes per level (8 x tiles), level 0 = root tile
    // Occupied cells one level above the leaves (distinct leaf parents of the
    // stored fragments): the work list of the tree build's passes.
    uint32_t occupiedCells = 0;
    // VoxelizerCreateInfo::solid: inside voxels the surface does not touch
    // (appended as fragments), and voxel columns the mesh crosses an odd
    // number of times (0 for a closed mesh; such columns stay hollow).
    uint32_t solidInterior = 0;
    uint32_t solidOddColumns = 0;
};

// One octree node as readOctree() assembles it from the GPU's node arrays
// (the GPU keeps each field in its own buffer, see VoxelizerGraphRefs).
struct OctreeNode {
    uint32_t child = 0;            // tile index of the 8 children (nodes 8*child .. 8*child+7), 0 = none
    uint32_t color = 0;            // RGB8 mean colour; A = fragments merged, saturated at 255
    uint32_t count = 0;            // voxel fragments below the node; 0 = empty
    int32_t normal[3] = {0, 0, 0}; // fixed-point normal (leaves: sum x 1024; interior: unit x 1024)
    uint32_t coord = 0;            // coordinates at the node's level: x | y << 10 | z << 20
    uint32_t pad = 0;
};

// A host copy of the octree (tests, export).
struct OctreeSnapshot {
    uint32_t depth = 0;
    uint32_t tilesAllocated = 0; // nodes valid: [0, 8 * tilesAllocated)
    std::vector<OctreeNode> nodes;
};

struct LeafVoxel {
    uint32_t x = 0, y = 0, z = 0;
    uint32_t color = 0;
    uint32_t count = 0;
    int32_t normal[3] = {0, 0, 0};
};

// Leaves (level `depth`) of a snapshot, sorted by (z, y, x). Nodes with
// count 0 are not leaves of the surface and are skipped.
std::vector<LeafVoxel> extractLeaves(const OctreeSnapshot& tree);

// One voxel fragment of the list, decoded.
struct VoxelFragment {
    uint32_t x = 0, y = 0, z = 0;
    uint32_t color = 0;
    uint32_t packedNormal = 0; // snorm 10:10:10
    uint32_t triangle = 0;     // kNoTriangle: an interior voxel of the solid fill
};
inline constexpr uint32_t kNoTriangle = 0xffffffffu;

// The counter buffer (Voxelizer::counterBuffer(), VoxelizerGraphRefs::counters)
// as the GPU writes it; mirrors VoxCounters of shaders/voxelizer/vox_shared.h
// (which is not installed), checked field by field by static_asserts in the library.
struct VoxCountersData {
    uint32_t fragmentCount;      // fragments produced (may exceed the capacity: the needed size)
    uint32_t fragmentsStored;    // min(fragmentCount, capacity)
    uint32_t tileCount;          // tiles requested, root tile included (may exceed the capacity)
    uint32_t tilesFailed;        // tile requests refused because the pool was full
    uint32_t failedAboveLeaves;  // 1 when tileCount is a lower bound (OccupancyLevels, RootDescent: a refusal
                                 // above the last level; TileHash: the tile hash was full)
    uint32_t depthOverflow;      // pixel columns whose candidate depth range exceeded the shader's bound
    uint32_t leafFragments;      // fragments merged into a leaf
    uint32_t tileEntries;        // TileHash: tiles entered in the tile hash (root excluded); 0 otherwise
    uint32_t levelTileStart[12]; // tiles of level l: [levelTileStart[l], levelTileEnd[l])
    uint32_t levelTileEnd[12];
    uint32_t cellCount;           // occupied cells one level above the leaves (the tree build's work list)
    uint32_t sortedFragments;     // LeafMerge::PerCell: fragments sorted by cell (= fragmentsStored); 0 else
    uint32_t cellsOverMergeLimit; // LeafMerge::PerCell: cells of more fragments than one merge thread takes
                                  // (16384); when not 0 the frame merged per fragment with atomics instead
    uint32_t solidInterior;       // solid: interior fragments appended
    uint32_t solidOddColumns;     // solid: columns of odd crossing parity (left hollow)
};

// The voxelizer's buffers as a host graph knows them after addPasses(), so
// passes the host adds later can declare their uses (and get barriers).
struct VoxelizerGraphRefs {
    BufferRef counters; // VoxCountersData
    BufferRef
        dispatch; // VkDispatchIndirectCommand per entry, 16-byte stride: 0 = fragments, 1 + l = nodes of level l, 12 = TileHash tiles, 13 = occupied cells, 14..16 = the leaf merge chosen (vox_shared.h)
    BufferRef fragments; // uvec4 per fragment
    // The node pool, structure of arrays: one 32-bit word per node in each
    // buffer (node n of tile t = 8t + c, see OctreeNode for the fields).
    BufferRef nodes;       // child pointers (uint32 tile index, 0 = none)
    BufferRef nodeColor;   // RGBA8
    BufferRef nodeCount;   // uint32
    BufferRef nodeNormalX; // int32 fixed point (x 1024)
    BufferRef nodeNormalY;
    BufferRef nodeNormalZ;
    BufferRef nodeCoord; // x | y << 10 | z << 20 at the node's level
    BufferRef dense;     // invalid without a dense grid
};

class Voxelizer {
public:
    static Result<std::unique_ptr<Voxelizer>> create(Device& device, const VoxelizerCreateInfo& info);
    ~Voxelizer();
    Voxelizer(const Voxelizer&) = delete;
    Voxelizer& operator=(const Voxelizer&) = delete;

    // Validates the mesh and grid (before any GPU work) and stages them for
    // the next recorded frame. Fails, staging nothing, on out-of-range
    // indices, bad attribute sizes, a bad grid, or a mesh over the capacities.
    // Triangles with NaN/inf vertices are skipped by the GPU and counted.
    // The host must not call it for frame F + framesInFlight before frame F
    // finished (the staging ring is that deep).
    Status setMesh(const TriangleMesh& mesh, const VoxelGrid& grid, VoxelMode mode = VoxelMode::Conservative);

    // Resources of the host's graph the voxelizer reads: none yet (the mesh
    // comes through setMesh); kept so every module's addPasses has one shape.
    struct GraphInputs {};
    // The voxelizer's buffers as the host graph knows them.
    using GraphOutputs = VoxelizerGraphRefs;
    // Adds the voxelizer's passes to a host graph (once; the graph then runs
    // them every execute). The module's buffers are imported and left in the
    // state the next frame expects. ErrorCode::InvalidState if the passes are
    // already in a graph (this one, another, or the module's own through record()).
    Result<GraphOutputs> addPasses(RenderGraph& graph, const GraphInputs& inputs = {});
    // Records one frame through the module's own graph (hosts without a
    // graph). Not combinable with addPasses().
    Status record(VkCommandBuffer cmd);

    // Stats of the newest frame whose counters reached the host ring, without
    // waiting (frames older than framesInFlight - 1 are complete when the host
    // follows the frames-in-flight contract). Empty until one is.
    std::optional<VoxelStats> latestStats() const;
    // GPU times of the voxelizer's passes ("vox.*") in the newest frame whose
    // timestamps are available (never waits), the frame they belong to
    // (counted like VoxelStats::frame: frames this voxelizer recorded) and
    // their total; from its own graph (record()) or the host graph of
    // addPasses(), which must still exist. Empty until then.
    std::optional<FrameTimings> latestTimings() const;

    // Test / tool helpers: submit and wait on the device queue. Call after the
    // recorded frame finished.
    Result<VoxelStats> readStats();
    Result<std::vector<VoxelFragment>> readFragments();
    Result<OctreeSnapshot> readOctree();
    // Dense grid of the last frame: dims product floats, x fastest, 1 = occupied.
    Result<std::vector<float>> readDenseGrid();

    // GPU buffers for hosts that consume the results directly (after the
    // voxelizer's passes: nodes/dense in StorageReadWrite/StorageWrite of a compute pass).
    const Buffer& nodeBuffer() const; // child pointers; the other fields: nodeArrayBuffer()
    const Buffer& nodeArrayBuffer(NodeArray array) const;
    const Buffer& fragmentBuffer() const;
    const Buffer& counterBuffer() const;   // VoxCountersData
    const Buffer& dispatchBuffer() const;  // see VoxelizerGraphRefs::dispatch
    const Buffer& denseGridBuffer() const; // invalid when denseMaxVoxels == 0
    // GPU memory the voxelizer holds, one entry per buffer (name, bytes as
    // created), for benchmarks and memory budgets. Render-graph scratch is not included.
    struct MemoryItem {
        std::string name;
        uint64_t bytes = 0;
    };
    std::vector<MemoryItem> memoryReport() const;
    uint32_t octreeDepth() const;
    const VoxelGrid& grid() const;
    bool usesHardwareConservative() const;
    // The Float64 variants with the exact fallback run (exactFallback and
    // the device's shaderFloat64).
    bool usesExactFallback() const;
    // The texel-read variants run (texelReads and texelReadsFit on the device).
    bool usesTexelReads() const;

    struct Impl;

private:
    explicit Voxelizer(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

} // namespace pyramarch::voxel
