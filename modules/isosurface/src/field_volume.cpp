// Field source: raw volumes (field_volume.h). Pass "<name>.field.volume" converts the staged
// upload (u8/u16/f32, value * scale + offset) into the field, only on frames
// after uploadVolume(); the field persists in between. Pass
// "<name>.field.volume.bounds" then computes, for the scan's cell-order
// classify, the value bounds of each classify run (uniform runs are
// skipped, independent of the iso value). On the bricks the brick list
// bounds the bricks instead (brick_list.cpp).
#include "field_volume.h"

#include <cstring>

#include "iso_impl.h"

namespace pyramarch::iso {
namespace {
const uint32_t kVolumeSpv[] =
#include "shaders/isosurface/field_volume.comp.spv.inc"
    ;
const uint32_t kBoundsSpv[] =
#include "shaders/isosurface/volume_bounds.comp.spv.inc"
    ;
} // namespace

void VolumeProvider::plan(Impl& m) { m.grid.runBounds = !m.sparse && !m.direct ? 1u : 0u; }

Status VolumeProvider::createBoundsBuffers(Impl& m, const MakeBuffer& make) {
    if (!m.grid.runBounds) return {};
    const VkBufferUsageFlags readable = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    PYRAMARCH_TRY(make(runBounds, groupsOf(m.sizes.cells, gpu::kIsoClassifyCells) * 8, readable,
                       MemoryUsage::DeviceLocal, "run bounds"));
    // One entry per row of cells: at most one run goes on past each.
    return make(wrapBounds, uint64_t(m.grid.cells.y) * m.grid.cells.z * 8, readable, MemoryUsage::DeviceLocal,
                "wrap bounds");
}

Status VolumeProvider::createStandIn(const MakeBuffer& make) {
    // The staging comes with each upload (stage); this stands in for it.
    PYRAMARCH_TRY(make(rawIdle, 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, MemoryUsage::Upload, "volume staging"));
    format = gpu::kIsoVolumeNone;
    return {};
}

Status VolumeProvider::createPipelines(Impl& m) {
    PYRAMARCH_TRY(m.makePipeline(field, kVolumeSpv, "field.volume", 3));
    if (!m.grid.runBounds) return {}; // direct bricks: classify reads no value bounds
    return m.makePipeline(boundsPipe, kBoundsSpv, "field.volume.bounds", 4);
}

void VolumeProvider::importBuffers(Impl& m, RenderGraph& graph, IsoRefs& refs) {
    if (!m.grid.runBounds) return;
    const ExternalUse computeRead{Access::StorageRead, PassKind::Compute};
    refs.runBounds = graph.importBuffer(m.info.name + ".runBounds", runBounds, computeRead, computeRead);
    refs.wrapBounds = graph.importBuffer(m.info.name + ".wrapBounds", wrapBounds, computeRead, computeRead);
}

void VolumeProvider::addPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs) {
    const ExternalUse computeRead{Access::StorageRead, PassKind::Compute};
    const BufferRef staging = importStaging(m, graph, m.info.name + ".volume", computeRead);
    graph.addPass(m.info.name + ".field.volume", PassKind::Compute)
        .pipeline(field)
        .uniform(0, refs.grid)
        .storage(1, staging, R)
        .storage(2, refs.field, W)
        .record([this, &m](PassContext& ctx) {
            m.beginFrame(ctx);
            if (!dirty) return;
            dirty = false;
            boundsDirty = true;
            m.brickListing.boundsDirty = true; // bricks.bounds (brick_list.cpp)
            rawConvertedAt = m.recording();
            ctx.pushConstants(m.push());
            dispatchFolded(ctx, groupsOf(m.grid.samples.w, gpu::kIsoGroupSize), m.maxGroupsX());
        });
    if (!m.grid.runBounds) return;
    // Value bounds of each classify run, only on the frames that converted an
    // upload: the iso value is not involved, so changing it costs nothing here.
    graph.addPass(m.info.name + ".field.volume.bounds", PassKind::Compute)
        .pipeline(boundsPipe)
        .uniform(0, refs.grid)
        .storage(1, refs.field, R)
        .storage(2, refs.runBounds, W)
        .storage(3, refs.wrapBounds, W)
        .record([this, &m](PassContext& ctx) {
            if (!boundsDirty) return;
            boundsDirty = false;
            dispatchFolded(ctx, groupsOf(m.grid.cells.w, uint64_t(gpu::kIsoClassifyCells) * gpu::kIsoGroupSize),
                           m.maxGroupsX());
        });
}

