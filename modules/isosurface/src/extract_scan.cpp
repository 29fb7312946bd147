// The scan-based baseline (ExtractionMethod::Scan, the CUDA sample's
// pipeline): down-sweeps of the vertex-count tree ("<name>.scan.<level>") and
// the occupancy tree ("<name>.occupancy.scan.<level>"; levels top-1 .. 1,
// level 0 is finished by the consumers), compaction of the active cells
// ("<name>.compact"), then one thread per active cell ("<name>.generate",
// indirect, sized by the args pass) writes its vertices at its offset.
#include <cstddef>

#include "iso_impl.h"

namespace pyramarch::iso {
namespace {
const uint32_t kScanDownSpv[] =
#include "shaders/isosurface/scan_down.comp.spv.inc"
    ;
const uint32_t kGenerateSpv[] =
#include "shaders/isosurface/generate.comp.spv.inc"
    ;
const uint32_t kCompactSpv[] =
#include "shaders/isosurface/compact.comp.spv.inc"
    ;
// compact.comp reads the cell's case and its preceding siblings' from one
// level-0 word, so level 0 must stay u8.
static_assert(gpu::kIsoPackedLevels >= 1);
} // namespace

Status IsoSurface::Impl::createScanPipelines() {
    // The down-sweep also serves the particle gather's bin scan.
    if (!scanDown.pipeline()) PYRAMARCH_TRY(makePipeline(scanDown, kScanDownSpv, "scan", 3));
    if (!scan) return {};
    PYRAMARCH_TRY(makePipeline(generate, kGenerateSpv, "generate", 9 + kSliceBindings));
    return makePipeline(compact, kCompactSpv, "compact", 4);
}

void IsoSurface::Impl::addScanPasses(RenderGraph& graph, const IsoRefs& refs) {
    const std::string& n = info.name;
    const ExternalUse computeRead{Access::StorageRead, PassKind::Compute};
    const BufferRef offsetsRef = graph.importBuffer(n + ".offsets", offsets, computeRead, computeRead);
    const BufferRef occOffsetsRef = graph.importBuffer(n + ".occOffsets", occOffsets, computeRead, computeRead);
    const BufferRef activeRef = graph.importBuffer(n + ".active", active, computeRead, computeRead);
    const uint32_t top = grid.levelCount - 1;
    for (uint32_t k = top > 0 ? top - 1 : 0; k >= 1 && k < top; --k) {
        const uint64_t groups = groupsOf(grid.levels[k].y, gpu::kIsoGroupSize);
        auto down = [this, k, groups](PassContext& ctx) {
            gpu::IsoPush pc = push();
            pc.srcLevel = k;
            ctx.pushConstants(pc);
            dispatchFolded(ctx, groups, maxGroupsX());
        };
        // The two trees' down-sweeps are independent (no barrier between them).
        graph.addPass(n + ".scan." + std::to_string(k), PassKind::Compute)
            .pipeline(scanDown)
            .uniform(0, refs.grid)
            .storage(1, refs.pyramid, R)
            .storage(2, offsetsRef, RW)
            .record(down);
        graph.addPass(n + ".occupancy.scan." + std::to_string(k), PassKind::Compute)
            .pipeline(scanDown)
            .uniform(0, refs.occGrid)
            .storage(1, refs.occupancy, R)
            .storage(2, occOffsetsRef, RW)
            .record(down);
    }
    const uint64_t cellGroups = groupsOf(grid.cells.w, gpu::kIsoGroupSize);
    graph.addPass(n + ".compact", PassKind::Compute)
        .pipeline(compact)
        .uniform(0, refs.grid)
        .storage(1, refs.pyramid, R)
        .storage(2, occOffsetsRef, R)
        .storage(3, activeRef, W)
        .record([this, cellGroups](PassContext& ctx) {
            ctx.pushConstants(push());
            dispatchFolded(ctx, cellGroups, maxGroupsX());
        });
    PassBuilder generatePass = graph.addPass(n + ".generate", PassKind::Compute);
    vertexSlices(generatePass, 5, 9, refs.vertices, W);
    generatePass.pipeline(generate)
        .uniform(0, refs.grid)
        .uniform(1, refs.tables)
        .storage(2, refs.field, R)
        .storage(3, refs.pyramid, R)
        .storage(4, offsetsRef, R)
        .storage(6, activeRef, R)
        .uniform(7, refs.occGrid)
        .storage(8, refs.occupancy, R)
        .use(refs.args, Access::IndirectRead)
        .record(indirectDispatch(refs.args, offsetof(gpu::IsoArgs, dispatchX)));
}

} // namespace pyramarch::iso
