#include "pyramarch/isosurface/isosurface.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>

#include "isosurface/iso_shared.h"
#include "pyramarch/engine/device.h"
#include "pyramarch/engine/pipeline.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/engine/vulkan_functions.h"
#include "pyramarch/isosurface/mc_tables.h"

#ifdef PYRAMARCH_ISO_HAS_SHADER_COMPILER
#include "iso_glsl_text.h"
#include "pyramarch/engine/shader_compiler.h"
#endif

namespace pyramarch::iso {
namespace {

static const uint32_t kClassifySpv[] =
#include "shaders/isosurface/classify.comp.spv.inc"
    ;
static const uint32_t kBuildSpv[] =
#include "shaders/isosurface/pyramid_build.comp.spv.inc"
    ;
static const uint32_t kArgsSpv[] =
#include "shaders/isosurface/args.comp.spv.inc"
    ;
static const uint32_t kExtractSpv[] =
#include "shaders/isosurface/extract.comp.spv.inc"
    ;
static const uint32_t kScanDownSpv[] =
#include "shaders/isosurface/scan_down.comp.spv.inc"
    ;
static const uint32_t kGenerateSpv[] =
#include "shaders/isosurface/generate.comp.spv.inc"
    ;
static const uint32_t kCompactSpv[] =
#include "shaders/isosurface/compact.comp.spv.inc"
    ;
static const uint32_t kEdgesClassifySpv[] =
#include "shaders/isosurface/edges_classify.comp.spv.inc"
    ;
static const uint32_t kEdgeVerticesSpv[] =
#include "shaders/isosurface/edge_vertices.comp.spv.inc"
    ;
static const uint32_t kIndicesSpv[] =
#include "shaders/isosurface/indices.comp.spv.inc"
    ;
static const uint32_t kCountSpv[] =
#include "shaders/isosurface/particles_count.comp.spv.inc"
    ;
static const uint32_t kSortSpv[] =
#include "shaders/isosurface/particles_sort.comp.spv.inc"
    ;
static const uint32_t kGatherSpv[] =
#include "shaders/isosurface/particles_gather.comp.spv.inc"
    ;
static const uint32_t kMetaballsSpv[] =
#include "shaders/isosurface/field_metaballs.comp.spv.inc"
    ;
static const uint32_t kVolumeSpv[] =
#include "shaders/isosurface/field_volume.comp.spv.inc"
    ;
static const uint32_t kSplatSpv[] =
#include "shaders/isosurface/particles_splat.comp.spv.inc"
    ;
static const uint32_t kResolveSpv[] =
#include "shaders/isosurface/particles_resolve.comp.spv.inc"
    ;

using gpu::IsoGrid;
using gpu::IsoPush;

gpu::IsoTables packTables() {
    gpu::IsoTables t{};
    for (uint32_t c = 0; c < 256; ++c) {
        const int n = mc::vertexCount(c);
        t.caseVertexCount[c] = uint32_t(n);
        uint64_t nibbles = 0;
        for (int j = 0; j < n; ++j) nibbles |= uint64_t(mc::triangleEdge(c, j)) << (4 * j);
        t.caseEdges[c] = {uint32_t(nibbles), uint32_t(nibbles >> 32)};
    }
    for (int e = 0; e < 12; ++e) t.edgeCorners[e] = uint32_t(mc::kEdgeCorners[e][0]) | uint32_t(mc::kEdgeCorners[e][1]) << 4;
    for (int c = 0; c < 8; ++c)
        t.cornerOffset[c] = uint32_t(mc::kCornerOffset[c][0]) | uint32_t(mc::kCornerOffset[c][1]) << 1 |
                            uint32_t(mc::kCornerOffset[c][2]) << 2;
    return t;
}

std::string fmtBytes(uint64_t b) { return std::to_string(b) + " bytes"; }

// Level tables of a 4-ary pyramid over `count` base elements; returns the
// total element count, 0 when it needs more than kIsoMaxLevels levels.
uint64_t pyramidLevels(uint64_t count, IsoGrid& g) {
    uint64_t offset = 0, size = count;
    uint32_t levels = 0;
    while (true) {
        if (levels >= gpu::kIsoMaxLevels) return 0;
        g.levelOffset[levels] = uint32_t(offset);
        g.levelSize[levels] = uint32_t(size);
        offset += size;
        ++levels;
        if (size == 1) break;
        size = (size + 3) / 4;
    }
    g.levelCount = levels;
    return offset;
}

} // namespace

struct IsoSurface::Impl {
    Device* device = nullptr;
    std::vector<IsoSurface::MemoryItem> memory; // what create() allocated, for memoryReport()
    IsoSurfaceCreateInfo info;
    IsoGrid grid{};
    IsoGrid edgeGrid{}; // indexed: the grid with level tables over samples (edge pyramid)
    IsoGrid binGrid{};  // particle gather: the grid with level tables over bins
    IsoGrid occGrid{};  // scan: the grid with the occupancy tree's level tables (levels >= 1 from element 0)
    uint32_t ring = 3; // framesInFlight + 1 slots
    uint32_t maxItems = 0;

    Buffer tables, gridBuf, field, pyramid, counters, args, vertices, stats, items, accum, raw, offsets;
    Buffer edgeGridBuf, edgePyramid, indices; // indexed output
    Buffer binGridBuf, bins, binOffsets, slots, sorted; // particle gather
    Buffer occGridBuf, occupancy, occOffsets, active; // scan: occupancy tree, its prefixes, active-cell list

    ComputePipeline classify, build, argsPipe, extract, fieldPipe, resolve, scanDown, generate, compact;
    ComputePipeline edgesClassify, edgeVertices, indicesPipe;
    ComputePipeline countPipe, sortPipe, gatherPipe;
    bool gather = false;
    bool external = false; // ParticleInput::GpuBuffer: info.particleBuffer replaces the items ring
    bool scan = false;
    bool indexed = false;

    // Host copy of the per-frame items; ring slot s holds version slotVersion[s].
    std::vector<uint8_t> hostItems;
    uint32_t itemCount = 0;
    uint64_t itemsVersion = 1;
    std::vector<uint64_t> slotVersion;
    bool volumeDirty = true;
    uint32_t volumeFormat = gpu::kIsoVolumeF32;
    float volumeScale = 1.f, volumeOffset = 0.f;
    bool addedToGraph = false;

    VkDeviceSize itemBytes() const { return info.source == FieldSource::Metaballs ? sizeof(gpu::IsoBall) : sizeof(Particle); }
};

IsoSurface::IsoSurface() : impl_(std::make_unique<Impl>()) {}
IsoSurface::~IsoSurface() = default;

namespace {
uint32_t withHeadroom(uint32_t needed, float headroom) {
    // Whole triangles, rounded up so that the suggestion always holds `needed`.
    const double want = std::ceil(double(needed) * std::max(1.0f, std::isfinite(headroom) ? headroom : 1.0f) / 3.0) * 3.0;
    return uint32_t(std::min(want, double(0xFFFFFFFFu / 3u * 3u)));
}
} // namespace

uint32_t suggestCapacity(const IsoStats& stats, float headroom) { return withHeadroom(stats.verticesNeeded, headroom); }
uint32_t suggestIndexCapacity(const IsoStats& stats, float headroom) { return withHeadroom(stats.indicesNeeded, headroom); }

Result<std::vector<uint32_t>> compileUserField(const std::string& fieldGlsl, const std::string& name) {
    const std::string& n = name;
#ifndef PYRAMARCH_ISO_HAS_SHADER_COMPILER
    (void)fieldGlsl;
    return Status::error("isosurface '" + n + "': FieldSource::UserGlsl needs pyramarch built with PYRAMARCH_SHADER_COMPILER");
#else
    if (fieldGlsl.empty()) return Status::error("isosurface '" + n + "': fieldGlsl is empty");
    auto stripIncludes = [](std::string s) {
        size_t p;
        while ((p = s.find("#include")) != std::string::npos) s.erase(p, s.find('\n', p) - p);
        return s;
    };
    std::string src = "#version 460\n";
    src += kIsoText_iso_shared_h;
    src += stripIncludes(kIsoText_common_glsl);
    src += stripIncludes(kIsoText_field_common_glsl);
    src += R"(
layout(local_size_x = kIsoGroupSize) in;
layout(set = 0, binding = 0, std430) readonly buffer GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) writeonly buffer FieldBuf { float fieldOut[]; };
float iso_time;
vec4 iso_params[2];
float field(vec3 p);
void main() {
    iso_time = pc.time;
    iso_params[0] = pc.user0;
    iso_params[1] = pc.user1;
    uint index;
    vec3 p;
    if (!sampleIndex(grid, index, p)) return;
    fieldOut[index] = field(p);
}
#line 1
)";
    src += fieldGlsl;
    src += "\n";
    GlslSource gs;
    gs.text = src;
    gs.stage = ShaderStage::Compute;
    gs.name = n + ".fieldGlsl";
    auto spv = compileGlsl(gs);
    if (!spv) return Status::error("isosurface '" + n + "': user field GLSL does not compile:\n" + spv.message());
    return spv;
