// Classify (the scan's cell order) and pyramid build. Pass "<name>.classify":
// one thread per 16 cells along x, over every run of the grid (a volume's
// uniform runs skipped by their bounds), MC case + vertex count into the
// pyramid's base, levels 1 and 2 and the occupancy tree's level 1. Passes "<name>.pyramid.<level>":
// the 4-ary HistoPyramid reduction, kIsoBuildLevelsPerPass levels per
// dispatch in shared memory; the same pass builds the occupancy tree
// ("<name>.occupancy.<level>") and the edge pyramid ("<name>.edges.pyramid.<level>").
#include <algorithm>

#include "iso_impl.h"

namespace pyramarch::iso {
namespace {
const uint32_t kClassifySpv[] =
#include "shaders/isosurface/classify.comp.spv.inc"
    ;
const uint32_t kBuildSpv[] =
#include "shaders/isosurface/pyramid_build.comp.spv.inc"
    ;
// ISO_SUBGROUP_ATOMICS variant: one atomic per subgroup. Its own SPIR-V,
// since it declares capabilities (ballot, arithmetic) a device may lack.
const uint32_t kClassifySubgroupSpv[] =
#include "shaders/isosurface/classify.subgroup.comp.spv.inc"
    ;
// ISO_STORAGE_READS variants: the field as a storage buffer, where the
// device's maxTexelBufferElements does not cover the quad view (texelReads).
const uint32_t kClassifyStorageSpv[] =
#include "shaders/isosurface/classify.storage.comp.spv.inc"
    ;
const uint32_t kClassifySubgroupStorageSpv[] =
#include "shaders/isosurface/classify.subgroup_storage.comp.spv.inc"
    ;
} // namespace

Status IsoSurface::Impl::createPyramidPipelines() {
    const std::span<const uint32_t> classifySpv =
        texelReads ? (subgroupAtomics ? std::span<const uint32_t>(kClassifySubgroupSpv) : kClassifySpv)
                   : (subgroupAtomics ? std::span<const uint32_t>(kClassifySubgroupStorageSpv) : kClassifyStorageSpv);
    // The cell order is the scan's only: a field buffer, never fused.
    PYRAMARCH_TRY(makePipeline(classify, classifySpv, "classify", 11));
    return createBuildPipeline();
}

Status IsoSurface::Impl::createBuildPipeline() { return makePipeline(build, kBuildSpv, "pyramid", 2); }

void IsoSurface::Impl::addClassifyPass(RenderGraph& graph, const IsoRefs& refs) {
    const uint64_t cellGroups = groupsOf(grid.cells.w, gpu::kIsoClassifyCells * gpu::kIsoClassifyGroupSize);
    PassBuilder pass = graph.addPass(info.name + ".classify", PassKind::Compute);
    pass.pipeline(classify)
        .uniform(0, refs.grid)
        .storage(3, refs.pyramid, RW)
        .storage(4, refs.counters, RW)
        .storage(5, scan ? refs.occupancy : refs.pyramid,
                 W) // occupancy level 1 (scan), else unused: the pyramid stands in
        .storage(6, info.source == FieldSource::Volume ? refs.runBounds : refs.pyramid,
                 R) // per-run value bounds (volume), else unused: the pyramid stands in
        .storage(10, info.source == FieldSource::Volume ? refs.wrapBounds : refs.pyramid,
                 R); // the second interval of runs past their first row (volume), else unused
    // Bindings 1, 7, 8 and 9 are not used.
    if (texelReads)
        pass.texel(2, refs.field, VK_FORMAT_R32G32B32A32_SFLOAT, Access::SampledRead);
    else
        pass.storage(2, refs.field, R);
    pass.record([this, cellGroups](PassContext& ctx) {
        ctx.pushConstants(push());
        dispatchFolded(ctx, cellGroups, maxGroupsX());
    });
    const uint32_t classifyLevels = std::min(gpu::kIsoClassifyLevels, grid.levelCount - 1);
    addPyramidBuild(graph, info.name + ".pyramid.", refs.grid, refs.pyramid, grid, classifyLevels);
    // Scan: up-sweep of the occupancy tree (level 1 came from classify).
    if (scan)
        addPyramidBuild(graph, info.name + ".occupancy.", refs.occGrid, refs.occupancy, occGrid,
                        std::min(1u, grid.levelCount - 1));
}

void IsoSurface::Impl::addPyramidBuild(RenderGraph& graph, const std::string& prefix, BufferRef layout,
                                       BufferRef levelsBuf, const gpu::IsoGrid& g, uint32_t first) {
    const uint32_t topLevel = g.levelCount - 1;
    for (uint32_t src = first; src < topLevel; src += gpu::kIsoBuildLevelsPerPass) {
        const uint32_t levels = std::min(gpu::kIsoBuildLevelsPerPass, topLevel - src);
        const uint64_t groups = groupsOf(g.levels[src].y, gpu::kIsoBuildGroupSize * 4);
        graph.addPass(prefix + std::to_string(src), PassKind::Compute)
            .pipeline(build)
            .uniform(0, layout)
            .storage(1, levelsBuf, RW)
            .record([this, src, levels, groups](PassContext& ctx) {
                gpu::IsoPush pc = push();
                pc.srcLevel = src;
                pc.numLevels = levels;
                ctx.pushConstants(pc);
                dispatchFolded(ctx, groups, maxGroupsX());
            });
    }
}

} // namespace pyramarch::iso
