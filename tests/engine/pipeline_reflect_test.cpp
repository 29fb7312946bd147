// Set 0's descriptor types read from SPIR-V (PipelineLayoutDesc::bindingsFromSpirv).
#include <gtest/gtest.h>

#include <vector>

#include "pyramarch/engine/pipeline.h"

using namespace pyramarch;

namespace {
const uint32_t kReflectMixSpv[] =
#include "shaders/tests/reflect_mix.comp.spv.inc"
    ;
const uint32_t kTexelQuadsSpv[] =
#include "shaders/tests/texel_quads.comp.spv.inc"
    ;
} // namespace

TEST(PipelineReflect, EveryBufferKindAndAGap) {
    auto types = reflectSet0Bindings(kReflectMixSpv, "reflect_mix");
    ASSERT_TRUE(types.ok()) << types.message();
    const std::vector<VkDescriptorType> expected = {
        VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
        VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
        VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER,
        VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER,
        VK_DESCRIPTOR_TYPE_MAX_ENUM, // declared but unused: removed by the optimizer
        VK_DESCRIPTOR_TYPE_STORAGE_BUFFER};
    EXPECT_EQ(types.value(), expected);
    auto quads = reflectSet0Bindings(kTexelQuadsSpv, "texel_quads");
    ASSERT_TRUE(quads.ok()) << quads.message();
    EXPECT_EQ(quads.value(), (std::vector<VkDescriptorType>{VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER,
                                                            VK_DESCRIPTOR_TYPE_STORAGE_BUFFER}));
}

TEST(PipelineReflect, MalformedModulesAreErrors) {
    const std::vector<uint32_t> empty;
    EXPECT_FALSE(reflectSet0Bindings(empty, "empty").ok());
    std::vector<uint32_t> words(std::begin(kReflectMixSpv), std::end(kReflectMixSpv));
    words[0] = 0x12345678u; // not the SPIR-V magic
    auto notSpirv = reflectSet0Bindings(words, "bad magic");
    ASSERT_FALSE(notSpirv.ok());
    EXPECT_NE(notSpirv.message().find("bad magic"), std::string::npos) << notSpirv.message();
    words.assign(std::begin(kReflectMixSpv), std::end(kReflectMixSpv));
    words[5] = (1000u << 16) | (words[5] & 0xffffu); // first instruction runs past the end
    auto truncated = reflectSet0Bindings(words, "truncated");
    ASSERT_FALSE(truncated.ok());
    EXPECT_NE(truncated.message().find("malformed"), std::string::npos) << truncated.message();
}
