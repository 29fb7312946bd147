// CPU-only tests: grid convention, mesh checks, OBJ loading, procedural
// shapes and the reference voxelizer itself (so the GPU is compared with
// something that is itself checked).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <numeric>
#include <tuple>
#include <map>
#include <utility>

#include "pyramarch/voxelizer/mesh.h"
#include "pyramarch/voxelizer/export.h"
#include "pyramarch/voxelizer/shapes.h"
#include "pyramarch/voxelizer/testing.h"
#include "pyramarch/voxelizer/voxelizer.h"
#include "voxel_reference.h"

using namespace pyramarch::voxel;

namespace {

bool closedWatertight(const TriangleMesh& m) {
    std::map<std::pair<uint32_t, uint32_t>, int> edges;
    for (size_t t = 0; t < m.triangleCount(); ++t)
        for (int c = 0; c < 3; ++c) {
            uint32_t a = m.indices[3 * t + c], b = m.indices[3 * t + (c + 1) % 3];
            if (a > b) std::swap(a, b);
            ++edges[{a, b}];
        }
    for (const auto& [e, n] : edges)
        if (n != 2) return false;
    return !edges.empty();
}

// The mean over blocks of `block` consecutive triangles of order[0, count)
// of the block's bounding-box diagonal, as a fraction of the grid's.
double blockSpread(const TriangleMesh& m, const VoxelGrid& g, const std::vector<uint32_t>& order, size_t count,
                   size_t block) {
    auto diagonal = [](const std::array<double, 3>& d) { return std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]); };
    const double gridDiagonal = diagonal({double(g.dims[0]), double(g.dims[1]), double(g.dims[2])});
    double sum = 0;
    size_t blocks = 0;
    for (size_t first = 0; first < count; first += block, ++blocks) {
        std::array<double, 3> lo{1e30, 1e30, 1e30}, hi{-1e30, -1e30, -1e30};
        for (size_t i = first; i < std::min(count, first + block); ++i)
            for (int c = 0; c < 3; ++c) {
                const std::array<float, 3> p = toGridSpace(m.positions[m.indices[3 * size_t(order[i]) + c]], g);
                for (int k = 0; k < 3; ++k) {
                    lo[k] = std::min(lo[k], double(p[k]));
                    hi[k] = std::max(hi[k], double(p[k]));
                }
            }
        sum += diagonal({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]}) / gridDiagonal;
    }
    return sum / double(blocks);
}

bool isPermutation(std::vector<uint32_t> order) {
    std::sort(order.begin(), order.end());
    for (size_t i = 0; i < order.size(); ++i)
        if (order[i] != i) return false;
    return true;
}

} // namespace

