// Field source: particles, SplatMethod::Scatter. Passes
// "<name>.particles.clear" (first frame only: the accumulator starts as
// undefined memory), ".particles.splat" (one thread per particle, integer
// atomics into the accumulator) and ".particles.resolve" (accumulator ->
// field, clearing the accumulator for the next frame; one thread per tile of
// the gather's shape, which on the bricks also flags the tiles holding a
// nonzero sample for the brick list, sparse.cpp).
#include "iso_impl.h"

namespace pyramarch::iso {
namespace {
const uint32_t kSplatSpv[] =
#include "shaders/isosurface/particles_splat.comp.spv.inc"
    ;
const uint32_t kResolveSpv[] =
#include "shaders/isosurface/particles_resolve.comp.spv.inc"
    ;
} // namespace

Status IsoSurface::Impl::createSplatPipelines() {
    PYRAMARCH_TRY(makePipeline(fieldPipe, kSplatSpv, "particles.splat", 3));
    return makePipeline(resolve, kResolveSpv, "particles.resolve", 4);
}

void IsoSurface::Impl::addSplatPasses(RenderGraph& graph, const IsoRefs& refs) {
    const std::string& n = info.name;
    const ExternalUse computeRW{Access::StorageReadWrite, PassKind::Compute};
    const BufferRef accumRef = graph.importBuffer(n + ".accum", accum, computeRW, computeRW);
    // A fill at creation would need a queue: the first frame clears the
    // accumulator here, the resolve pass every frame after.
    graph.addPass(n + ".particles.clear", PassKind::Transfer)
        .use(accumRef, Access::TransferDst)
        .record([this, accumRef](PassContext& ctx) {
            beginFrame(ctx);
            if (self->recording_ == 0) ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(accumRef), 0, VK_WHOLE_SIZE, 0);
        });
    graph.addPass(n + ".particles.splat", PassKind::Compute)
        .pipeline(fieldPipe)
        .uniform(0, refs.grid)
        .storage(1, refs.items, R, 0, refs.itemRange)
        .storage(2, accumRef, RW)
        .record([this](PassContext& ctx) {
            ctx.pushConstants(push());
            dispatchFolded(ctx, groupsOf(itemCount, gpu::kIsoGroupSize), maxGroupsX());
        });
    const BufferRef tilesRef = importTileFlags(graph, refs);
    graph.addPass(n + ".particles.resolve", PassKind::Compute)
        .pipeline(resolve)
        .uniform(0, refs.grid)
        .storage(1, accumRef, RW)
        .storage(2, refs.field, W)
        .storage(3, tilesRef, W)
        .record([this](PassContext& ctx) {
            ctx.pushConstants(push());
            dispatchFolded(ctx, groupsOf(particleTiles(), gpu::kIsoGroupSize), maxGroupsX());
        });
}

} // namespace pyramarch::iso
