// Internal state of one IsoSurface: what its stages share (create-info,
// grid, core sizes, device, push constants, counters), and the stages and
// field providers with a header of their own as members (each owns its
// buffers, pipelines, sizing and passes; stage.h). A pass name leads to its file:
//   <name>.field.metaballs                      field_metaballs.cpp (MetaballsProvider)
//   <name>.particles.{clear,splat,resolve}      field_particles_splat.cpp (ParticleProvider, SplatMethod::Scatter)
//   <name>.particles.{clear,count,scan.*,sort,smooth,rebin.*,density,aniso,gather}
//                                               field_particles_gather.cpp (ParticleProvider, SplatMethod::Gather)
//   <name>.field.volume, <name>.field.volume.bounds  field_volume.cpp (VolumeProvider)
//   <name>.field.user                           field_user.cpp (UserFieldProvider, and compileUserField)
//   <name>.field.tiles.{list,args}              field_tiles.cpp (FieldTileStage)
//   on a grid that fits as bricks (direct brick table) <name>.bricks.{clear,bounds,list,args}
//   and the listed <name>.pyramid.3             brick_list.cpp (BrickListStage),
//   <name>.classify, <name>.pyramid.*           sparse.cpp (addDirectClassifyPasses),
//   <name>.extract                              extract_histopyramid.cpp
//   and indexed <name>.vertices.{count,pyramid.*,bases}, <name>.vertices,
//   <name>.extract                              sparse_indexed.cpp (IndexedStage, direct)
//   <name>.pyramid.*, and any <prefix>.scan.{sums,top,starts}
//                                               pyramid.cpp (the build and the exclusive scan, shared)
//   <name>.args                                 args.cpp
//   <name>.mesh.smooth.*                        mesh_smooth.cpp (MeshSmoothStage, indexed only)
//   the cell-order grid (the scan only): <name>.classify, <name>.occupancy.*,
//   <name>.scan.*, <name>.compact, <name>.generate
//                                               extract_scan.cpp (ScanStage, ExtractionMethod::Scan)
//   <name>.sparse.volume.upload                 sparse_volume.cpp (SparseVolumeStage)
//   <name>.sparse.octree.*                      sparse_octree.cpp (SparseOctreeStage)
//   <name>.attributes.*                         surface_attributes.cpp (SurfaceAttributeStage)
//   <name>.sparse.{clear,supers,supers.order,supers.args,activate,bricks.order,list,args},
//   <name>.sparse.slots.{order,place,cases}     brick_list.cpp (BrickListStage, IsoSurfaceCreateInfo::sparse)
//   <name>.sparse.{table.clear,count,cells.*,fill,homes,smoothed.clear,kernels.clear,smooth,
//   volumes.clear,density,aniso,slots.{init,keep,free,assign},blocks,blocks.borders}
//                                               field_particles_sparse.cpp (ParticleProvider, sparse)
//   with a sparse domain <name>.classify, <name>.pyramid.*,
//   <name>.extract                              sparse.cpp (IsoSurfaceCreateInfo::sparse)
//   <name>.sparse.vertices.{clear,args,count,bases}, and with a sparse domain
//   and indexed output <name>.vertices.pyramid.*, <name>.vertices, <name>.extract
//                                               sparse_indexed.cpp (IndexedStage, sparse)
// Sizing and layout (pure, no Vulkan): layout.cpp, which calls each stage's
// and provider's plan. Read-back and stats: readback.cpp. create(), the
// setters, addPasses() (imports, then the stages) and record():
// isosurface.cpp. Each stage file holds the SPIR-V it runs.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "isosurface/iso_shared.h"
#include "pyramarch/engine/device.h"
#include "pyramarch/engine/pipeline.h"
#include "pyramarch/engine/render_graph.h"
#include "pyramarch/engine/vulkan_functions.h"
#include "pyramarch/isosurface/isosurface.h"
#include "pyramarch/isosurface/testing.h"
#include "mesh_smooth.h"
#include "surface_attributes.h"
#include "extract_scan.h"
#include "sparse_octree.h"
#include "sparse_volume.h"
#include "extract_indexed.h"
#include "brick_list.h"
#include "field_metaballs.h"
#include "field_particles.h"
#include "field_user.h"
#include "field_tiles.h"
#include "field_volume.h"