// The small-triangle pass takes a mesh whose file order is spatial in that
// order, blocks of 2048 triangles at a time, and a scattered one in Morton
// order: its fragment list then has neighbours in space near each other,
// which the counting sort's atomics and scattered stores depend on.
TEST(TriangleOrderTest, ScatteredFilesAreTakenInSpaceOrder) {
    const TriangleMesh knot = shapes::torusKnot({0, 0, 0}, 1.0f, 0.2f, 2, 3, 1024, 24);
    ASSERT_GE(knot.triangleCount(), 40000u);
    const VoxelGrid g = defaultGrid(knot, 256).value();
    constexpr size_t kBlock = 2048;
    // The file's ring order is spatial: kept, block for block (no triangle is
    // the raster's at the largest compute box).
    const pyramarch::voxel::testing::TriangleOrder kept = pyramarch::voxel::testing::smallTriangleOrder(
        knot, g, pyramarch::voxel::testing::kMaxSmallTriangleVoxels, true);
    ASSERT_EQ(kept.order.size(), knot.triangleCount());
    EXPECT_EQ(kept.rasterTriangles, 0u);
    EXPECT_TRUE(isPermutation(kept.order));
    size_t moved = 0;
    for (size_t i = 0; i < kept.order.size(); ++i) moved += kept.order[i] / kBlock != i / kBlock ? 1 : 0;
    EXPECT_EQ(moved, 0u);

    const TriangleMesh shuffled = ref::shuffledTriangles(knot, 7);
    std::vector<uint32_t> fileOrder(shuffled.triangleCount());
    std::iota(fileOrder.begin(), fileOrder.end(), 0u);
    const double fileSpread = blockSpread(shuffled, g, fileOrder, fileOrder.size(), kBlock);
    const pyramarch::voxel::testing::TriangleOrder sorted = pyramarch::voxel::testing::smallTriangleOrder(
        shuffled, g, pyramarch::voxel::testing::kMaxSmallTriangleVoxels, true);
    EXPECT_TRUE(isPermutation(sorted.order));
    const double sortedSpread = blockSpread(shuffled, g, sorted.order, sorted.order.size(), kBlock);
    // Each block of the shuffled file spans the whole knot; in space order a
    // block is a piece of its tube (0.45; the ring order's blocks: 0.31).
    EXPECT_GT(fileSpread, 0.9);
    EXPECT_LT(sortedSpread, 0.5 * fileSpread);

    // Large triangles go to the raster: the tail, in the file's order, after
    // the compute path's triangles (in space order).
    const pyramarch::voxel::testing::TriangleOrder split =
        pyramarch::voxel::testing::smallTriangleOrder(shuffled, g, 16, false);
    EXPECT_TRUE(isPermutation(split.order));
    ASSERT_GT(split.rasterTriangles, 0u);
    ASSERT_LT(split.rasterTriangles, shuffled.triangleCount());
    EXPECT_TRUE(std::is_sorted(split.order.end() - split.rasterTriangles, split.order.end()));
    EXPECT_LT(blockSpread(shuffled, g, split.order, split.order.size() - split.rasterTriangles, kBlock),
              0.7 * blockSpread(shuffled, g, fileOrder, split.order.size() - split.rasterTriangles, kBlock));
}

// ConservativeMethod::Compute cuts each large triangle into tiles for the
// compute path: together they must hold every voxel the triangle's closed
// set touches (the GPU test then decides each), each within one thread's
// loop (8 x 8 columns across one axis, kMaxSmallTriangleVoxels voxels), and
// no two may share a voxel (a pair would be emitted twice).
TEST(TriangleTilesTest, TilesHoldEveryTouchedVoxelOnce) {
    namespace vt = pyramarch::voxel::testing;
    auto g = gridFromBox({0, 0, 0}, {64, 64, 64}, 64, 64, 64);
    ASSERT_TRUE(g.ok());
    TriangleMesh m;
    // Large and oblique, partly outside the grid, on voxel planes and
    // through voxel corners, needles and zero-area ones, large and small.
    shapes::append(m, shapes::triangle({-3, 1.5f, 2}, {70, 7, 60}, {4, 63, 11.3f}));
    shapes::append(m, shapes::triangle({-20, 5, 5}, {80, 16, 40}, {10, 90, -30}));
    shapes::append(m, shapes::box({2, 3, 4}, {60, 61, 62}));
    shapes::append(m, shapes::diamondPrism({32, 32, 0}, 28, 2, 60));
    shapes::append(m, shapes::triangle({8, 8, 8}, {56, 8, 56}, {8, 56, 56}));
    shapes::append(m, shapes::triangle({1, 1, 1}, {60, 60, 60}, {60, 60, 60}));    // a segment through corners
    shapes::append(m, shapes::triangle({5, 60, 3}, {61, 2, 40}, {33, 31, 21.5f})); // collinear
    shapes::append(m, shapes::triangle({9, 9, 9}, {9, 9, 9}, {9, 9, 9}));          // a point on a corner
    shapes::append(m, shapes::slivers({1, 1, 1}, {63, 63, 63}, 1e-4f, 12, 5));
    shapes::append(m, shapes::tinyTriangles({-2, -2, -2}, {66, 66, 66}, 40.f, 12, 9));
    shapes::append(m, shapes::tinyTriangles({1, 1, 1}, {63, 63, 63}, 0.5f, 4, 11));
    size_t tiles = 0;
    for (size_t t = 0; t < m.triangleCount(); ++t) {
        SCOPED_TRACE("triangle " + std::to_string(t));
        const std::vector<vt::TriangleTile> cut = vt::triangleTiles(m, *g, uint32_t(t));
        tiles += cut.size();
        std::map<uint32_t, int> covered; // voxel key -> tiles holding it
        for (const vt::TriangleTile& tile : cut) {
            EXPECT_EQ(tile.triangle, t);
            uint64_t volume = 1;
            int narrow = 0;
            for (int a = 0; a < 3; ++a) {
                ASSERT_LE(tile.boxMin[a], tile.boxMax[a]);
                ASSERT_LT(tile.boxMax[a], g->dims[a]);
                const uint32_t extent = tile.boxMax[a] - tile.boxMin[a] + 1;
                volume *= extent;
                narrow += extent <= 8 && tile.boxMin[a] / 8 == tile.boxMax[a] / 8 ? 1 : 0;
            }
            EXPECT_GE(narrow, 2);
            EXPECT_LE(volume, vt::kMaxSmallTriangleVoxels);
            for (uint32_t z = tile.boxMin[2]; z <= tile.boxMax[2]; ++z)
                for (uint32_t y = tile.boxMin[1]; y <= tile.boxMax[1]; ++y)
                    for (uint32_t x = tile.boxMin[0]; x <= tile.boxMax[0]; ++x) ++covered[ref::key(x, y, z)];
        }
        size_t twice = 0;
        for (const auto& [key, n] : covered) twice += n > 1 ? 1 : 0;
        EXPECT_EQ(twice, 0u) << "voxels in two tiles";
        ref::Vec3d v[3];
        if (!ref::gridTriangle(m, *g, t, v)) continue;
        size_t touched = 0, missing = 0;
        ref::forEachBoxVoxel(v, *g, [&](int x, int y, int z) {
            if (!ref::triangleOverlapsVoxel(v, x, y, z, ref::Overlap::Closed)) return;
            ++touched;
            missing += covered.count(ref::key(x, y, z)) ? 0 : 1;
        });
        EXPECT_EQ(missing, 0u) << "of " << touched << " touched voxels";
    }
    // The tiles follow the plane: far fewer voxels than the boxes.
    EXPECT_GT(tiles, 100u);
}

