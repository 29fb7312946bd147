// CPU-only: the raster fragment shader's default SPIR-V declares no subgroup
// capability (a device without them must not be handed a module declaring
// them, whatever a specialization constant would skip), and the
// subgroup-append variant declares the ones the host checks for. Likewise
// Float64: only the exact-fallback variants (VOX_EXACT64) of the raster
// fragment shader and the small-triangle compute shader declare it, the
// host's shaderFloat64 check (Voxelizer::usesExactFallback) selects them.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <span>

namespace {

const uint32_t kRasterFrag[] =
#include "shaders/voxelizer/raster.frag.spv.inc"
    ;
const uint32_t kRasterFragSubgroup[] =
#include "shaders/voxelizer/raster.subgroup.frag.spv.inc"
    ;
const uint32_t kRasterFragExact64[] =
#include "shaders/voxelizer/raster.exact64.frag.spv.inc"
    ;
const uint32_t kRasterFragSubgroupExact64[] =
#include "shaders/voxelizer/raster.subgroup.exact64.frag.spv.inc"
    ;
const uint32_t kSmallTriangles[] =
#include "shaders/voxelizer/small_triangles.comp.spv.inc"
    ;
const uint32_t kSmallTrianglesExact64[] =
#include "shaders/voxelizer/small_triangles.exact64.comp.spv.inc"
    ;

// SPIR-V 1.5 enumerants (spec section 3.31) and OpCapability.
constexpr uint32_t kOpCapability = 17;
constexpr uint32_t kFloat64 = 10, kGroupNonUniform = 61, kGroupNonUniformArithmetic = 63, kGroupNonUniformBallot = 64;

std::set<uint32_t> capabilities(std::span<const uint32_t> words) {
    std::set<uint32_t> caps;
    EXPECT_EQ(words[0], 0x07230203u) << "SPIR-V magic";
    for (size_t i = 5; i < words.size();) {
        const uint32_t count = words[i] >> 16, opcode = words[i] & 0xffffu;
        if (count == 0 || i + count > words.size()) {
            ADD_FAILURE() << "malformed instruction at word " << i;
            break;
        }
        if (opcode == kOpCapability) caps.insert(words[i + 1]);
        i += count;
    }
    return caps;
}

} // namespace

TEST(RasterSpirv, DefaultDeclaresNoSubgroupCapability) {
    const auto caps = capabilities(kRasterFrag);
    EXPECT_FALSE(caps.empty()); // at least Shader: the parse found the capabilities
    for (uint32_t c : {kGroupNonUniform, kGroupNonUniformArithmetic, kGroupNonUniformBallot})
        EXPECT_EQ(caps.count(c), 0u) << "capability " << c;
}

TEST(RasterSpirv, SubgroupVariantDeclaresWhatTheHostChecks) {
    const auto caps = capabilities(kRasterFragSubgroup);
    for (uint32_t c : {kGroupNonUniform, kGroupNonUniformArithmetic, kGroupNonUniformBallot})
        EXPECT_EQ(caps.count(c), 1u) << "capability " << c;
}

TEST(RasterSpirv, OnlyTheExactVariantsDeclareFloat64) {
    for (std::span<const uint32_t> plain :
         {std::span<const uint32_t>(kRasterFrag), std::span<const uint32_t>(kRasterFragSubgroup),
          std::span<const uint32_t>(kSmallTriangles)}) {
        const auto caps = capabilities(plain);
        EXPECT_FALSE(caps.empty());
        EXPECT_EQ(caps.count(kFloat64), 0u);
    }
    for (std::span<const uint32_t> exact :
         {std::span<const uint32_t>(kRasterFragExact64), std::span<const uint32_t>(kRasterFragSubgroupExact64),
          std::span<const uint32_t>(kSmallTrianglesExact64)})
        EXPECT_EQ(capabilities(exact).count(kFloat64), 1u);
    // The subgroup + exact variant needs both; the exact one alone no subgroup operation.
    const auto both = capabilities(kRasterFragSubgroupExact64);
    const auto exactOnly = capabilities(kRasterFragExact64);
    for (uint32_t c : {kGroupNonUniform, kGroupNonUniformArithmetic, kGroupNonUniformBallot}) {
        EXPECT_EQ(both.count(c), 1u) << "capability " << c;
        EXPECT_EQ(exactOnly.count(c), 0u) << "capability " << c;
    }
}
