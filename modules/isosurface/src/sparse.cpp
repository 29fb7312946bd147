// Sparse domains (IsoSurfaceCreateInfo::sparse): a virtual grid of bricks of
// kIsoBrickCells^3 cells, only the bricks near the surface classified and
// only the row pairs with a cut cell kept, in a pool the pyramid is built
// over. Passes, every frame:
//   "<name>.sparse.clear", the lists' passes "<name>.sparse.{supers,
//   supers.order,supers.args,activate,bricks.order,list,args}" (volumes:
//   the upload or octree passes, activate, order, list, args): brick_list.cpp
//   particles: "<name>.sparse.table.clear" and "<name>.sparse.count" before
//   the supers (the bricks and super-bricks each particle reaches, counted:
//   sparse_particles_bin.comp), "<name>.sparse.cells.clear", ".cells.count",
//   ".cells.scan", "<name>.sparse.fill" and ".sparse.homes" after the args
//   (each listed brick's particles ordered by sub-cell, and the home list in
//   sub-cell order: sparse_particles_cells.glsl), "<name>.sparse.slots.init" (the first frame:
//   no slot owned), "<name>.sparse.slots.keep", ".free" and ".assign" (a
//   brick still listed keeps its block slot, new ones take freed slots:
//   sparse_particles_slots.comp), then "<name>.sparse.blocks" and
//   "<name>.sparse.blocks.borders" (each listed brick's 11^3 samples into
//   its block of the pool, once: sparse_particles_blocks.comp); with
//   particleSmoothing "<name>.sparse.smooth" before the density and the
//   slots, with anisotropic kernels "<name>.sparse.aniso" after the density
//   (each particle's smoothed position or kernel record from its home
//   brick's list: sparse_particles_neighbours.comp), which the blocks read
//   instead of the particles
//   "<name>.classify"         a thread per row pair of a listed brick: cases,
//                             a pool slot if cut (sparse_classify.comp)
//   "<name>.sparse.slots.{order,place,cases}"  the cut pairs' slots in list
//                             order (brick_list.cpp)
//   "<name>.pyramid.*"        the build over the pool, from level 2 up (pyramid.cpp)
// then, after "<name>.args", "<name>.extract" (sparse_extract.comp): the walk
// ends at a pool cell, its slot's record names brick and pair.
// User fields: every shader here is compiled at creation with the user's
// field(). Metaballs, particles and volumes: the build's
// (sparse_particles_bin.comp, sparse_particles_blocks.comp and the
// ISO_SPARSE_METABALLS /
// ISO_SPARSE_VOLUME builds of classify and extraction); for metaballs
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
// Particles: binned per brick, then the same passes with the particles'
// field (storage reads of the particles; the pyramid as for metaballs).
const uint32_t kParticleBinSpv[] =
#include "shaders/isosurface/sparse_particles_bin.comp.spv.inc"
    ;
// Each listed brick's 11^3 samples into its block; classify and extraction
// are then the volume builds below, reading the blocks as an F32 pool.
const uint32_t kParticleBlocksSpv[] =
#include "shaders/isosurface/sparse_particles_blocks.comp.spv.inc"
    ;
const uint32_t kParticleBordersSpv[] =
#include "shaders/isosurface/sparse_particles_blocks.borders.comp.spv.inc"
    ;
const uint32_t kParticleBlocksSphSpv[] =
#include "shaders/isosurface/sparse_particles_blocks.sph.comp.spv.inc"
    ;
const uint32_t kParticleBordersSphSpv[] =
#include "shaders/isosurface/sparse_particles_blocks.borders_sph.comp.spv.inc"
    ;
const uint32_t kParticleDensitySpv[] =
#include "shaders/isosurface/sparse_particles_density.comp.spv.inc"
    ;
// Position smoothing and anisotropic kernels: the neighbourhood pass (its
// SPH build weighs the kernels by the volumes), the density of the smoothed
// particles and the blocks summing each particle's record.
const uint32_t kParticleNeighboursSpv[] =
#include "shaders/isosurface/sparse_particles_neighbours.comp.spv.inc"
    ;
const uint32_t kParticleNeighboursSphSpv[] =
#include "shaders/isosurface/sparse_particles_neighbours.sph.comp.spv.inc"
    ;
