#include "pyramarch/voxelizer/voxelizer.h"
#include "pyramarch/voxelizer/testing.h"

#include <algorithm>
#include <cmath>
#include <array>
#include <cstddef>
#include <cstring>

#include "pyramarch/engine/device.h"
#include "pyramarch/engine/pipeline.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/engine/vulkan_functions.h"
#include "triangle_tiles.h"
#include "voxelizer/vox_shared.h"

namespace pyramarch::voxel {

using testing::ColorMerge;
using testing::kMaxSmallTriangleVoxels;
using testing::LeafMerge;
using testing::OctreeBuild;
using testing::TrianglePath;

// The public mirror of the GPU counters (vox_shared.h is not installed).
static_assert(sizeof(VoxCountersData) == sizeof(gpu::VoxCounters));
#define PYRAMARCH_SAME_FIELD(f) static_assert(offsetof(VoxCountersData, f) == offsetof(gpu::VoxCounters, f), #f)
PYRAMARCH_SAME_FIELD(fragmentCount);
PYRAMARCH_SAME_FIELD(fragmentsStored);
PYRAMARCH_SAME_FIELD(tileCount);
PYRAMARCH_SAME_FIELD(tilesFailed);
PYRAMARCH_SAME_FIELD(failedAboveLeaves);
PYRAMARCH_SAME_FIELD(depthOverflow);
PYRAMARCH_SAME_FIELD(leafFragments);
PYRAMARCH_SAME_FIELD(tileEntries);
PYRAMARCH_SAME_FIELD(levelTileStart);
PYRAMARCH_SAME_FIELD(levelTileEnd);
PYRAMARCH_SAME_FIELD(cellCount);
PYRAMARCH_SAME_FIELD(sortedFragments);
PYRAMARCH_SAME_FIELD(cellsOverMergeLimit);
PYRAMARCH_SAME_FIELD(solidInterior);
PYRAMARCH_SAME_FIELD(solidOddColumns);
#undef PYRAMARCH_SAME_FIELD
static_assert(sizeof(OctreeNode) == kNodeBytes + 4); // + pad, 0 on readback
// The counters' uniform view (CountersView in vox_compute.glsl) reads them in
// uvec4s: its std140 offsets are these std430 ones.
static_assert(offsetof(gpu::VoxCounters, levelTileStart) == 32 && offsetof(gpu::VoxCounters, levelTileEnd) == 80 &&
              offsetof(gpu::VoxCounters, cellCount) == 128 && offsetof(gpu::VoxCounters, failedAboveLeaves) == 16);
static_assert(kNodeArrayCount == gpu::VOX_NODE_ARRAYS);
static_assert(uint32_t(NodeArray::Child) == gpu::VOX_NODE_CHILD && uint32_t(NodeArray::Color) == gpu::VOX_NODE_COLOR &&
              uint32_t(NodeArray::Count) == gpu::VOX_NODE_COUNT && uint32_t(NodeArray::NormalX) == gpu::VOX_NODE_NX &&
              uint32_t(NodeArray::NormalY) == gpu::VOX_NODE_NY && uint32_t(NodeArray::NormalZ) == gpu::VOX_NODE_NZ &&
              uint32_t(NodeArray::Coord) == gpu::VOX_NODE_COORD);

namespace {

// One thread per item, folded into (x, y) groups as voxThreadIndex expects
// (x within every device's minimum maxComputeWorkGroupCount).
void dispatchThreads(const PassContext& ctx, uint32_t items) {
    const uint32_t groups = (items + gpu::VOX_GROUP_SIZE - 1) / gpu::VOX_GROUP_SIZE;
    const uint32_t x = std::min(groups, 65535u);
    ctx.dispatch(x, (groups + x - 1) / x);
}

static const uint32_t kRasterVertSpv[] =
#include "shaders/voxelizer/raster.vert.spv.inc"
    ;
static const uint32_t kRasterGeomSpv[] =
#include "shaders/voxelizer/raster.geom.spv.inc"
    ;
static const uint32_t kRasterFragSpv[] =
#include "shaders/voxelizer/raster.frag.spv.inc"
    ;
// raster.frag built with VOX_SUBGROUP_APPEND: declares the subgroup
// capabilities, so only for devices that have them.
static const uint32_t kRasterFragSubgroupSpv[] =
#include "shaders/voxelizer/raster.subgroup.frag.spv.inc"
    ;
// The VOX_EXACT64 variants (exact double-precision fallback near the
// boundary): they declare Float64, so only for devices with shaderFloat64.
static const uint32_t kRasterFragExact64Spv[] =
#include "shaders/voxelizer/raster.exact64.frag.spv.inc"
    ;
static const uint32_t kRasterFragSubgroupExact64Spv[] =
#include "shaders/voxelizer/raster.subgroup.exact64.frag.spv.inc"
    ;
static const uint32_t kSmallTrianglesSpv[] =
#include "shaders/voxelizer/small_triangles.comp.spv.inc"
    ;
static const uint32_t kSmallTrianglesExact64Spv[] =
#include "shaders/voxelizer/small_triangles.exact64.comp.spv.inc"
    ;
// Their storage-buffer mesh reads: meshes whose buffer exceeds
// maxTexelBufferElements, Knobs::texelReads off.
static const uint32_t kSmallTrianglesStorageSpv[] =
#include "shaders/voxelizer/small_triangles.storage.comp.spv.inc"
    ;
static const uint32_t kSmallTrianglesExact64StorageSpv[] =
#include "shaders/voxelizer/small_triangles.exact64.storage.comp.spv.inc"
    ;
// The VOX_WIDE_STORES variants (64-bit stores): they declare Int64, so only
// for devices with shaderInt64.
static const uint32_t kSmallTrianglesWideSpv[] =
#include "shaders/voxelizer/small_triangles.wide.comp.spv.inc"
    ;
static const uint32_t kSmallTrianglesExact64WideSpv[] =
#include "shaders/voxelizer/small_triangles.exact64.wide.comp.spv.inc"
    ;
static const uint32_t kLeafMergeWideSpv[] =
#include "shaders/voxelizer/leaf_merge.wide.comp.spv.inc"
    ;
static const uint32_t kLeafMergeStorageWideSpv[] =
#include "shaders/voxelizer/leaf_merge.storage.wide.comp.spv.inc"
    ;
static const uint32_t kSolidSpv[] =
#include "shaders/voxelizer/solid.comp.spv.inc"
    ;
static const uint32_t kArgsSpv[] =
#include "shaders/voxelizer/args.comp.spv.inc"
    ;
static const uint32_t kFlagSpv[] =
#include "shaders/voxelizer/flag.comp.spv.inc"
    ;
static const uint32_t kAllocSpv[] =
#include "shaders/voxelizer/alloc.comp.spv.inc"
    ;
static const uint32_t kAllocTopSpv[] =
#include "shaders/voxelizer/alloc_top.comp.spv.inc"
    ;
static const uint32_t kInitSpv[] =
#include "shaders/voxelizer/init.comp.spv.inc"
    ;
static const uint32_t kLeafSpv[] =
#include "shaders/voxelizer/leaf.comp.spv.inc"
    ;
static const uint32_t kLeafSortSpv[] =
#include "shaders/voxelizer/leaf_sort.comp.spv.inc"
    ;
static const uint32_t kLeafMergeSpv[] =
#include "shaders/voxelizer/leaf_merge.comp.spv.inc"
    ;
// The storage-buffer reads of the shaders built with texel reads
// (VOX_STORAGE_READS): for devices whose maxTexelBufferElements does not
// cover the buffers, and VoxelizerCreateInfo::texelReads = false.
static const uint32_t kCellMarkStorageSpv[] =
#include "shaders/voxelizer/cell_mark.storage.comp.spv.inc"
    ;
static const uint32_t kLeafSortStorageSpv[] =
#include "shaders/voxelizer/leaf_sort.storage.comp.spv.inc"
    ;
static const uint32_t kLeafMergeStorageSpv[] =
#include "shaders/voxelizer/leaf_merge.storage.comp.spv.inc"
    ;
static const uint32_t kCellListStorageSpv[] =
#include "shaders/voxelizer/cell_list.storage.comp.spv.inc"
    ;
static const uint32_t kMipmapSpv[] =
#include "shaders/voxelizer/mipmap.comp.spv.inc"
    ;
// alloc.comp's and mipmap.comp's node reads through storage buffers:
// devices whose maxTexelBufferElements does not cover the largest node
// pool (Impl::nodeTexels), and the deepest mipmap launch (it rewrites the
// leaves it reads).
static const uint32_t kMipmapTopSpv[] =
#include "shaders/voxelizer/mipmap.top.comp.spv.inc"
    ;
static const uint32_t kAllocStorageSpv[] =
#include "shaders/voxelizer/alloc.storage.comp.spv.inc"
    ;
static const uint32_t kMipmapStorageSpv[] =
#include "shaders/voxelizer/mipmap.storage.comp.spv.inc"
    ;
static const uint32_t kDenseSpv[] =
#include "shaders/voxelizer/dense.comp.spv.inc"
    ;
static const uint32_t kKeysSpv[] =
#include "shaders/voxelizer/keys.comp.spv.inc"
    ;
static const uint32_t kLinkSpv[] =
#include "shaders/voxelizer/link.comp.spv.inc"
    ;
static const uint32_t kCellMarkSpv[] =
#include "shaders/voxelizer/cell_mark.comp.spv.inc"
    ;
static const uint32_t kCellListSpv[] =
#include "shaders/voxelizer/cell_list.comp.spv.inc"
    ;
static const uint32_t kCellLevelsSpv[] =
#include "shaders/voxelizer/cell_levels.comp.spv.inc"
    ;

constexpr uint32_t kArgsReset = 0xffffffffu;
constexpr uint32_t kArgsFragments = 0xfffffffeu;
constexpr uint32_t kArgsTileHash = 0xfffffffdu;
constexpr uint32_t kArgsCells = 0xfffffffcu;
constexpr uint32_t kArgsLeaves = 0xfffffffbu;
constexpr uint32_t kArgsUndecided = 0xfffffffau;

// Tile hash slots of OctreeBuild::TileHash: a power of two holding twice the
// pool's tiles (load <= 1/2 while the pool suffices), at least 4096 so that a
// small pool still learns its exact needed size.
uint32_t hashSlotsFor(uint32_t tileCapacity) {
    const uint64_t want = std::max<uint64_t>(4096, 2 * uint64_t(tileCapacity));
    uint64_t s = 1;
    while (s < want) s *= 2;
    return uint32_t(std::min<uint64_t>(s, 1u << 30));
}

// Compute binding of node array a (vox_compute.glsl): 3 for the child
// pointers, 6 + a for the others.
// OccupancyLevels: how many levels from the root alloc_top.comp builds in
// one workgroup (allocation, bookkeeping and emptying of the next level):
// at most 8^4 nodes at level 4, where the launches per level cost lavapipe
// more than their work.
constexpr uint32_t kAllocTopLevels = 5;
// How many levels from the root mipmap.top.comp merges in one workgroup.
constexpr uint32_t kMipmapTopLevels = 4;
constexpr uint32_t nodeBinding(uint32_t a) { return a == 0 ? 3u : 6u + a; }
constexpr const char* kNodeArrayNames[kNodeArrayCount] = {
    "vox.nodes", "vox.node_color", "vox.node_count", "vox.node_nx", "vox.node_ny", "vox.node_nz", "vox.node_coord"};

uint32_t depthFor(uint32_t maxResolution) {
    uint32_t d = 1;
    while ((1u << d) < maxResolution) ++d;
    return d;
}

// Words of the bitmap of level depth - 1 cells (a Morton-indexed cube of
// 2^(depth - 1) cells per axis, one bit each): 2 MiB at R = 512, 16 MiB at R = 1024; the per-word list indices as much again.
uint32_t cellWordsFor(uint32_t depth) { return std::max(1u, (1u << (3 * (depth - 1))) / 32u); }
// Words of the occupancy bitmap of level l (cell_levels.comp; level
// depth - 1 is the cell bitmap): 8^l bits.
uint32_t levelWordsFor(uint32_t l) { return std::max(1u, (1u << (3 * l)) / 32u); }
// Words of the bitmaps of levels 0 .. depth - 2 together (1/7 of the cell bitmap).
uint32_t levelBitsWordsFor(uint32_t depth) {
    uint32_t n = 0;
    for (uint32_t l = 0; l + 1 < depth; ++l) n += levelWordsFor(l);
    return n;
}
// Words of the cells buffer: the cell bitmap, its per-word list indices, the
// list (at most one entry per stored fragment) and, with
// OctreeBuild::OccupancyLevels, the occupancy bitmaps of the levels above the
// cells.
uint64_t cellBufferWords(uint32_t depth, uint32_t fragmentCapacity, bool levelBits) {
    return 2 * uint64_t(cellWordsFor(depth)) + fragmentCapacity + (levelBits ? levelBitsWordsFor(depth) : 0);
}

// TrianglePath::Split: how many triangles the raster path may take, i.e.
// whose candidate box (voxComputeTakes, vox_triangle.glsl) may hold more than
// maxVoxels voxels. Evaluated on each triangle's box widened by 1/1024 voxel
// per side, which contains the GPU's box whatever its float rounding, so a
// count of 0 means the geometry shader would emit nothing: the raster pass
// then skips its draw (on lavapipe ~15 ms of vertex and geometry shading for
// 100k triangles that all go to small_triangles.comp). Triangles with a bad
// index or a non-finite vertex are dropped by both paths and not counted.
//
// Also writes `order`, the order in which small_triangles.comp's threads
// take the triangles: in the file's order or, where that is scattered in
// space, in Morton order of their candidate box's lowest 8-voxel block;
// within each block of kOrderBlock of them by that box size (a counting
// sort; the dropped ones first), and the raster's (the returned count)
// after all blocks, in mesh order: the raster pass draws only that tail
// (raster.vert pulls its triangles from it), where drawing every triangle
// for the geometry shader to drop the small ones cost the R = 512 dragon
// scan 7 ms on lavapipe for its 61 large triangles out of 43,534. Lanes run
// in batches (8 on lavapipe) whose voxel loop lasts as long as the largest
// box among them: on the R = 512 torus knot 8 consecutive triangles
// averaged 116.6 loop trips for boxes of 88.6 voxels, sorted blocks about
// 89 (the dragon scan 226 -> 114). With `byCells` (the Float64 variant,
// whose conservative loop runs over the 2^3 cells the box touches) the key
// is that number of cells instead: on the knot 26.6 trips a batch when
// sorted by voxels, 20.8 by cells (mean 20.7).
// The blocks keep a triangle's neighbours in space near it in the fragment
// list, which the cell bitmap's atomics and the counting sort's scattered
// accesses depend on: a UV sphere with its faces shuffled took 103 ms a
// frame on lavapipe at R = 512, 86 in Morton order, while its file's ring
// order and Morton order measured the same. So the blocks follow the file's
// order unless it is scattered like a shuffled file: then more than
// kScatteredOrder of the consecutive pairs lie further apart than
// neighbouring 8-voxel blocks (a shuffled file: all of them; the peer
// meshes: none; the dragon scan: 68 %, whose frame took the same time in
// either order). On this VM the sort costs the host 2.4 ms per 100k
// shuffled triangles on top of the 5.4 this function takes for them, 46 ms
// per 1M on top of 128 (`cpu_bench --benchmark_filter=VoxelizerTriangleOrder`),
// so only an order that gains from it pays for it.
constexpr size_t kOrderBlock = 2048;
constexpr double kScatteredOrder = 0.9;

// Grid-space vertices in double, split into hi + lo floats (mesh.h): the
// exact tests decide on them, as the CPU reference does.
std::vector<SplitVertex> splitVertices(const TriangleMesh& mesh, const VoxelGrid& grid) {
    std::vector<SplitVertex> split(mesh.positions.size());
    for (size_t i = 0; i < split.size(); ++i) split[i] = toGridSpaceSplit(mesh.positions[i], grid);
    return split;
}

// Indices 0..keys.size()-1 sorted by key (below 2^30), stable: an LSD radix
// sort of (key, index) pairs over the 11-bit digits the largest key has.
std::vector<uint32_t> sortedByKey(const std::vector<uint32_t>& keys) {
    constexpr uint32_t kDigitBits = 11, kDigits = 1u << kDigitBits;
    std::vector<uint64_t> pairs(keys.size()), next(keys.size());
    uint32_t largest = 0;
    for (size_t i = 0; i < keys.size(); ++i) {
        pairs[i] = (uint64_t(keys[i]) << 32) | i;
        largest = std::max(largest, keys[i]);
    }
    std::vector<uint32_t> bins(kDigits);
    for (uint32_t shift = 32; shift < 64 && (uint64_t(largest) << 32) >> shift != 0; shift += kDigitBits) {
        std::fill(bins.begin(), bins.end(), 0u);
        for (uint64_t p : pairs) ++bins[(p >> shift) & (kDigits - 1)];
        uint32_t at = 0;
        for (uint32_t& b : bins) {
            const uint32_t c = b;
            b = at;
            at += c;
        }
        for (uint64_t p : pairs) next[bins[(p >> shift) & (kDigits - 1)]++] = p;
        pairs.swap(next);
    }
    std::vector<uint32_t> order(keys.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = uint32_t(pairs[i]);
    return order;
}

uint32_t rasterTriangleCount(const std::vector<SplitVertex>& split, const TriangleMesh& mesh, const VoxelGrid& grid,
                             uint32_t maxVoxels, bool byCells, uint32_t* order) {
    constexpr float kWiden = 1.0f / 1024.0f;
    const size_t triangles = mesh.triangleCount();
    // Per triangle: 0 dropped, 1 + box for the compute path, maxVoxels + 2
    // the raster's; and the Morton code of its box's lowest 8-voxel block.
    std::vector<uint32_t> key(triangles), spatial(triangles);
    std::vector<uint32_t> raster; // the tail of `order`
    uint32_t last[3] = {0, 0, 0}; // the previous kept triangle's block
    size_t kept = 0, jumps = 0;
    for (size_t t = 0; t < triangles; ++t) {
        const uint32_t* idx = &mesh.indices[3 * t];
        key[t] = 0;
        spatial[t] = 0;
        if (idx[0] >= split.size() || idx[1] >= split.size() || idx[2] >= split.size()) continue;
        const auto &a = split[idx[0]].hi, &b = split[idx[1]].hi, &c = split[idx[2]].hi;
        if (!isFinite(a) || !isFinite(b) || !isFinite(c)) continue;
        uint64_t box = 1, cells = 1;
        uint32_t corner[3];
        for (int k = 0; k < 3; ++k) {
            const float hiClamp = float(grid.dims[k]) + 2.0f;
            const float lo = std::clamp(std::min({a[k], b[k], c[k]}) - kWiden, -2.0f, hiClamp);
            const float hi = std::clamp(std::max({a[k], b[k], c[k]}) + kWiden, -2.0f, hiClamp);
            const int64_t cmin = std::max<int64_t>(int64_t(std::ceil(lo)) - 1, 0);
            const int64_t cmax = std::min<int64_t>(int64_t(std::floor(hi)), int64_t(grid.dims[k]) - 1);
            box *= uint64_t(std::max<int64_t>(cmax - cmin + 1, 0));
            cells *= uint64_t(std::max<int64_t>((cmax >> 1) - (cmin >> 1) + 1, 0));
            corner[k] = uint32_t(std::min<int64_t>(cmin >> 3, 1023));
        }
        if (box > maxVoxels) raster.push_back(uint32_t(t));
        // cells <= box when no axis is empty: a box's cells along an axis
        // are at most its voxels (an empty box has no cells either).
        key[t] = box > maxVoxels ? maxVoxels + 2 : uint32_t(byCells && box != 0 ? cells : box) + 1;
        spatial[t] = gpu::voxSpread3(corner[0]) | (gpu::voxSpread3(corner[1]) << 1) | (gpu::voxSpread3(corner[2]) << 2);
        bool jump = false;
        for (int k = 0; k < 3; ++k) jump |= corner[k] > last[k] + 1 || last[k] > corner[k] + 1;
        jumps += kept++ > 0 && jump ? 1 : 0;
        std::copy(corner, corner + 3, last);
    }
    // Empty: the file's order.
    const std::vector<uint32_t> bySpace =
        double(jumps) > kScatteredOrder * double(kept) ? sortedByKey(spatial) : std::vector<uint32_t>{};
    auto triangleAt = [&bySpace](size_t i) { return bySpace.empty() ? uint32_t(i) : bySpace[i]; };
    // Bins by key; the last one (maxVoxels + 2) is the raster's, not in the blocks.
    std::vector<uint32_t> bins(size_t(maxVoxels) + 3);
    std::array<uint32_t, kOrderBlock> blockKeys; // the block's keys, gathered once
    uint32_t next = 0;                           // where the block's compute-path triangles start in `order`
    for (size_t first = 0; first < triangles; first += kOrderBlock) {
        const size_t n = std::min(kOrderBlock, triangles - first);
        std::fill(bins.begin(), bins.end(), 0u);
        for (size_t j = 0; j < n; ++j) ++bins[blockKeys[j] = key[triangleAt(first + j)]];
        for (size_t k = 0; k + 1 < bins.size(); ++k) {
            const uint32_t c = bins[k];
            bins[k] = next;
            next += c;
        }
        for (size_t j = 0; j < n; ++j)
            if (blockKeys[j] != maxVoxels + 2) order[bins[blockKeys[j]]++] = triangleAt(first + j);
    }
    std::copy(raster.begin(), raster.end(), order + (triangles - raster.size()));
    return uint32_t(raster.size());
}

// Solid mode: words per bitmap column (bits 0..dims.x, the last one
// behind every centre) and of one bitmap.
uint32_t solidColumnWords(uint32_t dimsX) { return (dimsX + 1 + 31) / 32; }
uint64_t solidBitmapWords(uint32_t dimsX, uint32_t dimsY, uint32_t dimsZ) {
    return uint64_t(solidColumnWords(dimsX)) * dimsY * dimsZ;
}

// What setMesh staged for a frame (the host side of the frame's stats too).
struct Staged {
    uint32_t solidRows = 0; // solid mode: flip threads ((triangle, VOX_SOLID_ROWS_PER_THREAD rows) each)
    uint32_t triangles = 0;
    uint32_t rasterTriangles = 0; // TrianglePath::Split: triangles the raster may take (rasterTriangleCount)
    uint32_t triangleTiles = 0;   // ConservativeMethod::Compute: the large triangles' tiles (triangle_tiles.h)
    uint32_t vertices = 0;
    uint32_t skipped = 0;
    uint32_t flags = 0;
    VoxelGrid grid;
    uint32_t fragmentCapacity = 0, tileCapacity = 0; // capacities of the frame
    // The first frame after a growth: which frame asked, the capacities before.
    bool grown = false;
    uint64_t grownAfterFrame = 0;
    uint32_t previousFragmentCapacity = 0, previousTileCapacity = 0;
};

// Frames a replaced buffer is kept past the frames in flight: the render
// graph keeps texel views of a buffer for its timing ring (4 frames by
// default) after the buffer's last use.
constexpr uint64_t kRetireSlackFrames = 8;

} // namespace

struct Voxelizer::Impl {
    Device* device = nullptr;
    VoxelizerCreateInfo info;
    testing::Knobs knobs;
    uint32_t depth = 1;
    uint32_t side = 1; // viewport side in pixels
    bool hardware = false;
    // ConservativeMethod::Compute (or Auto without a rasterizer): no raster
    // pass; setMesh() cuts the large triangles into tiles for the compute path.
    bool computeTiles = false;
    bool exact64 = false;   // the VOX_EXACT64 variants (exactFallback && shaderFloat64)
    bool perCell = true;    // LeafMerge::PerCell in effect (not with the moving average)
    bool texelReads = true; // the VOX_TEXEL_READS shaders (texelReads && texelReadsFit)
    // mipmap.comp and alloc.comp read the node pool through texel views:
    // texelReads and views of the largest node pool the range allows within
    // maxTexelBufferElements (so growth never crosses it).
    bool nodeTexels = true;
    bool wideStores = false; // the VOX_WIDE_STORES shaders (wideStores && shaderInt64)
    uint32_t hashSlots = 0;  // TileHash only
    uint32_t cellWords = 1;  // cell bitmap words (cellWordsFor(depth)); the cell list follows

