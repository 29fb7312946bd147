// GPU voxelizer vs the CPU reference on lavapipe (validation + sync
// validation on). Every voxel the GPU emits is checked per (voxel, triangle)
// pair against the closed separating-axis test, every open overlap must be
// emitted, and the octree is checked node by node.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <set>

#include "pyramarch/engine/render_graph.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/voxelizer/field.h"
#include "pyramarch/voxelizer/shapes.h"
#include "pyramarch/voxelizer/testing.h"
#include "pyramarch/voxelizer/voxelizer.h"
#include "support/device_policy.h"
#include "support/gpu_test.h"
#include "voxel_reference.h"

using namespace pyramarch;
using namespace pyramarch::voxel;
using voxel::testing::ColorMerge;
using voxel::testing::kMaxSmallTriangleVoxels;
using voxel::testing::LeafMerge;
using voxel::testing::maxTileCapacity;
using voxel::testing::OctreeBuild;
using voxel::testing::TrianglePath;

// The create-info with the testing tier's knobs, so each test reaches every
// variant (pyramarch/voxelizer/testing.h).
struct VoxInfo : VoxelizerCreateInfo, voxel::testing::Knobs {};

Result<std::unique_ptr<Voxelizer>> createVoxelizer(Device& device, const VoxInfo& info) {
    return voxel::testing::create(device, info, info);
}

bool texelReadsFit(const VoxInfo& info, uint64_t maxTexelBufferElements) {
    return voxel::testing::texelReadsFit(info, info, maxTexelBufferElements);
}

namespace {

struct Frame {
    VoxelStats stats;
    std::vector<VoxelFragment> fragments;
    OctreeSnapshot tree;
    std::vector<uint32_t> keys; // sorted unique voxel keys of the fragments
};

uint32_t fragKey(const VoxelFragment& f) { return ref::key(f.x, f.y, f.z); }

// A voxelizer at the shared one's depth (R = 128), the geometry-shader
// conservative fallback (what lavapipe runs), and the given capacities; the
// tests then set what they compare.
// The tests' voxelizer: the geometry-shader path (every device has it), as
// many vertices as triangles.
VoxInfo createInfo(uint32_t maxResolution, uint32_t maxTriangles, uint32_t fragmentCapacity, uint32_t tileCapacity) {
    VoxInfo ci;
    ci.maxResolution = maxResolution;
    ci.maxVertices = maxTriangles;
    ci.maxTriangles = maxTriangles;
    ci.fragmentCapacity = fragmentCapacity;
    ci.tileCapacity = tileCapacity;
    ci.method = ConservativeMethod::GeometryShader;
    return ci;
}

VoxInfo depth7Info(uint32_t maxTriangles, uint32_t fragmentCapacity, uint32_t tileCapacity) {
    return createInfo(128, maxTriangles, fragmentCapacity, tileCapacity);
}

class VoxelizerTest : public test::GpuTest {
protected:
    // One voxelizer for most tests (pipeline creation and JIT are the slow part on lavapipe).
    // Destroyed before the shared device is (at process exit).
    static void TearDownTestSuite() { sharedVoxelizer().reset(); }
    static std::unique_ptr<Voxelizer>& sharedVoxelizer() {
        static std::unique_ptr<Voxelizer> v;
        return v;
    }
    Voxelizer& shared() {
        std::unique_ptr<Voxelizer>& v = sharedVoxelizer();
        if (!v) {
            VoxInfo ci = depth7Info(1 << 16, 1 << 20, 1 << 16);
            auto r = createVoxelizer(device(), ci);
            EXPECT_TRUE(r.ok()) << r.message();
            if (r.ok()) v = std::move(r).value();
        }
        return *v;
    }

    // One voxelization, recorded and waited for; only the counters read back
    // (the tests of millions of fragments skip the fragment read-back).
    static Result<VoxelStats> voxelizeOnce(Device& dev, Voxelizer& v, const TriangleMesh& mesh, const VoxelGrid& grid,
                                           VoxelMode mode = VoxelMode::Conservative) {
        PYRAMARCH_TRY(v.setMesh(mesh, grid, mode));
        Status rec;
        PYRAMARCH_TRY(submitAndWait(dev, [&](VkCommandBuffer cmd) { rec = v.record(cmd); }));
        PYRAMARCH_TRY(rec);
        return v.readStats();
    }

    // The voxelizer's passes added to a host's graph, compiled once.
    static Status compileInto(Voxelizer& v, RenderGraph& graph) {
        if (auto refs = v.addPasses(graph); !refs) return refs.status();
        return graph.compile();
    }
    // One frame of a host graph: recorded, submitted and waited for.
    static Status executeOnce(Device& dev, RenderGraph& graph) {
        Status rec;
        PYRAMARCH_TRY(submitAndWait(dev, [&](VkCommandBuffer cmd) { rec = graph.execute(cmd); }));
        return rec;
    }

    static Result<Frame> run(Device& dev, Voxelizer& v, const TriangleMesh& mesh, const VoxelGrid& grid,
                             VoxelMode mode = VoxelMode::Conservative) {
        auto s = voxelizeOnce(dev, v, mesh, grid, mode);
        if (!s) return s.status();
        return readFrame(v, s.value());
    }
    // The last frame's fragments, octree and voxel keys, with its stats.
    static Result<Frame> readFrame(Voxelizer& v, const VoxelStats& stats) {
        Frame f;
        f.stats = stats;
        auto fr = v.readFragments();
        if (!fr) return fr.status();
        f.fragments = std::move(fr).value();
        auto t = v.readOctree();
        if (!t) return t.status();
        f.tree = std::move(t).value();
        for (const auto& x : f.fragments) f.keys.push_back(fragKey(x));
        std::sort(f.keys.begin(), f.keys.end());
        f.keys.erase(std::unique(f.keys.begin(), f.keys.end()), f.keys.end());
        return f;
    }
};

// open <= GPU <= closed, per (voxel, triangle) pair; each pair emitted once.
void expectConservative(const TriangleMesh& mesh, const VoxelGrid& grid, const Frame& f) {
    ASSERT_FALSE(f.stats.fragmentOverflow);
    EXPECT_EQ(f.stats.depthOverflow, 0u) << "a pixel column had more candidates than the shader's bound";
    std::vector<uint64_t> pairs;
    pairs.reserve(f.fragments.size());
    size_t notClosed = 0;
    for (const VoxelFragment& x : f.fragments) {
        ASSERT_LT(x.triangle, mesh.triangleCount());
        ASSERT_LT(x.x, grid.dims[0]);
        ASSERT_LT(x.y, grid.dims[1]);
        ASSERT_LT(x.z, grid.dims[2]);
        pairs.push_back((uint64_t(x.triangle) << 32) | fragKey(x));
        ref::Vec3d v[3];
        ASSERT_TRUE(ref::gridTriangle(mesh, grid, x.triangle, v));
        if (!ref::triangleOverlapsVoxel(v, int(x.x), int(x.y), int(x.z), ref::Overlap::Closed) && ++notClosed <= 5)
            ADD_FAILURE() << "GPU voxel (" << x.x << "," << x.y << "," << x.z << ") of triangle " << x.triangle
                          << " is outside the closed reference";
    }
    EXPECT_EQ(notClosed, 0u);
    std::sort(pairs.begin(), pairs.end());
    const size_t before = pairs.size();
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    EXPECT_EQ(before, pairs.size()) << "a (voxel, triangle) pair was emitted twice";
    size_t missing = 0;
    for (size_t t = 0; t < mesh.triangleCount(); ++t) {
        ref::Vec3d v[3];
        if (!ref::gridTriangle(mesh, grid, t, v)) continue;
        ref::forEachBoxVoxel(v, grid, [&](int x, int y, int z) {
            if (!ref::triangleOverlapsVoxel(v, x, y, z, ref::Overlap::Open)) return;
            const uint64_t p = (uint64_t(t) << 32) | ref::key(x, y, z);
            if (!std::binary_search(pairs.begin(), pairs.end(), p) && ++missing <= 5)
                ADD_FAILURE() << "open-reference voxel (" << x << "," << y << "," << z << ") of triangle " << t
                              << " missing on the GPU";
        });
    }
    EXPECT_EQ(missing, 0u);
}

// (voxel, triangle) pairs of the closed reference: with the exact fallback
// every pair is decided as the reference decides it, so a conservative
// voxelization has exactly these (expectConservative checks that each GPU
// pair is one of them, once).
size_t closedPairCount(const TriangleMesh& mesh, const VoxelGrid& grid) {
    size_t n = 0;
    for (size_t t = 0; t < mesh.triangleCount(); ++t) {
        ref::Vec3d v[3];
        if (!ref::gridTriangle(mesh, grid, t, v)) continue;
        ref::forEachBoxVoxel(
            v, grid, [&](int x, int y, int z) { n += ref::triangleOverlapsVoxel(v, x, y, z, ref::Overlap::Closed); });
    }
    return n;
}

// Encloses: a 6-connected fill from outside does not reach `inside` (grid coordinates).
void expectNoHoles(const Frame& f, const VoxelGrid& grid, std::array<uint32_t, 3> inside) {
    const auto reached = ref::floodFillOutside(f.keys, grid);
    const size_t i = (size_t(inside[2]) * grid.dims[1] + inside[1]) * grid.dims[0] + inside[0];
    EXPECT_FALSE(reached[i]) << "the flood fill leaked into the inside";
    EXPECT_FALSE(std::binary_search(f.keys.begin(), f.keys.end(), ref::key(inside[0], inside[1], inside[2])))
        << "inside point is on the surface; pick another";
}

// Octree structure and values against the fragment list.
void expectOctreeMatches(const Frame& f) {
    const OctreeSnapshot& t = f.tree;
    ASSERT_FALSE(f.stats.tileOverflow);
    // Child pointers below the allocation counter.
    for (size_t n = 0; n < t.nodes.size(); ++n) {
        ASSERT_LT(t.nodes[n].child, t.tilesAllocated) << "node " << n;
    }
    // Leaves decode to exactly the fragment voxels.
    const std::vector<LeafVoxel> leaves = extractLeaves(t);
    std::vector<uint32_t> leafKeys;
    for (const LeafVoxel& l : leaves) leafKeys.push_back(ref::key(l.x, l.y, l.z));
    ASSERT_EQ(leafKeys, f.keys);
    // Node counts per level.
    const auto counts = ref::octreeLevelCounts(f.keys, t.depth);
    std::vector<uint32_t> gpuCounts(t.depth + 1, 0);
    std::vector<std::pair<uint32_t, uint32_t>> stack{{0, 0}};
    size_t badCoords = 0;
    while (!stack.empty()) {
        auto [n, level] = stack.back();
        stack.pop_back();
        // Every node of an allocated tile knows its coordinates at its level.
        if (t.nodes[n].child != 0) {
            const auto pc = ref::unkey(t.nodes[n].coord);
            for (uint32_t c = 0; c < 8; ++c) {
                const uint32_t want =
                    ref::key(pc[0] * 2 + (c & 1), pc[1] * 2 + ((c >> 1) & 1), pc[2] * 2 + ((c >> 2) & 1));
                badCoords += t.nodes[t.nodes[n].child * 8 + c].coord != want;
            }
        }
        if (t.nodes[n].count == 0) continue;
        ++gpuCounts[level];
        if (level < t.depth) {
            ASSERT_NE(t.nodes[n].child, 0u) << "non-empty interior node without children";
            uint32_t sum = 0, filled = 0, rgb[3] = {0, 0, 0};
            for (uint32_t c = 0; c < 8; ++c) {
                const OctreeNode& ch = t.nodes[t.nodes[n].child * 8 + c];
                stack.push_back({t.nodes[n].child * 8 + c, level + 1});
                if (ch.count == 0) continue;
                sum += ch.count;
                ++filled;
                for (int k = 0; k < 3; ++k) rgb[k] += (ch.color >> (8 * k)) & 255u;
            }
            EXPECT_EQ(t.nodes[n].count, sum);
            for (int k = 0; k < 3; ++k)
                EXPECT_EQ((t.nodes[n].color >> (8 * k)) & 255u, (2 * rgb[k] + filled) / (2 * filled))
                    << "interior node " << n << " is not the average of its non-empty children";
        }
    }
    EXPECT_EQ(gpuCounts, counts);
    EXPECT_EQ(t.nodes[0].coord, 0u);
    EXPECT_EQ(badCoords, 0u) << "node coordinates disagree with the tree";
    // Leaf values: count = fragments of the voxel; colour = the rounded mean
    // of their colours, exactly (leaf.comp sums channels, mipmap.comp
    // divides: no per-merge rounding, so no dependence on fragment order).
    std::map<uint32_t, std::vector<uint32_t>> colours;
    for (const VoxelFragment& x : f.fragments) colours[fragKey(x)].push_back(x.color);
    size_t beyond = 0;
    for (const LeafVoxel& l : leaves) {
        const auto& cs = colours[ref::key(l.x, l.y, l.z)];
        EXPECT_EQ(l.count, cs.size());
        const uint32_t want = ref::averageRGB(cs);
        if (l.color != want && ++beyond <= 5)
            ADD_FAILURE() << "leaf (" << l.x << "," << l.y << "," << l.z << ") colour " << std::hex << l.color
                          << ", mean " << want << std::dec << " of " << cs.size() << " fragments";
    }
    EXPECT_EQ(beyond, 0u);
    // Every (voxel, triangle) pair of the stored records reached its leaf.
    EXPECT_EQ(f.stats.leafFragments, f.fragments.size());
}

VoxelGrid gridOf(const TriangleMesh& m, uint32_t r) {
    auto g = defaultGrid(m, r);
    EXPECT_TRUE(g.ok()) << g.message();
    return g.ok() ? g.value() : VoxelGrid{};
}

// Full 1024 x 1024 squares (two triangles each) at the given heights, inside
// a slice (never on a voxel plane): the tests of launches and pools far
// larger than the rest of the suite uses.
TriangleMesh fullPlanes1024(std::initializer_list<float> heights) {
    TriangleMesh m;
    for (float z : heights) {
        shapes::append(m, shapes::triangle({0.25f, 0.25f, z}, {1023.75f, 0.25f, z}, {1023.75f, 1023.75f, z}));
        shapes::append(m, shapes::triangle({0.25f, 0.25f, z}, {1023.75f, 1023.75f, z}, {0.25f, 1023.75f, z}));
    }
    return m;
}

// A voxelizer for fullPlanes1024 meshes: R = 1024, geometry-shader dilation.
VoxInfo planesInfo(uint32_t fragmentCapacity, uint32_t tileCapacity, OctreeBuild build) {
    VoxInfo ci = createInfo(1024, 64, fragmentCapacity, tileCapacity);
    ci.octreeBuild = build;
    return ci;
}

} // namespace

TEST_F(VoxelizerTest, SphereConservativeMatchesReference) {
    TriangleMesh m = shapes::sphere({0.1f, -0.2f, 0.3f}, 1.0f, 40, 20);
    shapes::colorByPosition(m);
    const VoxelGrid g = gridOf(m, 64);
    auto f = run(device(), shared(), m, g);
    ASSERT_TRUE(f.ok()) << f.message();
    EXPECT_GT(f->keys.size(), 1000u);
    expectConservative(m, g, *f);
    expectNoHoles(*f, g, {32, 32, 32});
    expectOctreeMatches(*f);
    EXPECT_EQ(f->stats.depthOverflow, 0u);
}

TEST_F(VoxelizerTest, TorusAndKnotAt128) {
    for (int which = 0; which < 2; ++which) {
        SCOPED_TRACE(which == 0 ? "torus" : "knot");
        const TriangleMesh m = which == 0 ? shapes::torus({0, 0, 0}, 1.0f, 0.35f, 64, 24)
                                          : shapes::torusKnot({0, 0, 0}, 1.0f, 0.18f, 2, 3, 192, 16);
        const VoxelGrid g = gridOf(m, 128);
        auto f = run(device(), shared(), m, g);
        ASSERT_TRUE(f.ok()) << f.message();
        expectConservative(m, g, *f);
        expectOctreeMatches(*f);
        if (which == 0) {
            // A point inside the tube: (R, 0, 0) in world space.
            const std::array<float, 3> p = toGridSpace({1.0f, 0.f, 0.f}, g);
            expectNoHoles(*f, g, {uint32_t(p[0]), uint32_t(p[1]), uint32_t(p[2])});
        } else {
            // Closed mesh: some voxels are enclosed (the tube's inside), none reachable.
            const auto reached = ref::floodFillOutside(f->keys, g);
            size_t enclosed = 0;
            for (size_t i = 0; i < reached.size(); ++i) enclosed += !reached[i];
            EXPECT_GT(enclosed, f->keys.size()) << "the knot's tube should enclose voxels";
        }
    }
}