const uint32_t kParticleDensitySmoothedSpv[] =
#include "shaders/isosurface/sparse_particles_density.smoothed.comp.spv.inc"
    ;
// The per-particle passes through texel buffers (sparseTexelReads).
const uint32_t kParticleNeighboursTexelSpv[] =
#include "shaders/isosurface/sparse_particles_neighbours.texel.comp.spv.inc"
    ;
const uint32_t kParticleNeighboursTexelSphSpv[] =
#include "shaders/isosurface/sparse_particles_neighbours.texel_sph.comp.spv.inc"
    ;
const uint32_t kParticleDensityTexelSpv[] =
#include "shaders/isosurface/sparse_particles_density.texel.comp.spv.inc"
    ;
const uint32_t kParticleDensityTexelSmoothedSpv[] =
#include "shaders/isosurface/sparse_particles_density.texel_smoothed.comp.spv.inc"
    ;
const uint32_t kParticleBlocksRecordsSpv[] =
#include "shaders/isosurface/sparse_particles_blocks.records.comp.spv.inc"
    ;
const uint32_t kParticleBordersRecordsSpv[] =
#include "shaders/isosurface/sparse_particles_blocks.borders_records.comp.spv.inc"
    ;
const uint32_t kParticleBlocksRecordsSphSpv[] =
#include "shaders/isosurface/sparse_particles_blocks.records_sph.comp.spv.inc"
    ;
const uint32_t kParticleBordersRecordsSphSpv[] =
#include "shaders/isosurface/sparse_particles_blocks.borders_records_sph.comp.spv.inc"
    ;
