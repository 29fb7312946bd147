// Field source: particles on a sparse domain (IsoSurfaceCreateInfo::sparse,
// ParticleProvider): each brick's particles and its block of samples, which
// classify and extraction then read as an F32 block pool (the volume builds,
// sparse.cpp). Passes, every frame:
//   "<name>.sparse.table.clear" and "<name>.sparse.count" before the brick
//   lists' passes (the bricks and super-bricks each particle reaches,
//   counted: sparse_particles_bin.comp); after them "<name>.sparse.cells.clear",
//   ".cells.count", ".cells.scan", "<name>.sparse.fill" and ".sparse.homes"
//   (each listed brick's particles ordered by sub-cell, and the home list in
//   sub-cell order: sparse_particles_cells.glsl); with particleSmoothing
//   "<name>.sparse.smoothed.clear" and "<name>.sparse.smooth", with
//   SphCubicSpline "<name>.sparse.volumes.clear" and "<name>.sparse.density"
//   (sparse_particles_density.comp), with anisotropic kernels
//   "<name>.sparse.kernels.clear" and, after the density,
//   "<name>.sparse.aniso" (each particle's smoothed position or kernel
//   record from its home brick's list: sparse_particles_neighbours.comp,
//   which the blocks read instead of the particles);
//   "<name>.sparse.slots.init" (the first frame: no slot owned),
//   "<name>.sparse.slots.keep", ".free" and ".assign" (a brick still listed
//   keeps its block slot, new ones take freed slots:
//   sparse_particles_slots.comp), then "<name>.sparse.blocks" and
//   "<name>.sparse.blocks.borders" (each listed brick's 11^3 samples into its
//   block of the pool, once: sparse_particles_blocks.comp).
#include "field_particles.h"

#include <algorithm>

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
} // namespace

Status ParticleProvider::createSparsePipelines(Impl& m) {
    PYRAMARCH_TRY(m.makePipeline(sparseBinPipe, kParticleBinSpv, "sparse.count", 8));
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
            PYRAMARCH_TRY(m.makePipeline(
                neighbours, t ? std::span<const uint32_t>(kParticleNeighboursTexelSphSpv) : kParticleNeighboursSphSpv,
                "sparse.aniso.sph", 7));
        else
            PYRAMARCH_TRY(m.makePipeline(
                neighbours, t ? std::span<const uint32_t>(kParticleNeighboursTexelSpv) : kParticleNeighboursSpv,
                smooth ? "sparse.smooth" : "sparse.aniso", 6));
        if (sph) {
            if (smooth)
                PYRAMARCH_TRY(m.makePipeline(densityPipe,
                                             sparseTexelReads
                                                 ? std::span<const uint32_t>(kParticleDensityTexelSmoothedSpv)
                                                 : kParticleDensitySmoothedSpv,
                                             "sparse.density.smoothed", 7));
            else
                PYRAMARCH_TRY(m.makePipeline(densityPipe,
                                             sparseTexelReads ? std::span<const uint32_t>(kParticleDensityTexelSpv)
                                                              : kParticleDensitySpv,
                                             "sparse.density", 6));
            PYRAMARCH_TRY(
                m.makePipeline(sparseBlocksPipe, kParticleBlocksRecordsSphSpv, "sparse.blocks.records.sph", 14));
            PYRAMARCH_TRY(m.makePipeline(sparseBordersPipe, kParticleBordersRecordsSphSpv,
                                         "sparse.blocks.borders.records.sph", 14));
        } else {
            PYRAMARCH_TRY(m.makePipeline(sparseBlocksPipe, kParticleBlocksRecordsSpv, "sparse.blocks.records", 14));
            PYRAMARCH_TRY(
                m.makePipeline(sparseBordersPipe, kParticleBordersRecordsSpv, "sparse.blocks.borders.records", 14));
        }
    } else if (sph) {
        PYRAMARCH_TRY(m.makePipeline(
            densityPipe, sparseTexelReads ? std::span<const uint32_t>(kParticleDensityTexelSpv) : kParticleDensitySpv,
            "sparse.density", 6));
        PYRAMARCH_TRY(m.makePipeline(sparseBlocksPipe, kParticleBlocksSphSpv, "sparse.blocks.sph", 14));
        PYRAMARCH_TRY(m.makePipeline(sparseBordersPipe, kParticleBordersSphSpv, "sparse.blocks.borders.sph", 14));
    } else {
        PYRAMARCH_TRY(m.makePipeline(sparseBlocksPipe, kParticleBlocksSpv, "sparse.blocks", 14));
        PYRAMARCH_TRY(m.makePipeline(sparseBordersPipe, kParticleBordersSpv, "sparse.blocks.borders", 14));
    }
    PYRAMARCH_TRY(m.makePipeline(sparseSlotsPipe, kParticleSlotsSpv, "sparse.slots", 7));
    return {};
}

