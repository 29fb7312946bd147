// Mesh smoothing of the indexed output (IsoSurfaceCreateInfo::meshSmoothing),
// after "<name>.indices": "<name>.mesh.smooth.clear" (the accumulator's
// first-frame fill), then per iteration i "<name>.mesh.smooth.<i>.lambda.sum"
// / ".move" and "<name>.mesh.smooth.<i>.mu.sum" / ".move", then
// "<name>.mesh.smooth.normals.sum" / ".move" unless NormalMode::None. Sum
// passes run one thread per index (the index pass's indirect dispatch), move
// passes one per vertex (the vertex pass's): sized by the GPU's own counts.
#include <cstddef>

#include "iso_impl.h"

namespace pyramarch::iso {
namespace {
const uint32_t kMeshSmoothSumSpv[] =
#include "shaders/isosurface/mesh_smooth_sum.comp.spv.inc"
    ;
const uint32_t kMeshSmoothMoveSpv[] =
#include "shaders/isosurface/mesh_smooth_move.comp.spv.inc"
    ;
} // namespace

Status IsoSurface::Impl::createMeshSmoothPipelines() {
    PYRAMARCH_TRY(makePipeline(meshSumPipe, kMeshSmoothSumSpv, "mesh.smooth.sum", 5));
    return makePipeline(meshMovePipe, kMeshSmoothMoveSpv, "mesh.smooth.move", 4);
}

void IsoSurface::Impl::addMeshSmoothPasses(RenderGraph& graph, const IsoRefs& refs, BufferRef indicesRef) {
    const std::string prefix = info.name + ".mesh.smooth.";
    const ExternalUse computeRW{Access::StorageReadWrite, PassKind::Compute};
    const BufferRef accum = graph.importBuffer(info.name + ".meshAccum", meshAccum, computeRW, computeRW);
    // Every move pass leaves the accumulator zero for the next sum; only its
    // first frame needs a fill (the buffer's initial contents are undefined).
    graph.addPass(prefix + "clear", PassKind::Transfer)
        .use(accum, Access::TransferDst)
        .record([this, accum](PassContext& ctx) {
            if (self->recording_ == 0) ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(accum), 0, VK_WHOLE_SIZE, 0);
        });
    auto step = [&](const std::string& name, uint32_t mode, float factor) {
        graph.addPass(prefix + name + ".sum", PassKind::Compute)
            .pipeline(meshSumPipe)
            .storage(0, refs.grid, R)
            .storage(1, refs.args, R)
            .storage(2, indicesRef, R)
            .storage(3, refs.vertices, R)
            .storage(4, accum, RW)
            .use(refs.args, Access::IndirectRead)
            .record([this, args = refs.args, mode](PassContext& ctx) {
                gpu::IsoPush p = push();
                p.srcLevel = mode;
                ctx.pushConstants(p);
                ctx.dispatchIndirect(args, offsetof(gpu::IsoArgs, indexDispatchX));
            });
        graph.addPass(prefix + name + ".move", PassKind::Compute)
            .pipeline(meshMovePipe)
            .storage(0, refs.grid, R)
            .storage(1, refs.args, R)
            .storage(2, accum, RW)
            .storage(3, refs.vertices, RW)
            .use(refs.args, Access::IndirectRead)
            .record([this, args = refs.args, mode, factor](PassContext& ctx) {
                gpu::IsoPush p = push();
                p.srcLevel = mode;
                p.user0 = {factor, 0.f, 0.f, 0.f};
                ctx.pushConstants(p);
                ctx.dispatchIndirect(args, offsetof(gpu::IsoArgs, dispatchX));
            });
    };
    const MeshSmoothing& ms = info.meshSmoothing;
    for (uint32_t i = 0; i < ms.iterations; ++i) {
        step(std::to_string(i) + ".lambda", gpu::kIsoMeshStepMove, ms.lambda);
        // mu = 0 is the plain Laplacian: its step would move nothing.
        if (ms.mu != 0.f) step(std::to_string(i) + ".mu", gpu::kIsoMeshStepMove, ms.mu);
    }
    if (grid.normalMode != gpu::kIsoNormalNone) step("normals", gpu::kIsoMeshStepNormals, 0.f);
}

} // namespace pyramarch::iso
