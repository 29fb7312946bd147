// The pyramid build every classify ends with. Passes "<name>.pyramid.<level>":
// the 4-ary HistoPyramid reduction, kIsoBuildLevelsPerPass levels per
// dispatch in shared memory; the same pass builds the occupancy tree
// ("<name>.occupancy.<level>") and the edge pyramid ("<name>.edges.pyramid.<level>").
#include <algorithm>

#include "iso_impl.h"

namespace pyramarch::iso {
namespace {
const uint32_t kBuildSpv[] =
#include "shaders/isosurface/pyramid_build.comp.spv.inc"
    ;
} // namespace

Status IsoSurface::Impl::createBuildPipeline() { return makePipeline(build, kBuildSpv, "pyramid", 2); }

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