TEST(VoxelGridTest, DefaultGridFollowsTheConvention) {
    const TriangleMesh m = shapes::box({0, 0, 0}, {4, 2, 1});
    auto g = defaultGrid(m, 16);
    ASSERT_TRUE(g.ok()) << g.message();
    EXPECT_EQ(g->voxelSize[0], 0.25f);
    EXPECT_EQ(g->dims[0], 16u);
    EXPECT_EQ(g->dims[1], 8u);
    EXPECT_EQ(g->dims[2], 4u);
    EXPECT_EQ(g->origin, (std::array<float, 3>{0, 0, 0}));
    // A flat mesh still has at least one voxel on its flat axis.
    auto flat = defaultGrid(shapes::triangle({0, 0, 0}, {1, 0, 0}, {0, 1, 0}), 8);
    ASSERT_TRUE(flat.ok());
    EXPECT_EQ(flat->dims[2], 1u);
}

TEST(VoxelGridTest, BadResolutionAndEmptyMeshAreErrors) {
    const TriangleMesh m = shapes::box({0, 0, 0}, {1, 1, 1});
    EXPECT_FALSE(defaultGrid(m, 0).ok());
    auto over = defaultGrid(m, kMaxGridDim + 1);
    ASSERT_FALSE(over.ok());
    EXPECT_NE(over.message().find("resolution"), std::string::npos);
    EXPECT_FALSE(defaultGrid(TriangleMesh{}, 16).ok());
    TriangleMesh nan = shapes::triangle({NAN, 0, 0}, {0, NAN, 0}, {0, 0, NAN});
    EXPECT_FALSE(defaultGrid(nan, 16).ok());
    // Extents too small or too large for a float voxel size are errors, not
    // NaN voxel counts (a fuzzer-found case: a 1e-45 extent split 32 ways).
    auto denormal = defaultGrid(shapes::triangle({0, 0, 0}, {0, 1e-45f, 0}, {0, 0, 0}), 32);
    ASSERT_FALSE(denormal.ok());
    EXPECT_NE(denormal.message().find("extent"), std::string::npos);
    EXPECT_FALSE(defaultGrid(shapes::triangle({-3e38f, 0, 0}, {3e38f, 0, 0}, {0, 1, 0}), 16).ok());
    EXPECT_FALSE(gridFromBox({0, 0, 0}, {1, 1, 1}, 0, 4, 4).ok());
    EXPECT_FALSE(gridFromBox({0, 0, 0}, {1, -1, 1}, 4, 4, 4).ok());
    EXPECT_FALSE(gridFromBox({0, 0, 0}, {1, 1, 1}, 4, 4, 2000).ok());
}

