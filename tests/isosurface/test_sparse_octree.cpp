// Sparse volumes fed by the voxelizer's octree on the GPU
// (SparseVolumeInput::OctreeLeaves): one host graph runs the voxelizer and
// the surface every frame with no read-back. Each frame's triangles are
// compared, bit for bit, with the dense volume path on the voxelizer's dense
// grid of the same frame (read back only by the test) and with the CPU
// reference on it; the surface bricks the leaves marked with a CPU count.
// Also: moving and changing meshes, Sobel normals, indexed output, a pool
// over several buffers, a short pool (reported, bounded), an empty frame,
// and the errors of a wrong set-up.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "iso_fixture.h"
#include "iso_reference_convert.h"
#include "pyramarch/engine/render_graph.h"
#include "pyramarch/isosurface/isosurface.h"
#include "pyramarch/voxelizer/field.h"
#include "pyramarch/voxelizer/iso_bridge.h"
#include "pyramarch/voxelizer/shapes.h"
#include "pyramarch/voxelizer/voxelizer.h"
#include "reference.h"
#include "reference_grid.h"

using namespace pyramarch;
using namespace pyramarch::iso;

namespace {

voxel::VoxelizerCreateInfo voxelizerInfo(uint32_t resolution) {
    voxel::VoxelizerCreateInfo ci;
    ci.maxResolution = resolution;
    ci.maxVertices = 1 << 14;
    ci.maxTriangles = 1 << 14;
    ci.fragmentCapacity = 1 << 18;
    ci.tileCapacity = 1 << 15;
    ci.denseMaxVoxels = resolution * resolution * resolution;
    return ci;
}

// The surface over the voxel centres of `grid`, its bricks from the octree.
IsoSurfaceCreateInfo octreeSurfaceInfo(const voxel::VoxelGrid& grid, uint32_t maxVolumeBricks) {
    IsoSurfaceCreateInfo info;
    info.name = "octree";
    info.samples = {grid.dims[0], grid.dims[1], grid.dims[2]};
    const voxel::SampleBounds b = voxel::voxelCentreBounds(grid);
    info.boundsMin = b.min;
    info.boundsMax = b.max;
    info.source = FieldSource::Volume;
    info.isoValue = 0.5f;
    info.vertexCapacity = 600000;
    info.sparse.enabled = true;
    info.sparse.volumeInput = SparseVolumeInput::OctreeLeaves;
    info.sparse.volumeFormat = VolumeFormat::U8;
    info.sparse.maxVolumeBricks = maxVolumeBricks;
    info.sparse.maxBricks = 4096;
    info.sparse.maxRowPairs = 4096 * 32;
    return info;
}

// Bricks of 8^3 cells with an occupied sample among their 9^3: what the
// mark pass gives a pool slot.
uint32_t markedBricks(const std::vector<float>& occupancy, const std::array<uint32_t, 3>& n) {
    uint32_t nb[3];
    for (int a = 0; a < 3; ++a) nb[a] = (n[a] - 1 + 7) / 8;
    uint32_t marked = 0;
    for (uint32_t bz = 0; bz < nb[2]; ++bz)
        for (uint32_t by = 0; by < nb[1]; ++by)
            for (uint32_t bx = 0; bx < nb[0]; ++bx) {
                bool any = false;
                for (uint32_t z = 8 * bz; z <= std::min(8 * bz + 8, n[2] - 1) && !any; ++z)
                    for (uint32_t y = 8 * by; y <= std::min(8 * by + 8, n[1] - 1) && !any; ++y)
                        for (uint32_t x = 8 * bx; x <= std::min(8 * bx + 8, n[0] - 1) && !any; ++x)
                            any = occupancy[(size_t(z) * n[1] + y) * n[0] + x] == 1.f;
                marked += any ? 1u : 0u;
            }
    return marked;
}

// Triangle corners of a mesh read back (indexed or not), as the reference compares them.
std::vector<ref::Vertex> cornersOf(const Mesh& mesh) {
    std::vector<ref::Vertex> out;
    out.reserve(mesh.indices.size());
    for (uint32_t i : mesh.indices) {
        ref::Vertex v{};
        for (int a = 0; a < 3; ++a) {
            v.p[a] = mesh.positions[i][a];
            v.n[a] = mesh.normals[i][a];
        }
        out.push_back(v);
    }
    return out;
}

class IsoSparseOctree : public IsoSurfaceTest {
protected:
    // A voxelizer and an octree-fed surface in one host graph.
    struct Scene {
        std::unique_ptr<voxel::Voxelizer> voxelizer;
        std::unique_ptr<IsoSurface> surface;
        std::unique_ptr<RenderGraph> graph;
    };
    Scene makeScene(const voxel::VoxelGrid& grid, const IsoSurfaceCreateInfo& info, iso::testing::Knobs knobs = {}) {
        Scene s;
        auto v =
            voxel::Voxelizer::create(device(), voxelizerInfo(std::max({grid.dims[0], grid.dims[1], grid.dims[2]})));
        EXPECT_TRUE(v.ok()) << v.message();
        if (!v) return s;
        s.voxelizer = std::move(v).value();
        s.surface = make(info, knobs);
        if (!s.surface) return s;
        rebuild(s);
        return s;
    }
    // The host's graph, built again after the surface grew: the voxelizer's
    // passes, then the surface reading its octree. s.graph stays empty if
    // that fails.
    void rebuild(Scene& s) {
        s.graph.reset();
        auto graph = std::make_unique<RenderGraph>(&device());
        auto vox = s.voxelizer->addPasses(*graph);
        ASSERT_TRUE(vox.ok()) << vox.message();
        IsoSurface::GraphInputs in;
        in.octree = voxel::octreeLeafInput(vox.value(), s.voxelizer->octreeDepth());
        auto out = s.surface->addPasses(*graph, in);
        ASSERT_TRUE(out.ok()) << out.message();
        ASSERT_OK(graph->compile());
        s.graph = std::move(graph);
    }
    void run(Scene& s, const voxel::TriangleMesh& mesh, const voxel::VoxelGrid& grid) {
        ASSERT_OK(s.voxelizer->setMesh(mesh, grid));
        Status inner;
        ASSERT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) { inner = s.graph->execute(cmd); }));
        ASSERT_OK(inner);
    }
    // The frame just run: the dense volume path and the CPU reference on
    // the voxelizer's dense grid of it, and the marked bricks.
    void expectMatchesDense(Scene& s, const IsoSurfaceCreateInfo& info, size_t minVertices = 300) {
        auto dense = s.voxelizer->readDenseGrid();
        ASSERT_TRUE(dense.ok()) << dense.message();
        const std::vector<float>& occupancy = dense.value();
        IsoSurfaceCreateInfo denseInfo = info;
        denseInfo.name = "dense";
        denseInfo.sparse = {};
        auto reference = make(denseInfo);
        ASSERT_TRUE(reference);
        ASSERT_OK(reference->uploadVolume(occupancy.data(), occupancy.size() * 4, VolumeFormat::F32));
        frame(*reference);
        auto dm = reference->readMesh(false);
        auto sm = s.surface->readMesh(false);
        ASSERT_TRUE(dm.ok() && sm.ok());
        const std::vector<ref::Vertex> denseCorners = cornersOf(dm.value()), sparseCorners = cornersOf(sm.value());
        EXPECT_GE(sparseCorners.size(), minVertices) << "the case should have a surface";
        EXPECT_EQ(ref::compareTriangleSets(denseCorners, sparseCorners, 0.f, 0.f), "") << "against the dense path";
        const ref::Grid g = referenceGridOf(info);
        const ref::McResult cpu = ref::marchingCubes(g, occupancy.data(), info.isoValue, refNormals(info.normals));
        EXPECT_EQ(ref::compareTriangleSets(cpu.vertices, sparseCorners, ref::positionTolerance(g), 1e-3f), "")
            << "against the CPU";
        const auto stats = s.surface->statsOfFrame(s.surface->framesRecorded() - 1);
        ASSERT_TRUE(stats.has_value());
        EXPECT_FALSE(stats->overflow);
        EXPECT_EQ(stats->activeCells, cpu.activeCells);
        EXPECT_EQ(stats->sparseVolumeBricksNeeded, markedBricks(occupancy, info.samples));
    }
};

