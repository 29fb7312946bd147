// CPU-only: the isosurface module's sizing and validation (layout.cpp) is
// pure, so grids, pyramids, buffer sizes and limit errors are checked here
// without a Vulkan device.
#include <gtest/gtest.h>

#include "pyramarch/isosurface/testing.h"

using namespace pyramarch;
using namespace pyramarch::iso;
// The measured variants (testing::Knobs).
using iso::testing::ExtractionMethod;
using iso::testing::FieldEvaluation;
using iso::testing::SplatMethod;

namespace {

// Limits of Mesa lavapipe 22.3.
DeviceLimits lavapipeLimits() {
    DeviceLimits l{};
    for (int a = 0; a < 3; ++a) l.maxComputeWorkGroupCount[a] = 65535;
    for (int a = 0; a < 3; ++a) l.maxComputeWorkGroupSize[a] = a < 2 ? 1024 : 64;
    l.maxComputeWorkGroupInvocations = 1024;
    l.maxStorageBufferRange = 128ull << 20;
    l.maxTexelBufferElements = 128u << 20;
    l.maxBufferSize = 1ull << 31;
    l.maxMemoryAllocationSize = 1ull << 31;
    l.minStorageBufferOffsetAlignment = 16;
    l.deviceType = VK_PHYSICAL_DEVICE_TYPE_CPU;
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
    // Levels 0 (MC cases) and 1 as u8, 4 per word; the others 32-bit, each
    // a whole number of uvec4s (the walk loads 4 children at once): the
    // top level (1 element) takes 4 words.
    uint64_t words = 0;
    for (size_t l = 0; l < levels.size(); ++l) words += l < 2 ? (levels[l] + 3) / 4 : (levels[l] + 3) / 4 * 4;
    EXPECT_EQ(plan->pyramidBytes, words * 4);
    // 4 bytes per sample in whole 16-byte texels, 5 more for classify's row reads.
    EXPECT_EQ(plan->fieldBytes, ((65ull * 65 * 65 + 3) / 4 + 5) * 16);
    EXPECT_EQ(plan->vertexCapacity, 3000u);
    EXPECT_EQ(plan->vertexBytes, 3000ull * IsoSurface::vertexStride());
    EXPECT_EQ(plan->maxGroupsX, 65535u);
    EXPECT_TRUE(plan->texelReads);
}

// The passes read through texel buffers only where one view covers the
// field (floats, the whole padded buffer), one the pyramid (uvec4 quads)
// and one the ball ring; a device with a smaller maxTexelBufferElements gets
// the storage-buffer variants, not an error.
TEST(IsoLayout, TexelReadsWhereTheTexelLimitCoversFieldAndPyramid) {
    DeviceLimits limits = lavapipeLimits();
    auto plan = iso::testing::planLayout(metaballs(65), limits);
    ASSERT_TRUE(plan.ok()) << plan.message();
    const uint64_t fieldTexels = plan->fieldBytes / 4, quads = plan->pyramidBytes / 16;
    ASSERT_LT(quads, fieldTexels);
    EXPECT_EQ(plan->pyramidBytes % 16, 0u); // whole quads
    EXPECT_EQ(plan->fieldBytes % 16, 0u);
    limits.maxTexelBufferElements = uint32_t(fieldTexels);
    plan = iso::testing::planLayout(metaballs(65), limits);
    ASSERT_TRUE(plan.ok());
    EXPECT_TRUE(plan->texelReads);
    IsoSurfaceCreateInfo manyBalls = metaballs(65);
    manyBalls.maxBalls = uint32_t(fieldTexels); // 2 texels per ball and ring slot: the ring no longer fits
    plan = iso::testing::planLayout(manyBalls, limits);
    ASSERT_TRUE(plan.ok()) << plan.message();
    EXPECT_FALSE(plan->texelReads);
    limits.maxTexelBufferElements = uint32_t(fieldTexels - 1); // the field no longer fits one view
    plan = iso::testing::planLayout(metaballs(65), limits);
    ASSERT_TRUE(plan.ok()) << plan.message();
    EXPECT_FALSE(plan->texelReads);
    limits.maxTexelBufferElements = 65536; // Vulkan's minimum
    plan = iso::testing::planLayout(metaballs(65), limits);
    ASSERT_TRUE(plan.ok()) << plan.message();
    EXPECT_FALSE(plan->texelReads);
    plan = iso::testing::planLayout(metaballs(65), lavapipeLimits(), {.storageReads = true});
    ASSERT_TRUE(plan.ok());
    EXPECT_FALSE(plan->texelReads);
}

// The cell-order layout (the scan's) has one pyramid element
// per cell; the direct brick table (the default) one per
// cell of every brick's 32 row pairs of 16 cells, short last bricks padded.
TEST(IsoLayout, OddGridsNeedNoPaddingInCellOrderAndWholeBricksOtherwise) {
    auto plan =
        iso::testing::planLayout(metaballs(2), lavapipeLimits(), {.extraction = iso::testing::ExtractionMethod::Scan});
    ASSERT_TRUE(plan.ok()) << plan.message();
    EXPECT_EQ(plan->pyramidLevelSizes, std::vector<uint32_t>{1});
    plan = iso::testing::planLayout(metaballs(2), lavapipeLimits(), {});
    ASSERT_TRUE(plan.ok()) << plan.message();
    EXPECT_EQ(plan->pyramidLevelSizes, (std::vector<uint32_t>{512, 128, 32, 8, 2, 1})) << "one brick";
    IsoSurfaceCreateInfo info = metaballs(2);
    info.samples = {38, 51, 24}; // 37 x 50 x 23 = 42550 cells
    info.vertexCapacity = 1000;  // rounded down to whole triangles
    plan = iso::testing::planLayout(info, lavapipeLimits(),
                                    {.extraction = iso::testing::ExtractionMethod::Scan, .maxGroupsX = 3});
    ASSERT_TRUE(plan.ok()) << plan.message();
    EXPECT_EQ(plan->pyramidLevelSizes.front(), 42550u);
    EXPECT_EQ(plan->pyramidLevelSizes[1], (42550u + 3) / 4);
    EXPECT_EQ(plan->pyramidLevelSizes.back(), 1u);
    EXPECT_EQ(plan->vertexCapacity, 999u);
    EXPECT_EQ(plan->maxGroupsX, 3u);
    plan = iso::testing::planLayout(info, lavapipeLimits(), {.maxGroupsX = 3});
    ASSERT_TRUE(plan.ok()) << plan.message();
    EXPECT_EQ(plan->pyramidLevelSizes.front(), 5u * 7u * 3u * 512u); // 5 x 7 x 3 bricks
    EXPECT_EQ(plan->pyramidLevelSizes.back(), 1u);
    EXPECT_EQ(plan->vertexCapacity, 999u);
}

TEST(IsoLayout, LimitsAreNamedErrorsWithCodes) {
    IsoSurfaceCreateInfo info = metaballs(65);
    // 2 Gi vertex bytes + a triangle: past maxBufferSize (2 GiB here).
    info.vertexCapacity = (64u << 20) + 3;
    auto plan = iso::testing::planLayout(info, lavapipeLimits(), {}, "lavapipe");
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.code(), ErrorCode::DeviceLimit);
    EXPECT_NE(plan.message().find("vertexCapacity"), std::string::npos) << plan.message();
    EXPECT_NE(plan.message().find("maxBufferSize"), std::string::npos) << plan.message();
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

