// The voxelized mesh as a smooth surface, extracted on the GPU from the
// voxelizer's octree every frame (iso::SparseVolumeInput::OctreeLeaves):
// `pyramarch voxelize ... --remesh out.obj|ply`. The voxelizer and a sparse
// volume surface run in one render graph with no read-back between them;
// only this tool reads the mesh and stats back at the end. The surface is
// created with no capacity: between frames IsoSurface::grow() grows it from
// its stats and the graph is built again, until a frame needs nothing more.
#pragma once

#include <string>
#include <vector>

#include "pyramarch/engine/render_graph.h"
#include "pyramarch/engine/status.h"
#include "sample/voxelize_job.h"

namespace sample {

struct RemeshJob {
    std::string outPath;       // .obj or .ply (welded), or empty
    uint32_t timedFrames = 3;  // frames after the first (which carries the pipeline JIT)
    bool indexed = false;      // shared vertices + indices on the GPU
    uint64_t memoryBudget = 0; // IsoSurfaceCreateInfo::memoryBudget (bytes; 0: the module's default)
};

struct RemeshJobResult {
    uint32_t triangles = 0;        // needed
    uint32_t trianglesWritten = 0; // fewer where the output buffers reach the device's largest (truncated)
    bool truncated = false;
    uint32_t surfaceBricks = 0;                 // bricks of 8^3 cells the leaves marked (the pool's)
    uint32_t listedBricks = 0;                  // of those, the ones the iso value cuts
    uint32_t rowPairs = 0;                      // pool slots of the pyramid
    uint64_t bricks = 0;                        // bricks of the whole grid
    uint64_t residentBytes = 0;                 // the surface's GPU memory without its vertex and index buffers
    uint64_t outputBytes = 0;                   // vertex and index buffers
    uint64_t budgetBytes = 0;                   // the surface's memory budget (the default where none was given)
    uint64_t denseBytes = 0;                    // a dense f32 field and u8 pyramid of the same grid
    std::vector<pyramarch::PassTiming> timings; // per-pass medians of the timed frames (voxelizer and surface)
    std::vector<double> frameMilliseconds;      // GPU time of each timed frame (all passes)
    uint32_t growths = 0;                       // frames after which the surface grew (its graph built again)
};

// `voxels` is runVoxelizeJob's result for `job` (its grid and counts size the
// voxelizer here); the same mesh is voxelized again every frame.
pyramarch::Result<RemeshJobResult> runRemeshJob(pyramarch::Device& device, const VoxelizeJob& job,
                                                const VoxelizeJobResult& voxels, const RemeshJob& remesh);

} // namespace sample