const uint32_t kParticleSlotsSpv[] =
#include "shaders/isosurface/sparse_particles_slots.comp.spv.inc"
    ;
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
        PYRAMARCH_TRY(makePipeline(sparseBinPipe, kParticleBinSpv, "sparse.count", 8));
        // The blocks: the grid 0, counters 1, brick list 2, references 3,
        // particles 4, the bricks' slots 5, the brick table 6, the pool 7-10,
        // the sub-cells 13.
        // SphCubicSpline: the volumes at 11 (sparse.density: the grid 0,
        // sub-cells 1, brick list 2, references 3, particles 4, volumes 5).
        // Smoothing or anisotropic kernels: the records at 12 (the
        // neighbourhood pass: the grid 0, sub-cells 1, brick list 2,
        // references 3, particles 4, records 5, SPH volumes 6; the density
        // of smoothed particles reads them at 6).
        if (smooth || aniso) {
            ComputePipeline& neighbours = smooth ? smoothPipe : anisoPipe;
            const bool t = sparseTexelReads;
            if (sph && aniso)
                PYRAMARCH_TRY(makePipeline(neighbours,
                                           t ? std::span<const uint32_t>(kParticleNeighboursTexelSphSpv)
                                             : kParticleNeighboursSphSpv,
                                           "sparse.aniso.sph", 7));
            else
                PYRAMARCH_TRY(makePipeline(
                    neighbours, t ? std::span<const uint32_t>(kParticleNeighboursTexelSpv) : kParticleNeighboursSpv,
                    smooth ? "sparse.smooth" : "sparse.aniso", 6));
            if (sph) {
                if (smooth)
                    PYRAMARCH_TRY(makePipeline(densityPipe,
                                               sparseTexelReads
                                                   ? std::span<const uint32_t>(kParticleDensityTexelSmoothedSpv)
                                                   : kParticleDensitySmoothedSpv,
                                               "sparse.density.smoothed", 7));
                else
                    PYRAMARCH_TRY(makePipeline(densityPipe,
                                               sparseTexelReads ? std::span<const uint32_t>(kParticleDensityTexelSpv)
                                                                : kParticleDensitySpv,
                                               "sparse.density", 6));
                PYRAMARCH_TRY(
                    makePipeline(sparseBlocksPipe, kParticleBlocksRecordsSphSpv, "sparse.blocks.records.sph", 14));
                PYRAMARCH_TRY(makePipeline(sparseBordersPipe, kParticleBordersRecordsSphSpv,
                                           "sparse.blocks.borders.records.sph", 14));
            } else {
                PYRAMARCH_TRY(makePipeline(sparseBlocksPipe, kParticleBlocksRecordsSpv, "sparse.blocks.records", 14));
                PYRAMARCH_TRY(
                    makePipeline(sparseBordersPipe, kParticleBordersRecordsSpv, "sparse.blocks.borders.records", 14));
            }
        } else if (sph) {
            PYRAMARCH_TRY(makePipeline(densityPipe,
                                       sparseTexelReads ? std::span<const uint32_t>(kParticleDensityTexelSpv)
                                                        : kParticleDensitySpv,
                                       "sparse.density", 6));
            PYRAMARCH_TRY(makePipeline(sparseBlocksPipe, kParticleBlocksSphSpv, "sparse.blocks.sph", 14));
            PYRAMARCH_TRY(makePipeline(sparseBordersPipe, kParticleBordersSphSpv, "sparse.blocks.borders.sph", 14));
        } else {
            PYRAMARCH_TRY(makePipeline(sparseBlocksPipe, kParticleBlocksSpv, "sparse.blocks", 14));
            PYRAMARCH_TRY(makePipeline(sparseBordersPipe, kParticleBordersSpv, "sparse.blocks.borders", 14));
        }
        PYRAMARCH_TRY(makePipeline(sparseSlotsPipe, kParticleSlotsSpv, "sparse.slots", 7));
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
    const bool particles = info.source == FieldSource::Particles;
    // Particles: the bricks and super-bricks they reach, counted first.
    const auto bin = [&](const char* suffix, uint32_t mode) {
        PassBuilder pass = graph.addPass(info.name + suffix, PassKind::Compute);
        pass.pipeline(sparseBinPipe)
            .uniform(0, refs.grid)
            .storage(1, refs.items, R, 0, refs.itemRange)
            .storage(2, refs.brickTable, mode == 0 ? RW : R)
            // Each mode writes some of them; the shader declares them all.
            .storage(3, refs.superMarks, W)
            .storage(4, refs.brickItems, mode == 1 || mode == 4 ? RW : R) // 4: its static writes
            .storage(5, refs.cellTable, RW)
            .storage(6, refs.counters, R)
            .storage(7, refs.brickList, R);
        if (mode >= 3) {
            // A thread per listed brick: classify's dispatch (kIsoBricksPerGroup
            // bricks a group) has kIsoGroupSize / kIsoBricksPerGroup times the threads.
            pass.use(refs.sparseArgs, Access::IndirectRead).record(indirectDispatch(refs.sparseArgs, 0, mode));
            return;
        }
        pass.record([this, mode](PassContext& ctx) {
            gpu::IsoPush pc = push();
            pc.srcLevel = mode;
            ctx.pushConstants(pc);
            dispatchFolded(ctx, groupsOf(std::min(itemCount, grid.maxItems), gpu::kIsoGroupSize), maxGroupsX());
        });
    };
    if (particles) {
        graph.addPass(info.name + ".sparse.table.clear", PassKind::Transfer)
            .use(refs.brickTable, Access::TransferDst)
            .use(refs.superMarks, Access::TransferDst)
            .record([refs](PassContext& ctx) {
                ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(refs.brickTable), 0, VK_WHOLE_SIZE, 0);
                ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(refs.superMarks), 0, VK_WHOLE_SIZE, 0);
            });
        bin(".sparse.count", 0);
    }
    // The bricks listed (brick_list.cpp).
    brickListing.addListPasses(*this, graph, refs);
    if (particles) {
        // Each listed brick's list ordered by sub-cell, and the home list
        // (sparse_particles_cells.glsl): counted, scanned, filled, then the
        // home list in sub-cell order.
        graph.addPass(info.name + ".sparse.cells.clear", PassKind::Transfer)
            .use(refs.cellTable, Access::TransferDst)
            .record([this, refs](PassContext& ctx) {
                const VkDeviceSize bytes =
                    (gpu::kIsoCellHeader + VkDeviceSize(gpu::kIsoCellWords) * info.sparse.maxBricks) * 4;
                ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(refs.cellTable), 0, bytes, 0);
            });
        bin(".sparse.cells.count", 2);
        bin(".sparse.cells.scan", 3);
        bin(".sparse.fill", 1);
        bin(".sparse.homes", 4);
    }
    // SphCubicSpline: each particle's volume from its home brick's list
    // (sparse_particles_density.comp). With particleSmoothing, each particle's smoothed position first (the
    // density is the smoothed particles'); with anisotropic kernels, each
    // particle's kernel record after the volumes (its weight): both by
    // particle index from the home brick's list (sparse_particles_neighbours.comp),
    // cleared first so that a particle without a listed home brick adds nothing.
    const ExternalUse computeRW{Access::StorageReadWrite, PassKind::Compute};
    BufferRef volumesRef, recordsRef;
    const auto clear = [&](const std::string& suffix, BufferRef ref) {
        graph.addPass(info.name + suffix, PassKind::Transfer)
            .use(ref, Access::TransferDst)
            .record(
                [ref](PassContext& ctx) { ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(ref), 0, VK_WHOLE_SIZE, 0); });
    };
    // A thread per home particle (at most one a particle).
    const auto homesDispatch = [this](uint32_t mode) {
        return [this, mode](PassContext& ctx) {
            gpu::IsoPush pc = push();
            pc.srcLevel = mode;
            ctx.pushConstants(pc);
            dispatchFolded(ctx, groupsOf(std::min(itemCount, grid.maxItems), gpu::kIsoGroupSize), maxGroupsX());
        };
    };
    const auto neighbours = [&](const char* suffix, uint32_t mode) {
        PassBuilder pass = graph.addPass(info.name + suffix, PassKind::Compute);
        pass.pipeline(smooth ? smoothPipe : anisoPipe)
            .uniform(0, refs.grid)
            .storage(2, refs.brickList, R)
            .storage(5, recordsRef, W);
        bindSparseParticleReads(pass, refs);
        if (sph && aniso) pass.storage(6, volumesRef, R);
        pass.record(homesDispatch(mode));
    };
    if (particles && (smooth || aniso)) {
        recordsRef = smooth ? graph.importBuffer(info.name + ".smoothed", smoothed, computeRW, computeRW)
                            : graph.importBuffer(info.name + ".kernels", kernels, computeRW, computeRW);
        clear(smooth ? ".sparse.smoothed.clear" : ".sparse.kernels.clear", recordsRef);
        if (smooth) neighbours(".sparse.smooth", 0);
    }
    if (particles && sph) {
        volumesRef = graph.importBuffer(info.name + ".volumes", volumes, computeRW, computeRW);
        volumesImport = volumesRef; // surface attributes weigh by them too
        clear(".sparse.volumes.clear", volumesRef);
        PassBuilder density = graph.addPass(info.name + ".sparse.density", PassKind::Compute);
        density.pipeline(densityPipe).uniform(0, refs.grid).storage(2, refs.brickList, R).storage(5, volumesRef, W);
        // The sub-cells, references, particles and smoothed particles:
        // texel buffers where sparseTexelReads (a module-owned ring), else storage.
        bindSparseParticleReads(density, refs, !smooth);
        if (smooth && sparseTexelReads)
            density.texel(6, recordsRef, VK_FORMAT_R32G32B32A32_SFLOAT, Access::SampledRead);
        else if (smooth)
            density.storage(6, recordsRef, R);
        density.record(homesDispatch(0));
    }
    if (particles && aniso) neighbours(".sparse.aniso", 1);
    if (particles) {
        // The block slots: kept by the bricks still listed, freed by the
        // others, taken by the new ones (sparse_particles_slots.comp).
        graph.addPass(info.name + ".sparse.slots.init", PassKind::Transfer)
            .use(refs.slotState, Access::TransferDst)
            .record([this, refs](PassContext& ctx) {
                if (slotStateCleared) return;
                ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(refs.slotState), 0, VK_WHOLE_SIZE, 0);
                slotStateCleared = true;
            });
        const auto slots = [&](const char* suffix, uint32_t mode) {
            PassBuilder pass = graph.addPass(info.name + suffix, PassKind::Compute);
            pass.pipeline(sparseSlotsPipe)
                .uniform(0, refs.grid)
                .storage(1, refs.counters, RW)
                .storage(2, refs.brickList, R)
                .storage(3, refs.slotOfBrick, RW)
                .storage(4, refs.slotState, RW)
                .storage(5, refs.freeSlots, RW)
                .storage(6, refs.volumeBrickSlots, RW);
            if (mode == 1) {
                pass.record(modeDispatch(1, groupsOf(info.sparse.maxBricks, gpu::kIsoBricksPerGroup)));
            } else {
                pass.use(refs.sparseArgs, Access::IndirectRead).record(indirectDispatch(refs.sparseArgs, 0, mode));
            }
        };
        slots(".sparse.slots.keep", 0);
        slots(".sparse.slots.free", 1);
        slots(".sparse.slots.assign", 2);
        // Each listed brick's samples, once (classify's dispatch): its own
        // 9^3, then the block's border from its neighbours' (sparse_particles_blocks.comp).
        const auto blocks = [&](const char* suffix, uint32_t mode) {
            PassBuilder pass = graph.addPass(info.name + suffix, PassKind::Compute);
            pass.pipeline(mode == 0 ? sparseBlocksPipe : sparseBordersPipe)
                .uniform(0, refs.grid)
                .storage(1, refs.counters, R)
                .storage(2, refs.brickList, R)
                .storage(3, refs.brickItems, R)
                .storage(4, refs.items, R, 0, refs.itemRange)
                // The interior pass writes each brick's table word, the border pass reads the table.
                .storage(5, refs.volumeBrickSlots, R)
                .storage(6, refs.brickTable, mode == 0 ? W : R);
            // Unused pool bindings repeat the first buffer (never accessed through).
            for (uint32_t i = 0; i < gpu::kIsoVolumePools; ++i)
                pass.storage(7 + i, refs.volumePools[i], mode == 0 ? W : RW);
            // Bindings the build does not declare repeat the cell table (13).
            pass.storage(11, sph ? volumesRef : refs.cellTable, R);
            pass.storage(12, smooth || aniso ? recordsRef : refs.cellTable, R);
            pass.storage(13, refs.cellTable, R);
            pass.use(refs.sparseArgs, Access::IndirectRead).record(indirectDispatch(refs.sparseArgs, 0));
        };
        blocks(".sparse.blocks", 0);
        blocks(".sparse.blocks.borders", 1);
    }
    PassBuilder classifyPass = graph.addPass(info.name + ".classify", PassKind::Compute);
    classifyPass.pipeline(classify)
        .uniform(0, refs.grid)
        .storage(3, refs.pyramid, RW)
        .storage(4, refs.counters, RW)
        .storage(5, refs.brickList, R)
        .storage(6, refs.pairOrder, RW);
    bindBrickItems(classifyPass, refs);
    classifyPass.use(refs.sparseArgs, Access::IndirectRead).record(indirectDispatch(refs.sparseArgs, 0));
    brickListing.addSlotOrderPasses(*this, graph, refs);
    addPyramidBuild(graph, info.name + ".pyramid.", refs.grid, refs.pyramid, grid,
                    std::min(gpu::kIsoClassifyLevels, grid.levelCount - 1));
}

