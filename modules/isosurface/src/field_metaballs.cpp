// Field source: metaballs (field_metaballs.h). Pass "<name>.field.metaballs": up to
// kIsoRowBalls balls one thread per row segment of kIsoRowSamples samples,
// else one group per 4x4x4 tile of samples with the balls culled per tile
// (field_metaballs.comp picks the same way from the ball count). On the
// direct brick table (the default on a grid that fits) the brick list bounds
// each brick by the balls and flags the tiles its bricks read (brick_list.cpp,
// brick_list.comp), and the field pass runs over those tiles only
// (field_tiles.cpp), a group per tile. A sparse domain has no field pass:
// the brick list's activate passes (sparse_metaballs_activate.comp) list
// each brick's balls, which classify and extraction sum.
#include "field_metaballs.h"

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
// Sparse domains: the build compiles these (no snippet), with texel or
// storage reads of the balls and the pyramid.
const uint32_t kSupersSpv[] =
#include "shaders/isosurface/sparse_metaballs_activate.coarse.comp.spv.inc"
    ;
const uint32_t kSupersStorageSpv[] =
#include "shaders/isosurface/sparse_metaballs_activate.coarse_storage.comp.spv.inc"
    ;
const uint32_t kActivateSpv[] =
#include "shaders/isosurface/sparse_metaballs_activate.comp.spv.inc"
    ;
const uint32_t kActivateStorageSpv[] =
#include "shaders/isosurface/sparse_metaballs_activate.storage.comp.spv.inc"
    ;
const uint32_t kClassifySpv[] =
#include "shaders/isosurface/sparse_classify.metaballs.comp.spv.inc"
    ;
const uint32_t kClassifyStorageSpv[] =
#include "shaders/isosurface/sparse_classify.metaballs_storage.comp.spv.inc"
    ;
const uint32_t kExtractSpv[] =
#include "shaders/isosurface/sparse_extract.metaballs.comp.spv.inc"
    ;
const uint32_t kExtractStorageSpv[] =
#include "shaders/isosurface/sparse_extract.metaballs_storage.comp.spv.inc"
    ;
std::span<const uint32_t> pick(bool texel, std::span<const uint32_t> texels, std::span<const uint32_t> storage) {
    return texel ? texels : storage;
}
} // namespace

Status MetaballsProvider::plan(Impl& m) {
    if (m.info.maxBalls == 0)
        return Status::error(ErrorCode::InvalidArgument,
                             "isosurface '" + m.info.name + "': maxBalls must be > 0 for metaballs");
    m.maxItems = m.info.maxBalls;
    tiled = m.direct && !m.denseFieldForced;
    return {};
}

Status MetaballsProvider::createPipelines(Impl& m) {
    if (tiled) PYRAMARCH_TRY(m.fieldTiles.createPipeline(m));
    return m.makePipeline(field, pick(m.texelReads, kMetaballsSpv, kMetaballsStorageSpv), "field.metaballs", 4);
}

void MetaballsProvider::bindBalls(const Impl& m, PassBuilder& pass, const IsoRefs& refs, uint32_t binding) const {
    if (m.texelReads)
        pass.texel(binding, refs.items, VK_FORMAT_R32G32B32A32_SFLOAT, Access::SampledRead);
    else
        pass.storage(binding, refs.items, R);
}

void MetaballsProvider::addPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs) {
    if (tiled) return; // the field pass comes after the brick list (FieldTileStage::addPasses)
    PassBuilder pass = graph.addPass(m.info.name + ".field.metaballs", PassKind::Compute);
    pass.pipeline(field)
        .uniform(0, refs.grid)
        .storage(2, refs.field, W)
        .storage(3, refs.field, R); // no tile list: the field stands in, unread
    bindBalls(m, pass, refs);
    pass.record([&m](PassContext& ctx) {
        m.beginFrame(ctx);
        ctx.pushConstants(m.push());
        const gpu::IsoGrid& g = m.grid;
        if (std::min(m.itemCount, g.maxItems) <= gpu::kIsoRowBalls) {
            const uint64_t segments =
                uint64_t((g.samples.x + gpu::kIsoRowSamples - 1) / gpu::kIsoRowSamples) * g.samples.y * g.samples.z;
            dispatchFolded(ctx, groupsOf(segments, gpu::kIsoGroupSize), m.maxGroupsX());
            return;
        }
        const uint64_t tiles = uint64_t((g.samples.x + 3) / 4) * ((g.samples.y + 3) / 4) * ((g.samples.z + 3) / 4);
        dispatchFolded(ctx, tiles, m.maxGroupsX());
    });
}

// The tiled field pass (pc.srcLevel 1): a group per tile the list names.
void MetaballsProvider::addTiledFieldPass(Impl& m, RenderGraph& graph, const IsoRefs& refs, BufferRef list,
                                          BufferRef args) {
    PassBuilder pass = graph.addPass(m.info.name + ".field.metaballs", PassKind::Compute);
    pass.pipeline(field).uniform(0, refs.grid).storage(2, refs.field, W).storage(3, list, R);
    bindBalls(m, pass, refs);
    pass.use(args, Access::IndirectRead).record(m.indirectDispatch(args, 0, 1));
}

std::span<const uint32_t> MetaballsProvider::sparseActivateSpirv(bool texel, bool coarse) {
    return coarse ? pick(texel, kSupersSpv, kSupersStorageSpv) : pick(texel, kActivateSpv, kActivateStorageSpv);
}
std::span<const uint32_t> MetaballsProvider::sparseClassifySpirv(bool texel) {
    return pick(texel, kClassifySpv, kClassifyStorageSpv);
}
std::span<const uint32_t> MetaballsProvider::sparseExtractSpirv(bool texel) {
    return pick(texel, kExtractSpv, kExtractStorageSpv);
}

} // namespace pyramarch::iso
