// Indexed output (shared vertices): every cut edge is one vertex, owned by
// one cell (shaders/isosurface/vertex_owner.glsl). Indexed output runs on
// the bricks (the direct brick table or a sparse domain's pool): the per-slot
// vertex counts and bases, "<name>.vertices" (one thread per vertex) and
// "<name>.extract" (each triangle's three indices) are in
// sparse_indexed.cpp; the scan has no indexed output.
#include "iso_impl.h"

namespace pyramarch::iso {

Status IsoSurface::Impl::createIndexedPipelines() {
    return sparse ? createSparseIndexedPipelines() : createDirectIndexedPipelines();
}

void IsoSurface::Impl::importIndexedBuffers(RenderGraph& graph, IsoRefs& refs) {
    const std::string& n = info.name;
    const ExternalUse computeRead{Access::StorageRead, PassKind::Compute};
    const ExternalUse uniformRead{Access::UniformRead, PassKind::Compute};
    refs.vertexGrid = graph.importBuffer(n + ".vertexGrid", vertexGridBuf, uniformRead, uniformRead, true);
    refs.vertexPyramid = graph.importBuffer(n + ".vertexPyramid", vertexPyramid, computeRead, computeRead);
    refs.runBases = graph.importBuffer(n + ".runBases", runBases, computeRead, computeRead);
    if (sparse) importSparseIndexedBuffers(graph, refs);
}

void IsoSurface::Impl::addVertexPyramidPasses(RenderGraph& graph, const IsoRefs& refs) {
    if (sparse) return addSparseVertexPasses(graph, refs);
    addDirectVertexPasses(graph, refs);
}

BufferRef IsoSurface::Impl::addIndexedPasses(RenderGraph& graph, const IsoRefs& refs) {
    return sparse ? addSparseIndexedPasses(graph, refs) : addDirectIndexedPasses(graph, refs);
}

} // namespace pyramarch::iso