TEST(VoxelMeshTest, CheckRejectsBadIndicesAndCountsNonFinite) {
    auto grid = gridFromBox({0, 0, 0}, {1, 1, 1}, 8, 8, 8);
    ASSERT_TRUE(grid.ok());
    TriangleMesh m = shapes::triangle({0, 0, 0}, {1, 0, 0}, {0, 1, 0});
    m.indices.push_back(0);
    EXPECT_FALSE(checkMesh(m, *grid).ok()); // not a multiple of 3
    m.indices = {0, 1, 7};
    auto bad = checkMesh(m, *grid);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.message().find("vertex 7"), std::string::npos) << bad.message();
    m.indices = {0, 1, 2};
    m.colors = {1, 2};
    EXPECT_FALSE(checkMesh(m, *grid).ok());
    m.colors.clear();
    shapes::append(m, shapes::triangle({NAN, 0, 0}, {1, 1, 1}, {0, 0, 1}));
    shapes::append(m, shapes::triangle({INFINITY, 0, 0}, {1, 1, 1}, {0, 0, 1}));
    auto ok = checkMesh(m, *grid);
    ASSERT_TRUE(ok.ok()) << ok.message();
    EXPECT_EQ(ok->triangles, 3u);
    EXPECT_EQ(ok->skippedNonFinite, 2u);
}

TEST(VoxelMeshTest, ObjLoadingAndErrors) {
    const std::string path = ::testing::TempDir() + "vox_test.obj";
    {
        std::ofstream f(path);
        f << "v 0 0 0 1 0 0\nv 1 0 0 0 1 0\nv 1 1 0 0 0 1\nv 0 1 0 1 1 1\nf 1 2 3 4\n";
    }
    auto m = loadObj(path);
    ASSERT_TRUE(m.ok()) << m.message();
    EXPECT_EQ(m->triangleCount(), 2u); // quad triangulated
    ASSERT_EQ(m->colors.size(), 4u);
    EXPECT_EQ(m->colors[0], packRGBA8(255, 0, 0));
    auto missing = loadObj(path + ".does-not-exist");
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.message().find("cannot open"), std::string::npos);
    const std::string empty = ::testing::TempDir() + "vox_empty.obj";
    {
        std::ofstream f(empty);
        f << "# nothing\nv 0 0 0\n";
    }
    auto none = loadObj(empty);
    ASSERT_FALSE(none.ok());
    EXPECT_NE(none.message().find("no triangles"), std::string::npos);
    const std::string badIdx = ::testing::TempDir() + "vox_bad.obj";
    {
        std::ofstream f(badIdx);
        f << "v 0 0 0\nv 1 0 0\nf 1 2 9\n";
    }
    auto bad = loadObj(badIdx);
    EXPECT_FALSE(bad.ok());
    std::remove(path.c_str());
    std::remove(empty.c_str());
    std::remove(badIdx.c_str());
}

