// Indexed output (shared vertices): every sample owns its +x/+y/+z edges.
// Passes "<name>.edges.classify" (cut owned edges per sample) and
// "<name>.edges.pyramid.<level>" before the args pass; then
// "<name>.edges.vertices" (one thread per unique vertex) and "<name>.indices"
// (the non-indexed key order, one index per vertex), both indirect.
#include <algorithm>
#include <cstddef>

#include "iso_impl.h"

namespace pyramarch::iso {
namespace {
const uint32_t kEdgesClassifySpv[] =
#include "shaders/isosurface/edges_classify.comp.spv.inc"
    ;
const uint32_t kEdgeVerticesSpv[] =
#include "shaders/isosurface/edge_vertices.comp.spv.inc"
    ;
const uint32_t kIndicesSpv[] =
#include "shaders/isosurface/indices.comp.spv.inc"
    ;
} // namespace

Status IsoSurface::Impl::createIndexedPipelines() {
    PYRAMARCH_TRY(makePipeline(edgesClassify, kEdgesClassifySpv, "edges.classify", 3));
    PYRAMARCH_TRY(makePipeline(edgeVertices, kEdgeVerticesSpv, "edges.vertices", 5));
    return makePipeline(indicesPipe, kIndicesSpv, "indices", 6);
}

void IsoSurface::Impl::addIndexedEdgePasses(RenderGraph& graph, IsoRefs& refs) {
    const std::string& n = info.name;
    const ExternalUse computeRead{Access::StorageRead, PassKind::Compute};
    const ExternalUse uniformRead{Access::UniformRead, PassKind::Compute};
    refs.edgeGrid = graph.importBuffer(n + ".edgeGrid", edgeGridBuf, uniformRead, uniformRead, true);
    refs.edgePyramid = graph.importBuffer(n + ".edgePyramid", edgePyramid, computeRead, computeRead);
    const uint64_t sampleGroups4 = groupsOf(grid.samples.w, 4 * gpu::kIsoGroupSize);
    graph.addPass(n + ".edges.classify", PassKind::Compute)
        .pipeline(edgesClassify)
        .uniform(0, refs.edgeGrid)
        .storage(1, refs.field, R)
        .storage(2, refs.edgePyramid, W)
        .record([this, sampleGroups4](PassContext& ctx) {
            ctx.pushConstants(push());
            dispatchFolded(ctx, sampleGroups4, maxGroupsX());
        });
    addPyramidBuild(graph, n + ".edges.pyramid.", refs.edgeGrid, refs.edgePyramid, edgeGrid,
                    std::min(1u, edgeGrid.levelCount - 1));
}

BufferRef IsoSurface::Impl::addIndexedPasses(RenderGraph& graph, const IsoRefs& refs) {
    const std::string& n = info.name;
    const ExternalUse indexRead{Access::IndexRead, PassKind::Graphics};
    const BufferRef indicesRef = graph.importBuffer(n + ".indices", indices, indexRead, indexRead);
    graph.addPass(n + ".edges.vertices", PassKind::Compute)
        .pipeline(edgeVertices)
        .uniform(0, refs.edgeGrid)
        .storage(1, refs.tables, R)
        .storage(2, refs.field, R)
        .storage(3, refs.edgePyramid, R)
        .storage(4, refs.vertices, W)
        .use(refs.args, Access::IndirectRead)
        .record(indirectDispatch(refs.args, offsetof(gpu::IsoArgs, dispatchX)));
    graph.addPass(n + ".indices", PassKind::Compute)
        .pipeline(indicesPipe)
        .uniform(0, refs.grid)
        .storage(1, refs.tables, R)
        .storage(2, refs.pyramid, R)
        .uniform(3, refs.edgeGrid)
        .storage(4, refs.edgePyramid, R)
        .storage(5, indicesRef, W)
        .use(refs.args, Access::IndirectRead)
        .record(indirectDispatch(refs.args, offsetof(gpu::IsoArgs, indexDispatchX)));
    return indicesRef;
}

} // namespace pyramarch::iso
