// Sparse domains (IsoSurfaceCreateInfo::sparse): a virtual grid of bricks of
// kIsoBrickCells^3 cells, only the bricks near the surface classified and
// only the row pairs with a cut cell kept, in a pool the pyramid is built
// over. Passes, every frame:
//   "<name>.sparse.clear"     level 2 of the pool pyramid (one word per slot) to 0:
//                             slots no pair claims this frame count nothing
//   "<name>.sparse.supers"    one thread per super-brick of 8^3 bricks: list those
//                             whose interval, grown by a brick's, reaches the iso value
//   "<name>.sparse.supers.args"  their count -> the activate pass's indirect dispatch
//   "<name>.sparse.activate"  one thread per brick of a listed super-brick: list the
//                             bricks whose Lipschitz interval reaches the iso value
//                             (all four: sparse_activate.glsl)
//   "<name>.sparse.args"      their count -> classify's indirect dispatch
//   "<name>.classify"         a thread per row pair of a listed brick: cases,
//                             a pool slot if cut (sparse_classify.comp)
//   "<name>.pyramid.*"        the build over the pool, from level 2 up (pyramid.cpp)
// then, after "<name>.args", "<name>.extract" (sparse_extract.comp): the walk
// ends at a pool cell, its slot's record names brick and pair.
// Every shader here is compiled at creation with the user's field().
#include <algorithm>
#include <cstddef>

#include "iso_glsl_text.h"
#include "iso_impl.h"

namespace pyramarch::iso {

Status IsoSurface::Impl::createSparsePipelines() {
    PYRAMARCH_TRY_ASSIGN(const std::vector<uint32_t> supers, sparseActivateSpirv(true));
    PYRAMARCH_TRY(makePipeline(sparseSupersPipe, supers, "sparse.supers", 5, false));
    PYRAMARCH_TRY_ASSIGN(const std::vector<uint32_t> activate, sparseActivateSpirv(false));
    PYRAMARCH_TRY(makePipeline(sparseActivatePipe, activate, "sparse.activate", 5, false));
    PYRAMARCH_TRY_ASSIGN(const std::vector<uint32_t> classifySpv,
                         fusedSpirv(kIsoText_sparse_classify_comp, "classify"));
    PYRAMARCH_TRY(makePipeline(classify, classifySpv, "classify", 7));
    PYRAMARCH_TRY_ASSIGN(const std::vector<uint32_t> extractSpv, fusedSpirv(kIsoText_sparse_extract_comp, "extract"));
    PYRAMARCH_TRY(makePipeline(extract, extractSpv, "extract", 7));
    return createBuildPipeline();
}

void IsoSurface::Impl::addSparseClassifyPasses(RenderGraph& graph, const IsoRefs& refs) {
    const VkDeviceSize level2Offset = VkDeviceSize(grid.levels[2].x) * 4,
                       level2Bytes = VkDeviceSize(grid.levels[2].y) * 4;
    graph.addPass(info.name + ".sparse.clear", PassKind::Transfer)
        .use(refs.pyramid, Access::TransferDst)
        .record([this, refs, level2Offset, level2Bytes](PassContext& ctx) {
            beginFrame(ctx); // the frame's first pass
            ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(refs.pyramid), level2Offset, level2Bytes, 0);
        });
    // sparse_activate.glsl's modes: 0 super-bricks, 1 their count -> the
    // fine pass's dispatch (the coarse build); 2 bricks, 3 their count ->
    // classify's dispatch (the fine build).
    const auto coarse = [&](const char* suffix, uint32_t mode, uint64_t groups) {
        graph.addPass(info.name + suffix, PassKind::Compute)
            .pipeline(sparseSupersPipe)
            .uniform(0, refs.grid)
            .storage(1, refs.counters, RW)
            .storage(3, refs.superArgs, W)
            .storage(4, refs.superList, W)
            .record(modeDispatch(mode, groups));
    };
    const auto fine = [&](const char* suffix, uint32_t mode) {
        PassBuilder pass = graph.addPass(info.name + suffix, PassKind::Compute);
        pass.pipeline(sparseActivatePipe)
            .uniform(0, refs.grid)
            .storage(1, refs.counters, RW)
            .storage(2, refs.brickList, W)
            .storage(3, refs.sparseArgs, W)
            .storage(4, refs.superList, R);
        if (mode == 2)
            pass.use(refs.superArgs, Access::IndirectRead).record([this, args = refs.superArgs](PassContext& ctx) {
                gpu::IsoPush pc = push();
                pc.srcLevel = 2;
                ctx.pushConstants(pc);
                ctx.dispatchIndirect(args, 0);
            });
        else
            pass.record(modeDispatch(3, 1));
    };
    coarse(".sparse.supers", 0, groupsOf(grid.superBricks.w, gpu::kIsoGroupSize));
    coarse(".sparse.supers.args", 1, 1);
    fine(".sparse.activate", 2);
    fine(".sparse.args", 3);
    graph.addPass(info.name + ".classify", PassKind::Compute)
        .pipeline(classify)
        .uniform(0, refs.grid)
        .storage(3, refs.pyramid, RW)
        .storage(4, refs.counters, RW)
        .storage(5, refs.brickList, R)
        .storage(6, refs.slotRecords, W)
        .use(refs.sparseArgs, Access::IndirectRead)
        .record(indirectDispatch(refs.sparseArgs, 0));
    addPyramidBuild(graph, info.name + ".pyramid.", refs.grid, refs.pyramid, grid,
                    std::min(gpu::kIsoClassifyLevels, grid.levelCount - 1));
}

void IsoSurface::Impl::addSparseExtractPass(RenderGraph& graph, const IsoRefs& refs) {
    PassBuilder pass = graph.addPass(info.name + ".extract", PassKind::Compute);
    pass.pipeline(extract)
        .uniform(0, refs.grid)
        .uniform(1, refs.tables)
        .storage(4, refs.vertices, W)
        .storage(5, refs.brickList, R)
        .storage(6, refs.slotRecords, R);
    if (texelReads)
        pass.texel(3, refs.pyramid, VK_FORMAT_R32G32B32A32_UINT, Access::SampledRead);
    else
        pass.storage(3, refs.pyramid, R);
    pass.use(refs.args, Access::IndirectRead).record(indirectDispatch(refs.args, offsetof(gpu::IsoArgs, dispatchX)));
}

} // namespace pyramarch::iso
