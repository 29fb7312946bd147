// Tiled field evaluation (user GLSL with a Lipschitz bound, metaballs), once
// the activate pass has listed the patches the surface may cross: passes
// "<name>.field.tiles.clear" (zero the flags and the list header),
// "<name>.field.tiles.mark" (classify's indirect dispatch over the listed
// patches: each run flags the tiles of kIsoFieldTile^3 samples its cells and
// their gradients read), "<name>.field.tiles.list" (one thread per tile:
// append the flagged) and "<name>.field.tiles.args" (the field pass's
// indirect dispatch, a group per listed tile), all field_tiles.comp; then
// the source's field pass over the listed tiles only ("<name>.field.user",
// "<name>.field.metaballs"). No sample outside those tiles is read. On the
// direct brick table (metaballs, bounded user fields) the brick list clears and flags the tiles
// (sparse.cpp, brick_list.comp): the list, args and field passes only.
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
    return makePipeline(fieldTilesPipe, kFieldTilesSpv, "field.tiles", 5);
}

void IsoSurface::Impl::addFieldTilePasses(RenderGraph& graph, const IsoRefs& refs) {
    const std::string& n = info.name;
    const BufferRef flags = refs.fieldTileFlags, list = refs.fieldTileList, args = refs.fieldTileArgs;
    if (!direct)
        graph.addPass(n + ".field.tiles.clear", PassKind::Transfer)
            .use(flags, Access::TransferDst)
            .use(list, Access::TransferDst)
            .record([flags, list](PassContext& ctx) {
                ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(flags), 0, VK_WHOLE_SIZE, 0);
                ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(list), 0, 16, 0);
            });
    const uint64_t tileGroups = groupsOf(fieldTiles(), gpu::kIsoClassifyGroupSize);
    const auto tilePass = [&](const char* suffix, uint32_t mode) {
        PassBuilder pass = graph.addPass(n + suffix, PassKind::Compute);
        pass.pipeline(fieldTilesPipe)
            .uniform(0, refs.grid)
            .storage(1, direct ? refs.directList : refs.patchList, R) // modes 1 and 2 read no patch
            .storage(2, flags, RW)
            .storage(3, list, RW)
            .storage(4, args, W);
        if (mode == 0) {
            // Classify's own dispatch: a lane per run of the listed patches.
            pass.use(refs.classifyArgs, Access::IndirectRead).record([this, refs](PassContext& ctx) {
                gpu::IsoPush pc = push();
                pc.srcLevel = 0;
                ctx.pushConstants(pc);
                ctx.dispatchIndirect(refs.classifyArgs, 0);
            });
        } else {
            pass.record([this, mode, tileGroups](PassContext& ctx) {
                gpu::IsoPush pc = push();
                pc.srcLevel = mode;
                ctx.pushConstants(pc);
                dispatchFolded(ctx, mode == 1 ? tileGroups : 1, maxGroupsX());
            });
        }
    };
    if (!direct) tilePass(".field.tiles.mark", 0);
    tilePass(".field.tiles.list", 1);
    tilePass(".field.tiles.args", 2);
    if (tiledUserField)
        addUserTiledFieldPass(graph, refs, list, args);
    else
        addMetaballTiledFieldPass(graph, refs, list, args);
}

} // namespace pyramarch::iso