TEST(VoxelShapesTest, ClosedShapesAreWatertight) {
    EXPECT_TRUE(closedWatertight(shapes::sphere({0, 0, 0}, 1, 16, 8)));
    EXPECT_TRUE(closedWatertight(shapes::torus({0, 0, 0}, 1, 0.3f, 16, 8)));
    EXPECT_TRUE(closedWatertight(shapes::torusKnot({0, 0, 0}, 1, 0.1f)));
    EXPECT_TRUE(closedWatertight(shapes::box({0, 0, 0}, {1, 2, 3})));
    EXPECT_TRUE(closedWatertight(shapes::diamondPrism({0, 0, 0}, 1, 0, 1)));
    EXPECT_FALSE(closedWatertight(shapes::triangle({0, 0, 0}, {1, 0, 0}, {0, 1, 0})));
    const TriangleMesh big = shapes::denseKnot({0, 0, 0}, 1, 100000);
    EXPECT_GE(big.triangleCount(), 95000u);
    EXPECT_LE(big.triangleCount(), 105000u);
}

TEST(VoxelReferenceTest, TouchingVersusInterior) {
    // Triangle lying in the plane z = 1: touches voxel (0,0,0) and (0,0,1) on a face.
    const std::array<float, 3> onFace[3] = {{0.2f, 0.2f, 1.f}, {0.8f, 0.2f, 1.f}, {0.2f, 0.8f, 1.f}};
    EXPECT_TRUE(ref::triangleOverlapsVoxel(onFace, 0, 0, 0, ref::Overlap::Closed));
    EXPECT_FALSE(ref::triangleOverlapsVoxel(onFace, 0, 0, 0, ref::Overlap::Open));
    EXPECT_TRUE(ref::triangleOverlapsVoxel(onFace, 0, 0, 1, ref::Overlap::Closed));
    EXPECT_FALSE(ref::triangleOverlapsVoxel(onFace, 0, 0, 2, ref::Overlap::Closed));
    // Inside.
    const std::array<float, 3> inside[3] = {{0.2f, 0.2f, 0.5f}, {0.8f, 0.2f, 0.5f}, {0.2f, 0.8f, 0.5f}};
    EXPECT_TRUE(ref::triangleOverlapsVoxel(inside, 0, 0, 0, ref::Overlap::Open));
    EXPECT_FALSE(ref::triangleOverlapsVoxel(inside, 1, 0, 0, ref::Overlap::Closed));
    // A segment (zero area) through the interior still overlaps it.
    const std::array<float, 3> seg[3] = {{-1.f, 0.5f, 0.5f}, {0.5f, 0.5f, 0.5f}, {2.f, 0.5f, 0.5f}};
    EXPECT_TRUE(ref::triangleOverlapsVoxel(seg, 0, 0, 0, ref::Overlap::Open));
    // A point at a corner touches but does not enter.
    const std::array<float, 3> pt[3] = {{1.f, 1.f, 1.f}, {1.f, 1.f, 1.f}, {1.f, 1.f, 1.f}};
    EXPECT_TRUE(ref::triangleOverlapsVoxel(pt, 0, 0, 0, ref::Overlap::Closed));
    EXPECT_FALSE(ref::triangleOverlapsVoxel(pt, 0, 0, 0, ref::Overlap::Open));
    // Separated only by an edge x axis cross: the diagonal triangle near the corner.
    const std::array<float, 3> diag[3] = {{1.6f, -0.5f, 0.5f}, {-0.5f, 1.6f, 0.5f}, {-0.5f, 1.6f, 0.6f}};
    EXPECT_FALSE(ref::triangleOverlapsVoxel(diag, 1, 1, 0, ref::Overlap::Closed));
}

