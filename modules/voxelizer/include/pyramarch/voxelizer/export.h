// Writing voxelization results, for the `pyramarch voxelize` command and
// tools: occupied leaves as text or PLY, and the frame's statistics as JSON.
#pragma once

#include <string>
#include <vector>

#include "pyramarch/engine/render_graph.h"
#include "pyramarch/engine/status.h"
#include "pyramarch/voxelizer/mesh.h"
#include "pyramarch/voxelizer/voxelizer.h"

namespace pyramarch::voxel {

// One line per leaf: "x y z r g b count" (grid coordinates, RGB 0..255),
// after a '#' header naming the grid (origin, voxel size, dims).
Status writeLeavesTxt(const std::string& path, const std::vector<LeafVoxel>& leaves, const VoxelGrid& grid);

// ASCII PLY point cloud: one vertex per leaf at the voxel centre in world
// space, with uchar red/green/blue and the leaf's fragment count.
Status writeLeavesPly(const std::string& path, const std::vector<LeafVoxel>& leaves, const VoxelGrid& grid);

// A JSON object: grid, counters of `stats`, leaf count and per-pass
// milliseconds of `timings` (passes of the same kind, e.g. vox.flag.0..9,
// are also summed under "vox.flag.*").
std::string statsJson(const VoxelStats& stats, const VoxelGrid& grid, size_t leafCount,
                      const std::vector<PassTiming>& timings);

} // namespace pyramarch::voxel