    // The pyramid build's 256-thread groups are above the 128 invocations
    // Vulkan guarantees.
    DeviceLimits small = lavapipeLimits();
    small.maxComputeWorkGroupSize[0] = 128;
    plan = iso::testing::planLayout(metaballs(65), small, {}, "small");
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.code(), ErrorCode::DeviceLimit);
    EXPECT_NE(plan.message().find("workgroups of 256 invocations; the device allows 128 on device 'small'"),
              std::string::npos)
        << plan.message();
}

// A fused user field has no field buffer, so the field's size does not bound
// its grid: 431^3 samples (320 MiB of floats) plan on lavapipe's 128 MiB
// range fused, with texel reads (the pyramid's view covers it), and are
// refused with a buffer, the message naming the field and the way out.
TEST(IsoLayout, FusedUserFieldsAreNotBoundByTheFieldBuffer) {
    IsoSurfaceCreateInfo info;
    info.samples = {431, 431, 431};
    info.vertexCapacity = 3u << 20;
    info.source = FieldSource::UserGlsl;
    info.fieldGlsl = "float field(vec3 p) { return 0.6 - length(p); }";
    info.lipschitz = 1.f;
    info.compileGlsl = [](const GlslSource&) -> Result<std::vector<uint32_t>> { return std::vector<uint32_t>{}; };
    const iso::testing::Knobs fusedKnobs{.fieldEvaluation = FieldEvaluation::Fused};
    auto fused = iso::testing::planLayout(info, lavapipeLimits(), fusedKnobs, "lavapipe");
    ASSERT_TRUE(fused.ok()) << fused.message();
    EXPECT_EQ(fused.value().fieldBytes, 0u);
    EXPECT_TRUE(fused.value().texelReads);
    EXPECT_LE(fused.value().pyramidBytes, lavapipeLimits().maxStorageBufferRange);

    auto buffer =
        iso::testing::planLayout(info, lavapipeLimits(), {.fieldEvaluation = FieldEvaluation::Buffer}, "lavapipe");
    ASSERT_FALSE(buffer.ok());
    EXPECT_EQ(buffer.code(), ErrorCode::DeviceLimit);
    EXPECT_NE(buffer.message().find("the field of 431x431x431 samples"), std::string::npos) << buffer.message();
    EXPECT_NE(buffer.message().find("FieldEvaluation::Fused"), std::string::npos) << buffer.message();

    // Past the pyramid's range, fused grids go sparse (the module's choice).
    EXPECT_FALSE(fused.value().sparse.enabled);
    info.samples = {520, 520, 520};
    auto tooBig = iso::testing::planLayout(info, lavapipeLimits(), fusedKnobs, "lavapipe");
    ASSERT_TRUE(tooBig.ok()) << tooBig.message();
    EXPECT_TRUE(tooBig.value().sparse.enabled);
    EXPECT_GT(tooBig.value().sparse.maxBricks, 0u);
    EXPECT_GT(tooBig.value().sparse.maxRowPairs, 0u);
}

