// `pyramarch voxelize`: the leaves it writes are the CPU-checked voxel set of
// the same shape and grid; bad arguments give one error line and exit != 0.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include "pyramarch/voxelizer/shapes.h"
#include "support/device_policy.h"
#include "support/run_command.h"
#include "voxel_reference.h"

using namespace pyramarch::voxel;

namespace {

using CmdResult = pyramarch::test::CommandResult;

std::string slurp(const std::string& p) {
    std::ifstream f(p);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

CmdResult runTool(const std::string& args) { return pyramarch::test::runCommand(PYRAMARCH_TOOL, args); }

} // namespace

TEST(VoxelizeCli, LeavesMatchTheReference) {
    const auto dir = std::filesystem::temp_directory_path();
    const std::string txt = (dir / ("vox-cli-" + std::to_string(::getpid()) + ".txt")).string();
    const std::string json = (dir / ("vox-cli-" + std::to_string(::getpid()) + ".json")).string();
    const std::string ply = (dir / ("vox-cli-" + std::to_string(::getpid()) + ".ply")).string();
    CmdResult r = runTool("voxelize --shape knot --res 40 --method gs --validation --out " + txt + " --stats " + json);
    PYRAMARCH_FAIL_OR_SKIP_IF_TOOL_HAS_NO_DEVICE(r);
    ASSERT_EQ(r.code, 0) << r.err;
    const TriangleMesh m = shapes::byName("knot");
    auto grid = defaultGrid(m, 40);
    ASSERT_TRUE(grid.ok());
    const auto open = ref::voxelize(m, *grid, ref::Overlap::Open);
    const auto closed = ref::voxelize(m, *grid, ref::Overlap::Closed);
    std::ifstream f(txt);
    std::string line;
    std::vector<uint32_t> keys;
    while (std::getline(f, line)) {
        if (line.empty() || line[0] == '#') continue;
        unsigned x, y, z;
        ASSERT_EQ(std::sscanf(line.c_str(), "%u %u %u", &x, &y, &z), 3) << line;
        keys.push_back(ref::key(x, y, z));
    }
    std::sort(keys.begin(), keys.end());
    ASSERT_FALSE(keys.empty());
    EXPECT_TRUE(std::includes(keys.begin(), keys.end(), open.begin(), open.end()));
    EXPECT_TRUE(std::includes(closed.begin(), closed.end(), keys.begin(), keys.end()));
    const std::string stats = slurp(json);
    EXPECT_NE(stats.find("\"leaves\": " + std::to_string(keys.size())), std::string::npos) << stats;
    EXPECT_NE(stats.find("\"vox.raster\""), std::string::npos);
    // The default build (OccupancyLevels) runs; the other builds are
    // measurement variants reached through bench and the testing tier, and
    // voxelizer_gpu_test compares them bit for bit.
    EXPECT_NE(stats.find("\"vox.alloc_top\""), std::string::npos) << "OccupancyLevels is the default build";
    EXPECT_EQ(stats.find("\"vox.flag.0\""), std::string::npos) << stats;
    // --method compute: the same leaves (large triangles as compute tiles),
    // and no raster pass.
    const std::string computeTxt = (dir / ("vox-cli-compute-" + std::to_string(::getpid()) + ".txt")).string();
    r = runTool("voxelize --shape knot --res 40 --method compute --validation --out " + computeTxt + " --stats " +
                json);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(slurp(computeTxt), slurp(txt));
    EXPECT_EQ(slurp(json).find("\"vox.raster\""), std::string::npos) << slurp(json);
    std::filesystem::remove(computeTxt);
    // PLY of a thin voxelization: a header with the vertex count, fewer leaves.
    r = runTool("voxelize --shape knot --res 40 --thin --out " + ply);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string plyText = slurp(ply);
    const size_t at = plyText.find("element vertex ");
    ASSERT_NE(at, std::string::npos);
    const unsigned long thinLeaves = std::stoul(plyText.substr(at + 15));
    EXPECT_GT(thinLeaves, 0u);
    EXPECT_LT(thinLeaves, keys.size());
    std::filesystem::remove(txt);
    std::filesystem::remove(json);
    std::filesystem::remove(ply);
}

TEST(VoxelizeCli, RemeshPutsAVertexOnEveryEdgeBetweenAnOccupiedAndAnEmptyVoxel) {
    // --remesh extracts iso 0.5 over the voxel centres on the GPU from the
    // octree (no read-back between them): with samples 0 or 1 every vertex
    // is the midpoint of a grid edge whose ends differ, and every such edge
    // has one. The leaves of the same run are the CPU's check.
    const auto dir = std::filesystem::temp_directory_path();
    const std::string txt = (dir / ("vox-remesh-" + std::to_string(::getpid()) + ".txt")).string();
    for (const char* extra : {"", " --remesh-indexed"}) {
        SCOPED_TRACE(extra);
        const std::string obj = (dir / ("vox-remesh-" + std::to_string(::getpid()) + ".obj")).string();
        const CmdResult r = runTool("voxelize --shape torus --res 36 --method gs --validation --out " + txt +
                                    " --remesh " + obj + extra);
        PYRAMARCH_FAIL_OR_SKIP_IF_TOOL_HAS_NO_DEVICE(r);
        ASSERT_EQ(r.code, 0) << r.err;
        EXPECT_NE(r.out.find("remesh: "), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("surface bricks"), std::string::npos) << r.out;
        const TriangleMesh m = shapes::byName("torus");
        auto grid = defaultGrid(m, 36);
        ASSERT_TRUE(grid.ok());
        const uint32_t nx = grid->dims[0], ny = grid->dims[1], nz = grid->dims[2];
        std::vector<uint8_t> occupied(size_t(nx) * ny * nz);
        std::ifstream leaves(txt);
        for (std::string line; std::getline(leaves, line);) {
            unsigned x, y, z;
            if (line.empty() || line[0] == '#') continue;
            ASSERT_EQ(std::sscanf(line.c_str(), "%u %u %u", &x, &y, &z), 3) << line;
            occupied[(size_t(z) * ny + y) * nx + x] = 1;
        }
        // Doubled grid coordinates of the midpoints of the edges whose ends differ.
        std::vector<uint64_t> expected, got;
        const auto key = [](uint64_t x, uint64_t y, uint64_t z) { return x | (y << 21) | (z << 42); };
        for (uint32_t z = 0; z < nz; ++z)
            for (uint32_t y = 0; y < ny; ++y)
                for (uint32_t x = 0; x < nx; ++x) {
                    const uint8_t o = occupied[(size_t(z) * ny + y) * nx + x];
                    if (x + 1 < nx && o != occupied[(size_t(z) * ny + y) * nx + x + 1])
                        expected.push_back(key(2 * x + 1, 2 * y, 2 * z));
                    if (y + 1 < ny && o != occupied[(size_t(z) * ny + y + 1) * nx + x])
                        expected.push_back(key(2 * x, 2 * y + 1, 2 * z));
                    if (z + 1 < nz && o != occupied[(size_t(z + 1) * ny + y) * nx + x])
                        expected.push_back(key(2 * x, 2 * y, 2 * z + 1));
                }
        std::ifstream in(obj);
        size_t faces = 0;
        for (std::string line; std::getline(in, line);) {
            if (line.rfind("f ", 0) == 0) ++faces;
            if (line.rfind("v ", 0) != 0) continue;
            float p[3];
            ASSERT_EQ(std::sscanf(line.c_str(), "v %f %f %f", &p[0], &p[1], &p[2]), 3) << line;
            uint64_t d[3];
            for (int a = 0; a < 3; ++a) {
                const float g = 2.f * (p[a] - grid->origin[a]) / grid->voxelSize[a] - 1.f; // doubled, centre 0 = 0
                d[a] = uint64_t(std::lround(g));
                EXPECT_NEAR(g, float(d[a]), 2e-3f) << line;
            }
            got.push_back(key(d[0], d[1], d[2]));
        }
        std::sort(expected.begin(), expected.end());
        std::sort(got.begin(), got.end());
        ASSERT_GT(expected.size(), 500u);
        EXPECT_EQ(got, expected) << "welded vertices against the cut edges of the voxel grid";
        EXPECT_GT(faces, expected.size() / 2);
        std::filesystem::remove(obj);
    }
    std::filesystem::remove(txt);
}

TEST(VoxelizeCli, BadArguments) {
    for (const char* args : {"voxelize", "voxelize --shape teapot", "voxelize --shape sphere --res 0",
                             "voxelize --shape sphere --out voxels.xyz", "voxelize --mesh /nonexistent.obj",
                             "voxelize --shape sphere --octree-build sideways", "voxelize --shape sphere --frames 0",
                             "voxelize --shape sphere --res 16 --remesh surface.xyz"}) {
        SCOPED_TRACE(args);
        const CmdResult r = runTool(args);
        EXPECT_NE(r.code, 0);
        EXPECT_NE(r.err.find("error"), std::string::npos) << r.err;
    }
}

TEST(VoxelizeCli, SolidRemeshOfASphereIsOneSheet) {
    // The octree-fed iso surface of the shell has an outer and an inner
    // sheet; with --solid the inside is filled and one sheet is left (open
    // only where the default grid's box cuts it).
    const auto dir = std::filesystem::temp_directory_path();
    const std::string obj = (dir / ("vox-solid-" + std::to_string(::getpid()) + ".obj")).string();
    for (bool solid : {false, true}) {
        SCOPED_TRACE(solid ? "solid" : "surface");
        const CmdResult r = runTool("voxelize --shape sphere --res 24 --method gs --validation --remesh " + obj +
                                    " --remesh-indexed" + (solid ? " --solid" : ""));
        PYRAMARCH_FAIL_OR_SKIP_IF_TOOL_HAS_NO_DEVICE(r);
        ASSERT_EQ(r.code, 0) << r.err;
        if (solid) EXPECT_NE(r.out.find("solid: "), std::string::npos) << r.out;
        // Connected components of the indexed triangle mesh (shared vertices).
        std::vector<size_t> parent;
        const auto find = [&](size_t a) {
            while (parent[a] != a) a = parent[a] = parent[parent[a]];
            return a;
        };
        std::ifstream in(obj);
        size_t faces = 0;
        for (std::string line; std::getline(in, line);) {
            if (line.rfind("v ", 0) == 0) parent.push_back(parent.size());
            if (line.rfind("f ", 0) != 0) continue;
            size_t a, b, c; // "f a//a b//b c//c" (position // normal)
            ASSERT_EQ(std::sscanf(line.c_str(), "f %zu//%*u %zu//%*u %zu//%*u", &a, &b, &c), 3) << line;
            ASSERT_TRUE(a >= 1 && b >= 1 && c >= 1 && a <= parent.size() && b <= parent.size() && c <= parent.size());
            parent[find(a - 1)] = find(b - 1);
            parent[find(b - 1)] = find(c - 1);
            ++faces;
        }
        ASSERT_GT(faces, 100u);
        size_t components = 0;
        for (size_t i = 0; i < parent.size(); ++i) components += find(i) == i;
        EXPECT_EQ(components, solid ? 1u : 2u);
    }
    std::filesystem::remove(obj);
}
