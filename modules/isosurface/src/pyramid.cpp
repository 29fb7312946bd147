// The reductions the stages share. The pyramid build every classify ends
// with, passes "<name>.pyramid.<level>": the 4-ary HistoPyramid reduction,
// kIsoBuildLevelsPerPass levels per dispatch in shared memory; the same pass
// builds the occupancy tree ("<name>.occupancy.<level>") and the vertex
// pyramid ("<name>.vertices.pyramid.<level>"). The exclusive scan of a
// count per element (the particle gather's bins, mesh smoothing's
// vertices), passes "<prefix>{sums,top,starts}".
#include <algorithm>

#include "iso_impl.h"

namespace pyramarch::iso {
namespace {
const uint32_t kBuildSpv[] =
#include "shaders/isosurface/pyramid_build.comp.spv.inc"
    ;
const uint32_t kScanSpv[] =
#include "shaders/isosurface/particles_scan.comp.spv.inc"
    ;
const uint32_t kScanTopSpv[] =
#include "shaders/isosurface/particles_scan_top.comp.spv.inc"
    ;
} // namespace

Status IsoSurface::Impl::makeScanPipelines(ComputePipeline& chunks, ComputePipeline& top, const std::string& what) {
    PYRAMARCH_TRY(makePipeline(chunks, kScanSpv, what.c_str(), 4));
    return makePipeline(top, kScanTopSpv, (what + ".top").c_str(), 2);
}

// Three passes over chunks of kIsoBinScanChunk elements: chunk sums (one
// thread per chunk), their exclusive prefix (one workgroup, whatever the
// chunk count: particles_scan_top.comp), then each chunk's starts (one
// thread per chunk), which zeroes the counts it read.
void IsoSurface::Impl::addExclusiveScan(RenderGraph& graph, const std::string& prefix, const ComputePipeline& chunks,
                                        const ComputePipeline& top, BufferRef layout, BufferRef counts,
                                        BufferRef chunkSums, BufferRef starts, uint64_t elements) const {
    const uint64_t groups = groupsOf(groupsOf(elements, gpu::kIsoBinScanChunk), gpu::kIsoGroupSize);
    // Written by "starts" only, but the binding is writeonly in both
    // modes, so synchronization validation counts each dispatch as a
    // write (a second scan's follows reads).
    graph.addPass(prefix + "sums", PassKind::Compute)
        .pipeline(chunks)
        .uniform(0, layout)
        .storage(1, counts, R)
        .storage(2, chunkSums, W)
        .storage(3, starts, W)
        .record(modeDispatch(0, groups));
    graph.addPass(prefix + "top", PassKind::Compute)
        .pipeline(top)
        .uniform(0, layout)
        .storage(1, chunkSums, RW)
        .record([](PassContext& ctx) { ctx.dispatch(1, 1, 1); });
    graph.addPass(prefix + "starts", PassKind::Compute)
        .pipeline(chunks)
        .uniform(0, layout)
        .storage(1, counts, RW)
        .storage(2, chunkSums, R)
        .storage(3, starts, W)
        .record(modeDispatch(1, groups));
}

Status IsoSurface::Impl::createBuildPipeline() { return makePipeline(build, kBuildSpv, "pyramid", 2); }

void IsoSurface::Impl::addPyramidBuild(RenderGraph& graph, const std::string& prefix, BufferRef layout,
                                       BufferRef levelsBuf, const gpu::IsoGrid& g, uint32_t first, BufferRef firstArgs,
                                       VkDeviceSize firstArgsOffset) {
    const uint32_t topLevel = g.levelCount - 1;
    for (uint32_t src = first; src < topLevel; src += gpu::kIsoBuildLevelsPerPass) {
        const uint32_t levels = std::min(gpu::kIsoBuildLevelsPerPass, topLevel - src);
        const uint64_t groups = groupsOf(g.levels[src].y, gpu::kIsoBuildGroupSize * 4);
        const BufferRef args = src == first ? firstArgs : BufferRef{};
        PassBuilder pass = graph.addPass(prefix + std::to_string(src), PassKind::Compute);
        pass.pipeline(build).uniform(0, layout).storage(1, levelsBuf, RW);
        if (args.valid()) pass.use(args, Access::IndirectRead);
        pass.record([this, src, levels, groups, args, firstArgsOffset](PassContext& ctx) {
            gpu::IsoPush pc = push();
            pc.srcLevel = src;
            pc.numLevels = levels;
            ctx.pushConstants(pc);
            if (args.valid())
                ctx.dispatchIndirect(args, firstArgsOffset);
            else
                dispatchFolded(ctx, groups, maxGroupsX());
        });
    }
}

} // namespace pyramarch::iso