// A cell emits at most 15 vertices and every vertex total is a 32-bit sum:
// grids that could wrap it are refused, even where the storage range (4 GiB
// on desktop GPUs) would hold their field.
TEST(IsoLayout, VertexTotalsThatCouldPass32BitsAreRefused) {
    DeviceLimits big = lavapipeLimits();
    big.maxStorageBufferRange = 0xFFFFFFFFull;
    big.maxBufferSize = 1ull << 34;
    IsoSurfaceCreateInfo info = metaballs(660);
    info.samples = {660, 660, 660}; // 659^3 = 286,191,179 cells: 15 x cells < 2^32
    auto plan = iso::testing::planLayout(info, big);
    ASSERT_TRUE(plan.ok()) << plan.message();
    info.samples = {661, 661, 661}; // 660^3 = 287,496,000 cells: 15 x cells > 2^32
    plan = iso::testing::planLayout(info, big);
    ASSERT_TRUE(plan.ok()) << plan.message();
    EXPECT_TRUE(plan->sparse.enabled) << "the module lays the grid out in bricks";
    // The scan has no sparse domain: refused, naming both.
    plan = iso::testing::planLayout(info, big, {.extraction = ExtractionMethod::Scan});
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.code(), ErrorCode::DeviceLimit);
    EXPECT_NE(plan.message().find("as a sparse domain"), std::string::npos) << plan.message();
    EXPECT_NE(plan.message().find("287496000 cells"), std::string::npos) << plan.message();
    EXPECT_NE(plan.message().find("286331153 cells per surface"), std::string::npos) << plan.message();
}

// Folded dispatches must fit maxComputeWorkGroupCount[1] too: 65^3 samples
// are 4292 groups of 64, folded under x <= 3 into 3 x 1431.
TEST(IsoLayout, FoldedDispatchesRespectTheYLimit) {
    DeviceLimits limits = lavapipeLimits();
    limits.maxComputeWorkGroupCount[1] = 1431;
    auto plan = iso::testing::planLayout(metaballs(65), limits, {.maxGroupsX = 3});
    ASSERT_TRUE(plan.ok()) << plan.message();
    limits.maxComputeWorkGroupCount[1] = 1430;
    plan = iso::testing::planLayout(metaballs(65), limits, {.maxGroupsX = 3}, "tiny");
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.code(), ErrorCode::DeviceLimit);
    EXPECT_NE(plan.message().find("3 x 1431 workgroups"), std::string::npos) << plan.message();
    EXPECT_NE(plan.message().find("maxComputeWorkGroupCount[1] (1430)"), std::string::npos) << plan.message();
}