TEST_F(VoxelizerTest, AxisAlignedBoxOnVoxelPlanesAnd45DegreeWalls) {
    // Faces exactly on voxel planes: open and closed differ, the GPU must lie between.
    const TriangleMesh box = shapes::box({2, 3, 4}, {12, 13, 14});
    auto g = gridFromBox({0, 0, 0}, {16, 16, 16}, 16, 16, 16);
    ASSERT_TRUE(g.ok());
    auto f = run(device(), shared(), box, *g);
    ASSERT_TRUE(f.ok()) << f.message();
    expectConservative(box, *g, *f);
    expectNoHoles(*f, *g, {7, 8, 9});
    expectOctreeMatches(*f);
    const auto open = ref::voxelize(box, *g, ref::Overlap::Open);
    const auto closed = ref::voxelize(box, *g, ref::Overlap::Closed);
    EXPECT_LT(open.size(), closed.size());

    const TriangleMesh diamond = shapes::diamondPrism({8, 8, 0}, 6, 2, 14);
    auto d = run(device(), shared(), diamond, *g);
    ASSERT_TRUE(d.ok()) << d.message();
    expectConservative(diamond, *g, *d);
    expectNoHoles(*d, *g, {8, 8, 8});
    const TriangleMesh diamondFine = shapes::diamondPrism({0.13f, -0.07f, 0}, 1, -1, 1);
    const VoxelGrid gf = gridOf(diamondFine, 64);
    auto df = run(device(), shared(), diamondFine, gf);
    ASSERT_TRUE(df.ok()) << df.message();
    expectConservative(diamondFine, gf, *df);
    expectNoHoles(*df, gf, {32, 32, 32});
}

TEST_F(VoxelizerTest, SpecialTriangles) {
    auto g = gridFromBox({0, 0, 0}, {32, 32, 32}, 32, 32, 32);
    ASSERT_TRUE(g.ok());
    struct Case {
        const char* name;
        TriangleMesh mesh;
    };
    std::vector<Case> cases;
    cases.push_back({"large triangle", shapes::triangle({-3, 1.5f, 2}, {35, 7, 30}, {4, 31, 11.3f})});
    cases.push_back({"tiny triangles", shapes::tinyTriangles({1, 1, 1}, {31, 31, 31}, 0.05f, 400)});
    cases.push_back({"slivers", shapes::slivers({1, 1, 1}, {31, 31, 31}, 0.01f, 60)});
    cases.push_back({"degenerate", shapes::degenerateTriangles({1, 1, 1}, {31, 31, 31}, 300)});
    cases.push_back({"needles", shapes::slivers({1, 1, 1}, {31, 31, 31}, 1e-5f, 300, 7)});
    cases.push_back({"wide slivers", shapes::slivers({1, 1, 1}, {31, 31, 31}, 0.3f, 300, 8)});
    cases.push_back({"partly outside", shapes::triangle({-20, 5, 5}, {50, 16, 40}, {10, 60, -30})});
    cases.push_back({"non-manifold", shapes::nonManifold({4.5f, 5.5f, 6.25f}, {25, 26.5f, 27})});
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        auto f = run(device(), shared(), c.mesh, *g);
        ASSERT_TRUE(f.ok()) << f.message();
        expectConservative(c.mesh, *g, *f);
        expectOctreeMatches(*f);
        EXPECT_GT(f->keys.size(), 0u);
    }
}

TEST_F(VoxelizerTest, NonCubicGrids) {
    const TriangleMesh m = shapes::torusKnot({0, 0, 0}, 1.0f, 0.2f, 2, 3, 128, 12);
    auto g = gridFromBox({-1.1f, -1.2f, -0.6f}, {1.2f, 1.1f, 0.5f}, 100, 48, 20); // non-cubic voxels too
    ASSERT_TRUE(g.ok());
    auto f = run(device(), shared(), m, *g);
    ASSERT_TRUE(f.ok()) << f.message();
    expectConservative(m, *g, *f);
    expectOctreeMatches(*f);
    // Default grid of a flat-ish box: dims 128 x 32 x 16.
    const TriangleMesh slab = shapes::box({0, 0, 0}, {8, 2, 1});
    const VoxelGrid gs = gridOf(slab, 128);
    EXPECT_EQ(gs.dims[1], 32u);
    auto s = run(device(), shared(), slab, gs);
    ASSERT_TRUE(s.ok()) << s.message();
    expectConservative(slab, gs, *s);
}

TEST_F(VoxelizerTest, ThinModeIsSeparatingAndThinner) {
    const TriangleMesh m = shapes::sphere({0.05f, 0.1f, -0.05f}, 1.0f, 40, 20);
    const VoxelGrid g = gridOf(m, 64);
    auto thin = run(device(), shared(), m, g, VoxelMode::Thin);
    ASSERT_TRUE(thin.ok()) << thin.message();
    size_t outside = 0, offSlab = 0;
    for (const VoxelFragment& x : thin->fragments) {
        ref::Vec3d v[3];
        ASSERT_TRUE(ref::gridTriangle(m, g, x.triangle, v));
        if (!ref::triangleOverlapsVoxel(v, int(x.x), int(x.y), int(x.z), ref::Overlap::Closed)) ++outside;
        // The voxel centre lies in the triangle plane's slab one voxel deep
        // along the dominant axis: |n.(c - v0)| <= max|n_i| / 2.
        const double e1[3] = {double(v[1][0]) - v[0][0], double(v[1][1]) - v[0][1], double(v[1][2]) - v[0][2]};
        const double e2[3] = {double(v[2][0]) - v[0][0], double(v[2][1]) - v[0][1], double(v[2][2]) - v[0][2]};
        const double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                             e1[0] * e2[1] - e1[1] * e2[0]};
        const double d = n[0] * (x.x + 0.5 - v[0][0]) + n[1] * (x.y + 0.5 - v[0][1]) + n[2] * (x.z + 0.5 - v[0][2]);
        if (std::fabs(d) > 0.5 * std::max({std::fabs(n[0]), std::fabs(n[1]), std::fabs(n[2])})) ++offSlab;
    }
    EXPECT_EQ(outside, 0u) << "thin voxels must overlap their triangle";
    EXPECT_EQ(offSlab, 0u) << "thin voxels must lie in the plane's one-voxel slab";
    expectNoHoles(*thin, g, {32, 32, 32});
    expectOctreeMatches(*thin);
    auto cons = run(device(), shared(), m, g);
    ASSERT_TRUE(cons.ok());
    EXPECT_LT(thin->keys.size(), cons->keys.size() * 8 / 10) << "thin should be clearly thinner";
    EXPECT_TRUE(std::includes(cons->keys.begin(), cons->keys.end(), thin->keys.begin(), thin->keys.end()));

    // A closed torus: thin and still watertight.
    const TriangleMesh t = shapes::torus({0, 0, 0}, 1.0f, 0.35f, 64, 24);
    const VoxelGrid gt = gridOf(t, 128);
    auto tt = run(device(), shared(), t, gt, VoxelMode::Thin);
    ASSERT_TRUE(tt.ok()) << tt.message();
    const std::array<float, 3> p = toGridSpace({1.0f, 0.f, 0.f}, gt);
    expectNoHoles(*tt, gt, {uint32_t(p[0]), uint32_t(p[1]), uint32_t(p[2])});
}

TEST_F(VoxelizerTest, UniformColourIsExact) {
    TriangleMesh m = shapes::torus({0, 0, 0}, 1.0f, 0.4f, 48, 16);
    shapes::colorUniform(m, packRGBA8(200, 17, 93));
    auto f = run(device(), shared(), m, gridOf(m, 64));
    ASSERT_TRUE(f.ok()) << f.message();
    for (const OctreeNode& n : f->tree.nodes) {
        if (n.count == 0) continue;
        EXPECT_EQ(n.color & 0xffffffu, packRGBA8(200, 17, 93) & 0xffffffu);
    }
    expectOctreeMatches(*f);
}

TEST_F(VoxelizerTest, FragmentListOverflowIsReportedAndBounded) {
    const TriangleMesh m = shapes::sphere({0, 0, 0}, 1.0f, 24, 12);
    const VoxelGrid g = gridOf(m, 32);
    auto full = run(device(), shared(), m, g);
    ASSERT_TRUE(full.ok());
    VoxInfo ci = createInfo(32, 4096, 1000, 4096);
    auto small = createVoxelizer(device(), ci);
    ASSERT_TRUE(small.ok()) << small.message();
    auto f = run(device(), **small, m, g);
    ASSERT_TRUE(f.ok()) << f.message();
    EXPECT_TRUE(f->stats.fragmentOverflow);
    EXPECT_EQ(f->stats.fragmentsNeeded, full->stats.fragmentsNeeded);
    EXPECT_EQ(f->stats.fragmentsStored, 1000u);
    // 1000 records: at least one voxel each, fewer than the whole list's.
    EXPECT_GE(f->fragments.size(), 1000u);
    EXPECT_LT(f->fragments.size(), full->fragments.size());
    EXPECT_TRUE(std::includes(full->keys.begin(), full->keys.end(), f->keys.begin(), f->keys.end()));
    expectOctreeMatches(*f); // the tree of what was stored
}

TEST_F(VoxelizerTest, NodePoolOverflowKeepsTheTreeValid) {
    const TriangleMesh m = shapes::sphere({0, 0, 0}, 1.0f, 24, 12);
    const VoxelGrid g = gridOf(m, 32);
    auto full = run(device(), shared(), m, g);
    ASSERT_TRUE(full.ok());
    const uint32_t needed = full->stats.tilesNeeded;
    ASSERT_GT(needed, 10u);
    // The level-by-level builds (OccupancyLevels, as Crassin & Green) learn
    // only the requests they reach: a pool that runs out above the leaves
    // gives a lower bound. TileHash counts every tile before allocating, so
    // the needed size is exact.
    for (OctreeBuild build : {OctreeBuild::TileHash, OctreeBuild::OccupancyLevels})
        for (uint32_t capacity : {needed - 1, 5u}) {
            SCOPED_TRACE(capacity);
            SCOPED_TRACE(build == OctreeBuild::TileHash ? "tile hash" : "occupancy levels");
            VoxInfo ci = depth7Info(4096, 1 << 16, capacity); // same depth as the shared voxelizer
            ci.octreeBuild = build;
            auto small = createVoxelizer(device(), ci);
            ASSERT_TRUE(small.ok()) << small.message();
            auto f = run(device(), **small, m, g);
            ASSERT_TRUE(f.ok()) << f.message();
            EXPECT_TRUE(f->stats.tileOverflow);
            EXPECT_EQ(f->stats.tilesAllocated, capacity);
            if (capacity == needed - 1 || build == OctreeBuild::TileHash) {
                EXPECT_FALSE(f->stats.tilesNeededIsLowerBound);
                EXPECT_EQ(f->stats.tilesNeeded, needed);
            } else {
                EXPECT_TRUE(f->stats.tilesNeededIsLowerBound);
                EXPECT_LT(f->stats.tilesNeeded, needed);
                EXPECT_GT(f->stats.tilesNeeded, capacity);
            }
            // Valid, truncated: every pointer allocated, leaves a subset of the full result.
            for (const OctreeNode& n : f->tree.nodes) ASSERT_LT(n.child, capacity);
            std::vector<uint32_t> keys;
            for (const LeafVoxel& l : extractLeaves(f->tree)) keys.push_back(ref::key(l.x, l.y, l.z));
            EXPECT_LT(keys.size(), full->keys.size());
            EXPECT_TRUE(std::includes(full->keys.begin(), full->keys.end(), keys.begin(), keys.end()));
            EXPECT_EQ(
                f->stats.leafFragments, 0u + [&] {
                    uint32_t c = 0;
                    for (const LeafVoxel& l : extractLeaves(f->tree)) c += l.count;
                    return c;
                }());
        }
}

TEST_F(VoxelizerTest, TileHashOverflowIsALowerBoundAndKeepsTheTreeValid) {
    // A pool far too small: the tile hash (at least 4096 slots, entries up to
    // 3/4 of them) fills before every tile is entered; the tree stays valid
    // and truncated, the needed size is flagged as a lower bound.
    const TriangleMesh m = shapes::sphere({0, 0, 0}, 1.0f, 48, 24);
    const VoxelGrid g = gridOf(m, 128);
    auto full = run(device(), shared(), m, g);
    ASSERT_TRUE(full.ok());
    const uint32_t needed = full->stats.tilesNeeded;
    ASSERT_GT(needed, 4096u);
    EXPECT_FALSE(full->stats.tilesNeededIsLowerBound);
    VoxInfo ci = depth7Info(4096, 1 << 18, 5);
    ci.octreeBuild = OctreeBuild::TileHash;
    auto small = createVoxelizer(device(), ci);
    ASSERT_TRUE(small.ok()) << small.message();
    auto f = run(device(), **small, m, g);
    ASSERT_TRUE(f.ok()) << f.message();
    EXPECT_TRUE(f->stats.tileOverflow);
    EXPECT_TRUE(f->stats.tilesNeededIsLowerBound);
    EXPECT_EQ(f->stats.tilesAllocated, 5u);
    EXPECT_GT(f->stats.tilesNeeded, 5u);
    EXPECT_LE(f->stats.tilesNeeded, 4096u);
    for (const OctreeNode& n : f->tree.nodes) ASSERT_LT(n.child, 5u);
    std::vector<uint32_t> keys;
    for (const LeafVoxel& l : extractLeaves(f->tree)) keys.push_back(ref::key(l.x, l.y, l.z));
    EXPECT_TRUE(std::includes(full->keys.begin(), full->keys.end(), keys.begin(), keys.end()));
}

TEST_F(VoxelizerTest, BadInput) {
    Voxelizer& v = shared();
    auto g = gridFromBox({0, 0, 0}, {1, 1, 1}, 16, 16, 16);
    ASSERT_TRUE(g.ok());
    // Empty mesh: nothing but the root.
    auto e = run(device(), v, TriangleMesh{}, *g);
    ASSERT_TRUE(e.ok()) << e.message();
    EXPECT_EQ(e->stats.fragmentsNeeded, 0u);
    EXPECT_EQ(e->stats.tilesNeeded, 1u);
    EXPECT_TRUE(extractLeaves(e->tree).empty());
    // NaN / inf vertices: those triangles are skipped and counted, the rest is exact.
    TriangleMesh m = shapes::sphere({0.5f, 0.5f, 0.5f}, 0.3f, 16, 8);
    shapes::append(m, shapes::triangle({NAN, 0.5f, 0.5f}, {0.1f, 0.1f, 0.1f}, {0.9f, 0.9f, 0.9f}));
    shapes::append(m, shapes::triangle({0.1f, 0.2f, 0.3f}, {INFINITY, 0.1f, 0.1f}, {0.9f, 0.9f, 0.9f}));
    auto n = run(device(), v, m, *g);
    ASSERT_TRUE(n.ok()) << n.message();
    EXPECT_EQ(n->stats.skippedTriangles, 2u);
    expectConservative(m, *g, *n);
    for (const VoxelFragment& x : n->fragments) EXPECT_LT(x.triangle, m.triangleCount() - 2);
    // Absurdly large (finite) coordinates: float arithmetic overflows, which
    // must not hang, crash or write out of bounds (no correctness claim:
    // accuracy assumes grid coordinates well inside +-2^20).
    TriangleMesh hugeMesh = shapes::triangle({-1e30f, 0.5f, 0.5f}, {1e30f, 0.4f, 0.6f}, {0.5f, 1e30f, -1e30f});
    shapes::append(hugeMesh, shapes::triangle({-3e38f, -3e38f, 0.5f}, {3e38f, -3e38f, 0.5f}, {0.f, 3e38f, 0.5f}));
    auto hf = run(device(), v, hugeMesh, *g);
    ASSERT_TRUE(hf.ok()) << hf.message();
    EXPECT_FALSE(hf->stats.fragmentOverflow);
    for (const VoxelFragment& x : hf->fragments) EXPECT_LT(x.triangle, 2u);
    // Out-of-range index: rejected before any GPU work, the previous mesh stays staged.
    TriangleMesh bad = shapes::triangle({0, 0, 0}, {1, 0, 0}, {0, 1, 0});
    bad.indices[2] = 3;
    Status s = v.setMesh(bad, *g);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("vertex 3"), std::string::npos) << s.message();
    EXPECT_EQ(v.grid().dims[0], 16u);
    // Resolution 0 / over the limit.
    VoxInfo ci;
    ci.maxResolution = 0;
    EXPECT_FALSE(createVoxelizer(device(), ci).ok());
    ci.maxResolution = 2048;
    EXPECT_FALSE(createVoxelizer(device(), ci).ok());
    auto big = gridFromBox({0, 0, 0}, {1, 1, 1}, 256, 8, 8);
    ASSERT_TRUE(big.ok());
    Status over = v.setMesh(m, *big);
    ASSERT_FALSE(over.ok());
    EXPECT_NE(over.message().find("maxResolution"), std::string::npos);
    // Capacities over the device's storage range.
    VoxInfo huge;
    huge.fragmentCapacity = 0xffffffffu;
    auto h = createVoxelizer(device(), huge);
    ASSERT_FALSE(h.ok());
    EXPECT_NE(h.message().find("fragmentCapacity"), std::string::npos);
}

