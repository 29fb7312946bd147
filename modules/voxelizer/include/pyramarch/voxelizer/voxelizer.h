// Voxelizer: an indexed triangle mesh -> voxel fragments (a compute pass
// for the small triangles, a graphics pass with conservative rasterization
// along each large triangle's dominant axis, or compute tiles of it on
// devices without one: ConservativeMethod) -> a sparse voxel octree built
// with indirect compute launches, plus an optional dense float grid. Everything is recorded once; the host never
// reads a count back. Algorithm: Crassin & Green, "Octree-Based Sparse
// Voxelization Using the GPU Hardware Rasterizer" (Crassin & Green 2012, docs/algorithms.md).
//
// Frame:
//     voxelizer->setMesh(mesh, grid);    // host side: validate + stage (dynamic meshes: every frame)
//     voxelizer->addPasses(graph);       // into the host's render graph (again into a rebuilt one)
//     graph.compile(); graph.execute(cmd);
// or, without a host graph, voxelizer->record(cmd) every frame.
//
// A mesh may change every frame, as may the grid (up to maxResolution per
// axis). Capacities need not be given: the module sizes its buffers and
// grows them at a frame boundary (setMesh() or record()) from the counters
// it reads back anyway, within VoxelizerCreateInfo::memoryBudget; replaced
// buffers are released once the frames in flight that used them are done.
// A frame that needed more than it had is truncated and says so in its
// VoxelStats; the stats of the first frame after a growth say what grew.
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

// How the triangles too large for the compute path's per-triangle loop find
// their voxels.
enum class ConservativeMethod : uint8_t {
    // The rasterizer when the device can run it (geometry shaders, fragment
    // stores and atomics, dynamic rendering): hardware conservative
    // rasterization with VK_EXT_conservative_rasterization, else the
    // geometry shader's dilation. Otherwise Compute.
    Auto,
    GeometryShader, // force the geometry-shader dilation + fragment bounding-box kill
    Hardware,       // require VK_EXT_conservative_rasterization (create() fails without it)
    // No rasterizer: setMesh() cuts each large triangle into tiles of 8 x 8
    // voxel columns along its dominant axis, each with the depth range the
    // triangle reaches there, and the compute path tests each tile as it
    // tests a small triangle's box (the same exact test, the same voxels).
    // The voxelizer then records compute and transfer work only: for compute
    // queues, and devices without geometry shaders or dynamic rendering.
    Compute,
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
    // Hard caps on the mesh setMesh() accepts (vertices, triangles). 0
    // (default): no cap; the mesh buffers grow with the mesh.
    uint32_t maxVertices = 0;
    uint32_t maxTriangles = 0;
    // Fragment records per frame (one per triangle and 2^3 voxel cell it
    // touches; 16 bytes each, at most maxStorageBufferRange / 16). 0 (default): sized by the module and grown
    // from the counters. Non-zero: fixed; a frame needing more is truncated
    // and reports it (VoxelStats::fragmentOverflow).
    uint32_t fragmentCapacity = 0;
    // Octree pool in 2x2x2 tiles, root tile included (224 bytes per tile, at
    // most maxTileCapacity(maxStorageBufferRange)). 0 (default): sized by the
    // module and grown from the counters. Non-zero: fixed, as fragmentCapacity.
    uint32_t tileCapacity = 0;
    // Bytes all of the voxelizer's buffers may take (memoryReport()); growth
    // that would pass it fails with ErrorCode::CapacityExceeded and leaves the
    // buffers as they were. 0 (default): no limit but the device's.
    uint64_t memoryBudget = 0;
    // Dense float grid (one float per voxel, x fastest) for grids of at most
    // this many voxels; 0 = no dense grid. At most maxStorageBufferRange / 4
    // (32 Mi voxels on a 128 MiB range, e.g. 256 x 256 x 512).
    uint64_t denseMaxVoxels = 0;
    ConservativeMethod method = ConservativeMethod::Auto;
    // Conservative mode: decide (voxel, triangle) pairs within float rounding
    // of the boundary again in double precision, so GPU and CPU reference
    // agree on every pair. Needs shaderFloat64, else float only. Default on.
    bool exactFallback = true;
    // Frames the host may have in flight; sizes the staging and stats rings.
    uint32_t framesInFlight = 2;
    // Solid voxelization: the surface plus every voxel whose centre is inside
    // the closed mesh (odd columns: VoxelStats::solidOddColumns, left hollow).
    // Needs shaderFloat64. Default off (README "Solid mode" has the rest).
    bool solid = false;
};

// Largest VoxelizerCreateInfo::tileCapacity a device with this
// maxStorageBufferRange accepts: every node array (kNodeArrayBytes per node,
// 8 nodes per tile) within the range. 4 Mi tiles (32 Mi nodes) on a 128 MiB range.
uint32_t maxTileCapacity(uint64_t maxStorageBufferRange);

