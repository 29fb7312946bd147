// Indexed output (shared vertices): every cut edge is one vertex, owned by
// one cell (shaders/isosurface/vertex_owner.glsl). classify counts each
// run's owned cut edges into the vertex pyramid's levels 0 and 1 (and 2 with
// a patch list); then "<name>.vertices.pyramid.<level>" builds its levels
// above, and "<name>.vertices.bases" gives every run its first vertex index
// (before the args pass); after it "<name>.vertices" (shared_vertices.comp,
// one thread per vertex) writes the vertices and "<name>.extract"
// (extract_indexed.comp, one thread per triangle as the non-indexed
// extract) each triangle's three indices. On a sparse domain the same
// passes run over the pool's slots (sparse_indexed.cpp).
#include <algorithm>
#include <cstddef>

#include "iso_glsl_text.h"
#include "iso_impl.h"

namespace pyramarch::iso {
namespace {
const uint32_t kExtractIndexedSpv[] =
#include "shaders/isosurface/extract_indexed.comp.spv.inc"
    ;
const uint32_t kExtractIndexedStorageSpv[] =
#include "shaders/isosurface/extract_indexed.storage.comp.spv.inc"
    ;
const uint32_t kSharedVerticesSpv[] =
#include "shaders/isosurface/shared_vertices.comp.spv.inc"
    ;
const uint32_t kSharedVerticesStorageSpv[] =
#include "shaders/isosurface/shared_vertices.storage.comp.spv.inc"
    ;
const uint32_t kVertexBasesSpv[] =
#include "shaders/isosurface/vertex_bases.comp.spv.inc"
    ;
const uint32_t kVertexBasesStorageSpv[] =
#include "shaders/isosurface/vertex_bases.storage.comp.spv.inc"
    ;
} // namespace

Status IsoSurface::Impl::createIndexedPipelines() {
    if (sparse) return createSparseIndexedPipelines();
    if (direct) return createDirectIndexedPipelines();
    PYRAMARCH_TRY(makePipeline(vertexBasesPipe,
                               texelReads ? std::span<const uint32_t>(kVertexBasesSpv) : kVertexBasesStorageSpv,
                               "vertices.bases", 5));
    if (fusedField) {
        PYRAMARCH_TRY_ASSIGN(const std::vector<uint32_t> fused, fusedSpirv(kIsoText_shared_vertices_comp, "vertices"));
        PYRAMARCH_TRY(makePipeline(sharedVerticesPipe, fused, "vertices", 6 + kSliceBindings));
    } else {
        PYRAMARCH_TRY(makePipeline(
            sharedVerticesPipe, texelReads ? std::span<const uint32_t>(kSharedVerticesSpv) : kSharedVerticesStorageSpv,
            "vertices", 6 + kSliceBindings));
    }
    return makePipeline(extract, texelReads ? std::span<const uint32_t>(kExtractIndexedSpv) : kExtractIndexedStorageSpv,
                        "extract", 7 + kSliceBindings);
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
    if (direct) return addDirectVertexPasses(graph, refs);
    const std::string& n = info.name;
    // classify wrote levels 0 and 1 (u8 sums of 4 cells, run sums), and with
    // a patch list level 2 (atomics): the build starts above.
    const uint32_t written = std::min(grid.patchList ? 2u : 1u, vertexGrid.levelCount - 1);
    if (written + 1 < vertexGrid.levelCount)
        addPyramidBuild(graph, n + ".vertices.pyramid.", refs.vertexGrid, refs.vertexPyramid, vertexGrid, written);
    PassBuilder pass = graph.addPass(n + ".vertices.bases", PassKind::Compute);
    pass.pipeline(vertexBasesPipe)
        .uniform(0, refs.grid)
        .uniform(1, refs.vertexGrid)
        .storage(3, refs.runBases, W)
        .storage(4, grid.patchList ? refs.patchList : refs.runBases,
                 R); // the listed patches, else unused: the run bases stand in
    if (texelReads)
        pass.texel(2, refs.vertexPyramid, VK_FORMAT_R32G32B32A32_UINT, Access::SampledRead);
    else
        pass.storage(2, refs.vertexPyramid, R);
    // The runs classify visited, mapped to threads the same way.
    if (grid.patchList) {
        pass.use(refs.classifyArgs, Access::IndirectRead).record(indirectDispatch(refs.classifyArgs, 0));
    } else {
        const uint64_t runGroups = groupsOf(grid.cells.w, gpu::kIsoClassifyCells * gpu::kIsoClassifyGroupSize);
        pass.record([this, runGroups](PassContext& ctx) {
            ctx.pushConstants(push());
            dispatchFolded(ctx, runGroups, maxGroupsX());
        });
    }
}

BufferRef IsoSurface::Impl::addIndexedPasses(RenderGraph& graph, const IsoRefs& refs) {
    if (sparse) return addSparseIndexedPasses(graph, refs);
    if (direct) return addDirectIndexedPasses(graph, refs);
    const std::string& n = info.name;
    const ExternalUse indexRead{Access::IndexRead, PassKind::Graphics};
    const BufferRef indicesRef = graph.importBuffer(n + ".indices", indices, indexRead, indexRead);
    PassBuilder vertexPass = graph.addPass(n + ".vertices", PassKind::Compute);
    vertexPass.pipeline(sharedVerticesPipe).uniform(0, refs.grid).uniform(1, refs.vertexGrid);
    vertexSlices(vertexPass, 5, 6, refs.vertices, W);
    PassBuilder pass = graph.addPass(n + ".extract", PassKind::Compute);
    pass.pipeline(extract).uniform(0, refs.grid).uniform(1, refs.tables).uniform(3, refs.vertexGrid);
    if (texelReads) {
        if (!fusedField) vertexPass.texel(2, refs.field, VK_FORMAT_R32_SFLOAT, Access::SampledRead);
        vertexPass.texel(3, refs.pyramid, VK_FORMAT_R32G32B32A32_UINT, Access::SampledRead)
            .texel(4, refs.vertexPyramid, VK_FORMAT_R32G32B32A32_UINT, Access::SampledRead);
        pass.texel(2, refs.pyramid, VK_FORMAT_R32G32B32A32_UINT, Access::SampledRead)
            .texel(4, refs.vertexPyramid, VK_FORMAT_R32_UINT, Access::SampledRead)
            .texel(5, refs.runBases, VK_FORMAT_R32_UINT, Access::SampledRead);
    } else {
        if (!fusedField) vertexPass.storage(2, refs.field, R);
        vertexPass.storage(3, refs.pyramid, R).storage(4, refs.vertexPyramid, R);
        pass.storage(2, refs.pyramid, R).storage(4, refs.vertexPyramid, R).storage(5, refs.runBases, R);
    }
    vertexPass.use(refs.args, Access::IndirectRead)
        .record(indirectDispatch(refs.args, offsetof(gpu::IsoArgs, vertexDispatchX)));
    indexSlices(pass, 6, 7, indicesRef, W);
    pass.use(refs.args, Access::IndirectRead).record(indirectDispatch(refs.args, offsetof(gpu::IsoArgs, dispatchX)));
    return indicesRef;
}

} // namespace pyramarch::iso