#endif
}

Result<std::unique_ptr<IsoSurface>> IsoSurface::create(Device& device, const IsoSurfaceCreateInfo& info) {
    const DeviceLimits& lim = device.limits();
    const char* axis = "xyz";
    for (int a = 0; a < 3; ++a) {
        if (info.samples[a] < 2)
            return Status::error("isosurface '" + info.name + "': samples." + axis[a] + " = " +
                                 std::to_string(info.samples[a]) + ", need at least 2 samples per axis");
        if (!std::isfinite(info.boundsMin[a]) || !std::isfinite(info.boundsMax[a]) || !(info.boundsMax[a] > info.boundsMin[a]))
            return Status::error("isosurface '" + info.name + "': bounds along " + axis[a] +
                                 " must be finite with max > min");
    }
    if (info.framesInFlight < 1 || info.framesInFlight > 7)
        return Status::error("isosurface '" + info.name + "': framesInFlight must be 1..7");
    const uint64_t sx = info.samples[0], sy = info.samples[1], sz = info.samples[2];
    // sx * sy fits 64 bits; the third factor may not (e.g. 2^22 x 2^21 x 2^21
    // wraps to 0 and would pass the size check below): saturate instead.
    const uint64_t samples = sx * sy > 0xFFFFFFFFull ? (UINT64_MAX >> 2) : sx * sy * sz;
    const uint64_t cells = (sx - 1) * (sy - 1) * (sz - 1);
    const uint64_t range = lim.maxStorageBufferRange;
    const std::string dev = " of device '" + device.name() + "'";
    if (samples * 4 > range || samples > 0xFFFFFFFFull)
        return Status::error("isosurface '" + info.name + "': the field of " + std::to_string(sx) + "x" + std::to_string(sy) +
                             "x" + std::to_string(sz) + " samples needs " + fmtBytes(samples * 4) +
                             ", over maxStorageBufferRange (" + fmtBytes(range) + ")" + dev +
                             "; fields are not split into bricks, use fewer samples");

    auto impl = std::unique_ptr<IsoSurface>(new IsoSurface());
    Impl& m = *impl->impl_;
    m.device = &device;
    m.info = info;
    m.ring = info.framesInFlight + 1;
    m.scan = info.method == ExtractionMethod::Scan;
    m.indexed = info.indexed;
    if (m.scan && m.indexed)
        return Status::error("isosurface '" + info.name + "': indexed output needs ExtractionMethod::HistoPyramid");
    impl->iso_ = info.isoValue;

    IsoGrid& g = m.grid;
    g.samples = {uint32_t(sx), uint32_t(sy), uint32_t(sz), uint32_t(samples)};
    g.cells = {uint32_t(sx - 1), uint32_t(sy - 1), uint32_t(sz - 1), uint32_t(cells)};
    g.boundsMin = {info.boundsMin[0], info.boundsMin[1], info.boundsMin[2], 0.f};
    g.spacing = {(info.boundsMax[0] - info.boundsMin[0]) / float(sx - 1), (info.boundsMax[1] - info.boundsMin[1]) / float(sy - 1),
                 (info.boundsMax[2] - info.boundsMin[2]) / float(sz - 1), 0.f};
    for (int a = 0; a < 3; ++a) {
        const float h = a == 0 ? g.spacing.x : a == 1 ? g.spacing.y : g.spacing.z;
        if (!std::isfinite(h) || !(h > 0.f))
            return Status::error("isosurface '" + info.name + "': sample spacing along " + axis[a] + " is " + std::to_string(h) +
                                 " (bounds too large or too close for float)");
    }
    // Pyramid: level 0 = one element per cell, level k+1 = ceil(level k / 4), up to one element.
    const uint64_t offset = pyramidLevels(cells, g);
    if (offset == 0) return Status::error("isosurface '" + info.name + "': too many cells");
    const uint64_t pyramidBytes = offset * 4;
    if (pyramidBytes > range)
        return Status::error("isosurface '" + info.name + "': the pyramid over " + std::to_string(cells) + " cells needs " +
                             fmtBytes(pyramidBytes) + ", over maxStorageBufferRange (" + fmtBytes(range) + ")" + dev);
    g.vertexCapacity = info.vertexCapacity / 3u * 3u;
    const uint64_t vertexBytes = std::max<uint64_t>(uint64_t(g.vertexCapacity) * sizeof(gpu::IsoVertex), sizeof(gpu::IsoVertex));
    if (vertexBytes > range || vertexBytes > lim.maxBufferSize)
        return Status::error("isosurface '" + info.name + "': vertexCapacity " + std::to_string(info.vertexCapacity) +
                             " needs " + fmtBytes(vertexBytes) + ", over maxStorageBufferRange (" + fmtBytes(range) + ")" + dev);
    g.maxGroupsX = info.maxGroupsX ? std::min(info.maxGroupsX, lim.maxComputeWorkGroupCount[0]) : lim.maxComputeWorkGroupCount[0];
    g.normalMode = info.normals == NormalMode::Forward ? gpu::kIsoNormalForward
                   : info.normals == NormalMode::Central ? gpu::kIsoNormalCentral
                                                         : gpu::kIsoNormalSobel;
    g.statsSlots = m.ring;
    g.indexed = m.indexed ? 1u : 0u;
    g.baseMask = gpu::kIsoCountMask;
    g.scanOccupancy = m.scan ? 1u : 0u;
    g.indexCapacity = m.indexed ? info.indexCapacity / 3u * 3u : 0u;
    uint64_t edgePyramidBytes = 0;
    const uint64_t indexBytes = std::max<uint64_t>(uint64_t(g.indexCapacity) * 4, 4);
    if (m.indexed) {
        const uint64_t edgeElements = pyramidLevels(samples, m.edgeGrid);
        edgePyramidBytes = edgeElements * 4;
        if (edgeElements == 0 || edgePyramidBytes > range)
            return Status::error("isosurface '" + info.name + "': the edge pyramid over " + std::to_string(samples) +
                                 " samples needs " + fmtBytes(edgePyramidBytes) + ", over maxStorageBufferRange (" +
                                 fmtBytes(range) + ")" + dev);
        if (indexBytes > range || indexBytes > lim.maxBufferSize)
            return Status::error("isosurface '" + info.name + "': indexCapacity " + std::to_string(info.indexCapacity) +
                                 " needs " + fmtBytes(indexBytes) + ", over maxStorageBufferRange (" + fmtBytes(range) + ")" + dev);
    }

    switch (info.source) {
    case FieldSource::Metaballs:
        if (info.maxBalls == 0) return Status::error("isosurface '" + info.name + "': maxBalls must be > 0 for metaballs");
        m.maxItems = info.maxBalls;
        break;
    case FieldSource::Particles:
        if (info.maxParticles == 0) return Status::error("isosurface '" + info.name + "': maxParticles must be > 0 for particles");
        if (!std::isfinite(info.particleRadius) || !(info.particleRadius > 0.f))
            return Status::error("isosurface '" + info.name + "': particleRadius must be finite and > 0");
        m.maxItems = info.maxParticles;
        m.external = info.particleInput == ParticleInput::GpuBuffer;
        if (m.external) {
            const Buffer* pb = info.particleBuffer;
            const uint64_t need = uint64_t(info.maxParticles) * sizeof(Particle);
            if (!pb || !pb->valid())
                return Status::error("isosurface '" + info.name + "': particleInput GpuBuffer needs particleBuffer");
            if (pb->size() < need)
                return Status::error("isosurface '" + info.name + "': particleBuffer holds " + fmtBytes(pb->size()) + ", maxParticles " +
                                     std::to_string(info.maxParticles) + " need " + fmtBytes(need));
            if (need > range)
                return Status::error("isosurface '" + info.name + "': maxParticles " + std::to_string(info.maxParticles) + " need " +
                                     fmtBytes(need) + ", over maxStorageBufferRange (" + fmtBytes(range) + ")" + dev);
        } else if (info.particleBuffer) {
            return Status::error("isosurface '" + info.name + "': particleBuffer is set but particleInput is Host");
        }
        g.particle = {info.particleRadius, 1.f / (info.particleRadius * info.particleRadius), 0.f, 0.f};
        m.gather = info.splat == SplatMethod::Gather;
        if (m.gather) {
            // Bins of the kernel radius over the bounds grown by the radius:
            // a sample's kernel reaches at most 3 bins per axis.
            const float r = info.particleRadius;
            uint64_t dims[3];
            for (int a = 0; a < 3; ++a) {
                const double extent = double(info.boundsMax[a]) - info.boundsMin[a] + 2.0 * r;
                dims[a] = uint64_t(std::ceil(extent / r)) + 1;
            }
            const uint64_t total = dims[0] * dims[1] * dims[2];
            if (total > (range / 4) / 2)
                return Status::error("isosurface '" + info.name + "': particle gather needs " + std::to_string(total) +
                                     " bins for particleRadius " + std::to_string(r) +
                                     ", their pyramid exceeds maxStorageBufferRange (" + fmtBytes(range) + ")" + dev +
                                     "; use a larger radius or SplatMethod::Scatter");
            g.binDims = {uint32_t(dims[0]), uint32_t(dims[1]), uint32_t(dims[2]), uint32_t(total)};
            g.binOrigin = {info.boundsMin[0] - r, info.boundsMin[1] - r, info.boundsMin[2] - r, r};
        }
        break;
    case FieldSource::Volume:
        break;
    case FieldSource::UserGlsl:
#ifndef PYRAMARCH_ISO_HAS_SHADER_COMPILER
        return Status::error("isosurface '" + info.name + "': FieldSource::UserGlsl needs pyramarch built with PYRAMARCH_SHADER_COMPILER");
#else
        if (info.fieldGlsl.empty()) return Status::error("isosurface '" + info.name + "': fieldGlsl is empty");
        break;
#endif
    }
    g.maxItems = m.maxItems;
    g.itemSlotStride = m.external ? 0 : m.maxItems;
    if (m.gather) {
        // Level tables over bins; bin counts are plain counts (no mask).
        IsoGrid b = g;
        pyramidLevels(g.binDims.w, b);
        b.baseMask = 0xffffffffu;
        m.binGrid = b;
    }
    if (m.scan) {
        // The occupancy tree has the cell pyramid's shape but no level 0 of
        // its own (occupancy is count != 0 of the cell pyramid's base): its
        // levels >= 1 start at element 0.
        IsoGrid o = g;
        for (uint32_t l = 1; l < g.levelCount; ++l) o.levelOffset[l] = g.levelOffset[l] - g.levelSize[0];
        o.levelOffset[0] = 0;
        m.occGrid = o;
    }
    if (m.indexed) {
        // Everything but the level tables is shared with the cell grid.
        IsoGrid e = g;
        std::memcpy(e.levelOffset, m.edgeGrid.levelOffset, sizeof(e.levelOffset));
        std::memcpy(e.levelSize, m.edgeGrid.levelSize, sizeof(e.levelSize));
        e.levelCount = m.edgeGrid.levelCount;
        m.edgeGrid = e;
    }
    if (m.maxItems && !m.external) {
        const uint64_t ringBytes = uint64_t(m.maxItems) * m.itemBytes() * m.ring;
        if (ringBytes > range)
            return Status::error("isosurface '" + info.name + "': " + std::to_string(m.maxItems) + " items x " +
                                 std::to_string(m.ring) + " frames need " + fmtBytes(ringBytes) +
                                 ", over maxStorageBufferRange (" + fmtBytes(range) + ")" + dev);
    }

    Allocator& alloc = device.allocator();
    const std::string& n = info.name;
    auto make = [&](Buffer& out, VkDeviceSize bytes, VkBufferUsageFlags usage, MemoryUsage mem, const std::string& what) -> Status {
        const std::string name = n + "." + what;
        auto b = alloc.createBuffer({.size = std::max<VkDeviceSize>(bytes, 16), .usage = usage, .memory = mem, .name = name.c_str()});
        if (!b) return Status::error("isosurface '" + n + "': creating " + what + " buffer (" + fmtBytes(bytes) + "): " + b.message(),
                                     b.status().vkResult());
        out = std::move(b).value();
        m.memory.push_back({what, out.size()});
        return {};
    };
    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    const VkBufferUsageFlags readable = storage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    PYRAMARCH_TRY(make(m.tables, sizeof(gpu::IsoTables), storage, MemoryUsage::Upload, "tables"));
    PYRAMARCH_TRY(make(m.gridBuf, sizeof(IsoGrid), storage, MemoryUsage::Upload, "grid"));
    PYRAMARCH_TRY(make(m.field, samples * 4, readable | VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUsage::DeviceLocal, "field"));
    PYRAMARCH_TRY(make(m.pyramid, pyramidBytes, readable, MemoryUsage::DeviceLocal, "pyramid"));
    PYRAMARCH_TRY(make(m.counters, sizeof(gpu::IsoCounters), storage, MemoryUsage::Upload, "counters"));
    PYRAMARCH_TRY(make(m.args, sizeof(gpu::IsoArgs), readable | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, MemoryUsage::DeviceLocal, "args"));
    if (m.indexed) {
        PYRAMARCH_TRY(make(m.edgeGridBuf, sizeof(IsoGrid), storage, MemoryUsage::Upload, "edge grid"));
        PYRAMARCH_TRY(make(m.edgePyramid, edgePyramidBytes, readable, MemoryUsage::DeviceLocal, "edge pyramid"));
        PYRAMARCH_TRY(make(m.indices, indexBytes, readable | VK_BUFFER_USAGE_INDEX_BUFFER_BIT, MemoryUsage::DeviceLocal, "indices"));
    }
    PYRAMARCH_TRY(make(m.vertices, vertexBytes, readable | VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, MemoryUsage::DeviceLocal, "vertices"));
    PYRAMARCH_TRY(make(m.stats, sizeof(gpu::IsoStatsGpu) * m.ring, storage, MemoryUsage::Readback, "stats"));
    if (m.maxItems && !m.external) PYRAMARCH_TRY(make(m.items, uint64_t(m.maxItems) * m.itemBytes() * m.ring, storage, MemoryUsage::Upload, "items"));
    // Scan baseline: prefixes of pyramid levels >= 1 (level 0's are finished in generate).
    if (m.scan) {
        const uint64_t upper = (offset - g.levelSize[0]) * 4;
        PYRAMARCH_TRY(make(m.offsets, upper, storage, MemoryUsage::DeviceLocal, "offsets"));
        PYRAMARCH_TRY(make(m.occGridBuf, sizeof(IsoGrid), storage, MemoryUsage::Upload, "occupancy grid"));
        PYRAMARCH_TRY(make(m.occupancy, upper, readable, MemoryUsage::DeviceLocal, "occupancy"));
        PYRAMARCH_TRY(make(m.occOffsets, upper, storage, MemoryUsage::DeviceLocal, "occupancy offsets"));
        // Every cell may be active (capacity: all cells).
        PYRAMARCH_TRY(make(m.active, uint64_t(cells) * 4, readable, MemoryUsage::DeviceLocal, "active cells"));
        std::memcpy(m.occGridBuf.mapped(), &m.occGrid, sizeof(IsoGrid));
        m.occGridBuf.flush();
    }
    if (info.source == FieldSource::Particles && !m.gather)
        PYRAMARCH_TRY(make(m.accum, samples * 4, storage | VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUsage::DeviceLocal, "accum"));
    if (m.gather) {
        const IsoGrid& b = m.binGrid;
        const uint64_t binElements = uint64_t(b.levelOffset[b.levelCount - 1]) + 1;
        PYRAMARCH_TRY(make(m.binGridBuf, sizeof(IsoGrid), storage, MemoryUsage::Upload, "bin grid"));
        PYRAMARCH_TRY(make(m.bins, binElements * 4, storage | VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUsage::DeviceLocal, "bins"));
        PYRAMARCH_TRY(make(m.binOffsets, (binElements - b.levelSize[0]) * 4, storage, MemoryUsage::DeviceLocal, "bin offsets"));
        PYRAMARCH_TRY(make(m.slots, uint64_t(m.maxItems) * 4, storage, MemoryUsage::DeviceLocal, "particle slots"));
        PYRAMARCH_TRY(make(m.sorted, uint64_t(m.maxItems) * 16, storage, MemoryUsage::DeviceLocal, "sorted particles"));
        std::memcpy(m.binGridBuf.mapped(), &m.binGrid, sizeof(IsoGrid));
        m.binGridBuf.flush();
    }
    if (info.source == FieldSource::Volume) PYRAMARCH_TRY(make(m.raw, (samples * 4 + 3) / 4 * 4, storage, MemoryUsage::Upload, "volume staging"));

    // Host-visible: written directly, no queue needed (an adopted device may have none).
    const gpu::IsoTables packed = packTables();
    std::memcpy(m.tables.mapped(), &packed, sizeof(packed));
    m.tables.flush();
    std::memcpy(m.gridBuf.mapped(), &g, sizeof(g));
    m.gridBuf.flush();
    if (m.indexed) {
        std::memcpy(m.edgeGridBuf.mapped(), &m.edgeGrid, sizeof(m.edgeGrid));
        m.edgeGridBuf.flush();
    }
    std::memset(m.counters.mapped(), 0, sizeof(gpu::IsoCounters));
    m.counters.flush();
    std::memset(m.stats.mapped(), 0, m.stats.size());
    m.stats.flush();
    if (m.raw.valid()) {
        std::memset(m.raw.mapped(), 0, m.raw.size());
        m.raw.flush();
    }
    m.slotVersion.assign(m.ring, 0);

    // Pipelines; each pass declares its buffers and bindings in addPasses().
    auto pipe = [&](ComputePipeline& out, std::span<const uint32_t> spv, const char* what, uint32_t bindings) -> Status {
        const std::string name = n + "." + what;
        ComputePipelineDesc d;
        d.spirv = spv;
        d.name = name.c_str();
        d.layout.bindings.assign(bindings, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
        d.layout.pushConstantBytes = sizeof(IsoPush);
        auto p = ComputePipeline::create(device, d);
        if (!p) return Status::error("isosurface '" + n + "': pipeline " + what + ": " + p.message(), p.status().vkResult());
        out = std::move(p).value();
        return {};
    };
    PYRAMARCH_TRY(pipe(m.classify, kClassifySpv, "classify", 6));
    PYRAMARCH_TRY(pipe(m.build, kBuildSpv, "pyramid", 2));
    PYRAMARCH_TRY(pipe(m.argsPipe, kArgsSpv, "args", 7));
    if (m.scan) {
        PYRAMARCH_TRY(pipe(m.scanDown, kScanDownSpv, "scan", 3));
        PYRAMARCH_TRY(pipe(m.generate, kGenerateSpv, "generate", 9));
        PYRAMARCH_TRY(pipe(m.compact, kCompactSpv, "compact", 4));
    } else if (m.indexed) {
        PYRAMARCH_TRY(pipe(m.edgesClassify, kEdgesClassifySpv, "edges.classify", 3));
        PYRAMARCH_TRY(pipe(m.edgeVertices, kEdgeVerticesSpv, "edges.vertices", 5));
        PYRAMARCH_TRY(pipe(m.indicesPipe, kIndicesSpv, "indices", 6));
    } else {
        PYRAMARCH_TRY(pipe(m.extract, kExtractSpv, "extract", 5));
    }
    switch (info.source) {
    case FieldSource::Metaballs: PYRAMARCH_TRY(pipe(m.fieldPipe, kMetaballsSpv, "field.metaballs", 3)); break;
    case FieldSource::Volume: PYRAMARCH_TRY(pipe(m.fieldPipe, kVolumeSpv, "field.volume", 3)); break;
    case FieldSource::Particles:
        if (m.gather) {
            PYRAMARCH_TRY(pipe(m.countPipe, kCountSpv, "particles.count", 5));
            PYRAMARCH_TRY(pipe(m.sortPipe, kSortSpv, "particles.sort", 6));
            PYRAMARCH_TRY(pipe(m.gatherPipe, kGatherSpv, "particles.gather", 5));
            if (!m.scanDown.pipeline()) PYRAMARCH_TRY(pipe(m.scanDown, kScanDownSpv, "scan", 3));
        } else {
            PYRAMARCH_TRY(pipe(m.fieldPipe, kSplatSpv, "particles.splat", 3));
            PYRAMARCH_TRY(pipe(m.resolve, kResolveSpv, "particles.resolve", 3));
        }
        break;
    case FieldSource::UserGlsl: {
#ifdef PYRAMARCH_ISO_HAS_SHADER_COMPILER
        auto spv = compileUserField(info.fieldGlsl, n);
        if (!spv) return spv.status();
        const std::vector<uint32_t> words = std::move(spv).value();
        PYRAMARCH_TRY(pipe(m.fieldPipe, words, "field.user", 2));
#endif
        break;
    }
    }

    return impl;
}

Status IsoSurface::setMetaballs(std::span<const Metaball> balls) {
    Impl& m = *impl_;
    PYRAMARCH_ASSERT(m.info.source == FieldSource::Metaballs, "setMetaballs on a surface whose source is not Metaballs");
    if (balls.size() > m.maxItems)
        return Status::error("isosurface '" + m.info.name + "': " + std::to_string(balls.size()) + " metaballs, maxBalls is " +
                             std::to_string(m.maxItems));
    m.hostItems.resize(balls.size() * sizeof(gpu::IsoBall));
    for (size_t i = 0; i < balls.size(); ++i) {
        const gpu::IsoBall b{{balls[i].center[0], balls[i].center[1], balls[i].center[2], balls[i].radius}, {balls[i].strength, 0, 0, 0}};
        std::memcpy(m.hostItems.data() + i * sizeof(b), &b, sizeof(b));
    }
    m.itemCount = uint32_t(balls.size());
    ++m.itemsVersion;
    return {};
}

Status IsoSurface::setParticles(std::span<const Particle> particles) {
    Impl& m = *impl_;
    PYRAMARCH_ASSERT(m.info.source == FieldSource::Particles, "setParticles on a surface whose source is not Particles");
    PYRAMARCH_ASSERT(!m.external, "setParticles on a surface with ParticleInput::GpuBuffer (use setParticleCount)");
    if (particles.size() > m.maxItems)
        return Status::error("isosurface '" + m.info.name + "': " + std::to_string(particles.size()) +
                             " particles, maxParticles is " + std::to_string(m.maxItems));
    m.hostItems.resize(particles.size_bytes());
    if (!particles.empty()) std::memcpy(m.hostItems.data(), particles.data(), particles.size_bytes());
    m.itemCount = uint32_t(particles.size());
    ++m.itemsVersion;
    return {};
}

Status IsoSurface::setParticleCount(uint32_t count) {
    Impl& m = *impl_;
    PYRAMARCH_ASSERT(m.info.source == FieldSource::Particles && m.external,
                     "setParticleCount on a surface without ParticleInput::GpuBuffer (use setParticles)");
    if (count > m.maxItems)
        return Status::error("isosurface '" + m.info.name + "': particle count " + std::to_string(count) + ", maxParticles is " +
                             std::to_string(m.maxItems));
    m.itemCount = count;
    return {};
}

Status IsoSurface::uploadVolume(const void* data, size_t bytes, VolumeFormat format, float scale, float offset) {
    Impl& m = *impl_;
    PYRAMARCH_ASSERT(m.info.source == FieldSource::Volume, "uploadVolume on a surface whose source is not Volume");
    const size_t each = format == VolumeFormat::U8 ? 1 : format == VolumeFormat::U16 ? 2 : 4;
    const size_t want = size_t(m.grid.samples.w) * each;
    if (bytes != want || (!data && bytes))
        return Status::error("isosurface '" + m.info.name + "': volume of " + std::to_string(bytes) + " bytes, expected " +
                             std::to_string(m.grid.samples.x) + "x" + std::to_string(m.grid.samples.y) + "x" +
                             std::to_string(m.grid.samples.z) + " samples x " + std::to_string(each) + " bytes = " +
                             std::to_string(want));
    if (!std::isfinite(scale) || !std::isfinite(offset))
        return Status::error("isosurface '" + m.info.name + "': volume scale/offset must be finite");
    std::memcpy(m.raw.mapped(), data, bytes);
    m.raw.flush();
    m.volumeFormat = format == VolumeFormat::U8 ? gpu::kIsoVolumeU8 : format == VolumeFormat::U16 ? gpu::kIsoVolumeU16 : gpu::kIsoVolumeF32;
    m.volumeScale = scale;
    m.volumeOffset = offset;
    m.volumeDirty = true;
    return {};
}

const Buffer& IsoSurface::vertexBuffer() const { return impl_->vertices; }
const Buffer& IsoSurface::drawArgsBuffer() const { return impl_->args; }
const Buffer& IsoSurface::indexBuffer() const {
    PYRAMARCH_ASSERT(impl_->indexed, "indexBuffer on a surface without indexed output");
    return impl_->indices;
}
uint32_t IsoSurface::vertexCapacity() const { return impl_->grid.vertexCapacity; }
std::vector<IsoSurface::MemoryItem> IsoSurface::memoryReport() const { return impl_->memory; }

namespace {
// Splits `groups` into x * y with x <= maxX (the shaders undo it with linearGroup()).
void dispatchFolded(const PassContext& ctx, uint64_t groups, uint32_t maxX) {
    if (groups == 0) return;
    const uint32_t x = uint32_t(std::min<uint64_t>(groups, maxX));
    const uint32_t y = uint32_t((groups + x - 1) / x);
    ctx.dispatch(x, y, 1);
}
constexpr Access R = Access::StorageRead, W = Access::StorageWrite, RW = Access::StorageReadWrite;
} // namespace

// The one place the frame counter advances: the first pass of every frame
// (each field source's first pass) calls it. Copies this frame's items into
// its ring slot when the slot is stale; by the framesInFlight contract the
// GPU is done with that slot.
void IsoSurface::beginFrame() {
    Impl& m = *impl_;
    recording_ = frame_++;
    if (!m.items.valid() || m.external) return;
    const uint32_t slot = uint32_t(recording_ % m.ring);
    if (m.slotVersion[slot] != m.itemsVersion) {
        const VkDeviceSize stride = VkDeviceSize(m.maxItems) * m.itemBytes();
        if (!m.hostItems.empty())
            std::memcpy(static_cast<uint8_t*>(m.items.mapped()) + stride * slot, m.hostItems.data(), m.hostItems.size());
        m.items.flush();
        m.slotVersion[slot] = m.itemsVersion;
    }
}

Result<IsoSurface::GraphOutputs> IsoSurface::addPasses(RenderGraph& graph, const GraphInputs& inputs) {
    Impl& m = *impl_;
    const std::string& n = m.info.name;
    if (m.addedToGraph)
        return Status::error(ErrorCode::InvalidState, "isosurface '" + n +
                                                          "': addPasses: the passes are already in a graph (addPasses or "
                                                          "record was called before); one graph per surface");
    if (m.external && !inputs.particles.valid())
        return Status::error(ErrorCode::InvalidArgument,
                             "isosurface '" + n +
                                 "': addPasses: ParticleInput::GpuBuffer needs GraphInputs::particles (the host's import of particleBuffer)");
    m.addedToGraph = true;
    const ExternalUse computeRead{Access::StorageRead, PassKind::Compute};
    const ExternalUse computeRW{Access::StorageReadWrite, PassKind::Compute};
    const ExternalUse hostWrite{Access::HostWrite, PassKind::Compute};
    const ExternalUse hostRead{Access::HostRead, PassKind::Compute};
    const ExternalUse indirect{Access::IndirectRead, PassKind::Graphics};
    const ExternalUse vertexRead{Access::VertexRead, PassKind::Graphics};

    // Persistent module buffers: `before` is the use they were left in by the
    // previous frame (= `after`), so consecutive frames are ordered.
    const BufferRef tables = graph.importBuffer(n + ".tables", m.tables, computeRead, computeRead, true);
    const BufferRef grid = graph.importBuffer(n + ".grid", m.gridBuf, computeRead, computeRead, true);
    const BufferRef field = graph.importBuffer(n + ".field", m.field, computeRead, computeRead);
    const BufferRef pyramid = graph.importBuffer(n + ".pyramid", m.pyramid, computeRead, computeRead);
    const BufferRef counters = graph.importBuffer(n + ".counters", m.counters, computeRW, computeRW);
    const BufferRef args = graph.importBuffer(n + ".args", m.args, indirect, indirect);
    const BufferRef vertices = graph.importBuffer(n + ".vertices", m.vertices, vertexRead, vertexRead);
    const BufferRef stats = graph.importBuffer(n + ".stats", m.stats, hostRead, hostRead);

    auto basePush = [this]() {
        const Impl& m = *impl_;
        IsoPush pc{};
        pc.iso = iso_;
        pc.time = time_;
        pc.itemCount = m.itemCount;
        pc.frame = uint32_t(recording_);
        pc.slot = uint32_t(recording_ % m.ring);
        pc.user0 = {user_[0], user_[1], user_[2], user_[3]};
        pc.user1 = {user_[4], user_[5], user_[6], user_[7]};
        if (m.info.source == FieldSource::Volume) {
            pc.volumeFormat = m.volumeFormat;
            pc.user0 = {m.volumeScale, m.volumeOffset, 0.f, 0.f};
        }
        return pc;
    };
    const uint32_t maxX = m.grid.maxGroupsX;
    const uint64_t sampleGroups = (uint64_t(m.grid.samples.w) + gpu::kIsoGroupSize - 1) / gpu::kIsoGroupSize;

    // --- field ---
    switch (m.info.source) {
    case FieldSource::Metaballs:
    case FieldSource::Particles: {
        const BufferRef items = m.external ? inputs.particles : graph.importBuffer(n + ".items", m.items, hostWrite, computeRead, true);
        // A host particle buffer may be larger than maxStorageBufferRange:
        // the descriptor covers only the particles the module may read.
        const VkDeviceSize itemRange = m.external ? VkDeviceSize(m.maxItems) * sizeof(Particle) : VK_WHOLE_SIZE;
        auto itemGroups = [this]() { return (uint64_t(impl_->itemCount) + gpu::kIsoGroupSize - 1) / gpu::kIsoGroupSize; };
        if (m.info.source == FieldSource::Metaballs) {
            graph.addPass(n + ".field.metaballs", PassKind::Compute)
                .pipeline(m.fieldPipe)
                .storage(0, grid, R)
                .storage(1, items, R)
                .storage(2, field, W)
                .record([this, basePush, maxX](PassContext& ctx) {
                    beginFrame();
                    ctx.pushConstants(basePush());
                    // One group per 4x4x4 tile of samples (field_metaballs.comp culls per tile).
                    const IsoGrid& g = impl_->grid;
                    const uint64_t tiles = uint64_t((g.samples.x + 3) / 4) * ((g.samples.y + 3) / 4) * ((g.samples.z + 3) / 4);
                    dispatchFolded(ctx, tiles, maxX);
                });
        } else if (m.gather) {
            // Counting sort into bins of the kernel radius, then a gather per sample.
            const BufferRef binGrid = graph.importBuffer(n + ".binGrid", m.binGridBuf, computeRead, computeRead, true);
            const BufferRef bins = graph.importBuffer(n + ".bins", m.bins, computeRead, computeRead);
            const BufferRef binOffsets = graph.importBuffer(n + ".binOffsets", m.binOffsets, computeRead, computeRead);
            const BufferRef slots = graph.importBuffer(n + ".slots", m.slots, computeRead, computeRead);
            const BufferRef sorted = graph.importBuffer(n + ".sorted", m.sorted, computeRead, computeRead);
            const IsoGrid& bg = m.binGrid;
            const uint64_t binElements = uint64_t(bg.levelOffset[bg.levelCount - 1]) + 1;
            graph.addPass(n + ".particles.clear", PassKind::Transfer)
                .use(bins, Access::TransferDst)
                .record([this, bins, binElements](PassContext& ctx) {
                    beginFrame();
                    ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(bins), 0, binElements * 4, 0);
                });
            graph.addPass(n + ".particles.count", PassKind::Compute)
                .pipeline(m.countPipe)
                .storage(0, binGrid, R)
                .storage(1, items, R, 0, itemRange)
                .storage(2, bins, RW)
                .storage(3, slots, W)
                .storage(4, binOffsets, R)
                .record([basePush, itemGroups, maxX](PassContext& ctx) {
                    ctx.pushConstants(basePush());
                    dispatchFolded(ctx, itemGroups(), maxX);
                });
            const uint32_t binTop = bg.levelCount - 1;
            for (uint32_t src = 0; src < binTop; src += gpu::kIsoBuildLevelsPerPass) {
                const uint32_t levels = std::min(gpu::kIsoBuildLevelsPerPass, binTop - src);
                const uint64_t groups = (uint64_t(bg.levelSize[src]) + gpu::kIsoBuildGroupSize * 4 - 1) / (gpu::kIsoBuildGroupSize * 4);
                graph.addPass(n + ".particles.bins." + std::to_string(src), PassKind::Compute)
                    .pipeline(m.build)
                    .storage(0, binGrid, R)
                    .storage(1, bins, RW)
                    .record([basePush, src, levels, groups, maxX](PassContext& ctx) {
                        IsoPush pc = basePush();
                        pc.srcLevel = src;
                        pc.numLevels = levels;
                        ctx.pushConstants(pc);
                        dispatchFolded(ctx, groups, maxX);
                    });
            }
            for (uint32_t k = binTop > 0 ? binTop - 1 : 0; k >= 1 && k < binTop; --k) {
                const uint64_t groups = (uint64_t(bg.levelSize[k]) + gpu::kIsoGroupSize - 1) / gpu::kIsoGroupSize;
                graph.addPass(n + ".particles.scan." + std::to_string(k), PassKind::Compute)
                    .pipeline(m.scanDown)
                    .storage(0, binGrid, R)
                    .storage(1, bins, R)
                    .storage(2, binOffsets, RW)
                    .record([basePush, k, groups, maxX](PassContext& ctx) {
                        IsoPush pc = basePush();
                        pc.srcLevel = k;
                        ctx.pushConstants(pc);
                        dispatchFolded(ctx, groups, maxX);
                    });
            }
            graph.addPass(n + ".particles.sort", PassKind::Compute)
                .pipeline(m.sortPipe)
                .storage(0, binGrid, R)
                .storage(1, items, R, 0, itemRange)
                .storage(2, bins, R)
                .storage(3, slots, R)
                .storage(4, binOffsets, R)
                .storage(5, sorted, W)
                .record([basePush, itemGroups, maxX](PassContext& ctx) {
                    ctx.pushConstants(basePush());
                    dispatchFolded(ctx, itemGroups(), maxX);
                });
            graph.addPass(n + ".particles.gather", PassKind::Compute)
                .pipeline(m.gatherPipe)
                .storage(0, binGrid, R)
                .storage(1, bins, R)
                .storage(2, binOffsets, R)
                .storage(3, sorted, R)
                .storage(4, field, W)
                .record([basePush, sampleGroups, maxX](PassContext& ctx) {
                    ctx.pushConstants(basePush());
                    dispatchFolded(ctx, sampleGroups, maxX);
                });
        } else {
            const BufferRef accum = graph.importBuffer(n + ".accum", m.accum, computeRW, computeRW);
            // The accumulator starts as undefined memory and a fill at creation
            // would need a queue: the first frame clears it here, the resolve
            // pass every frame after.
            graph.addPass(n + ".particles.clear", PassKind::Transfer)
                .use(accum, Access::TransferDst)
                .record([this, accum](PassContext& ctx) {
                    beginFrame();
                    if (recording_ == 0) ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(accum), 0, VK_WHOLE_SIZE, 0);
                });
            graph.addPass(n + ".particles.splat", PassKind::Compute)
                .pipeline(m.fieldPipe)
                .storage(0, grid, R)
                .storage(1, items, R, 0, itemRange)
                .storage(2, accum, RW)
                .record([basePush, itemGroups, maxX](PassContext& ctx) {
                    ctx.pushConstants(basePush());
                    dispatchFolded(ctx, itemGroups(), maxX);
                });
            graph.addPass(n + ".particles.resolve", PassKind::Compute)
                .pipeline(m.resolve)
                .storage(0, grid, R)
                .storage(1, accum, RW)
                .storage(2, field, W)
                .record([basePush, sampleGroups, maxX](PassContext& ctx) {
                    ctx.pushConstants(basePush());
                    dispatchFolded(ctx, sampleGroups, maxX);
                });
        }
        break;
    }
    case FieldSource::Volume: {
        const BufferRef raw = graph.importBuffer(n + ".volume", m.raw, hostWrite, computeRead, true);
        graph.addPass(n + ".field.volume", PassKind::Compute)
            .pipeline(m.fieldPipe)
            .storage(0, grid, R)
            .storage(1, raw, R)
            .storage(2, field, W)
            .record([this, basePush, sampleGroups, maxX](PassContext& ctx) {
                beginFrame();
                // The field persists; convert only after an upload.
                if (!impl_->volumeDirty) return;
                impl_->volumeDirty = false;
                ctx.pushConstants(basePush());
                dispatchFolded(ctx, sampleGroups, maxX);
            });
        break;
    }
    case FieldSource::UserGlsl:
        graph.addPass(n + ".field.user", PassKind::Compute)
            .pipeline(m.fieldPipe)
            .storage(0, grid, R)
            .storage(1, field, W)
            .record([this, basePush, sampleGroups, maxX](PassContext& ctx) {
                beginFrame();
                ctx.pushConstants(basePush());
                dispatchFolded(ctx, sampleGroups, maxX);
            });
        break;
    }

    // --- classify (also writes level 1: 4 cells per thread) ---
    const uint32_t top = m.grid.levelCount - 1;
    const uint32_t classifyLevels = std::min(1u, top);
    const uint64_t cellGroups = (uint64_t(m.grid.cells.w) + 4 * gpu::kIsoGroupSize - 1) / (4 * gpu::kIsoGroupSize);
    // Scan: the occupancy tree (classify writes its level 1).
    BufferRef occGrid, occupancy;
    if (m.scan) {
        occGrid = graph.importBuffer(n + ".occGrid", m.occGridBuf, computeRead, computeRead, true);
        occupancy = graph.importBuffer(n + ".occupancy", m.occupancy, computeRead, computeRead);
    }
    graph.addPass(n + ".classify", PassKind::Compute)
        .pipeline(m.classify)
        .storage(0, grid, R)
        .storage(1, tables, R)
        .storage(2, field, R)
        .storage(3, pyramid, W)
        .storage(4, counters, RW)
        .storage(5, m.scan ? occupancy : pyramid, W) // occupancy level 1 (scan), else unused: the pyramid stands in
        .record([basePush, cellGroups, maxX](PassContext& ctx) {
            ctx.pushConstants(basePush());
            dispatchFolded(ctx, cellGroups, maxX);
        });

    // --- pyramid build: one pass per kIsoBuildLevelsPerPass levels, from level `first` up ---
    // The cell pyramid, the occupancy tree and the edge pyramid share it.
    auto addPyramidBuild = [&](const std::string& prefix, BufferRef layout, BufferRef levelsBuf, const gpu::IsoGrid& g, uint32_t first) {
        const uint32_t topLevel = g.levelCount - 1;
        for (uint32_t src = first; src < topLevel; src += gpu::kIsoBuildLevelsPerPass) {
            const uint32_t levels = std::min(gpu::kIsoBuildLevelsPerPass, topLevel - src);
            const uint64_t groups = (uint64_t(g.levelSize[src]) + gpu::kIsoBuildGroupSize * 4 - 1) / (gpu::kIsoBuildGroupSize * 4);
            graph.addPass(prefix + std::to_string(src), PassKind::Compute)
                .pipeline(m.build)
                .storage(0, layout, R)
                .storage(1, levelsBuf, RW)
                .record([basePush, src, levels, groups, maxX](PassContext& ctx) {
                    IsoPush pc = basePush();
                    pc.srcLevel = src;
                    pc.numLevels = levels;
                    ctx.pushConstants(pc);
                    dispatchFolded(ctx, groups, maxX);
                });
        }
    };
    addPyramidBuild(n + ".pyramid.", grid, pyramid, m.grid, classifyLevels);
    // Scan: up-sweep of the occupancy tree (level 1 came from classify).
    if (m.scan) addPyramidBuild(n + ".occupancy.", occGrid, occupancy, m.occGrid, classifyLevels);

    // --- indexed: edge pyramid over samples (cut owned edges per sample) ---
    BufferRef edgeGrid, edgePyramid;
    if (m.indexed) {
        edgeGrid = graph.importBuffer(n + ".edgeGrid", m.edgeGridBuf, computeRead, computeRead, true);
        edgePyramid = graph.importBuffer(n + ".edgePyramid", m.edgePyramid, computeRead, computeRead);
        const uint64_t sampleGroups4 = (uint64_t(m.grid.samples.w) + 4 * gpu::kIsoGroupSize - 1) / (4 * gpu::kIsoGroupSize);
        graph.addPass(n + ".edges.classify", PassKind::Compute)
            .pipeline(m.edgesClassify)
            .storage(0, edgeGrid, R)
            .storage(1, field, R)
            .storage(2, edgePyramid, W)
            .record([basePush, sampleGroups4, maxX](PassContext& ctx) {
                ctx.pushConstants(basePush());
                dispatchFolded(ctx, sampleGroups4, maxX);
            });
        addPyramidBuild(n + ".edges.pyramid.", edgeGrid, edgePyramid, m.edgeGrid, std::min(1u, m.edgeGrid.levelCount - 1));
    }

    // --- args: bindings 5/6 are the edge pyramid (indexed), the occupancy
    // tree (scan), or unused (the cell pyramid stands in) ---
    graph.addPass(n + ".args", PassKind::Compute)
        .pipeline(m.argsPipe)
        .storage(0, grid, R)
        .storage(1, pyramid, R)
        .storage(2, counters, RW)
        .storage(3, args, W)
        .storage(4, stats, W)
        .storage(5, m.indexed ? edgeGrid : m.scan ? occGrid : grid, R)
        .storage(6, m.indexed ? edgePyramid : m.scan ? occupancy : pyramid, R)
        .record([basePush](PassContext& ctx) {
            ctx.pushConstants(basePush());
            ctx.dispatch(1);
        });

    if (m.indexed) {
        // --- indexed: unique vertices, then indices (both indirect) ---
        const BufferRef indices = graph.importBuffer(n + ".indices", m.indices, {Access::IndexRead, PassKind::Graphics},
                                                     {Access::IndexRead, PassKind::Graphics});
        graph.addPass(n + ".edges.vertices", PassKind::Compute)
            .pipeline(m.edgeVertices)
            .storage(0, edgeGrid, R)
            .storage(1, tables, R)
            .storage(2, field, R)
            .storage(3, edgePyramid, R)
            .storage(4, vertices, W)
            .use(args, Access::IndirectRead)
            .record([basePush, args](PassContext& ctx) {
                ctx.pushConstants(basePush());
                ctx.dispatchIndirect(args, offsetof(gpu::IsoArgs, dispatchX));
            });
        graph.addPass(n + ".indices", PassKind::Compute)
            .pipeline(m.indicesPipe)
            .storage(0, grid, R)
            .storage(1, tables, R)
            .storage(2, pyramid, R)
            .storage(3, edgeGrid, R)
            .storage(4, edgePyramid, R)
            .storage(5, indices, W)
            .use(args, Access::IndirectRead)
            .record([basePush, args](PassContext& ctx) {
                ctx.pushConstants(basePush());
                ctx.dispatchIndirect(args, offsetof(gpu::IsoArgs, indexDispatchX));
            });
        return GraphOutputs{vertices, args, indices};
    }

    if (m.scan) {
        // --- scan baseline (seed 003): down-sweeps of the vertex-count and
        // occupancy trees (levels top-1 .. 1; level 0 is finished by the
        // consumers), compaction of the active cells, then generate with one
        // thread per active cell (indirect, sized by the args pass) ---
        const BufferRef offsets = graph.importBuffer(n + ".offsets", m.offsets, computeRead, computeRead);
        const BufferRef occOffsets = graph.importBuffer(n + ".occOffsets", m.occOffsets, computeRead, computeRead);
        const BufferRef active = graph.importBuffer(n + ".active", m.active, computeRead, computeRead);
        for (uint32_t k = top > 0 ? top - 1 : 0; k >= 1 && k < top; --k) {
            const uint64_t groups = (uint64_t(m.grid.levelSize[k]) + gpu::kIsoGroupSize - 1) / gpu::kIsoGroupSize;
            auto down = [basePush, k, groups, maxX](PassContext& ctx) {
                IsoPush pc = basePush();
                pc.srcLevel = k;
                ctx.pushConstants(pc);
                dispatchFolded(ctx, groups, maxX);
            };
            // The two trees' down-sweeps are independent (no barrier between them).
            graph.addPass(n + ".scan." + std::to_string(k), PassKind::Compute)
                .pipeline(m.scanDown)
                .storage(0, grid, R)
                .storage(1, pyramid, R)
                .storage(2, offsets, RW)
                .record(down);
            graph.addPass(n + ".occupancy.scan." + std::to_string(k), PassKind::Compute)
                .pipeline(m.scanDown)
                .storage(0, occGrid, R)
                .storage(1, occupancy, R)
                .storage(2, occOffsets, RW)
                .record(down);
        }
        const uint64_t cellGroups1 = (uint64_t(m.grid.cells.w) + gpu::kIsoGroupSize - 1) / gpu::kIsoGroupSize;
        graph.addPass(n + ".compact", PassKind::Compute)
            .pipeline(m.compact)
            .storage(0, grid, R)
            .storage(1, pyramid, R)
            .storage(2, occOffsets, R)
            .storage(3, active, W)
            .record([basePush, cellGroups1, maxX](PassContext& ctx) {
                ctx.pushConstants(basePush());
                dispatchFolded(ctx, cellGroups1, maxX);
            });
        graph.addPass(n + ".generate", PassKind::Compute)
            .pipeline(m.generate)
            .storage(0, grid, R)
            .storage(1, tables, R)
            .storage(2, field, R)
            .storage(3, pyramid, R)
            .storage(4, offsets, R)
            .storage(5, vertices, W)
            .storage(6, active, R)
            .storage(7, occGrid, R)
            .storage(8, occupancy, R)
            .use(args, Access::IndirectRead)
            .record([basePush, args](PassContext& ctx) {
                ctx.pushConstants(basePush());
                ctx.dispatchIndirect(args, offsetof(gpu::IsoArgs, dispatchX));
            });
        return GraphOutputs{vertices, args, {}};
    }

    // --- extract ---
    graph.addPass(n + ".extract", PassKind::Compute)
        .pipeline(m.extract)
        .storage(0, grid, R)
        .storage(1, tables, R)
        .storage(2, field, R)
        .storage(3, pyramid, R)
        .storage(4, vertices, W)
        .use(args, Access::IndirectRead)
        .record([basePush, args](PassContext& ctx) {
            ctx.pushConstants(basePush());
            ctx.dispatchIndirect(args, offsetof(gpu::IsoArgs, dispatchX));
        });
    return GraphOutputs{vertices, args, {}};
}