// SplatMethod::Auto: gather on CPU drivers (and devices of unknown type),
// scatter on GPUs, gather whenever smoothing or anisotropic kernels need the
// sorted particles, scatter when the gather's bins would not fit; an
// explicit method is kept (and a gather that does not fit is an error).
TEST(IsoLayout, AutoSplatPicksByDeviceTypeAndWhatTheSurfaceNeeds) {
    IsoSurfaceCreateInfo info;
    info.samples = {65, 65, 65};
    info.vertexCapacity = 3000;
    info.source = FieldSource::Particles;
    info.maxParticles = 1000;
    info.particleRadius = 0.05f;
    iso::testing::Knobs knobs;
    ASSERT_EQ(knobs.splat, SplatMethod::Auto);
    const auto resolved = [&](const DeviceLimits& limits) {
        auto plan = iso::testing::planLayout(info, limits, knobs);
        EXPECT_TRUE(plan.ok()) << plan.message();
        return plan.ok() ? plan->splat : SplatMethod::Auto;
    };
    DeviceLimits cpu = lavapipeLimits(), gpu = lavapipeLimits(), other = lavapipeLimits();
    gpu.deviceType = VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
    other.deviceType = VK_PHYSICAL_DEVICE_TYPE_OTHER;
    EXPECT_EQ(resolved(cpu), SplatMethod::Gather);
    EXPECT_EQ(resolved(other), SplatMethod::Gather);
    EXPECT_EQ(resolved(gpu), SplatMethod::Scatter);
    gpu.deviceType = VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU;
    EXPECT_EQ(resolved(gpu), SplatMethod::Scatter);
    info.particleSmoothing = 0.5f;
    EXPECT_EQ(resolved(gpu), SplatMethod::Gather);
    info.particleSmoothing = 0.f;
    info.anisotropic.enabled = true;
    EXPECT_EQ(resolved(gpu), SplatMethod::Gather);
    info.anisotropic.enabled = false;
    knobs.splat = SplatMethod::Gather;
    EXPECT_EQ(resolved(gpu), SplatMethod::Gather);
    knobs.splat = SplatMethod::Scatter;
    EXPECT_EQ(resolved(cpu), SplatMethod::Scatter);
    // Bins past the storage range (a radius of many samples grows them):
    // Auto scatters, an explicit gather is a DeviceLimit error.
    info.samples = {300, 300, 300};
    info.particleRadius = 0.5f;
    knobs.splat = SplatMethod::Auto;
    EXPECT_EQ(resolved(cpu), SplatMethod::Scatter);
    knobs.splat = SplatMethod::Gather;
    auto plan = iso::testing::planLayout(info, cpu, knobs);
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.code(), ErrorCode::DeviceLimit);
    EXPECT_NE(plan.message().find("particle gather needs"), std::string::npos) << plan.message();
    // Other sources: no splat.
    EXPECT_EQ(iso::testing::planLayout(metaballs(9), cpu)->splat, SplatMethod::Auto);
}

// The shaders turn cell and sample indices into coordinates with the
// module's multiply-shift constants instead of integer division: they must
// give n / d for every 32-bit n, for every grid size.
TEST(IsoLayout, DivisionConstantsMatchIntegerDivision) {
    std::vector<uint32_t> divisors;
    for (uint32_t d = 1; d <= 4100; ++d) divisors.push_back(d);
    for (uint32_t k = 12; k < 32; ++k)
        for (int64_t delta = -3; delta <= 3; ++delta) divisors.push_back(uint32_t((int64_t(1) << k) + delta));
    divisors.push_back(0xFFFFFFFFu);
    divisors.push_back(65535u * 65535u);
    uint64_t state = 0x9E3779B97F4A7C15ull;
    const auto next = [&] {
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        return uint32_t(state >> 16);
    };
    for (int i = 0; i < 2000; ++i) divisors.push_back(next() | 1u);
    uint64_t checked = 0, wrong = 0;
    for (const uint32_t d : divisors) {
        std::vector<uint32_t> ns = {0u,    1u,          d - 1,       d,           d + 1,      2 * d - 1,
                                    2 * d, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFEu, 0xFFFFFFFFu};
        // The multiples of d nearest the top of the range, and random values.
        const uint32_t top = 0xFFFFFFFFu / d * d;
        ns.insert(ns.end(), {top, top - 1, top - d, top - d + 1});
        for (int i = 0; i < 64; ++i) ns.push_back(next() ^ (next() << 16));
        for (const uint32_t n : ns) {
            ++checked;
            if (iso::testing::divideLikeTheGpu(n, d) != n / d && ++wrong < 10)
                ADD_FAILURE() << n << " / " << d << ": " << iso::testing::divideLikeTheGpu(n, d) << ", expected "
                              << n / d;
        }
    }
    EXPECT_EQ(wrong, 0u) << "of " << checked;
}

