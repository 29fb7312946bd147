// Pass "<name>.extract" (ExtractionMethod::HistoPyramid, non-indexed): an
// indirect dispatch sized by the args pass, one thread per output triangle
// walking the pyramid top-down to its cell, written straight into the vertex
// buffer the draw reads. "<name>.vertices.clear" (NormalMode::None only):
// zeroes the vertex buffer on the first frame, the normals extract and the
// scan's generate then leave alone.
#include <cstddef>

#include "iso_impl.h"

namespace pyramarch::iso {
namespace {
const uint32_t kExtractSpv[] =
#include "shaders/isosurface/extract.comp.spv.inc"
    ;
} // namespace

Status IsoSurface::Impl::createExtractPipelines() { return makePipeline(extract, kExtractSpv, "extract", 5); }

void IsoSurface::Impl::addNormalClearPass(RenderGraph& graph, const IsoRefs& refs) {
    // Without normals the vertex buffer's normal half never changes: zeroed
    // once (a fill at creation would need a queue, as for the particle
    // accumulator) instead of 16 bytes stored per vertex every frame.
    graph.addPass(info.name + ".vertices.clear", PassKind::Transfer)
        .use(refs.vertices, Access::TransferDst)
        .record([this, refs](PassContext& ctx) {
            if (self->recording_ == 0) ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(refs.vertices), 0, VK_WHOLE_SIZE, 0);
        });
}

void IsoSurface::Impl::addExtractPasses(RenderGraph& graph, const IsoRefs& refs) {
    graph.addPass(info.name + ".extract", PassKind::Compute)
        .pipeline(extract)
        .storage(0, refs.grid, R)
        .storage(1, refs.tables, R)
        .storage(2, refs.field, R)
        .storage(3, refs.pyramid, R)
        .storage(4, refs.vertices, W)
        .use(refs.args, Access::IndirectRead)
        .record(indirectDispatch(refs.args, offsetof(gpu::IsoArgs, dispatchX)));
}

} // namespace pyramarch::iso
