// Field source: raw volumes. Pass "<name>.field.volume" converts the staged
// upload (u8/u16/f32, value * scale + offset) into the field, only on frames
// after uploadVolume(); the field persists in between.
#include "iso_impl.h"

namespace pyramarch::iso {
namespace {
const uint32_t kVolumeSpv[] =
#include "shaders/isosurface/field_volume.comp.spv.inc"
    ;
} // namespace

Status IsoSurface::Impl::createVolumePipelines() { return makePipeline(fieldPipe, kVolumeSpv, "field.volume", 3); }

void IsoSurface::Impl::addVolumePasses(RenderGraph& graph, const IsoRefs& refs) {
    const ExternalUse hostWrite{Access::HostWrite, PassKind::Compute};
    const ExternalUse computeRead{Access::StorageRead, PassKind::Compute};
    const BufferRef rawRef = graph.importBuffer(info.name + ".volume", raw, hostWrite, computeRead, true);
    graph.addPass(info.name + ".field.volume", PassKind::Compute)
        .pipeline(fieldPipe)
        .storage(0, refs.grid, R)
        .storage(1, rawRef, R)
        .storage(2, refs.field, W)
        .record([this](PassContext& ctx) {
            beginFrame(ctx);
            if (!volumeDirty) return;
            volumeDirty = false;
            ctx.pushConstants(push());
            dispatchFolded(ctx, groupsOf(grid.samples.w, gpu::kIsoGroupSize), maxGroupsX());
        });
}

} // namespace pyramarch::iso
