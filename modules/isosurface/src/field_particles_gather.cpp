// Field source: particles, SplatMethod::Gather. A counting sort of the
// particles into bins of the kernel radius ("<name>.particles.clear",
// ".particles.count", ".particles.bins.<level>" = pyramid build over the bin
// counts, ".particles.scan.<level>" = down-sweep, ".particles.sort"), then one
// thread per sample sums the bins its radius reaches (".particles.gather").
#include <algorithm>

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
} // namespace

Status IsoSurface::Impl::createGatherPipelines() {
    PYRAMARCH_TRY(makePipeline(countPipe, kCountSpv, "particles.count", 5));
    PYRAMARCH_TRY(makePipeline(sortPipe, kSortSpv, "particles.sort", 6));
    return makePipeline(gatherPipe, kGatherSpv, "particles.gather", 5);
    // The bin scan uses the scan pipeline (createScanPipelines).
}

void IsoSurface::Impl::addGatherPasses(RenderGraph& graph, const IsoRefs& refs) {
    const std::string& n = info.name;
    const ExternalUse computeRead{Access::StorageRead, PassKind::Compute};
    const BufferRef binGridRef = graph.importBuffer(n + ".binGrid", binGridBuf, computeRead, computeRead, true);
    const BufferRef binsRef = graph.importBuffer(n + ".bins", bins, computeRead, computeRead);
    const BufferRef binOffsetsRef = graph.importBuffer(n + ".binOffsets", binOffsets, computeRead, computeRead);
    const BufferRef slotsRef = graph.importBuffer(n + ".slots", slots, computeRead, computeRead);
    const BufferRef sortedRef = graph.importBuffer(n + ".sorted", sorted, computeRead, computeRead);
    const gpu::IsoGrid& bg = binGrid;
    const uint64_t binElements = uint64_t(bg.levelOffset[bg.levelCount - 1]) + 1;
    graph.addPass(n + ".particles.clear", PassKind::Transfer)
        .use(binsRef, Access::TransferDst)
        .record([this, binsRef, binElements](PassContext& ctx) {
            beginFrame(ctx);
            ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(binsRef), 0, binElements * 4, 0);
        });
    graph.addPass(n + ".particles.count", PassKind::Compute)
        .pipeline(countPipe)
        .storage(0, binGridRef, R)
        .storage(1, refs.items, R, 0, refs.itemRange)
        .storage(2, binsRef, RW)
        .storage(3, slotsRef, W)
        .storage(4, binOffsetsRef, R)
        .record([this](PassContext& ctx) {
            ctx.pushConstants(push());
            dispatchFolded(ctx, groupsOf(itemCount, gpu::kIsoGroupSize), maxGroupsX());
        });
    const uint32_t binTop = bg.levelCount - 1;
    addPyramidBuild(graph, n + ".particles.bins.", binGridRef, binsRef, bg, 0);
    for (uint32_t k = binTop > 0 ? binTop - 1 : 0; k >= 1 && k < binTop; --k) {
        const uint64_t groups = groupsOf(bg.levelSize[k], gpu::kIsoGroupSize);
        graph.addPass(n + ".particles.scan." + std::to_string(k), PassKind::Compute)
            .pipeline(scanDown)
            .storage(0, binGridRef, R)
            .storage(1, binsRef, R)
            .storage(2, binOffsetsRef, RW)
            .record([this, k, groups](PassContext& ctx) {
                gpu::IsoPush pc = push();
                pc.srcLevel = k;
                ctx.pushConstants(pc);
                dispatchFolded(ctx, groups, maxGroupsX());
            });
    }
    graph.addPass(n + ".particles.sort", PassKind::Compute)
        .pipeline(sortPipe)
        .storage(0, binGridRef, R)
        .storage(1, refs.items, R, 0, refs.itemRange)
        .storage(2, binsRef, R)
        .storage(3, slotsRef, R)
        .storage(4, binOffsetsRef, R)
        .storage(5, sortedRef, W)
        .record([this](PassContext& ctx) {
            ctx.pushConstants(push());
            dispatchFolded(ctx, groupsOf(itemCount, gpu::kIsoGroupSize), maxGroupsX());
        });
    graph.addPass(n + ".particles.gather", PassKind::Compute)
        .pipeline(gatherPipe)
        .storage(0, binGridRef, R)
        .storage(1, binsRef, R)
        .storage(2, binOffsetsRef, R)
        .storage(3, sortedRef, R)
        .storage(4, refs.field, W)
        .record([this](PassContext& ctx) {
            ctx.pushConstants(push());
            dispatchFolded(ctx, groupsOf(grid.samples.w, gpu::kIsoGroupSize), maxGroupsX());
        });
}

} // namespace pyramarch::iso
