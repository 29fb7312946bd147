// CPU-only: the raster fragment shader's default SPIR-V declares no subgroup
// capability (a device without them must not be handed a module declaring
// them, whatever a specialization constant would skip), and the
// subgroup-append variant declares the ones the host checks for.
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

// SPIR-V 1.5 enumerants (spec section 3.31) and OpCapability.
constexpr uint32_t kOpCapability = 17;
constexpr uint32_t kGroupNonUniform = 61, kGroupNonUniformArithmetic = 63, kGroupNonUniformBallot = 64;

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