namespace {
IsoSurfaceCreateInfo sparseUser(uint32_t n) {
    IsoSurfaceCreateInfo info;
    info.samples = {n, n, n};
    info.vertexCapacity = 30000;
    info.source = FieldSource::UserGlsl;
    info.fieldGlsl = "float field(vec3 p) { return 0.5 - length(p); }";
    info.lipschitz = 1.f;
    info.sparse.enabled = true;
    info.sparse.maxBricks = 300000;
    info.sparse.maxRowPairs = 4000000;
    info.compileGlsl = [](const GlslSource&) -> Result<std::vector<uint32_t>> { return std::vector<uint32_t>{}; };
    return info;
}
} // namespace

// A sparse domain's pyramid is over its pool (maxRowPairs slots of 16
// cells), not its grid: a 2047^3 grid plans in lavapipe's 128 MiB, with no
// field buffer; what it needs from the other fields and its own limits are
// named errors.
TEST(IsoLayout, SparseDomainsAreSizedByTheirPool) {
    auto plan = iso::testing::planLayout(sparseUser(2048), lavapipeLimits());
    ASSERT_TRUE(plan.ok()) << plan.message();
    EXPECT_EQ(plan->fieldBytes, 0u);
    ASSERT_FALSE(plan->pyramidLevelSizes.empty());
    EXPECT_EQ(plan->pyramidLevelSizes[0], 4000000u * 16);
    EXPECT_LT(plan->pyramidBytes, 128ull << 20);
    EXPECT_GT(plan->pyramidBytes, 4000000ull * 16 * 4 / 3);

    auto expectError = [](IsoSurfaceCreateInfo info, ErrorCode code, const char* needle,
                          const iso::testing::Knobs& knobs = {}) {
        auto p = iso::testing::planLayout(info, lavapipeLimits(), knobs);
        ASSERT_FALSE(p.ok()) << needle;
        EXPECT_EQ(p.code(), code) << p.message();
        EXPECT_NE(p.message().find(needle), std::string::npos) << p.message();
    };
    IsoSurfaceCreateInfo info = sparseUser(2048);
    info.sparse.maxRowPairs = 6000000; // ~156 MB of pyramid
    expectError(info, ErrorCode::DeviceLimit, "sparse.maxRowPairs 6000000");
    // Volumes: the pool of surface bricks (11^3 samples each in the
    // volume's format) in up to 4 buffers of one binding's range, no field
    // buffer at 2048^3 samples.
    info = sparseUser(2048);
    info.source = FieldSource::Volume;
    info.lipschitz = 0.f;
    {
        // maxVolumeBricks 0: sized by the module (every brick of the grid would not fit the pools).
        auto sized = iso::testing::planLayout(info, lavapipeLimits());
        ASSERT_TRUE(sized.ok()) << sized.message();
        EXPECT_GT(sized->sparse.maxVolumeBricks, 0u);
        EXPECT_LE(sized->sparse.maxVolumeBricks, 100836u) << "F32 bricks: 4 pools of one range";
    }
    info.sparse.volumeFormat = VolumeFormat::U8;
    info.sparse.maxVolumeBricks = 100839; // 1331 bytes each: 127.99 MiB
    {
        auto volume = iso::testing::planLayout(info, lavapipeLimits());
        ASSERT_TRUE(volume.ok()) << volume.message();
        EXPECT_EQ(volume->fieldBytes, 0u);
        EXPECT_TRUE(volume->texelReads) << "one texel per pool sample fits maxTexelBufferElements";
    }
    // Indexed output: each vertex from its owner brick's block.
    info.indexed = true;
    info.indexCapacity = 3000;
    EXPECT_TRUE(iso::testing::planLayout(info, lavapipeLimits()).ok());
    info.indexed = false;
    info.sparse.maxVolumeBricks = 100840; // a second buffer
    EXPECT_TRUE(iso::testing::planLayout(info, lavapipeLimits()).ok());
    info.sparse.maxVolumeBricks = 4 * 100839 + 1;
    expectError(info, ErrorCode::DeviceLimit, "at most 403356 bricks");
    info.sparse.volumeFormat = VolumeFormat::F32;
    info.sparse.maxVolumeBricks = 4 * 25209 + 1;
    expectError(info, ErrorCode::DeviceLimit, "at most 100836 bricks");
    // Metaballs: no Lipschitz constant, no field buffer at 2047^3; each
    // listed brick's ball list (2 words) and the references (default 4 a
    // brick) in one buffer of maxStorageBufferRange.
    info = sparseUser(2048);
    info.source = FieldSource::Metaballs;
    info.lipschitz = 0.f;
    info.maxBalls = 1000;
    {
        auto balls = iso::testing::planLayout(info, lavapipeLimits());
        ASSERT_TRUE(balls.ok()) << balls.message();
        EXPECT_EQ(balls->fieldBytes, 0u);
    }
    // Particles: a count per brick of the virtual grid (64 MiB at 2047^3
    // fits; 4095^3 does not), and a block of
    // 11^3 F32 samples per listed brick in up to 4 buffers of one binding's
    // range (lavapipe: 4 x 25,209 bricks).
    {
        IsoSurfaceCreateInfo particles = sparseUser(2048);
        particles.source = FieldSource::Particles;
        particles.lipschitz = 0.f;
        particles.maxParticles = 1000;
        // The default references (256 a brick) stop at what the binding holds besides the lists.
        EXPECT_EQ(sparseItemRefCapacity(particles, lavapipeLimits()), (128u << 20) / 4 - 2 * 300000);
        // 300,000 bricks' blocks need 1.5 GiB.
        expectError(particles, ErrorCode::DeviceLimit, "sample blocks of maxBricks 300000");
        expectError(particles, ErrorCode::DeviceLimit, "at most 100836 bricks");
        // The sub-cells' run ends (514 words a listed brick) in one binding
        // hold fewer: 65,280, less the home list (2 words a particle).
        EXPECT_EQ(maxSparseParticleBricks(lavapipeLimits()), 65280u);
        particles.sparse.maxBricks = maxSparseParticleBricks(lavapipeLimits()) - 3;
        auto plan = iso::testing::planLayout(particles, lavapipeLimits());
        ASSERT_TRUE(plan.ok()) << plan.message();
        EXPECT_EQ(plan->fieldBytes, 0u);
        EXPECT_TRUE(plan->texelReads) << "one texel per block sample fits maxTexelBufferElements";
        // The blocks pass spreads a brick's slices over 288 invocations a
        // group; a device that allows fewer gets a named error, not a
        // pipeline that fails to create.
        DeviceLimits narrow = lavapipeLimits();
        narrow.maxComputeWorkGroupInvocations = 256;
        auto narrowPlan = iso::testing::planLayout(particles, narrow, {}, "narrow");
        ASSERT_FALSE(narrowPlan.ok());
        EXPECT_EQ(narrowPlan.code(), ErrorCode::DeviceLimit);
        EXPECT_NE(narrowPlan.message().find("workgroups of 288 invocations; the device allows 256"), std::string::npos)
            << narrowPlan.message();
        particles.sparse.maxBricks = maxSparseParticleBricks(lavapipeLimits()) - 2;
        expectError(particles, ErrorCode::DeviceLimit, "the sub-cells of maxBricks 65278");
        particles.sparse.maxBricks = 4 * 25209 + 1;
        expectError(particles, ErrorCode::DeviceLimit, "at most 100836 bricks");
        // A pool buffer forced down to 1,000 blocks: 4,000 bricks fit, 4,001 do not.
        iso::testing::Knobs small;
        small.volumePoolBricks = 1000;
        particles.sparse.maxBricks = 4000;
        EXPECT_TRUE(iso::testing::planLayout(particles, lavapipeLimits(), small).ok());
        particles.sparse.maxBricks = 4001;
        auto over = iso::testing::planLayout(particles, lavapipeLimits(), small);
        ASSERT_FALSE(over.ok());
        EXPECT_EQ(over.code(), ErrorCode::DeviceLimit);
        EXPECT_NE(over.message().find("at most 4000 bricks"), std::string::npos) << over.message();
        particles.sparse.maxBricks = 1000;
        EXPECT_EQ(sparseItemRefCapacity(particles, lavapipeLimits()), 1000u * kDefaultSparseParticleRefsPerBrick);
        particles.samples = {4096, 4096, 4096};
        expectError(particles, ErrorCode::DeviceLimit, "brick table of 134217728 bricks");
        // Smoothing and anisotropic kernels plan (their per-particle
        // records within one binding: 48 bytes a particle for the kernels).
        particles.samples = {64, 64, 64};
        particles.particleSmoothing = 0.5f;
        EXPECT_TRUE(iso::testing::planLayout(particles, lavapipeLimits()).ok());
        particles.anisotropic.enabled = true;
        EXPECT_TRUE(iso::testing::planLayout(particles, lavapipeLimits()).ok());
        particles.maxParticles = 3u << 20;
        expectError(particles, ErrorCode::DeviceLimit, "anisotropic kernels need");
    }
    info.sparse.maxItemRefs = 32u << 20; // 128 MiB of references + 2.3 MiB of lists
    expectError(info, ErrorCode::DeviceLimit, "item lists of maxBricks 300000 and maxItemRefs 33554432");
    info = sparseUser(64);
    expectError(info, ErrorCode::InvalidArgument, "FieldEvaluation::Fused or Auto",
                {.fieldEvaluation = FieldEvaluation::Buffer});
    info = sparseUser(64);
    info.lipschitz = 0.f; // every brick listed
    EXPECT_TRUE(iso::testing::planLayout(info, lavapipeLimits()).ok());
    info.lipschitz = -1.f;
    expectError(info, ErrorCode::InvalidArgument, "lipschitz >= 0");
    // Indexed output plans; its owner lookup (a brick hash of 2^20 entries
    // for 300,000 bricks, 32 slots and 8 neighbours a brick: 53.8 MiB) is
    // the limit; mesh smoothing post-processes it.
    info = sparseUser(64);
    info.indexed = true;
    info.indexCapacity = 3000;
    EXPECT_TRUE(iso::testing::planLayout(info, lavapipeLimits()).ok());
    info.sparse.maxBricks = 1000000;
    expectError(info, ErrorCode::DeviceLimit, "owner lookup of maxBricks 1000000");
    info.sparse.maxBricks = 300000;
    info.meshSmoothing.iterations = 2;
    EXPECT_TRUE(iso::testing::planLayout(info, lavapipeLimits()).ok());
    info = sparseUser(64);
    expectError(info, ErrorCode::InvalidArgument, "HistoPyramid", {.extraction = ExtractionMethod::Scan});
    info = sparseUser(64);
    info.sparse.maxBricks = 0; // sized by the module: every brick of 8 x 8 x 8
    {
        auto sized = iso::testing::planLayout(info, lavapipeLimits());
        ASSERT_TRUE(sized.ok()) << sized.message();
        EXPECT_EQ(sized->sparse.maxBricks, 512u);
        EXPECT_EQ(sized->sparse.maxRowPairs, 4000000u) << "given";
    }
    info.sparse.maxBricks = kMaxSparseBricks + 1;
    expectError(info, ErrorCode::InvalidArgument, "maxBricks");
    info = sparseUser(64);
    info.sparse.maxRowPairs = 0; // sized: every row pair of the listed bricks
    {
        auto sized = iso::testing::planLayout(info, lavapipeLimits());
        ASSERT_TRUE(sized.ok()) << sized.message();
        EXPECT_EQ(sized->sparse.maxRowPairs, std::min(300000u * 32u, maxSparseRowPairs(lavapipeLimits())));
    }
    info = sparseUser(64);
    info.samples = {kMaxSparseCellsPerAxis + 2, 64, 64};
    expectError(info, ErrorCode::InvalidArgument, "over the virtual grid's 8192 per axis");
    info = sparseUser(64);
    info.sparse.maxBricks = 40u << 20; // a 160 MiB brick list
    expectError(info, ErrorCode::DeviceLimit, "brick list's pair masks of maxBricks");
    // At the axis limit itself it plans.
    info = sparseUser(64);
    info.samples = {kMaxSparseCellsPerAxis + 1, kMaxSparseCellsPerAxis + 1, 2};
    EXPECT_TRUE(iso::testing::planLayout(info, lavapipeLimits()).ok());
}

