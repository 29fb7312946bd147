// The voxel grid as a scalar field for the isosurface module: voxel centres
// are the samples (x fastest, float32), so a volume source with these
// samples and bounds yields a smooth remeshed surface of the voxelized mesh
// at iso value 0.5.
#pragma once

#include <array>
#include <vector>

#include "pyramarch/voxelizer/mesh.h"

namespace pyramarch::voxel {

// From the dense occupancy grid (Voxelizer::readDenseGrid: 1 = surface
// voxel): 1 for every voxel a 6-connected walk from outside the grid through
// empty voxels cannot reach (surface and enclosed interior), 0 for the rest.
// A closed mesh so becomes a solid; an open one stays a shell.
std::vector<float> solidOccupancy(const std::vector<float>& dense, const VoxelGrid& grid);

// World-space bounds of the voxel-centre samples: origin + size / 2 to
// origin + (dims - 1/2) * size, per axis.
struct SampleBounds {
    std::array<float, 3> min{}, max{};
};
SampleBounds voxelCentreBounds(const VoxelGrid& grid);

} // namespace pyramarch::voxel