TEST_F(VoxelizerTest, DynamicMeshReusesEverythingAndHostGraph) {
    // A host graph with the voxelizer's passes, executed over several frames
    // with a moving mesh; the stats ring reports without waiting.
    VoxInfo ci;
    ci.maxResolution = 32;
    ci.maxVertices = 4096;
    ci.maxTriangles = 4096;
    ci.fragmentCapacity = 1 << 16;
    ci.tileCapacity = 4096;
    ci.denseMaxVoxels = 32 * 32 * 32;
    ci.method = ConservativeMethod::GeometryShader;
    auto vr = createVoxelizer(device(), ci);
    ASSERT_TRUE(vr.ok()) << vr.message();
    Voxelizer& v = **vr;
    {
        // A graph built, run and dropped (a host rebuilding its graph): the
        // passes move to the next one.
        RenderGraph first(&device());
        ASSERT_OK(compileInto(v, first));
        auto g0 = gridFromBox({-2, -2, -2}, {2, 2, 2}, 32, 32, 32);
        ASSERT_TRUE(g0.ok());
        ASSERT_OK(v.setMesh(shapes::sphere({0, 0, 0}, 0.9f, 20, 10), *g0));
        ASSERT_OK(executeOnce(device(), first));
    }
    RenderGraph graph(&device());
    ASSERT_OK(compileInto(v, graph));
    {
        Status rec;
        ASSERT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) { rec = v.record(cmd); }));
        EXPECT_FALSE(rec.ok()) << "the passes are in a host graph";
        EXPECT_EQ(rec.code(), ErrorCode::InvalidState);
    }
    auto g = gridFromBox({-2, -2, -2}, {2, 2, 2}, 32, 32, 32);
    ASSERT_TRUE(g.ok());
    std::vector<uint32_t> neededPerFrame;
    uint32_t allocations = 0;
    for (int frame = 0; frame < 4; ++frame) {
        SCOPED_TRACE(frame);
        const TriangleMesh m = shapes::sphere({-0.8f + 0.5f * frame, 0.1f * frame, 0}, 0.9f, 20, 10);
        ASSERT_OK(v.setMesh(m, *g));
        ASSERT_OK(executeOnce(device(), graph));
        auto read = readFrame(v, v.readStats().value());
        ASSERT_TRUE(read.ok()) << read.message();
        const Frame& f = *read;
        expectConservative(m, *g, f);
        expectOctreeMatches(f);
        // Dense grid = the voxel set.
        auto dense = v.readDenseGrid();
        ASSERT_TRUE(dense.ok()) << dense.message();
        std::vector<uint32_t> denseKeys;
        for (uint32_t z = 0; z < 32; ++z)
            for (uint32_t y = 0; y < 32; ++y)
                for (uint32_t x = 0; x < 32; ++x) {
                    const float val = (*dense)[(size_t(z) * 32 + y) * 32 + x];
                    ASSERT_TRUE(val == 0.f || val == 1.f);
                    if (val == 1.f) denseKeys.push_back(ref::key(x, y, z));
                }
        EXPECT_EQ(denseKeys, f.keys);
        neededPerFrame.push_back(f.stats.fragmentsNeeded);
        // Nothing is created per frame (read-back buffers are freed again).
        if (frame == 0) allocations = device().allocator().stats().liveAllocations;
        EXPECT_EQ(device().allocator().stats().liveAllocations, allocations);
        // Delayed stats: frame - (framesInFlight) once available, in the
        // voxelizer's numbering (the dropped graph ran its frame 0).
        auto late = v.latestStats();
        if (frame >= 1) {
            ASSERT_TRUE(late.has_value());
            EXPECT_EQ(late->frame, uint64_t(frame));
            EXPECT_EQ(late->fragmentsNeeded, neededPerFrame[frame - 1]);
        }
    }
    // GPU times of the voxelizer's passes, from the host graph, with the frame
    // in the voxelizer's numbering (every frame above has finished; the
    // rebuilt graph counts its own frames from 0).
    if (device().limits().timestampsSupported) {
        auto t = v.latestTimings();
        ASSERT_TRUE(t.has_value());
        EXPECT_EQ(t->frame, 4u);
        double sum = 0.0;
        for (const PassTiming& p : t->passes) {
            EXPECT_EQ(p.name.rfind("vox.", 0), 0u) << p.name;
            sum += p.milliseconds;
        }
        EXPECT_GT(t->passes.size(), 5u);
        EXPECT_DOUBLE_EQ(t->totalMs, sum);
    }
}

TEST_F(VoxelizerTest, HardwareConservativeWhenAvailable) {
    VoxInfo ci;
    ci.maxResolution = 64;
    ci.maxVertices = 4096;
    ci.maxTriangles = 4096;
    ci.fragmentCapacity = 1 << 18;
    ci.tileCapacity = 1 << 14;
    ci.method = ConservativeMethod::Hardware;
    auto v = createVoxelizer(device(), ci);
    if (!device().limits().conservativeRasterization) {
        // Lavapipe: no VK_EXT_conservative_rasterization; the error says so.
        ASSERT_FALSE(v.ok());
        EXPECT_NE(v.message().find("VK_EXT_conservative_rasterization"), std::string::npos) << v.message();
        ci.method = ConservativeMethod::Auto;
        auto a = createVoxelizer(device(), ci);
        ASSERT_TRUE(a.ok()) << a.message();
        EXPECT_FALSE((*a)->usesHardwareConservative());
        return;
    }
    ASSERT_TRUE(v.ok()) << v.message();
    EXPECT_TRUE((*v)->usesHardwareConservative());
    const TriangleMesh m = shapes::sphere({0, 0, 0}, 1.0f, 32, 16);
    const VoxelGrid g = gridOf(m, 64);
    auto f = run(device(), **v, m, g);
    ASSERT_TRUE(f.ok()) << f.message();
    expectConservative(m, g, *f);
    expectOctreeMatches(*f);
}

TEST_F(VoxelizerTest, ExactFallbackFollowsShaderFloat64) {
    // The Float64 variants run exactly when asked for and the device has
    // shaderFloat64 (raster_spirv_test checks that only they declare Float64).
    for (bool want : {true, false})
        for (TrianglePath path : {TrianglePath::Raster, TrianglePath::Split}) {
            VoxInfo ci = depth7Info(256, 1 << 12, 1 << 10);
            ci.exactFallback = want;
            ci.trianglePath = path;
            auto v = createVoxelizer(device(), ci);
            ASSERT_TRUE(v.ok()) << v.message();
            EXPECT_EQ((*v)->usesExactFallback(), want && device().limits().shaderFloat64);
        }
}

TEST_F(VoxelizerTest, NearBoundarySphereIsConservative) {
    // A 96 x 48 UV sphere at R = 64: the float test alone emitted two voxels
    // outside the closed reference here (raster and compute path alike, on
    // lavapipe); the exact fallback decides those pairs as the reference does.
    if (!device().limits().shaderFloat64) GTEST_SKIP() << "no shaderFloat64: the float test alone decides";
    const TriangleMesh m = shapes::sphere({0, 0, 0}, 1.0f, 96, 48);
    const VoxelGrid g = gridOf(m, 64);
    for (TrianglePath path : {TrianglePath::Raster, TrianglePath::Split}) {
        SCOPED_TRACE(path == TrianglePath::Raster ? "raster" : "split");
        VoxInfo ci = depth7Info(1 << 14, 1 << 18, 1 << 14);
        ci.trianglePath = path;
        auto v = createVoxelizer(device(), ci);
        ASSERT_TRUE(v.ok()) << v.message();
        ASSERT_TRUE((*v)->usesExactFallback());
        auto f = run(device(), **v, m, g);
        ASSERT_TRUE(f.ok()) << f.message();
        expectConservative(m, g, *f);
        EXPECT_EQ(f->fragments.size(), closedPairCount(m, g)) << "every pair decided as the closed reference decides";
        expectOctreeMatches(*f);
    }
}

TEST_F(VoxelizerTest, BenchKnotAt512IsConservative) {
    // The bench's knot (shapes::byName("knot"), 24 576 triangles) at R = 512,
    // default split: with the float test alone voxel (29,277,156) of
    // triangle 18006 was outside the closed reference on lavapipe (one pair
    // of 1.57 M); the exact fallback drops it.
    if (!device().limits().shaderFloat64) GTEST_SKIP() << "no shaderFloat64: the float test alone decides";
    const TriangleMesh m = shapes::byName("knot");
    const VoxelGrid g = gridOf(m, 512);
    VoxInfo ci = createInfo(512, 1 << 15, 1 << 21, 1 << 19);
    auto v = createVoxelizer(device(), ci);
    ASSERT_TRUE(v.ok()) << v.message();
    auto f = run(device(), **v, m, g);
    ASSERT_TRUE(f.ok()) << f.message();
    EXPECT_EQ(f->keys.size(), 1005744u);
    expectConservative(m, g, *f);
    EXPECT_EQ(f->fragments.size(), closedPairCount(m, g)) << "every pair decided as the closed reference decides";
}

TEST_F(VoxelizerTest, Resolution1024UsesTheFullDepth) {
    // Depth 10: a torus in the far corner of a 1024^3 grid, so every
    // coordinate bit is exercised.
    VoxInfo ci = createInfo(1024, 4096, 1 << 18, 1 << 15);
    auto v = createVoxelizer(device(), ci);
    ASSERT_TRUE(v.ok()) << v.message();
    EXPECT_EQ((*v)->octreeDepth(), 10u);
    auto g = gridFromBox({0, 0, 0}, {1024, 1024, 1024}, 1024, 1024, 1024);
    ASSERT_TRUE(g.ok());
    const TriangleMesh m = shapes::torus({990.3f, 960.7f, 1000.1f}, 20.f, 6.f, 48, 16);
    auto f = run(device(), **v, m, *g);
    ASSERT_TRUE(f.ok()) << f.message();
    ASSERT_GT(f->keys.size(), 1000u);
    expectConservative(m, *g, *f);
    expectOctreeMatches(*f);
    uint32_t maxX = 0;
    for (uint32_t k : f->keys) maxX = std::max(maxX, k & 1023u);
    EXPECT_GE(maxX, 1012u) << "reaches the far corner";
}

TEST_F(VoxelizerTest, LaunchesOver65535GroupsFold) {
    // Over 65535 x 64 fragments: the indirect launches fold into two
    // dimensions. Five 1024 x 1024 planes, far apart so that a fragment
    // skipped by a wrong fold leaves a coarse node missing; the pool is too small for all
    // leaves (reported), but the coarse levels, built from every fragment,
    // must be complete.
    // OccupancyLevels: the pool runs out at the leaves while every coarser
    // level is complete. (TileHash enters leaf tiles first, so a pool this
    // far too small truncates it higher up; its fold is tested below.)
    const VoxInfo ci = planesInfo(1u << 23, 1u << 16, OctreeBuild::OccupancyLevels);
    auto v = createVoxelizer(device(), ci);
    ASSERT_TRUE(v.ok()) << v.message();
    auto g = gridFromBox({0, 0, 0}, {1024, 1024, 1024}, 1024, 1024, 1024);
    ASSERT_TRUE(g.ok());
    // Each plane in its own level-6 block.
    const TriangleMesh m = fullPlanes1024({100.4f, 300.4f, 500.4f, 700.4f, 900.4f});
    // No fragment read-back here: 5 Mi fragments on the host are slow under
    // the sanitizers, and the coarse node counts are known in closed form.
    auto stats = voxelizeOnce(device(), **v, m, *g);
    ASSERT_TRUE(stats.ok()) << stats.message();
    EXPECT_GT(stats->fragmentsStored, 65535u * 64u);
    EXPECT_FALSE(stats->fragmentOverflow);
    EXPECT_TRUE(stats->tileOverflow);
    // Level k+1 holds one tile per non-empty level-k node while the pool
    // lasts: (2^k)^2 nodes per plane, times the planes' distinct z blocks.
    for (uint32_t level = 0; level < 6; ++level) {
        std::set<uint32_t> zBlocks;
        for (int k = 0; k < 5; ++k) zBlocks.insert(uint32_t(100.4f + float(k) * 200.f) >> (10 - level));
        const uint32_t expected = (1u << level) * (1u << level) * uint32_t(zBlocks.size());
        EXPECT_EQ(stats->levelNodes[level + 1] / 8, expected) << "level " << level;
    }
    auto tree = (*v)->readOctree();
    ASSERT_TRUE(tree.ok()) << tree.message();
    for (const OctreeNode& n : tree->nodes) ASSERT_LT(n.child, ci.tileCapacity);
}

TEST_F(VoxelizerTest, TileHashLaunchesOver65535GroupsFold) {
    // The TileHash passes over fragments (keys, leaf) with over 65535 x 64
    // fragments: five coincident 1024 x 1024 planes in one slice, so every
    // leaf holds 5 fragments (10 on the diagonal both triangles of a plane
    // touch) and the pool holds the whole tree.
    const VoxInfo ci = planesInfo(1u << 23, 1u << 19, OctreeBuild::TileHash);
    auto v = createVoxelizer(device(), ci);
    ASSERT_TRUE(v.ok()) << v.message();
    auto g = gridFromBox({0, 0, 0}, {1024, 1024, 1024}, 1024, 1024, 1024);
    ASSERT_TRUE(g.ok());
    const TriangleMesh m = fullPlanes1024({100.4f, 100.4f, 100.4f, 100.4f, 100.4f});
    auto stats = voxelizeOnce(device(), **v, m, *g);
    ASSERT_TRUE(stats.ok()) << stats.message();
    EXPECT_GT(stats->fragmentsStored, 65535u * 64u);
    EXPECT_FALSE(stats->fragmentOverflow);
    EXPECT_FALSE(stats->tileOverflow);
    EXPECT_FALSE(stats->tilesNeededIsLowerBound);
    EXPECT_EQ(stats->leafFragments, stats->fragmentsStored);
    // Level k + 1 holds one tile per non-empty level-k node: (2^k)^2 of them.
    uint32_t tiles = 1;
    for (uint32_t level = 0; level < 10; ++level) {
        EXPECT_EQ(stats->levelNodes[level + 1] / 8, (1u << level) * (1u << level)) << "level " << level;
        tiles += (1u << level) * (1u << level);
    }
    EXPECT_EQ(stats->tilesNeeded, tiles);
    auto tree = (*v)->readOctree();
    ASSERT_TRUE(tree.ok()) << tree.message();
    for (const OctreeNode& n : tree->nodes) ASSERT_LT(n.child, ci.tileCapacity);
    const std::vector<LeafVoxel> leaves = extractLeaves(*tree);
    ASSERT_EQ(leaves.size(), 1024u * 1024u);
    size_t wrong = 0;
    for (const LeafVoxel& l : leaves) wrong += (l.count != 5 && l.count != 10) || l.z != 100;
    EXPECT_EQ(wrong, 0u);
}

TEST_F(VoxelizerTest, RootDescentBuildsTheSameTree) {
    // Crassin & Green 2012's traversal from the root (docs/algorithms.md)
    // every level (OctreeBuild::RootDescent), against the default
    // OccupancyLevels: the same octree.
    VoxInfo ci = depth7Info(1 << 14, 1 << 19, 1 << 15);
    ci.octreeBuild = OctreeBuild::RootDescent;
    auto root = createVoxelizer(device(), ci);
    ASSERT_TRUE(root.ok()) << root.message();
    TriangleMesh m = shapes::torusKnot({0, 0, 0}, 1.0f, 0.2f, 2, 3, 128, 12);
    shapes::colorUniform(m, packRGBA8(10, 20, 30));
    const VoxelGrid g = gridOf(m, 96);
    auto a = run(device(), **root, m, g);
    ASSERT_TRUE(a.ok()) << a.message();
    expectOctreeMatches(*a);
    auto b = run(device(), shared(), m, g);
    ASSERT_TRUE(b.ok()) << b.message();
    EXPECT_EQ(a->keys, b->keys);
    EXPECT_EQ(a->stats.tilesNeeded, b->stats.tilesNeeded);
    std::vector<uint32_t> la, lb;
    for (const LeafVoxel& l : extractLeaves(a->tree)) la.insert(la.end(), {l.x, l.y, l.z, l.count, l.color});
    for (const LeafVoxel& l : extractLeaves(b->tree)) lb.insert(lb.end(), {l.x, l.y, l.z, l.count, l.color});
    EXPECT_EQ(la, lb);
}