    // Word offsets of one staging slot / the device mesh buffer.
    uint64_t indexOffset = 0, colorOffset = 0, normalOffset = 0, solidOffset = 0, orderOffset = 0,
             triangleTileOffset = 0, slotWords = 0;
    Buffer solidBits;                                   // solid: parity bitmap, then the surface bitmap
    ComputePipeline solidFlip, solidSurface, solidFill; // solid.comp's three stages

    // TrianglePath::Split with exact64: (triangle, compute tile + 1 or 0) per triangle or tile the
    // first small-triangle pass leaves undecided pairs in.
    Buffer undecided;
    Buffer staging, mesh, counters, dispatch, fragments, cursors, dense, tileHash, cells, leafSort, dummy, dummySort,
        statsRing;
    std::array<Buffer, kNodeArrayCount> nodes; // the node pool, one buffer per NodeArray

    GraphicsPipeline raster;     // conservative mode (kVoxThin = 0)
    GraphicsPipeline rasterThin; // kVoxThin = 1, created by the first setMesh in VoxelMode::Thin
    GraphicsPipelineDesc rasterDesc;
    ComputePipeline smallTriangles;     // TrianglePath::Split only; conservative (kVoxThin = 0)
    ComputePipeline smallTrianglesThin; // kVoxThin = 1, created by the first setMesh in VoxelMode::Thin
    ComputePipelineDesc smallTrianglesDesc;
    ComputePipeline smallTrianglesExact; // exact64: the second pass, over the listed triangles
    // small_triangles reads the mesh through an R32UI texel view (binding
    // VOX_SMALL_TRIANGLES_MESH_TEXELS): texelReads, no wideStores and the
    // mesh buffer within meshTexelLimit(). A mesh that outgrows the limit
    // switches to the storage-read pipelines for good; the texel ones are
    // kept in retiredPipelines (recorded frames may still use them).
    bool meshTexels = false;
    std::vector<ComputePipeline> retiredPipelines;
    uint64_t meshTexelLimit() const {
        return knobs.meshTexelLimit ? knobs.meshTexelLimit : device->limits().maxTexelBufferElements;
    }
    Status createSmallTriangles();
    ComputePipeline args, flag, alloc, allocTop, init, leaf, mipmap, mipmapLeafParents, mipmapTop, denseFill, keys,
        link, cellMark, cellList, cellLevels, leafCount, leafRanges, leafScatter, leafMerge;

    // Host state.
    uint32_t currentSlot = 0;
    bool staged = false;
    bool stagedSinceRecord = false; // setMesh ran since the last recorded upload
    // Which setMesh (1, 2, ...) the device mesh buffer holds (0: none): a
    // frame whose mesh is already there records no upload.
    uint64_t meshSerial = 0, uploadedMesh = 0;
    Staged current;
    uint64_t framesRecorded = 0;
    std::vector<uint64_t> ringFrame; // frame whose counters each stats slot holds
    std::vector<Staged> ringStaged;  // host data of that frame

    std::unique_ptr<RenderGraph> ownGraph;
    bool passesAdded = false;
    // Timings: the graph holding the passes, and its frame numbering's offset
    // from framesRecorded (set by the first recorded frame).
    const RenderGraph* timingGraph = nullptr;
    bool graphFrameKnown = false;
    int64_t graphFrameOffset = 0; // negative in a graph built after frames of an earlier one
    // Capacities now; the auto* ones grow (create-info fields left 0).
    struct Capacities {
        uint32_t vertices = 0, triangles = 0, fragments = 0, tiles = 0;
        uint32_t triangleTiles = 0; // computeTiles: the large triangles' tiles the mesh buffer holds
    };
    Capacities cap;
    bool autoVertices = true, autoTriangles = true, autoFragments = true, autoTiles = true;
    // Replaced buffers, released once no recorded frame may still use them.
    struct Retired {
        uint64_t releaseAt = 0; // framesRecorded from which it is released
        Buffer buffer;
    };
    std::vector<Retired> retired;
    // Counters read by readStats() (the host waited), for the next growth check.
    std::optional<VoxelStats> observed;
    std::optional<Capacities> refused; // the last growth that failed (reported once)
    // The graph the buffers are imported into, and the imports that grow.
    RenderGraph* importGraph = nullptr;
    std::vector<std::pair<const Buffer*, BufferRef>> growable;