TEST_F(IsoSparseOctree, MatchesTheDenseShellFrameByFrame) {
    // Cells not a multiple of a brick on any axis; a sphere moving across
    // brick borders, then a torus (the previous frame's bricks must go).
    auto grid = voxel::gridFromBox({-1.5f, -1.4f, -1.1f}, {1.5f, 1.6f, 1.2f}, 37, 41, 30);
    ASSERT_TRUE(grid.ok());
    const IsoSurfaceCreateInfo info = octreeSurfaceInfo(*grid, 4096);
    Scene s = makeScene(*grid, info);
    ASSERT_TRUE(s.graph);
    for (int f = 0; f < 3; ++f) {
        SCOPED_TRACE(f);
        run(s, voxel::shapes::sphere({-0.3f + 0.27f * f, 0.1f * f, 0.f}, 0.8f, 40, 20), *grid);
        expectMatchesDense(s, info);
    }
    run(s, voxel::shapes::torus({0.1f, 0.2f, 0.f}, 1.0f, 0.3f, 48, 16), *grid);
    expectMatchesDense(s, info);
}

// The same mesh gives the same vertex buffer in every frame and instance:
// the marked bricks are listed in brick order (sparse_order.comp), the
// pool slots in list order, whatever order the mark pass's atomics took.
TEST_F(IsoSparseOctree, BuffersAreBitIdenticalOverInstancesAndFrames) {
    auto grid = voxel::gridFromBox({-1.f, -1.f, -1.f}, {1.f, 1.f, 1.f}, 70, 66, 73);
    ASSERT_TRUE(grid.ok());
    const IsoSurfaceCreateInfo info = octreeSurfaceInfo(*grid, 4096);
    std::vector<std::vector<IsoVertexData>> runs;
    for (int instance = 0; instance < 2; ++instance) {
        Scene s = makeScene(*grid, info);
        ASSERT_TRUE(s.graph);
        for (int f = 0; f < 2; ++f) {
            run(s, voxel::shapes::torus({0.1f, 0.2f, 0.f}, 0.6f, 0.25f, 48, 16), *grid);
            const auto stats = s.surface->statsOfFrame(s.surface->framesRecorded() - 1);
            ASSERT_TRUE(stats.has_value());
            EXPECT_FALSE(stats->overflow);
            auto v = s.surface->readVertices();
            ASSERT_TRUE(v.ok()) << v.message();
            runs.push_back(std::move(v).value());
        }
    }
    ASSERT_GT(runs[0].size(), 300u);
    for (size_t r = 1; r < runs.size(); ++r) {
        ASSERT_EQ(runs[r].size(), runs[0].size());
        EXPECT_EQ(std::memcmp(runs[r].data(), runs[0].data(), runs[0].size() * sizeof(IsoVertexData)), 0)
            << "run " << r << " differs from the first";
    }
}

