// CPU reference of the voxelizer. Fed the same float32 grid-space vertices
// as the GPU (pyramarch::voxel::toGridSpace) and evaluated in double, so the
// only differences left are the GPU's float rounding near exact touching.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "pyramarch/voxelizer/mesh.h"

namespace pyramarch::voxel::ref {

// Closed: a triangle touching a voxel's boundary counts. Open: only overlap
// with the voxel's interior counts.
enum class Overlap { Closed, Open };

inline uint32_t key(uint32_t x, uint32_t y, uint32_t z) { return x | (y << 10) | (z << 20); }
inline std::array<uint32_t, 3> unkey(uint32_t k) { return {k & 1023u, (k >> 10) & 1023u, (k >> 20) & 1023u}; }

// Akenine-Moller separating-axis test of a triangle (grid-space vertices)
// against the unit voxel whose minimum corner is (x,y,z): 3 box axes, the
// triangle normal, 9 edge x axis crosses; zero axes are not separating.
bool triangleOverlapsVoxel(const std::array<float, 3> v[3], int x, int y, int z, Overlap mode);

// Calls fn(x, y, z) for every in-grid voxel of the triangle's bounding box
// (closed box, so voxels touched on a face are included).
void forEachBoxVoxel(const std::array<float, 3> v[3], const VoxelGrid& grid,
                     const std::function<void(int, int, int)>& fn);

// The triangle's grid-space vertices, or false if one is not finite.
bool gridTriangle(const TriangleMesh& mesh, const VoxelGrid& grid, size_t tri, std::array<float, 3> out[3]);

// Sorted, unique voxel keys of a mesh.
std::vector<uint32_t> voxelize(const TriangleMesh& mesh, const VoxelGrid& grid, Overlap mode);

// 6-connected flood fill from outside the grid through unmarked voxels.
// Returns one byte per voxel (x fastest): 1 = reached from outside.
std::vector<uint8_t> floodFillOutside(const std::vector<uint32_t>& sortedKeys, const VoxelGrid& grid);

// Octree node count per level 0..depth: distinct (coord >> (depth - k)).
std::vector<uint32_t> octreeLevelCounts(const std::vector<uint32_t>& sortedKeys, uint32_t depth);

// Per-channel rounded mean of RGBA8 colours (R,G,B; A is the count, saturated at 255).
uint32_t averageRGB(const std::vector<uint32_t>& colors);

// The colour the GPU gives a triangle: rounded per-channel mean of its vertex colours.
uint32_t triangleColor(const TriangleMesh& mesh, size_t tri);

} // namespace pyramarch::voxel::ref