    struct MeshLayout {
        uint64_t indexOffset = 0, colorOffset = 0, normalOffset = 0, solidOffset = 0, orderOffset = 0,
                 triangleTileOffset = 0, slotWords = 0;
    };
    MeshLayout meshLayout(const Capacities& c) const;
    Status makeBuffer(Buffer& out, VkDeviceSize size, VkBufferUsageFlags usage, MemoryUsage mem, const char* name);
    Status createFixedBuffers();
    uint64_t fixedBytes() const;
    uint64_t sizedBytes(const Capacities& c) const;
    uint64_t maxFragments() const; // the largest fragment capacity the device's buffers (and texel views) take
    VoxelizerCreateInfo withCapacities(const Capacities& c) const;
    Status checkLimits(const Capacities& c) const;
    // Replaces the buffers whose capacities change (all or nothing).
    Status resize(const Capacities& want, const char* why);
    Status growFromStats(); // at a frame boundary: grow where the newest counters overflowed
    // Host data of the newest recorded frame (`current` before any).
    const Staged& lastFrame() const {
        return framesRecorded ? ringStaged[(framesRecorded - 1) % info.framesInFlight] : current;
    }
    void releaseRetired();
    // TrianglePath::Split with the Float64 variants: the small-triangle pass
    // lists triangles with undecided pairs for a second pass.
    bool splitExact() const { return exact64 && knobs.trianglePath == TrianglePath::Split; }
    // The undecided list: an entry per triangle and per large-triangle tile at most.
    static VkDeviceSize undecidedBytes(const Capacities& c) {
        return (VkDeviceSize(c.triangles) + c.triangleTiles) * 8;
    }
    Status createPipelines();
    uint32_t computeFlags() const; // the compute shaders' kVoxFlags
    bool tileHashBuild() const { return knobs.octreeBuild == OctreeBuild::TileHash; }
    bool levelBits() const; // OccupancyLevels: occupancy bitmaps (cell_levels.comp), no flag pass
    // OccupancyLevels: the occupancy levels (0 .. n - 1) vox.alloc_top
    // derives before allocating: those below kAllocTopLevels that
    // cell_list.comp does not write (level D - 2).
    uint32_t allocTopBitmaps() const { return levelBits() && depth >= 3 ? std::min(kAllocTopLevels, depth - 2) : 0; }
    uint32_t levelBitsWord(uint32_t level) const; // word offset of a level's bitmap in `cells`
    VoxelizerGraphRefs addTo(RenderGraph& graph);
    gpu::RasterParams rasterParams() const;
    gpu::ComputeParams computeParams(uint32_t level) const;
    Status readDevice(const Buffer& src, VkDeviceSize offset, VkDeviceSize bytes, void* out);
    VoxelStats decode(const gpu::VoxCounters& c, const Staged& s, uint64_t frame) const;
};

// Storage buffers also viewed as texel buffers (the texel reads view the
// fragment, cell, sort and cursor buffers and their stand-ins).
constexpr VkBufferUsageFlags kStorageUsage =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
    VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT;

Status Voxelizer::Impl::makeBuffer(Buffer& out, VkDeviceSize size, VkBufferUsageFlags usage, MemoryUsage mem,
                                   const char* name) {
    auto b = device->allocator().createBuffer({.size = size, .usage = usage, .memory = mem, .name = name});
    if (!b) return b.status().withContext(std::string("voxelizer: creating ") + name + ": ");
    out = std::move(b).value();
    return {};
}

Voxelizer::Impl::MeshLayout Voxelizer::Impl::meshLayout(const Capacities& c) const {
    const uint32_t maxV = c.vertices, maxT = c.triangles;
    MeshLayout l;
    l.indexOffset = 6 * uint64_t(maxV); // split grid-space vertices: hi xyz, lo xyz
    l.colorOffset = l.indexOffset + 3 * uint64_t(maxT);
    l.normalOffset = l.colorOffset + maxV;
    l.solidOffset = l.normalOffset + 3 * uint64_t(maxV);
    // Solid: per triangle the prefix of row counts (maxT + 1) and its first row.
    l.orderOffset = l.solidOffset + (info.solid ? 2 * uint64_t(maxT) + 1 : 0);
    // TrianglePath::Split: the small-triangle pass's order (rasterTriangleCount).
    l.triangleTileOffset = l.orderOffset + (knobs.trianglePath == TrianglePath::Split ? uint64_t(maxT) : 0);
    // computeTiles: the large triangles' tiles (kTileWords each).
    l.slotWords = l.triangleTileOffset + (computeTiles ? uint64_t(kTileWords) * c.triangleTiles : 0);
    return l;
}

uint64_t Voxelizer::Impl::maxFragments() const {
    const uint64_t range = device->limits().maxStorageBufferRange;
    const uint64_t fixedCellWords = 2 * uint64_t(cellWords) + (levelBits() ? levelBitsWordsFor(depth) : 0);
    uint64_t f = std::min<uint64_t>(range / 16, UINT32_MAX);
    f = std::min(f, range / 4 > fixedCellWords ? range / 4 - fixedCellWords : 0);
    if (texelReads) {
        const uint64_t texels = device->limits().maxTexelBufferElements;
        f = std::min(f, texels / 2);
        f = std::min(f, texels > fixedCellWords ? texels - fixedCellWords : 0);
    }
    return f;
}

Status Voxelizer::Impl::checkLimits(const Capacities& c) const {
    const uint64_t range = device->limits().maxStorageBufferRange;
    const VkDeviceSize slotBytes = meshLayout(c).slotWords * 4;
    if (slotBytes > range)
        return Status::error(
            ErrorCode::DeviceLimit,
            "voxelizer: a mesh of " + std::to_string(c.vertices) + " vertices and " + std::to_string(c.triangles) +
                " triangles" +
                (computeTiles ? " (" + std::to_string(c.triangleTiles) + " large-triangle tiles)" : std::string()) +
                " needs a mesh buffer of " + std::to_string(slotBytes) + " bytes, over maxStorageBufferRange " +
                std::to_string(range));
    if (splitExact() && undecidedBytes(c) > range)
        return Status::error(ErrorCode::DeviceLimit, "voxelizer: " + std::to_string(c.triangles) +
                                                         " triangles need an undecided-triangle list of " +
                                                         std::to_string(undecidedBytes(c)) +
                                                         " bytes, over maxStorageBufferRange " + std::to_string(range));
    const VkDeviceSize fragBytes = VkDeviceSize(c.fragments) * 16;
    if (fragBytes > range)
        return Status::error(ErrorCode::DeviceLimit,
                             std::string("voxelizer: ") + (autoFragments ? "" : "fragmentCapacity ") +
                                 std::to_string(c.fragments) + " voxel fragments need " + std::to_string(fragBytes) +
                                 " bytes, over maxStorageBufferRange " + std::to_string(range) +
                                 " (lower the resolution)");
    // Each node array is its own binding: the range bounds one array, not the pool.
    const VkDeviceSize nodeBytes = VkDeviceSize(c.tiles) * 8 * kNodeArrayBytes;
    if (c.tiles > testing::maxTileCapacity(range, knobs.octreeBuild))
        return Status::error(ErrorCode::DeviceLimit,
                             std::string("voxelizer: ") + (autoTiles ? "" : "tileCapacity ") + std::to_string(c.tiles) +
                                 " octree tiles need node arrays of " + std::to_string(nodeBytes) +
                                 " bytes each, over maxStorageBufferRange " + std::to_string(range) + " (at most " +
                                 std::to_string(testing::maxTileCapacity(range, knobs.octreeBuild)) +
                                 " tiles; lower the resolution)");
    const VkDeviceSize cellBytes = cellBufferWords(depth, c.fragments, levelBits()) * 4;
    if (cellBytes > range)
        return Status::error(
            ErrorCode::DeviceLimit,
            "voxelizer: the cell bitmap and list (maxResolution " + std::to_string(info.maxResolution) + ", " +
                (autoFragments ? "" : "fragmentCapacity ") + std::to_string(c.fragments) + " fragments) need " +
                std::to_string(cellBytes) + " bytes, over maxStorageBufferRange " + std::to_string(range));
    if (texelReads && !testing::texelReadsFit(withCapacities(c), knobs, device->limits().maxTexelBufferElements))
        return Status::error(ErrorCode::DeviceLimit, "voxelizer: " + std::to_string(c.fragments) +
                                                         " voxel fragments exceed the texel views' "
                                                         "maxTexelBufferElements " +
                                                         std::to_string(device->limits().maxTexelBufferElements));
    return {};
}

VoxelizerCreateInfo Voxelizer::Impl::withCapacities(const Capacities& c) const {
    VoxelizerCreateInfo i = info;
    i.maxVertices = c.vertices;
    i.maxTriangles = c.triangles;
    i.fragmentCapacity = c.fragments;
    i.tileCapacity = c.tiles;
    return i;
}

uint64_t Voxelizer::Impl::sizedBytes(const Capacities& c) const {
    uint64_t b = meshLayout(c).slotWords * 4 * (uint64_t(info.framesInFlight) + 1);
    if (splitExact()) b += undecidedBytes(c);
    b += uint64_t(c.fragments) * 16 + cellBufferWords(depth, c.fragments, levelBits()) * 4;
    if (levelBits()) b += uint64_t(c.fragments) * 8;
    if (perCell) b += uint64_t(c.fragments) * 16;
    b += uint64_t(c.tiles) * kNodeBytes * 8;
    if (tileHashBuild()) b += uint64_t(hashSlotsFor(c.tiles)) * 12;
    return b;
}

uint64_t Voxelizer::Impl::fixedBytes() const {
    uint64_t b = 0;
    for (const Buffer* f : {&counters, &dispatch, &dense, &solidBits, &dummy, &dummySort, &statsRing})
        if (f->valid()) b += f->size();
    return b;
}

Status Voxelizer::Impl::createFixedBuffers() {
    const uint64_t range = device->limits().maxStorageBufferRange;
    if (info.denseMaxVoxels * 4 > range)
        return Status::error(ErrorCode::DeviceLimit,
                             "voxelizer: denseMaxVoxels " + std::to_string(info.denseMaxVoxels) +
                                 " floats exceed maxStorageBufferRange " + std::to_string(range));
    // Whole uvec4s: the texel-read shaders read it as a std140 uniform block of uvec4s.
    PYRAMARCH_TRY(makeBuffer(counters, (sizeof(gpu::VoxCounters) + 15) & ~VkDeviceSize(15),
                             kStorageUsage | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, MemoryUsage::DeviceLocal,
                             "vox.counters"));
    PYRAMARCH_TRY(makeBuffer(dispatch, 16 * gpu::VOX_DISPATCH_ENTRIES,
                             kStorageUsage | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, MemoryUsage::DeviceLocal,
                             "vox.dispatch"));
    if (info.denseMaxVoxels > 0)
        PYRAMARCH_TRY(makeBuffer(dense, info.denseMaxVoxels * 4, kStorageUsage, MemoryUsage::DeviceLocal, "vox.dense"));
    if (info.solid) {
        const uint32_t r = info.maxResolution;
        const VkDeviceSize solidBytes = 2 * solidBitmapWords(r, r, r) * 4;
        if (solidBytes / 2 > range)
            return Status::error(ErrorCode::DeviceLimit,
                                 "voxelizer: solid bitmaps for maxResolution " + std::to_string(r) + " need " +
                                     std::to_string(solidBytes / 2) + " bytes each, over maxStorageBufferRange " +
                                     std::to_string(range));
        PYRAMARCH_TRY(makeBuffer(solidBits, solidBytes, kStorageUsage, MemoryUsage::DeviceLocal, "vox.solid"));
    }
    PYRAMARCH_TRY(makeBuffer(dummy, 16, kStorageUsage, MemoryUsage::DeviceLocal, "vox.unused"));
    // cell_list's stand-in for the sort buffer: apart from `dummy`, which the
    // leaf pass reads as another binding (one graph resource per buffer).
    if (!perCell) PYRAMARCH_TRY(makeBuffer(dummySort, 16, kStorageUsage, MemoryUsage::DeviceLocal, "vox.unused_sort"));
    PYRAMARCH_TRY(makeBuffer(statsRing, sizeof(gpu::VoxCounters) * info.framesInFlight,
                             VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUsage::Readback, "vox.stats"));
    return {};
}

// The small-triangle pipelines (TrianglePath::Split) for meshTexels; a
// thin one is created again by the next setMesh in VoxelMode::Thin.
Status Voxelizer::Impl::createSmallTriangles() {
    // The raster's bindings (0 mesh, 1 counters, 2 fragments) and push
    // constants; with exact64 also 3 dispatch and 4 the undecided triangles;
    // 5 the mesh's texel view.
    PipelineLayoutDesc tl;
    tl.bindings.assign(gpu::VOX_SMALL_TRIANGLES_MESH_TEXELS + 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
    if (meshTexels) tl.bindings[gpu::VOX_SMALL_TRIANGLES_MESH_TEXELS] = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
    tl.pushConstantBytes = sizeof(gpu::RasterParams);
    tl.stages = VK_SHADER_STAGE_COMPUTE_BIT;
    ComputePipelineDesc d;
    using Spirv = std::span<const uint32_t>;
    if (wideStores)
        d.spirv = exact64 ? Spirv(kSmallTrianglesExact64WideSpv) : Spirv(kSmallTrianglesWideSpv);
    else if (meshTexels)
        d.spirv = exact64 ? Spirv(kSmallTrianglesExact64Spv) : Spirv(kSmallTrianglesSpv);
    else
        d.spirv = exact64 ? Spirv(kSmallTrianglesExact64StorageSpv) : Spirv(kSmallTrianglesStorageSpv);
    d.name = "vox.small_triangles";
    d.layout = tl;
    d.specialization.push_back({gpu::VOX_THIN_SPEC_ID, 0u});
    auto p = ComputePipeline::create(*device, d);
    if (!p) return p.status().withContext("voxelizer: pipeline vox.small_triangles: ");
    for (ComputePipeline* old : {&smallTriangles, &smallTrianglesThin, &smallTrianglesExact})
        if (old->pipeline() != VK_NULL_HANDLE) retiredPipelines.push_back(std::move(*old));
    smallTriangles = std::move(p).value();
    smallTrianglesThin = ComputePipeline{};
    smallTrianglesDesc = d;
    if (exact64) {
        ComputePipelineDesc e = d;
        e.name = "vox.small_triangles_exact";
        e.specialization.push_back({gpu::VOX_DECIDE_PASS_SPEC_ID, 1u});
        auto q = ComputePipeline::create(*device, e);
        if (!q) return q.status().withContext("voxelizer: pipeline vox.small_triangles_exact: ");
        smallTrianglesExact = std::move(q).value();
    }
    return {};
}

Status Voxelizer::Impl::resize(const Capacities& want, const char* why) {
    PYRAMARCH_TRY(checkLimits(want));
    const uint64_t total = fixedBytes() + sizedBytes(want);
    if (info.memoryBudget && total > info.memoryBudget)
        return Status::error(ErrorCode::CapacityExceeded,
                             std::string("voxelizer: ") + why + " needs " + std::to_string(total) +
                                 " bytes of buffers (" + std::to_string(want.vertices) + " vertices, " +
                                 std::to_string(want.triangles) + " triangles, " + std::to_string(want.fragments) +
                                 " fragments, " + std::to_string(want.tiles) + " tiles), over memoryBudget " +
                                 std::to_string(info.memoryBudget) +
                                 (cap.fragments == 0 ? std::string(" (raise the budget or lower maxResolution)")
                                                     : std::string(" (raise the budget or lower the resolution; the "
                                                                   "buffers stay as they were)")));
    // New buffers first; the old ones are replaced only when all exist, so a
    // failure leaves the voxelizer as it was.
    struct Fresh {
        Buffer* slot;
        Buffer buffer;
    };
    std::vector<Fresh> fresh;
    auto add = [&](Buffer& slot, VkDeviceSize size, VkBufferUsageFlags usage, MemoryUsage mem,
                   const char* name) -> Status {
        Buffer b;
        PYRAMARCH_TRY(makeBuffer(b, size, usage, mem, name));
        fresh.push_back({&slot, std::move(b)});
        return {};
    };
    const MeshLayout layout = meshLayout(want);
    if (want.vertices != cap.vertices || want.triangles != cap.triangles || want.triangleTiles != cap.triangleTiles) {
        const VkDeviceSize slotBytes = layout.slotWords * 4;
        PYRAMARCH_TRY(add(staging, slotBytes * info.framesInFlight, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                          MemoryUsage::Upload, "vox.staging"));
        PYRAMARCH_TRY(add(mesh, slotBytes, kStorageUsage, MemoryUsage::DeviceLocal, "vox.mesh"));
        uploadedMesh = 0; // a new device buffer: the next frame uploads
        if (splitExact())
            PYRAMARCH_TRY(add(undecided, undecidedBytes(want), kStorageUsage, MemoryUsage::DeviceLocal,
                              "vox.undecided_triangles"));
    }
    if (want.fragments != cap.fragments) {
        const VkDeviceSize fragBytes = VkDeviceSize(want.fragments) * 16;
        PYRAMARCH_TRY(add(fragments, fragBytes, kStorageUsage, MemoryUsage::DeviceLocal, "vox.fragments"));
        PYRAMARCH_TRY(add(cells, cellBufferWords(depth, want.fragments, levelBits()) * 4, kStorageUsage,
                          MemoryUsage::DeviceLocal, "vox.cells"));
        // OccupancyLevels: per cell its level D - 1 node (alloc.comp); before
        // the tree build, per fragment record its cell and rank (leaf_sort.comp).
        if (levelBits())
            PYRAMARCH_TRY(
                add(cursors, VkDeviceSize(want.fragments) * 8, kStorageUsage, MemoryUsage::DeviceLocal, "vox.cursors"));
        // LeafMerge::PerCell: per cell a count and a range end, per fragment a
        // pair (vox_compute.glsl binding 14): as many bytes as the fragments.
        if (perCell) PYRAMARCH_TRY(add(leafSort, fragBytes, kStorageUsage, MemoryUsage::DeviceLocal, "vox.leaf_sort"));
    }
    if (want.tiles != cap.tiles) {
        const VkDeviceSize nodeBytes = VkDeviceSize(want.tiles) * 8 * kNodeArrayBytes;
        for (uint32_t a = 0; a < kNodeArrayCount; ++a)
            PYRAMARCH_TRY(add(nodes[a], nodeBytes, kStorageUsage, MemoryUsage::DeviceLocal, kNodeArrayNames[a]));
        if (tileHashBuild())
            PYRAMARCH_TRY(add(tileHash, VkDeviceSize(hashSlotsFor(want.tiles)) * 12, kStorageUsage,
                              MemoryUsage::DeviceLocal, "vox.tile_hash"));
    }
    // Frames already recorded may still read the old buffers: they are
    // released once the host may have reused those frames' slots, plus the
    // host graph's texel-view ring (views of a buffer outlive its last frame
    // by up to that many frames; kept apart so that no view names a freed buffer).
    const uint64_t releaseAt = framesRecorded + info.framesInFlight + kRetireSlackFrames;
    for (Fresh& f : fresh) {
        if (f.slot->valid()) retired.push_back({releaseAt, std::move(*f.slot)});
        *f.slot = std::move(f.buffer);
    }
    indexOffset = layout.indexOffset;
    colorOffset = layout.colorOffset;
    normalOffset = layout.normalOffset;
    solidOffset = layout.solidOffset;
    orderOffset = layout.orderOffset;
    triangleTileOffset = layout.triangleTileOffset;
    slotWords = layout.slotWords;
    cap = want;
    if (meshTexels && slotWords > meshTexelLimit()) {
        meshTexels = false;
        PYRAMARCH_TRY(createSmallTriangles());
    }
    hashSlots = tileHashBuild() ? hashSlotsFor(cap.tiles) : 0;
    current.fragmentCapacity = cap.fragments;
    current.tileCapacity = cap.tiles;
    if (importGraph)
        for (const auto& [buffer, ref] : growable)
            importGraph->rebindImportedBuffer(ref, buffer->handle(), buffer->size());
    return {};
}

void Voxelizer::Impl::releaseRetired() {
    std::erase_if(retired, [this](const Retired& r) { return r.releaseAt <= framesRecorded; });
}

// Capacity with a quarter of slack (meshes and surfaces that change from
// frame to frame), at most `limit`.
static uint32_t withSlack(uint64_t needed, uint64_t limit) {
    return uint32_t(std::min<uint64_t>(needed + needed / 4 + 64, limit));
}

Status Voxelizer::Impl::growFromStats() {
    releaseRetired();
    // The newest counters the host has: the ring's complete frame, or what
    // readStats() read after the host waited.
    std::optional<VoxelStats> seen = observed;
    observed.reset();
    if (framesRecorded >= info.framesInFlight) {
        const uint64_t frame = framesRecorded - info.framesInFlight;
        const uint32_t slot = uint32_t(frame % info.framesInFlight);
        if (ringFrame[slot] == frame && (!seen || seen->frame < frame)) {
            statsRing.invalidate();
            gpu::VoxCounters c;
            std::memcpy(&c, static_cast<const uint8_t*>(statsRing.mapped()) + slot * sizeof(c), sizeof(c));
            seen = decode(c, ringStaged[slot], frame);
        }
    }
    if (!seen) return {};
    const VoxelStats& s = *seen;
    Capacities want = cap;
    if (autoFragments && s.fragmentsNeeded > cap.fragments) {
        if (s.fragmentsNeeded > maxFragments())
            return Status::error(
                ErrorCode::DeviceLimit,
                "voxelizer: frame " + std::to_string(s.frame) + " needs " + std::to_string(s.fragmentsNeeded) +
                    " voxel fragments, over the " + std::to_string(maxFragments()) +
                    " the device's buffers hold (maxStorageBufferRange " +
                    std::to_string(device->limits().maxStorageBufferRange) + "); lower the resolution");
        want.fragments = withSlack(s.fragmentsNeeded, maxFragments());
    }
    if (autoTiles) {
        const uint64_t maxTiles = testing::maxTileCapacity(device->limits().maxStorageBufferRange, knobs.octreeBuild);
        uint64_t tiles = s.tileOverflow ? s.tilesNeeded : 0;
        // A lower bound (the pool ran out above the leaves) from a frame run
        // with the current pool: at least twice the pool, and room for a
        // tile per occupied cell and half as many above.
        if (s.tilesNeededIsLowerBound && s.tileCapacity == cap.tiles)
            tiles = std::max<uint64_t>({tiles, 2 * uint64_t(cap.tiles), uint64_t(s.occupiedCells) * 3 / 2 + 8 * depth});
        // Truncated fragments build a partial tree: scale its size with them.
        if (s.fragmentOverflow && s.fragmentsStored > 0 && s.tilesNeeded > 0)
            tiles = std::max<uint64_t>(tiles, uint64_t(s.tilesNeeded) * s.fragmentsNeeded / s.fragmentsStored);
        if (tiles > cap.tiles) {
            if (tiles > maxTiles)
                return Status::error(ErrorCode::DeviceLimit,
                                     "voxelizer: frame " + std::to_string(s.frame) + " needs " + std::to_string(tiles) +
                                         " octree tiles, over the " + std::to_string(maxTiles) +
                                         " the device's node arrays hold; lower the resolution");
            want.tiles = withSlack(tiles, maxTiles);
        }
    }
    if (want.fragments == cap.fragments && want.tiles == cap.tiles) return {};
    // A growth refused before (budget, memory) is reported once: the frames
    // after it run at the old sizes, truncated and reported, until the
    // counters ask for more.
    if (refused && want.fragments <= refused->fragments && want.tiles <= refused->tiles) return {};
    const Capacities before = cap;
    Status grown = resize(want, ("frame " + std::to_string(s.frame) + " (overflowed)").c_str());
    if (!grown) {
        refused = want;
        return grown;
    }
    refused.reset();
    current.grown = true;
    current.grownAfterFrame = s.frame;
    current.previousFragmentCapacity = before.fragments;
    current.previousTileCapacity = before.tiles;
    return {};
}

Status Voxelizer::Impl::createPipelines() {
    PipelineLayoutDesc rasterLayout;
    rasterLayout.bindings = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                             VK_DESCRIPTOR_TYPE_STORAGE_BUFFER};
    rasterLayout.pushConstantBytes = sizeof(gpu::RasterParams);
    rasterLayout.stages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_GEOMETRY_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
    GraphicsPipelineDesc g;
    g.vertexSpirv = kRasterVertSpv;
    g.geometrySpirv = kRasterGeomSpv;
    g.name = "vox.raster";
    g.layout = rasterLayout;
    g.conservativeOverestimate = hardware;
    const DeviceLimits& lim = device->limits();
    constexpr VkSubgroupFeatureFlags kAppendOps =
        VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
    const bool subgroupAppend = knobs.subgroupAppend && (lim.subgroupStages & VK_SHADER_STAGE_FRAGMENT_BIT) != 0 &&
                                (lim.subgroupOperations & kAppendOps) == kAppendOps;
    if (subgroupAppend)
        g.fragmentSpirv = exact64 ? std::span<const uint32_t>(kRasterFragSubgroupExact64Spv)
                                  : std::span<const uint32_t>(kRasterFragSubgroupSpv);
    else
        g.fragmentSpirv =
            exact64 ? std::span<const uint32_t>(kRasterFragExact64Spv) : std::span<const uint32_t>(kRasterFragSpv);
    g.specialization.push_back({gpu::VOX_THIN_SPEC_ID, 0u});
    if (!computeTiles) {
        auto r = GraphicsPipeline::create(*device, g);
        if (!r) return r.status().withContext("voxelizer: raster pipeline: ");
        raster = std::move(r).value();
        rasterDesc = g;
    }

    if (knobs.trianglePath == TrianglePath::Split) {
        meshTexels = texelReads && !wideStores && slotWords <= meshTexelLimit();
        PYRAMARCH_TRY(createSmallTriangles());
    }

    if (info.solid) {
        PipelineLayoutDesc sl = rasterLayout;
        sl.stages = VK_SHADER_STAGE_COMPUTE_BIT;
        sl.bindings.resize(4, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
        const char* names[3] = {"vox.solid_flip", "vox.solid_surface", "vox.solid_fill"};
        ComputePipeline* outs[3] = {&solidFlip, &solidSurface, &solidFill};
        for (uint32_t stage = 0; stage < 3; ++stage) {
            ComputePipelineDesc d;
            d.spirv = kSolidSpv;
            d.name = names[stage];
            d.layout = sl;
            d.specialization.push_back({0u, stage});
            auto p = ComputePipeline::create(*device, d);
            if (!p) return p.status().withContext(std::string("voxelizer: pipeline ") + names[stage] + ": ");
            *outs[stage] = std::move(p).value();
        }
    }

    PipelineLayoutDesc cl;
    // Storage buffers unless the shader says otherwise (its texel and uniform
    // views, vox_compute.glsl); a binding a shader does not use stays a
    // storage buffer, so a pass may still declare it.
    cl.bindings.assign(gpu::VOX_COMPUTE_BINDINGS, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
    cl.bindingsFromSpirv = true;
    cl.pushConstantBytes = sizeof(gpu::ComputeParams);
    cl.stages = VK_SHADER_STAGE_COMPUTE_BIT;
    struct Item {
        ComputePipeline* out;
        std::span<const uint32_t> spv;
        const char* name;
        uint32_t step = 0; // specialization constant 2: leaf_sort.comp's kStep, mipmap.comp's kLeafParents
    };
    // The texel-read shaders or their storage-read variants.
    auto reads = [this](std::span<const uint32_t> texel, std::span<const uint32_t> storage) {
        return texelReads ? texel : storage;
    };
    const std::span<const uint32_t> sortSpv = reads(kLeafSortSpv, kLeafSortStorageSpv);
    const Item items[] = {
        {&args, kArgsSpv, "vox.args"},
        {&flag, kFlagSpv, "vox.flag"},
        {&alloc, nodeTexels ? std::span<const uint32_t>(kAllocSpv) : kAllocStorageSpv, "vox.alloc"},
        {&allocTop, kAllocTopSpv, "vox.alloc_top"},
        {&init, kInitSpv, "vox.init"},
        {&leaf, kLeafSpv, "vox.leaf"},
        {&mipmap, nodeTexels ? std::span<const uint32_t>(kMipmapSpv) : kMipmapStorageSpv, "vox.mipmap"},
        {&mipmapLeafParents, kMipmapStorageSpv, "vox.mipmap.leaf_parents", 1},
        {&mipmapTop, kMipmapTopSpv, "vox.mipmap_top"},
        {&denseFill, kDenseSpv, "vox.dense"},
        {&keys, kKeysSpv, "vox.keys"},
        {&link, kLinkSpv, "vox.link"},
        {&cellMark, reads(kCellMarkSpv, kCellMarkStorageSpv), "vox.cell_mark"},
        {&cellList, reads(kCellListSpv, kCellListStorageSpv), "vox.cell_list"},
        {&cellLevels, kCellLevelsSpv, "vox.cell_levels"},
        {&leafCount, sortSpv, "vox.leaf_count", 0},
        {&leafRanges, sortSpv, "vox.leaf_ranges", 1},
        {&leafScatter, sortSpv, "vox.leaf_scatter", 2},
        {&leafMerge,
         wideStores ? reads(kLeafMergeWideSpv, kLeafMergeStorageWideSpv) : reads(kLeafMergeSpv, kLeafMergeStorageSpv),
         "vox.leaf_merge"}};
    for (const Item& it : items) {
        if (!tileHashBuild() && (it.out == &keys || it.out == &link)) continue;
        if (tileHashBuild() && (it.out == &flag || it.out == &alloc || it.out == &init)) continue;
        if (!levelBits() && (it.out == &cellLevels || it.out == &allocTop)) continue;
        if (levelBits() && it.out == &flag) continue;
        const bool sortStep = it.out == &leafCount || it.out == &leafRanges || it.out == &leafScatter;
        if (!perCell && (sortStep || it.out == &leafMerge)) continue;
        ComputePipelineDesc d;
        d.spirv = it.spv;
        d.name = it.name;
        d.layout = cl;
        // Only the shaders that read kVoxFlags get it: a specialization is a
        // pipeline of its own to compile (and to instrument under GPU-AV) for
        // every build configuration, where an unspecialised one is shared.
        if (it.out == &flag || it.out == &leaf || it.out == &leafMerge || it.out == &cellList || it.out == &alloc ||
            sortStep)
            d.specialization.push_back({gpu::VOX_FLAGS_SPEC_ID, computeFlags()});
        const bool mipmapPipe = it.out == &mipmap || it.out == &mipmapLeafParents || it.out == &mipmapTop;
        if (it.out == &leaf || mipmapPipe)
            d.specialization.push_back({0, knobs.colorMerge == ColorMerge::MovingAverage ? 1u : 0u});
        if (sortStep || mipmapPipe) d.specialization.push_back({2, it.step});
        auto p = ComputePipeline::create(*device, d);
        if (!p) return p.status().withContext(std::string("voxelizer: pipeline ") + it.name + ": ");
        *it.out = std::move(p).value();
    }

    return {};
}

gpu::RasterParams Voxelizer::Impl::rasterParams() const {
    gpu::RasterParams p{};
    const std::array<float, 3> inv = gridInverseSize(current.grid);
    p.origin = {current.grid.origin[0], current.grid.origin[1], current.grid.origin[2], 0.f};
    p.invSize = {inv[0], inv[1], inv[2], 0.f};
    p.dims = {current.grid.dims[0], current.grid.dims[1], current.grid.dims[2], side};
    const uint32_t split = knobs.trianglePath == TrianglePath::Split ? gpu::VOX_SPLIT : 0u;
    p.counts = {current.triangles, current.vertices, cap.fragments, current.flags | split};
    p.offsets = {uint32_t(indexOffset), uint32_t(colorOffset), uint32_t(normalOffset), knobs.smallTriangleVoxels};
    const VoxelGrid& gr = current.grid;
    p.solid = {uint32_t(solidOffset), solidColumnWords(gr.dims[0]),
               uint32_t(solidBitmapWords(gr.dims[0], gr.dims[1], gr.dims[2])), current.solidRows};
    p.order = {uint32_t(orderOffset), current.triangles - current.rasterTriangles, uint32_t(triangleTileOffset), 0u};
    return p;
}

bool Voxelizer::Impl::levelBits() const { return knobs.octreeBuild == OctreeBuild::OccupancyLevels; }

uint32_t Voxelizer::Impl::levelBitsWord(uint32_t level) const {
    if (level + 1 >= depth) return 0; // the cell bitmap
    uint32_t at = 2 * cellWords + cap.fragments;
    for (uint32_t l = 0; l < level; ++l) at += levelWordsFor(l);
    return at;
}

uint32_t Voxelizer::Impl::computeFlags() const {
    return (cursors.valid() ? gpu::VOX_CURSORS : 0u) | (tileHashBuild() ? gpu::VOX_TILE_HASH : 0u) |
           (perCell ? gpu::VOX_SORTED_LEAVES : 0u);
}

gpu::ComputeParams Voxelizer::Impl::computeParams(uint32_t level) const {
    gpu::ComputeParams p{};
    p.dims = {current.grid.dims[0], current.grid.dims[1], current.grid.dims[2], depth};
    p.level = level;
    p.fragmentCapacity = cap.fragments;
    p.tileCapacity = cap.tiles;
    p.hashMask = hashSlots - 1; // 0xffffffff without a hash: never read then
    p.cellWords = cellWords;
    if (levelBits() && level < depth) {
        p.levelBits = levelBitsWord(level);
        p.childBits = levelBitsWord(level + 1);
        p.childWords = level + 2 >= depth ? cellWords : levelWordsFor(level + 1);
    }
    return p;
}

VoxelizerGraphRefs Voxelizer::Impl::addTo(RenderGraph& g) {
    // Module-owned buffers come in with the use the previous frame left them
    // in (= the use they leave this frame in), so frames chain correctly.
    const ExternalUse hostWrite{Access::HostWrite, PassKind::Transfer};
    // The mesh is read by the raster's vertex shader and by compute passes
    // (small triangles, the solid fill): the next frame's upload waits on both.
    const ExternalUse meshUse{Access::StorageRead, PassKind::Graphics,
                              VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT};
    const ExternalUse countersUse{Access::TransferSrc, PassKind::Transfer};
    const ExternalUse computeRead{Access::StorageRead, PassKind::Compute};
    const ExternalUse computeRW{Access::StorageReadWrite, PassKind::Compute};
    const ExternalUse indirect{Access::IndirectRead, PassKind::Compute};
    const ExternalUse hostRead{Access::HostRead, PassKind::Transfer};
    const bool withDense = dense.valid();

    // The buffers that grow are rebound in this graph when they are replaced.
    importGraph = &g;
    growable.clear();
    auto importGrowable = [&](const char* name, const Buffer& b, ExternalUse before, ExternalUse after,
                              bool readOnly = false) {
        const BufferRef ref = g.importBuffer(name, b, before, after, readOnly);
        growable.emplace_back(&b, ref);
        return ref;
    };
    BufferRef stagingRef = importGrowable("vox.staging", staging, hostWrite, hostWrite, true);
    BufferRef meshRef = importGrowable("vox.mesh", mesh, meshUse, meshUse);
    BufferRef countersRef = g.importBuffer("vox.counters", counters, countersUse, countersUse);
    BufferRef dispatchRef = g.importBuffer("vox.dispatch", dispatch, indirect, indirect);
    BufferRef fragmentsRef = importGrowable("vox.fragments", fragments, computeRead, computeRead);
    std::array<BufferRef, kNodeArrayCount> nodeRefs;
    for (uint32_t a = 0; a < kNodeArrayCount; ++a)
        nodeRefs[a] = importGrowable(kNodeArrayNames[a], nodes[a], computeRW, computeRW);
    const ExternalUse denseUse{Access::StorageWrite, PassKind::Compute};
    BufferRef denseRef = withDense ? g.importBuffer("vox.dense", dense, denseUse, denseUse) : BufferRef{};
    BufferRef statsRef = g.importBuffer("vox.stats", statsRing, hostRead, hostRead);
    VoxelizerGraphRefs outputs;
    outputs.counters = countersRef;
    outputs.dispatch = dispatchRef;
    outputs.fragments = fragmentsRef;
    outputs.nodes = nodeRefs[gpu::VOX_NODE_CHILD];
    outputs.nodeColor = nodeRefs[gpu::VOX_NODE_COLOR];
    outputs.nodeCount = nodeRefs[gpu::VOX_NODE_COUNT];
    outputs.nodeNormalX = nodeRefs[gpu::VOX_NODE_NX];
    outputs.nodeNormalY = nodeRefs[gpu::VOX_NODE_NY];
    outputs.nodeNormalZ = nodeRefs[gpu::VOX_NODE_NZ];
    outputs.nodeCoord = nodeRefs[gpu::VOX_NODE_COORD];
    outputs.dense = denseRef;
    // Without cursors the flag/leaf shaders still reference the binding (the
    // branch is dynamic), so the stand-in buffer is declared like the real one.
    BufferRef cursorsRef = importGrowable("vox.cursors", cursors.valid() ? cursors : dummy, computeRead, computeRead);
    // The same for the tile hash: the leaf shader references it in both builds.
    BufferRef hashRef = importGrowable("vox.tile_hash", tileHash.valid() ? tileHash : dummy, computeRead, computeRead);
    BufferRef cellsRef = importGrowable("vox.cells", cells, computeRead, computeRead);
    // cell_list references it in both merges (it zeroes the counts of PerCell).
    BufferRef leafSortRef = importGrowable("vox.leaf_sort", perCell ? leafSort : dummySort, computeRW, computeRW);

    const VkPipelineStageFlags2 vs = VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT;
    const VkPipelineStageFlags2 fs = VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT;

    g.addPass("vox.upload", PassKind::Transfer)
        .use(stagingRef, Access::TransferSrc)
        .use(meshRef, Access::TransferDst)
        .record([this, stagingRef, meshRef](PassContext& ctx) {
            if (!graphFrameKnown) {
                graphFrameOffset = int64_t(ctx.frameIndex) - int64_t(framesRecorded);
                graphFrameKnown = true;
            }
            stagedSinceRecord = false;
            if (!staged || current.triangles == 0) return;
            // Frames that voxelize the same mesh again (no setMesh since the
            // last upload into this buffer) skip the copy: the slot's words
            // are those the buffer already holds (the queue runs the frames
            // in order, and each frame's passes read the buffer after this one).
            if (uploadedMesh == meshSerial) return;
            uploadedMesh = meshSerial;
            const VkDeviceSize slotBase = VkDeviceSize(currentSlot) * slotWords * 4;
            VkBufferCopy regions[7];
            uint32_t n = 0;
            regions[n++] = {slotBase, 0, VkDeviceSize(current.vertices) * 24}; // hi, lo
            regions[n++] = {slotBase + indexOffset * 4, indexOffset * 4, VkDeviceSize(current.triangles) * 12};
            if (current.flags & gpu::VOX_HAS_COLORS)
                regions[n++] = {slotBase + colorOffset * 4, colorOffset * 4, VkDeviceSize(current.vertices) * 4};
            if (current.flags & gpu::VOX_HAS_NORMALS)
                regions[n++] = {slotBase + normalOffset * 4, normalOffset * 4, VkDeviceSize(current.vertices) * 12};
            if (info.solid)
                regions[n++] = {slotBase + solidOffset * 4, solidOffset * 4,
                                (2 * VkDeviceSize(current.triangles) + 1) * 4};
            if (knobs.trianglePath == TrianglePath::Split)
                regions[n++] = {slotBase + orderOffset * 4, orderOffset * 4, VkDeviceSize(current.triangles) * 4};
            if (current.triangleTiles > 0)
                regions[n++] = {slotBase + triangleTileOffset * 4, triangleTileOffset * 4,
                                VkDeviceSize(current.triangleTiles) * kTileWords * 4};
            ctx.vk->vkCmdCopyBuffer(ctx.cmd, ctx.buffer(stagingRef), ctx.buffer(meshRef), n, regions);
        });

    // Record function of a compute pass (the graph binds its pipeline and
    // declared buffers): a single-thread launch (indirectEntry < 0) or a
    // launch sized by dispatch-buffer entry `indirectEntry`.
    auto computePass = [this, dispatchRef](uint32_t level, int indirectEntry) {
        return [this, dispatchRef, level, indirectEntry](PassContext& ctx) {
            ctx.pushConstants(computeParams(level));
            if (indirectEntry < 0)
                ctx.dispatch(1);
            else
                ctx.dispatchIndirect(dispatchRef, VkDeviceSize(indirectEntry) * 16);
        };
    };
    // Bindings of the compute shaders (vox_compute.glsl): 0 counters,
    // 1 dispatch, 2 fragments, 3 nodes, 4 dense, 5 cursors, 6 tile hash. A pass declares
    // those its shader references; args.comp references the nodes (reset
    // writes the root tile) in every mode, so its passes declare them.
    constexpr Access R = Access::StorageRead, W = Access::StorageWrite, RW = Access::StorageReadWrite;
    // The node arrays are declared together (every shader including
    // vox_compute.glsl references the ones it touches; declaring all keeps
    // each pass's set complete and its barriers those of the former single
    // node buffer).
    auto withNodes = [&nodeRefs](PassBuilder& p, Access access) -> PassBuilder& {
        for (uint32_t a = 0; a < kNodeArrayCount; ++a) p.storage(nodeBinding(a), nodeRefs[a], access);
        return p;
    };
    // args.comp sizes the next indirect dispatch from the counters (one
    // entry per stage, `stage`); its reset branch touches the node arrays.
    auto argsPass = [&](const std::string& name, Access nodeAccess, uint32_t stage) {
        withNodes(
            g.addPass(name, PassKind::Compute).pipeline(args).storage(0, countersRef, RW).storage(1, dispatchRef, RW),
            nodeAccess)
            .record(computePass(stage, -1));
    };
    // The shaders built with texel reads (vox_compute.glsl) read the
    // counters through their uniform view and the fragments as texels.
    auto readCountersAndFragments = [&](PassBuilder& p) -> PassBuilder& {
        return p.uniform(gpu::VOX_UNIFORM_BINDING_COUNTERS, countersRef)
            .texel(gpu::VOX_TEXEL_BINDING_FRAGMENTS, fragmentsRef, VK_FORMAT_R32G32B32A32_UINT, Access::SampledRead);
    };

    withNodes(
        g.addPass("vox.reset", PassKind::Compute).pipeline(args).storage(0, countersRef, W).storage(1, dispatchRef, W),
        W)
        .record(computePass(kArgsReset, -1));

    if (!computeTiles)
        g.addPass("vox.raster", PassKind::Graphics)
            .pipeline(raster)
            .storage(0, meshRef, R, vs)
            .storage(1, countersRef, RW, fs)
            .storage(2, fragmentsRef, W, fs)
            .renderArea(side, side)
            .record([this](PassContext& ctx) {
                // TrianglePath::Split: only the triangles the host found large
                // enough for the raster (the tail of the order); none, no draw.
                if (current.rasterTriangles == 0) return;
                // Same layout definition as the declared pipeline (compatible:
                // the bound descriptors and push constants stay valid).
                if ((current.flags & gpu::VOX_THIN) != 0u)
                    ctx.vk->vkCmdBindPipeline(ctx.cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, rasterThin.pipeline());
                ctx.pushConstants(rasterParams());
                ctx.vk->vkCmdDraw(ctx.cmd, 3 * current.rasterTriangles, 1, 0, 0);
            });

    if (knobs.trianglePath == TrianglePath::Split) {
        const BufferRef undecidedRef =
            splitExact() ? importGrowable("vox.undecided_triangles", undecided, computeRW, computeRW) : BufferRef{};
        PassBuilder small = g.addPass("vox.small_triangles", PassKind::Compute);
        small.pipeline(smallTriangles).storage(0, meshRef, R).storage(1, countersRef, RW).storage(2, fragmentsRef, W);
        if (splitExact()) small.storage(3, dispatchRef, RW).storage(4, undecidedRef, W);
        if (meshTexels)
            small.texel(gpu::VOX_SMALL_TRIANGLES_MESH_TEXELS, meshRef, VK_FORMAT_R32_UINT, Access::SampledRead);
        small.record([this](PassContext& ctx) {
            if (current.triangles == 0) return;
            // Same layout as the declared pipeline: bindings and push constants stay valid.
            if ((current.flags & gpu::VOX_THIN) != 0u)
                ctx.vk->vkCmdBindPipeline(ctx.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, smallTrianglesThin.pipeline());
            ctx.pushConstants(rasterParams());
            dispatchThreads(ctx, current.triangles); // one thread per triangle
            if (current.triangleTiles == 0) return;
            // Compute tiles: one thread per tile of the large triangles.
            gpu::RasterParams tiles = rasterParams();
            tiles.counts.x = current.triangleTiles;
            tiles.order.w = 1;
            ctx.pushConstants(tiles);
            dispatchThreads(ctx, current.triangleTiles);
        });
        if (splitExact()) {
            // The pairs the float filter left undecided, decided in double by
            // one thread per triangle that has some (small_triangles.comp).
            argsPass("vox.undecided_args", R, kArgsUndecided);
            PassBuilder exact = g.addPass("vox.small_triangles_exact", PassKind::Compute);
            exact.pipeline(smallTrianglesExact)
                .use(dispatchRef, Access::IndirectRead)
                .storage(0, meshRef, R)
                .storage(1, countersRef, RW)
                .storage(2, fragmentsRef, W)
                .storage(3, dispatchRef, R)
                .storage(4, undecidedRef, R);
            if (meshTexels)
                exact.texel(gpu::VOX_SMALL_TRIANGLES_MESH_TEXELS, meshRef, VK_FORMAT_R32_UINT, Access::SampledRead);
            exact.record([this, dispatchRef](PassContext& ctx) {
                ctx.pushConstants(rasterParams());
                ctx.dispatchIndirect(dispatchRef, VkDeviceSize(gpu::VOX_DISPATCH_UNDECIDED) * 16);
            });
        }
    }

    argsPass("vox.fragment_args", R, kArgsFragments);

    if (info.solid) {
        // Solid fill (solid.comp): flip the first voxel behind each
        // triangle's crossing of each column, mark the surface voxels, then
        // one thread per column turns parity into inside voxels and appends
        // those the surface lacks as fragments; the tree build below takes
        // them like any fragment.
        const ExternalUse solidUse{Access::StorageReadWrite, PassKind::Compute};
        BufferRef solidRef = g.importBuffer("vox.solid", solidBits, solidUse, solidUse);
        g.addPass("vox.solid_clear", PassKind::Transfer)
            .use(solidRef, Access::TransferDst)
            .record([this, solidRef](PassContext& ctx) {
                const VoxelGrid& gr = current.grid;
                const VkDeviceSize words = 2 * solidBitmapWords(gr.dims[0], gr.dims[1], gr.dims[2]);
                ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(solidRef), 0, words * 4, 0);
            });
        g.addPass("vox.solid_flip", PassKind::Compute)
            .pipeline(solidFlip)
            .storage(0, meshRef, R)
            .storage(1, countersRef, RW)
            .storage(2, fragmentsRef, RW)
            .storage(3, solidRef, RW)
            .record([this](PassContext& ctx) {
                if (current.solidRows == 0) return;
                ctx.pushConstants(rasterParams());
                dispatchThreads(ctx, current.solidRows);
            });
        g.addPass("vox.solid_surface", PassKind::Compute)
            .pipeline(solidSurface)
            .use(dispatchRef, Access::IndirectRead)
            .storage(0, meshRef, R)
            .storage(1, countersRef, RW)
            .storage(2, fragmentsRef, RW)
            .storage(3, solidRef, RW)
            .record([this, dispatchRef](PassContext& ctx) {
                ctx.pushConstants(rasterParams());
                ctx.dispatchIndirect(dispatchRef, 0); // one thread per stored fragment
            });
        g.addPass("vox.solid_fill", PassKind::Compute)
            .pipeline(solidFill)
            .storage(0, meshRef, R)
            .storage(1, countersRef, RW)
            .storage(2, fragmentsRef, RW)
            .storage(3, solidRef, RW)
            .record([this](PassContext& ctx) {
                if (current.triangles == 0) return;
                ctx.pushConstants(rasterParams());
                dispatchThreads(ctx, current.grid.dims[1] * current.grid.dims[2]); // one thread per column
            });
        argsPass("vox.solid_args", R, kArgsFragments); // the fragment launch again, interior included
    }

    // The tree build's work list: the occupied cells one level above the
    // leaves (each fragment sets its cell's bit, then the bitmap is listed).
    g.addPass("vox.cells_clear", PassKind::Transfer)
        .use(cellsRef, Access::TransferDst)
        .record([this, cellsRef](PassContext& ctx) {
            ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(cellsRef), 0, VkDeviceSize(cellWords) * 4, 0);
        });
    PassBuilder mark = g.addPass("vox.cell_mark", PassKind::Compute);
    mark.pipeline(cellMark).use(dispatchRef, Access::IndirectRead);
    if (texelReads)
        readCountersAndFragments(mark)
            .texel(gpu::VOX_IMAGE_BINDING_CELLS, cellsRef, VK_FORMAT_R32_UINT, RW)
            .storage(13, cellsRef, RW);
    else
        mark.storage(0, countersRef, R).storage(2, fragmentsRef, R).storage(13, cellsRef, RW);
    mark.record(computePass(0, 0));
    PassBuilder list = g.addPass("vox.cell_list", PassKind::Compute);
    list.pipeline(cellList).storage(0, countersRef, RW).storage(13, cellsRef, RW).storage(14, leafSortRef, W);
    // The bitmap words through a texel view (vector gathers; the pass writes
    // the buffer's other two regions).
    if (texelReads) list.texel(gpu::VOX_TEXEL_BINDING_CELLS, cellsRef, VK_FORMAT_R32_UINT, Access::SampledRead);
    list.record([this](PassContext& ctx) {
        // OccupancyLevels: the list pass also writes level D - 2's bitmap
        // (its threads load the 8 cell words under each of its words).
        gpu::ComputeParams p = computeParams(levelBits() && depth >= 2 ? depth - 2 : 0);
        if (!levelBits() || depth < 2) p.childWords = 0; // no level word to write
        ctx.pushConstants(p);
        dispatchThreads(ctx, (cellWords + 7) / 8); // one thread per 8 bitmap words
    });
    if (levelBits()) {
        // The occupancy of every level above D - 2, from the cell bitmap up
        // (alloc.comp reads it instead of the flag passes' marks), down to
        // the levels that vox.alloc_top derives itself.
        for (uint32_t l = depth < 2 ? 0 : depth - 2; l-- > allocTopBitmaps();)
            g.addPass("vox.cell_levels." + std::to_string(l), PassKind::Compute)
                .pipeline(cellLevels)
                .storage(13, cellsRef, RW)
                .record([this, l](PassContext& ctx) {
                    ctx.pushConstants(computeParams(l));
                    dispatchThreads(ctx, levelWordsFor(l));
                });
    }
    argsPass("vox.cells_args", RW, kArgsCells); // as vox.leaf_args: alloc.0 is the next reader of the node coordinates

    if (perCell) {
        // LeafMerge::PerCell: sort the fragments by cell (leaf_sort.comp, one
        // pipeline per step); independent of the tree, merged after it.
        const char* steps[] = {"vox.leaf_count", "vox.leaf_ranges", "vox.leaf_scatter"};
        const ComputePipeline* pipes[] = {&leafCount, &leafRanges, &leafScatter};
        for (uint32_t step = 0; step < 3; ++step) {
            PassBuilder sort = g.addPass(steps[step], PassKind::Compute);
            sort.pipeline(*pipes[step])
                .use(dispatchRef, Access::IndirectRead)
                .storage(0, countersRef, step == 1 ? RW : R) // the ranges step's atomics (one shader for the three)
                .storage(14, leafSortRef, RW)
                // Each record's cell and its rank in it, step 0 to step 2
                // (the cursors are free until the tree build; leaf_sort.comp).
                // Written in step 0 only, but one shader for the three.
                .storage(5, cursorsRef, RW);
            if (texelReads)
                readCountersAndFragments(sort)
                    .texel(gpu::VOX_TEXEL_BINDING_CELLS, cellsRef, VK_FORMAT_R32_UINT, Access::SampledRead)
                    .texel(gpu::VOX_TEXEL_BINDING_SORT, leafSortRef, VK_FORMAT_R32G32_UINT, Access::SampledRead)
                    .texel(gpu::VOX_TEXEL_BINDING_CURSORS, cursorsRef, VK_FORMAT_R32G32_UINT, Access::SampledRead);
            else
                sort.storage(2, fragmentsRef, R).storage(13, cellsRef, R);
            sort.record(computePass(0, step == 1 ? int(gpu::VOX_DISPATCH_CELL_RUNS) : 0));
        }
    }

    if (tileHashBuild()) {
        g.addPass("vox.hash_clear", PassKind::Transfer)
            .use(hashRef, Access::TransferDst)
            .record([this, hashRef](PassContext& ctx) {
                ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(hashRef), 0, VkDeviceSize(hashSlots) * 4,
                                        gpu::VOX_HASH_EMPTY);
            });
        g.addPass("vox.keys", PassKind::Compute)
            .pipeline(keys)
            .use(dispatchRef, Access::IndirectRead)
            .storage(0, countersRef, RW)
            .storage(6, hashRef, RW)
            .storage(13, cellsRef, R)
            .record(computePass(0, int(gpu::VOX_DISPATCH_CELLS)));
        argsPass("vox.tree_args", R, kArgsTileHash);
        withNodes(g.addPass("vox.link", PassKind::Compute)
                      .pipeline(link)
                      .use(dispatchRef, Access::IndirectRead)
                      .storage(0, countersRef, R)
                      .storage(6, hashRef, R),
                  RW)
            .record(computePass(0, int(gpu::VOX_DISPATCH_TILES)));
    } else {
        // OccupancyLevels: the levels next to the root (at most
        // kAllocTopLevels, never the leaves' parents) in one launch.
        const uint32_t top = levelBits() ? std::min(kAllocTopLevels, depth - 1) : 0;
        if (top > 0)
            withNodes(g.addPass("vox.alloc_top", PassKind::Compute)
                          .pipeline(allocTop)
                          .storage(0, countersRef, RW)
                          .storage(1, dispatchRef, RW)
                          .storage(5, cursorsRef, RW)
                          .storage(13, cellsRef, RW), // it writes the top occupancy levels
                      RW)
                .record([this, top](PassContext& ctx) {
                    gpu::ComputeParams p = computeParams(0);
                    p.level = top;                    // the levels it allocates
                    p.childWords = allocTopBitmaps(); // the occupancy levels it derives first
                    ctx.pushConstants(p);             // p.levelBits: level 0's bitmap
                    ctx.dispatch(1);                  // one workgroup
                });
        for (uint32_t l = top; l < depth; ++l) {
            const std::string L = std::to_string(l);
            if (!levelBits())
                withNodes(g.addPass("vox.flag." + L, PassKind::Compute)
                              .pipeline(flag)
                              .use(dispatchRef, Access::IndirectRead)
                              .storage(0, countersRef, R)
                              .storage(5, cursorsRef, RW)
                              .storage(13, cellsRef, R),
                          RW)
                    .record(computePass(l, int(gpu::VOX_DISPATCH_CELLS)));
            PassBuilder alloc = g.addPass("vox.alloc." + L, PassKind::Compute);
            withNodes(alloc.pipeline(this->alloc)
                          .use(dispatchRef, Access::IndirectRead)
                          .storage(0, countersRef, RW)
                          .storage(5, cursorsRef, RW)
                          .storage(13, cellsRef, R),
                      RW);
            if (nodeTexels)
                alloc.texel(gpu::VOX_TEXEL_BINDING_CELLS, cellsRef, VK_FORMAT_R32_UINT, Access::SampledRead)
                    .texel(gpu::VOX_TEXEL_BINDING_NODE_COORD, nodeRefs[gpu::VOX_NODE_COORD], VK_FORMAT_R32_UINT,
                           Access::SampledRead);
            // With occupancy bitmaps one thread per 4 nodes (init's entry).
            alloc.record(computePass(l, int(levelBits() ? gpu::VOX_DISPATCH_QUADS + l : 1 + l)));
            argsPass("vox.level_args." + L, R, l);
            withNodes(g.addPass("vox.init." + std::to_string(l + 1), PassKind::Compute)
                          .pipeline(init)
                          .use(dispatchRef, Access::IndirectRead)
                          .storage(0, countersRef, R),
                      RW)
                .record(computePass(l + 1, int(gpu::VOX_DISPATCH_QUADS + l + 1)));
        }
    }
    // One thread per fragment, atomics into its leaf: the merge of LeafMerge::Atomic,
    // and PerCell's fallback for cells too large for one thread.
    const auto addAtomicLeafPass = [&](int dispatchEntry) {
        withNodes(g.addPass("vox.leaf", PassKind::Compute)
                      .pipeline(leaf)
                      .use(dispatchRef, Access::IndirectRead)
                      .storage(0, countersRef, RW)
                      .storage(2, fragmentsRef, R)
                      .storage(5, cursorsRef, R)
                      .storage(6, hashRef, R)
                      .storage(13, cellsRef, R),
                  RW)
            .record(computePass(depth, dispatchEntry));
    };
    if (perCell) {
        // Which merge runs (per cell, or per fragment when a cell is too
        // large for one thread): decided on the GPU, the other gets 0 groups.
        argsPass(
            "vox.leaf_args", RW,
            kArgsLeaves); // args.comp's reset branch writes the root tile: validation counts its node bindings as written
        addAtomicLeafPass(int(gpu::VOX_DISPATCH_LEAF_ATOMIC));
        // One thread per cell: its leaves and their parent (the deepest mipmap level).
        PassBuilder merge = g.addPass("vox.leaf_merge", PassKind::Compute);
        withNodes(merge.pipeline(leafMerge)
                      .use(dispatchRef, Access::IndirectRead)
                      .storage(0, countersRef, RW)
                      .storage(6, hashRef, R),
                  RW);
        if (texelReads)
            merge.uniform(gpu::VOX_UNIFORM_BINDING_COUNTERS, countersRef)
                .texel(gpu::VOX_TEXEL_BINDING_CURSORS, cursorsRef, VK_FORMAT_R32_UINT, Access::SampledRead)
                .texel(gpu::VOX_TEXEL_BINDING_CELLS, cellsRef, VK_FORMAT_R32_UINT, Access::SampledRead)
                .texel(gpu::VOX_TEXEL_BINDING_SORT, leafSortRef, VK_FORMAT_R32G32_UINT, Access::SampledRead);
        else
            merge.storage(5, cursorsRef, R).storage(13, cellsRef, R).storage(14, leafSortRef, R);
        merge.record(computePass(depth, int(gpu::VOX_DISPATCH_LEAF_MERGE)));
    } else {
        addAtomicLeafPass(0);
    }
    // The levels next to the root (at most kMipmapTopLevels, never the
    // leaves' parents) in one launch after the others.
    const uint32_t mipTop = depth >= 2 ? std::min(kMipmapTopLevels, depth - 1) : 0;
    for (uint32_t l = depth; l-- > mipTop;) {
        // PerCell: the deepest level runs only after the per-fragment merge.
        const int entry = perCell && l + 1 == depth ? int(gpu::VOX_DISPATCH_DEEP_MIPMAP) : int(1 + l);
        PassBuilder mip = g.addPass("vox.mipmap." + std::to_string(l), PassKind::Compute);
        withNodes(mip.pipeline(l + 1 == depth ? mipmapLeafParents : mipmap)
                      .use(dispatchRef, Access::IndirectRead)
                      .storage(0, countersRef,
                               l + 1 == depth || l == 0 ? RW : R), // the root's launch stores leafFragments
                  RW);
        if (nodeTexels && l + 1 < depth) {
            // The children through texel views (mipmap.comp).
            mip.texel(gpu::VOX_TEXEL_BINDING_NODE_CHILD, nodeRefs[gpu::VOX_NODE_CHILD], VK_FORMAT_R32_UINT,
                      Access::SampledRead);
            for (uint32_t a = gpu::VOX_NODE_COLOR; a <= gpu::VOX_NODE_NZ; ++a)
                mip.texel(gpu::VOX_TEXEL_BINDING_NODE_VALUES + a - gpu::VOX_NODE_COLOR, nodeRefs[a],
                          VK_FORMAT_R32G32B32A32_UINT, Access::SampledRead);
        }
        mip.record(computePass(l, entry));
    }
    if (mipTop > 0)
        withNodes(g.addPass("vox.mipmap_top", PassKind::Compute)
                      .pipeline(mipmapTop)
                      .storage(0, countersRef, RW), // the root stores leafFragments
                  RW)
            .record([this, mipTop](PassContext& ctx) {
                ctx.pushConstants(computeParams(mipTop - 1)); // its levels mipTop - 1 .. 0
                ctx.dispatch(1);                              // one workgroup
            });
    if (withDense) {
        g.addPass("vox.dense_clear", PassKind::Transfer)
            .use(denseRef, Access::TransferDst)
            .record([denseRef](PassContext& ctx) {
                ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(denseRef), 0, VK_WHOLE_SIZE, 0);
            });
        g.addPass("vox.dense", PassKind::Compute)
            .pipeline(denseFill)
            .use(dispatchRef, Access::IndirectRead)
            .storage(0, countersRef, R)
            .storage(2, fragmentsRef, R)
            .storage(4, denseRef, W)
            .record([this, run = computePass(0, 0)](PassContext& ctx) mutable {
                // A grid over the dense capacity leaves the dense grid cleared (documented).
                if (current.grid.voxelCount() <= info.denseMaxVoxels) run(ctx);
            });
    }
    g.addPass("vox.stats", PassKind::Transfer)
        .use(countersRef, Access::TransferSrc)
        .use(statsRef, Access::TransferDst)
        .record([this, countersRef, statsRef](PassContext& ctx) {
            const uint32_t slot = uint32_t(framesRecorded % info.framesInFlight);
            const VkBufferCopy region{0, VkDeviceSize(slot) * sizeof(gpu::VoxCounters), sizeof(gpu::VoxCounters)};
            ctx.vk->vkCmdCopyBuffer(ctx.cmd, ctx.buffer(countersRef), ctx.buffer(statsRef), 1, &region);
            ringFrame[slot] = framesRecorded;
            ringStaged[slot] = current;
            current.grown = false; // reported by this frame's stats
            ++framesRecorded;
        });
    return outputs;
}

