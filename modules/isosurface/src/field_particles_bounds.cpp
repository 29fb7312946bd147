// Field source: particles, both splat methods. The field pass (the gather,
// or the scatter's resolve) flags its tiles of samples holding a nonzero
// value; on the direct brick table the bricks' list reads those flags
// (brick_list.comp's particle build, sparse.cpp).
#include "iso_impl.h"

namespace pyramarch::iso {

uint64_t IsoSurface::Impl::particleTiles() const {
    return groupsOf(grid.samples.x, gpu::kIsoGatherColumn) * groupsOf(grid.samples.y, gpu::kIsoGatherRows) *
           grid.samples.z;
}

BufferRef IsoSurface::Impl::importTileFlags(RenderGraph&, const IsoRefs& refs) {
    // Imported with the other buffers (addPasses); the bricks' list reads it.
    return refs.particleTiles.valid() ? refs.particleTiles : refs.field;
}

} // namespace pyramarch::iso