TEST(VoxelReferenceTest, AgreesWithPointSampling) {
    // Every sampled triangle point strictly inside a voxel must make the open
    // test true; the closed test must hold for every voxel with a sample on it.
    const TriangleMesh m = shapes::tinyTriangles({0.5f, 0.5f, 0.5f}, {7.5f, 7.5f, 7.5f}, 1.5f, 300, 11);
    auto grid = gridFromBox({0, 0, 0}, {8, 8, 8}, 8, 8, 8);
    ASSERT_TRUE(grid.ok());
    size_t checked = 0;
    for (size_t t = 0; t < m.triangleCount(); ++t) {
        ref::Vec3d v[3];
        ASSERT_TRUE(ref::gridTriangle(m, *grid, t, v));
        for (int i = 0; i <= 20; ++i)
            for (int j = 0; i + j <= 20; ++j) {
                const double a = i / 20.0, b = j / 20.0, c = 1 - a - b;
                const double p[3] = {a * v[0][0] + b * v[1][0] + c * v[2][0], a * v[0][1] + b * v[1][1] + c * v[2][1],
                                     a * v[0][2] + b * v[1][2] + c * v[2][2]};
                const int x = int(std::floor(p[0])), y = int(std::floor(p[1])), z = int(std::floor(p[2]));
                if (x < 0 || y < 0 || z < 0 || x > 7 || y > 7 || z > 7) continue;
                const bool strictly = p[0] > x && p[1] > y && p[2] > z;
                if (strictly) {
                    EXPECT_TRUE(ref::triangleOverlapsVoxel(v, x, y, z, ref::Overlap::Open));
                }
                EXPECT_TRUE(ref::triangleOverlapsVoxel(v, x, y, z, ref::Overlap::Closed));
                ++checked;
            }
        // And a voxel far away never overlaps.
        EXPECT_FALSE(
            ref::triangleOverlapsVoxel(v, int(v[0][0]) + 3, int(v[0][1]) + 3, int(v[0][2]) + 3, ref::Overlap::Closed));
    }
    EXPECT_GT(checked, 10000u);
    // The sets nest.
    const auto open = ref::voxelize(m, *grid, ref::Overlap::Open);
    const auto closed = ref::voxelize(m, *grid, ref::Overlap::Closed);
    EXPECT_TRUE(std::includes(closed.begin(), closed.end(), open.begin(), open.end()));
}

TEST(VoxelReferenceTest, FloodFillFindsHoles) {
    const TriangleMesh sphere = shapes::sphere({0, 0, 0}, 1.f, 32, 16);
    auto grid = defaultGrid(sphere, 16);
    ASSERT_TRUE(grid.ok());
    const auto keys = ref::voxelize(sphere, *grid, ref::Overlap::Closed);
    const auto reached = ref::floodFillOutside(keys, *grid);
    const size_t centre = (size_t(8) * grid->dims[1] + 8) * grid->dims[0] + 8;
    EXPECT_FALSE(reached[centre]);
    EXPECT_TRUE(reached[0]);
    // Remove the faces of one side of a box: the fill gets in.
    TriangleMesh open = shapes::box({0.1f, 0.1f, 0.1f}, {3.9f, 3.9f, 3.9f});
    open.indices.resize(open.indices.size() - 6);
    auto g8 = gridFromBox({0, 0, 0}, {4, 4, 4}, 8, 8, 8);
    ASSERT_TRUE(g8.ok());
    const auto leaky8 = ref::floodFillOutside(ref::voxelize(open, *g8, ref::Overlap::Closed), *g8);
    const auto sealed8 = ref::floodFillOutside(
        ref::voxelize(shapes::box({0.1f, 0.1f, 0.1f}, {3.9f, 3.9f, 3.9f}), *g8, ref::Overlap::Closed), *g8);
    const size_t inner = (size_t(4) * 8 + 4) * 8 + 4;
    EXPECT_TRUE(leaky8[inner]);
    EXPECT_FALSE(sealed8[inner]);
}

TEST(VoxelReferenceTest, OctreeLevelCountsAndColours) {
    std::vector<uint32_t> keys = {ref::key(0, 0, 0), ref::key(1, 0, 0), ref::key(7, 7, 7)};
    const auto c = ref::octreeLevelCounts(keys, 3);
    ASSERT_EQ(c.size(), 4u);
    EXPECT_EQ(c[0], 1u);
    EXPECT_EQ(c[1], 2u);
    EXPECT_EQ(c[2], 2u);
    EXPECT_EQ(c[3], 3u);
    EXPECT_EQ(ref::averageRGB({packRGBA8(10, 20, 30), packRGBA8(11, 20, 31)}), packRGBA8(11, 20, 31, 2));
    TriangleMesh t = shapes::triangle({0, 0, 0}, {1, 0, 0}, {0, 1, 0});
    t.colors = {packRGBA8(0, 0, 0, 255), packRGBA8(1, 2, 255, 255), packRGBA8(1, 0, 0, 255)};
    EXPECT_EQ(ref::triangleColor(t, 0), packRGBA8(1, 1, 85, 255));
}