Status IsoSurface::record(VkCommandBuffer cmd) {
    if (!internal_) {
        if (impl_->addedToGraph)
            return Status::error(ErrorCode::InvalidState, "isosurface '" + impl_->info.name +
                                                              "': record: the passes were added to a host graph; execute that graph instead");
        auto g = std::make_unique<RenderGraph>(impl_->device);
        GraphInputs in;
        if (impl_->external) {
            const ExternalUse computeWrite{Access::StorageWrite, PassKind::Compute};
            in.particles = g->importBuffer(impl_->info.name + ".particles", *impl_->info.particleBuffer, computeWrite, computeWrite, true);
        }
        PYRAMARCH_TRY(addPasses(*g, in).status());
        Status s = g->compile();
        if (!s) return s.withContext("isosurface '" + impl_->info.name + "': graph: ");
        internal_ = std::move(g);
    }
    return internal_->execute(cmd);
}

std::optional<IsoStats> IsoSurface::latestStats() const {
    const Impl& m = *impl_;
    if (frame_ < uint64_t(m.info.framesInFlight) + 1) return std::nullopt;
    return statsOfFrame(frame_ - 1 - m.info.framesInFlight);
}

std::optional<IsoStats> IsoSurface::statsOfFrame(uint64_t frame) const {
    const Impl& m = *impl_;
    if (frame >= frame_) return std::nullopt;
    m.stats.invalidate();
    gpu::IsoStatsGpu s;
    std::memcpy(&s, static_cast<const uint8_t*>(m.stats.mapped()) + sizeof(s) * (frame % m.ring), sizeof(s));
    if (!s.valid || s.frame != uint32_t(frame)) return std::nullopt;
    IsoStats out;
    out.frame = frame;
    out.verticesNeeded = s.verticesNeeded;
    out.verticesWritten = s.verticesWritten;
    out.activeCells = s.activeCells;
    out.overflow = s.overflow != 0;
    out.indicesNeeded = s.indicesNeeded;
    out.indicesWritten = s.indicesWritten;
    return out;
}

