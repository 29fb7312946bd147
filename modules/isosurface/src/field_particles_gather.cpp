// Field source: particles, SplatMethod::Gather. A counting sort of the
// particles into bins of one sample cell ("<name>.particles.clear" on the
// first frame only, ".particles.count", ".particles.scan.{sums,top,starts}"
// = exclusive prefix of the counts, its top level one workgroup over the
// chunk sums, which also clears them for the next frame, ".particles.sort"),
// then one thread per tile of kIsoGatherColumn x kIsoGatherRows samples sums
// the particles of the bin rows its radius reaches (".particles.gather").
// With particleSmoothing, ".particles.smooth" moves each sorted particle
// towards its neighbours first (into `smoothed`, same order),
// ".particles.rebin.{count,scan.*,sort}" sort those into `rebinned` with the
// same pipelines, and the gather reads those. With anisotropic kernels,
// ".particles.aniso" computes each sorted particle's kernel (and smoothed
// centre) from its neighbours into `kernels`, same order, and
// ".particles.gather" (the anisotropic shader) reads those: no re-binning,
// the gather's bins reach the kernels' largest extent instead. With
// ParticleKernel::SphCubicSpline, ".particles.density" writes each sorted
// (or re-binned) particle's volume from its neighbours into `volumes`, which
// the gather (the SPH build) or the aniso pass reads. On the bricks the
// gather also flags its tiles holding a nonzero sample, from which the
// brick list bounds the bricks (brick_list.cpp). The passes after the sort read the
// bin starts and their records through texel buffers where
// maxTexelBufferElements covers them (ParticleProvider::texelReads: CPU drivers fetch
// texels as vector gathers, storage lane by lane), else through storage.
#include "field_particles.h"
#include "iso_impl.h"