// Bindings 1, 3 and 4 of the bricked per-particle passes (the sub-cells, the
// references, the particles: sparse_particles_reads.glsl): texel buffers
// where sparseTexelReads, else storage.
// (The density of smoothed particles reads no particle: 4 is a storage
// buffer there.)
void ParticleProvider::bindSparseReads(PassBuilder& pass, const IsoRefs& refs, bool particles) const {
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

// A pass of sparse_particles_bin.comp in mode `mode`: count (0), fill (1),
// the sub-cells' count (2) and scan (3), the homes (4).
void ParticleProvider::addSparseBinPass(Impl& m, RenderGraph& graph, const IsoRefs& refs, const char* suffix,
                                        uint32_t mode) const {
    PassBuilder pass = graph.addPass(m.info.name + suffix, PassKind::Compute);
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
        pass.use(refs.sparseArgs, Access::IndirectRead).record(m.indirectDispatch(refs.sparseArgs, 0, mode));
        return;
    }
    Impl* const im = &m;
    pass.record([im, mode](PassContext& ctx) {
        gpu::IsoPush pc = im->push();
        pc.srcLevel = mode;
        ctx.pushConstants(pc);
        dispatchFolded(ctx, groupsOf(std::min(im->itemCount, im->grid.maxItems), gpu::kIsoGroupSize), im->maxGroupsX());
    });
}

void ParticleProvider::addSparseCountPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs) {
    graph.addPass(m.info.name + ".sparse.table.clear", PassKind::Transfer)
        .use(refs.brickTable, Access::TransferDst)
        .use(refs.superMarks, Access::TransferDst)
        .record([refs](PassContext& ctx) {
            ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(refs.brickTable), 0, VK_WHOLE_SIZE, 0);
            ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(refs.superMarks), 0, VK_WHOLE_SIZE, 0);
        });
    addSparseBinPass(m, graph, refs, ".sparse.count", 0);
}