TEST_F(VoxelizerTest, TreeBuildRunsOverTheLeavesParentsOnce) {
    // The tree build's passes run over the occupied cells one level above the
    // leaves (a Morton bitmap set per fragment, then listed) instead of over
    // every fragment. Each build, at depth 7 on a non-cubic grid and at depth
    // 10 in the far corner (every Morton bit): the list holds each distinct
    // parent of the fragments' voxels once, and the tree matches the
    // fragments and the CPU reference.
    struct Case {
        uint32_t res;
        OctreeBuild build;
    };
    for (const Case c : {Case{128, OctreeBuild::OccupancyLevels}, Case{128, OctreeBuild::RootDescent},
                         Case{128, OctreeBuild::TileHash}, Case{1024, OctreeBuild::OccupancyLevels},
                         Case{1024, OctreeBuild::TileHash}}) {
        SCOPED_TRACE(std::to_string(c.res) + (c.build == OctreeBuild::TileHash      ? " tile hash"
                                              : c.build == OctreeBuild::RootDescent ? " root descent"
                                                                                    : " occupancy levels"));
        VoxInfo ci = createInfo(c.res, 1 << 14, 1 << 19, 1 << 15);
        ci.octreeBuild = c.build;
        auto v = createVoxelizer(device(), ci);
        ASSERT_TRUE(v.ok()) << v.message();
        TriangleMesh m;
        VoxelGrid g;
        if (c.res == 128) {
            m = shapes::torusKnot({0, 0, 0}, 1.0f, 0.2f, 2, 3, 128, 12);
            g = gridOf(m, 100);
        } else {
            m = shapes::torus({990.3f, 960.7f, 1000.1f}, 20.f, 6.f, 48, 16);
            g = gridFromBox({0, 0, 0}, {1024, 1024, 1024}, 1024, 1024, 1024).value();
        }
        shapes::colorByPosition(m);
        auto f = run(device(), **v, m, g);
        ASSERT_TRUE(f.ok()) << f.message();
        expectConservative(m, g, *f);
        expectOctreeMatches(*f);
        std::vector<uint32_t> parents;
        for (uint32_t k : f->keys) parents.push_back((k >> 1) & 0x1ff7fdffu);
        std::sort(parents.begin(), parents.end());
        parents.erase(std::unique(parents.begin(), parents.end()), parents.end());
        EXPECT_EQ(f->stats.occupiedCells, parents.size());
        const uint32_t depth = (*v)->octreeDepth();
        EXPECT_EQ(f->stats.levelNodes[depth] / 8, parents.size()) << "one leaf tile per occupied cell";
        EXPECT_EQ(f->stats.leafFragments, f->fragments.size());
    }
}

TEST_F(VoxelizerTest, SubgroupAppendGivesTheSameFragments) {
    // One atomic per subgroup instead of per fragment in the raster pass
    // (where the device supports it): the same (voxel, triangle) pairs,
    // between the open and closed references, and the same leaves.
    VoxInfo ci = depth7Info(1 << 14, 1 << 19, 1 << 15);
    ci.subgroupAppend = true;
    ci.trianglePath = TrianglePath::Raster; // the append is the raster's
    auto v = createVoxelizer(device(), ci);
    ASSERT_TRUE(v.ok()) << v.message();
    TriangleMesh m = shapes::torusKnot({0, 0, 0}, 1.0f, 0.2f, 2, 3, 128, 12);
    shapes::colorByPosition(m);
    const VoxelGrid g = gridOf(m, 100);
    for (VoxelMode mode : {VoxelMode::Conservative, VoxelMode::Thin}) {
        auto a = run(device(), **v, m, g, mode);
        ASSERT_TRUE(a.ok()) << a.message();
        auto b = run(device(), shared(), m, g, mode);
        ASSERT_TRUE(b.ok()) << b.message();
        if (mode == VoxelMode::Conservative) expectConservative(m, g, *a);
        expectOctreeMatches(*a);
        auto pairs = [](const Frame& f) {
            std::vector<uint64_t> p;
            for (const VoxelFragment& x : f.fragments) p.push_back((uint64_t(x.triangle) << 32) | fragKey(x));
            std::sort(p.begin(), p.end());
            return p;
        };
        EXPECT_EQ(pairs(*a), pairs(*b));
        // The records group a cell's voxels differently (raster columns,
        // compute boxes); the pairs they hold are the same.
        EXPECT_EQ(a->stats.leafFragments, b->stats.leafFragments);
    }
}

// Every node reachable from the root, keyed by (level, coordinates): count,
// colour, normal sums and whether it has children.
std::map<std::pair<uint32_t, uint32_t>, std::vector<int64_t>> nodesByCoord(const OctreeSnapshot& t) {
    std::map<std::pair<uint32_t, uint32_t>, std::vector<int64_t>> out;
    std::vector<std::pair<uint32_t, uint32_t>> stack{{0, 0}};
    while (!stack.empty()) {
        auto [n, level] = stack.back();
        stack.pop_back();
        const OctreeNode& x = t.nodes[n];
        out[{level, x.coord}] = {x.count, x.color, x.normal[0], x.normal[1], x.normal[2], x.child != 0};
        if (x.child != 0)
            for (uint32_t c = 0; c < 8; ++c) stack.push_back({x.child * 8 + c, level + 1});
    }
    return out;
}

// Two builds' trees of the same fragments: the same leaf fragments, tile
// need, per-level node counts and node values (`between`: the variants).
void expectSameOctree(const Frame& a, const Frame& b, const char* between) {
    EXPECT_EQ(a.stats.leafFragments, b.stats.leafFragments);
    EXPECT_EQ(a.stats.tilesNeeded, b.stats.tilesNeeded);
    for (int l = 0; l < 11; ++l) EXPECT_EQ(a.stats.levelNodes[l], b.stats.levelNodes[l]) << "level " << l;
    EXPECT_TRUE(nodesByCoord(a.tree) == nodesByCoord(b.tree)) << "node values differ between the " << between;
}

TEST_F(VoxelizerTest, TileHashBuildMatchesOccupancyLevelsBitForBit) {
    // The tile hash build (one pass over the cells, one over the tiles)
    // against the default OccupancyLevels build (occupancy bitmaps, pointers
    // allocated level by level): same leaves with the same merged values (count, colour,
    // normal sums), the same per-level node counts and needed sizes, and the
    // same values at every interior node, compared by coordinates (tile
    // indices are allocation order and not part of the contract).
    VoxInfo ci = depth7Info(1 << 14, 1 << 19, 1 << 15);
    ci.octreeBuild = OctreeBuild::OccupancyLevels;
    auto levels = createVoxelizer(device(), ci);
    ASSERT_TRUE(levels.ok()) << levels.message();
    ci.octreeBuild = OctreeBuild::TileHash;
    auto hash = createVoxelizer(device(), ci);
    ASSERT_TRUE(hash.ok()) << hash.message();
    TriangleMesh m = shapes::torusKnot({0, 0, 0}, 1.0f, 0.2f, 2, 3, 128, 12);
    shapes::colorByPosition(m);
    // A grid that is not a power of two and not cubic.
    const VoxelGrid g = gridOf(m, 100);
    for (VoxelMode mode : {VoxelMode::Conservative, VoxelMode::Thin}) {
        auto a = run(device(), **levels, m, g, mode);
        ASSERT_TRUE(a.ok()) << a.message();
        auto b = run(device(), **hash, m, g, mode);
        ASSERT_TRUE(b.ok()) << b.message();
        expectOctreeMatches(*a);
        expectOctreeMatches(*b);
        EXPECT_EQ(a->keys, b->keys);
        EXPECT_EQ(a->stats.tilesNeeded, b->stats.tilesNeeded);
        for (int l = 0; l < 11; ++l) EXPECT_EQ(a->stats.levelNodes[l], b->stats.levelNodes[l]) << "level " << l;
        const auto na = nodesByCoord(a->tree), nb = nodesByCoord(b->tree);
        EXPECT_EQ(na.size(), nb.size());
        EXPECT_TRUE(na == nb) << "node values differ between the builds";
    }
}

// Every leaf reachable from the root holds exactly the merge of the stored
// fragments of its voxel (count, rounded mean colour, fixed-point normal
// sum), leafFragments is their total, and every reachable parent of leaves
// is the merge of its children (count, colour). Holds for truncated trees
// and a full fragment list too, whose contents depend on the GPU's order.
void expectLeavesMergeTheirFragments(const Frame& f) {
    struct Sum {
        std::vector<uint32_t> colours;
        int32_t n[3] = {0, 0, 0};
    };
    std::map<uint32_t, Sum> want;
    for (const VoxelFragment& x : f.fragments) {
        Sum& s = want[fragKey(x)];
        s.colours.push_back(x.color);
        for (int k = 0; k < 3; ++k) {
            const int32_t q = int32_t((x.packedNormal >> (10 * k)) & 1023u) << 22 >> 22; // sign-extend
            s.n[k] += int32_t(std::round(float(q) / 511.0f * 1024.0f));
        }
    }
    uint64_t merged = 0;
    size_t bad = 0;
    for (const LeafVoxel& l : extractLeaves(f.tree)) {
        auto it = want.find(ref::key(l.x, l.y, l.z));
        ASSERT_NE(it, want.end()) << "leaf without fragments";
        const Sum& s = it->second;
        merged += l.count;
        if ((l.count != s.colours.size() || l.color != ref::averageRGB(s.colours) || l.normal[0] != s.n[0] ||
             l.normal[1] != s.n[1] || l.normal[2] != s.n[2]) &&
            ++bad <= 5)
            ADD_FAILURE() << "leaf (" << l.x << "," << l.y << "," << l.z << "): count " << l.count << " of "
                          << s.colours.size() << ", colour " << std::hex << l.color << " of "
                          << ref::averageRGB(s.colours) << std::dec << ", normal " << l.normal[0] << "," << l.normal[1]
                          << "," << l.normal[2] << " of " << s.n[0] << "," << s.n[1] << "," << s.n[2];
    }
    EXPECT_EQ(bad, 0u);
    EXPECT_EQ(f.stats.leafFragments, merged);
    // Parents of leaves: the launch that writes them is the one under test.
    const OctreeSnapshot& t = f.tree;
    std::vector<std::pair<uint32_t, uint32_t>> stack{{0, 0}};
    while (!stack.empty()) {
        auto [n, level] = stack.back();
        stack.pop_back();
        if (t.nodes[n].child == 0) continue;
        if (level + 1 < t.depth) {
            for (uint32_t c = 0; c < 8; ++c) stack.push_back({t.nodes[n].child * 8 + c, level + 1});
            continue;
        }
        uint32_t sum = 0, filled = 0, rgb[3] = {0, 0, 0};
        for (uint32_t c = 0; c < 8; ++c) {
            const OctreeNode& ch = t.nodes[t.nodes[n].child * 8 + c];
            if (ch.count == 0) continue;
            sum += ch.count;
            ++filled;
            for (int k = 0; k < 3; ++k) rgb[k] += (ch.color >> (8 * k)) & 255u;
        }
        if (filled == 0) continue;
        EXPECT_EQ(t.nodes[n].count, sum) << "parent of leaves " << n;
        for (int k = 0; k < 3; ++k)
            EXPECT_EQ((t.nodes[n].color >> (8 * k)) & 255u, (2 * rgb[k] + filled) / (2 * filled))
                << "parent of leaves " << n;
    }
}

TEST_F(VoxelizerTest, PerCellLeafMergeMatchesAtomicBitForBit) {
    // LeafMerge::PerCell (fragments counting-sorted by their leaves' parent
    // cell, one thread per cell writes its leaves and their parent) against
    // the per-fragment atomics it replaced: every node reachable from the
    // root identical, normal sums included (expectOctreeMatches checks counts
    // and colours only), in each tree build. With a truncated tree (pool far
    // too small, TileHash's hash full) or a full fragment list, which
    // tiles or fragments make it depends on the GPU's order, so each run is
    // checked against its own stored fragments instead.
    TriangleMesh m = shapes::torusKnot({0, 0, 0}, 1.0f, 0.2f, 2, 3, 128, 12);
    shapes::colorByPosition(m);
    struct Case {
        const char* name;
        OctreeBuild build;
        uint32_t resolution, fragments, tiles;
        bool underGpuAv; // also run under GPU-AV (the gpuav label; a few cases, conservative only)
    };
    const Case cases[] = {
        {"occupancy levels", OctreeBuild::OccupancyLevels, 100, 1 << 19, 1 << 15, true},
        {"root descent", OctreeBuild::RootDescent, 100, 1 << 19, 1 << 15, false},
        {"tile hash", OctreeBuild::TileHash, 100, 1 << 19, 1 << 15, false},
        {"depth 1", OctreeBuild::OccupancyLevels, 2, 1 << 19, 1 << 15, false},
        {"depth 1, tile hash", OctreeBuild::TileHash, 2, 1 << 19, 1 << 15, false},
        {"occupancy levels, last level short", OctreeBuild::OccupancyLevels, 100, 1 << 19, 0, false},
        {"root descent, last level short", OctreeBuild::RootDescent, 100, 1 << 19, 0, false},
        {"tile hash, leaf tiles short", OctreeBuild::TileHash, 100, 1 << 19, 0, true},
        {"occupancy levels, pool of 50 tiles", OctreeBuild::OccupancyLevels, 100, 1 << 19, 50, false},
        {"tile hash, hash full", OctreeBuild::TileHash, 128, 1 << 19, 5, true},
        {"fragment list full", OctreeBuild::OccupancyLevels, 100, 20000, 1 << 15, true},
        {"fragment list full, tile hash", OctreeBuild::TileHash, 100, 20000, 1 << 15, false},
    };
    const bool gpuAv = test::gpuAssistedValidationRequested();
    // One cell holding every fragment (depth 1): more than one merge thread
    // takes (VOX_MERGE_MAX_CELL_FRAGMENTS; lavapipe cut its loop at 65532 of
    // ~130k before the limit existed), so the frame merges per fragment.
    if (!gpuAv) {
        SCOPED_TRACE("one cell, 100k triangles");
        VoxInfo ci = depth7Info(1 << 17, 1 << 21, 1 << 10);
        ci.maxResolution = 2;
        const TriangleMesh dense = shapes::denseKnot({0, 0, 0}, 0.7f, 100000);
        for (LeafMerge merge : {LeafMerge::PerCell, LeafMerge::Atomic}) {
            ci.leafMerge = merge;
            auto v = createVoxelizer(device(), ci);
            ASSERT_TRUE(v.ok()) << v.message();
            auto f = run(device(), **v, dense, gridOf(dense, 2));
            ASSERT_TRUE(f.ok()) << f.message();
            EXPECT_GT(f->fragments.size(), 100000u);
            EXPECT_GT(f->stats.fragmentsStored, 16384u); // VOX_MERGE_MAX_CELL_FRAGMENTS records in the one cell
            EXPECT_FALSE(f->stats.fragmentOverflow);
            expectLeavesMergeTheirFragments(*f);
            // PerCell saw the cell over the merge thread's limit and merged per fragment instead.
            VoxCountersData counters{};
            ASSERT_TRUE(readBuffer(device(), (*v)->counterBuffer(), &counters, sizeof(counters)).ok());
            EXPECT_EQ(counters.cellsOverMergeLimit, merge == LeafMerge::PerCell ? 1u : 0u);
            EXPECT_EQ(counters.cellCount, 1u);
        }
    }
    uint32_t fullTiles = 0; // tiles of the complete tree at R = 100
    for (const Case& c : cases) {
        if (gpuAv && !c.underGpuAv) continue;
        SCOPED_TRACE(c.name);
        // tiles 0: the complete tree's tiles less 100, so only leaf tiles miss.
        const uint32_t tiles = c.tiles != 0 ? c.tiles : fullTiles - 100;
        VoxInfo ci = depth7Info(1 << 14, c.fragments, tiles);
        if (c.resolution <= 2) ci.maxResolution = 2;
        ci.octreeBuild = c.build;
        ci.leafMerge = LeafMerge::PerCell;
        auto perCell = createVoxelizer(device(), ci);
        ASSERT_TRUE(perCell.ok()) << perCell.message();
        ci.leafMerge = LeafMerge::Atomic;
        auto atomic = createVoxelizer(device(), ci);
        ASSERT_TRUE(atomic.ok()) << atomic.message();
        const VoxelGrid g = gridOf(m, c.resolution);
        const bool complete = c.tiles >= (1u << 15) && c.fragments >= (1u << 19);
        for (VoxelMode mode : {VoxelMode::Conservative, VoxelMode::Thin}) {
            if (gpuAv && mode == VoxelMode::Thin) continue;
            auto a = run(device(), **perCell, m, g, mode);
            ASSERT_TRUE(a.ok()) << a.message();
            auto b = run(device(), **atomic, m, g, mode);
            ASSERT_TRUE(b.ok()) << b.message();
            expectLeavesMergeTheirFragments(*a);
            expectLeavesMergeTheirFragments(*b);
            // (tiles 0 is sized for the conservative tree; the thin one is smaller)
            if (c.tiles != 0 || mode == VoxelMode::Conservative) {
                EXPECT_EQ(a->stats.tileOverflow, !complete && c.fragments >= (1u << 19));
            }
            EXPECT_EQ(a->stats.fragmentOverflow, c.fragments < (1u << 19));
            if (!complete) continue;
            if (c.resolution == 100 && mode == VoxelMode::Conservative) fullTiles = a->stats.tilesNeeded;
            expectOctreeMatches(*a);
            EXPECT_EQ(a->keys, b->keys);
            EXPECT_EQ(a->stats.leafFragments, b->stats.leafFragments);
            EXPECT_EQ(a->stats.tilesNeeded, b->stats.tilesNeeded);
            for (int l = 0; l < 11; ++l) EXPECT_EQ(a->stats.levelNodes[l], b->stats.levelNodes[l]) << "level " << l;
            const auto na = nodesByCoord(a->tree), nb = nodesByCoord(b->tree);
            EXPECT_EQ(na.size(), nb.size());
            EXPECT_TRUE(na == nb) << "node values differ between the merges";
            size_t withNormal = 0;
            for (const LeafVoxel& l : extractLeaves(a->tree))
                withNormal += l.normal[0] != 0 || l.normal[1] != 0 || l.normal[2] != 0;
            EXPECT_GT(withNormal, 0u) << "the mesh gives no normals to compare";
        }
    }
}