TEST_F(IsoSparseOctree, SobelNormalsReadTheApron) {
    auto grid = voxel::gridFromBox({-1.f, -1.f, -1.f}, {1.f, 1.f, 1.f}, 33, 33, 33);
    ASSERT_TRUE(grid.ok());
    IsoSurfaceCreateInfo info = octreeSurfaceInfo(*grid, 4096);
    info.normals = NormalMode::Sobel;
    Scene s = makeScene(*grid, info);
    ASSERT_TRUE(s.graph);
    run(s, voxel::shapes::sphere({0.05f, -0.02f, 0.03f}, 0.7f, 40, 20), *grid);
    expectMatchesDense(s, info);
}

TEST_F(IsoSparseOctree, IndexedOutputMatchesTheDenseIndexedPath) {
    auto grid = voxel::gridFromBox({-1.f, -1.f, -1.f}, {1.f, 1.f, 1.f}, 30, 26, 35);
    ASSERT_TRUE(grid.ok());
    IsoSurfaceCreateInfo info = octreeSurfaceInfo(*grid, 4096);
    info.indexed = true;
    info.vertexCapacity = 200000;
    info.indexCapacity = 600000;
    Scene s = makeScene(*grid, info);
    ASSERT_TRUE(s.graph);
    run(s, voxel::shapes::torus({0.f, 0.f, 0.1f}, 0.6f, 0.25f, 40, 16), *grid);
    expectMatchesDense(s, info);
    // Shared vertices: as many as the dense indexed path's.
    const auto stats = s.surface->statsOfFrame(s.surface->framesRecorded() - 1);
    ASSERT_TRUE(stats.has_value());
    EXPECT_GT(stats->verticesNeeded, 0u);
    EXPECT_LT(stats->verticesNeeded, stats->indicesNeeded / 3);
}

