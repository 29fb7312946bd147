// Field source: particles, both splat methods, with a patch list. Pass
// "<name>.particles.bounds" (particle_bounds.comp): the patches holding a
// corner in a tile of samples the field pass found nonzero (the gather, or
// the scatter's resolve, flags its tiles) get bounds (-inf, +inf), the
// others (0, 0): the field is exactly 0 there, so for an iso value above 0
// classify skips them; with an iso value <= 0 every patch is listed. No
// field read. On the direct brick table the bricks' list reads the same
// flags (brick_list.comp's particle build, sparse.cpp).
#include "iso_impl.h"

namespace pyramarch::iso {
namespace {
const uint32_t kParticleBoundsSpv[] =
#include "shaders/isosurface/particle_bounds.comp.spv.inc"
    ;
} // namespace

Status IsoSurface::Impl::createParticleBoundsPipelines() {
    if (!grid.patchList) return {};
    return makePipeline(particleBoundsPipe, kParticleBoundsSpv, "particles.bounds", 4);
}

uint64_t IsoSurface::Impl::particleTiles() const {
    return groupsOf(grid.samples.x, gpu::kIsoGatherColumn) * groupsOf(grid.samples.y, gpu::kIsoGatherRows) *
           grid.samples.z;
}

BufferRef IsoSurface::Impl::importTileFlags(RenderGraph&, const IsoRefs& refs) {
    // Imported with the other buffers (addPasses); the bricks' list reads it too.
    return refs.particleTiles.valid() ? refs.particleTiles : refs.field;
}

void IsoSurface::Impl::addParticleBoundsPass(RenderGraph& graph, const IsoRefs& refs, BufferRef tilesRef) {
    addPatchBoxesPass(graph, refs);
    graph.addPass(info.name + ".particles.bounds", PassKind::Compute)
        .pipeline(particleBoundsPipe)
        .uniform(0, refs.grid)
        .storage(1, refs.patchBoxes, R)
        .storage(2, tilesRef, R)
        .storage(3, refs.patchBounds, W)
        .record([this](PassContext& ctx) {
            ctx.pushConstants(push());
            dispatchFolded(ctx, groupsOf(grid.patchCount, gpu::kIsoGroupSize), maxGroupsX());
        });
}

} // namespace pyramarch::iso