TEST_F(VoxelizerTest, TexelReadsMatchStorageReadsBitForBit) {
    // The passes that read fragments, cells and the leaf sort as texels and
    // the counters as a uniform block (VoxelizerCreateInfo::texelReads, the
    // default where maxTexelBufferElements covers the buffers) against their
    // storage-buffer variants: every node reachable from the root, the
    // fragment set, the counters and the per-level counts identical, in each
    // tree build and both merges. Where a run's contents depend on the GPU's
    // order (pool or fragment list too small), each run is checked against
    // its own stored fragments.
    TriangleMesh m = shapes::torusKnot({0, 0, 0}, 1.0f, 0.2f, 2, 3, 128, 12);
    shapes::colorByPosition(m);
    struct Case {
        const char* name;
        OctreeBuild build;
        LeafMerge merge;
        uint32_t resolution, fragments, tiles;
        bool underGpuAv; // also run under GPU-AV (the gpuav label; conservative only)
    };
    const Case cases[] = {
        {"occupancy levels", OctreeBuild::OccupancyLevels, LeafMerge::PerCell, 100, 1 << 19, 1 << 15, true},
        {"root descent", OctreeBuild::RootDescent, LeafMerge::PerCell, 100, 1 << 19, 1 << 15, false},
        {"tile hash", OctreeBuild::TileHash, LeafMerge::PerCell, 100, 1 << 19, 1 << 15, true},
        {"atomic merge", OctreeBuild::OccupancyLevels, LeafMerge::Atomic, 100, 1 << 19, 1 << 15, false},
        {"depth 1", OctreeBuild::OccupancyLevels, LeafMerge::PerCell, 2, 1 << 19, 1 << 15, false},
        {"pool of 50 tiles", OctreeBuild::OccupancyLevels, LeafMerge::PerCell, 100, 1 << 19, 50, false},
        {"fragment list full", OctreeBuild::OccupancyLevels, LeafMerge::PerCell, 100, 20000, 1 << 15, true},
    };
    const bool gpuAv = test::gpuAssistedValidationRequested();
    for (const Case& c : cases) {
        if (gpuAv && !c.underGpuAv) continue;
        SCOPED_TRACE(c.name);
        VoxInfo ci = depth7Info(1 << 14, c.fragments, c.tiles);
        if (c.resolution <= 2) ci.maxResolution = 2;
        ci.octreeBuild = c.build;
        ci.leafMerge = c.merge;
        ASSERT_TRUE(texelReadsFit(ci, device().limits().maxTexelBufferElements))
            << "the case needs a device whose texel limit covers its buffers";
        auto texel = createVoxelizer(device(), ci);
        ASSERT_TRUE(texel.ok()) << texel.message();
        EXPECT_TRUE(voxel::testing::usesTexelReads(**texel));
        ci.texelReads = false;
        auto storage = createVoxelizer(device(), ci);
        ASSERT_TRUE(storage.ok()) << storage.message();
        EXPECT_FALSE(voxel::testing::usesTexelReads(**storage));
        const VoxelGrid g = gridOf(m, c.resolution);
        const bool complete = c.tiles >= (1u << 15) && c.fragments >= (1u << 19);
        for (VoxelMode mode : {VoxelMode::Conservative, VoxelMode::Thin}) {
            if (gpuAv && mode == VoxelMode::Thin) continue;
            auto a = run(device(), **texel, m, g, mode);
            ASSERT_TRUE(a.ok()) << a.message();
            auto b = run(device(), **storage, m, g, mode);
            ASSERT_TRUE(b.ok()) << b.message();
            expectLeavesMergeTheirFragments(*a);
            expectLeavesMergeTheirFragments(*b);
            EXPECT_EQ(a->stats.fragmentsNeeded, b->stats.fragmentsNeeded);
            EXPECT_EQ(a->stats.tileOverflow, b->stats.tileOverflow);
            if (c.fragments < (1u << 19)) continue; // which fragments the full list kept is the GPU's order
            EXPECT_EQ(a->keys, b->keys);
            EXPECT_EQ(a->stats.occupiedCells, b->stats.occupiedCells);
            if (!complete) continue;
            expectOctreeMatches(*a);
            expectSameOctree(*a, *b, "reads");
            VoxCountersData ca{}, cb{};
            ASSERT_TRUE(readBuffer(device(), (*texel)->counterBuffer(), &ca, sizeof(ca)).ok());
            ASSERT_TRUE(readBuffer(device(), (*storage)->counterBuffer(), &cb, sizeof(cb)).ok());
            EXPECT_EQ(ca.sortedFragments, cb.sortedFragments);
            EXPECT_EQ(ca.cellsOverMergeLimit, cb.cellsOverMergeLimit);
            EXPECT_EQ(ca.cellCount, cb.cellCount);
        }
    }
}

TEST_F(VoxelizerTest, WideStoresMatchNarrowStoresBitForBit) {
    // The 64-bit store variants (testing::Knobs::wideStores, where the
    // device has shaderInt64: the per-cell merge's leaf stores and the
    // small-triangle records) against the 32-bit ones: the same fragment
    // set, counters, per-level counts and node values, with texel and with
    // storage reads (each has a wide merge variant), both modes.
    if (!device().limits().shaderInt64) GTEST_SKIP() << "the device has no shaderInt64";
    TriangleMesh m = shapes::torusKnot({0, 0, 0}, 1.0f, 0.2f, 2, 3, 128, 12);
    shapes::colorByPosition(m);
    const bool gpuAv = test::gpuAssistedValidationRequested();
    for (bool texel : {true, false}) {
        if (gpuAv && !texel) continue;
        SCOPED_TRACE(texel ? "texel reads" : "storage reads");
        VoxInfo ci = depth7Info(1 << 14, 1 << 19, 1 << 15);
        ci.texelReads = texel;
        ci.wideStores = true;
        auto wide = createVoxelizer(device(), ci);
        ASSERT_TRUE(wide.ok()) << wide.message();
        EXPECT_TRUE(voxel::testing::usesWideStores(**wide));
        ci.wideStores = false;
        auto narrow = createVoxelizer(device(), ci);
        ASSERT_TRUE(narrow.ok()) << narrow.message();
        EXPECT_FALSE(voxel::testing::usesWideStores(**narrow));
        const VoxelGrid g = gridOf(m, 100);
        for (VoxelMode mode : {VoxelMode::Conservative, VoxelMode::Thin}) {
            if (gpuAv && mode == VoxelMode::Thin) continue;
            auto a = run(device(), **wide, m, g, mode);
            ASSERT_TRUE(a.ok()) << a.message();
            auto b = run(device(), **narrow, m, g, mode);
            ASSERT_TRUE(b.ok()) << b.message();
            ASSERT_GT(a->keys.size(), 1000u);
            expectLeavesMergeTheirFragments(*a);
            expectLeavesMergeTheirFragments(*b);
            expectOctreeMatches(*a);
            EXPECT_EQ(a->keys, b->keys);
            EXPECT_EQ(a->stats.fragmentsNeeded, b->stats.fragmentsNeeded);
            EXPECT_EQ(a->stats.occupiedCells, b->stats.occupiedCells);
            expectSameOctree(*a, *b, "stores");
        }
    }
}

TEST_F(VoxelizerTest, MeshTexelReadsMatchTheStorageFallbackBitForBit) {
    // The small-triangle pass reads the mesh through a texel view while the
    // mesh buffer fits the texel limit (Knobs::meshTexelLimit stands in for
    // maxTexelBufferElements), else its storage-read variant: one voxelizer
    // whose mesh outgrows the limit at setMesh (auto capacities start at 1024
    // vertices and triangles, the knot has 1536 and 3072), one over it from
    // creation, one under it throughout: the same fragment set, counters,
    // per-level counts and node values, both modes.
    TriangleMesh m = shapes::torusKnot({0, 0, 0}, 1.0f, 0.2f, 2, 3, 128, 12);
    shapes::colorByPosition(m);
    const bool gpuAv = test::gpuAssistedValidationRequested();
    VoxInfo ci = depth7Info(0, 1 << 19, 1 << 15); // 0: vertices and triangles grow with the mesh
    auto texel = createVoxelizer(device(), ci);
    ASSERT_TRUE(texel.ok()) << texel.message();
    ci.meshTexelLimit = 1u << 15; // over the start's mesh buffer, under the knot's
    auto outgrown = createVoxelizer(device(), ci);
    ASSERT_TRUE(outgrown.ok()) << outgrown.message();
    EXPECT_TRUE(voxel::testing::usesMeshTexelReads(**outgrown)) << "the start's mesh buffer fits 2^15 words";
    ci.meshTexelLimit = 1;
    auto storage = createVoxelizer(device(), ci);
    ASSERT_TRUE(storage.ok()) << storage.message();
    EXPECT_FALSE(voxel::testing::usesMeshTexelReads(**storage));
    const VoxelGrid g = gridOf(m, 100);
    for (VoxelMode mode : {VoxelMode::Conservative, VoxelMode::Thin}) {
        if (gpuAv && mode == VoxelMode::Thin) continue;
        auto a = run(device(), **texel, m, g, mode);
        ASSERT_TRUE(a.ok()) << a.message();
        EXPECT_TRUE(voxel::testing::usesMeshTexelReads(**texel));
        ASSERT_GT(a->keys.size(), 1000u);
        expectOctreeMatches(*a);
        for (Voxelizer* v : {outgrown->get(), storage->get()}) {
            auto b = run(device(), *v, m, g, mode);
            ASSERT_TRUE(b.ok()) << b.message();
            EXPECT_FALSE(voxel::testing::usesMeshTexelReads(*v)) << "the knot's mesh buffer exceeds the limit";
            EXPECT_EQ(a->keys, b->keys);
            EXPECT_EQ(a->stats.fragmentsNeeded, b->stats.fragmentsNeeded);
            EXPECT_EQ(a->stats.occupiedCells, b->stats.occupiedCells);
            expectSameOctree(*a, *b, "reads");
        }
    }
}

TEST(VoxelizerPlan, TexelReadsFitTheDeviceLimit) {
    // Views: fragments (1 RGBA32UI texel each), the leaf sort (2 RG32UI per
    // fragment of capacity), the cursors (1 R32UI each) and the cells buffer
    // (bitmap, its list indices, the cell list, the level bitmaps; R32UI).
    VoxInfo ci;
    ci.maxResolution = 16; // depth 4: a cell bitmap of 16 words
    ci.fragmentCapacity = 30000;
    EXPECT_TRUE(texelReadsFit(ci, 65536)); // Vulkan's minimum limit
    ci.fragmentCapacity = 32768;
    EXPECT_TRUE(texelReadsFit(ci, 65536)); // sort: 65536 texels; cells: 2 x 16 + 32768 + 4 words
    ci.fragmentCapacity = 32769;
    EXPECT_FALSE(texelReadsFit(ci, 65536)) << "the leaf sort needs 65538 texels";
    ci.fragmentCapacity = 1024;
    ci.maxResolution = 512; // depth 9: cell bitmap and list indices 2 x 512 Ki words
    EXPECT_FALSE(texelReadsFit(ci, 65536));
    EXPECT_TRUE(texelReadsFit(ci, 1u << 27)); // lavapipe, desktop GPUs
    ci.fragmentCapacity = 8u << 20;           // what a 128 MiB storage range allows
    ci.maxResolution = 1024;
    EXPECT_TRUE(texelReadsFit(ci, 1u << 27));
}

TEST_F(VoxelizerTest, RandomTriangleSoup) {
    // Triangles of every size and orientation, corners anywhere (also
    // outside the box): each (voxel, triangle) pair checked.
    auto g = gridFromBox({0, 0, 0}, {128, 128, 128}, 128, 128, 128);
    ASSERT_TRUE(g.ok());
    TriangleMesh m;
    uint32_t seed = 21;
    for (float size : {0.3f, 2.f, 9.f, 40.f})
        shapes::append(m, shapes::tinyTriangles({-5, -5, -5}, {133, 133, 133}, size, 250, seed++));
    auto f = run(device(), shared(), m, *g);
    ASSERT_TRUE(f.ok()) << f.message();
    expectConservative(m, *g, *f);
    expectOctreeMatches(*f);
}

TEST_F(VoxelizerTest, DenseGridAsASolidField) {
    // The bridge to the isosurface module: dense grid -> solid occupancy at
    // voxel centres. A closed sphere becomes a ball: every voxel whose centre
    // is inside the sphere is 1, every voxel clearly outside is 0.
    VoxInfo ci;
    ci.maxResolution = 32;
    ci.maxVertices = 4096;
    ci.maxTriangles = 4096;
    ci.fragmentCapacity = 1 << 16;
    ci.tileCapacity = 4096;
    ci.denseMaxVoxels = 32 * 32 * 32;
    ci.method = ConservativeMethod::GeometryShader;
    auto v = createVoxelizer(device(), ci);
    ASSERT_TRUE(v.ok()) << v.message();
    const TriangleMesh m = shapes::sphere({0, 0, 0}, 1.0f, 32, 16);
    auto g = gridFromBox({-1.25f, -1.25f, -1.25f}, {1.25f, 1.25f, 1.25f}, 32, 32, 32);
    ASSERT_TRUE(g.ok());
    auto f = run(device(), **v, m, *g);
    ASSERT_TRUE(f.ok()) << f.message();
    auto dense = (*v)->readDenseGrid();
    ASSERT_TRUE(dense.ok()) << dense.message();
    const std::vector<float> solid = solidOccupancy(*dense, *g);
    ASSERT_EQ(solid.size(), size_t(32 * 32 * 32));
    const SampleBounds b = voxelCentreBounds(*g);
    EXPECT_FLOAT_EQ(b.min[0], -1.25f + 2.5f / 64);
    size_t wrong = 0;
    for (uint32_t z = 0; z < 32; ++z)
        for (uint32_t y = 0; y < 32; ++y)
            for (uint32_t x = 0; x < 32; ++x) {
                const float px = b.min[0] + x * g->voxelSize[0], py = b.min[1] + y * g->voxelSize[1],
                            pz = b.min[2] + z * g->voxelSize[2];
                const float r = std::sqrt(px * px + py * py + pz * pz);
                const float val = solid[(size_t(z) * 32 + y) * 32 + x];
                // A voxel is 0.078 wide: beyond a voxel diagonal from the surface the answer is known.
                if (r < 1.0f - 0.14f && val != 1.f) ++wrong;
                if (r > 1.0f + 0.14f && val != 0.f) ++wrong;
            }
    EXPECT_EQ(wrong, 0u);
}