VoxelStats Voxelizer::Impl::decode(const gpu::VoxCounters& c, const Staged& s, uint64_t frame) const {
    VoxelStats st;
    st.frame = frame;
    st.triangles = s.triangles;
    st.skippedTriangles = s.skipped;
    st.fragmentsNeeded = c.fragmentCount;
    st.fragmentsStored = c.fragmentsStored;
    st.fragmentOverflow = c.fragmentCount > s.fragmentCapacity;
    st.tilesNeeded = c.tileCount;
    st.tilesAllocated = std::min(c.tileCount, s.tileCapacity);
    st.tileOverflow = c.tilesFailed > 0;
    st.tilesNeededIsLowerBound = c.failedAboveLeaves != 0;
    st.leafFragments = c.leafFragments;
    st.depthOverflow = c.depthOverflow;
    st.occupiedCells = c.cellCount;
    st.solidInterior = c.solidInterior;
    st.solidOddColumns = c.solidOddColumns;
    st.fragmentCapacity = s.fragmentCapacity;
    st.tileCapacity = s.tileCapacity;
    st.grown = s.grown;
    st.grownAfterFrame = s.grownAfterFrame;
    st.previousFragmentCapacity = s.previousFragmentCapacity;
    st.previousTileCapacity = s.previousTileCapacity;
    for (uint32_t l = 0; l <= depth && l < 11; ++l) st.levelNodes[l] = 8 * (c.levelTileEnd[l] - c.levelTileStart[l]);
    return st;
}