void ParticleProvider::addSparseBlockPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs) {
    const std::string& n = m.info.name;
    Impl* const im = &m;
    // Each listed brick's list ordered by sub-cell, and the home list
    // (sparse_particles_cells.glsl): counted, scanned, filled, then the
    // home list in sub-cell order.
    graph.addPass(n + ".sparse.cells.clear", PassKind::Transfer)
        .use(refs.cellTable, Access::TransferDst)
        .record([im, refs](PassContext& ctx) {
            const VkDeviceSize bytes =
                (gpu::kIsoCellHeader + VkDeviceSize(gpu::kIsoCellWords) * im->info.sparse.maxBricks) * 4;
            ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(refs.cellTable), 0, bytes, 0);
        });
    addSparseBinPass(m, graph, refs, ".sparse.cells.count", 2);
    addSparseBinPass(m, graph, refs, ".sparse.cells.scan", 3);
    addSparseBinPass(m, graph, refs, ".sparse.fill", 1);
    addSparseBinPass(m, graph, refs, ".sparse.homes", 4);
    // SphCubicSpline: each particle's volume from its home brick's list
    // (sparse_particles_density.comp). With particleSmoothing, each particle's smoothed position first (the
    // density is the smoothed particles'); with anisotropic kernels, each
    // particle's kernel record after the volumes (its weight): both by
    // particle index from the home brick's list (sparse_particles_neighbours.comp),
    // cleared first so that a particle without a listed home brick adds nothing.
    const ExternalUse computeRW{Access::StorageReadWrite, PassKind::Compute};
    BufferRef recordsRef;
    const auto clear = [&](const std::string& suffix, BufferRef ref) {
        graph.addPass(n + suffix, PassKind::Transfer).use(ref, Access::TransferDst).record([ref](PassContext& ctx) {
            ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(ref), 0, VK_WHOLE_SIZE, 0);
        });
    };
    // A thread per home particle (at most one a particle).
    const auto homesDispatch = [im](uint32_t mode) {
        return [im, mode](PassContext& ctx) {
            gpu::IsoPush pc = im->push();
            pc.srcLevel = mode;
            ctx.pushConstants(pc);
            dispatchFolded(ctx, groupsOf(std::min(im->itemCount, im->grid.maxItems), gpu::kIsoGroupSize),
                           im->maxGroupsX());
        };
    };
    const auto neighbours = [&](const char* suffix, uint32_t mode) {
        PassBuilder pass = graph.addPass(n + suffix, PassKind::Compute);
        pass.pipeline(smooth ? smoothPipe : anisoPipe)
            .uniform(0, refs.grid)
            .storage(2, refs.brickList, R)
            .storage(5, recordsRef, W);
        bindSparseReads(pass, refs);
        if (sph && aniso) pass.storage(6, volumesRef, R);
        pass.record(homesDispatch(mode));
    };
    if (smooth || aniso) {
        recordsRef = smooth ? graph.importBuffer(n + ".smoothed", smoothed, computeRW, computeRW)
                            : graph.importBuffer(n + ".kernels", kernels, computeRW, computeRW);
        clear(smooth ? ".sparse.smoothed.clear" : ".sparse.kernels.clear", recordsRef);
        if (smooth) neighbours(".sparse.smooth", 0);
    }
    if (sph) {
        // Surface attributes weigh by them too.
        volumesRef = graph.importBuffer(n + ".volumes", volumes, computeRW, computeRW);
        clear(".sparse.volumes.clear", volumesRef);
        PassBuilder density = graph.addPass(n + ".sparse.density", PassKind::Compute);
        density.pipeline(densityPipe).uniform(0, refs.grid).storage(2, refs.brickList, R).storage(5, volumesRef, W);
        // The sub-cells, references, particles and smoothed particles:
        // texel buffers where sparseTexelReads (a module-owned ring), else storage.
        bindSparseReads(density, refs, !smooth);
        if (smooth && sparseTexelReads)
            density.texel(6, recordsRef, VK_FORMAT_R32G32B32A32_SFLOAT, Access::SampledRead);
        else if (smooth)
            density.storage(6, recordsRef, R);
        density.record(homesDispatch(0));
    }
    if (aniso) neighbours(".sparse.aniso", 1);
    // The block slots: kept by the bricks still listed, freed by the
    // others, taken by the new ones (sparse_particles_slots.comp).
    graph.addPass(n + ".sparse.slots.init", PassKind::Transfer)
        .use(refs.slotState, Access::TransferDst)
        .record([this, refs](PassContext& ctx) {
            if (slotStateCleared) return;
            ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(refs.slotState), 0, VK_WHOLE_SIZE, 0);
            slotStateCleared = true;
        });
    const auto slotPass = [&](const char* suffix, uint32_t mode) {
        PassBuilder pass = graph.addPass(n + suffix, PassKind::Compute);
        pass.pipeline(sparseSlotsPipe)
            .uniform(0, refs.grid)
            .storage(1, refs.counters, RW)
            .storage(2, refs.brickList, R)
            .storage(3, refs.slotOfBrick, RW)
            .storage(4, refs.slotState, RW)
            .storage(5, refs.freeSlots, RW)
            .storage(6, refs.volumeBrickSlots, RW);
        if (mode == 1) {
            pass.record(m.modeDispatch(1, groupsOf(m.info.sparse.maxBricks, gpu::kIsoBricksPerGroup)));
        } else {
            pass.use(refs.sparseArgs, Access::IndirectRead).record(m.indirectDispatch(refs.sparseArgs, 0, mode));
        }
    };
    slotPass(".sparse.slots.keep", 0);
    slotPass(".sparse.slots.free", 1);
    slotPass(".sparse.slots.assign", 2);
    // Each listed brick's samples, once (classify's dispatch): its own
    // 9^3, then the block's border from its neighbours' (sparse_particles_blocks.comp).
    const auto blocks = [&](const char* suffix, uint32_t mode) {
        PassBuilder pass = graph.addPass(n + suffix, PassKind::Compute);
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
        pass.use(refs.sparseArgs, Access::IndirectRead).record(m.indirectDispatch(refs.sparseArgs, 0));
    };
    blocks(".sparse.blocks", 0);
    blocks(".sparse.blocks.borders", 1);
}

} // namespace pyramarch::iso
