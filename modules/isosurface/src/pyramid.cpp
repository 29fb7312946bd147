// Classify and pyramid build. Pass "<name>.classify": one thread per 16 cells
// along x, MC case + vertex count into the pyramid's base, and levels 1 and 2 (and, for the
// scan baseline, the occupancy tree's level 1). Passes "<name>.pyramid.<level>":
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
} // namespace

Status IsoSurface::Impl::createPyramidPipelines() {
    PYRAMARCH_TRY(makePipeline(classify, kClassifySpv, "classify", 7));
    return makePipeline(build, kBuildSpv, "pyramid", 2);
}

void IsoSurface::Impl::addClassifyPass(RenderGraph& graph, const IsoRefs& refs) {
    const uint64_t cellGroups = groupsOf(grid.cells.w, gpu::kIsoClassifyCells * gpu::kIsoClassifyGroupSize);
    graph.addPass(info.name + ".classify", PassKind::Compute)
        .pipeline(classify)
        .storage(0, refs.grid, R)
        .storage(1, refs.tables, R)
        .storage(2, refs.field, R)
        .storage(3, refs.pyramid, W)
        .storage(4, refs.counters, RW)
        .storage(5, scan ? refs.occupancy : refs.pyramid,
                 W) // occupancy level 1 (scan), else unused: the pyramid stands in
        .storage(6, info.source == FieldSource::Volume ? refs.runBounds : refs.pyramid,
                 R) // per-run value bounds (volume), else unused: the pyramid stands in
        .record([this, cellGroups](PassContext& ctx) {
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
        const uint64_t groups = groupsOf(g.levelSize[src], gpu::kIsoBuildGroupSize * 4);
        graph.addPass(prefix + std::to_string(src), PassKind::Compute)
            .pipeline(build)
            .storage(0, layout, R)
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