Status Voxelizer::Impl::readDevice(const Buffer& src, VkDeviceSize offset, VkDeviceSize bytes, void* out) {
    Status s = readBuffer(*device, src, out, bytes, offset);
    if (!s) return s.withContext("voxelizer: read-back: ");
    return {};
}

bool testing::texelReadsFit(const VoxelizerCreateInfo& info, const Knobs& knobs, uint64_t maxTexelBufferElements) {
    const uint32_t depth = depthFor(std::max(1u, info.maxResolution));
    const bool levelBits = knobs.octreeBuild == OctreeBuild::OccupancyLevels;
    // Fragments: one RGBA32UI texel each; the leaf sort (16 bytes per
    // fragment of capacity) two RG32UI texels; the cursors (8 bytes) two
    // R32UI texels or one RG32UI.
    return 2 * uint64_t(info.fragmentCapacity) <= maxTexelBufferElements &&
           cellBufferWords(depth, info.fragmentCapacity, levelBits) <= maxTexelBufferElements;
}

uint32_t maxTileCapacity(uint64_t maxStorageBufferRange) {
    return testing::maxTileCapacity(maxStorageBufferRange, OctreeBuild::OccupancyLevels);
}

uint32_t testing::maxTileCapacity(uint64_t maxStorageBufferRange, OctreeBuild build) {
    uint64_t tiles = maxStorageBufferRange / (8 * kNodeArrayBytes);
    if (build == OctreeBuild::TileHash) {
        // hashSlotsFor(t) = the power of two >= max(4096, 2t), 12 bytes a slot.
        uint64_t slots = 1;
        while (slots * 2 * 12 <= maxStorageBufferRange && slots * 2 <= (1u << 30)) slots *= 2;
        tiles = slots * 12 <= maxStorageBufferRange ? std::min<uint64_t>(tiles, slots / 2) : 0;
    }
    // Tile indices stay below VOX_FLAG and node indices (8 per tile) fit 32 bits.
    return uint32_t(std::min<uint64_t>(tiles, (1u << 29) - 1));
}

