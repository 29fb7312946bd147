// Host-side input of the voxelizer: an indexed triangle mesh, the voxel grid
// it is voxelized into, and the grid convention shared by the GPU module, the
// CPU reference in tests/ and the tools.
//
// Grid convention. A grid is an origin (the box minimum), a voxel size per
// axis and integer dims. Voxel (i,j,k) spans
//     [origin + (i,j,k) * size, origin + (i+1,j+1,k+1) * size)
// By default (defaultGrid) the box is the bounding box of the mesh's finite
// vertices, voxels are cubes of side s = longest extent / R and
// dims = max(1, ceil(extent / s)) per axis, so the longest axis has exactly R
// voxels. Explicit grids (any origin, size and dims) may be given instead.
//
// All coverage decisions are made in *grid space*: g = (p - origin) / size,
// computed in double on the host (toGridSpaceSplit) and carried to the GPU as
// two floats, hi = float(g) and lo = float(g - hi), whose sum keeps 48
// significant bits. The exact tests decide on hi + lo, so the CPU reference,
// fed the same split, agrees with the GPU on every (voxel, triangle) pair
// even where float32 grid coordinates alone would round a vertex across a
// voxel corner.
#pragma once

#include <cmath>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "pyramarch/engine/status.h"

namespace pyramarch::voxel {

// Packs 0..255 channels into the RGBA8 word the voxelizer uses (R in the low byte).
constexpr uint32_t packRGBA8(uint32_t r, uint32_t g, uint32_t b, uint32_t a = 255) {
    return (r & 0xffu) | ((g & 0xffu) << 8) | ((b & 0xffu) << 16) | ((a & 0xffu) << 24);
}

struct TriangleMesh {
    std::vector<std::array<float, 3>> positions; // world space
    std::vector<uint32_t> indices;               // 3 per triangle, each < positions.size()
    // Optional per-vertex RGBA8 colour (packRGBA8), empty (all white) or one
    // per position; a voxel fragment takes its triangle's rounded mean colour
    // per channel (no interpolation).
    std::vector<uint32_t> colors;
    // Optional per-vertex normals, empty or one per position. A fragment's
    // normal is the normalised sum of its triangle's three vertex normals, or
    // the geometric face normal when none are given.
    std::vector<std::array<float, 3>> normals;

    size_t triangleCount() const { return indices.size() / 3; }
    size_t vertexCount() const { return positions.size(); }
};

struct VoxelGrid {
    std::array<float, 3> origin{};                 // box minimum (world space)
    std::array<float, 3> voxelSize{1.f, 1.f, 1.f}; // > 0 per axis
    uint32_t dims[3] = {1, 1, 1};                  // >= 1 per axis
    uint32_t maxDim() const {
        return dims[0] > dims[1] ? (dims[0] > dims[2] ? dims[0] : dims[2]) : (dims[1] > dims[2] ? dims[1] : dims[2]);
    }
    uint64_t voxelCount() const { return uint64_t(dims[0]) * dims[1] * dims[2]; }
};

// Largest grid dimension the module accepts (10 bits per packed coordinate).
inline constexpr uint32_t kMaxGridDim = 1024;

// 1 / voxel size per axis (grid-space normals to world space).
inline std::array<float, 3> gridInverseSize(const VoxelGrid& g) {
    return {1.0f / g.voxelSize[0], 1.0f / g.voxelSize[1], 1.0f / g.voxelSize[2]};
}
// A grid-space vertex as the GPU receives it: hi + lo is the double
// (p - origin) / size to 48 bits (hi alone is its float rounding).
struct SplitVertex {
    std::array<float, 3> hi{};
    std::array<float, 3> lo{};
};
inline SplitVertex toGridSpaceSplit(const std::array<float, 3>& p, const VoxelGrid& g) {
    SplitVertex v;
    for (int a = 0; a < 3; ++a) {
        const double d = (double(p[a]) - double(g.origin[a])) / double(g.voxelSize[a]);
        v.hi[a] = float(d);
        // Non-finite hi (NaN input or beyond float range): the triangle is skipped.
        v.lo[a] = std::isfinite(v.hi[a]) ? float(d - double(v.hi[a])) : 0.0f;
    }
    return v;
}
// The float part (hi) of the grid-space vertex.
inline std::array<float, 3> toGridSpace(const std::array<float, 3>& p, const VoxelGrid& g) {
    return toGridSpaceSplit(p, g).hi;
}
inline bool isFinite(const std::array<float, 3>& p) {
    return std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2]);
}

// The default grid for `mesh` at resolution R (1..kMaxGridDim). Fails on an
// empty mesh, a mesh without finite vertices, or a bad R.
Result<VoxelGrid> defaultGrid(const TriangleMesh& mesh, uint32_t resolution);
// An explicit grid from a box and dims (cubic voxels are not required).
Result<VoxelGrid> gridFromBox(std::array<float, 3> boxMin, std::array<float, 3> boxMax, uint32_t dx, uint32_t dy,
                              uint32_t dz);
// Checks a grid: finite origin, positive finite size, dims in 1..kMaxGridDim.
Status validateGrid(const VoxelGrid& grid);

struct MeshCheck {
    uint32_t triangles = 0;        // triangles in the mesh
    uint32_t skippedNonFinite = 0; // triangles with a vertex that is not finite in grid space
};
// Checks indices and attribute sizes (errors name the first bad index) and
// counts the triangles the GPU will skip because a vertex is NaN/inf in grid
// space. Never touches the GPU.
Result<MeshCheck> checkMesh(const TriangleMesh& mesh, const VoxelGrid& grid);

// Loads a Wavefront OBJ (triangulated by the loader; vertex colours when the
// file has them). Errors name the file and the parser's message.
Result<TriangleMesh> loadObj(const std::string& path);

} // namespace pyramarch::voxel