TEST_F(IsoSparseOctree, PoolOverSeveralBuffers) {
    auto grid = voxel::gridFromBox({-1.f, -1.f, -1.f}, {1.f, 1.f, 1.f}, 25, 25, 25);
    ASSERT_TRUE(grid.ok());
    const IsoSurfaceCreateInfo info = octreeSurfaceInfo(*grid, 27);
    iso::testing::Knobs knobs;
    knobs.volumePoolBricks = 7; // 27 bricks: four buffers
    Scene s = makeScene(*grid, info, knobs);
    ASSERT_TRUE(s.graph);
    run(s, voxel::shapes::sphere({0.f, 0.f, 0.f}, 0.75f, 40, 20), *grid);
    expectMatchesDense(s, info);
}

TEST_F(IsoSparseOctree, AShortPoolIsReportedAndBounded) {
    auto grid = voxel::gridFromBox({-1.f, -1.f, -1.f}, {1.f, 1.f, 1.f}, 33, 33, 33);
    ASSERT_TRUE(grid.ok());
    const IsoSurfaceCreateInfo info = octreeSurfaceInfo(*grid, 5);
    Scene s = makeScene(*grid, info);
    ASSERT_TRUE(s.graph);
    run(s, voxel::shapes::sphere({0.f, 0.f, 0.f}, 0.7f, 40, 20), *grid);
    auto dense = s.voxelizer->readDenseGrid();
    ASSERT_TRUE(dense.ok());
    const auto stats = s.surface->statsOfFrame(s.surface->framesRecorded() - 1);
    ASSERT_TRUE(stats.has_value());
    EXPECT_TRUE(stats->overflow);
    const uint32_t needed = markedBricks(dense.value(), info.samples);
    EXPECT_GT(needed, 5u);
    EXPECT_EQ(stats->sparseVolumeBricksNeeded, needed);
    EXPECT_GE(suggestSparseCapacity(*stats).maxVolumeBricks, needed);
    // What was extracted is part of the dense surface: five bricks' worth at most.
    IsoSurfaceCreateInfo denseInfo = info;
    denseInfo.sparse = {};
    auto reference = make(denseInfo);
    ASSERT_TRUE(reference);
    ASSERT_OK(reference->uploadVolume(dense->data(), dense->size() * 4, VolumeFormat::F32));
    frame(*reference);
    auto dm = reference->readMesh(false);
    auto sm = s.surface->readMesh(false);
    ASSERT_TRUE(dm.ok() && sm.ok());
    EXPECT_GT(sm->indices.size(), 0u);
    EXPECT_LT(sm->indices.size(), dm->indices.size());
    EXPECT_LE(stats->activeCells, 5u * 512u);
}

