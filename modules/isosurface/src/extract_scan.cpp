// The scan-based baseline (testing::ExtractionMethod::Scan, the CUDA
// sample's pipeline, kept for `pyramarch bench`). Pass "<name>.classify": in
// cell order, one thread per 16 cells along x over every run of the grid (a
// volume's uniform runs skipped by their bounds), MC case + vertex count into
// the pyramid's base, levels 1 and 2 and the occupancy tree's level 1; then
// the builds "<name>.pyramid.<level>" and "<name>.occupancy.<level>"
// (Impl::addPyramidBuild). After args: down-sweeps of the vertex-count tree ("<name>.scan.<level>") and
// the occupancy tree ("<name>.occupancy.scan.<level>"; levels top-1 .. 1,
// level 0 is finished by the consumers), compaction of the active cells
// ("<name>.compact"), then one thread per active cell ("<name>.generate",
// indirect, sized by the args pass) writes its vertices at its offset.
#include "extract_scan.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "iso_impl.h"

namespace pyramarch::iso {
namespace {
const uint32_t kClassifySpv[] =
#include "shaders/isosurface/classify.comp.spv.inc"
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

void ScanStage::plan(const gpu::IsoGrid& g) {
    // The occupancy tree has the cell pyramid's shape but no level 0 of
    // its own (occupancy is count != 0 of the cell pyramid's base): its
    // levels >= 1 start at element 0.
    gpu::IsoGrid o = g;
    for (uint32_t l = 1; l < g.levelCount; ++l) o.levels[l].z = g.levels[l].z - g.levels[0].y;
    o.levels[0].z = 0;
    for (uint32_t l = 0; l < gpu::kIsoMaxLevels; ++l) o.levels[l].x = o.levels[l].z; // 32-bit levels
    o.packedLevels = 0;
    occGrid = o;
}

Status ScanStage::createBuffers(Impl& m, const MakeBuffer& make) {
    if (!enabled) return {};
    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    const VkBufferUsageFlags readable = storage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    const uint64_t upper = (m.sizes.pyramidElements - m.grid.levels[0].y) * 4;
    PYRAMARCH_TRY(make(offsets, upper, storage, MemoryUsage::DeviceLocal, "offsets"));
    PYRAMARCH_TRY(make(occGridBuf, sizeof(gpu::IsoGrid), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, MemoryUsage::Upload,
                       "occupancy grid"));
    PYRAMARCH_TRY(
        make(occupancy, upper, readable | VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUsage::DeviceLocal, "occupancy"));
    PYRAMARCH_TRY(make(occOffsets, upper, storage, MemoryUsage::DeviceLocal, "occupancy offsets"));
    // Every cell may be active (capacity: all cells).
    PYRAMARCH_TRY(make(active, m.sizes.cells * 4, readable, MemoryUsage::DeviceLocal, "active cells"));
    std::memcpy(occGridBuf.mapped(), &occGrid, sizeof(gpu::IsoGrid));
    occGridBuf.flush();
    return {};
}

Status ScanStage::createPipelines(Impl& m) {
    if (!enabled) return {};
    const std::span<const uint32_t> classifySpv =
        m.texelReads
            ? (m.subgroupAtomics ? std::span<const uint32_t>(kClassifySubgroupSpv) : kClassifySpv)
            : (m.subgroupAtomics ? std::span<const uint32_t>(kClassifySubgroupStorageSpv) : kClassifyStorageSpv);
    // The cell order is the scan's only: a field buffer, never fused.
    PYRAMARCH_TRY(m.makePipeline(classify, classifySpv, "classify", 11));
    PYRAMARCH_TRY(m.makePipeline(scanDown, kScanDownSpv, "scan", 3));
    PYRAMARCH_TRY(m.makePipeline(generate, kGenerateSpv, "generate", 9 + kSliceBindings));
    return m.makePipeline(compact, kCompactSpv, "compact", 4);
}

void ScanStage::importBuffers(Impl& m, RenderGraph& graph, IsoRefs& refs) {
    if (!enabled) return;
    const std::string& n = m.info.name;
    const ExternalUse uniformRead{Access::UniformRead, PassKind::Compute};
    const ExternalUse computeRead{Access::StorageRead, PassKind::Compute};
    refs.occGrid = graph.importBuffer(n + ".occGrid", occGridBuf, uniformRead, uniformRead, true);
    refs.occupancy = graph.importBuffer(n + ".occupancy", occupancy, computeRead, computeRead);
}

void ScanStage::addClassifyPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs) {
    const IsoSurfaceCreateInfo& info = m.info;
    const gpu::IsoGrid& grid = m.grid;
    const uint64_t cellGroups = groupsOf(grid.cells.w, gpu::kIsoClassifyCells * gpu::kIsoClassifyGroupSize);
    PassBuilder pass = graph.addPass(info.name + ".classify", PassKind::Compute);
    pass.pipeline(classify)
        .uniform(0, refs.grid)
        .storage(3, refs.pyramid, RW)
        .storage(4, refs.counters, RW)
        .storage(5, refs.occupancy, W) // occupancy level 1
        .storage(6, info.source == FieldSource::Volume ? refs.runBounds : refs.pyramid,
                 R) // per-run value bounds (volume), else unused: the pyramid stands in
        .storage(10, info.source == FieldSource::Volume ? refs.wrapBounds : refs.pyramid,
                 R); // the second interval of runs past their first row (volume), else unused
    // Bindings 1, 7, 8 and 9 are not used.
    if (m.texelReads)
        pass.texel(2, refs.field, VK_FORMAT_R32G32B32A32_SFLOAT, Access::SampledRead);
    else
        pass.storage(2, refs.field, R);
    pass.record(m.foldedDispatch(cellGroups));
    const uint32_t classifyLevels = std::min(gpu::kIsoClassifyLevels, grid.levelCount - 1);
    m.addPyramidBuild(graph, info.name + ".pyramid.", refs.grid, refs.pyramid, grid, classifyLevels);
    // Up-sweep of the occupancy tree (level 1 came from classify).
    m.addPyramidBuild(graph, info.name + ".occupancy.", refs.occGrid, refs.occupancy, occGrid,
                      std::min(1u, grid.levelCount - 1));
}

void ScanStage::addExtractPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs) {
    const std::string& n = m.info.name;
    const gpu::IsoGrid& grid = m.grid;
    const ExternalUse computeRead{Access::StorageRead, PassKind::Compute};
    const BufferRef offsetsRef = graph.importBuffer(n + ".offsets", offsets, computeRead, computeRead);
    const BufferRef occOffsetsRef = graph.importBuffer(n + ".occOffsets", occOffsets, computeRead, computeRead);
    const BufferRef activeRef = graph.importBuffer(n + ".active", active, computeRead, computeRead);
    const uint32_t top = grid.levelCount - 1;
    for (uint32_t k = top > 0 ? top - 1 : 0; k >= 1 && k < top; --k) {
        const uint64_t groups = groupsOf(grid.levels[k].y, gpu::kIsoGroupSize);
        const RecordFn down = m.modeDispatch(k, groups);
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
        .record(m.foldedDispatch(cellGroups));
    PassBuilder generatePass = graph.addPass(n + ".generate", PassKind::Compute);
    m.vertexSlices(generatePass, 5, 9, refs.vertices, W);
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
        .record(m.indirectDispatch(refs.args, offsetof(gpu::IsoArgs, dispatchX)));
}

} // namespace pyramarch::iso