// Bindings 1, 3 and 4 of the bricked per-particle passes (the sub-cells, the
// references, the particles: sparse_particles_reads.glsl): texel buffers
// where sparseTexelReads, else storage.
// (The density of smoothed particles reads no particle: 4 is a storage
// buffer there.)
void IsoSurface::Impl::bindSparseParticleReads(PassBuilder& pass, const IsoRefs& refs, bool particles) const {
    if (sparseTexelReads && particles)
        pass.texel(1, refs.cellTable, VK_FORMAT_R32_UINT, Access::SampledRead)
            .texel(3, refs.brickItems, VK_FORMAT_R32_UINT, Access::SampledRead)
            .texel(4, refs.items, VK_FORMAT_R32_SFLOAT, Access::SampledRead);
    else if (sparseTexelReads)
        pass.texel(1, refs.cellTable, VK_FORMAT_R32_UINT, Access::SampledRead)
            .texel(3, refs.brickItems, VK_FORMAT_R32_UINT, Access::SampledRead)
            .storage(4, refs.items, Access::StorageRead, 0, refs.itemRange);
    else
        pass.storage(1, refs.cellTable, Access::StorageRead)
            .storage(3, refs.brickItems, Access::StorageRead)
            .storage(4, refs.items, Access::StorageRead, 0, refs.itemRange);
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