TEST_F(VoxelizerTest, MovingAverageColourMergeOfCrassinGreen) {
    // ColorMerge::MovingAverage is Crassin & Green 2012's compare-and-swap RGBA8 running
    // average: exact for a uniform colour, within (n+1)/4 per channel of the
    // exact mean for n mixed fragments, and the tree above it is built as usual.
    VoxInfo ci = createInfo(64, 1 << 14, 1 << 18, 1 << 15);
    ci.colorMerge = ColorMerge::MovingAverage;
    auto vox = createVoxelizer(device(), ci);
    ASSERT_TRUE(vox.ok()) << vox.message();

    TriangleMesh uniform = shapes::torus({0, 0, 0}, 1.0f, 0.4f, 48, 16);
    shapes::colorUniform(uniform, packRGBA8(200, 17, 93));
    auto u = run(device(), **vox, uniform, gridOf(uniform, 64));
    ASSERT_TRUE(u.ok()) << u.message();
    size_t leaves = 0;
    for (const LeafVoxel& l : extractLeaves(u->tree)) {
        ++leaves;
        EXPECT_EQ(l.color & 0xffffffu, packRGBA8(200, 17, 93) & 0xffffffu);
    }
    EXPECT_GT(leaves, 100u);

    TriangleMesh mixed = shapes::sphere({0.1f, -0.2f, 0.3f}, 1.0f, 40, 20);
    shapes::colorByPosition(mixed);
    auto m = run(device(), **vox, mixed, gridOf(mixed, 64));
    ASSERT_TRUE(m.ok()) << m.message();
    std::map<uint32_t, std::vector<uint32_t>> colours;
    for (const VoxelFragment& x : m->fragments) colours[fragKey(x)].push_back(x.color);
    size_t merged = 0, beyond = 0;
    for (const LeafVoxel& l : extractLeaves(m->tree)) {
        const auto& cs = colours[ref::key(l.x, l.y, l.z)];
        ASSERT_EQ(l.count, cs.size());
        const uint32_t mean = ref::averageRGB(cs);
        const double bound = (cs.size() + 1) / 4.0 + 0.5;
        for (int k = 0; k < 3; ++k) {
            const double got = (l.color >> (8 * k)) & 255u, want = (mean >> (8 * k)) & 255u;
            if (std::fabs(got - want) > bound) ++beyond;
        }
        merged += cs.size() > 1;
    }
    EXPECT_GT(merged, 100u) << "the mesh should put several fragments in many leaves";
    EXPECT_EQ(beyond, 0u);
}

TEST_F(VoxelizerTest, NodeArraysSetTheTileLimit) {
    // The node pool is one buffer per field (4 bytes per node each), so the
    // storage-buffer range bounds one array: range / 32 tiles, where the
    // former single buffer of 32-byte nodes allowed range / 256 (512 Ki tiles
    // on a 128 MiB range).
    EXPECT_EQ(kNodeBytes, 28u); // the former record: 32
    EXPECT_EQ(kNodeArrayCount, 7u);
    EXPECT_EQ(kNodeArrayBytes, 4u);
    constexpr uint64_t kMiB = 1ull << 20;
    EXPECT_EQ(maxTileCapacity(128 * kMiB), 4u << 20);
    EXPECT_EQ(maxTileCapacity(128 * kMiB, OctreeBuild::TileHash), 4u << 20); // hash: 8 Mi slots x 12 B = 96 MiB
    EXPECT_GT(maxTileCapacity(128 * kMiB), uint32_t(128 * kMiB / 256));
    EXPECT_EQ(maxTileCapacity(1 * kMiB), 32768u);
    EXPECT_EQ(maxTileCapacity(1 * kMiB, OctreeBuild::TileHash), 32768u); // 65536 slots x 12 B = 768 KiB
    EXPECT_EQ(maxTileCapacity(32ull << 30), (1u << 29) - 1);             // node indices fit 32 bits

    const uint64_t range = device().limits().maxStorageBufferRange;
    const uint32_t most = maxTileCapacity(range);
    VoxInfo ci;
    ci.maxResolution = 16;
    ci.maxVertices = 16;
    ci.maxTriangles = 16;
    ci.fragmentCapacity = 1024;
    ci.method = ConservativeMethod::GeometryShader;
    if (most < UINT32_MAX) {
        ci.tileCapacity = most + 1;
        auto over = createVoxelizer(device(), ci);
        ASSERT_FALSE(over.ok());
        EXPECT_EQ(over.status().code(), ErrorCode::DeviceLimit);
        EXPECT_NE(over.message().find("at most " + std::to_string(most) + " tiles"), std::string::npos)
            << over.message();
    }
    // Every node array is tileCapacity x 8 x 4 bytes.
    ci.tileCapacity = 1000;
    auto v = createVoxelizer(device(), ci);
    ASSERT_TRUE(v.ok()) << v.message();
    uint32_t arrays = 0;
    for (const auto& item : (*v)->memoryReport()) {
        if (item.name.rfind("vox.node", 0) != 0) continue;
        ++arrays;
        EXPECT_GE(item.bytes, 1000u * 8 * 4) << item.name;
        EXPECT_LT(item.bytes, 1000u * 8 * 32) << item.name;
    }
    EXPECT_EQ(arrays, kNodeArrayCount);
    EXPECT_EQ((*v)->nodeBuffer().handle(), (*v)->nodeArrayBuffer(NodeArray::Child).handle());
}

TEST_F(VoxelizerTest, PoolAboveTheFormerTileLimit) {
    // Two 1024 x 1024 planes in different level-1 blocks need 699 050 tiles,
    // more than the 524 288 (128 MiB / 256 bytes) a single buffer of 32-byte
    // nodes could hold on lavapipe. Both builds keep every tile (no
    // overflow), with the per-level counts in closed form, and give the same
    // leaves.
    const uint32_t tilesNeeded = 2 + 2 * ((1u << 20) - 4) / 3; // root tile + level-1 tile + 2 x sum 4^k, k = 1..9
    ASSERT_EQ(tilesNeeded, 699050u);
    ASSERT_GT(tilesNeeded, 524288u);
    auto g = gridFromBox({0, 0, 0}, {1024, 1024, 1024}, 1024, 1024, 1024);
    ASSERT_TRUE(g.ok());
    const TriangleMesh m = fullPlanes1024({100.4f, 900.4f});
    std::vector<LeafVoxel> leaves[2];
    for (int b = 0; b < 2; ++b) {
        const VoxInfo ci =
            planesInfo(1u << 22, tilesNeeded, b == 0 ? OctreeBuild::OccupancyLevels : OctreeBuild::TileHash);
        auto v = createVoxelizer(device(), ci);
        ASSERT_TRUE(v.ok()) << v.message();
        auto stats = voxelizeOnce(device(), **v, m, *g);
        ASSERT_TRUE(stats.ok()) << stats.message();
        EXPECT_FALSE(stats->fragmentOverflow);
        EXPECT_FALSE(stats->tileOverflow) << "build " << b;
        EXPECT_EQ(stats->tilesNeeded, tilesNeeded) << "build " << b;
        EXPECT_EQ(stats->leafFragments, stats->fragmentsStored);
        EXPECT_EQ(stats->levelNodes[1] / 8, 1u);
        for (uint32_t level = 1; level < 10; ++level)
            EXPECT_EQ(stats->levelNodes[level + 1] / 8, 2u << (2 * level)) << "level " << level << " build " << b;
        auto tree = (*v)->readOctree();
        ASSERT_TRUE(tree.ok()) << tree.message();
        ASSERT_EQ(tree->tilesAllocated, tilesNeeded);
        // Tiles beyond the former limit are linked and hold leaves.
        uint32_t highTiles = 0;
        for (const OctreeNode& n : tree->nodes) {
            ASSERT_LT(n.child, tilesNeeded);
            highTiles += n.child >= 524288u;
        }
        EXPECT_GT(highTiles, 100000u);
        leaves[b] = extractLeaves(*tree);
        ASSERT_EQ(leaves[b].size(), 2u * 1024u * 1024u);
        size_t wrong = 0;
        for (const LeafVoxel& l : leaves[b]) wrong += (l.count != 1 && l.count != 2) || (l.z != 100 && l.z != 900);
        EXPECT_EQ(wrong, 0u);
    }
    size_t differ = 0;
    for (size_t i = 0; i < leaves[0].size() && i < leaves[1].size(); ++i) {
        const LeafVoxel &a = leaves[0][i], &c = leaves[1][i];
        differ += a.x != c.x || a.y != c.y || a.z != c.z || a.color != c.color || a.count != c.count ||
                  a.normal[0] != c.normal[0] || a.normal[1] != c.normal[1] || a.normal[2] != c.normal[2];
    }
    EXPECT_EQ(differ, 0u);
}