namespace pyramarch::iso {

// Splits `groups` into x * y with x <= maxX (the shaders undo it with linearGroup()).
inline void dispatchFolded(const PassContext& ctx, uint64_t groups, uint32_t maxX) {
    if (groups == 0) return;
    const uint32_t x = uint32_t(groups < maxX ? groups : maxX);
    const uint32_t y = uint32_t((groups + x - 1) / x);
    ctx.dispatch(x, y, 1);
}
inline constexpr Access R = Access::StorageRead, W = Access::StorageWrite, RW = Access::StorageReadWrite;

inline uint64_t groupsOf(uint64_t threads, uint64_t perGroup) { return (threads + perGroup - 1) / perGroup; }
std::string fmtBytes(uint64_t bytes);
// Level tables of a 4-ary pyramid over `count` base elements; returns the
// total element count, 0 when it needs more than kIsoMaxLevels levels.
uint64_t pyramidLevels(uint64_t count, gpu::IsoGrid& g, uint32_t packedLevels = 0, uint64_t* words = nullptr,
                       bool quadAligned = false);
gpu::IsoTables packTables();
// Constants for dividing by d without a division instruction (IsoGrid's
// cellDivisors / sampleDivisors, divideBy in common.glsl); divideBy is the
// same arithmetic on the host.
struct UintDivisor {
    uint32_t multiplier, shifts;
};
UintDivisor uintDivisor(uint32_t d);
uint32_t divideBy(uint32_t n, UintDivisor divisor);

// The module's buffers as the graph of addPasses() knows them.
struct IsoRefs {
    BufferRef tables, grid, field, pyramid, counters, args, vertices, stats;
    BufferRef items;                        // metaballs / particles (the host's import with ParticleInput::GpuBuffer)
    VkDeviceSize itemRange = VK_WHOLE_SIZE; // what the item descriptors cover
    BufferRef occGrid, occupancy;           // scan
    BufferRef vertexGrid, vertexPyramid, runBases; // indexed
    BufferRef runBounds, wrapBounds;               // volume: value bounds per classify run (+ past its first row)
    // A grid that fits over the field buffer: brick_list.comp's buffers.
    BufferRef directBounds, directList, directArgs;
    BufferRef fieldTileFlags, fieldTileList, fieldTileArgs; // tiledField(): the field tiles readers need
    BufferRef particleTiles; // particles: the field pass's tiles holding a nonzero sample (tileFlags)
    BufferRef brickList, sparseArgs, slotRecords, slotStage, superList, superArgs; // sparse
    BufferRef orderMarks, orderBases, pairOrder;                                   // sparse: the lists' order
    BufferRef brickItems;                                                          // sparse metaballs, particles
    BufferRef brickTable, superMarks, cellTable;                                   // sparse particles
    BufferRef slotOfBrick, slotState, freeSlots;                                   // sparse particles' block slots
    BufferRef volumeStaging, volumeSurface, volumeBrickSlots;                      // sparse volumes
    BufferRef volumePools[gpu::kIsoVolumePools]; // sparse volumes (unused ones: the first)
    BufferRef sparseLookup, sparseVertexArgs;    // sparse, indexed (sparse_indexed.cpp)
    // Sparse volumes from an octree (sparse_octree.cpp): the host's octree
    // buffers, the words of its counters holding the leaf tile range, and
    // the surface's per-brick counts and slots and its dispatch.
    BufferRef octreeCounters, octreeNodeCount, octreeNodeCoord;
    uint32_t octreeLeafFirstWord = 0, octreeLeafEndWord = 0;
    BufferRef octreeBrickCounts, octreeBrickSurface, octreeArgs;
};

// Sizes planned by planLayout() and used to create the buffers.
struct IsoSizes {
    uint64_t samples = 0, cells = 0, fieldBytes = 0;
    uint64_t pyramidElements = 0, pyramidBytes = 0, vertexBytes = 0, indexBytes = 0;
    uint64_t sparseItemBytes = 0; // sparse metaballs, particles: the bricks' item lists
    // Sparse volumes: the surface bricks (uvec4 each), the pool
    // (maxVolumeBricks bricks in volumePoolCount buffers of at most
    // volumePoolBricks), the listed bricks' slots (maxBricks words).
    uint64_t volumeSurfaceBytes = 0, volumePoolBytes = 0, volumeSlotBytes = 0;
    uint32_t volumePoolBricks = 1, volumePoolCount = 0;
    // The vertex and index buffers as the shaders reach them
    // (output_slices.glsl): `slices` storage bindings of `sliceElements`
    // vertices / indices each (one slice: the whole buffer).
    uint32_t vertexSlices = 1, vertexSliceElements = 0;
    uint32_t indexSlices = 1, indexSliceElements = 0;
};

// Output buffers a surface whose capacities are 0 starts with (vertices, indices).
inline constexpr uint32_t kStartVertexCapacity = 49152, kStartIndexCapacity = 98304;
// Sparse capacities left 0 start at (at most) these: bricks, row pairs, and
// (metaballs) item references per starting brick.
inline constexpr uint32_t kStartSparseBricks = 4096, kStartSparseRowPairs = 32768, kStartSparseRefsPerBrick = 16;

// Bindings a shader that includes output_slices.glsl adds for slices 1..
inline constexpr uint32_t kSliceBindings = gpu::kIsoOutputSlices - 1;
// Sparse extraction and shared vertices, every source: bindings up to the
// volume pool's 11, the vertex buffer's slices 1.. from 12.
inline constexpr uint32_t kSparseOutputBindings = 12 + kSliceBindings;

// Elements per storage binding of an output buffer of `elementBytes`-byte
// elements: one maxStorageBufferRange (at most `forcedBytes` when non-zero:
// testing::Knobs::outputSliceBytes), rounded down to whole elements at
// offsets that are multiples of minStorageBufferOffsetAlignment.
uint64_t outputSliceElements(const DeviceLimits& limits, uint64_t elementBytes, uint64_t forcedBytes = 0);
// The most elements an output buffer holds: kIsoOutputSlices slices, one
// VkBuffer (maxBufferSize) in one allocation (maxMemoryAllocationSize).
uint64_t maxOutputElements(const DeviceLimits& limits, uint64_t elementBytes, uint64_t forcedBytes = 0);
// Declares the output buffer `buffer` of `bytes` bytes to `pass` as
// `slices` storage bindings of `sliceElements` elements (slice 0 at
// `first`, slices 1.. at `next`..; the unused ones of kIsoOutputSlices repeat
// slice 0), as output_slices.glsl reads it.
void declareOutputSlices(PassBuilder& pass, uint32_t first, uint32_t next, BufferRef buffer, Access access,
                         uint64_t bytes, uint64_t elementBytes, uint32_t slices, uint32_t sliceElements);

// The shaders' kIsoVolume* of a format.
inline uint32_t volumeFormatOf(VolumeFormat format) {
    return format == VolumeFormat::U8    ? gpu::kIsoVolumeU8
           : format == VolumeFormat::U16 ? gpu::kIsoVolumeU16
                                         : gpu::kIsoVolumeF32;
}

// layout.cpp: blocks of 11^3 samples in `format` one pool buffer holds
// (one binding's range, one texel view): sparse volumes and particles.
uint64_t sparseBlocksPerPool(const DeviceLimits& limits, VolumeFormat format);
// layout.cpp: a sparse domain's create-info against the other fields.
Status checkSparseDomain(const IsoSurfaceCreateInfo& info, bool scan, testing::FieldEvaluation evaluation);
// layout.cpp: the module's domain choice. A surface without sparse.enabled
// is planned dense (with testing::Knobs::denseRangeBytes: against a smaller
// storage range); where the grid itself does not fit (Impl::gridTooLarge:
// the field, the pyramids, 32-bit counts, an Auto particle gather's bins)
// it is planned again as a sparse domain, and where that fails too the
// error names both.
DeviceLimits denseLimits(const DeviceLimits& limits, uint64_t denseRangeBytes);
bool mayFallBackToSparse(const IsoSurface::Impl& dense, const Status& planned);
Status neitherDomainFits(const Status& dense, const Status& sparse);
// sparse_indexed.cpp: indexed output on a sparse domain finds a cut edge's
// owner through a hash of the listed bricks (entries: a power of two >= 2
// maxBricks), each listed brick's row pairs' slots and its neighbours' list
// entries, one buffer of sparseLookupBytes(); the most bricks whose lookup
// fits one binding.
uint64_t sparseBrickHashEntries(uint32_t maxBricks);
uint64_t sparseLookupBytes(uint32_t maxBricks);
uint32_t maxSparseIndexedBricks(const DeviceLimits& limits);

struct IsoSurface::Impl {
    IsoSurface* self = nullptr;
    Device* device = nullptr;
    std::vector<IsoSurface::MemoryItem> memory; // what create() allocated, for memoryReport()
    IsoSurfaceCreateInfo info;
    IsoSizes sizes;
    gpu::IsoGrid grid{};
    uint32_t ring = 3;                   // framesInFlight + 1 slots
    uint32_t foldGroupsX = 0;            // testing::Knobs::maxGroupsX (0 = device limit)
    uint32_t extractMinGroupsForced = 0; // testing::Knobs::extractMinGroups (0 = gpu::kIsoExtractMinGroups)
    bool subgroupAtomics = false;        // classify/activate: one atomic per subgroup (the *.subgroup.comp variants)
    // Classify and extraction read the field and the pyramid through texel
    // buffers where maxTexelBufferElements covers both, else through storage
    // buffers (the *.storage variants); testing::Knobs::storageReads forces the latter.
    bool texelReads = false;
    bool storageReadsForced = false;
    // testing::Knobs::denseField: no tiled field pass (MetaballsProvider::tiled, UserFieldProvider::tiled).
    bool denseFieldForced = false;
    uint32_t volumePoolBricksForced = 0; // testing::Knobs::volumePoolBricks
    uint64_t outputSliceBytesForced = 0; // testing::Knobs::outputSliceBytes
    // testing::Knobs::extraction, splat and fieldEvaluation (the measured variants).
    testing::ExtractionMethod extractionForced = testing::ExtractionMethod::HistoPyramid;
    testing::SplatMethod splatForced = testing::SplatMethod::Auto;
    testing::FieldEvaluation fieldEvaluationForced = testing::FieldEvaluation::Auto;
    // The device's largest device-local heap (0: unknown): a sparse domain's
    // default memory budget is a quarter of it (sizeSparseDomain).
    uint64_t heapBytes = 0;
    // planLayout failed because the dense grid does not fit the device (the
    // field buffer, a pyramid, 32-bit sample indices or vertex totals, an
    // Auto particle gather's bins).
    bool gridTooLarge = false;
    // The vertex / index buffer's slices declared to a pass (declareOutputSlices).
    void vertexSlices(PassBuilder& pass, uint32_t first, uint32_t next, BufferRef vertices, Access access) const {
        declareOutputSlices(pass, first, next, vertices, access, sizes.vertexBytes, sizeof(gpu::IsoVertex),
                            sizes.vertexSlices, sizes.vertexSliceElements);
    }
    void indexSlices(PassBuilder& pass, uint32_t first, uint32_t next, BufferRef indices, Access access) const {
        declareOutputSlices(pass, first, next, indices, access, sizes.indexBytes, 4, sizes.indexSlices,
                            sizes.indexSliceElements);
    }
    bool tiledField() const { return userField.tiled || metaballs.tiled; }
    // User GLSL, FieldEvaluation::Fused (or Auto with HistoPyramid): classify
    // and the extraction passes call field() themselves (compiled at creation
    // with the snippet, field_user.cpp): no field pass and no field buffer.
    bool fusedField = false;
    // IsoSurfaceCreateInfo::sparse: a virtual grid of bricks (sparse.cpp);
    // classify and extraction are sparse_classify.comp / sparse_extract.comp.
    bool sparse = false;
    // A grid that fits, laid out as bricks (every source; only the scan runs
    // in cell order):
    // every brick resident, brick index = its place in the pool (pool slot
    // 32 i + p for brick i's row pair p), no brick list, no slot claimed by
    // an atomic. The source's field pass fills the field buffer as on the
    // dense path; classify and extraction are the bricked ones
    // (sparse_classify.comp / sparse_extract.comp, ISO_DIRECT_BRICKS with
    // ISO_DENSE_FIELD, or fused), so the triangles come in brick order, the
    // same in every run (sparse.cpp).
    bool direct = false;
    uint32_t maxItems = 0;
    uint64_t externalParticleBytes = 0; // ParticleInput::GpuBuffer: bytes of particleBuffer the module reads

