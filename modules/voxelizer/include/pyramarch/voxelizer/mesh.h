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
// All coverage decisions are made in *grid space*: g = (p - origin) * invSize,
// computed in float32 exactly as toGridSpace() does (one subtraction, one
// multiplication, no fused multiply-add), so the CPU reference can be fed the
// very float values the GPU sees.
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
    // Optional per-vertex RGBA8 colour (packRGBA8), empty or one per position.
    // A voxel fragment carries its triangle's colour: the per-channel rounded
    // mean of the three vertex colours (no interpolation, so the result does
    // not depend on where inside a voxel the triangle passes). Without
    // colours every triangle is white (packRGBA8(255,255,255)).
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

// The grid-space transform of the GPU's vertex stage, bit for bit.
inline std::array<float, 3> gridInverseSize(const VoxelGrid& g) {
    return {1.0f / g.voxelSize[0], 1.0f / g.voxelSize[1], 1.0f / g.voxelSize[2]};
}
inline std::array<float, 3> toGridSpace(const std::array<float, 3>& p, const VoxelGrid& g) {
    const std::array<float, 3> inv = gridInverseSize(g);
    // (p - o) * inv has no multiply-add shape, so no compiler can fuse it.
    return {(p[0] - g.origin[0]) * inv[0], (p[1] - g.origin[1]) * inv[1], (p[2] - g.origin[2]) * inv[2]};
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
