// CPU reference of the voxelizer. Grid-space vertices in double, as the GPU
// receives them (pyramarch::voxel::toGridSpaceSplit: hi + lo, 48 bits of
// (p - origin) / size), and every test evaluated in double.
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
using Vec3d = std::array<double, 3>;
bool triangleOverlapsVoxel(const Vec3d v[3], int x, int y, int z, Overlap mode);
bool triangleOverlapsVoxel(const std::array<float, 3> v[3], int x, int y, int z, Overlap mode);

// Calls fn(x, y, z) for every in-grid voxel of the triangle's bounding box
// (closed box, so voxels touched on a face are included).
void forEachBoxVoxel(const Vec3d v[3], const VoxelGrid& grid, const std::function<void(int, int, int)>& fn);

// The triangle's grid-space vertices (hi + lo in double), or false if one is not finite.
bool gridTriangle(const TriangleMesh& mesh, const VoxelGrid& grid, size_t tri, Vec3d out[3]);

// The same triangles (and vertices) in a shuffled order: what the voxels
// and the merged leaves must not depend on.
TriangleMesh shuffledTriangles(const TriangleMesh& mesh, uint32_t seed);

// Sorted, unique voxel keys of a mesh.
std::vector<uint32_t> voxelize(const TriangleMesh& mesh, const VoxelGrid& grid, Overlap mode);

// Solid voxelization's parity reference (x axis): every triangle whose
// projection on the yz plane holds a voxel column's centre (y + 1/2,
// z + 1/2) crosses that column once, at depth x_t on its plane; voxel
// (x, y, z) is inside when an odd number of crossings lie before its centre
// (x_t < x + 1/2). The edge functions are evaluated with each edge's
// endpoints in a canonical order, so the two triangles of a shared edge get
// exactly opposite values, and a centre exactly on an edge counts for one
// side only (the edge whose direction, in the triangle's counter-clockwise
// frame, has dy > 0, or dy == 0 and dz > 0). Same double operations as
// shaders/voxelizer/solid.comp.
struct SolidReference {
    std::vector<uint8_t> inside; // one byte per voxel (x fastest): centre inside
    uint32_t oddColumns = 0;     // columns crossed an odd number of times (not watertight)
};
// Columns of odd parity are left empty (as the GPU does).
SolidReference solidInside(const TriangleMesh& mesh, const VoxelGrid& grid);
// The crossing of triangle v (grid space) with column (y, z): false when the
// column's centre is not inside its projection; else the first voxel x whose
// centre lies behind the crossing (0..dims.x; dims.x: past the last).
bool columnCrossing(const Vec3d v[3], int y, int z, int dimsX, int& firstBehind);

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