    Buffer tables, gridBuf, field, pyramid, counters, args, vertices, stats, items;
    Buffer brickItems; // sparse metaballs, particles: each listed brick's items (sparse_activate.glsl)
    // Sparse volumes (the `sparseVolume` stage): the surface bricks the
    // frames being recorded list from, and the resident bricks' iso range
    // (empty before the first upload).
    uint32_t volumeSurfaceBricks = 0;
    float volumeIsoMin = 1.f, volumeIsoMax = 0.f;
    // Per stats ring slot: the frame recorded into it, and whether its iso
    // value was outside the resident bricks' range.
    struct IsoOutside {
        uint64_t frame = UINT64_MAX;
        bool outside = false;
    };
    std::vector<IsoOutside> isoOutsideBySlot;
    // Sparse volumes from an octree's leaves (the `octree` stage).
    bool octreeInput = false;

    ComputePipeline classify, build, argsPipe, extract;
    bool external = false; // ParticleInput::GpuBuffer: info.particleBuffer replaces the items ring
    bool indexed = false;

    // Host copy of the per-frame items; ring slot s holds version slotVersion[s].
    std::vector<uint8_t> hostItems;
    std::vector<uint8_t> pendingItems; // setParticles packs here, swapped into hostItems once checked
    uint32_t itemCount = 0;
    uint64_t itemsVersion = 1;
    std::vector<uint64_t> slotVersion;
    // The block pool's sample format: a sparse volume's upload format;
    // sparse particles keep F32 blocks (the field's floats).
    VolumeFormat blockPoolFormat() const {
        return info.source == FieldSource::Particles ? VolumeFormat::F32 : info.sparse.volumeFormat;
    }
    bool addedToGraph = false;
    // Timings: the graph holding the passes and the offset of its frame
    // numbering from the surface's (set by the first recorded frame).
    const RenderGraph* timingGraph = nullptr;
    bool graphFrameKnown = false;
    uint64_t graphFrameOffset = 0;