namespace {

// Every fragment record (voxel, triangle, colour, normal), sorted: the
// compute paths must write exactly the raster's records, in any order.
std::vector<std::array<uint32_t, 4>> records(const Frame& f) {
    std::vector<std::array<uint32_t, 4>> r;
    r.reserve(f.fragments.size());
    for (const VoxelFragment& x : f.fragments) r.push_back({x.triangle, fragKey(x), x.color, x.packedNormal});
    std::sort(r.begin(), r.end());
    return r;
}

// Triangles of `mesh` that TrianglePath::Split gives the compute pass at
// this threshold, by the rule of voxComputeTakes (vox_triangle.glsl) on the
// host's bit-identical grid-space vertices: lets a test check that its mesh
// really mixes both paths.
size_t computeTakes(const TriangleMesh& mesh, const VoxelGrid& grid, uint32_t maxVoxels) {
    size_t n = 0;
    for (size_t t = 0; t < mesh.triangleCount(); ++t) {
        ref::Vec3d v[3];
        if (!ref::gridTriangle(mesh, grid, t, v)) continue;
        uint64_t box = 1;
        for (int a = 0; a < 3; ++a) {
            const double lo = std::clamp(std::min({v[0][a], v[1][a], v[2][a]}), -2.0, double(grid.dims[a]) + 2.0);
            const double hi = std::clamp(std::max({v[0][a], v[1][a], v[2][a]}), -2.0, double(grid.dims[a]) + 2.0);
            const int c0 = std::max(int(std::ceil(lo)) - 1, 0),
                      c1 = std::min(int(std::floor(hi)), int(grid.dims[a]) - 1);
            box *= c1 >= c0 ? uint64_t(c1 - c0 + 1) : 0;
        }
        n += box <= maxVoxels;
    }
    return n;
}

// Triangles aligned with the grid: vertices on voxel corners, edges along
// voxel edges, faces in voxel planes, planes through voxel corners only
// (x + y + z = integer), zero-area segments along voxel edges and points on
// corners; plus the same at half-voxel offsets. Where the closed and open
// references differ the paths must still agree pair by pair.
TriangleMesh alignedTriangles(uint32_t count, uint32_t seed) {
    TriangleMesh m;
    uint32_t s = seed;
    auto next = [&s](uint32_t n) {
        s = s * 1664525u + 1013904223u;
        return (s >> 8) % n;
    };
    for (uint32_t i = 0; i < count; ++i) {
        const float h = next(4) == 0 ? 0.5f : 0.f; // some at half-voxel offsets
        const float x = float(2 + next(26)) + h, y = float(2 + next(26)) + h, z = float(2 + next(26));
        const float a = float(1 + next(3)), b = float(1 + next(3));
        switch (next(7)) {
        case 0: shapes::append(m, shapes::triangle({x, y, z}, {x + a, y, z}, {x, y + b, z})); break; // in a voxel plane
        case 1:
            shapes::append(m, shapes::triangle({x, y, z}, {x + a, y + a, z}, {x, y + a, z + a}));
            break; // 45 degrees
        case 2:
            shapes::append(m, shapes::triangle({x + a, y, z}, {x, y + a, z}, {x, y, z + a}));
            break; // x+y+z = const
        case 3:
            shapes::append(m, shapes::triangle({x, y, z}, {x + a, y, z}, {x + a, y, z}));
            break;                                                                           // segment on an edge
        case 4: shapes::append(m, shapes::triangle({x, y, z}, {x, y, z}, {x, y, z})); break; // point on a corner
        case 5:
            shapes::append(m, shapes::triangle({x, y, z}, {x + a, y + b, z + a}, {x + 2 * a, y + 2 * b, z + 2 * a}));
            break; // collinear through corners
        default: shapes::append(m, shapes::triangle({x, y, z}, {x, y + a, z}, {x, y, z + b})); break; // in an x plane
        }
    }
    return m;
}

class TrianglePathTest : public VoxelizerTest {
protected:
    // The split thresholds tested: a small box (the meshes below give both
    // paths triangles) and the largest allowed (nearly everything compute).
    static constexpr uint32_t kSplitVoxels = 48;
    static constexpr std::array<uint32_t, 2> kThresholds = {kSplitVoxels, kMaxSmallTriangleVoxels};
    static void TearDownTestSuite() {
        for (auto& v : pathVoxelizers()) v.reset();
        VoxelizerTest::TearDownTestSuite();
    }
    static std::array<std::unique_ptr<Voxelizer>, 4>& pathVoxelizers() {
        static std::array<std::unique_ptr<Voxelizer>, 4> v;
        return v;
    }
    // The shared voxelizer's configuration, split at one of kThresholds, or
    // (threshold 0) raster only: the reference the splits must reproduce;
    // `computeTiles`: split at kSplitVoxels with ConservativeMethod::Compute
    // (the large triangles as compute tiles, no raster pass).
    Voxelizer& withSplit(uint32_t threshold, bool computeTiles = false) {
        std::unique_ptr<Voxelizer>& v = pathVoxelizers()[computeTiles                ? 3
                                                         : threshold == 0            ? 2
                                                         : threshold == kSplitVoxels ? 0
                                                                                     : 1];
        if (!v) {
            VoxInfo ci = depth7Info(1 << 16, 1 << 20, 1 << 16);
            ci.trianglePath = threshold == 0 ? TrianglePath::Raster : TrianglePath::Split;
            if (threshold != 0) ci.smallTriangleVoxels = threshold;
            if (computeTiles) ci.method = ConservativeMethod::Compute;
            auto r = createVoxelizer(device(), ci);
            EXPECT_TRUE(r.ok()) << r.message();
            if (r.ok()) v = std::move(r).value();
        }
        return *v;
    }
    // Raster, both splits and the compute tiles on one mesh: the same
    // fragment records and needed counts; conservative ones between the open
    // and closed references; the octree of each consistent with its fragments.
    void expectSamePairs(const TriangleMesh& m, const VoxelGrid& g, VoxelMode mode, const char* name) {
        SCOPED_TRACE(std::string(name) + (mode == VoxelMode::Thin ? " (thin)" : " (conservative)"));
        auto r = run(device(), withSplit(0), m, g, mode);
        ASSERT_TRUE(r.ok()) << r.message();
        for (uint32_t threshold : {kThresholds[0], kThresholds[1], 0u}) {
            const bool tiles = threshold == 0;
            SCOPED_TRACE(tiles ? std::string("compute tiles") : "split at " + std::to_string(threshold));
            auto c = run(device(), tiles ? withSplit(kSplitVoxels, true) : withSplit(threshold), m, g, mode);
            ASSERT_TRUE(c.ok()) << c.message();
            // The split path's records hold a cell's voxels of a box, the
            // raster's those of a column: other record counts, the same pairs.
            EXPECT_EQ(c->stats.leafFragments, r->stats.leafFragments);
            EXPECT_TRUE(records(*c) == records(*r)) << "the fragment records differ from the raster's";
            EXPECT_EQ(c->keys, r->keys);
            if (mode == VoxelMode::Conservative) expectConservative(m, g, *c);
            expectOctreeMatches(*c);
        }
    }
};

TEST_F(TrianglePathTest, ClosedMeshesMatchTheRasterWithoutHoles) {
    TriangleMesh sphere = shapes::sphere({0.1f, -0.2f, 0.3f}, 1.0f, 40, 20);
    shapes::colorByPosition(sphere);
    const VoxelGrid gs = gridOf(sphere, 64);
    TriangleMesh knot = shapes::torusKnot({0, 0, 0}, 1.0f, 0.2f, 2, 3, 128, 12);
    shapes::colorByPosition(knot);
    const VoxelGrid gk = gridOf(knot, 100);
    // Both meshes give each path triangles at kSplitVoxels (the sphere's
    // polar triangles are small, its equator's larger).
    for (const auto& [m, g] : {std::pair{&sphere, gs}, std::pair{&knot, gk}}) {
        const size_t small = computeTakes(*m, g, kSplitVoxels);
        EXPECT_GT(small, 0u);
        EXPECT_LT(small, m->triangleCount());
    }
    for (VoxelMode mode : {VoxelMode::Conservative, VoxelMode::Thin}) {
        expectSamePairs(sphere, gs, mode, "sphere");
        expectSamePairs(knot, gk, mode, "knot");
        for (uint32_t threshold : kThresholds) {
            auto f = run(device(), withSplit(threshold), sphere, gs, mode);
            ASSERT_TRUE(f.ok()) << f.message();
            expectNoHoles(*f, gs, {32, 32, 32});
        }
    }
}

TEST_F(TrianglePathTest, AlignedDegenerateAndSpecialTrianglesMatchTheRaster) {
    auto g = gridFromBox({0, 0, 0}, {32, 32, 32}, 32, 32, 32);
    ASSERT_TRUE(g.ok());
    const TriangleMesh aligned = alignedTriangles(600, 5);
    // The aligned set mixes both paths of the split too.
    EXPECT_GT(computeTakes(aligned, *g, kSplitVoxels), 0u);
    EXPECT_LT(computeTakes(aligned, *g, kSplitVoxels), aligned.triangleCount());
    auto g16 = gridFromBox({0, 0, 0}, {16, 16, 16}, 16, 16, 16);
    ASSERT_TRUE(g16.ok());
    for (VoxelMode mode : {VoxelMode::Conservative, VoxelMode::Thin}) {
        expectSamePairs(aligned, *g, mode, "aligned");
        expectSamePairs(shapes::box({2, 3, 4}, {12, 13, 14}), *g16, mode, "box on voxel planes");
        expectSamePairs(shapes::diamondPrism({8, 8, 0}, 6, 2, 14), *g16, mode, "45-degree walls");
        expectSamePairs(shapes::degenerateTriangles({1, 1, 1}, {31, 31, 31}, 300), *g, mode, "degenerate");
    }
    expectSamePairs(shapes::triangle({-3, 1.5f, 2}, {35, 7, 30}, {4, 31, 11.3f}), *g, VoxelMode::Conservative,
                    "large triangle");
    expectSamePairs(shapes::tinyTriangles({1, 1, 1}, {31, 31, 31}, 0.05f, 400), *g, VoxelMode::Conservative, "tiny");
    expectSamePairs(shapes::slivers({1, 1, 1}, {31, 31, 31}, 0.01f, 60), *g, VoxelMode::Conservative, "slivers");
    expectSamePairs(shapes::slivers({1, 1, 1}, {31, 31, 31}, 1e-5f, 300, 7), *g, VoxelMode::Conservative, "needles");
    expectSamePairs(shapes::triangle({-20, 5, 5}, {50, 16, 40}, {10, 60, -30}), *g, VoxelMode::Conservative,
                    "partly outside");
    expectSamePairs(shapes::nonManifold({4.5f, 5.5f, 6.25f}, {25, 26.5f, 27}), *g, VoxelMode::Conservative,
                    "non-manifold");
    // Triangles of every size, corners also outside the grid.
    auto g128 = gridFromBox({0, 0, 0}, {128, 128, 128}, 128, 128, 128);
    ASSERT_TRUE(g128.ok());
    TriangleMesh soup;
    uint32_t seed = 21;
    for (float size : {0.3f, 2.f, 9.f, 40.f})
        shapes::append(soup, shapes::tinyTriangles({-5, -5, -5}, {133, 133, 133}, size, 250, seed++));
    EXPECT_GT(computeTakes(soup, *g128, kSplitVoxels), 0u);
    EXPECT_LT(computeTakes(soup, *g128, kSplitVoxels), soup.triangleCount());
    expectSamePairs(soup, *g128, VoxelMode::Conservative, "soup");
}

TEST_F(TrianglePathTest, NearBoundarySphereMatchesTheRaster) {
    // The sphere whose near-boundary pairs the float test alone got wrong
    // (VoxelizerTest.NearBoundarySphereIsConservative): the raster and the
    // compute path decide every pair alike, the undecided ones included (in
    // the Float64 variants by the same double-precision test).
    const TriangleMesh m = shapes::sphere({0, 0, 0}, 1.0f, 96, 48);
    const VoxelGrid g = gridOf(m, 64);
    // Its triangles are all small: the splits run it all on the compute
    // path, the raster-only voxelizer all on the raster, pair for pair.
    EXPECT_EQ(computeTakes(m, g, kSplitVoxels), m.triangleCount());
    for (VoxelMode mode : {VoxelMode::Conservative, VoxelMode::Thin}) expectSamePairs(m, g, mode, "sphere 96 x 48");
}

TEST_F(TrianglePathTest, ComputePathIsDeterministic) {
    // Fragment order follows the atomics; the records and the octree's
    // leaves (exact integer sums, order independent) must not.
    TriangleMesh m = shapes::torusKnot({0, 0, 0}, 1.0f, 0.2f, 2, 3, 128, 12);
    shapes::colorByPosition(m);
    const VoxelGrid g = gridOf(m, 100);
    for (uint32_t threshold : kThresholds) {
        auto a = run(device(), withSplit(threshold), m, g);
        auto b = run(device(), withSplit(threshold), m, g);
        ASSERT_TRUE(a.ok() && b.ok());
        EXPECT_TRUE(records(*a) == records(*b));
        const auto la = extractLeaves(a->tree), lb = extractLeaves(b->tree);
        ASSERT_EQ(la.size(), lb.size());
        size_t differ = 0;
        for (size_t i = 0; i < la.size(); ++i) differ += std::memcmp(&la[i], &lb[i], sizeof(LeafVoxel)) != 0;
        EXPECT_EQ(differ, 0u);
    }
}

TEST_F(TrianglePathTest, ShuffledTrianglesGiveTheSameLeaves) {
    // A file in no spatial order is taken in Morton order (setMesh); the
    // leaves (coordinates, colours, counts, normal sums) are the file
    // order's. The records name other triangle indices, so only the leaves compare.
    TriangleMesh m = shapes::torusKnot({0, 0, 0}, 1.0f, 0.2f, 2, 3, 128, 12);
    shapes::colorByPosition(m);
    const VoxelGrid g = gridOf(m, 100);
    const TriangleMesh shuffled = ref::shuffledTriangles(m, 3);
    for (uint32_t threshold : kThresholds) {
        SCOPED_TRACE("split at " + std::to_string(threshold));
        auto a = run(device(), withSplit(threshold), m, g);
        auto b = run(device(), withSplit(threshold), shuffled, g);
        ASSERT_TRUE(a.ok() && b.ok());
        EXPECT_EQ(a->stats.leafFragments, b->stats.leafFragments);
        const auto la = extractLeaves(a->tree), lb = extractLeaves(b->tree);
        ASSERT_EQ(la.size(), lb.size());
        size_t differ = 0;
        for (size_t i = 0; i < la.size(); ++i) differ += std::memcmp(&la[i], &lb[i], sizeof(LeafVoxel)) != 0;
        EXPECT_EQ(differ, 0u);
        expectOctreeMatches(*b);
    }
}

TEST_F(VoxelizerTest, FramesWithoutANewMeshVoxelizeTheUploadedOne) {
    // A frame recorded without setMesh voxelizes the mesh of the last
    // setMesh again (its upload is skipped: the device buffer holds it);
    // the next setMesh is uploaded and voxelized, also after a frame that
    // skipped.
    TriangleMesh knot = shapes::torusKnot({0, 0, 0}, 1.0f, 0.2f, 2, 3, 96, 10);
    shapes::colorByPosition(knot);
    TriangleMesh sphere = shapes::sphere({0.1f, 0, 0}, 0.8f, 30, 15);
    shapes::colorByPosition(sphere);
    const VoxelGrid gk = gridOf(knot, 64), gs = gridOf(sphere, 64);
    Voxelizer& v = shared();
    auto frameAgain = [&]() -> Result<Frame> {
        Frame f;
        Status rec;
        PYRAMARCH_TRY(submitAndWait(device(), [&](VkCommandBuffer cmd) { rec = v.record(cmd); }));
        PYRAMARCH_TRY(rec);
        PYRAMARCH_TRY_ASSIGN(f.stats, v.readStats());
        PYRAMARCH_TRY_ASSIGN(f.fragments, v.readFragments());
        PYRAMARCH_TRY_ASSIGN(f.tree, v.readOctree());
        return f;
    };
    auto knotFirst = run(device(), v, knot, gk);
    ASSERT_TRUE(knotFirst.ok()) << knotFirst.message();
    for (int again = 0; again < 2; ++again) {
        auto k = frameAgain();
        ASSERT_TRUE(k.ok()) << k.message();
        EXPECT_TRUE(records(*k) == records(*knotFirst)) << "frame " << again << " without setMesh";
        EXPECT_TRUE(nodesByCoord(k->tree) == nodesByCoord(knotFirst->tree));
    }
    auto sphereNow = run(device(), v, sphere, gs);
    ASSERT_TRUE(sphereNow.ok()) << sphereNow.message();
    expectConservative(sphere, gs, *sphereNow);
    expectOctreeMatches(*sphereNow);
    auto s = frameAgain();
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_TRUE(records(*s) == records(*sphereNow));
}

TEST_F(VoxelizerTest, ComputePathOverflowIsReportedAndBounded) {
    // Small sizes (also run under GPU-AV): the split path (at a small and
    // the largest threshold) reports its needed record count, stores
    // exactly the capacity, and builds the tree of what it stored;
    // thresholds outside 1..kMaxSmallTriangleVoxels are refused.
    const TriangleMesh m = shapes::sphere({0, 0, 0}, 1.0f, 24, 12);
    const VoxelGrid g = gridOf(m, 32);
    VoxInfo rci = createInfo(32, 4096, 1 << 16, 4096);
    rci.trianglePath = TrianglePath::Raster;
    auto raster = createVoxelizer(device(), rci);
    ASSERT_TRUE(raster.ok()) << raster.message();
    auto full = run(device(), **raster, m, g);
    ASSERT_TRUE(full.ok()) << full.message();
    // At 18 voxels both paths get triangles (so GPU-AV runs both).
    EXPECT_GT(computeTakes(m, g, 18), 0u);
    EXPECT_LT(computeTakes(m, g, 18), m.triangleCount());
    for (uint32_t threshold : {18u, kMaxSmallTriangleVoxels}) {
        SCOPED_TRACE("split at " + std::to_string(threshold));
        VoxInfo ci = createInfo(32, 4096, 1000, 4096);
        ci.trianglePath = TrianglePath::Split;
        ci.smallTriangleVoxels = threshold;
        auto small = createVoxelizer(device(), ci);
        ASSERT_TRUE(small.ok()) << small.message();
        auto f = run(device(), **small, m, g);
        ASSERT_TRUE(f.ok()) << f.message();
        EXPECT_TRUE(f->stats.fragmentOverflow);
        EXPECT_EQ(f->stats.fragmentsStored, 1000u);
        EXPECT_GE(f->fragments.size(), 1000u);
        EXPECT_LT(f->fragments.size(), full->fragments.size());
        EXPECT_TRUE(std::includes(full->keys.begin(), full->keys.end(), f->keys.begin(), f->keys.end()));
        expectOctreeMatches(*f);
        // With room for all: the raster's records exactly.
        ci.fragmentCapacity = 1 << 16;
        auto big = createVoxelizer(device(), ci);
        ASSERT_TRUE(big.ok()) << big.message();
        auto b = run(device(), **big, m, g);
        ASSERT_TRUE(b.ok()) << b.message();
        EXPECT_FALSE(b->stats.fragmentOverflow);
        EXPECT_EQ(f->stats.fragmentsNeeded, b->stats.fragmentsNeeded); // the truncated frame's count is exact
        EXPECT_TRUE(records(*b) == records(*full));
        expectOctreeMatches(*b);
    }
    VoxInfo bad;
    bad.maxResolution = 32;
    bad.trianglePath = TrianglePath::Split;
    bad.smallTriangleVoxels = 0;
    EXPECT_FALSE(createVoxelizer(device(), bad).ok());
    bad.smallTriangleVoxels = kMaxSmallTriangleVoxels + 1;
    EXPECT_FALSE(createVoxelizer(device(), bad).ok());
}

} // namespace

TEST_F(TrianglePathTest, VerticesNearCornersAndEdgesMatchTheReference) {
    // Random small triangles whose vertices sit on or within 1e-7..1e-4
    // voxel of voxel corners and edges, in a grid whose origin and voxel size
    // are not powers of two, so float32 grid coordinates would round some of
    // them across a corner: the GPU must still agree with the reference
    // (grid space in double) pair for pair, on the raster and the compute path.
    const VoxelGrid g =
        *gridFromBox({0.1f, -0.3f, 0.7f}, {0.1f + 0.37f * 24, -0.3f + 0.37f * 24, 0.7f + 0.37f * 24}, 24, 24, 24);
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> cell(2, 21), offset(-1, 1), pick(0, 5);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const double eps[6] = {0.0, 1e-7, -1e-7, 1e-6, -3e-5, 1e-4};
    TriangleMesh m;
    for (int t = 0; t < 1500; ++t) {
        const int base[3] = {cell(rng), cell(rng), cell(rng)};
        for (int c = 0; c < 3; ++c) {
            double p[3];
            for (int a = 0; a < 3; ++a) p[a] = base[a] + offset(rng) + eps[pick(rng)];
            // Every other vertex slides along an edge of the lattice.
            if (c == 1) p[t % 3] += unit(rng);
            std::array<float, 3> w;
            for (int a = 0; a < 3; ++a) w[a] = float(double(g.origin[a]) + p[a] * double(g.voxelSize[a]));
            m.positions.push_back(w);
            m.indices.push_back(uint32_t(m.positions.size() - 1));
        }
    }
    // The mesh does reach the case: somewhere the float32 grid vertices
    // (the split's hi alone) decide a pair differently from the double ones.
    size_t flips = 0;
    for (size_t t = 0; t < m.triangleCount(); ++t) {
        ref::Vec3d v[3];
        std::array<float, 3> hi[3];
        ASSERT_TRUE(ref::gridTriangle(m, g, t, v));
        for (int c = 0; c < 3; ++c) hi[c] = toGridSpace(m.positions[m.indices[3 * t + c]], g);
        ref::forEachBoxVoxel(v, g, [&](int x, int y, int z) {
            for (ref::Overlap o : {ref::Overlap::Closed, ref::Overlap::Open})
                flips += ref::triangleOverlapsVoxel(v, x, y, z, o) != ref::triangleOverlapsVoxel(hi, x, y, z, o);
        });
    }
    EXPECT_GT(flips, 0u);
    for (uint32_t threshold : {0u, kSplitVoxels}) {
        SCOPED_TRACE(threshold == 0 ? "raster" : "split");
        auto f = run(device(), withSplit(threshold), m, g);
        ASSERT_TRUE(f.ok()) << f.message();
        expectConservative(m, g, *f);
        const auto closed = ref::voxelize(m, g, ref::Overlap::Closed);
        const auto open = ref::voxelize(m, g, ref::Overlap::Open);
        EXPECT_TRUE(std::includes(f->keys.begin(), f->keys.end(), open.begin(), open.end()));
        EXPECT_TRUE(std::includes(closed.begin(), closed.end(), f->keys.begin(), f->keys.end()));
    }
}

namespace {

// VoxelizerCreateInfo::solid against the reference's parity fill: the leaves
// are the surface fragments' voxels plus every inside voxel, the interior
// fragments are exactly the inside voxels the surface lacks, the odd
// columns match, and the dense grid holds the same set.
void expectSolid(Device& dev, Voxelizer& v, const TriangleMesh& m, const VoxelGrid& g, bool closed) {
    ASSERT_TRUE(v.setMesh(m, g).ok());
    Status rec;
    ASSERT_TRUE(submitAndWait(dev, [&](VkCommandBuffer cmd) { rec = v.record(cmd); }).ok());
    ASSERT_TRUE(rec.ok()) << rec.message();
    auto stats = v.readStats();
    ASSERT_TRUE(stats.ok());
    ASSERT_FALSE(stats->fragmentOverflow);
    ASSERT_FALSE(stats->tileOverflow);
    auto frags = v.readFragments();
    ASSERT_TRUE(frags.ok());
    std::vector<uint32_t> surface, interior;
    for (const VoxelFragment& f : *frags)
        (f.triangle == kNoTriangle ? interior : surface).push_back(ref::key(f.x, f.y, f.z));
    std::sort(surface.begin(), surface.end());
    surface.erase(std::unique(surface.begin(), surface.end()), surface.end());
    std::sort(interior.begin(), interior.end());
    const ref::SolidReference r = ref::solidInside(m, g);
    EXPECT_EQ(stats->solidOddColumns, r.oddColumns);
    if (closed)
        EXPECT_EQ(r.oddColumns, 0u);
    else
        EXPECT_GT(r.oddColumns, 0u);
    std::vector<uint32_t> inside, expectInterior;
    for (uint32_t z = 0; z < g.dims[2]; ++z)
        for (uint32_t y = 0; y < g.dims[1]; ++y)
            for (uint32_t x = 0; x < g.dims[0]; ++x)
                if (r.inside[(size_t(z) * g.dims[1] + y) * g.dims[0] + x]) inside.push_back(ref::key(x, y, z));
    std::set_difference(inside.begin(), inside.end(), surface.begin(), surface.end(),
                        std::back_inserter(expectInterior));
    EXPECT_GT(inside.size(), 100u);
    EXPECT_EQ(interior, expectInterior) << "interior fragments differ from the parity reference";
    EXPECT_EQ(stats->solidInterior, expectInterior.size());
    std::vector<uint32_t> all;
    std::set_union(surface.begin(), surface.end(), inside.begin(), inside.end(), std::back_inserter(all));
    auto tree = v.readOctree();
    ASSERT_TRUE(tree.ok());
    std::vector<uint32_t> leaves;
    for (const LeafVoxel& l : extractLeaves(*tree)) leaves.push_back(ref::key(l.x, l.y, l.z));
    std::sort(leaves.begin(), leaves.end());
    EXPECT_EQ(leaves, all) << "octree leaves != surface + inside";
    auto dense = v.readDenseGrid();
    ASSERT_TRUE(dense.ok());
    size_t occupied = 0;
    for (float d : *dense) occupied += d != 0.f;
    EXPECT_EQ(occupied, all.size());
}

} // namespace

