// Pass "<name>.extract" (ExtractionMethod::HistoPyramid, non-indexed): an
// indirect dispatch sized by the args pass, one thread per two output
// triangles (kIsoExtractTriangles) walking the pyramid top-down to their
// cells, the two walks interleaved, written straight into the vertex buffer
// the draw reads. "<name>.vertices.clear" (NormalMode::None only):
// zeroes the vertex buffer on the first frame, the normals extract and the
// scan's generate then leave alone.
#include <cstddef>

#include "iso_glsl_text.h"
#include "iso_impl.h"

namespace pyramarch::iso {
namespace {
const uint32_t kExtractSpv[] =
#include "shaders/isosurface/extract.comp.spv.inc"
    ;
const uint32_t kExtractStorageSpv[] =
#include "shaders/isosurface/extract.storage.comp.spv.inc"
    ;
} // namespace

Status IsoSurface::Impl::createExtractPipelines() {
    if (fusedField) {
        PYRAMARCH_TRY_ASSIGN(const std::vector<uint32_t> fused, fusedSpirv(kIsoText_extract_comp, "extract"));
        return makePipeline(extract, fused, "extract", 5 + kSliceBindings);
    }
    return makePipeline(extract, texelReads ? std::span<const uint32_t>(kExtractSpv) : kExtractStorageSpv, "extract",
                        5 + kSliceBindings);
}

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
    // The direct brick table's build (sparse_extract.comp) binds its brick
    // buffers up to 11: its further output slices start at 12.
    vertexSlices(pass, 4, direct ? 12 : 5, refs.vertices, W);
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