    VkDeviceSize itemBytes() const {
        return info.source == FieldSource::Metaballs ? sizeof(gpu::IsoBall) : sizeof(Particle);
    }
    uint32_t maxGroupsX() const { return grid.maxGroupsX; }
    // The most triangles one extract invocation takes (kIsoSpecExtractTriangles):
    // many on CPU drivers; a surface takes gpu::isoExtractTrianglesFor() of
    // its triangles written.
    uint32_t extractTriangles() const {
        const VkPhysicalDeviceType type = device->limits().deviceType;
        return type == VK_PHYSICAL_DEVICE_TYPE_CPU || type == VK_PHYSICAL_DEVICE_TYPE_OTHER
                   ? gpu::kIsoExtractTrianglesCpu
                   : gpu::kIsoExtractTriangles;
    }
    // The extract workgroups a surface keeps before its runs grow (kIsoSpecExtractMinGroups).
    uint32_t extractMinGroups() const {
        // At most 2^20: the rule's products stay within 32 bits.
        return extractMinGroupsForced ? std::min(extractMinGroupsForced, 1u << 20) : gpu::kIsoExtractMinGroups;
    }

    // layout.cpp: validates the create-info against the device limits and
    // plans grids, pyramids and buffer sizes. Pure (no Vulkan calls).
    Status planLayout(const DeviceLimits& limits, const std::string& deviceName);
    Status planSparseDomain(const DeviceLimits& limits, const std::string& dev);
    Status sizeSparseDomain(const DeviceLimits& limits, const std::string& dev);
    Status planOutputSlices(const DeviceLimits& limits, const std::string& dev, const char* field, uint32_t capacity,
                            uint64_t bytes, uint64_t elementBytes, uint32_t& slices, uint32_t& sliceElements) const;
    Status planOutputs(const DeviceLimits& limits, const std::string& dev, uint32_t vertexCapacity,
                       uint32_t indexCapacity, gpu::IsoGrid& g, IsoSizes& out) const;

