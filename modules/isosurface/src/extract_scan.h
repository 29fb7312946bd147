// The scan-based baseline (testing::ExtractionMethod::Scan, the CUDA
// sample's pipeline, measured by `pyramarch bench`), extract_scan.cpp: the
// cell-order classify, the occupancy tree, the down-sweeps, compaction and
// generation; its buffers, pipelines, sizing and passes. The cell pyramid
// and its build are the module's (Impl::pyramid, Impl::addPyramidBuild).
#pragma once

#include "stage.h"

namespace pyramarch::iso {

struct ScanStage {
    bool enabled = false;
    // The grid with the occupancy tree's level tables (levels >= 1 from element 0).
    gpu::IsoGrid occGrid{};
    // Prefixes of pyramid levels >= 1 (level 0's are finished in generate),
    // the occupancy tree's grid, levels and prefixes, the active cells.
    Buffer offsets, occGridBuf, occupancy, occOffsets, active;
    ComputePipeline classify, scanDown, generate, compact;

    // planLayout: the occupancy tree's levels from the cell grid `g`.
    void plan(const gpu::IsoGrid& g);
    Status createBuffers(Impl& m, const MakeBuffer& make);
    Status createPipelines(Impl& m);
    // refs.occGrid, refs.occupancy (classify and args write and read them).
    void importBuffers(Impl& m, RenderGraph& graph, IsoRefs& refs);
    // "<name>.classify" in cell order, the pyramid's and occupancy tree's builds.
    void addClassifyPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs);
    // After args: the down-sweeps, compaction and generation.
    void addExtractPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs);
};

} // namespace pyramarch::iso
