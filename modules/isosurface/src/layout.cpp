// Sizing and layout of a surface: validates the create-info against the
// device limits (errors name the field, the size and the limit) and plans the
// grid, the pyramids and every buffer size. Pure: no Vulkan calls.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "iso_impl.h"
#include "pyramarch/isosurface/mc_tables.h"
#include "pyramarch/isosurface/raw_volume.h"
#include "pyramarch/isosurface/testing.h"

namespace pyramarch::iso {

// classify.comp and vertex_owner.glsl swap inside bits to the tables' corner order (kIsoCornerCodes).
constexpr bool cornerCodesFollowTables() {
    for (uint32_t c = 0; c < 8; ++c)
        if (((gpu::kIsoCornerCodes >> (3 * c)) & 7u) !=
            uint32_t(mc::kCornerOffset[c][0] | mc::kCornerOffset[c][1] << 1 | mc::kCornerOffset[c][2] << 2))
            return false;
    return true;
}
static_assert(cornerCodesFollowTables(), "kIsoCornerCodes must follow mc::kCornerOffset");
// vertex_owner.glsl's isoCornerBitsByCode swaps MC corners 2, 3 and 6, 7 to get offset codes.
static_assert(gpu::kIsoCornerCodes == (0u | 1u << 3 | 3u << 6 | 2u << 9 | 4u << 12 | 5u << 15 | 7u << 18 | 6u << 21),
              "isoCornerBitsByCode's bit swap must follow kIsoCornerCodes");
// cell_edge.glsl finds an edge's corners with gpu::kIsoEdgeCodes*: the tables' edges.
constexpr bool edgeCodesFollowTables() {
    const uint32_t words[3] = {gpu::kIsoEdgeCodes0, gpu::kIsoEdgeCodes1, gpu::kIsoEdgeCodes2};
    for (int e = 0; e < 12; ++e) {
        const int a = mc::kEdgeCorners[e][0], b = mc::kEdgeCorners[e][1];
        const uint32_t ca =
            uint32_t(mc::kCornerOffset[a][0] | mc::kCornerOffset[a][1] << 1 | mc::kCornerOffset[a][2] << 2);
        const uint32_t cb =
            uint32_t(mc::kCornerOffset[b][0] | mc::kCornerOffset[b][1] << 1 | mc::kCornerOffset[b][2] << 2);
        if (((words[e >> 2] >> (8 * (e & 3))) & 0xffu) != (ca | cb << 4)) return false;
    }
    return true;
}
static_assert(edgeCodesFollowTables(), "kIsoEdgeCodes* must follow mc::kEdgeCorners and mc::kCornerOffset");

gpu::IsoTables packTables() {
    gpu::IsoTables t{};
    for (uint32_t c = 0; c < 256; ++c) {
        const int n = mc::vertexCount(c);
        uint32_t triangles = 0;
        for (int k = 0; k < 3; ++k) triangles |= ((gpu::kIsoCaseTrianglePlanes[k][c >> 5] >> (c & 31)) & 1u) << k;
        PYRAMARCH_ASSERT(3 * triangles == uint32_t(n),
                         "kIsoCaseTrianglePlanes (isoCaseCount) must follow the MC tables");
        uint64_t nibbles = 0;
        for (int j = 0; j < n; ++j) nibbles |= uint64_t(mc::triangleEdge(c, j)) << (4 * j);
        t.cases[c] = {uint32_t(nibbles), uint32_t(nibbles >> 32), 0u, uint32_t(n)};
    }
    return t;
}

UintDivisor uintDivisor(uint32_t d) {
    // Granlund & Montgomery, "Division by invariant integers using
    // multiplication" (PLDI 1994), Figure 4.1: l = ceil(log2 d),
    // m = floor(2^32 (2^l - d) / d) + 1, n / d = (t + ((n - t) >> s1)) >> s2
    // with t = mulhi(m, n), s1 = min(l, 1), s2 = max(l - 1, 0); exact for
    // every 32-bit n. d = 0 (an empty axis: nothing is divided) gives 1.
    if (d == 0) d = 1;
    uint32_t l = 0;
    while (l < 32 && (uint64_t(1) << l) < d) ++l;
    const uint64_t m = ((uint64_t(1) << 32) * ((uint64_t(1) << l) - d)) / d + 1;
    const uint32_t s1 = std::min<uint32_t>(l, 1), s2 = l > 0 ? l - 1 : 0;
    return {uint32_t(m), s1 | s2 << 8};
}

uint32_t divideBy(uint32_t n, UintDivisor v) {
    const uint32_t t = uint32_t((uint64_t(n) * v.multiplier) >> 32);
    return (t + ((n - t) >> (v.shifts & 0xffu))) >> (v.shifts >> 8);
}

uint32_t testing::divideLikeTheGpu(uint32_t n, uint32_t d) { return divideBy(n, uintDivisor(d)); }

std::string fmtBytes(uint64_t b) { return std::to_string(b) + " bytes"; }

// Level tables of a 4-ary pyramid over `count` base elements; returns the
// total element count, 0 when it needs more than kIsoMaxLevels levels. The
// first `packedLevels` levels are stored as u8, 4 per word (IsoGrid.levels[k].x);
// `words` receives the storage size in 32-bit words. With `quadAligned`,
// every 32-bit level starts on a 16-byte boundary and owns a whole number of
// uvec4s, so that the top-down walk loads an element's 4 children as one
// uvec4 (pyramid_find.glsl, ISO_PYRAMID_QUADS): lavapipe performs buffer loads
// lane by lane, and 3 scalar loads per level were most of extraction.
uint64_t pyramidLevels(uint64_t count, gpu::IsoGrid& g, uint32_t packedLevels, uint64_t* words, bool quadAligned) {
    uint64_t offset = 0, word = 0, size = count;
    uint32_t levels = 0;
    while (true) {
        if (levels >= gpu::kIsoMaxLevels) return 0;
        g.levels[levels].z = uint32_t(offset);
        g.levels[levels].y = uint32_t(size);
        const bool packed = levels < packedLevels;
        if (quadAligned && !packed) word = (word + 3) & ~uint64_t(3);
        g.levels[levels].x = uint32_t(word);
        offset += size;
        word += packed ? (size + 3) / 4 : quadAligned ? (size + 3) & ~uint64_t(3) : size;
        ++levels;
        if (size == 1) break;
        size = (size + 3) / 4;
    }
    g.levelCount = levels;
    g.packedLevels = packedLevels;
    if (words) *words = word;
    return offset;
}

namespace {
// Bytes of the pool pyramid over `slots` slots, as planLayout sizes it.
uint64_t sparsePyramidBytes(uint64_t slots) {
    gpu::IsoGrid g{};
    uint64_t words = 0;
    if (pyramidLevels(slots * gpu::kIsoClassifyCells, g, gpu::kIsoPackedLevels, &words, true) == 0) return UINT64_MAX;
    return ((words + 3) & ~uint64_t(3)) * 4;
}
} // namespace

uint32_t sparseItemRefCapacity(const IsoSurfaceCreateInfo& info, const DeviceLimits& limits) {
    if (info.source != FieldSource::Metaballs && info.source != FieldSource::Particles) return 0;
    if (info.sparse.maxItemRefs) return info.sparse.maxItemRefs;
    const uint64_t perBrick =
        info.source == FieldSource::Particles ? kDefaultSparseParticleRefsPerBrick : kDefaultSparseBallRefsPerBrick;
    // The default stops at what one binding holds besides the lists.
    const uint64_t listWords = uint64_t(info.sparse.maxBricks) * 2, rangeWords = limits.maxStorageBufferRange / 4;
    const uint64_t roomWords = rangeWords > listWords ? rangeWords - listWords : 1;
    return uint32_t(std::min({uint64_t(info.sparse.maxBricks) * perBrick, roomWords, uint64_t(0xFFFFFFFFu)}));
}

uint64_t outputSliceElements(const DeviceLimits& limits, uint64_t elementBytes, uint64_t forcedBytes) {
    const uint64_t unit = std::lcm(std::max<uint64_t>(limits.minStorageBufferOffsetAlignment, 1), elementBytes);
    uint64_t bytes = limits.maxStorageBufferRange;
    if (forcedBytes) bytes = std::min(bytes, forcedBytes);
    // The slice size is a 32-bit specialization constant (elements).
    bytes = std::min(bytes, uint64_t(0xFFFFFFFFu) * elementBytes);
    return std::max(bytes / unit, uint64_t(1)) * unit / elementBytes;
}

uint64_t maxOutputElements(const DeviceLimits& limits, uint64_t elementBytes, uint64_t forcedBytes) {
    uint64_t most = outputSliceElements(limits, elementBytes, forcedBytes) * gpu::kIsoOutputSlices;
    most = std::min(most, limits.maxBufferSize / elementBytes);
    if (limits.maxMemoryAllocationSize) most = std::min(most, limits.maxMemoryAllocationSize / elementBytes);
    return most;
}

uint32_t maxVertexCapacity(const DeviceLimits& limits) {
    return uint32_t(std::min<uint64_t>(maxOutputElements(limits, sizeof(gpu::IsoVertex)), 0xFFFFFFFFu) / 3 * 3);
}

uint32_t maxIndexCapacity(const DeviceLimits& limits) {
    return uint32_t(std::min<uint64_t>(maxOutputElements(limits, 4), 0xFFFFFFFFu) / 3 * 3);
}

void declareOutputSlices(PassBuilder& pass, uint32_t first, uint32_t next, BufferRef buffer, Access access,
                         uint64_t bytes, uint64_t elementBytes, uint32_t slices, uint32_t sliceElements) {
    const uint64_t sliceBytes = uint64_t(sliceElements) * elementBytes;
    if (slices <= 1) {
        pass.storage(first, buffer, access);
    } else {
        pass.storage(first, buffer, access, 0, sliceBytes);
    }
    for (uint32_t k = 1; k < gpu::kIsoOutputSlices; ++k) {
        const uint64_t offset = uint64_t(k) * sliceBytes;
        if (k < slices)
            pass.storage(next + k - 1, buffer, access, 0, std::min(sliceBytes, bytes - offset), offset);
        else // unused: slice 0 again (the shader never reaches it)
            pass.storage(next + k - 1, buffer, access, 0, slices <= 1 ? VK_WHOLE_SIZE : sliceBytes);
    }
}

// An output buffer (vertices or indices) of `bytes` as `slices` storage
// bindings of `sliceElements`: within one VkBuffer, one allocation and
// kIsoOutputSlices bindings, or a named DeviceLimit error.
Status IsoSurface::Impl::planOutputSlices(const DeviceLimits& lim, const std::string& dev, const char* field,
                                          uint32_t capacity, uint64_t bytes, uint64_t elementBytes, uint32_t& slices,
                                          uint32_t& sliceElements) const {
    const uint64_t perSlice = outputSliceElements(lim, elementBytes, outputSliceBytesForced);
    const uint64_t elements = bytes / elementBytes;
    const uint64_t count = (elements + perSlice - 1) / perSlice;
    const std::string what = "isosurface '" + info.name + "': " + field + " " + std::to_string(capacity) + " needs " +
                             fmtBytes(bytes) + ", over ";
    if (bytes > lim.maxBufferSize)
        return Status::error(ErrorCode::DeviceLimit,
                             what + "maxBufferSize (" + fmtBytes(lim.maxBufferSize) + ")" + dev);
    if (lim.maxMemoryAllocationSize && bytes > lim.maxMemoryAllocationSize)
        return Status::error(ErrorCode::DeviceLimit,
                             what + "maxMemoryAllocationSize (" + fmtBytes(lim.maxMemoryAllocationSize) + ")" + dev);
    if (count > gpu::kIsoOutputSlices)
        return Status::error(ErrorCode::DeviceLimit,
                             what + std::to_string(gpu::kIsoOutputSlices) + " storage bindings of " +
                                 std::to_string(perSlice) + " (maxStorageBufferRange " +
                                 fmtBytes(lim.maxStorageBufferRange) + ")" + dev + "; at most " +
                                 std::to_string(perSlice * gpu::kIsoOutputSlices / 3 * 3));
    slices = uint32_t(std::max<uint64_t>(count, 1));
    sliceElements = uint32_t(perSlice);
    return {};
}

// The output buffers of `vertexCapacity` vertices and `indexCapacity`
// indices (indexed): the grid's capacities, the buffer sizes and their
// slices, and the post-processing's bound buffers; at creation and at growth.
Status IsoSurface::Impl::planOutputs(const DeviceLimits& lim, const std::string& dev, uint32_t vertexCapacity,
                                     uint32_t indexCapacity, gpu::IsoGrid& g, IsoSizes& out) const {
    g.vertexCapacity = vertexCapacity / 3u * 3u;
    out.vertexBytes = std::max<uint64_t>(uint64_t(g.vertexCapacity) * sizeof(gpu::IsoVertex), sizeof(gpu::IsoVertex));
    PYRAMARCH_TRY(planOutputSlices(lim, dev, "vertexCapacity", vertexCapacity, out.vertexBytes, sizeof(gpu::IsoVertex),
                                   out.vertexSlices, out.vertexSliceElements));
    g.indexCapacity = indexed ? indexCapacity / 3u * 3u : 0u;
    out.indexBytes = std::max<uint64_t>(uint64_t(g.indexCapacity) * 4, 4);
    if (indexed)
        PYRAMARCH_TRY(planOutputSlices(lim, dev, "indexCapacity", indexCapacity, out.indexBytes, 4, out.indexSlices,
                                       out.indexSliceElements));
    PYRAMARCH_TRY(
        meshSmoothing.checkOutputs(lim, "isosurface '" + info.name + "'", dev, g, vertexCapacity, indexCapacity));
    return {};
}

uint64_t sparseBlocksPerPool(const DeviceLimits& limits, VolumeFormat format) {
    const uint64_t brickBytes = uint64_t(gpu::kIsoVolumeBrickSamples) * volumeFormatBytes(format);
    return std::min(uint64_t(limits.maxStorageBufferRange) / brickBytes,
                    uint64_t(limits.maxTexelBufferElements) / gpu::kIsoVolumeBrickSamples);
}

uint32_t maxSparseParticleBricks(const DeviceLimits& limits) {
    const uint64_t blocks = gpu::kIsoVolumePools * sparseBlocksPerPool(limits, VolumeFormat::F32);
    // The cell table's words of a listed brick within one binding (no home list).
    const uint64_t cells = (uint64_t(limits.maxStorageBufferRange) / 4 - gpu::kIsoCellHeader) / gpu::kIsoCellWords;
    return uint32_t(std::min({blocks, cells, uint64_t(kMaxSparseBricks), uint64_t(limits.maxStorageBufferRange) / 8}));
}

uint32_t maxSparseRowPairs(const DeviceLimits& limits) {
    // The 32-bit vertex counts bound it too: 15 vertices per cell.
    uint64_t lo = 0,
             hi = std::min<uint64_t>(limits.maxStorageBufferRange / 4, 0xFFFFFFFFull / 15 / gpu::kIsoClassifyCells);
    while (lo < hi) {
        const uint64_t mid = (lo + hi + 1) / 2;
        if (sparsePyramidBytes(mid) <= limits.maxStorageBufferRange)
            lo = mid;
        else
            hi = mid - 1;
    }
    return uint32_t(lo);
}

// A sparse domain's create-info, before anything is sized: what it needs
// from the other fields and its own capacities, each error naming the field.
Status checkSparseDomain(const IsoSurfaceCreateInfo& info, bool scan, testing::FieldEvaluation evaluation) {
    const std::string what = "isosurface '" + info.name + "': sparse domain: ";
    auto bad = [&](const std::string& why) { return Status::error(ErrorCode::InvalidArgument, what + why); };
    const bool user = info.source == FieldSource::UserGlsl;
    const bool volume = info.source == FieldSource::Volume;
    if (!user && info.source != FieldSource::Metaballs && info.source != FieldSource::Particles && !volume)
        return bad("needs FieldSource::UserGlsl (bricks listed by the field's Lipschitz bound), "
                   "FieldSource::Metaballs (by the balls' ranges), FieldSource::Particles (by the kernels' reach) "
                   "or FieldSource::Volume (by the uploaded bricks' value ranges)");
    if (info.sparse.volumeInput == SparseVolumeInput::OctreeLeaves && !volume)
        return bad("SparseVolumeInput::OctreeLeaves needs FieldSource::Volume");
    if (volume && info.sparse.volumeInput == SparseVolumeInput::OctreeLeaves &&
        info.sparse.volumeFormat != VolumeFormat::U8)
        return bad("SparseVolumeInput::OctreeLeaves needs volumeFormat U8 (the octree's samples are 0 or 1)");
    if (user && evaluation == testing::FieldEvaluation::Buffer)
        return bad("needs FieldEvaluation::Fused or Auto (a sparse grid has no field buffer)");
    if (scan) return bad("needs ExtractionMethod::HistoPyramid");
    if (user && (!(info.lipschitz >= 0.f) || !std::isfinite(info.lipschitz)))
        return bad("needs a finite lipschitz >= 0 (0: every brick listed), got " + std::to_string(info.lipschitz));
    if (info.sparse.maxBricks > kMaxSparseBricks)
        return bad("maxBricks " + std::to_string(info.sparse.maxBricks) + " must be in 1.." +
                   std::to_string(kMaxSparseBricks) + " (0: sized by the module)");
    const char* axis = "xyz";
    for (int a = 0; a < 3; ++a)
        if (info.samples[a] - 1 > kMaxSparseCellsPerAxis)
            return bad(std::to_string(info.samples[a] - 1) + " cells along " + axis[a] + ", over the virtual grid's " +
                       std::to_string(kMaxSparseCellsPerAxis) + " per axis (10-bit brick coordinates)");
    return {};
}

// The capacities a sparse domain's create-info left 0, from the grid, the
// source and the device limits, within IsoSurfaceCreateInfo::memoryBudget: the
// volume pool (volumes) and the brick lists take at most half of it each
// way, the pool slots the rest; each stays within the limits
// planSparseDomain and IndexedStage::planSparse check. A user field without a
// Lipschitz bound lists every brick: all of them, or a named error.
Status IsoSurface::Impl::sizeSparseDomain(const DeviceLimits& lim, const std::string& dev) {
    SparseDomain& d = info.sparse;
    const uint64_t b = gpu::kIsoBrickCells;
    uint64_t bricks = 1;
    for (int a = 0; a < 3; ++a) bricks *= (uint64_t(info.samples[a]) - 1 + b - 1) / b;
    const uint64_t range = lim.maxStorageBufferRange;
    const uint64_t heap = heapBytes ? heapBytes : (4ull << 30);
    const uint64_t budget = info.memoryBudget ? info.memoryBudget : heap / 4;
    const bool particles = info.source == FieldSource::Particles, volume = info.source == FieldSource::Volume;
    const bool items = info.source == FieldSource::Metaballs || particles;
    const bool everyBrick = info.source == FieldSource::UserGlsl && info.lipschitz == 0.f;
    // Bytes per listed brick: its list entry, item lists and default
    // references, a particle block with its slot state, a volume's slot
    // word, indexed output's owner lookup (at most a half-full hash), the
    // pair mask and first place that order its slots (sparse_order.comp).
    uint64_t perBrick = 4 + 8;
    if (items)
        perBrick += 8 + 4 * uint64_t(particles ? kDefaultSparseParticleRefsPerBrick : kDefaultSparseBallRefsPerBrick);
    if (particles) perBrick += uint64_t(gpu::kIsoVolumeBrickSamples + gpu::kIsoCellWords) * 4 + 16;
    if (volume) perBrick += 4;
    if (info.indexed) perBrick += 8 * 4 + (gpu::kIsoBrickRowPairs + 8) * 4;
    // Bytes per pool slot: the pool's pyramid, the slot record, classify's
    // staging (brick_list.cpp), indexed output's vertex pyramid and first vertex.
    const uint64_t perSlot =
        sparsePyramidBytes(1u << 20) / (1u << 20) + 1 + 4 + 4 * gpu::kIsoSlotStageWords + (info.indexed ? 13 : 0);
    // The list and its pair masks and first places (8 bytes a brick: planSparseDomain).
    uint64_t brickCap = std::min<uint64_t>(kMaxSparseBricks, range / 8);
    if (items) brickCap = std::min<uint64_t>(brickCap, range / 16);
    if (particles)
        brickCap = std::min<uint64_t>(
            {brickCap, maxSparseParticleBricks(lim),
             (range / 4 - std::min<uint64_t>(range / 8, 2 * uint64_t(info.maxParticles))) / (gpu::kIsoCellWords + 1)});
    if (info.indexed) brickCap = std::min<uint64_t>(brickCap, maxSparseIndexedBricks(lim));
    uint64_t spent = 0;
    if (volume) {
        const uint64_t brickBytes = uint64_t(gpu::kIsoVolumeBrickSamples) * volumeFormatBytes(d.volumeFormat) + 16;
        if (d.maxVolumeBricks == 0) {
            uint64_t perPool = sparseBlocksPerPool(lim, d.volumeFormat);
            if (volumePoolBricksForced) perPool = std::min<uint64_t>(perPool, volumePoolBricksForced);
            const uint64_t most = std::min({bricks, gpu::kIsoVolumePools * perPool, range / 16,
                                            uint64_t(kMaxSparseBricks), budget / 2 / brickBytes});
            d.maxVolumeBricks = uint32_t(std::max<uint64_t>(most, 1));
        }
        spent += uint64_t(d.maxVolumeBricks) * brickBytes;
        // The list never holds more than the resident bricks.
        brickCap = std::min<uint64_t>(brickCap, d.maxVolumeBricks);
    }
    if (d.maxBricks == 0) {
        if (everyBrick) {
            if (bricks > brickCap || spent + bricks * perBrick > budget)
                return Status::error(
                    ErrorCode::DeviceLimit,
                    "isosurface '" + info.name + "': sparse domain: a user field without a Lipschitz bound lists " +
                        "every brick of the grid: " + std::to_string(bricks) + " bricks of 8^3 cells (" +
                        fmtBytes(bricks * perBrick) + "), over " +
                        (bricks > brickCap ? "the " + std::to_string(brickCap) + " bricks its lists hold" + dev
                                           : "memoryBudget (" + fmtBytes(budget) + ")") +
                        "; give lipschitz > 0 (only the bricks the bound cannot rule out) or fewer samples");
            d.maxBricks = uint32_t(bricks);
        } else {
            const uint64_t room = budget > spent ? (budget - spent) / 2 : 0;
            d.maxBricks = uint32_t(std::max<uint64_t>(std::min({bricks, brickCap, room / perBrick}), 1));
        }
    }
    spent += uint64_t(d.maxBricks) * perBrick;
    if (items && d.maxItemRefs == 0) {
        // A brick lists each ball or particle at most once: every ball (as
        // many particles as a brick may list) for every brick, within one
        // binding beside the lists and half the budget left.
        const uint64_t perBrickRefs =
            particles ? kMaxSparseItemsPerBrick : std::min<uint64_t>(info.maxBalls, kMaxSparseItemsPerBrick);
        const uint64_t listBytes = uint64_t(d.maxBricks) * 8;
        const uint64_t room = range > listBytes ? (range - listBytes) / 4 : 1;
        const uint64_t budgetRefs = budget > spent ? (budget - spent) / 2 / 4 : 1;
        d.maxItemRefs = uint32_t(std::max<uint64_t>(
            std::min({uint64_t(d.maxBricks) * perBrickRefs, room, budgetRefs, uint64_t(0xFFFFFFFFu)}), 1));
        spent += uint64_t(d.maxItemRefs) * 4;
    }
    if (d.maxRowPairs == 0) {
        const uint64_t room = budget > spent ? budget - spent : 0;
        d.maxRowPairs =
            uint32_t(std::max<uint64_t>(std::min({uint64_t(maxSparseRowPairs(lim)),
                                                  uint64_t(d.maxBricks) * gpu::kIsoBrickRowPairs, room / perSlot}),
                                        1));
    }
    return {};
}

static_assert(kMaxSparseItemsPerBrick == gpu::kIsoMaxBrickItems, "the public limit is the shaders'");
static_assert(kMaxSparseParticlesPerBrick == gpu::kIsoMaxParticleBrickItems, "the public limit is the shaders'");
static_assert(kSparseBrickCells == gpu::kIsoBrickCells, "the public brick size is the shaders'");

// The virtual grid's bricks and the sparse capacities in the grid, once the
// grid's cells are known.
Status IsoSurface::Impl::planSparseDomain(const DeviceLimits& lim, const std::string& dev) {
    gpu::IsoGrid& g = grid;
    const uint32_t b = gpu::kIsoBrickCells;
    const uint32_t bx = (g.cells.x + b - 1) / b, by = (g.cells.y + b - 1) / b, bz = (g.cells.z + b - 1) / b;
    g.sparse = {bx, by, bz, 1u};
    // Metaballs and particles: each listed brick's item list (2 words) and the references.
    const bool particleSource = info.source == FieldSource::Particles;
    const bool itemLists = info.source == FieldSource::Metaballs || particleSource;
    const uint32_t itemRefs = sparseItemRefCapacity(info, lim);
    // w: the item references, or (volumes) the pool's bricks, past which a frame overflows.
    g.sparseLimits = {info.sparse.maxBricks, info.sparse.maxRowPairs, bx * by * bz,
                      info.source == FieldSource::Volume ? info.sparse.maxVolumeBricks : itemRefs};
    const UintDivisor divX = uintDivisor(bx), divY = uintDivisor(by);
    g.brickDivisors = {divX.multiplier, divY.multiplier, divX.shifts, divY.shifts};
    const uint32_t s = gpu::kIsoSuperBricks;
    const uint32_t sx = (bx + s - 1) / s, sy = (by + s - 1) / s, sz = (bz + s - 1) / s;
    g.superBricks = {sx, sy, sz, sx * sy * sz};
    const UintDivisor superX = uintDivisor(sx), superY = uintDivisor(sy);
    g.superDivisors = {superX.multiplier, superY.multiplier, superX.shifts, superY.shifts};
    const uint64_t range = lim.maxStorageBufferRange;
    // The brick list, its order and the slot records (brick_list.cpp).
    PYRAMARCH_TRY(brickListing.plan(info, g, range, dev));
    if (itemLists) {
        const uint64_t itemBytes = uint64_t(info.sparse.maxBricks) * 8 + uint64_t(itemRefs) * 4;
        if (itemBytes > range)
            return Status::error(ErrorCode::DeviceLimit,
                                 "isosurface '" + info.name + "': sparse domain: the item lists of maxBricks " +
                                     std::to_string(info.sparse.maxBricks) + " and maxItemRefs " +
                                     std::to_string(itemRefs) + " need " + fmtBytes(itemBytes) +
                                     ", over maxStorageBufferRange (" + fmtBytes(range) + ")" + dev);
        sizes.sparseItemBytes = itemBytes;
    }
    if (info.source == FieldSource::Volume || particleSource) {
        // Volumes: each surface brick's 11^3 samples in the pool
        // (sparse_volume.cpp); particles: each listed brick's 11^3 samples,
        // evaluated every frame (sparse_particles_blocks.comp), F32. Up to
        // kIsoVolumePools buffers, each within one binding's range and one
        // texel view.
        const VolumeFormat format = blockPoolFormat();
        const uint64_t brickBytes = uint64_t(gpu::kIsoVolumeBrickSamples) * volumeFormatBytes(format);
        const uint64_t bricks = particleSource ? info.sparse.maxBricks : info.sparse.maxVolumeBricks;
        uint64_t perPool = sparseBlocksPerPool(lim, format);
        if (volumePoolBricksForced) perPool = std::min<uint64_t>(perPool, volumePoolBricksForced);
        const uint64_t pools = perPool ? (bricks + perPool - 1) / perPool : UINT64_MAX;
        const uint64_t surfaceBytes = particleSource ? 0 : bricks * 16;
        if (pools > gpu::kIsoVolumePools || surfaceBytes > range)
            return Status::error(ErrorCode::DeviceLimit,
                                 "isosurface '" + info.name + "': " +
                                     (particleSource
                                          ? "sparse particles: the sample blocks of maxBricks " +
                                                std::to_string(bricks) + " bricks (11^3 F32 samples each) need "
                                          : "sparse volume: the pool of maxVolumeBricks " + std::to_string(bricks) +
                                                " " + volumeFormatName(format) + " bricks of 11^3 samples needs ") +
                                     fmtBytes(bricks * brickBytes) + ", over " + std::to_string(gpu::kIsoVolumePools) +
                                     " buffers of maxStorageBufferRange (" + fmtBytes(range) + ")" + dev +
                                     "; at most " + std::to_string(gpu::kIsoVolumePools * perPool) + " bricks");
        sizes.volumeSurfaceBytes = surfaceBytes;
        sizes.volumePoolBricks = uint32_t(perPool);
        sizes.volumePoolCount = uint32_t(pools);
        sizes.volumePoolBytes = bricks * brickBytes;
        sizes.volumeSlotBytes = brickListing.listBytes; // a word per listed brick
        if (info.sparse.volumeInput == SparseVolumeInput::OctreeLeaves) {
            // A count and a slot per brick of the virtual grid (sparse_octree.cpp).
            PYRAMARCH_TRY(octree.plan(info, g, {bx, by, bz}, range, dev));
            octreeInput = true;
            volumeSource.format = gpu::kIsoVolumeU8;
        }
    }
    if (particleSource) PYRAMARCH_TRY(particles.planSparse(*this, g, lim, range, dev));
    if (indexed) PYRAMARCH_TRY(indexedOutput.planSparse(*this, lim, dev));
    return {};
}

Status IsoSurface::Impl::planLayout(const DeviceLimits& limits, const std::string& deviceName) {
    const IsoSurfaceCreateInfo& info = this->info;
    Impl& m = *this;
    const DeviceLimits& lim = limits;
    const char* axis = "xyz";
    for (int a = 0; a < 3; ++a) {
        if (info.samples[a] < 2)
            return Status::error(ErrorCode::InvalidArgument, "isosurface '" + info.name + "': samples." + axis[a] +
                                                                 " = " + std::to_string(info.samples[a]) +
                                                                 ", need at least 2 samples per axis");
        if (!std::isfinite(info.boundsMin[a]) || !std::isfinite(info.boundsMax[a]) ||
            !(info.boundsMax[a] > info.boundsMin[a]))
            return Status::error(ErrorCode::InvalidArgument, "isosurface '" + info.name + "': bounds along " + axis[a] +
                                                                 " must be finite with max > min");
    }
    if (info.framesInFlight < 1 || info.framesInFlight > 7)
        return Status::error(ErrorCode::InvalidArgument, "isosurface '" + info.name + "': framesInFlight must be 1..7");
    // The pyramid build reduces 1024 elements with 256 threads, above the 128
    // invocations a Vulkan device must allow (every desktop GPU allows 1024).
    const uint32_t widestGroup = std::max(gpu::kIsoBuildGroupSize, gpu::kIsoClassifyGroupSize);
    if (lim.maxComputeWorkGroupInvocations < widestGroup || lim.maxComputeWorkGroupSize[0] < widestGroup)
        return Status::error(
            ErrorCode::DeviceLimit,
            "isosurface '" + info.name + "': needs compute workgroups of " + std::to_string(widestGroup) +
                " invocations; the device allows " +
                std::to_string(std::min(lim.maxComputeWorkGroupInvocations, lim.maxComputeWorkGroupSize[0])) +
                " on device '" + deviceName + "'");
    if (info.timingFrames != 0 && (info.timingFrames <= info.framesInFlight || info.timingFrames > 64))
        return Status::error(ErrorCode::InvalidArgument,
                             "isosurface '" + info.name + "': timingFrames " + std::to_string(info.timingFrames) +
                                 " must exceed framesInFlight (" + std::to_string(info.framesInFlight) +
                                 ") and be at most 64, or 0");
    const uint64_t sx = info.samples[0], sy = info.samples[1], sz = info.samples[2];
    // sx * sy fits 64 bits; the third factor may not (e.g. 2^22 x 2^21 x 2^21
    // wraps to 0 and would pass the size check below): saturate instead.
    const uint64_t samples = sx * sy > 0xFFFFFFFFull ? (UINT64_MAX >> 2) : sx * sy * sz;
    const uint64_t cells = (sx - 1) * (sy - 1) * (sz - 1);
    const uint64_t range = lim.maxStorageBufferRange;
    const std::string dev = " of device '" + deviceName + "'";
    // Whole uvec4s, and 5 more: classify reads a row's samples 4 per texel,
    // 5 texels from the quad of its first sample (past the last row's end too).
    const uint64_t fieldBytes = ((samples + 3) / 4 + 5) * 16;
    const std::string gridText = std::to_string(sx) + "x" + std::to_string(sy) + "x" + std::to_string(sz);
    m.scanBaseline.enabled = extractionForced == testing::ExtractionMethod::Scan;
    m.sparse = info.sparse.enabled;
    // A grid that fits runs on the direct brick table: classify runs over
    // the bricks whose bounds straddle the iso value (a volume's samples,
    // the balls of metaballs, a user field's Lipschitz bound, the tiles the
    // particles' field pass found nonzero; metaballs and bounded user fields
    // through a buffer evaluate it only on the tiles listed bricks read).
    // The scan runs in cell order.
    m.direct = !m.sparse && !m.scanBaseline.enabled;
    if (m.sparse) PYRAMARCH_TRY(checkSparseDomain(info, m.scanBaseline.enabled, fieldEvaluationForced));
    if (m.sparse) PYRAMARCH_TRY(m.sizeSparseDomain(lim, dev));
    // User GLSL: field() fused into classify and extraction (no field
    // buffer), or a field pass; with a bound and a buffer, the tiles only.
    // A sparse domain has no field buffer to fall back on: fused, loops or not.
    // Sparse metaballs and particles sum each brick's items where a sample is read: fused too.
    m.fusedField =
        m.sparse ||
        (info.source == FieldSource::UserGlsl &&
         (fieldEvaluationForced == testing::FieldEvaluation::Fused ||
          (fieldEvaluationForced == testing::FieldEvaluation::Auto && !m.scanBaseline.enabled && !m.userField.loops)));
    // A fused field has no field buffer, so only the other buffers bound its
    // grid; sample indices are 32-bit in every pass either way.
    if (!m.fusedField && (fieldBytes > range || samples > 0xFFFFFFFFull))
        return m.gridTooLarge = true,
               Status::error(ErrorCode::DeviceLimit,
                             "isosurface '" + info.name + "': the field of " + gridText + " samples needs " +
                                 fmtBytes(fieldBytes) + ", over maxStorageBufferRange (" + fmtBytes(range) + ")" + dev +
                                 "; use fewer samples" +
                                 " or a sparse domain (IsoSurfaceCreateInfo::sparse: bricks near the surface only)");
    if (samples > 0xFFFFFFFFull && !m.sparse)
        return m.gridTooLarge = true,
               Status::error(ErrorCode::DeviceLimit, "isosurface '" + info.name + "': " + gridText +
                                                         " samples are more than 32-bit sample indices address");

    m.ring = info.framesInFlight + 1;
    m.indexed = info.indexed;
    if (m.scanBaseline.enabled && m.indexed)
        return Status::error(ErrorCode::InvalidArgument,
                             "isosurface '" + info.name + "': indexed output needs ExtractionMethod::HistoPyramid");
    PYRAMARCH_TRY(m.meshSmoothing.plan(info, m.indexed));

    gpu::IsoGrid& g = m.grid;
    // A sparse grid's totals may pass 32 bits: no pass of it reads them.
    g.samples = {uint32_t(sx), uint32_t(sy), uint32_t(sz), uint32_t(std::min<uint64_t>(samples, 0xFFFFFFFFu))};
    g.cells = {uint32_t(sx - 1), uint32_t(sy - 1), uint32_t(sz - 1), uint32_t(std::min<uint64_t>(cells, 0xFFFFFFFFu))};
    {
        const UintDivisor cellX = uintDivisor(g.cells.x), cellY = uintDivisor(g.cells.y);
        const UintDivisor sampleX = uintDivisor(g.samples.x), sampleY = uintDivisor(g.samples.y);
        g.cellDivisors = {cellX.multiplier, cellY.multiplier, cellX.shifts, cellY.shifts};
        g.sampleDivisors = {sampleX.multiplier, sampleY.multiplier, sampleX.shifts, sampleY.shifts};
    }
    g.boundsMin = {info.boundsMin[0], info.boundsMin[1], info.boundsMin[2], 0.f};
    g.spacing = {(info.boundsMax[0] - info.boundsMin[0]) / float(sx - 1),
                 (info.boundsMax[1] - info.boundsMin[1]) / float(sy - 1),
                 (info.boundsMax[2] - info.boundsMin[2]) / float(sz - 1), 0.f};
    for (int a = 0; a < 3; ++a) {
        const float h = a == 0 ? g.spacing.x : a == 1 ? g.spacing.y : g.spacing.z;
        if (!std::isfinite(h) || !(h > 0.f))
            return Status::error(ErrorCode::InvalidArgument, "isosurface '" + info.name + "': sample spacing along " +
                                                                 axis[a] + " is " + std::to_string(h) +
                                                                 " (bounds too large or too close for float)");
    }
    // Pyramid: level 0 = one element per cell, level k+1 = ceil(level k / 4), up to one element.
    // Levels 0 (MC case) and 1 (max 60) as u8: Cayley 255^3 84 -> 25 MiB.
    // Sparse: over the pool's slots of kIsoClassifyCells cells instead.
    // Direct bricks: over every brick's row pairs (32 of 16 cells a brick).
    const uint32_t brickCells = gpu::kIsoBrickCells;
    const uint64_t directBricks = uint64_t((sx - 1 + brickCells - 1) / brickCells) *
                                  ((sy - 1 + brickCells - 1) / brickCells) * ((sz - 1 + brickCells - 1) / brickCells);
    const uint64_t pyramidCells = m.sparse   ? uint64_t(info.sparse.maxRowPairs) * gpu::kIsoClassifyCells
                                  : m.direct ? directBricks * gpu::kIsoBrickRowPairs * gpu::kIsoClassifyCells
                                             : cells;
    uint64_t pyramidWords = 0;
    const uint64_t offset = pyramidLevels(pyramidCells, g, gpu::kIsoPackedLevels, &pyramidWords, true);
    if (offset == 0) return Status::error(ErrorCode::InvalidArgument, "isosurface '" + info.name + "': too many cells");
    // Whole uvec4s: extraction may read the pyramid as a texel buffer of quads.
    pyramidWords = (pyramidWords + 3) & ~uint64_t(3);
    const uint64_t pyramidBytes = pyramidWords * 4;
    if (pyramidBytes > range)
        return m.gridTooLarge = !m.sparse,
               Status::error(ErrorCode::DeviceLimit,
                             "isosurface '" + info.name + "': the pyramid over " +
                                 (m.sparse ? "sparse.maxRowPairs " + std::to_string(info.sparse.maxRowPairs) +
                                                 " (pool slots of " + std::to_string(gpu::kIsoClassifyCells) + " cells)"
                                           : std::to_string(cells) + " cells") +
                                 " needs " + fmtBytes(pyramidBytes) + ", over maxStorageBufferRange (" +
                                 fmtBytes(range) + ")" + dev);
    PYRAMARCH_TRY(planOutputs(lim, dev, info.vertexCapacity, info.indexCapacity, g, sizes));
    g.maxGroupsX =
        m.foldGroupsX ? std::min(m.foldGroupsX, lim.maxComputeWorkGroupCount[0]) : lim.maxComputeWorkGroupCount[0];
    g.normalMode = info.normals == NormalMode::Forward   ? gpu::kIsoNormalForward
                   : info.normals == NormalMode::Central ? gpu::kIsoNormalCentral
                   : info.normals == NormalMode::Sobel   ? gpu::kIsoNormalSobel
                                                         : gpu::kIsoNormalNone;
    g.statsSlots = m.ring;
    g.indexed = m.indexed ? 1u : 0u;
    g.baseMask = gpu::kIsoCountMask;
    g.scanOccupancy = m.scanBaseline.enabled ? 1u : 0u;
    // Empty-space skipping is the bricks' (the brick list, sparse.cpp); the
    // scan's cell-order classify visits every run (uniform volume runs
    // skipped by their bounds). Metaballs and Lipschitz-bounded user fields
    // through a buffer evaluate only the tiles the listed bricks read.
    if (m.indexed) {
        // Sparse: over the pool's cells, a slot in the place of a classify run.
        const uint64_t vertexCells = m.sparse || m.direct ? pyramidCells : cells;
        PYRAMARCH_TRY(m.indexedOutput.plan(m, vertexCells, range, dev));
    }

    switch (info.source) {
    case FieldSource::Metaballs: PYRAMARCH_TRY(m.metaballs.plan(m)); break;
    case FieldSource::Particles: PYRAMARCH_TRY(m.particles.plan(m, g, lim, dev)); break;
    case FieldSource::Volume: m.volumeSource.plan(m); break;
    case FieldSource::UserGlsl: PYRAMARCH_TRY(m.userField.plan(m)); break;
    }
    if (info.lipschitz != 0.f && info.source != FieldSource::UserGlsl)
        return Status::error(ErrorCode::InvalidArgument,
                             "isosurface '" + info.name + "': lipschitz applies to FieldSource::UserGlsl only");
    if (fieldEvaluationForced == testing::FieldEvaluation::Fused && info.source != FieldSource::UserGlsl)
        return Status::error(ErrorCode::InvalidArgument,
                             "isosurface '" + info.name +
                                 "': FieldEvaluation::Fused applies to FieldSource::UserGlsl only");
    if (fieldEvaluationForced == testing::FieldEvaluation::Fused && m.scanBaseline.enabled)
        return Status::error(
            ErrorCode::InvalidArgument,
            "isosurface '" + info.name +
                "': FieldEvaluation::Fused needs ExtractionMethod::HistoPyramid (the scan reads a field buffer)");
    g.maxItems = m.maxItems;
    g.itemSlotStride = m.external ? 0 : m.maxItems;
    if (m.scanBaseline.enabled) m.scanBaseline.plan(g);
    // Everything but the level tables is shared with the cell grid.
    if (m.indexed) m.indexedOutput.planGrid(g);
    if (m.maxItems && !m.external) {
        const uint64_t ringBytes = uint64_t(m.maxItems) * m.itemBytes() * m.ring;
        if (ringBytes > range)
            return Status::error(ErrorCode::DeviceLimit,
                                 "isosurface '" + info.name + "': " + std::to_string(m.maxItems) + " items x " +
                                     std::to_string(m.ring) + " frames need " + fmtBytes(ringBytes) +
                                     ", over maxStorageBufferRange (" + fmtBytes(range) + ")" + dev);
    }

    // Vertex totals are 32-bit sums (pyramid levels, the scan's offsets, the
    // args and the stats) and a cell emits at most 15 vertices, so a grid of
    // more than (2^32 - 1) / 15 cells could wrap them and extract the wrong
    // cells. Only a device whose storage range is near 4 GiB can hold such a
    // field (lavapipe's 128 MiB stops at ~33M samples); refuse it by name.
    constexpr uint64_t kMaxVerticesPerCell = 15;
    if (m.sparse) PYRAMARCH_TRY(m.planSparseDomain(lim, dev));
    if (m.direct) {
        // Every brick resident, brick index = place (sparse.cpp): the bricks
        // per axis and their index -> coordinates constants.
        const uint32_t bx = g.cells.x / brickCells + (g.cells.x % brickCells != 0),
                       by = g.cells.y / brickCells + (g.cells.y % brickCells != 0),
                       bz = g.cells.z / brickCells + (g.cells.z % brickCells != 0);
        g.sparse = {bx, by, bz, 0u};
        g.sparseLimits = {uint32_t(directBricks), uint32_t(directBricks * gpu::kIsoBrickRowPairs),
                          uint32_t(directBricks), 0u};
        const UintDivisor divX = uintDivisor(bx), divY = uintDivisor(by);
        g.brickDivisors = {divX.multiplier, divY.multiplier, divX.shifts, divY.shifts};
        if (pyramidCells * kMaxVerticesPerCell > 0xFFFFFFFFull)
            return m.gridTooLarge = true,
                   Status::error(ErrorCode::DeviceLimit,
                                 "isosurface '" + info.name + "': " + std::to_string(directBricks) + " bricks of " +
                                     std::to_string(gpu::kIsoBrickRowPairs * gpu::kIsoClassifyCells) +
                                     " cells could emit " + std::to_string(pyramidCells * kMaxVerticesPerCell) +
                                     " vertices, past the 32-bit counts of the pyramid");
    }
    if (pyramidCells * kMaxVerticesPerCell > 0xFFFFFFFFull && m.sparse)
        return Status::error(
            ErrorCode::InvalidArgument,
            "isosurface '" + info.name + "': sparse.maxRowPairs " + std::to_string(info.sparse.maxRowPairs) +
                " slots of " + std::to_string(gpu::kIsoClassifyCells) + " cells could emit " +
                std::to_string(pyramidCells * kMaxVerticesPerCell) +
                " vertices, past the 32-bit counts of the pyramid (at most " +
                std::to_string(0xFFFFFFFFull / kMaxVerticesPerCell / gpu::kIsoClassifyCells) + " slots)");
    if (cells * kMaxVerticesPerCell > 0xFFFFFFFFull && !m.sparse)
        return m.gridTooLarge = true,
               Status::error(ErrorCode::DeviceLimit,
                             "isosurface '" + info.name + "': " + std::to_string(cells) + " cells could emit " +
                                 std::to_string(cells * kMaxVerticesPerCell) +
                                 " vertices, past the 32-bit counts of the pyramid (at most " +
                                 std::to_string(0xFFFFFFFFull / kMaxVerticesPerCell) + " cells per surface)");
    // Dispatches fold their group count into x <= maxGroupsX and y. The
    // largest thread count of any pass bounds y: per sample (field, bounds,
    // resolve), per vertex or index (extract, indexed output), per item
    // (particles, balls) or per gather bin; per cell and per pyramid element
    // counts are smaller than per sample.
    // Indexed extraction runs one thread per triangle of the surface, whatever the capacities.
    const uint64_t indexedTriangles =
        m.indexed ? (m.sparse || m.direct ? pyramidCells : cells) * (kMaxVerticesPerCell / 3) : 0;
    // Sparse: no pass runs per sample; per brick (activate) and per listed row pair (classify).
    const uint64_t perSample =
        m.sparse ? std::max({uint64_t(g.sparseLimits.z), uint64_t(g.sparseLimits.x) * gpu::kIsoBrickRowPairs,
                             uint64_t(info.sparse.maxVolumeBricks)})
                 : samples;
    const uint64_t maxThreads = std::max({perSample, uint64_t(g.vertexCapacity), uint64_t(g.indexCapacity),
                                          uint64_t(m.maxItems), uint64_t(g.binDims.w), indexedTriangles});
    const uint64_t maxGroupsY = groupsOf(groupsOf(maxThreads, gpu::kIsoGroupSize), g.maxGroupsX);
    if (maxGroupsY > lim.maxComputeWorkGroupCount[1])
        return Status::error(ErrorCode::DeviceLimit,
                             "isosurface '" + info.name + "': " + std::to_string(maxThreads) +
                                 " threads in one pass fold to " + std::to_string(g.maxGroupsX) + " x " +
                                 std::to_string(maxGroupsY) + " workgroups, over maxComputeWorkGroupCount[1] (" +
                                 std::to_string(lim.maxComputeWorkGroupCount[1]) + ")" + dev);

    // Texel reads where one view covers the field (floats, the whole padded
    // buffer), one the pyramid (quads) and, for metaballs, one the ball ring
    // (2 texels per ball); otherwise storage reads (the .storage variants).
    const uint64_t ballTexels = info.source == FieldSource::Metaballs ? uint64_t(m.maxItems) * m.ring * 2 : 0;
    // (Sparse volumes: each pool buffer is sized for one texel view.)
    m.texelReads = !m.storageReadsForced && (m.fusedField || fieldBytes / 4 <= lim.maxTexelBufferElements) &&
                   pyramidWords / 4 <= lim.maxTexelBufferElements && ballTexels <= lim.maxTexelBufferElements;
    m.particles.planReads(m, lim);

    sizes.samples = samples;
    sizes.fieldBytes = m.fusedField ? 0 : fieldBytes;
    sizes.cells = m.sparse ? pyramidCells : cells;
    sizes.pyramidElements = offset;
    sizes.pyramidBytes = pyramidBytes;
    return {};
}

DeviceLimits denseLimits(const DeviceLimits& limits, uint64_t denseRangeBytes) {
    DeviceLimits lim = limits;
    if (denseRangeBytes) lim.maxStorageBufferRange = std::min(lim.maxStorageBufferRange, denseRangeBytes);
    return lim;
}

bool mayFallBackToSparse(const IsoSurface::Impl& dense, const Status& planned) {
    return !dense.info.sparse.enabled && !planned && dense.gridTooLarge;
}

Status neitherDomainFits(const Status& dense, const Status& sparse) {
    return Status::error(dense.code(), dense.message() + "; as a sparse domain: " + sparse.message());
}

Result<testing::LayoutPlan> testing::planLayout(const IsoSurfaceCreateInfo& info, const DeviceLimits& limits,
                                                const Knobs& knobs, const std::string& deviceName) {
    const auto setUp = [&](IsoSurface::Impl& m, const IsoSurfaceCreateInfo& ci) {
        m.info = ci;
        m.foldGroupsX = knobs.maxGroupsX;
        m.storageReadsForced = knobs.storageReads;
        m.denseFieldForced = knobs.denseField;
        m.volumePoolBricksForced = knobs.volumePoolBricks;
        m.outputSliceBytesForced = knobs.outputSliceBytes;
        m.heapBytes = knobs.deviceLocalHeapBytes;
        m.extractionForced = knobs.extraction;
        m.splatForced = knobs.splat;
        m.fieldEvaluationForced = knobs.fieldEvaluation;
    };
    IsoSurface::Impl dense, sparse;
    setUp(dense, info);
    const Status planned =
        dense.planLayout(info.sparse.enabled ? limits : denseLimits(limits, knobs.denseRangeBytes), deviceName);
    bool useSparse = false;
    if (!planned) {
        if (!mayFallBackToSparse(dense, planned)) return planned;
        IsoSurfaceCreateInfo ci = info;
        ci.sparse.enabled = true;
        setUp(sparse, ci);
        const Status fallback = sparse.planLayout(limits, deviceName);
        if (!fallback) return neitherDomainFits(planned, fallback);
        useSparse = true;
    }
    const IsoSurface::Impl& m = useSparse ? sparse : dense;
    LayoutPlan plan;
    plan.sparse = m.sparse ? m.info.sparse : SparseDomain{};
    for (uint32_t l = 0; l < m.grid.levelCount; ++l) plan.pyramidLevelSizes.push_back(m.grid.levels[l].y);
    plan.fieldBytes = m.sizes.fieldBytes;
    plan.pyramidBytes = m.sizes.pyramidBytes;
    plan.vertexBytes = m.sizes.vertexBytes;
    plan.vertexCapacity = m.grid.vertexCapacity;
    plan.vertexSlices = m.sizes.vertexSlices;
    plan.vertexSliceElements = m.sizes.vertexSliceElements;
    plan.indexBytes = m.indexed ? m.sizes.indexBytes : 0;
    plan.indexSlices = m.sizes.indexSlices;
    plan.indexSliceElements = m.sizes.indexSliceElements;
    plan.maxGroupsX = m.grid.maxGroupsX;
    plan.texelReads = m.texelReads;
    if (info.source == FieldSource::Particles)
        plan.splat = m.particles.gather ? SplatMethod::Gather : SplatMethod::Scatter;
    return plan;
}

} // namespace pyramarch::iso