TEST(VoxelExportTest, LeavesOfAHandBuiltTreeAndWriters) {
    // Depth 2: root -> tile 1 (child 0 and 7) -> tiles 2 and 3 with leaves.
    OctreeSnapshot t;
    t.depth = 2;
    t.tilesAllocated = 4;
    t.nodes.resize(32);
    t.nodes[0].child = 1;
    t.nodes[0].count = 3;
    t.nodes[8 + 0].child = 2;
    t.nodes[8 + 0].count = 2;
    t.nodes[8 + 7].child = 3;
    t.nodes[8 + 7].count = 1;
    t.nodes[16 + 1] = {0, packRGBA8(1, 2, 3, 1), 1, {0, 0, 0}, 0, 0}; // (1,0,0)
    t.nodes[16 + 6] = {0, packRGBA8(4, 5, 6, 1), 1, {0, 0, 0}, 0, 0}; // (0,1,1)
    t.nodes[24 + 0] = {0, packRGBA8(7, 8, 9, 1), 1, {0, 0, 0}, 0, 0}; // (2,2,2)
    t.nodes[24 + 3].child = 99;                                       // count 0: not a leaf
    const auto leaves = extractLeaves(t);
    ASSERT_EQ(leaves.size(), 3u);
    EXPECT_EQ(std::make_tuple(leaves[0].x, leaves[0].y, leaves[0].z), std::make_tuple(1u, 0u, 0u));
    EXPECT_EQ(std::make_tuple(leaves[1].x, leaves[1].y, leaves[1].z), std::make_tuple(0u, 1u, 1u));
    EXPECT_EQ(std::make_tuple(leaves[2].x, leaves[2].y, leaves[2].z), std::make_tuple(2u, 2u, 2u));
    EXPECT_EQ(leaves[2].color & 0xffffffu, packRGBA8(7, 8, 9) & 0xffffffu);
    // A pointer outside the allocation is not followed.
    t.nodes[8 + 7].child = 4;
    EXPECT_EQ(extractLeaves(t).size(), 2u);
    t.nodes[8 + 7].child = 3;

    auto grid = gridFromBox({0, 0, 0}, {4, 4, 4}, 4, 4, 4);
    ASSERT_TRUE(grid.ok());
    const std::string txt = ::testing::TempDir() + "vox_leaves.txt";
    const std::string ply = ::testing::TempDir() + "vox_leaves.ply";
    ASSERT_TRUE(writeLeavesTxt(txt, leaves, *grid).ok());
    ASSERT_TRUE(writeLeavesPly(ply, leaves, *grid).ok());
    std::ifstream ft(txt), fp(ply);
    std::string all((std::istreambuf_iterator<char>(ft)), {}), plyText((std::istreambuf_iterator<char>(fp)), {});
    EXPECT_NE(all.find("\n2 2 2 7 8 9 1\n"), std::string::npos) << all;
    EXPECT_NE(plyText.find("element vertex 3\n"), std::string::npos);
    EXPECT_NE(plyText.find("\n2.5 2.5 2.5 7 8 9 1\n"), std::string::npos) << plyText;
    EXPECT_FALSE(writeLeavesTxt("/nonexistent-dir/x.txt", leaves, *grid).ok());
    std::remove(txt.c_str());
    std::remove(ply.c_str());

    VoxelStats st;
    st.fragmentsNeeded = 12;
    const std::string json =
        statsJson(st, *grid, leaves.size(), {{"vox.flag.0", 1.5}, {"vox.flag.1", 2.0}, {"vox.raster", 3.0}});
    EXPECT_NE(json.find("\"fragmentsNeeded\": 12"), std::string::npos) << json;
    EXPECT_NE(json.find("\"vox.flag.*\": 3.5"), std::string::npos) << json;
    EXPECT_NE(json.find("\"leaves\": 3"), std::string::npos);
}