TEST_F(IsoSparseOctree, AMeshOutsideTheGridAndIsoValuesBeyondTheSamples) {
    auto grid = voxel::gridFromBox({-1.f, -1.f, -1.f}, {1.f, 1.f, 1.f}, 24, 24, 24);
    ASSERT_TRUE(grid.ok());
    IsoSurfaceCreateInfo info = octreeSurfaceInfo(*grid, 64);
    Scene s = makeScene(*grid, info);
    ASSERT_TRUE(s.graph);
    // Nothing reaches the grid: no bricks, no triangles, no overflow.
    run(s, voxel::shapes::sphere({5.f, 5.f, 5.f}, 0.5f, 16, 8), *grid);
    auto stats = s.surface->statsOfFrame(s.surface->framesRecorded() - 1);
    ASSERT_TRUE(stats.has_value());
    EXPECT_FALSE(stats->overflow);
    EXPECT_EQ(stats->sparseVolumeBricksNeeded, 0u);
    EXPECT_EQ(stats->verticesNeeded, 0u);
    // Samples are 0 or 1: an iso value of 0 or above 1 cuts nothing, 1 cuts
    // the cells 0.5 cuts (with vertices on the occupied samples).
    const voxel::TriangleMesh sphere = voxel::shapes::sphere({0.f, 0.f, 0.f}, 0.6f, 32, 16);
    for (float iso : {0.f, 1.5f}) {
        s.surface->setIsoValue(iso);
        run(s, sphere, *grid);
        stats = s.surface->statsOfFrame(s.surface->framesRecorded() - 1);
        ASSERT_TRUE(stats.has_value());
        EXPECT_EQ(stats->verticesNeeded, 0u) << iso;
        EXPECT_GT(stats->sparseVolumeBricksNeeded, 0u) << iso;
        EXPECT_FALSE(stats->overflow);
    }
    s.surface->setIsoValue(1.f);
    info.isoValue = 1.f;
    run(s, sphere, *grid);
    expectMatchesDense(s, info);
}

// Created with no capacity (pool, lists, row pairs, vertices): the surface
// starts small, its frames overflow and say so, grow() between frames grows
// it from the stats (the host builds its graph again), and within a few
// frames a frame needs nothing more and is the dense path's and the CPU's.
TEST_F(IsoSparseOctree, NoCapacitiesGrowInAHostGraphToTheReference) {
    auto grid = voxel::gridFromBox({-1.f, -1.f, -1.f}, {1.f, 1.f, 1.f}, 41, 37, 45);
    ASSERT_TRUE(grid.ok());
    IsoSurfaceCreateInfo info = octreeSurfaceInfo(*grid, 0);
    info.vertexCapacity = 0;
    info.sparse.maxBricks = 0;
    info.sparse.maxRowPairs = 0;
    for (bool indexed : {false, true}) {
        SCOPED_TRACE(indexed);
        info.indexed = indexed;
        iso::testing::Knobs knobs;
        knobs.startSparseBricks = 6; // a pool of 6 bricks, lists of 6, 48 row pairs
        knobs.startOutputCapacity = 300;
        Scene s = makeScene(*grid, info, knobs);
        ASSERT_TRUE(s.graph);
        const SparseDomain start = s.surface->sparseDomain();
        EXPECT_EQ(start.maxVolumeBricks, 6u);
        EXPECT_EQ(start.maxBricks, 6u);
        const voxel::TriangleMesh sphere = voxel::shapes::sphere({0.05f, -0.03f, 0.02f}, 0.75f, 40, 20);
        uint32_t growths = 0;
        bool overflowSeen = false;
        for (int f = 0; f < 8; ++f) {
            run(s, sphere, *grid);
            const auto st = s.surface->statsOfFrame(s.surface->framesRecorded() - 1);
            ASSERT_TRUE(st.has_value());
            if (f == 0) {
                EXPECT_TRUE(st->overflow);
                EXPECT_NE(st->overflowed & kOverflowSparseVolumeBricks, 0u) << st->overflowed;
            }
            overflowSeen = overflowSeen || st->overflow;
            auto grown = s.surface->grow();
            ASSERT_TRUE(grown.ok()) << grown.message();
            if (!*grown) break;
            ++growths;
            ASSERT_NO_FATAL_FAILURE(rebuild(s));
        }
        EXPECT_TRUE(overflowSeen);
        EXPECT_GE(growths, 1u);
        EXPECT_LE(growths, 3u) << "the sizes come from the counts, not by doubling";
        const auto last = s.surface->statsOfFrame(s.surface->framesRecorded() - 1);
        ASSERT_TRUE(last.has_value());
        EXPECT_FALSE(last->overflow) << last->overflowed;
        EXPECT_EQ(last->overflowed, 0u);
        const SparseDomain grown = s.surface->sparseDomain();
        EXPECT_GE(grown.maxVolumeBricks, last->sparseVolumeBricksNeeded);
        EXPECT_LE(grown.maxBricks, grown.maxVolumeBricks) << "the list holds no more than the pool";
        IsoSurfaceCreateInfo reference = info;
        reference.vertexCapacity = 600000;
        reference.indexCapacity = indexed ? 600000 : 0;
        expectMatchesDense(s, reference);
    }
}