// Counters of one frame, read back by the host.
struct VoxelStats {
    uint64_t frame = 0;
    uint32_t triangles = 0;        // triangles drawn
    uint32_t skippedTriangles = 0; // not finite in grid space (found by setMesh)
    uint32_t fragmentsNeeded = 0;  // fragment records produced (triangle x 2^3 cell, see fragmentCapacity)
    uint32_t fragmentsStored = 0;  // min(needed, capacity)
    bool fragmentOverflow = false;
    uint32_t tilesNeeded = 0;    // octree tiles requested, root tile included
    uint32_t tilesAllocated = 0; // min(needed, capacity)
    bool tileOverflow = false;
    // True when tilesNeeded is a lower bound (grow and retry): the pool ran
    // out above the leaf level, so deeper levels were not even requested.
    bool tilesNeededIsLowerBound = false;
    uint32_t leafFragments = 0;   // (voxel, triangle) pairs merged into leaves
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
    // The capacities this frame ran with (fragments, tiles).
    uint32_t fragmentCapacity = 0;
    uint32_t tileCapacity = 0;
    // True on the first frame after the module grew its buffers: the frame
    // whose counters asked for it, and the capacities before (unchanged
    // ones equal the current ones).
    bool grown = false;
    uint64_t grownAfterFrame = 0;
    uint32_t previousFragmentCapacity = 0;
    uint32_t previousTileCapacity = 0;
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

// One (voxel, triangle) pair of the fragment list, decoded (readFragments()
// expands each record, one per triangle and 2^3 cell, into its voxels).
struct VoxelFragment {
    uint32_t x = 0, y = 0, z = 0;
    uint32_t color = 0;        // the triangle's RGB8 (mean of its vertices' colours); A = 255
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
    uint32_t failedAboveLeaves;  // 1 when tileCount is a lower bound (a refusal above the last level)
    uint32_t depthOverflow;      // pixel columns whose candidate depth range exceeded the shader's bound
    uint32_t leafFragments;      // fragments merged into a leaf
    uint32_t tileEntries;        // 0 (written by builds of pyramarch/voxelizer/testing.h)
    uint32_t levelTileStart[12]; // tiles of level l: [levelTileStart[l], levelTileEnd[l])
    uint32_t levelTileEnd[12];
    uint32_t cellCount;           // occupied cells one level above the leaves (the tree build's work list)
    uint32_t sortedFragments;     // fragments sorted by cell for the leaf merge (= fragmentsStored; 0 when none was)
    uint32_t cellsOverMergeLimit; // cells of more fragments than one leaf-merge thread takes
                                  // (16384); when not 0 the frame merged per fragment with atomics instead
    uint32_t solidInterior;       // solid: interior fragments appended
    uint32_t solidOddColumns;     // solid: columns of odd crossing parity (left hollow)
};

// The voxelizer's buffers as a host graph knows them after addPasses(), so
// passes the host adds later can declare their uses (and get barriers).
struct VoxelizerGraphRefs {
    BufferRef counters; // VoxCountersData
    BufferRef
        dispatch; // VkDispatchIndirectCommand per entry, 16-byte stride: 0 = fragments, 1 + l = nodes of level l, 13 = occupied cells, 14..16 = the leaf merge (vox_shared.h)
    BufferRef fragments; // uvec4 per fragment record (a 2^3 cell's voxels of one triangle)
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
    // indices, bad attribute sizes, a bad grid, or a mesh over the caps.
    // A frame boundary: grows the buffers first where the mesh or the
    // newest counters need it (see the top of this file); growth that does
    // not fit memoryBudget, the allocator or the device fails with a named
    // error once, the buffers as they were (later frames run truncated and
    // report it). Hosts of addPasses() whose mesh stays call it again each
    // frame so that the module can grow.
    // Triangles with NaN/inf vertices are skipped by the GPU and counted.
    // The host must not call it for frame F + framesInFlight before frame F
    // finished (the staging ring is that deep). A frame recorded with no
    // setMesh() since the last one voxelizes the same mesh again without
    // copying it to the device (recorded frames run in recording order).
    Status setMesh(const TriangleMesh& mesh, const VoxelGrid& grid, VoxelMode mode = VoxelMode::Conservative);

    // Resources of the host's graph the voxelizer reads: none yet (the mesh
    // comes through setMesh); kept so every module's addPasses has one shape.
    struct GraphInputs {};
    // The voxelizer's buffers as the host graph knows them.
    using GraphOutputs = VoxelizerGraphRefs;
    // Adds the voxelizer's passes to a host graph (the graph then runs them
    // every execute). The module's buffers are imported and left in the state
    // the next frame expects. The passes live in one graph at a time: a host
    // that builds its graph again (e.g. after IsoSurface::grow()) calls this
    // on the new graph and never executes the old one again. At most once per
    // graph; ErrorCode::InvalidState after record() (the module's own graph).
    Result<GraphOutputs> addPasses(RenderGraph& graph, const GraphInputs& inputs = {});
    // Records one frame through the module's own graph (hosts without a
    // graph). Not combinable with addPasses(). A frame boundary, as setMesh().
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
    // voxelizer's passes: nodes/dense in StorageReadWrite/StorageWrite of a
    // compute pass). Growth replaces the fragment, node and mesh buffers at
    // a frame boundary (the graph refs follow; a handle kept by the host
    // does not, unless fragmentCapacity and tileCapacity are given).
    const Buffer& nodeBuffer() const; // child pointers; the other fields: nodeArrayBuffer()
    const Buffer& nodeArrayBuffer(NodeArray array) const;
    const Buffer& fragmentBuffer() const;
    const Buffer& counterBuffer() const;   // VoxCountersData
    const Buffer& dispatchBuffer() const;  // see VoxelizerGraphRefs::dispatch
    const Buffer& denseGridBuffer() const; // invalid when denseMaxVoxels == 0
    // GPU memory the voxelizer holds, one entry per buffer (name, bytes as
    // created; "vox.replaced": buffers growth replaced, until released), for
    // benchmarks and memory budgets. Render-graph scratch is not included.
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
    struct Impl;

private:
    friend struct TestingAccess; // pyramarch/voxelizer/testing.h
    explicit Voxelizer(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

} // namespace pyramarch::voxel