    // Output capacities left 0 (isosurface.cpp, growOutputs): the module
    // grows the vertex / index buffers at record(), from the stats of a frame
    // recorded with the current ones, up to the limits (the device's, the
    // dispatch fold's) and memoryBudget. The pipelines are compiled for the
    // slices the buffers have (specVertexSlices, specIndexSlices): growth
    // within them re-creates buffers and record()'s graph; past them the
    // surface is planned again (replan), pipelines included.
    bool growVertices = false, growIndices = false;
    uint32_t growVertexLimit = 0, growIndexLimit = 0;
    uint64_t memoryBudget = 0; // resolved: IsoSurfaceCreateInfo::memoryBudget or its default
    uint32_t specVertexSlices = 1, specIndexSlices = 1;
    uint64_t outputsFromFrame = 0; // the first frame recorded with the current output buffers
    struct CapacityEpoch {
        uint64_t firstFrame = 0;
        uint32_t vertices = 0, indices = 0, bricks = 0, rowPairs = 0;
        bool grown = false; // the capacities before, and the frame whose stats asked for it:
        uint64_t grownAfter = 0;
        uint32_t previousVertices = 0, previousIndices = 0, previousBricks = 0, previousRowPairs = 0;
    };
    std::vector<CapacityEpoch> epochs; // one per output size, oldest first
    // Buffers (and record()'s graph) growth replaced: released once the frame
    // counter reaches releaseAt (framesInFlight + 8 frames later).
    struct Replaced {
        uint64_t releaseAt = 0;
        std::vector<Buffer> buffers;
        std::unique_ptr<RenderGraph> graph;
        std::unique_ptr<Impl> impl; // a sparse domain planned again: the whole surface before
    };
    std::vector<Replaced> replaced;
    uint32_t refusedVertices = 0, refusedIndices = 0; // the last growth refused (its error is returned once)
    // A frame boundary of record(): releases what is due, then grows the
    // output buffers when the newest stats ask for it; `graph` (record()'s)
    // is retired then, to be built again over the new buffers.
    // `st`: the stats that ask (record(): latestStats(); grow(): the ring's largest needs).
    Status growOutputs(std::unique_ptr<RenderGraph>& graph, const std::optional<IsoStats>& st);
    // Puts a replanned Impl in this one's place (growSparseDomain, growOutputs).
    void installReplanned(std::unique_ptr<Impl> fresh, std::unique_ptr<RenderGraph>& graph, uint64_t now);
    Status planGrowth(const DeviceLimits& limits); // at creation: the limits and the pipelines' slices
    Status createOutputBuffers();                  // growth: the buffers the capacities size, the grids written
    const CapacityEpoch& epochOf(uint64_t frame) const;
    void noteReplaced(); // memory's "replaced" entry
    // Sparse capacities left 0 (metaballs, particles, user fields with a
    // Lipschitz bound, volumes from an octree): the surface starts at a
    // fraction of the sizes the module plans (sizeSparseDomain), which bound
    // the growth. At record() (or the host's grow())
    // growSparseDomain plans the surface again with larger ones (and the
    // output capacities the same stats ask for): a new Impl replaces this
    // one in self->impl_, this one retired in its `replaced` list.
    bool growBricks = false, growRowPairs = false, growItemRefs = false, growVolumeBricks = false;
    uint32_t growBrickLimit = 0, growRowPairLimit = 0, growItemRefLimit = 0, growVolumeBrickLimit = 0;
    uint32_t refusedBricks = 0, refusedRowPairs = 0, refusedVolumeBricks = 0;
    Status heldBack;            // a growth the budget held back, said at the next frame boundary
    bool budgetReached = false; // a growth stopped at memoryBudget: the sizes stay
    uint64_t firstFrame = 0;    // the first frame this Impl records
    Status growSparseDomain(std::unique_ptr<RenderGraph>& graph, const std::optional<IsoStats>& st);
    Status replan(const IsoSurfaceCreateInfo& ci, std::unique_ptr<Impl>& out) const;
    Status settleForHostGraph();   // addPasses() before any frame: the sizes planned at creation, fixed
    bool buildingOwnGraph = false; // record() is adding the passes to its own graph
    std::optional<IsoStats> statsOf(uint64_t frame) const; // readback.cpp
    // isosurface.cpp
    Status makeBuffer(Buffer& out, VkDeviceSize bytes, VkBufferUsageFlags usage, MemoryUsage mem,
                      const std::string& what); // named "<name>.<what>", listed in memory
    Status createBuffers();
    Status createPipelines();
    // moduleConstants: set the module's specialization constants (kIsoSpec*);
    // false for the user GLSL field, whose snippet may declare its own ids.
    Status makePipeline(ComputePipeline& out, std::span<const uint32_t> spirv, const char* what, uint32_t bindings,
                        bool moduleConstants = true);
    // This frame's push constants (iso value, time, items, frame and ring slot).
    gpu::IsoPush push() const;
    // Record function of a pass sized on the GPU: this frame's push constants
    // (the shader's mode `mode` in srcLevel), then the VkDispatchIndirectCommand
    // an earlier pass wrote at `offset` of `args`.
    RecordFn indirectDispatch(BufferRef args, VkDeviceSize offset, uint32_t mode = 0) const {
        return [this, args, offset, mode](PassContext& ctx) {
            gpu::IsoPush pc = push();
            pc.srcLevel = mode;
            ctx.pushConstants(pc);
            ctx.dispatchIndirect(args, offset);
        };
    }
    // Record function of a pass over `groups` workgroups, folded.
    RecordFn foldedDispatch(uint64_t groups) const {
        return [this, groups](PassContext& ctx) {
            ctx.pushConstants(push());
            dispatchFolded(ctx, groups, maxGroupsX());
        };
    }
    // Record function of a pass that runs a shader's mode `mode` (push
    // constant srcLevel) over `groups` workgroups, folded.
    RecordFn modeDispatch(uint32_t mode, uint64_t groups) const {
        return [this, mode, groups](PassContext& ctx) {
            gpu::IsoPush pc = push();
            pc.srcLevel = mode;
            ctx.pushConstants(pc);
            dispatchFolded(ctx, groups, maxGroupsX());
        };
    }
    // The first pass of every frame calls it: the one place the frame counter advances.
    void beginFrame(const PassContext& ctx);
    uint64_t recording() const { return self->recording_; } // the frame being recorded
    uint64_t frameNow() const { return self->frame_; }      // frames begun so far (the counter)

