// Pass "<name>.args": one invocation reads the top of the pyramid (and of the
// edge pyramid or occupancy tree) and writes the extraction dispatch (folded
// under maxComputeWorkGroupCount), the draw commands and the frame's stats,
// clamped to the capacities.
#include "iso_impl.h"

namespace pyramarch::iso {
namespace {
const uint32_t kArgsSpv[] =
#include "shaders/isosurface/args.comp.spv.inc"
    ;
} // namespace

Status IsoSurface::Impl::createArgsPipelines() { return makePipeline(argsPipe, kArgsSpv, "args", 7); }

void IsoSurface::Impl::addArgsPass(RenderGraph& graph, const IsoRefs& refs) {
    // Bindings 5/6: the vertex pyramid (indexed), the occupancy tree (scan), or
    // unused (the cell pyramid stands in).
    graph.addPass(info.name + ".args", PassKind::Compute)
        .pipeline(argsPipe)
        .uniform(0, refs.grid)
        .storage(1, refs.pyramid, R)
        .storage(2, refs.counters, RW)
        .storage(3, refs.args, W)
        .storage(4, refs.stats, W)
        .uniform(5, indexed                ? refs.vertexGrid
                    : scanBaseline.enabled ? refs.occGrid
                                           : refs.grid)
        .storage(6,
                 indexed                ? refs.vertexPyramid
                 : scanBaseline.enabled ? refs.occupancy
                                        : refs.pyramid,
                 R)
        .record([this](PassContext& ctx) {
            ctx.pushConstants(push());
            ctx.dispatch(1);
        });
}

} // namespace pyramarch::iso
