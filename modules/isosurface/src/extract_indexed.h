// Indexed output (shared vertices), extract_indexed.cpp and
// sparse_indexed.cpp: the vertex pyramid, the run bases, the owner lookup
// (sparse domains), the vertex and index passes; its buffers, pipelines,
// sizing and passes, on the direct brick table and on sparse domains.
#pragma once

#include <cstdint>

#include "stage.h"

namespace pyramarch::iso {

struct IndexedStage {
    // The grid with the vertex pyramid's level tables (level k = the cell
    // pyramid's level k + 1: u8 sums of 4 cells' owned cut edges, then
    // 32-bit from the classify runs up).
    gpu::IsoGrid vertexGrid{};
    uint64_t vertexPyramidBytes = 0, runBaseBytes = 0;
    uint64_t lookupBytes = 0; // sparse: the vertex owners' brick hash and pair slots
    // The vertex pyramid's grid and levels, each classify run's (pool
    // slot's) first vertex index, the index buffer; on a sparse domain the
    // owner lookup (sparse_indexed.glsl) and the per-slot passes' dispatch.
    Buffer vertexGridBuf, vertexPyramid, runBases, indices;
    Buffer lookup, vertexArgs;
    ComputePipeline vertexArgsPipe, vertexCountPipe, vertexBasesPipe, sharedVerticesPipe, extractPipe;

    // planLayout: the vertex pyramid's levels over `vertexCells` cells.
    Status plan(Impl& m, uint64_t vertexCells, uint64_t range, const std::string& dev);
    // planLayout, after the cell grid `g`: everything but the level tables from it.
    void planGrid(const gpu::IsoGrid& g);
    // planSparseDomain: the owner lookup of maxBricks bricks in one binding.
    Status planSparse(const Impl& m, const DeviceLimits& lim, const std::string& dev);
    Status createBuffers(Impl& m, const MakeBuffer& make);
    // Growth: the grid and the index buffer at the grid's new capacities.
    Status createOutputBuffers(Impl& m, const MakeBuffer& make);
    void writeGrid(const gpu::IsoGrid& g); // the capacities of `g` into vertexGridBuf
    Status createPipelines(Impl& m);
    void importBuffers(Impl& m, RenderGraph& graph, IsoRefs& refs);
    // After classify: the vertex pyramid and the run bases.
    void addVertexPyramidPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs);
    // After args: the vertices and the indices (their buffer).
    BufferRef addPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs);

private:
    Status createDirectPipelines(Impl& m);
    Status createSparsePipelines(Impl& m);
    void addDirectVertexPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs);
    void addSparseVertexPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs);
    BufferRef addDirectPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs);
    BufferRef addSparsePasses(Impl& m, RenderGraph& graph, const IsoRefs& refs);
};

} // namespace pyramarch::iso