TEST_F(VoxelizerTest, SolidMatchesTheParityReference) {
    VoxInfo ci = createInfo(64, 1 << 14, 1 << 20, 1 << 17);
    ci.solid = true;
    ci.denseMaxVoxels = 64 * 64 * 64;
    if (!device().limits().shaderFloat64) {
        auto r = createVoxelizer(device(), ci);
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.status().code(), ErrorCode::Unsupported);
        GTEST_SKIP() << "solid mode needs shaderFloat64";
    }
    for (TrianglePath path : {TrianglePath::Split, TrianglePath::Raster}) {
        ci.trianglePath = path;
        auto r = createVoxelizer(device(), ci);
        ASSERT_TRUE(r.ok()) << r.message();
        Voxelizer& v = **r;
        {
            SCOPED_TRACE("sphere");
            const TriangleMesh m = shapes::sphere({0, 0, 0}, 1.0f, 40, 20);
            expectSolid(device(), v, m, gridOf(m, 40), true);
        }
        if (path == TrianglePath::Raster) continue; // the surface paths agree (TrianglePathTest)
        {
            SCOPED_TRACE("torus");
            const TriangleMesh m = shapes::torus({0.1f, 0.2f, 0.3f}, 1.0f, 0.35f, 48, 16);
            expectSolid(device(), v, m, gridOf(m, 48), true);
        }
        {
            // Not watertight: a sphere missing some triangles. Its odd columns
            // are counted and left hollow, the rest is still the reference's.
            SCOPED_TRACE("open sphere");
            TriangleMesh m = shapes::sphere({0, 0, 0}, 1.0f, 40, 20);
            m.indices.erase(m.indices.begin() + 300, m.indices.begin() + 330);
            expectSolid(device(), v, m, gridOf(m, 40), false);
        }
        {
            // Triangles spanning up to 64 rows: the flip pass splits each
            // over several threads of VOX_SOLID_ROWS_PER_THREAD rows, the
            // last one short (vertices off the grid's half-integers).
            SCOPED_TRACE("octahedron");
            TriangleMesh m;
            m.positions = {{0.013f, 0.021f, 1.0307f},     {0.0071f, -0.0093f, -0.9711f}, {1.0213f, 0.0117f, 0.003f},
                           {-0.9893f, -0.0131f, 0.0071f}, {0.0037f, 1.0119f, -0.0113f},  {-0.0119f, -0.9917f, 0.0091f}};
            m.indices = {0, 2, 4, 0, 4, 3, 0, 3, 5, 0, 5, 2, 1, 4, 2, 1, 3, 4, 1, 5, 3, 1, 2, 5};
            expectSolid(device(), v, m, gridOf(m, 64), true);
        }
    }
}

TEST_F(VoxelizerTest, SolidSmallSphere) {
    // The solid passes at a small size (the gpuav run takes this one).
    VoxInfo ci = createInfo(16, 1 << 12, 1 << 16, 1 << 12);
    ci.solid = true;
    ci.denseMaxVoxels = 16 * 16 * 16;
    if (!device().limits().shaderFloat64) GTEST_SKIP() << "solid mode needs shaderFloat64";
    auto r = createVoxelizer(device(), ci);
    ASSERT_TRUE(r.ok()) << r.message();
    const TriangleMesh m = shapes::sphere({0, 0, 0}, 1.0f, 24, 12);
    expectSolid(device(), **r, m, gridOf(m, 16), true);
}

// Capacities that grow: a voxelizer created with none voxelizes a mesh over
// its starting sizes. The first frame overflows and says so; the next frame
// boundary grows the buffers and says what grew; the result then equals the
// CPU reference. The same mesh under a budget below the grown size fails
// with a named error and keeps working at its old sizes.
TEST_F(VoxelizerTest, CapacitiesGrowFromTheCountersToTheReference) {
    const TriangleMesh m = shapes::denseKnot({0, 0, 0}, 0.7f, 20000); // over 1024 vertices and 8 R^2 fragments
    const VoxelGrid g = gridOf(m, 32);
    VoxInfo ci;
    ci.maxResolution = 32;
    ci.framesInFlight = 1;
    ci.method = ConservativeMethod::GeometryShader;
    auto vr = createVoxelizer(device(), ci);
    ASSERT_TRUE(vr.ok()) << vr.message();
    Voxelizer& v = **vr;
    auto moduleBytes = [](const Voxelizer& x, bool withReplaced) {
        uint64_t b = 0;
        for (const auto& item : x.memoryReport())
            if (withReplaced || item.name.rfind("vox.replaced", 0) != 0) b += item.bytes;
        return b;
    };
    const uint64_t startBytes = moduleBytes(v, true);
    auto first = voxelizeOnce(device(), v, m, g);
    ASSERT_TRUE(first.ok()) << first.message();
    EXPECT_EQ(first->frame, 0u);
    EXPECT_TRUE(first->fragmentOverflow) << "the starting list holds " << first->fragmentCapacity;
    EXPECT_EQ(first->fragmentsStored, first->fragmentCapacity);
    EXPECT_GT(first->fragmentsNeeded, first->fragmentCapacity);
    EXPECT_FALSE(first->grown);
    Frame f;
    uint32_t frames = 1;
    bool sawGrowth = false;
    for (; frames < 5; ++frames) {
        auto r = run(device(), v, m, g);
        ASSERT_TRUE(r.ok()) << r.message();
        f = std::move(r).value();
        EXPECT_EQ(f.stats.frame, frames);
        if (frames == 1) {
            EXPECT_TRUE(f.stats.grown);
            EXPECT_EQ(f.stats.grownAfterFrame, 0u);
            EXPECT_EQ(f.stats.previousFragmentCapacity, first->fragmentCapacity);
            EXPECT_GE(f.stats.fragmentCapacity, first->fragmentsNeeded);
        }
        sawGrowth = sawGrowth || f.stats.grown;
        if (!f.stats.fragmentOverflow && !f.stats.tileOverflow) break;
    }
    ASSERT_LT(frames, 5u) << "still overflowing";
    EXPECT_TRUE(sawGrowth);
    EXPECT_EQ(f.stats.fragmentsNeeded, first->fragmentsNeeded);
    expectConservative(m, g, f);
    expectOctreeMatches(f);
    if (v.usesExactFallback()) {
        EXPECT_EQ(f.fragments.size(), closedPairCount(m, g)) << "every pair decided as the closed reference decides";
    }
    const uint64_t grownBytes = moduleBytes(v, false);
    EXPECT_GT(grownBytes, startBytes);
    // Nothing grows once the sizes suffice; the replaced buffers go after the frames in flight.
    for (int i = 0; i < 10; ++i) {
        auto s = voxelizeOnce(device(), v, m, g);
        ASSERT_TRUE(s.ok()) << s.message();
        EXPECT_FALSE(s->grown);
        EXPECT_FALSE(s->fragmentOverflow);
    }
    EXPECT_EQ(moduleBytes(v, true), grownBytes) << "replaced buffers were not released";

    // A budget below what the mesh needs: a named error at the frame
    // boundary, the buffers as they were, the frames still bounded and reported.
    VoxInfo tight = ci;
    tight.memoryBudget = grownBytes - 1;
    auto tr = createVoxelizer(device(), tight);
    ASSERT_TRUE(tr.ok()) << tr.message();
    Voxelizer& t = **tr;
    Status failed;
    VoxelStats last;
    for (int frame = 0; frame < 5 && failed.ok(); ++frame) {
        failed = t.setMesh(m, g);
        if (!failed.ok()) break;
        Status rec;
        ASSERT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) { rec = t.record(cmd); }));
        ASSERT_OK(rec);
        last = t.readStats().value();
    }
    ASSERT_FALSE(failed.ok()) << "growth past memoryBudget was accepted";
    EXPECT_EQ(failed.code(), ErrorCode::CapacityExceeded);
    EXPECT_NE(failed.message().find("memoryBudget"), std::string::npos) << failed.message();
    EXPECT_LE(moduleBytes(t, false), tight.memoryBudget);
    Status rec;
    ASSERT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) { rec = t.record(cmd); }));
    ASSERT_OK(rec);
    auto after = t.readStats();
    ASSERT_TRUE(after.ok()) << after.message();
    EXPECT_TRUE(after->fragmentOverflow || after->tileOverflow);
    EXPECT_LE(after->fragmentsStored, after->fragmentCapacity);
    // A budget below the starting sizes: refused at creation, by name.
    VoxInfo tiny = ci;
    tiny.memoryBudget = 4096;
    auto none = createVoxelizer(device(), tiny);
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.status().code(), ErrorCode::CapacityExceeded);
    EXPECT_NE(none.message().find("memoryBudget"), std::string::npos) << none.message();
}

// Growth under a host graph with two frames in flight: the stats ring
// reports the overflow a frame late, the module grows at the next setMesh
// and rebinds its buffers in the host's graph (no recompile), and the
// octree pool grows from a lower bound (fixed fragment list, scattered
// triangles: more tiles than fragments would suggest).
TEST_F(VoxelizerTest, TilesGrowUnderAHostGraph) {
    const TriangleMesh m = shapes::tinyTriangles({-1, -1, -1}, {1, 1, 1}, 0.01f, 800);
    const VoxelGrid g = gridOf(m, 64);
    VoxInfo ci;
    ci.maxResolution = 64;
    ci.fragmentCapacity = 4096; // fixed: the tiles start at 4096 / 4
    ci.framesInFlight = 2;
    ci.method = ConservativeMethod::GeometryShader;
    auto vr = createVoxelizer(device(), ci);
    ASSERT_TRUE(vr.ok()) << vr.message();
    Voxelizer& v = **vr;
    RenderGraph graph(&device());
    ASSERT_OK(compileInto(v, graph));
    bool overflowSeen = false, grownSeen = false;
    std::optional<VoxelStats> late;
    for (int frame = 0; frame < 8; ++frame) {
        ASSERT_OK(v.setMesh(m, g));
        ASSERT_OK(executeOnce(device(), graph));
        late = v.latestStats();
        if (!late) continue;
        overflowSeen = overflowSeen || late->tileOverflow;
        grownSeen = grownSeen || late->grown;
        if (late->grown) {
            EXPECT_LT(late->previousTileCapacity, late->tileCapacity);
        }
    }
    ASSERT_TRUE(late.has_value());
    EXPECT_TRUE(overflowSeen) << "the starting pool should not hold these tiles";
    EXPECT_TRUE(grownSeen);
    EXPECT_FALSE(late->tileOverflow);
    EXPECT_EQ(late->fragmentCapacity, 4096u) << "a given capacity stays fixed";
    auto read = readFrame(v, v.readStats().value());
    ASSERT_TRUE(read.ok()) << read.message();
    const Frame& f = *read;
    expectConservative(m, g, f);
    expectOctreeMatches(f);
}

// Compute tiles grow with the mesh's large triangles, within the memory
// budget: a mesh whose tiles would pass it is refused by name and the
// voxelizer keeps working with the meshes that fit; a mesh with NaN and
// far-outside corners among its large triangles gives the reference's voxels.
TEST_F(VoxelizerTest, ComputeTilesGrowWithinTheBudgetAndSkipBadTriangles) {
    VoxInfo ci = depth7Info(0, 0, 0);
    ci.maxVertices = ci.maxTriangles = ci.fragmentCapacity = ci.tileCapacity = 0; // grow
    ci.maxResolution = 512;
    ci.method = ConservativeMethod::Compute;
    {
        auto probe = createVoxelizer(device(), ci);
        ASSERT_TRUE(probe.ok()) << probe.message();
        uint64_t bytes = 0;
        for (const auto& item : (*probe)->memoryReport()) bytes += item.bytes;
        ci.memoryBudget = bytes + (64u << 10); // room for a small mesh, not for a large box's tiles
    }
    auto v = createVoxelizer(device(), ci);
    ASSERT_TRUE(v.ok()) << v.message();
    const TriangleMesh box = shapes::box({0.1f, 0.2f, 0.3f}, {0.9f, 0.8f, 0.7f});
    auto big = gridFromBox({0, 0, 0}, {1, 1, 1}, 512, 512, 512);
    ASSERT_TRUE(big.ok());
    Status s = (*v)->setMesh(box, *big);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.code(), ErrorCode::CapacityExceeded);
    EXPECT_NE(s.message().find("compute tiles"), std::string::npos) << s.message();
    // Large triangles on a small grid fit, with bad ones among them.
    TriangleMesh m = box;
    shapes::append(m, shapes::triangle({NAN, 0.5f, 0.5f}, {0.1f, 0.1f, 0.1f}, {0.9f, 0.9f, 0.9f}));
    shapes::append(m, shapes::triangle({-50, 0.5f, 0.5f}, {0.3f, 60, 0.2f}, {0.9f, 0.2f, 1e6f}));
    auto small = gridFromBox({0, 0, 0}, {1, 1, 1}, 32, 32, 32);
    ASSERT_TRUE(small.ok());
    auto f = run(device(), **v, m, *small);
    ASSERT_TRUE(f.ok()) << f.message();
    EXPECT_EQ(f->stats.skippedTriangles, 1u);
    EXPECT_EQ(f->keys, ref::voxelize(m, *small, ref::Overlap::Closed));
    expectOctreeMatches(*f);
}

// Compute tiles under a host graph, the mesh's large triangles growing from
// frame to frame: the mesh buffer that holds the tiles grows and the graph
// is rebound to it; every frame's voxels are the closed reference's.
TEST_F(VoxelizerTest, ComputeTilesGrowUnderAHostGraph) {
    VoxInfo ci;
    ci.maxResolution = 64;
    ci.method = ConservativeMethod::Compute;
    auto vr = createVoxelizer(device(), ci);
    ASSERT_TRUE(vr.ok()) << vr.message();
    Voxelizer& v = **vr;
    RenderGraph graph(&device());
    ASSERT_OK(compileInto(v, graph));
    for (uint32_t p = 0; p < graph.passCount(); ++p) EXPECT_NE(graph.passName(p), "vox.raster");
    auto g = gridFromBox({0, 0, 0}, {1, 1, 1}, 64, 64, 64);
    ASSERT_TRUE(g.ok());
    auto meshBytes = [&v] {
        uint64_t b = 0;
        for (const auto& item : v.memoryReport())
            if (item.name == "vox.mesh") b += item.bytes;
        return b;
    };
    uint64_t firstBytes = 0;
    for (int frame = 0; frame < 4; ++frame) {
        SCOPED_TRACE(frame);
        const float lo = 0.4f - 0.1f * frame, hi = 0.55f + 0.12f * frame;
        TriangleMesh m = shapes::box({lo, lo + 0.01f, lo + 0.02f}, {hi, hi - 0.01f, hi + 0.03f});
        shapes::append(m, shapes::triangle({0.02f, 0.3f, 0.1f}, {hi, 0.05f, 0.9f}, {0.3f, hi, 0.5f}));
        ASSERT_OK(v.setMesh(m, *g));
        if (frame == 0) firstBytes = meshBytes();
        VoxelStats stats;
        // A frame that overflowed its fragment list is followed by one with grown buffers.
        for (int attempt = 0; attempt < 3; ++attempt) {
            ASSERT_OK(executeOnce(device(), graph));
            stats = v.readStats().value();
            if (!stats.fragmentOverflow && !stats.tileOverflow) break;
            ASSERT_OK(v.setMesh(m, *g));
        }
        ASSERT_FALSE(stats.fragmentOverflow || stats.tileOverflow);
        auto read = readFrame(v, stats);
        ASSERT_TRUE(read.ok()) << read.message();
        const Frame& f = *read;
        EXPECT_EQ(f.keys, ref::voxelize(m, *g, ref::Overlap::Closed));
        expectOctreeMatches(f);
    }
    EXPECT_GT(meshBytes(), firstBytes) << "the tiles never grew the mesh buffer";
}
