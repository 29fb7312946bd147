// Field source: raw volumes. Pass "<name>.field.volume" converts the staged
// upload (u8/u16/f32, value * scale + offset) into the field, only on frames
// after uploadVolume(); the field persists in between. Pass
// "<name>.field.volume.bounds" then computes the value bounds of each
// classify run (empty-space skipping, independent of the iso value), and
// "<name>.field.volume.bounds.patches" those of each classify patch (the
// activate pass lists the patches classify runs over; pyramid.cpp).
#include "iso_impl.h"

namespace pyramarch::iso {
namespace {
const uint32_t kVolumeSpv[] =
#include "shaders/isosurface/field_volume.comp.spv.inc"
    ;
const uint32_t kBoundsSpv[] =
#include "shaders/isosurface/volume_bounds.comp.spv.inc"
    ;
const uint32_t kPatchBoundsSpv[] =
#include "shaders/isosurface/patch_bounds.comp.spv.inc"
    ;
} // namespace

Status IsoSurface::Impl::createVolumePipelines() {
    PYRAMARCH_TRY(makePipeline(fieldPipe, kVolumeSpv, "field.volume", 3));
    if (!grid.runBounds) return {}; // direct bricks: classify reads no value bounds
    PYRAMARCH_TRY(makePipeline(boundsPipe, kBoundsSpv, "field.volume.bounds", 4));
    if (grid.patchList) PYRAMARCH_TRY(makePipeline(patchBoundsPipe, kPatchBoundsSpv, "field.volume.bounds.patches", 5));
    return {};
}

void IsoSurface::Impl::addVolumePasses(RenderGraph& graph, const IsoRefs& refs) {
    const ExternalUse hostWrite{Access::HostWrite, PassKind::Compute};
    const ExternalUse computeRead{Access::StorageRead, PassKind::Compute};
    const BufferRef rawRef = graph.importBuffer(info.name + ".volume", raw, hostWrite, computeRead, true);
    graph.addPass(info.name + ".field.volume", PassKind::Compute)
        .pipeline(fieldPipe)
        .uniform(0, refs.grid)
        .storage(1, rawRef, R)
        .storage(2, refs.field, W)
        .record([this](PassContext& ctx) {
            beginFrame(ctx);
            boundsDirty = volumeDirty;
            patchBoundsDirty = volumeDirty;
            directBoundsDirty = directBoundsDirty || volumeDirty; // bricks.bounds (sparse.cpp)
            if (!volumeDirty) return;
            volumeDirty = false;
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
    if (!grid.patchList) return;
    // The patches' bounds from their runs', on the same frames.
    graph.addPass(info.name + ".field.volume.bounds.patches", PassKind::Compute)
        .pipeline(patchBoundsPipe)
        .uniform(0, refs.grid)
        .storage(1, refs.runBounds, R)
        .storage(2, refs.patchBounds, W)
        .storage(3, refs.wrapBounds, R)
        .storage(4, refs.patchWrapBounds, W)
        .record([this](PassContext& ctx) {
            if (!patchBoundsDirty) return;
            patchBoundsDirty = false;
            dispatchFolded(ctx, groupsOf(grid.patchCount, gpu::kIsoGroupSize), maxGroupsX());
        });
}

} // namespace pyramarch::iso
