// Sparse domains (IsoSurfaceCreateInfo::sparse): a virtual grid of bricks of
// kIsoBrickCells^3 cells, only the bricks near the surface classified and
// only the row pairs with a cut cell kept, in a pool the pyramid is built
// over. Passes, every frame:
//   "<name>.sparse.clear", the lists' passes "<name>.sparse.{supers,
//   supers.order,supers.args,activate,bricks.order,list,args}" (volumes:
//   the upload or octree passes, activate, order, list, args): brick_list.cpp
//   particles: the bins per brick before the supers, then after the args
//   the sub-cells, smoothing, density, kernels, block slots and blocks
//   ("<name>.sparse.{table.clear,count,cells.*,fill,homes,...,blocks}"):
//   field_particles_sparse.cpp (ParticleProvider)
//   "<name>.classify"         a thread per row pair of a listed brick: cases,
//                             a pool slot if cut (sparse_classify.comp)
//   "<name>.sparse.slots.{order,place,cases}"  the cut pairs' slots in list
//                             order (brick_list.cpp)
//   "<name>.pyramid.*"        the build over the pool, from level 2 up (pyramid.cpp)
// then, after "<name>.args", "<name>.extract" (sparse_extract.comp): the walk
// ends at a pool cell, its slot's record names brick and pair.
// User fields: every shader here is compiled at creation with the user's
// field(). Metaballs, particles and volumes: the build's (the
// ISO_SPARSE_METABALLS / ISO_SPARSE_VOLUME builds of classify and
// extraction); for metaballs
// classify and extraction sum each brick's listed balls only, volumes and
// particles read each listed brick's block of samples (particles: the
// volume builds, F32, reading the blocks the block passes filled).
#include <algorithm>
#include <cstddef>
#include <cstring>

#include "iso_glsl_text.h"
#include "iso_impl.h"

