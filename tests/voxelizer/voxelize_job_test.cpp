// The tool's one-shot voxelization job (sample::runVoxelizeJob, behind
// `pyramarch voxelize` and the voxelize sample): its output file holds the
// CPU-checked voxel set, capacities grow from the overflow counters, and
// errors name the problem.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "pyramarch/voxelizer/shapes.h"
#include "sample/voxelize_job.h"
#include "support/gpu_test.h"
#include "voxel_reference.h"

using namespace pyramarch;
using namespace pyramarch::voxel;
using sample::runVoxelizeJob;
using sample::VoxelizeJob;

namespace {

class VoxelizeJobTest : public test::GpuTest {};

} // namespace

TEST_F(VoxelizeJobTest, WritesLeavesAndGrowsCapacities) {
    const std::string out = ::testing::TempDir() + "vox_job.txt";
    const std::string stats = ::testing::TempDir() + "vox_job.json";
    VoxelizeJob job;
    job.shape = "torus";
    job.resolution = 48;
    job.outPath = out;
    job.statsPath = stats;
    job.method = ConservativeMethod::GeometryShader;
    auto r = runVoxelizeJob(device(), job);
    ASSERT_TRUE(r.ok()) << r.message();
    // The file holds exactly the CPU-checked voxel set of the same mesh and grid.
    const TriangleMesh m = shapes::byName("torus");
    const auto open = ref::voxelize(m, r->grid, ref::Overlap::Open);
    const auto closed = ref::voxelize(m, r->grid, ref::Overlap::Closed);
    std::ifstream f(out);
    std::string line;
    std::vector<uint32_t> keys;
    while (std::getline(f, line)) {
        if (line.empty() || line[0] == '#') continue;
        unsigned x, y, z;
        ASSERT_EQ(std::sscanf(line.c_str(), "%u %u %u", &x, &y, &z), 3);
        keys.push_back(ref::key(x, y, z));
    }
    std::sort(keys.begin(), keys.end());
    EXPECT_EQ(keys.size(), r->leaves.size());
    EXPECT_TRUE(std::includes(keys.begin(), keys.end(), open.begin(), open.end()));
    EXPECT_TRUE(std::includes(closed.begin(), closed.end(), keys.begin(), keys.end()));
    std::ifstream js(stats);
    const std::string json((std::istreambuf_iterator<char>(js)), {});
    EXPECT_NE(json.find("\"vox.raster\""), std::string::npos);
    EXPECT_NE(json.find("\"leaves\": " + std::to_string(keys.size())), std::string::npos);
    std::remove(out.c_str());
    std::remove(stats.c_str());
    // No capacities are given: the job's result is complete, never truncated.
    EXPECT_FALSE(r->stats.fragmentOverflow);
    EXPECT_FALSE(r->stats.tileOverflow);
    EXPECT_GE(r->attempts, 1u);
    // A memory budget below what the voxelization needs: a named error.
    VoxelizeJob small = job;
    small.outPath.clear();
    small.statsPath.clear();
    small.memoryBudget = 1u << 16;
    auto refused = runVoxelizeJob(device(), small);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), ErrorCode::CapacityExceeded);
    EXPECT_NE(refused.message().find("memoryBudget"), std::string::npos) << refused.message();
    small.memoryBudget = 0;
    // Several timed frames: one GPU time per frame after the JIT frame, and
    // per-pass medians that lie within what the frames measured in all.
    VoxelizeJob timed = small;
    timed.timedFrames = 4;
    auto medians = runVoxelizeJob(device(), timed);
    ASSERT_TRUE(medians.ok()) << medians.message();
    ASSERT_EQ(medians->frameMilliseconds.size(), 3u);
    ASSERT_EQ(medians->timings.size(), r->timings.size());
    double medianSum = 0;
    for (size_t p = 0; p < medians->timings.size(); ++p) {
        EXPECT_EQ(medians->timings[p].name, r->timings[p].name);
        EXPECT_GE(medians->timings[p].milliseconds, 0.0);
        medianSum += medians->timings[p].milliseconds;
    }
    const auto [lo, hi] = std::minmax_element(medians->frameMilliseconds.begin(), medians->frameMilliseconds.end());
    EXPECT_LE(medianSum, 3 * *hi) << "each pass's median is one frame's value, so at most the frames' sum";
    EXPECT_GT(*lo, 0.0);
    EXPECT_EQ(medians->leaves.size(), r->leaves.size());
    // Errors name the problem.
    job.shape = "teapot";
    auto bad = runVoxelizeJob(device(), job);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.message().find("teapot"), std::string::npos);
    job.shape = "sphere";
    job.outPath = "voxels.xyz";
    EXPECT_FALSE(runVoxelizeJob(device(), job).ok());
    job.outPath.clear();
    job.resolution = 0;
    EXPECT_FALSE(runVoxelizeJob(device(), job).ok());
}

TEST_F(VoxelizeJobTest, ReadsABinaryPlyFile) {
    // The tool's mesh files (sample::loadMeshFile): a binary PLY of the
    // torus voxelizes to the reference's voxel set of the same triangles.
    const TriangleMesh m = shapes::byName("torus");
    const std::string path = ::testing::TempDir() + "vox_job_torus.ply";
    {
        std::ofstream f(path, std::ios::binary);
        f << "ply\nformat binary_little_endian 1.0\nelement vertex " << m.positions.size()
          << "\nproperty float x\nproperty float y\nproperty float z\nelement face " << m.triangleCount()
          << "\nproperty list uchar uint vertex_indices\nend_header\n";
        f.write(reinterpret_cast<const char*>(m.positions.data()), std::streamsize(m.positions.size() * 12));
        for (size_t t = 0; t < m.triangleCount(); ++t) {
            f.put(3);
            f.write(reinterpret_cast<const char*>(&m.indices[3 * t]), 12);
        }
    }
    VoxelizeJob job;
    job.meshPath = path;
    job.resolution = 40;
    job.method = ConservativeMethod::GeometryShader;
    auto r = runVoxelizeJob(device(), job);
    ASSERT_TRUE(r.ok()) << r.message();
    std::vector<uint32_t> keys;
    for (const LeafVoxel& l : r->leaves) keys.push_back(ref::key(l.x, l.y, l.z));
    std::sort(keys.begin(), keys.end());
    auto grid = defaultGrid(m, 40);
    ASSERT_TRUE(grid.ok());
    const auto open = ref::voxelize(m, *grid, ref::Overlap::Open);
    const auto closed = ref::voxelize(m, *grid, ref::Overlap::Closed);
    EXPECT_TRUE(std::includes(keys.begin(), keys.end(), open.begin(), open.end()));
    EXPECT_TRUE(std::includes(closed.begin(), closed.end(), keys.begin(), keys.end()));
    EXPECT_GT(keys.size(), 1000u);
    std::remove(path.c_str());
}
