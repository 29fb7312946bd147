// Test and measurement entry points of the voxelizer. Not part of the stable
// API: for tests, tools and benchmarks (`pyramarch bench`); they may change
// in any release. Every knob selects a variant of a pass that gives the same
// octree as the default (the moving average aside, see ColorMerge); the
// defaults below are what Voxelizer::create runs.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "pyramarch/engine/status.h"
#include "pyramarch/voxelizer/mesh.h"
#include "pyramarch/voxelizer/voxelizer.h"

namespace pyramarch {
class Device;
}

namespace pyramarch::voxel::testing {

// How the octree is built over the occupied cells one level above the
// leaves. The three give the same pool layout, leaves, merged values and
// per-level node counts, bit for bit (modules/voxelizer/README.md, "Octree builds").
enum class OctreeBuild {
    // Default: per-level occupancy bitmaps from the cells up, then pointers
    // allocated level by level from the root (no flag pass, no descent).
    OccupancyLevels,
    // Crassin & Green 2012's top-down build: per level a flag pass that
    // descends from the root, allocate, initialise. The reference.
    RootDescent,
    // Every cell's tiles and their ancestors in a tile hash, then one pass
    // over the tiles; tilesNeeded is exact even on overflow (unless the hash,
    // 2 slots per pool tile and at least 4096, fills to 3/4).
    TileHash,
};

// Leaf colour merge.
enum class ColorMerge {
    // Default: per-channel integer sums resolved to the rounded mean; exact
    // and independent of fragment order.
    ExactMean,
    // Crassin & Green's RGBA8 moving average by compare-and-swap: rounds at
    // every merge and depends on fragment order (drift up to (n+1)/4 per channel).
    MovingAverage,
};

// How fragments reach their leaves with ColorMerge::ExactMean (the moving
// average always merges per fragment). Same octree, bit for bit.
enum class LeafMerge {
    // Default: counting sort by cell, then one thread per cell sums its
    // leaves without atomics (16 bytes per fragment of extra memory).
    PerCell,
    // One thread per fragment, seven atomics into its leaf.
    Atomic,
};

// Which path turns triangles into voxel fragments: the same (voxel,
// triangle) pairs either way; only the list's order differs.
enum class TrianglePath {
    // Every triangle through the rasterizer.
    Raster,
    // Default: triangles whose candidate box holds at most
    // Knobs::smallTriangleVoxels voxels through a compute pass, the rest raster.
    Split,
};

// Upper bound of Knobs::smallTriangleVoxels (one thread loops over the
// whole box; drivers may end a loop after some ten thousand iterations).
inline constexpr uint32_t kMaxSmallTriangleVoxels = 4096;

struct Knobs {
    OctreeBuild octreeBuild = OctreeBuild::OccupancyLevels; // see OctreeBuild
    TrianglePath trianglePath = TrianglePath::Split;        // see TrianglePath
    // TrianglePath::Split: the largest candidate voxel box (voxels,
    // 1..kMaxSmallTriangleVoxels) the compute pass takes. Default 512.
    uint32_t smallTriangleVoxels = 512;
    ColorMerge colorMerge = ColorMerge::ExactMean; // see ColorMerge
    LeafMerge leafMerge = LeafMerge::PerCell;      // see LeafMerge; Atomic with MovingAverage
    // The raster pass reserves fragment slots with one atomic per subgroup
    // where fragment shaders have basic, ballot and arithmetic subgroup
    // operations. Same fragment set, another order. Default off.
    bool subgroupAppend = false;
    // The fragment and cell passes read through texel buffers where
    // texelReadsFit holds; off: storage buffers (the same bits). Default on.
    bool texelReads = true;
    // The per-cell merge's leaf stores and the small-triangle pass's record
    // stores use 64-bit components where the device has shaderInt64 (the
    // same bits; half the store loops on lavapipe, which stores lane by
    // lane, and 12 % fewer instructions, but 10-20 % more wall time in those
    // passes there: docs/design-notes/2026-11-29-voxelizer-speed.md). Default off.
    bool wideStores = false;
    // The small-triangle pass reads the mesh through a texel view while the
    // mesh buffer has at most this many words; 0: the device's
    // maxTexelBufferElements. A smaller value makes a test's mesh outgrow it
    // (the storage-read fallback, the same bits).
    uint64_t meshTexelLimit = 0;
};

// Voxelizer::create with test knobs (Voxelizer::create = this with Knobs{}).
Result<std::unique_ptr<Voxelizer>> create(Device& device, const VoxelizerCreateInfo& info, const Knobs& knobs);

// maxTileCapacity for a given build: TileHash also fits its hash (12 bytes
// a slot, a power of two of at least 2 slots per tile) in the range.
uint32_t maxTileCapacity(uint64_t maxStorageBufferRange, OctreeBuild build);

// Whether every buffer the texel reads view fits maxTexelBufferElements: the
// fragment list (one RGBA32UI texel per fragment), the cell bitmap and list
// (R32UI), the leaf sort (RG32UI, two per fragment) and the cell cursors.
bool texelReadsFit(const VoxelizerCreateInfo& info, const Knobs& knobs, uint64_t maxTexelBufferElements);

// Whether the texel-read variants run (Knobs::texelReads and texelReadsFit).
bool usesTexelReads(const Voxelizer& voxelizer);

// Whether the 64-bit store variants run (Knobs::wideStores and shaderInt64).
bool usesWideStores(const Voxelizer& voxelizer);
// Whether the small-triangle pass now reads the mesh through its texel view
// (texelReads, no wideStores, the mesh buffer within Knobs::meshTexelLimit).
bool usesMeshTexelReads(const Voxelizer& voxelizer);

// The order in which TrianglePath::Split's small-triangle pass takes a
// mesh's triangles, as setMesh writes it: `order` holds every triangle once,
// the compute path's first and the last `rasterTriangles` (the raster's,
// in mesh order) after them. `smallTriangleVoxels` is Knobs' limit;
// `byCells` keys the blocks by 2^3 cells instead of voxels (the Float64
// variant, on devices with shaderFloat64).
struct TriangleOrder {
    std::vector<uint32_t> order;
    uint32_t rasterTriangles = 0;
};
TriangleOrder smallTriangleOrder(const TriangleMesh& mesh, const VoxelGrid& grid, uint32_t smallTriangleVoxels,
                                 bool byCells);

// ConservativeMethod::Compute: the tiles setMesh cuts triangle `triangle`
// into (whatever its size): voxel boxes, inclusive, of at most 8 x 8
// columns across its dominant axis and kMaxSmallTriangleVoxels voxels,
// whose union holds every voxel the triangle's closed set touches.
struct TriangleTile {
    uint32_t triangle = 0;
    std::array<uint32_t, 3> boxMin{}, boxMax{};
};
std::vector<TriangleTile> triangleTiles(const TriangleMesh& mesh, const VoxelGrid& grid, uint32_t triangle);

} // namespace pyramarch::voxel::testing