namespace pyramarch::iso {
namespace {
// Volumes: classify and extraction read the resident bricks' samples.
const uint32_t kVolumeClassifySpv[] =
#include "shaders/isosurface/sparse_classify.volume.comp.spv.inc"
    ;
const uint32_t kVolumeClassifyStorageSpv[] =
#include "shaders/isosurface/sparse_classify.volume_storage.comp.spv.inc"
    ;
const uint32_t kVolumeExtractSpv[] =
#include "shaders/isosurface/sparse_extract.volume.comp.spv.inc"
    ;
const uint32_t kVolumeExtractStorageSpv[] =
#include "shaders/isosurface/sparse_extract.volume_storage.comp.spv.inc"
    ;
// A grid that fits (direct bricks): classify and extraction over every
// brick, reading the field buffer the source's field pass filled.
const uint32_t kDirectClassifySpv[] =
#include "shaders/isosurface/sparse_classify.dense.comp.spv.inc"
    ;
const uint32_t kDirectClassifyStorageSpv[] =
#include "shaders/isosurface/sparse_classify.dense_storage.comp.spv.inc"
    ;
const uint32_t kDirectExtractSpv[] =
#include "shaders/isosurface/sparse_extract.dense.comp.spv.inc"
    ;
const uint32_t kDirectExtractStorageSpv[] =
#include "shaders/isosurface/sparse_extract.dense_storage.comp.spv.inc"
    ;
} // namespace

// A grid that fits, as bricks (direct): the bricked classify and extraction
// with no list (ISO_DIRECT_BRICKS), over the field buffer (ISO_DENSE_FIELD)
// or, for a fused user field, compiled at creation with the snippet.
Status IsoSurface::Impl::createDirectPipelines() {
    // The brick list (brick_list.cpp) where one runs.
    if (directListed()) PYRAMARCH_TRY(brickListing.createDirectPipelines(*this));
    if (fusedField) {
        // Over the listed bricks (at binding 5) where the field is bounded.
        const std::string direct =
            std::string("#define ISO_DIRECT_BRICKS\n") + (lipschitzBricks() ? "#define ISO_DIRECT_LIST\n" : "");
        PYRAMARCH_TRY_ASSIGN(const std::vector<uint32_t> classifySpv,
                             UserFieldProvider::fusedSpirv(*this, kIsoText_sparse_classify_comp, "classify", direct));
        PYRAMARCH_TRY(makePipeline(classify, classifySpv, "classify", lipschitzBricks() ? 6 : 5));
        if (!indexed) {
            PYRAMARCH_TRY_ASSIGN(const std::vector<uint32_t> extractSpv,
                                 UserFieldProvider::fusedSpirv(*this, kIsoText_sparse_extract_comp, "extract", direct));
            PYRAMARCH_TRY(makePipeline(extract, extractSpv, "extract", kSparseOutputBindings));
        }
    } else {
        // Over the listed bricks (at binding 5).
        PYRAMARCH_TRY(makePipeline(
            classify, texelReads ? std::span<const uint32_t>(kDirectClassifySpv) : kDirectClassifyStorageSpv,
            "classify", 6));
        if (!indexed)
            PYRAMARCH_TRY(makePipeline(
                extract, texelReads ? std::span<const uint32_t>(kDirectExtractSpv) : kDirectExtractStorageSpv,
                "extract", kSparseOutputBindings));
    }
    return createBuildPipeline();
}

// Fused: classify writes every pair's level-2 word itself (0 where nothing
// is cut), one thread per row pair of every brick. Over the field buffer:
// "<name>.bricks.clear" (the pyramid's levels that classify and the first
// build pass write, the list's group marks), "<name>.bricks.bounds" (each
// brick's value bounds; volumes: on upload frames only), "<name>.bricks.list" and "<name>.bricks.args" (brick_list.comp),
// then classify over the listed bricks and the first build pass over their
// build groups, both indirect. Metaballs and bounded user fields: the
// bounds from the balls or the Lipschitz bound (no field read); over a
// buffer the list flags the field tiles its bricks read, and the field pass
// over those runs before classify (field_tiles.cpp). A fused bounded user
// field: classify over the listed bricks, calling field().
void IsoSurface::Impl::addDirectClassifyPasses(RenderGraph& graph, const IsoRefs& refs) {
    const bool listed = directListed();
    const uint32_t topLevel = grid.levelCount - 1;
    // Over a list classify sums level 3 too (a brick's 32 slots are 8
    // level-3 words: every direct grid has levels up to 5).
    const uint32_t first = std::min(gpu::kIsoClassifyLevels + (listed ? 1u : 0u), topLevel);
    const uint32_t listedLevels = std::min(gpu::kIsoBuildLevelsPerPass, topLevel - first);
    if (listed) brickListing.addDirectPasses(*this, graph, refs, first, listedLevels);
    PassBuilder pass = graph.addPass(info.name + ".classify", PassKind::Compute);
    pass.pipeline(classify).uniform(0, refs.grid).storage(3, refs.pyramid, RW).storage(4, refs.counters, RW);
    if (listed) pass.storage(5, refs.directList, R);
    if (fusedField)
        ; // field() at the samples: no field buffer
    else if (texelReads)
        pass.texel(2, refs.field, VK_FORMAT_R32G32B32A32_SFLOAT, Access::SampledRead); // quads: dense_field.glsl
    else
        pass.storage(2, refs.field, R);
    if (!listed) {
        const uint64_t groups = groupsOf(grid.sparseLimits.z, gpu::kIsoBricksPerGroup);
        pass.record([this, groups](PassContext& ctx) {
            // A fused field has no field pass: classify is the frame's first.
            if (fusedField) beginFrame(ctx);
            ctx.pushConstants(push());
            dispatchFolded(ctx, groups, maxGroupsX());
        });
        addPyramidBuild(graph, info.name + ".pyramid.", refs.grid, refs.pyramid, grid, first);
        return;
    }
    pass.use(refs.directArgs, Access::IndirectRead).record(indirectDispatch(refs.directArgs, 0));
    if (listedLevels == 0) return;
    brickListing.addListedBuild(*this, graph, refs, first, listedLevels);
    addPyramidBuild(graph, info.name + ".pyramid.", refs.grid, refs.pyramid, grid, first + listedLevels);
}

// Indexed output builds its own extraction (sparse_indexed.cpp): the
// triangle-soup one is not compiled then (for user fields a run-time compile).
Status IsoSurface::Impl::createSparsePipelines() {
    // The lists: the order passes and the source's activate passes (brick_list.cpp).
    PYRAMARCH_TRY(brickListing.createSparsePipelines(*this));
    const auto volumeReaders = [this]() -> Status {
        // Classify and extraction: the pool's buffers at 7, 9, 10 and 11, the listed bricks' slots at 8.
        PYRAMARCH_TRY(makePipeline(
            classify, texelReads ? std::span<const uint32_t>(kVolumeClassifySpv) : kVolumeClassifyStorageSpv,
            "classify", 12));
        if (!indexed)
            PYRAMARCH_TRY(makePipeline(
                extract, texelReads ? std::span<const uint32_t>(kVolumeExtractSpv) : kVolumeExtractStorageSpv,
                "extract", kSparseOutputBindings));
        return createBuildPipeline();
    };
    if (info.source == FieldSource::Volume) {
        if (octreeInput) PYRAMARCH_TRY(octree.createPipelines(*this));
        return volumeReaders();
    }
    if (info.source == FieldSource::Particles) {
        PYRAMARCH_TRY(particles.createSparsePipelines(*this));
        return volumeReaders();
    }
    if (info.source == FieldSource::Metaballs) {
        // Classify and extraction: the balls at 7, the ball lists at 8.
        PYRAMARCH_TRY(makePipeline(classify, MetaballsProvider::sparseClassifySpirv(texelReads), "classify", 9));
        if (!indexed)
            PYRAMARCH_TRY(makePipeline(extract, MetaballsProvider::sparseExtractSpirv(texelReads), "extract",
                                       kSparseOutputBindings));
        return createBuildPipeline();
    }
    PYRAMARCH_TRY_ASSIGN(const std::vector<uint32_t> classifySpv,
                         UserFieldProvider::fusedSpirv(*this, kIsoText_sparse_classify_comp, "classify"));
    PYRAMARCH_TRY(makePipeline(classify, classifySpv, "classify", 7));
    if (!indexed) {
        PYRAMARCH_TRY_ASSIGN(const std::vector<uint32_t> extractSpv,
                             UserFieldProvider::fusedSpirv(*this, kIsoText_sparse_extract_comp, "extract"));
        PYRAMARCH_TRY(makePipeline(extract, extractSpv, "extract", kSparseOutputBindings));
    }
    return createBuildPipeline();
}

// Classify and extraction of metaballs: the balls at binding 7, each listed
// brick's references to them at 8 (sparse_item_refs.glsl); of volumes and
// particles: the pool's buffers at 7, 9, 10 and 11, each listed brick's
// pool slot at 8 (sparse_volume_field.glsl).
void IsoSurface::Impl::bindBrickItems(PassBuilder& pass, const IsoRefs& refs) {
    if (info.source == FieldSource::UserGlsl) return;
    if (info.source == FieldSource::Volume || info.source == FieldSource::Particles) {
        const VolumeFormat format = blockPoolFormat();
        const VkFormat sampleFormat = format == VolumeFormat::U8    ? VK_FORMAT_R8_UINT
                                      : format == VolumeFormat::U16 ? VK_FORMAT_R16_UINT
                                                                    : VK_FORMAT_R32_UINT;
        const uint32_t poolBindings[gpu::kIsoVolumePools] = {7, 9, 10, 11};
        for (uint32_t i = 0; i < gpu::kIsoVolumePools; ++i) {
            if (texelReads)
                pass.texel(poolBindings[i], refs.volumePools[i], sampleFormat, Access::SampledRead);
            else
                pass.storage(poolBindings[i], refs.volumePools[i], R);
        }
        pass.storage(8, refs.volumeBrickSlots, R);
        return;
    }
    metaballs.bindBalls(*this, pass, refs, 7);
    pass.storage(8, refs.brickItems, R);
}

void IsoSurface::Impl::addSparseClassifyPasses(RenderGraph& graph, const IsoRefs& refs) {
    brickListing.addClearPass(*this, graph, refs); // the frame's first pass
    const bool particleSource = info.source == FieldSource::Particles;
    // Particles: the bricks and super-bricks they reach, counted first.
    if (particleSource) particles.addSparseCountPasses(*this, graph, refs);
    // The bricks listed (brick_list.cpp).
    brickListing.addListPasses(*this, graph, refs);
    // Particles: each listed brick's particles by sub-cell, the smoothing,
    // density and kernels, the block slots and the blocks classify reads.
    if (particleSource) particles.addSparseBlockPasses(*this, graph, refs);
    PassBuilder classifyPass = graph.addPass(info.name + ".classify", PassKind::Compute);
    classifyPass.pipeline(classify)
        .uniform(0, refs.grid)
        .storage(3, refs.pyramid, RW)
        .storage(4, refs.counters, RW)
        .storage(5, refs.brickList, R)
        .storage(6, refs.pairOrder, RW)
        .storage(2, refs.slotStage, W);
    bindBrickItems(classifyPass, refs);
    classifyPass.use(refs.sparseArgs, Access::IndirectRead).record(indirectDispatch(refs.sparseArgs, 0));
    brickListing.addSlotOrderPasses(*this, graph, refs);
    // The first build pass over the places filled (the order pass's
    // dispatch); the clear pass zeroed the rest of the levels it writes.
    addPyramidBuild(graph, info.name + ".pyramid.", refs.grid, refs.pyramid, grid,
                    std::min(gpu::kIsoClassifyLevels, grid.levelCount - 1), refs.superArgs, 48);
}

void IsoSurface::Impl::addSparseExtractPass(RenderGraph& graph, const IsoRefs& refs) {
    PassBuilder pass = graph.addPass(info.name + ".extract", PassKind::Compute);
    pass.pipeline(extract)
        .uniform(0, refs.grid)
        .uniform(1, refs.tables)
        .storage(5, refs.brickList, R)
        .storage(6, refs.slotRecords, R);
    // The vertex buffer's slices 1.. after the volume pool's bindings (sparse_extract.comp).
    vertexSlices(pass, 4, 12, refs.vertices, W);
    bindBrickItems(pass, refs);
    if (texelReads)
        pass.texel(3, refs.pyramid, VK_FORMAT_R32G32B32A32_UINT, Access::SampledRead);
    else
        pass.storage(3, refs.pyramid, R);
    pass.use(refs.args, Access::IndirectRead).record(indirectDispatch(refs.args, offsetof(gpu::IsoArgs, dispatchX)));
}

} // namespace pyramarch::iso