// Vertex and index buffers past one maxStorageBufferRange: one buffer the
// shaders write through up to 16 bindings of one range each; past that, or
// past one buffer or allocation, a named DeviceLimit error.
TEST(IsoLayout, OutputBuffersSpanSeveralStorageBindings) {
    IsoSurfaceCreateInfo info = metaballs(65);
    info.vertexCapacity = 8u << 20; // 8 Mi vertices x 32 bytes = 256 MiB: two 128 MiB bindings
    auto plan = iso::testing::planLayout(info, lavapipeLimits());
    ASSERT_TRUE(plan.ok()) << plan.message();
    EXPECT_EQ(plan->vertexBytes, (8ull << 20) / 3 * 3 * 32);
    EXPECT_EQ(plan->vertexSlices, 2u);
    EXPECT_EQ(plan->vertexSliceElements, 4u << 20);
    // Within one binding: one slice.
    info.vertexCapacity = 3000;
    plan = iso::testing::planLayout(info, lavapipeLimits());
    ASSERT_TRUE(plan.ok()) << plan.message();
    EXPECT_EQ(plan->vertexSlices, 1u);

    // The largest capacities: 16 bindings, one 2 GiB allocation.
    const DeviceLimits lim = lavapipeLimits();
    EXPECT_EQ(iso::maxVertexCapacity(lim), (64u << 20) / 3 * 3);
    EXPECT_EQ(iso::maxIndexCapacity(lim), (512u << 20) / 3 * 3);
    info.vertexCapacity = iso::maxVertexCapacity(lim);
    plan = iso::testing::planLayout(info, lim);
    ASSERT_TRUE(plan.ok()) << plan.message();
    EXPECT_EQ(plan->vertexSlices, 16u);

    // Past 16 bindings (a device whose buffers could hold more).
    DeviceLimits big = lavapipeLimits();
    big.maxBufferSize = big.maxMemoryAllocationSize = 1ull << 34;
    info.vertexCapacity = (64u << 20) + 3;
    plan = iso::testing::planLayout(info, big, {}, "lavapipe");
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.code(), ErrorCode::DeviceLimit);
    EXPECT_NE(plan.message().find("vertexCapacity 67108867 needs 2147483712 bytes, over 16 storage bindings of "
                                  "4194304 (maxStorageBufferRange 134217728 bytes) of device 'lavapipe'"),
              std::string::npos)
        << plan.message();
    // Past one allocation, though maxBufferSize would take it.
    big = lavapipeLimits();
    big.maxBufferSize = 1ull << 32;
    plan = iso::testing::planLayout(info, big);
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.code(), ErrorCode::DeviceLimit);
    EXPECT_NE(plan.message().find("maxMemoryAllocationSize"), std::string::npos) << plan.message();

    // Indices: 40 M of them in two bindings of 32 Mi.
    info = metaballs(65);
    info.indexed = true;
    info.indexCapacity = 40000002;
    plan = iso::testing::planLayout(info, lavapipeLimits());
    ASSERT_TRUE(plan.ok()) << plan.message();
    EXPECT_EQ(plan->indexBytes, 160000008u);
    EXPECT_EQ(plan->indexSlices, 2u);
    EXPECT_EQ(plan->indexSliceElements, 32u << 20);
    // Mesh smoothing binds its per-index slots whole: 8 bytes an index.
    info.meshSmoothing.iterations = 2;
    plan = iso::testing::planLayout(info, lavapipeLimits());
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.code(), ErrorCode::DeviceLimit);
    EXPECT_NE(plan.message().find("meshSmoothing: the triangle slots of indexCapacity 40000002"), std::string::npos)
        << plan.message();

    // The testing knob: small slices, rounded to the offset alignment (64
    // here) and whole elements.
    DeviceLimits aligned = lavapipeLimits();
    aligned.minStorageBufferOffsetAlignment = 64;
    info = metaballs(65);
    info.vertexCapacity = 300;
    info.indexed = true;
    info.indexCapacity = 3000;
    plan = iso::testing::planLayout(info, aligned, {.outputSliceBytes = 1000});
    ASSERT_TRUE(plan.ok()) << plan.message();
    EXPECT_EQ(plan->vertexSliceElements, 30u); // 960 bytes
    EXPECT_EQ(plan->vertexSlices, 10u);
    EXPECT_EQ(plan->indexSliceElements, 240u);
    EXPECT_EQ(plan->indexSlices, 13u);
}