namespace pyramarch::iso {
namespace {
const uint32_t kCountSpv[] =
#include "shaders/isosurface/particles_count.comp.spv.inc"
    ;
const uint32_t kSortSpv[] =
#include "shaders/isosurface/particles_sort.comp.spv.inc"
    ;
const uint32_t kGatherSpv[] =
#include "shaders/isosurface/particles_gather.comp.spv.inc"
    ;
const uint32_t kSmoothSpv[] =
#include "shaders/isosurface/particles_smooth.comp.spv.inc"
    ;
const uint32_t kAnisoSpv[] =
#include "shaders/isosurface/particles_aniso.comp.spv.inc"
    ;
const uint32_t kGatherAnisoSpv[] =
#include "shaders/isosurface/particles_gather_aniso.comp.spv.inc"
    ;
const uint32_t kDensitySpv[] =
#include "shaders/isosurface/particles_density.comp.spv.inc"
    ;
const uint32_t kSmoothTexelSpv[] =
#include "shaders/isosurface/particles_smooth.texel.comp.spv.inc"
    ;
const uint32_t kAnisoTexelSpv[] =
#include "shaders/isosurface/particles_aniso.texel.comp.spv.inc"
    ;
const uint32_t kGatherAnisoTexelSpv[] =
#include "shaders/isosurface/particles_gather_aniso.texel.comp.spv.inc"
    ;
const uint32_t kGatherAnisoTexelSphSpv[] =
#include "shaders/isosurface/particles_gather_aniso.texel_sph.comp.spv.inc"
    ;
const uint32_t kDensityTexelSpv[] =
#include "shaders/isosurface/particles_density.texel.comp.spv.inc"
    ;
const uint32_t kGatherTexelSpv[] =
#include "shaders/isosurface/particles_gather.texel.comp.spv.inc"
    ;
const uint32_t kGatherTexelSphSpv[] =
#include "shaders/isosurface/particles_gather.texel_sph.comp.spv.inc"
    ;
const uint32_t kGatherSphSpv[] =
#include "shaders/isosurface/particles_gather.sph.comp.spv.inc"
    ;
const uint32_t kGatherAnisoSphSpv[] =
#include "shaders/isosurface/particles_gather_aniso.sph.comp.spv.inc"
    ;
} // namespace

Status ParticleProvider::createGatherPipelines(Impl& m) {
    PYRAMARCH_TRY(m.makePipeline(countPipe, kCountSpv, "particles.count", 4));
    PYRAMARCH_TRY(m.makeScanPipelines(binScanPipe, binScanTopPipe, "particles.scan"));
    PYRAMARCH_TRY(m.makePipeline(sortPipe, kSortSpv, "particles.sort", 5));
    const bool t = texelReads;
    if (smooth)
        PYRAMARCH_TRY(m.makePipeline(smoothPipe, t ? std::span<const uint32_t>(kSmoothTexelSpv) : kSmoothSpv,
                                     "particles.smooth", 4));
    if (sph)
        PYRAMARCH_TRY(m.makePipeline(densityPipe, t ? std::span<const uint32_t>(kDensityTexelSpv) : kDensitySpv,
                                     "particles.density", 4));
    if (aniso) {
        PYRAMARCH_TRY(
            m.makePipeline(anisoPipe, t ? std::span<const uint32_t>(kAnisoTexelSpv) : kAnisoSpv, "particles.aniso", 4));
        if (sph)
            return m.makePipeline(gatherPipe,
                                  t ? std::span<const uint32_t>(kGatherAnisoTexelSphSpv) : kGatherAnisoSphSpv,
                                  "particles.gather.aniso.sph", 5);
        return m.makePipeline(gatherPipe, t ? std::span<const uint32_t>(kGatherAnisoTexelSpv) : kGatherAnisoSpv,
                              "particles.gather.aniso", 5);
    }
    if (sph)
        return m.makePipeline(gatherPipe, t ? std::span<const uint32_t>(kGatherTexelSphSpv) : kGatherSphSpv,
                              "particles.gather.sph", 5);
    return m.makePipeline(gatherPipe, t ? std::span<const uint32_t>(kGatherTexelSpv) : kGatherSpv, "particles.gather",
                          5);
}

// Bindings 1 and 2 of the passes reading the bins (particles_reads.glsl):
// texel buffers where texelReads, else storage.
void ParticleProvider::bindReads(PassBuilder& pass, BufferRef starts, BufferRef records) const {
    if (texelReads)
        pass.texel(1, starts, VK_FORMAT_R32_UINT, Access::SampledRead)
            .texel(2, records, VK_FORMAT_R32G32B32A32_SFLOAT, Access::SampledRead);
    else
        pass.storage(1, starts, Access::StorageRead).storage(2, records, Access::StorageRead);
}

void ParticleProvider::addGatherPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs) {
    const std::string& n = m.info.name;
    Impl* const im = &m;
    const ExternalUse computeRead{Access::StorageRead, PassKind::Compute};
    const ExternalUse computeRW{Access::StorageReadWrite, PassKind::Compute};
    // The starts pass clears the counts after reading them: a frame leaves
    // them zero (read-write), and the first frame clears them here.
    const BufferRef countRef = graph.importBuffer(n + ".binCount", binCount, computeRW, computeRW);
    const BufferRef chunkRef = graph.importBuffer(n + ".binChunks", binChunks, computeRW, computeRW);
    const BufferRef startRef = graph.importBuffer(n + ".binStart", binStart, computeRead, computeRead);
    const BufferRef slotsRef = graph.importBuffer(n + ".slots", slots, computeRead, computeRead);
    const BufferRef sortedRef = graph.importBuffer(n + ".sorted", sorted, computeRead, computeRead);
    graph.addPass(n + ".particles.clear", PassKind::Transfer)
        .use(countRef, Access::TransferDst)
        .record([im, countRef](PassContext& ctx) {
            im->beginFrame(ctx);
            if (im->recording() == 0) ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(countRef), 0, VK_WHOLE_SIZE, 0);
        });
    // Count, scan and sort `input` (the frame's particles, or with smoothing
    // the smoothed ones: srcLevel kIsoRebinSmoothed) into `output`.
    // count and sort: one thread per particle, srcLevel says which particles.
    const auto perParticle = [im](uint32_t srcLevel) {
        return [im, srcLevel](PassContext& ctx) {
            gpu::IsoPush pc = im->push();
            pc.srcLevel = srcLevel;
            ctx.pushConstants(pc);
            dispatchFolded(ctx, groupsOf(im->itemCount, gpu::kIsoGroupSize), im->maxGroupsX());
        };
    };
    const auto binPasses = [&](const std::string& prefix, BufferRef input, uint64_t inputRange, uint32_t srcLevel,
                               BufferRef output) {
        graph.addPass(prefix + ".count", PassKind::Compute)
            .pipeline(countPipe)
            .uniform(0, refs.grid)
            .storage(1, input, R, 0, inputRange)
            .storage(2, countRef, RW)
            .storage(3, slotsRef, W)
            .record(perParticle(srcLevel));
        m.addExclusiveScan(graph, prefix + ".scan.", binScanPipe, binScanTopPipe, refs.grid, countRef, chunkRef,
                           startRef, m.grid.binDims.w);
        graph.addPass(prefix + ".sort", PassKind::Compute)
            .pipeline(sortPipe)
            .uniform(0, refs.grid)
            .storage(1, input, R, 0, inputRange)
            .storage(2, slotsRef, R)
            .storage(3, startRef, R)
            .storage(4, output, W)
            .record(perParticle(srcLevel));
        // Surface attributes follow their particles to the binned order (surface_attributes.cpp).
        m.attributes.addSortPass(m, graph, refs, input, inputRange, srcLevel, slotsRef, startRef);
    };
    binPasses(n + ".particles", refs.items, refs.itemRange, 0, sortedRef);
    // A thread per particle reading its neighbours in the bins, writing one
    // record per particle (smoothing, density, kernels).
    const auto neighbourPass = [&](const char* suffix, const ComputePipeline& pipe, BufferRef input, BufferRef output) {
        PassBuilder pass = graph.addPass(n + suffix, PassKind::Compute);
        pass.pipeline(pipe).uniform(0, refs.grid);
        bindReads(pass, startRef, input);
        pass.storage(3, output, W).record([im](PassContext& ctx) {
            ctx.pushConstants(im->push());
            dispatchFolded(ctx, groupsOf(im->itemCount, gpu::kIsoGroupSize), im->maxGroupsX());
        });
    };
    BufferRef gatherInput = sortedRef;
    if (smooth) {
        const BufferRef smoothedRef = graph.importBuffer(n + ".smoothed", smoothed, computeRead, computeRead);
        neighbourPass(".particles.smooth", smoothPipe, sortedRef, smoothedRef);
        // The smoothed particles left their bins (by up to lambda r): sort
        // them again so the gather reads only the bins within r.
        gatherInput = graph.importBuffer(n + ".rebinned", rebinned, computeRead, computeRead);
        binPasses(n + ".particles.rebin", smoothedRef, VK_WHOLE_SIZE, gpu::kIsoRebinSmoothed, gatherInput);
    }
    // ParticleKernel::SphCubicSpline: each particle's volume from its
    // neighbours' density (the particles the gather or the aniso pass reads,
    // in the same order), into `volumes`.
    BufferRef anisoInput = sortedRef;
    if (sph) {
        const BufferRef densityInput = aniso ? sortedRef : gatherInput;
        // Surface attributes weigh by them too.
        volumesRef = graph.importBuffer(n + ".volumes", volumes, computeRead, computeRead);
        neighbourPass(".particles.density", densityPipe, densityInput, volumesRef);
        if (aniso)
            anisoInput = volumesRef; // the kernels' weights become V det G'
        else
            gatherInput = volumesRef;
    }
    if (aniso) {
        gatherInput = graph.importBuffer(n + ".kernels", kernels, computeRead, computeRead);
        neighbourPass(".particles.aniso", anisoPipe, anisoInput, gatherInput);
    }
    const uint64_t runs = tiles(m.grid);
    // On the bricks the gather (isotropic or anisotropic) also flags its
    // tiles holding a nonzero sample, which bound the bricks (else the field
    // stands in, never written through it).
    const BufferRef tilesRef = tileFlagsRef(refs);
    PassBuilder gatherPass = graph.addPass(n + ".particles.gather", PassKind::Compute);
    gatherPass.pipeline(gatherPipe).uniform(0, refs.grid);
    bindReads(gatherPass, startRef, gatherInput);
    gatherPass.storage(3, refs.field, W).record([im, runs](PassContext& ctx) {
        ctx.pushConstants(im->push());
        dispatchFolded(ctx, groupsOf(runs, gpu::kIsoGroupSize), im->maxGroupsX());
    });
    gatherPass.storage(4, tilesRef, W);
}

} // namespace pyramarch::iso
