// Field source: metaballs. Pass "<name>.field.metaballs": up to
// kIsoRowBalls balls one thread per row segment of kIsoRowSamples samples,
// else one group per 4x4x4 tile of samples with the balls culled per tile
// (field_metaballs.comp picks the same way from the ball count). On the
// direct brick table (the default on a grid that fits) the brick list bounds
// each brick by the balls and flags the tiles its bricks read (sparse.cpp,
// brick_list.comp), and the field pass runs over those tiles only
// (field_tiles.cpp), a group per tile.
#include "iso_impl.h"

namespace pyramarch::iso {
namespace {
const uint32_t kMetaballsSpv[] =
#include "shaders/isosurface/field_metaballs.comp.spv.inc"
    ;
// Storage-buffer reads of the balls, where the texel limit does not cover the ring.
const uint32_t kMetaballsStorageSpv[] =
#include "shaders/isosurface/field_metaballs.storage.comp.spv.inc"
    ;
} // namespace

Status IsoSurface::Impl::createMetaballsPipelines() {
    if (tiledMetaballs) PYRAMARCH_TRY(createFieldTilePipeline());
    return makePipeline(fieldPipe, texelReads ? std::span<const uint32_t>(kMetaballsSpv) : kMetaballsStorageSpv,
                        "field.metaballs", 4);
}

// The balls: 2 texels of 4 floats per ball (texelReads), or the storage buffer.
void IsoSurface::Impl::bindBalls(PassBuilder& pass, const IsoRefs& refs, uint32_t binding) {
    if (texelReads)
        pass.texel(binding, refs.items, VK_FORMAT_R32G32B32A32_SFLOAT, Access::SampledRead);
    else
        pass.storage(binding, refs.items, R);
}

void IsoSurface::Impl::addMetaballsPasses(RenderGraph& graph, const IsoRefs& refs) {
    // Tiled: the field pass comes after the brick list (addFieldTilePasses).
    if (!tiledMetaballs) {
        PassBuilder field = graph.addPass(info.name + ".field.metaballs", PassKind::Compute);
        field.pipeline(fieldPipe)
            .uniform(0, refs.grid)
            .storage(2, refs.field, W)
            .storage(3, refs.field, R); // no tile list: the field stands in, unread
        bindBalls(field, refs);
        field.record([this](PassContext& ctx) {
            beginFrame(ctx);
            ctx.pushConstants(push());
            const gpu::IsoGrid& g = grid;
            if (std::min(itemCount, g.maxItems) <= gpu::kIsoRowBalls) {
                const uint64_t segments =
                    uint64_t((g.samples.x + gpu::kIsoRowSamples - 1) / gpu::kIsoRowSamples) * g.samples.y * g.samples.z;
                dispatchFolded(ctx, groupsOf(segments, gpu::kIsoGroupSize), maxGroupsX());
                return;
            }
            const uint64_t tiles = uint64_t((g.samples.x + 3) / 4) * ((g.samples.y + 3) / 4) * ((g.samples.z + 3) / 4);
            dispatchFolded(ctx, tiles, maxGroupsX());
        });
    }
}

// The tiled field pass (pc.srcLevel 1): a group per tile the list names.
void IsoSurface::Impl::addMetaballTiledFieldPass(RenderGraph& graph, const IsoRefs& refs, BufferRef list,
                                                 BufferRef args) {
    PassBuilder field = graph.addPass(info.name + ".field.metaballs", PassKind::Compute);
    field.pipeline(fieldPipe).uniform(0, refs.grid).storage(2, refs.field, W).storage(3, list, R);
    bindBalls(field, refs);
    field.use(args, Access::IndirectRead).record(indirectDispatch(args, 0, 1));
}

} // namespace pyramarch::iso
