// `pyramarch voxelize`: the leaves it writes are the CPU-checked voxel set of
// the same shape and grid; bad arguments give one error line and exit != 0.
#include <gtest/gtest.h>

#include <algorithm>
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
    // --octree-build reaches the voxelizer (its passes are in the stats) and
    // the other build writes the same leaves (colours and counts included).
    EXPECT_NE(stats.find("\"vox.alloc.0\""), std::string::npos) << "top-down is the default build";
    const std::string txtBottomUp = txt + ".bottomup.txt", jsonBottomUp = json + ".bottomup.json";
    r = runTool("voxelize --shape knot --res 40 --method gs --octree-build bottomup --out " + txtBottomUp +
                " --stats " + jsonBottomUp);
    ASSERT_EQ(r.code, 0) << r.err;
    const std::string bottomUpStats = slurp(jsonBottomUp);
    EXPECT_NE(bottomUpStats.find("\"vox.keys\""), std::string::npos) << bottomUpStats;
    EXPECT_EQ(bottomUpStats.find("\"vox.alloc.0\""), std::string::npos) << bottomUpStats;
    auto sortedLines = [&](const std::string& path) {
        std::vector<std::string> lines;
        std::ifstream in(path);
        for (std::string l; std::getline(in, l);) lines.push_back(l);
        std::sort(lines.begin(), lines.end());
        return lines;
    };
    EXPECT_EQ(sortedLines(txtBottomUp), sortedLines(txt));
    std::filesystem::remove(txtBottomUp);
    std::filesystem::remove(jsonBottomUp);
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

TEST(VoxelizeCli, BadArguments) {
    for (const char* args : {"voxelize", "voxelize --shape teapot", "voxelize --shape sphere --res 0",
                             "voxelize --shape sphere --out voxels.xyz", "voxelize --mesh /nonexistent.obj",
                             "voxelize --shape sphere --octree-build sideways", "voxelize --shape sphere --frames 0"}) {
        SCOPED_TRACE(args);
        const CmdResult r = runTool(args);
        EXPECT_NE(r.code, 0);
        EXPECT_NE(r.err.find("error"), std::string::npos) << r.err;
    }
}