// The staging as `graph` imports it: record()'s graph follows `raw` through
// rebinds; a host graph cannot, so it gets one of the largest upload (a
// pending upload copied over), kept for the surface's life.
BufferRef VolumeProvider::importStaging(Impl& m, RenderGraph& graph, const std::string& name, ExternalUse after) {
    if (!m.buildingOwnGraph && !rawPinned) {
        const VkDeviceSize full =
            m.sparse ? m.sizes.volumeSurfaceBytes + m.sizes.volumePoolBytes : (m.grid.samples.w * 4 + 3) / 4 * 4;
        if (!raw.valid() || raw.size() < full) {
            Buffer pending = std::move(raw);
            if (!stage(m, full)) {
                raw = std::move(pending); // out of memory: the graph gets what exists
            } else if (pending.valid()) {
                std::memcpy(raw.mapped(), pending.mapped(), pending.size());
                raw.flush();
            }
        }
        rawPinned = raw.valid();
    }
    const ExternalUse hostWrite{Access::HostWrite, PassKind::Compute};
    const BufferRef ref = graph.importBuffer(name, raw.valid() ? raw : rawIdle, hostWrite, after, true);
    if (m.buildingOwnGraph) {
        rawGraph = &graph;
        rawRef = ref;
    }
    return ref;
}

const char* VolumeProvider::stagingName(const Impl& m) const {
    return m.sparse ? "sparse volume staging" : "volume staging";
}

Status VolumeProvider::stage(Impl& m, size_t bytes) {
    const VkDeviceSize need = std::max<VkDeviceSize>((bytes + 3) / 4 * 4, 16);
    if (raw.valid() && raw.size() >= need) return {};
    const std::string name = m.info.name + "." + stagingName(m);
    // Sparse: copied by a transfer; dense: read by the conversion pass.
    const VkBufferUsageFlags usage = m.sparse ? VK_BUFFER_USAGE_TRANSFER_SRC_BIT : VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    auto b = m.device->allocator().createBuffer(
        {.size = need, .usage = usage, .memory = MemoryUsage::Upload, .name = name.c_str()});
    if (!b)
        return b.status().withContext("isosurface '" + m.info.name + "': creating the volume staging buffer (" +
                                      fmtBytes(need) + "): ");
    if (raw.valid()) { // a smaller one, perhaps still read by a frame in flight
        Impl::Replaced r;
        r.releaseAt = m.frameNow() + m.info.framesInFlight + 8;
        r.buffers.push_back(std::move(raw));
        m.replaced.push_back(std::move(r));
        m.noteReplaced();
    }
    raw = std::move(b).value();
    if (rawGraph) rawGraph->rebindImportedBuffer(rawRef, raw.handle(), raw.size());
    noteStaging(m);
    return {};
}

void VolumeProvider::releaseStaging(Impl& m) {
    // Kept while uploads keep coming (a streamed volume reuses it); released
    // once framesInFlight + 8 frames passed since its conversion, when that
    // frame is done by the framesInFlight contract.
    const bool pending = m.sparse ? m.sparseVolume.uploadPending : dirty;
    if (rawPinned || !raw.valid() || pending || rawConvertedAt == UINT64_MAX ||
        m.frameNow() < rawConvertedAt + m.info.framesInFlight + 8)
        return;
    if (rawGraph) rawGraph->rebindImportedBuffer(rawRef, rawIdle.handle(), rawIdle.size());
    raw = Buffer{};
    noteStaging(m);
}

void VolumeProvider::takeFrom(Impl& m, Impl& old) {
    // The same grid, so the same field: the new surface takes the old one's
    // (its frames in flight only read it) and any upload not yet converted.
    VolumeProvider& before = old.volumeSource;
    PYRAMARCH_ASSERT(old.field.size() == m.field.size(), "re-planned volume surface with another field size");
    std::swap(m.field, old.field);
    std::swap(raw, before.raw);
    format = before.format;
    scale = before.scale;
    offset = before.offset;
    dirty = before.dirty;
    rawConvertedAt = before.rawConvertedAt;
    boundsDirty = m.brickListing.boundsDirty = true; // this surface's bounds buffers are new
    noteStaging(m);
    before.noteStaging(old);
}

void VolumeProvider::noteStaging(Impl& m) const {
    for (IsoSurface::MemoryItem& item : m.memory)
        if (item.name == stagingName(m)) item.bytes = raw.valid() ? raw.size() : rawIdle.size();
}

} // namespace pyramarch::iso
