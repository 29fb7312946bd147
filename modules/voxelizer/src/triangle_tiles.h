// Large triangles cut into tiles for the compute path
// (ConservativeMethod::Compute): per tile a voxel box that holds every
// voxel whose closed box the triangle touches in the tile's columns.
#pragma once

#include <cstdint>
#include <vector>

#include "pyramarch/voxelizer/mesh.h"

namespace pyramarch::voxel {

// A tile's columns: kTileColumns x kTileColumns along the two axes across
// the triangle's dominant one (tiles start at multiples of it, so a 2^3
// cell never spans two); its depth range is cut into runs of at most
// kTileDepth voxels (even starts), so a tile box holds at most
// kTileColumns^2 * kTileDepth voxels (kMaxSmallTriangleVoxels: one thread's loop).
inline constexpr uint32_t kTileColumns = 8;
inline constexpr uint32_t kTileDepth = 64;
// Words per tile in the mesh buffer: triangle, box min and box max packed
// as x | y << 10 | z << 20 (inclusive).
inline constexpr uint32_t kTileWords = 3;

// Appends the tiles of triangle `triangle` (corners a, b, c as uploaded) to
// `out`; none when a corner is not finite or no voxel of `dims` can be
// touched. False, with `out` cut, once `out` would pass `maxWords` (the
// caller reports it: a mesh of huge triangles would otherwise grow it
// without bound).
bool appendTriangleTiles(const SplitVertex& a, const SplitVertex& b, const SplitVertex& c, uint32_t triangle,
                         const uint32_t (&dims)[3], std::vector<uint32_t>& out, size_t maxWords);

} // namespace pyramarch::voxel
