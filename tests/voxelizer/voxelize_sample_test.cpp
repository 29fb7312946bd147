// The voxelize sample, headless with validation: the cubes it draws for a
// level are the non-empty octree nodes of that level (between the open and
// closed reference counts), and they cover a good part of the image.
#include <gtest/gtest.h>

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

using SampleRun = pyramarch::test::CommandResult;

SampleRun runSample(const std::string& args) { return pyramarch::test::runCommand(VOXELIZE_SAMPLE, args); }

} // namespace

TEST(VoxelizeSample, DrawsTheLevelsNodesAsCubes) {
    const std::string png =
        (std::filesystem::temp_directory_path() / ("voxelize-sample-" + std::to_string(::getpid()) + ".png")).string();
    const TriangleMesh m = shapes::byName("torus");
    auto grid = defaultGrid(m, 48);
    ASSERT_TRUE(grid.ok());
    const uint32_t depth = 6; // ceil(log2(48))
    const auto open = ref::octreeLevelCounts(ref::voxelize(m, *grid, ref::Overlap::Open), depth);
    const auto closed = ref::octreeLevelCounts(ref::voxelize(m, *grid, ref::Overlap::Closed), depth);
    for (uint32_t level : {depth, 3u}) {
        SCOPED_TRACE(level);
        const SampleRun r =
            runSample("--headless --validation --shape torus --res 48 --size 160x120 --frames 2 --level " +
                      std::to_string(level) + " --out " + png);
        PYRAMARCH_FAIL_OR_SKIP_IF_TOOL_HAS_NO_DEVICE(r);
        ASSERT_EQ(r.code, 0) << r.err;
        unsigned cubes = 0, gotLevel = 0;
        const size_t at = r.out.find("level ");
        ASSERT_NE(at, std::string::npos) << r.out;
        ASSERT_EQ(std::sscanf(r.out.c_str() + at, "level %u: %u cubes drawn", &gotLevel, &cubes), 2) << r.out;
        EXPECT_EQ(gotLevel, level);
        EXPECT_GE(cubes, open[level]);
        EXPECT_LE(cubes, closed[level]);
        EXPECT_EQ(r.out.find("OVERFLOW"), std::string::npos);
        unsigned covered = 0, total = 0;
        const size_t cp = r.out.find("covered pixels: ");
        ASSERT_NE(cp, std::string::npos);
        ASSERT_EQ(std::sscanf(r.out.c_str() + cp, "covered pixels: %u of %u", &covered, &total), 2);
        EXPECT_EQ(total, 160u * 120u);
        EXPECT_GT(covered, total / 10) << "the torus should fill a good part of the view";
        EXPECT_GT(std::filesystem::file_size(png), 1000u);
    }
    std::filesystem::remove(png);
    // Errors: one line, non-zero exit.
    const SampleRun bad = runSample("--headless --shape sphere --res 16 --level 9");
    EXPECT_NE(bad.code, 0);
    EXPECT_NE(bad.err.find("error"), std::string::npos) << bad.err;
}
