// Indexed output (shared vertices): every cut edge is one vertex, owned by
// one cell (shaders/isosurface/vertex_owner.glsl). Indexed output runs on
// the bricks (the direct brick table or a sparse domain's pool): the per-slot
// vertex counts and bases, "<name>.vertices" (one thread per vertex) and
// "<name>.extract" (each triangle's three indices) are in
// sparse_indexed.cpp; the scan has no indexed output.
#include "extract_indexed.h"

#include <cstring>

#include "iso_impl.h"

namespace pyramarch::iso {

Status IndexedStage::plan(Impl& m, uint64_t vertexCells, uint64_t range, const std::string& dev) {
    // Shared vertices: the vertex pyramid has the cell pyramid's levels
    // >= 1 (its level 0 would be per cell: counted from the MC cases
    // instead), u8 sums of 4 cells, then 32-bit (quad-aligned) from the
    // classify runs up; and one first-vertex index per run.
    uint64_t vertexWords = 0;
    if (pyramidLevels((vertexCells + 3) / 4, vertexGrid, 1, &vertexWords, true) == 0)
        return Status::error(ErrorCode::InvalidArgument, "isosurface '" + m.info.name + "': too many cells");
    vertexPyramidBytes = ((vertexWords + 3) & ~uint64_t(3)) * 4;
    runBaseBytes = (vertexCells + gpu::kIsoClassifyCells - 1) / gpu::kIsoClassifyCells * 4;
    if (vertexPyramidBytes > range)
        return m.gridTooLarge = !m.sparse,
               Status::error(ErrorCode::DeviceLimit,
                             "isosurface '" + m.info.name + "': the vertex pyramid over " +
                                 std::to_string(vertexCells) + " cells needs " + fmtBytes(vertexPyramidBytes) +
                                 ", over maxStorageBufferRange (" + fmtBytes(range) + ")" + dev);
    return {};
}

void IndexedStage::planGrid(const gpu::IsoGrid& g) {
    gpu::IsoGrid v = g;
    std::memcpy(v.levels, vertexGrid.levels, sizeof(v.levels));
    v.packedLevels = 1;
    v.levelCount = vertexGrid.levelCount;
    vertexGrid = v;
}

Status IndexedStage::createBuffers(Impl& m, const MakeBuffer& make) {
    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    const VkBufferUsageFlags readable = storage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    const VkBufferUsageFlags texels = VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT;
    PYRAMARCH_TRY(make(vertexGridBuf, sizeof(gpu::IsoGrid), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, MemoryUsage::Upload,
                       "vertex grid"));
    PYRAMARCH_TRY(make(vertexPyramid, vertexPyramidBytes, readable | texels | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                       MemoryUsage::DeviceLocal, "vertex pyramid"));
    PYRAMARCH_TRY(make(runBases, runBaseBytes, storage | texels, MemoryUsage::DeviceLocal, "run bases"));
    PYRAMARCH_TRY(make(indices, m.sizes.indexBytes, readable | VK_BUFFER_USAGE_INDEX_BUFFER_BIT,
                       MemoryUsage::DeviceLocal, "indices"));
    if (!m.sparse) return {};
    PYRAMARCH_TRY(make(lookup, lookupBytes,
                       storage | VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                       MemoryUsage::DeviceLocal, "sparse vertex owner lookup"));
    return make(vertexArgs, 16, storage | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, MemoryUsage::DeviceLocal,
                "sparse per-slot dispatch");
}

Status IndexedStage::createOutputBuffers(Impl& m, const MakeBuffer& make) {
    const VkBufferUsageFlags readable = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    PYRAMARCH_TRY(make(vertexGridBuf, sizeof(gpu::IsoGrid), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, MemoryUsage::Upload,
                       "vertex grid"));
    return make(indices, m.sizes.indexBytes, readable | VK_BUFFER_USAGE_INDEX_BUFFER_BIT, MemoryUsage::DeviceLocal,
                "indices");
}

void IndexedStage::writeGrid(const gpu::IsoGrid& g) {
    vertexGrid.vertexCapacity = g.vertexCapacity;
    vertexGrid.indexCapacity = g.indexCapacity;
    std::memcpy(vertexGridBuf.mapped(), &vertexGrid, sizeof(vertexGrid));
    vertexGridBuf.flush();
}

Status IndexedStage::createPipelines(Impl& m) { return m.sparse ? createSparsePipelines(m) : createDirectPipelines(m); }

void IndexedStage::importBuffers(Impl& m, RenderGraph& graph, IsoRefs& refs) {
    const std::string& n = m.info.name;
    const ExternalUse computeRead{Access::StorageRead, PassKind::Compute};
    const ExternalUse uniformRead{Access::UniformRead, PassKind::Compute};
    const ExternalUse computeIndirect{Access::IndirectRead, PassKind::Compute};
    refs.vertexGrid = graph.importBuffer(n + ".vertexGrid", vertexGridBuf, uniformRead, uniformRead, true);
    refs.vertexPyramid = graph.importBuffer(n + ".vertexPyramid", vertexPyramid, computeRead, computeRead);
    refs.runBases = graph.importBuffer(n + ".runBases", runBases, computeRead, computeRead);
    if (!m.sparse) return;
    refs.sparseLookup = graph.importBuffer(n + ".sparse.lookup", lookup, computeRead, computeRead);
    refs.sparseVertexArgs =
        graph.importBuffer(n + ".sparse.vertices.dispatch", vertexArgs, computeIndirect, computeIndirect);
}

void IndexedStage::addVertexPyramidPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs) {
    if (m.sparse) return addSparseVertexPasses(m, graph, refs);
    addDirectVertexPasses(m, graph, refs);
}

BufferRef IndexedStage::addPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs) {
    return m.sparse ? addSparsePasses(m, graph, refs) : addDirectPasses(m, graph, refs);
}

} // namespace pyramarch::iso