// A budget that holds the starting buffers and not the grown ones: grow()
// names memoryBudget (once), the frames stay bounded and reported.
TEST_F(IsoSparseOctree, ABudgetTooSmallToGrowIsANamedError) {
    auto grid = voxel::gridFromBox({-1.f, -1.f, -1.f}, {1.f, 1.f, 1.f}, 33, 33, 33);
    ASSERT_TRUE(grid.ok());
    IsoSurfaceCreateInfo info = octreeSurfaceInfo(*grid, 0);
    info.vertexCapacity = 60000; // a cap: only the sparse domain grows
    info.sparse.maxBricks = 0;
    info.sparse.maxRowPairs = 0;
    iso::testing::Knobs knobs;
    knobs.startSparseBricks = 6;
    uint64_t startBytes = 0;
    {
        auto probe = make(info, knobs);
        ASSERT_TRUE(probe);
        for (const auto& item : probe->memoryReport()) startBytes += item.bytes;
    }
    info.memoryBudget = startBytes + 4096;
    Scene s = makeScene(*grid, info, knobs);
    ASSERT_TRUE(s.graph);
    const voxel::TriangleMesh sphere = voxel::shapes::sphere({0.f, 0.f, 0.f}, 0.7f, 40, 20);
    run(s, sphere, *grid);
    auto refused = s.surface->grow();
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.code(), ErrorCode::CapacityExceeded);
    EXPECT_NE(refused.message().find("memoryBudget"), std::string::npos) << refused.message();
    run(s, sphere, *grid); // the same graph: nothing changed
    const auto st = s.surface->statsOfFrame(s.surface->framesRecorded() - 1);
    ASSERT_TRUE(st.has_value());
    EXPECT_TRUE(st->overflow);
    EXPECT_LE(st->activeCells, 6u * 512u);
    auto quiet = s.surface->grow();
    ASSERT_TRUE(quiet.ok()) << "said once: " << quiet.message();
    EXPECT_FALSE(*quiet);
}

TEST_F(IsoSparseOctree, WrongSetUpsAreErrors) {
    auto grid = voxel::gridFromBox({-1.f, -1.f, -1.f}, {1.f, 1.f, 1.f}, 16, 16, 16);
    ASSERT_TRUE(grid.ok());
    IsoSurfaceCreateInfo info = octreeSurfaceInfo(*grid, 8);
    {
        IsoSurfaceCreateInfo f32 = info;
        f32.sparse.volumeFormat = VolumeFormat::F32;
        auto r = IsoSurface::create(device(), f32);
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.code(), ErrorCode::InvalidArgument);
        EXPECT_NE(r.message().find("U8"), std::string::npos) << r.message();
    }
    {
        IsoSurfaceCreateInfo balls = info;
        balls.source = FieldSource::Metaballs;
        auto r = IsoSurface::create(device(), balls);
        ASSERT_FALSE(r.ok());
        EXPECT_NE(r.message().find("OctreeLeaves"), std::string::npos) << r.message();
    }
    auto surface = make(info);
    ASSERT_TRUE(surface);
    // Bricks come from the octree, not from uploads.
    const std::vector<uint8_t> bytes(16 * 16 * 16, 1);
    Status up = surface->uploadVolume(bytes.data(), bytes.size(), VolumeFormat::U8);
    EXPECT_EQ(up.code(), ErrorCode::InvalidState) << up.message();
    // record() has no octree to read; addPasses() needs one.
    Status rec;
    ASSERT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) { rec = surface->record(cmd); }));
    EXPECT_EQ(rec.code(), ErrorCode::InvalidState) << rec.message();
    RenderGraph graph(&device());
    auto none = surface->addPasses(graph);
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(none.message().find("GraphInputs::octree"), std::string::npos) << none.message();
}

} // namespace
