// Pass "<name>.extract" (ExtractionMethod::HistoPyramid, non-indexed, on the
// direct brick table: sparse_extract.comp's dense build, its pipeline made in
// sparse.cpp): an indirect dispatch sized by the args pass, one thread per run
// of output triangles (gpu::isoExtractTrianglesFor: up to 32 on CPU drivers,
// 2 on GPUs) walking the pyramid top-down to the first one's cell, then cell
// by cell, written straight into the vertex buffer the draw reads. "<name>.vertices.clear" (NormalMode::None only):
// zeroes the vertex buffer on the first frame, the normals extract and the
// scan's generate then leave alone.
#include <cstddef>

#include "iso_impl.h"

namespace pyramarch::iso {
void IsoSurface::Impl::addNormalClearPass(RenderGraph& graph, const IsoRefs& refs) {
    // Without normals the vertex buffer's normal half never changes: zeroed
    // once (a fill at creation would need a queue, as for the particle
    // accumulator) instead of 16 bytes stored per vertex every frame.
    graph.addPass(info.name + ".vertices.clear", PassKind::Transfer)
        .use(refs.vertices, Access::TransferDst)
        .record([this, refs](PassContext& ctx) {
            if (self->recording_ == outputsFromFrame)
                ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(refs.vertices), 0, VK_WHOLE_SIZE, 0);
        });
}

void IsoSurface::Impl::addExtractPasses(RenderGraph& graph, const IsoRefs& refs) {
    PassBuilder pass = graph.addPass(info.name + ".extract", PassKind::Compute);
    pass.pipeline(extract).uniform(0, refs.grid).uniform(1, refs.tables);
    // sparse_extract.comp binds its brick buffers up to 11: its further
    // output slices start at 12.
    vertexSlices(pass, 4, 12, refs.vertices, W);
    if (texelReads) {
        pass.texel(3, refs.pyramid, VK_FORMAT_R32G32B32A32_UINT, Access::SampledRead);
        if (!fusedField) pass.texel(2, refs.field, VK_FORMAT_R32_SFLOAT, Access::SampledRead);
    } else {
        pass.storage(3, refs.pyramid, R);
        if (!fusedField) pass.storage(2, refs.field, R);
    }
    pass.use(refs.args, Access::IndirectRead).record(indirectDispatch(refs.args, offsetof(gpu::IsoArgs, dispatchX)));
}

} // namespace pyramarch::iso
