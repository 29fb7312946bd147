// Field source: particles, SplatMethod::Scatter. Passes
// "<name>.particles.clear" (first frame only: the accumulator starts as
// undefined memory), ".particles.splat" (one thread per particle, integer
// atomics into the accumulator) and ".particles.resolve" (accumulator ->
// field, clearing the accumulator for the next frame; one thread per tile of
// the gather's shape, which on the bricks also flags the tiles holding a
// nonzero sample for the brick list, brick_list.cpp).
#include "field_particles.h"
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

Status ParticleProvider::createSplatPipelines(Impl& m) {
    PYRAMARCH_TRY(m.makePipeline(splatPipe, kSplatSpv, "particles.splat", 3));
    return m.makePipeline(resolvePipe, kResolveSpv, "particles.resolve", 4);
}

void ParticleProvider::addSplatPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs) {
    const std::string& n = m.info.name;
    Impl* const im = &m;
    const ExternalUse computeRW{Access::StorageReadWrite, PassKind::Compute};
    const BufferRef accumRef = graph.importBuffer(n + ".accum", accum, computeRW, computeRW);
    // A fill at creation would need a queue: the first frame clears the
    // accumulator here, the resolve pass every frame after.
    graph.addPass(n + ".particles.clear", PassKind::Transfer)
        .use(accumRef, Access::TransferDst)
        .record([im, accumRef](PassContext& ctx) {
            im->beginFrame(ctx);
            if (im->recording() == 0) ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(accumRef), 0, VK_WHOLE_SIZE, 0);
        });
    graph.addPass(n + ".particles.splat", PassKind::Compute)
        .pipeline(splatPipe)
        .uniform(0, refs.grid)
        .storage(1, refs.items, R, 0, refs.itemRange)
        .storage(2, accumRef, RW)
        .record([im](PassContext& ctx) {
            ctx.pushConstants(im->push());
            dispatchFolded(ctx, groupsOf(im->itemCount, gpu::kIsoGroupSize), im->maxGroupsX());
        });
    const BufferRef tilesRef = tileFlagsRef(refs);
    graph.addPass(n + ".particles.resolve", PassKind::Compute)
        .pipeline(resolvePipe)
        .uniform(0, refs.grid)
        .storage(1, accumRef, RW)
        .storage(2, refs.field, W)
        .storage(3, tilesRef, W)
        .record([im](PassContext& ctx) {
            ctx.pushConstants(im->push());
            dispatchFolded(ctx, groupsOf(tiles(im->grid), gpu::kIsoGroupSize), im->maxGroupsX());
        });
}

} // namespace pyramarch::iso