Voxelizer::Voxelizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Voxelizer::~Voxelizer() = default;

// The testing tier's way in (pyramarch/voxelizer/testing.h).
struct TestingAccess {
    static Result<std::unique_ptr<Voxelizer>> create(Device& device, const VoxelizerCreateInfo& info,
                                                     const testing::Knobs& knobs);
    static bool texelReads(const Voxelizer& voxelizer) { return voxelizer.impl_->texelReads; }
    static bool wideStores(const Voxelizer& voxelizer) { return voxelizer.impl_->wideStores; }
    static bool meshTexels(const Voxelizer& voxelizer) { return voxelizer.impl_->meshTexels; }
};

Result<std::unique_ptr<Voxelizer>> Voxelizer::create(Device& device, const VoxelizerCreateInfo& info) {
    return TestingAccess::create(device, info, testing::Knobs{});
}

Result<std::unique_ptr<Voxelizer>> testing::create(Device& device, const VoxelizerCreateInfo& info,
                                                   const Knobs& knobs) {
    return TestingAccess::create(device, info, knobs);
}

bool testing::usesTexelReads(const Voxelizer& voxelizer) { return TestingAccess::texelReads(voxelizer); }

bool testing::usesWideStores(const Voxelizer& voxelizer) { return TestingAccess::wideStores(voxelizer); }
bool testing::usesMeshTexelReads(const Voxelizer& voxelizer) { return TestingAccess::meshTexels(voxelizer); }

