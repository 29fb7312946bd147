// CPU-only: the isosurface module's sizing and validation (layout.cpp) is
// pure, so grids, pyramids, buffer sizes and limit errors are checked here
// without a Vulkan device.
#include <gtest/gtest.h>

#include "pyramarch/isosurface/testing.h"

using namespace pyramarch;
using namespace pyramarch::iso;

namespace {

// Limits of Mesa lavapipe 22.3.
DeviceLimits lavapipeLimits() {
    DeviceLimits l{};
    for (int a = 0; a < 3; ++a) l.maxComputeWorkGroupCount[a] = 65535;
    l.maxStorageBufferRange = 128ull << 20;
    l.maxBufferSize = 1ull << 31;
    return l;
}

IsoSurfaceCreateInfo metaballs(uint32_t n) {
    IsoSurfaceCreateInfo info;
    info.samples = {n, n, n};
    info.vertexCapacity = 3000;
    info.source = FieldSource::Metaballs;
    return info;
}

} // namespace

TEST(IsoLayout, PyramidAndBufferSizesOfA65CubedGrid) {
    auto plan = iso::testing::planLayout(metaballs(65), lavapipeLimits());
    ASSERT_TRUE(plan.ok()) << plan.message();
    // 64^3 cells, fan-out 4 down to one element.
    const std::vector<uint32_t> levels = {262144, 65536, 16384, 4096, 1024, 256, 64, 16, 4, 1};
    EXPECT_EQ(plan->pyramidLevelSizes, levels);
    // Levels 0 (MC cases) and 1 as u8, 4 per word; the others 32-bit.
    uint64_t words = 0;
    for (size_t l = 0; l < levels.size(); ++l) words += l < 2 ? (levels[l] + 3) / 4 : levels[l];
    EXPECT_EQ(plan->pyramidBytes, words * 4);
    EXPECT_EQ(plan->fieldBytes, 65ull * 65 * 65 * 4);
    EXPECT_EQ(plan->vertexCapacity, 3000u);
    EXPECT_EQ(plan->vertexBytes, 3000ull * IsoSurface::vertexStride());
    EXPECT_EQ(plan->maxGroupsX, 65535u);
}

TEST(IsoLayout, OddGridsNeedNoPadding) {
    auto plan = iso::testing::planLayout(metaballs(2), lavapipeLimits());
    ASSERT_TRUE(plan.ok()) << plan.message();
    EXPECT_EQ(plan->pyramidLevelSizes, std::vector<uint32_t>{1});
    IsoSurfaceCreateInfo info = metaballs(2);
    info.samples = {38, 51, 24}; // 37 x 50 x 23 = 42550 cells
    info.vertexCapacity = 1000;  // rounded down to whole triangles
    plan = iso::testing::planLayout(info, lavapipeLimits(), {.maxGroupsX = 3});
    ASSERT_TRUE(plan.ok()) << plan.message();
    EXPECT_EQ(plan->pyramidLevelSizes.front(), 42550u);
    EXPECT_EQ(plan->pyramidLevelSizes[1], (42550u + 3) / 4);
    EXPECT_EQ(plan->pyramidLevelSizes.back(), 1u);
    EXPECT_EQ(plan->vertexCapacity, 999u);
    EXPECT_EQ(plan->maxGroupsX, 3u);
}

TEST(IsoLayout, LimitsAreNamedErrorsWithCodes) {
    IsoSurfaceCreateInfo info = metaballs(65);
    info.vertexCapacity = 8u << 20; // 8 Mi vertices x 32 bytes = 256 MiB > 128 MiB
    auto plan = iso::testing::planLayout(info, lavapipeLimits(), {}, "lavapipe");
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.code(), ErrorCode::DeviceLimit);
    EXPECT_NE(plan.message().find("vertexCapacity"), std::string::npos) << plan.message();
    EXPECT_NE(plan.message().find("maxStorageBufferRange"), std::string::npos) << plan.message();
    EXPECT_NE(plan.message().find("'lavapipe'"), std::string::npos) << plan.message();

    info = metaballs(65);
    info.samples[1] = 1;
    plan = iso::testing::planLayout(info, lavapipeLimits());
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(plan.message().find("samples.y = 1"), std::string::npos) << plan.message();

    info = metaballs(65);
    info.timingFrames = 2; // must exceed framesInFlight (2)
    plan = iso::testing::planLayout(info, lavapipeLimits());
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(plan.message().find("timingFrames"), std::string::npos) << plan.message();
}