Result<Mesh> IsoSurface::readMesh(bool weld) {
    auto verts = readVertices();
    if (!verts) return verts.status();
    Mesh mesh;
    const std::vector<IsoVertexData>& v = verts.value();
    mesh.positions.resize(v.size());
    mesh.normals.resize(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
        mesh.positions[i] = {v[i].position[0], v[i].position[1], v[i].position[2]};
        mesh.normals[i] = {v[i].normal[0], v[i].normal[1], v[i].normal[2]};
    }
    if (impl_->indexed) {
        auto idx = readIndices();
        if (!idx) return idx.status();
        mesh.indices = std::move(idx).value();
    } else {
        mesh.indices.resize(v.size() / 3 * 3);
        for (uint32_t i = 0; i < mesh.indices.size(); ++i) mesh.indices[i] = i;
    }
    if (weld) return weldMesh(mesh);
    return mesh;
}

Result<std::vector<IsoVertexData>> IsoSurface::readVertices() {
    Impl& m = *impl_;
    auto args = readBufferAs<gpu::IsoArgs>(*m.device, m.args, 1);
    if (!args) return Status::error("isosurface '" + m.info.name + "': reading draw args: " + args.message(), args.status().vkResult());
    const uint32_t count = std::min(args.value()[0].verticesWritten, m.grid.vertexCapacity);
    std::vector<IsoVertexData> out(count);
    if (count) {
        Status s = readBuffer(*m.device, m.vertices, out.data(), VkDeviceSize(count) * sizeof(IsoVertexData));
        if (!s) return Status::error("isosurface '" + m.info.name + "': reading vertices: " + s.message(), s.vkResult());
    }
    return out;
}