testing::TriangleOrder testing::smallTriangleOrder(const TriangleMesh& mesh, const VoxelGrid& grid,
                                                   uint32_t smallTriangleVoxels, bool byCells) {
    const std::vector<SplitVertex> split = splitVertices(mesh, grid);
    TriangleOrder result;
    result.order.resize(mesh.triangleCount());
    result.rasterTriangles = rasterTriangleCount(split, mesh, grid, smallTriangleVoxels, byCells, result.order.data());
    return result;
}

std::vector<testing::TriangleTile> testing::triangleTiles(const TriangleMesh& mesh, const VoxelGrid& grid,
                                                          uint32_t triangle) {
    const std::vector<SplitVertex> split = splitVertices(mesh, grid);
    std::vector<uint32_t> words;
    const uint32_t* idx = &mesh.indices.at(3 * size_t(triangle));
    if (idx[0] < split.size() && idx[1] < split.size() && idx[2] < split.size())
        appendTriangleTiles(split[idx[0]], split[idx[1]], split[idx[2]], triangle, grid.dims, words, SIZE_MAX);
    std::vector<TriangleTile> tiles(words.size() / kTileWords);
    auto unpack = [](uint32_t w) { return std::array<uint32_t, 3>{w & 1023u, (w >> 10) & 1023u, w >> 20}; };
    for (size_t i = 0; i < tiles.size(); ++i)
        tiles[i] = {words[3 * i], unpack(words[3 * i + 1]), unpack(words[3 * i + 2])};
    return tiles;
}

Result<std::unique_ptr<Voxelizer>> TestingAccess::create(Device& device, const VoxelizerCreateInfo& info,
                                                         const testing::Knobs& knobs) {
    if (info.maxResolution == 0 || info.maxResolution > kMaxGridDim)
        return Status::error(ErrorCode::InvalidArgument, "voxelizer: maxResolution " +
                                                             std::to_string(info.maxResolution) + " outside 1.." +
                                                             std::to_string(kMaxGridDim));
    if (info.framesInFlight == 0)
        return Status::error(ErrorCode::InvalidArgument, "voxelizer: framesInFlight must be > 0");
    if (info.solid && !device.limits().shaderFloat64)
        return Status::error(ErrorCode::Unsupported,
                             "voxelizer: solid mode needs shaderFloat64 (its parity test runs in double)");
    if (knobs.trianglePath == TrianglePath::Split &&
        (knobs.smallTriangleVoxels == 0 || knobs.smallTriangleVoxels > kMaxSmallTriangleVoxels))
        return Status::error(ErrorCode::InvalidArgument, "voxelizer: smallTriangleVoxels " +
                                                             std::to_string(knobs.smallTriangleVoxels) +
                                                             " outside 1.." + std::to_string(kMaxSmallTriangleVoxels));
    // The raster pass: a geometry shader, fragment-stage appends and an
    // attachment-less pass begun with dynamic rendering.
    const DeviceLimits& lim = device.limits();
    const bool canRaster = lim.geometryShader && lim.fragmentStoresAndAtomics && lim.dynamicRendering;
    const ConservativeMethod method =
        info.method == ConservativeMethod::Auto && !canRaster ? ConservativeMethod::Compute : info.method;
    if (method == ConservativeMethod::Compute && knobs.trianglePath != TrianglePath::Split)
        return Status::error(ErrorCode::InvalidArgument,
                             "voxelizer: ConservativeMethod::Compute needs the split triangle path (testing::Knobs "
                             "TrianglePath::Raster sends every triangle to the rasterizer)");
    if (method != ConservativeMethod::Compute && !canRaster)
        return Status::error(ErrorCode::Unsupported,
                             std::string("voxelizer: the raster pass needs ") +
                                 (!lim.geometryShader ? "geometry shaders (DeviceRequirements::geometryShader)"
                                  : !lim.fragmentStoresAndAtomics ? "fragmentStoresAndAtomics"
                                                                  : "dynamic rendering (Vulkan 1.3)") +
                                 ", which this device was created without; ConservativeMethod::Compute (or Auto) "
                                 "voxelizes with compute passes only");
    auto impl = std::make_unique<Voxelizer::Impl>();
    impl->device = &device;
    impl->info = info;
    impl->knobs = knobs;
    impl->depth = depthFor(info.maxResolution);
    impl->side = info.maxResolution;
    impl->perCell = knobs.leafMerge == LeafMerge::PerCell && knobs.colorMerge == ColorMerge::ExactMean;
    impl->cellWords = cellWordsFor(impl->depth);
    // Starting capacities: the caps given, else a small mesh and a surface
    // of about 8 R^2 fragments (a sphere's shell at R is ~3 R^2 voxels), a
    // tile per 4 fragments; they grow from there.
    const uint64_t r = info.maxResolution;
    Voxelizer::Impl::Capacities start;
    impl->autoVertices = info.maxVertices == 0;
    impl->autoTriangles = info.maxTriangles == 0;
    impl->autoFragments = info.fragmentCapacity == 0;
    impl->autoTiles = info.tileCapacity == 0;
    start.vertices = impl->autoVertices ? 1024u : info.maxVertices;
    start.triangles = impl->autoTriangles ? 1024u : info.maxTriangles;
    start.fragments =
        impl->autoFragments ? uint32_t(std::clamp<uint64_t>(8 * r * r, 1u << 14, 1u << 22)) : info.fragmentCapacity;
    start.tiles = impl->autoTiles ? std::max(256u, start.fragments / 4) : info.tileCapacity;
    impl->texelReads = knobs.texelReads && testing::texelReadsFit(impl->withCapacities(start), knobs,
                                                                  device.limits().maxTexelBufferElements);
    impl->nodeTexels = impl->texelReads && 8 * uint64_t(testing::maxTileCapacity(device.limits().maxStorageBufferRange,
                                                                                 knobs.octreeBuild)) <=
                                               device.limits().maxTexelBufferElements;
    if (impl->autoFragments) {
        // Never start over what the device takes (tiny storage ranges).
        start.fragments = uint32_t(std::min<uint64_t>(start.fragments, impl->maxFragments()));
        if (start.fragments == 0)
            return Status::error(ErrorCode::DeviceLimit,
                                 "voxelizer: maxResolution " + std::to_string(r) +
                                     ": the cell bitmaps leave no room for fragments in maxStorageBufferRange");
    }
    if (impl->autoTiles)
        start.tiles =
            std::min(start.tiles, testing::maxTileCapacity(device.limits().maxStorageBufferRange, knobs.octreeBuild));
    switch (method) {
    case ConservativeMethod::Auto: impl->hardware = device.limits().conservativeRasterization; break;
    case ConservativeMethod::GeometryShader: impl->hardware = false; break;
    case ConservativeMethod::Compute: impl->computeTiles = true; break;
    case ConservativeMethod::Hardware:
        if (!device.limits().conservativeRasterization)
            return Status::error(ErrorCode::Unsupported,
                                 "voxelizer: ConservativeMethod::Hardware needs VK_EXT_conservative_rasterization, "
                                 "which this device does not have");
        impl->hardware = true;
        break;
    }
    impl->ringFrame.assign(info.framesInFlight, UINT64_MAX);
    impl->ringStaged.resize(info.framesInFlight);
    impl->exact64 = info.exactFallback && device.limits().shaderFloat64;
    impl->wideStores = knobs.wideStores && device.limits().shaderInt64;
    impl->current.fragmentCapacity = start.fragments;
    impl->current.tileCapacity = start.tiles;
    PYRAMARCH_TRY(impl->createFixedBuffers());
    PYRAMARCH_TRY(impl->resize(start, "creation"));
    PYRAMARCH_TRY(impl->createPipelines());
    return std::unique_ptr<Voxelizer>(new Voxelizer(std::move(impl)));
}

