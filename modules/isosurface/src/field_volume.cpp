// Field source: raw volumes. Pass "<name>.field.volume" converts the staged
// upload (u8/u16/f32, value * scale + offset) into the field, only on frames
// after uploadVolume(); the field persists in between. Pass
// "<name>.field.volume.bounds" then computes, for the scan's cell-order
// classify, the value bounds of each classify run (uniform runs are
// skipped, independent of the iso value). On the bricks the brick list
// bounds the bricks instead (sparse.cpp).
#include "iso_impl.h"

#include <cstring>

namespace pyramarch::iso {
namespace {
const uint32_t kVolumeSpv[] =
#include "shaders/isosurface/field_volume.comp.spv.inc"
    ;
const uint32_t kBoundsSpv[] =
#include "shaders/isosurface/volume_bounds.comp.spv.inc"
    ;
} // namespace

Status IsoSurface::Impl::createVolumePipelines() {
    PYRAMARCH_TRY(makePipeline(fieldPipe, kVolumeSpv, "field.volume", 3));
    if (!grid.runBounds) return {}; // direct bricks: classify reads no value bounds
    PYRAMARCH_TRY(makePipeline(boundsPipe, kBoundsSpv, "field.volume.bounds", 4));
    return {};
}

void IsoSurface::Impl::addVolumePasses(RenderGraph& graph, const IsoRefs& refs) {
    const ExternalUse computeRead{Access::StorageRead, PassKind::Compute};
    const BufferRef rawRef = importVolumeStaging(graph, info.name + ".volume", computeRead);
    graph.addPass(info.name + ".field.volume", PassKind::Compute)
        .pipeline(fieldPipe)
        .uniform(0, refs.grid)
        .storage(1, rawRef, R)
        .storage(2, refs.field, W)
        .record([this](PassContext& ctx) {
            beginFrame(ctx);
            if (!volumeDirty) return;
            volumeDirty = false;
            boundsDirty = true;
            directBoundsDirty = true; // bricks.bounds (sparse.cpp)
            rawConvertedAt = self->recording_;
            ctx.pushConstants(push());
            dispatchFolded(ctx, groupsOf(grid.samples.w, gpu::kIsoGroupSize), maxGroupsX());
        });
    if (!grid.runBounds) return;
    // Value bounds of each classify run, only on the frames that converted an
    // upload: the iso value is not involved, so changing it costs nothing here.
    graph.addPass(info.name + ".field.volume.bounds", PassKind::Compute)
        .pipeline(boundsPipe)
        .uniform(0, refs.grid)
        .storage(1, refs.field, R)
        .storage(2, refs.runBounds, W)
        .storage(3, refs.wrapBounds, W)
        .record([this](PassContext& ctx) {
            if (!boundsDirty) return;
            boundsDirty = false;
            dispatchFolded(ctx, groupsOf(grid.cells.w, uint64_t(gpu::kIsoClassifyCells) * gpu::kIsoGroupSize),
                           maxGroupsX());
        });
}

// The staging as `graph` imports it: record()'s graph follows `raw` through
// rebinds; a host graph cannot, so it gets one of the largest upload (a
// pending upload copied over), kept for the surface's life.
BufferRef IsoSurface::Impl::importVolumeStaging(RenderGraph& graph, const std::string& name, ExternalUse after) {
    if (!buildingOwnGraph && !rawPinned) {
        const VkDeviceSize full =
            sparse ? sizes.volumeSurfaceBytes + sizes.volumePoolBytes : (grid.samples.w * 4 + 3) / 4 * 4;
        if (!raw.valid() || raw.size() < full) {
            Buffer pending = std::move(raw);
            if (!stageVolume(full)) {
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
    if (buildingOwnGraph) {
        rawGraph = &graph;
        rawRef = ref;
    }
    return ref;
}

Status IsoSurface::Impl::stageVolume(size_t bytes) {
    const VkDeviceSize need = std::max<VkDeviceSize>((bytes + 3) / 4 * 4, 16);
    if (raw.valid() && raw.size() >= need) return {};
    const std::string name = info.name + "." + stagingName();
    // Sparse: copied by a transfer; dense: read by the conversion pass.
    const VkBufferUsageFlags usage = sparse ? VK_BUFFER_USAGE_TRANSFER_SRC_BIT : VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    auto b = device->allocator().createBuffer(
        {.size = need, .usage = usage, .memory = MemoryUsage::Upload, .name = name.c_str()});
    if (!b)
        return b.status().withContext("isosurface '" + info.name + "': creating the volume staging buffer (" +
                                      fmtBytes(need) + "): ");
    if (raw.valid()) { // a smaller one, perhaps still read by a frame in flight
        Replaced r;
        r.releaseAt = self->frame_ + info.framesInFlight + 8;
        r.buffers.push_back(std::move(raw));
        replaced.push_back(std::move(r));
        noteReplaced();
    }
    raw = std::move(b).value();
    if (rawGraph) rawGraph->rebindImportedBuffer(rawRef, raw.handle(), raw.size());
    noteVolumeStaging();
    return {};
}

void IsoSurface::Impl::releaseVolumeStaging() {
    // Kept while uploads keep coming (a streamed volume reuses it); released
    // once framesInFlight + 8 frames passed since its conversion, when that
    // frame is done by the framesInFlight contract.
    const bool pending = sparse ? sparseVolume.uploadPending : volumeDirty;
    if (rawPinned || !raw.valid() || pending || rawConvertedAt == UINT64_MAX ||
        self->frame_ < rawConvertedAt + info.framesInFlight + 8)
        return;
    if (rawGraph) rawGraph->rebindImportedBuffer(rawRef, rawIdle.handle(), rawIdle.size());
    raw = Buffer{};
    noteVolumeStaging();
}

void IsoSurface::Impl::takeVolumeFrom(Impl& old) {
    // The same grid, so the same field: the new surface takes the old one's
    // (its frames in flight only read it) and any upload not yet converted.
    PYRAMARCH_ASSERT(old.field.size() == field.size(), "re-planned volume surface with another field size");
    std::swap(field, old.field);
    std::swap(raw, old.raw);
    volumeFormat = old.volumeFormat;
    volumeScale = old.volumeScale;
    volumeOffset = old.volumeOffset;
    volumeDirty = old.volumeDirty;
    rawConvertedAt = old.rawConvertedAt;
    boundsDirty = directBoundsDirty = true; // this surface's bounds buffers are new
    noteVolumeStaging();
    old.noteVolumeStaging();
}

void IsoSurface::Impl::noteVolumeStaging() {
    for (MemoryItem& item : memory)
        if (item.name == stagingName()) item.bytes = raw.valid() ? raw.size() : rawIdle.size();
}

} // namespace pyramarch::iso