Result<std::vector<uint32_t>> IsoSurface::readIndices() {
    Impl& m = *impl_;
    PYRAMARCH_ASSERT(m.indexed, "readIndices on a surface without indexed output");
    auto args = readBufferAs<gpu::IsoArgs>(*m.device, m.args, 1);
    if (!args) return Status::error("isosurface '" + m.info.name + "': reading draw args: " + args.message(), args.status().vkResult());
    const uint32_t count = std::min(args.value()[0].indexCount, m.grid.indexCapacity);
    std::vector<uint32_t> out(count);
    if (count) {
        Status s = readBuffer(*m.device, m.indices, out.data(), VkDeviceSize(count) * 4);
        if (!s) return Status::error("isosurface '" + m.info.name + "': reading indices: " + s.message(), s.vkResult());
    }
    return out;
}

Result<std::vector<float>> IsoSurface::readField() {
    Impl& m = *impl_;
    auto f = readBufferAs<float>(*m.device, m.field, m.grid.samples.w);
    if (!f) return Status::error("isosurface '" + m.info.name + "': reading field: " + f.message(), f.status().vkResult());
    return f;
}

Result<std::vector<std::vector<uint32_t>>> IsoSurface::readPyramid() {
    Impl& m = *impl_;
    const uint32_t top = m.grid.levelCount - 1;
    const uint64_t total = uint64_t(m.grid.levelOffset[top]) + 1;
    auto all = readBufferAs<uint32_t>(*m.device, m.pyramid, total);
    if (!all) return Status::error("isosurface '" + m.info.name + "': reading pyramid: " + all.message(), all.status().vkResult());
    std::vector<std::vector<uint32_t>> levels(m.grid.levelCount);
    for (uint32_t l = 0; l < m.grid.levelCount; ++l)
        levels[l].assign(all.value().begin() + m.grid.levelOffset[l], all.value().begin() + m.grid.levelOffset[l] + m.grid.levelSize[l]);
    return levels;
}