Status Voxelizer::setMesh(const TriangleMesh& mesh, const VoxelGrid& grid, VoxelMode mode) {
    Impl& m = *impl_;
    auto check = checkMesh(mesh, grid);
    if (!check) return check.status();
    for (int a = 0; a < 3; ++a)
        if (grid.dims[a] > m.info.maxResolution)
            return Status::error(ErrorCode::CapacityExceeded,
                                 "voxelizer: grid dims[" + std::to_string(a) + "] = " + std::to_string(grid.dims[a]) +
                                     " exceed maxResolution " + std::to_string(m.info.maxResolution));
    if (!m.autoVertices && mesh.vertexCount() > m.info.maxVertices)
        return Status::error(ErrorCode::CapacityExceeded, "voxelizer: mesh has " + std::to_string(mesh.vertexCount()) +
                                                              " vertices, over maxVertices " +
                                                              std::to_string(m.info.maxVertices));
    if (!m.autoTriangles && mesh.triangleCount() > m.info.maxTriangles)
        return Status::error(ErrorCode::CapacityExceeded,
                             "voxelizer: mesh has " + std::to_string(mesh.triangleCount()) +
                                 " triangles, over maxTriangles " + std::to_string(m.info.maxTriangles));
    if (mesh.vertexCount() > UINT32_MAX / 8 || mesh.triangleCount() > UINT32_MAX / 8)
        return Status::error(ErrorCode::DeviceLimit, "voxelizer: mesh of " + std::to_string(mesh.vertexCount()) +
                                                         " vertices and " + std::to_string(mesh.triangleCount()) +
                                                         " triangles is over what one mesh buffer holds");
    // A frame boundary: the mesh buffers grow with the mesh, the others
    // from the newest counters.
    PYRAMARCH_TRY(m.growFromStats());
    if (mesh.vertexCount() > m.cap.vertices || mesh.triangleCount() > m.cap.triangles) {
        Impl::Capacities want = m.cap;
        if (mesh.vertexCount() > m.cap.vertices) want.vertices = withSlack(mesh.vertexCount(), UINT32_MAX / 8);
        if (mesh.triangleCount() > m.cap.triangles) want.triangles = withSlack(mesh.triangleCount(), UINT32_MAX / 8);
        PYRAMARCH_TRY(m.resize(want, "the mesh"));
    }
    if (mode == VoxelMode::Thin && !m.computeTiles && m.rasterThin.pipeline() == VK_NULL_HANDLE) {
        GraphicsPipelineDesc g = m.rasterDesc;
        g.name = "vox.raster.thin";
        g.specialization = {{gpu::VOX_THIN_SPEC_ID, 1u}};
        auto r = GraphicsPipeline::create(*m.device, g);
        if (!r) return r.status().withContext("voxelizer: thin raster pipeline: ");
        m.rasterThin = std::move(r).value();
    }
    if (mode == VoxelMode::Thin && m.knobs.trianglePath == TrianglePath::Split &&
        m.smallTrianglesThin.pipeline() == VK_NULL_HANDLE) {
        ComputePipelineDesc d = m.smallTrianglesDesc;
        d.name = "vox.small_triangles.thin";
        d.specialization = {{gpu::VOX_THIN_SPEC_ID, 1u}};
        auto p = ComputePipeline::create(*m.device, d);
        if (!p) return p.status().withContext("voxelizer: thin small-triangle pipeline: ");
        m.smallTrianglesThin = std::move(p).value();
    }
    const std::vector<SplitVertex> split = splitVertices(mesh, grid);
    // Compute tiles: the order first (its tail is the large triangles), then
    // their tiles, which may grow the mesh buffer before a slot is written.
    std::vector<uint32_t> order, triangleTiles;
    uint32_t rasterTriangles = 0;
    if (m.computeTiles) {
        order.resize(mesh.triangleCount());
        rasterTriangles = rasterTriangleCount(split, mesh, grid, m.knobs.smallTriangleVoxels, m.exact64, order.data());
        // The tiles share the mesh buffer (one storage binding) with the rest
        // of the mesh: at most what the device's range leaves them.
        Impl::Capacities without = m.cap;
        without.triangleTiles = 0;
        const uint64_t range = m.device->limits().maxStorageBufferRange, meshWords = m.meshLayout(without).slotWords;
        const size_t maxWords = size_t(std::min<uint64_t>(range / 4 > meshWords ? range / 4 - meshWords : 0,
                                                          uint64_t(UINT32_MAX / 8) * kTileWords));
        for (size_t i = order.size() - rasterTriangles; i < order.size(); ++i) {
            const uint32_t* idx = &mesh.indices[3 * size_t(order[i])];
            if (!appendTriangleTiles(split[idx[0]], split[idx[1]], split[idx[2]], order[i], grid.dims, triangleTiles,
                                     maxWords))
                return Status::error(ErrorCode::DeviceLimit,
                                     "voxelizer: the mesh's large triangles make over " +
                                         std::to_string(maxWords / kTileWords) +
                                         " compute tiles (8 x 8 voxel columns each), more than one mesh buffer holds "
                                         "in maxStorageBufferRange " +
                                         std::to_string(range) + " (lower the resolution)");
        }
        const uint64_t tiles = triangleTiles.size() / kTileWords;
        if (tiles > m.cap.triangleTiles) {
            Impl::Capacities want = m.cap;
            want.triangleTiles = uint32_t(std::min<uint64_t>(tiles + tiles / 4 + 64, maxWords / kTileWords));
            PYRAMARCH_TRY(m.resize(want, "the large triangles' compute tiles"));
        }
    }
    // One slot per recorded frame: a second setMesh before the frame is
    // recorded rewrites the same slot, so the ring never overtakes the GPU.
    const uint32_t slot =
        !m.staged ? 0 : (m.stagedSinceRecord ? m.currentSlot : (m.currentSlot + 1) % m.info.framesInFlight);
    uint8_t* base = static_cast<uint8_t*>(m.staging.mapped()) + VkDeviceSize(slot) * m.slotWords * 4;
    static_assert(sizeof(SplitVertex) == 24);
    // memcpy from an empty vector's null data() is undefined, hence the guards.
    if (!split.empty()) std::memcpy(base, split.data(), split.size() * sizeof(SplitVertex));
    if (!mesh.indices.empty()) std::memcpy(base + m.indexOffset * 4, mesh.indices.data(), mesh.indices.size() * 4);
    Staged s = m.current; // keeps the capacities and any growth to report
    s.solidRows = 0;
    s.flags = 0;
    s.triangles = uint32_t(mesh.triangleCount());
    if (m.computeTiles) {
        s.rasterTriangles = rasterTriangles;
        s.triangleTiles = uint32_t(triangleTiles.size() / kTileWords);
        if (!order.empty()) std::memcpy(base + m.orderOffset * 4, order.data(), order.size() * 4);
        if (!triangleTiles.empty())
            std::memcpy(base + m.triangleTileOffset * 4, triangleTiles.data(), triangleTiles.size() * 4);
    } else {
        s.rasterTriangles = m.knobs.trianglePath == TrianglePath::Split
                                ? rasterTriangleCount(split, mesh, grid, m.knobs.smallTriangleVoxels, m.exact64,
                                                      reinterpret_cast<uint32_t*>(base + m.orderOffset * 4))
                                : s.triangles;
        s.triangleTiles = 0;
    }
    s.vertices = uint32_t(mesh.vertexCount());
    s.skipped = check->skippedNonFinite;
    s.grid = grid;
    if (!mesh.colors.empty()) {
        std::memcpy(base + m.colorOffset * 4, mesh.colors.data(), mesh.colors.size() * 4);
        s.flags |= gpu::VOX_HAS_COLORS;
    }
    if (!mesh.normals.empty()) {
        std::memcpy(base + m.normalOffset * 4, mesh.normals.data(), mesh.normals.size() * 12);
        s.flags |= gpu::VOX_HAS_NORMALS;
    }
    if (m.info.solid) {
        // The flip pass's work list: per triangle the rows y whose column
        // centres (y + 1/2) its projection may hold (a superset: the exact
        // test in solid.comp decides), as a prefix of thread counts (up to
        // VOX_SOLID_ROWS_PER_THREAD rows each) and each triangle's first
        // row. Same rule as the reference's solidInside.
        uint32_t* prefix = reinterpret_cast<uint32_t*>(base + m.solidOffset * 4);
        uint32_t* firstRow = prefix + mesh.triangleCount() + 1;
        uint64_t rows = 0;
        const int ny = int(grid.dims[1]);
        for (size_t t = 0; t < mesh.triangleCount(); ++t) {
            prefix[t] = uint32_t(rows);
            firstRow[t] = 0;
            double lo = INFINITY, hi = -INFINITY;
            bool finite = true;
            for (int k = 0; k < 3; ++k) {
                const SplitVertex& v = split[mesh.indices[3 * t + k]];
                finite = finite && isFinite(v.hi);
                const double y = double(v.hi[1]) + double(v.lo[1]);
                lo = std::min(lo, y);
                hi = std::max(hi, y);
            }
            if (!finite) continue;
            const int y0 = std::max(0, int(std::floor(std::max(lo, -2.0) - 0.5)));
            const int y1 = std::min(ny - 1, int(std::ceil(std::min(hi, ny + 2.0) - 0.5)));
            if (y1 < y0) continue;
            firstRow[t] = uint32_t(y0);
            rows += (uint64_t(y1 - y0) + gpu::VOX_SOLID_ROWS_PER_THREAD) / gpu::VOX_SOLID_ROWS_PER_THREAD;
        }
        prefix[mesh.triangleCount()] = uint32_t(rows);
        if (rows > std::numeric_limits<uint32_t>::max() / 2)
            return Status::error(ErrorCode::CapacityExceeded,
                                 "voxelizer: solid mode: the triangles span " + std::to_string(rows) + " groups of " +
                                     std::to_string(gpu::VOX_SOLID_ROWS_PER_THREAD) + " rows (over 2^31)");
        s.solidRows = uint32_t(rows);
    }
    if (m.hardware) s.flags |= gpu::VOX_HW_CONSERVATIVE;
    if (mode == VoxelMode::Thin) s.flags |= gpu::VOX_THIN;
    m.staging.flush();
    m.currentSlot = slot;
    m.current = s;
    m.staged = true;
    m.stagedSinceRecord = true;
    ++m.meshSerial;
    return {};
}

Result<Voxelizer::GraphOutputs> Voxelizer::addPasses(RenderGraph& graph, const GraphInputs&) {
    // The stats ring and staging slots advance once per recorded frame, so
    // the passes live in one graph at a time: a host that builds its graph
    // again adds them to the new one (grown buffers are rebound there), and
    // the new graph numbers its frames from 0 again.
    if (impl_->ownGraph)
        return Status::error(ErrorCode::InvalidState,
                             "voxelizer: addPasses: record() was called before; the voxelizer runs its own graph");
    impl_->passesAdded = true;
    impl_->timingGraph = &graph;
    impl_->graphFrameKnown = false;
    return impl_->addTo(graph);
}

Status Voxelizer::record(VkCommandBuffer cmd) {
    Impl& m = *impl_;
    if (!m.ownGraph && m.passesAdded)
        return Status::error(ErrorCode::InvalidState,
                             "voxelizer: record: the passes were added to a host graph; execute that graph instead");
    PYRAMARCH_TRY(m.growFromStats()); // a frame boundary
    if (!m.ownGraph) {
        m.ownGraph = std::make_unique<RenderGraph>(m.device);
        m.addTo(*m.ownGraph);
        m.passesAdded = true;
        m.timingGraph = m.ownGraph.get();
        Status s = m.ownGraph->compile();
        if (!s) {
            m.ownGraph.reset();
            m.passesAdded = false;
            m.timingGraph = nullptr;
            return s.withContext("voxelizer: compiling its render graph: ");
        }
    }
    return m.ownGraph->execute(cmd);
}

std::optional<VoxelStats> Voxelizer::latestStats() const {
    const Impl& m = *impl_;
    if (m.framesRecorded < m.info.framesInFlight) return std::nullopt;
    const uint64_t frame = m.framesRecorded - m.info.framesInFlight;
    const uint32_t slot = uint32_t(frame % m.info.framesInFlight);
    if (m.ringFrame[slot] != frame) return std::nullopt;
    m.statsRing.invalidate();
    gpu::VoxCounters c;
    std::memcpy(&c, static_cast<const uint8_t*>(m.statsRing.mapped()) + slot * sizeof(c), sizeof(c));
    return m.decode(c, m.ringStaged[slot], frame);
}

std::optional<FrameTimings> Voxelizer::latestTimings() const {
    const Impl& m = *impl_;
    if (!m.timingGraph || !m.graphFrameKnown) return std::nullopt;
    std::optional<FrameTimings> t = m.timingGraph->latestTimingsOf("vox.");
    if (!t || int64_t(t->frame) < m.graphFrameOffset) return std::nullopt;
    t->frame = uint64_t(int64_t(t->frame) - m.graphFrameOffset);
    return t;
}

Result<VoxelStats> Voxelizer::readStats() {
    gpu::VoxCounters c;
    PYRAMARCH_TRY(impl_->readDevice(impl_->counters, 0, sizeof(c), &c));
    VoxelStats s = impl_->decode(c, impl_->lastFrame(), impl_->framesRecorded ? impl_->framesRecorded - 1 : 0);
    if (impl_->framesRecorded > 0) impl_->observed = s; // the next frame boundary may grow from it
    return s;
}

Result<std::vector<VoxelFragment>> Voxelizer::readFragments() {
    gpu::VoxCounters c;
    PYRAMARCH_TRY(impl_->readDevice(impl_->counters, 0, sizeof(c), &c));
    std::vector<uint32_t> raw(size_t(c.fragmentsStored) * 4);
    PYRAMARCH_TRY(impl_->readDevice(impl_->fragments, 0, raw.size() * 4, raw.data()));
    // Each record holds the voxels of one 2^3 cell (a mask in its colour
    // word's top byte, vox_shared.h): one fragment per voxel.
    std::vector<VoxelFragment> out;
    out.reserve(c.fragmentsStored);
    for (size_t i = 0; i < c.fragmentsStored; ++i) {
        const uint32_t k = raw[4 * i], color = raw[4 * i + 1];
        const uint32_t x = k & 1022u, y = (k >> 10) & 1022u, z = (k >> 20) & 1022u;
        for (uint32_t o = 0; o < 8; ++o)
            if (color >> (24 + o) & 1u)
                out.push_back({x | (o & 1u), y | (o >> 1 & 1u), z | (o >> 2), color | 0xff000000u, raw[4 * i + 2],
                               raw[4 * i + 3]});
    }
    return out;
}

Result<OctreeSnapshot> Voxelizer::readOctree() {
    gpu::VoxCounters c;
    PYRAMARCH_TRY(impl_->readDevice(impl_->counters, 0, sizeof(c), &c));
    OctreeSnapshot t;
    t.depth = impl_->depth;
    t.tilesAllocated = std::min(c.tileCount, impl_->lastFrame().tileCapacity);
    const size_t n = size_t(t.tilesAllocated) * 8;
    t.nodes.resize(n);
    // One array per field on the GPU, interleaved into OctreeNode here (pad stays 0).
    std::vector<uint32_t> words(n);
    for (uint32_t a = 0; a < kNodeArrayCount; ++a) {
        if (n == 0) break;
        PYRAMARCH_TRY(impl_->readDevice(impl_->nodes[a], 0, n * kNodeArrayBytes, words.data()));
        for (size_t i = 0; i < n; ++i) reinterpret_cast<uint32_t*>(&t.nodes[i])[a] = words[i];
    }
    return t;
}

Result<std::vector<float>> Voxelizer::readDenseGrid() {
    if (!impl_->dense.valid())
        return Status::error(ErrorCode::InvalidState, "voxelizer: created without a dense grid (denseMaxVoxels = 0)");
    const uint64_t n = impl_->current.grid.voxelCount();
    if (n > impl_->info.denseMaxVoxels)
        return Status::error(ErrorCode::CapacityExceeded, "voxelizer: grid of " + std::to_string(n) +
                                                              " voxels exceeds denseMaxVoxels " +
                                                              std::to_string(impl_->info.denseMaxVoxels));
    std::vector<float> out(n);
    PYRAMARCH_TRY(impl_->readDevice(impl_->dense, 0, n * 4, out.data()));
    return out;
}

const Buffer& Voxelizer::nodeBuffer() const { return impl_->nodes[gpu::VOX_NODE_CHILD]; }
const Buffer& Voxelizer::nodeArrayBuffer(NodeArray array) const { return impl_->nodes.at(uint32_t(array)); }
std::vector<Voxelizer::MemoryItem> Voxelizer::memoryReport() const {
    const Impl& m = *impl_;
    std::vector<MemoryItem> out;
    auto add = [&](const Buffer& b, const char* name) {
        if (b.valid()) out.push_back({name, b.size()});
    };
    add(m.staging, "vox.staging");
    add(m.mesh, "vox.mesh");
    add(m.counters, "vox.counters");
    add(m.dispatch, "vox.dispatch");
    add(m.fragments, "vox.fragments");
    add(m.undecided, "vox.undecided_triangles");
    for (uint32_t a = 0; a < kNodeArrayCount; ++a) add(m.nodes[a], kNodeArrayNames[a]);
    add(m.cells, "vox.cells");
    add(m.tileHash, "vox.tile_hash");
    add(m.cursors, "vox.cursors");
    add(m.leafSort, "vox.leaf_sort");
    add(m.dense, "vox.dense");
    add(m.solidBits, "vox.solid");
    add(m.dummy, "vox.unused");
    add(m.dummySort, "vox.unused_sort");
    add(m.statsRing, "vox.stats");
    uint64_t retired = 0;
    for (const Impl::Retired& r : m.retired) retired += r.buffer.size();
    if (retired) out.push_back({"vox.replaced (released after the frames in flight)", retired});
    return out;
}
const Buffer& Voxelizer::fragmentBuffer() const { return impl_->fragments; }
const Buffer& Voxelizer::counterBuffer() const { return impl_->counters; }
const Buffer& Voxelizer::dispatchBuffer() const { return impl_->dispatch; }
const Buffer& Voxelizer::denseGridBuffer() const { return impl_->dense; }
uint32_t Voxelizer::octreeDepth() const { return impl_->depth; }
const VoxelGrid& Voxelizer::grid() const { return impl_->current.grid; }
bool Voxelizer::usesHardwareConservative() const { return impl_->hardware; }
bool Voxelizer::usesExactFallback() const { return impl_->exact64; }

} // namespace pyramarch::voxel
