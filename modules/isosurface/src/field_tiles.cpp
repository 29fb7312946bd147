// Tiled field evaluation (metaballs, user GLSL with a Lipschitz bound) on
// the direct brick table: the brick list (sparse.cpp, brick_list.comp)
// clears and flags the tiles of kIsoFieldTile^3 samples its bricks (and
// their gradients) read; "<name>.field.tiles.list" (one thread per tile:
// append the flagged) and "<name>.field.tiles.args" (the field pass's
// indirect dispatch, a group per listed tile), both field_tiles.comp; then
// the source's field pass over the listed tiles only ("<name>.field.user",
// "<name>.field.metaballs"). No sample outside those tiles is read.
#include "iso_impl.h"

namespace pyramarch::iso {
namespace {
const uint32_t kFieldTilesSpv[] =
#include "shaders/isosurface/field_tiles.comp.spv.inc"
    ;
} // namespace

uint64_t IsoSurface::Impl::fieldTiles() const {
    auto tiles = [](uint32_t samples) { return uint64_t(samples + gpu::kIsoFieldTile - 1) / gpu::kIsoFieldTile; };
    return tiles(grid.samples.x) * tiles(grid.samples.y) * tiles(grid.samples.z);
}

Status IsoSurface::Impl::createFieldTilePipeline() {
    return makePipeline(fieldTilesPipe, kFieldTilesSpv, "field.tiles", 4);
}

void IsoSurface::Impl::addFieldTilePasses(RenderGraph& graph, const IsoRefs& refs) {
    const std::string& n = info.name;
    const BufferRef flags = refs.fieldTileFlags, list = refs.fieldTileList, args = refs.fieldTileArgs;
    const uint64_t tileGroups = groupsOf(fieldTiles(), gpu::kIsoClassifyGroupSize);
    const auto tilePass = [&](const char* suffix, uint32_t mode) {
        PassBuilder pass = graph.addPass(n + suffix, PassKind::Compute);
        pass.pipeline(fieldTilesPipe)
            .uniform(0, refs.grid)
            .storage(1, flags, RW)
            .storage(2, list, RW)
            .storage(3, args, W);
        pass.record([this, mode, tileGroups](PassContext& ctx) {
            gpu::IsoPush pc = push();
            pc.srcLevel = mode;
            ctx.pushConstants(pc);
            dispatchFolded(ctx, mode == 0 ? tileGroups : 1, maxGroupsX());
        });
    };
    tilePass(".field.tiles.list", 0);
    tilePass(".field.tiles.args", 1);
    if (userField.tiled)
        userField.addTiledFieldPass(*this, graph, refs, list, args);
    else
        metaballs.addTiledFieldPass(*this, graph, refs, list, args);
}

} // namespace pyramarch::iso