Result<std::vector<uint32_t>> IsoSurface::readActiveCells() {
    Impl& m = *impl_;
    PYRAMARCH_ASSERT(m.scan, "IsoSurface::readActiveCells needs ExtractionMethod::Scan");
    // The list's length is the occupancy total; the stats ring may lag, so
    // read it from the tree's top (or the single cell when there is no tree).
    const uint32_t top = m.grid.levelCount - 1;
    uint32_t count = 0;
    if (top == 0) {
        auto base = readBufferAs<uint32_t>(*m.device, m.pyramid, 1);
        if (!base) return Status::error("isosurface '" + m.info.name + "': reading pyramid: " + base.message());
        count = (base.value()[0] & gpu::kIsoCountMask) != 0 ? 1u : 0u;
    } else {
        auto occ = readBufferAs<uint32_t>(*m.device, m.occupancy, uint64_t(m.occGrid.levelOffset[top]) + 1);
        if (!occ) return Status::error("isosurface '" + m.info.name + "': reading occupancy: " + occ.message());
        count = occ.value()[m.occGrid.levelOffset[top]];
    }
    count = std::min(count, m.grid.cells.w);
    std::vector<uint32_t> out(count);
    if (count) {
        Status s = readBuffer(*m.device, m.active, out.data(), VkDeviceSize(count) * 4);
        if (!s) return Status::error("isosurface '" + m.info.name + "': reading active cells: " + s.message());
    }
    return out;
}

Result<std::vector<uint32_t>> IsoSurface::readDrawArgs() {
    Impl& m = *impl_;
    auto a = readBufferAs<uint32_t>(*m.device, m.args, sizeof(gpu::IsoArgs) / 4);
    if (!a) return Status::error("isosurface '" + m.info.name + "': reading args: " + a.message(), a.status().vkResult());
    return a;
}

} // namespace pyramarch::iso