    // Stages with their own state (buffers, pipelines, sizing, passes).
    MeshSmoothStage meshSmoothing;    // mesh_smooth.cpp
    SurfaceAttributeStage attributes; // surface_attributes.cpp
    ScanStage scanBaseline;           // extract_scan.cpp (testing::ExtractionMethod::Scan)
    SparseVolumeStage sparseVolume;   // sparse_volume.cpp (and sparse particles' block pool)
    SparseOctreeStage octree;         // sparse_octree.cpp (SparseVolumeInput::OctreeLeaves)
    IndexedStage indexedOutput;       // extract_indexed.cpp, sparse_indexed.cpp (IsoSurfaceCreateInfo::indexed)
    BrickListStage brickListing;      // brick_list.cpp (direct over the field buffer, sparse)
    FieldTileStage fieldTiles;        // field_tiles.cpp (tiledField())
    // Field providers (each source's field passes, pipelines, sizing).
    MetaballsProvider metaballs; // field_metaballs.cpp
    UserFieldProvider userField; // field_user.cpp
    VolumeProvider volumeSource; // field_volume.cpp (dense; sparse: with sparseVolume)
    ParticleProvider particles;  // field_particles*.cpp (dense and sparse)

    // Stages: pipelines at creation, passes in addPasses().
    Status createBuildPipeline(); // the pyramid build (pyramid.cpp)
    // pyramid.cpp: the exclusive scan of `elements` counts (the layout
    // grid's binDims.w) into `starts`: its two pipelines ("<what>",
    // "<what>.top") and its passes "<prefix>{sums,top,starts}".
    Status makeScanPipelines(ComputePipeline& chunks, ComputePipeline& top, const std::string& what);
    void addExclusiveScan(RenderGraph& graph, const std::string& prefix, const ComputePipeline& chunks,
                          const ComputePipeline& top, BufferRef layout, BufferRef counts, BufferRef chunkSums,
                          BufferRef starts, uint64_t elements) const;
    // Build passes "<prefix><level>" over `levelsBuf` from level `first` up
    // (cell pyramid, occupancy tree, edge pyramid). With `firstArgs` the
    // first pass is dispatched from it (at byte `firstArgsOffset`) instead of
    // over the whole level: a sparse pool builds only the places filled.
    void addPyramidBuild(RenderGraph& graph, const std::string& prefix, BufferRef layout, BufferRef levelsBuf,
                         const gpu::IsoGrid& g, uint32_t first, BufferRef firstArgs = {},
                         VkDeviceSize firstArgsOffset = 0);
    Status createArgsPipelines();
    void addArgsPass(RenderGraph& graph, const IsoRefs& refs);
    // NormalMode::None: the first frame zeroes the vertex buffer; extract and
    // generate then write positions only.
    void addNormalClearPass(RenderGraph& graph, const IsoRefs& refs);
    void addExtractPasses(RenderGraph& graph, const IsoRefs& refs);
    // sparse.cpp: the sparse domain's pipelines (user fields: compiled with
    // the snippet) and passes: the lists (brickListing), the particles'
    // binning and blocks (particles), classify, the slots' order, the
    // pyramid build; then its extraction.
    Status createSparsePipelines();
    void addSparseClassifyPasses(RenderGraph& graph, const IsoRefs& refs);
    void addSparseExtractPass(RenderGraph& graph, const IsoRefs& refs);
    void bindBrickItems(PassBuilder& pass, const IsoRefs& refs); // metaballs, particles, volumes: bindings 7, 8
    // sparse.cpp, a grid that fits (direct): classify and extraction over
    // every brick, reading the field buffer (or fused field()).
    Status createDirectPipelines();
    void addDirectClassifyPasses(RenderGraph& graph, const IsoRefs& refs);
    // Over the field buffer: brick_list.comp lists the bricks classify runs over.
    // A bounded user field lists its bricks by the bound, fused or not.
    bool lipschitzBricks() const { return info.source == FieldSource::UserGlsl && info.lipschitz > 0.f; }
    bool directListed() const { return direct && (!fusedField || lipschitzBricks()); }
};

} // namespace pyramarch::iso
