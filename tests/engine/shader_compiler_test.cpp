// Run-time GLSL through shaderc: valid code gives SPIR-V, broken code gives
// the compiler's message with the line number of the mistake.
#include <gtest/gtest.h>

#include "pyramarch/engine/shader_compiler.h"

using namespace pyramarch;

TEST(ShaderCompiler, CompilesValidCompute) {
    GlslSource src;
    src.text = "#version 460\nlayout(local_size_x = 8) in;\nlayout(std430, binding = 0) buffer B { float v[]; };\n"
               "void main() { v[gl_GlobalInvocationID.x] *= VALUE; }\n";
    src.defines = {{"VALUE", "2.0"}};
    auto spirv = compileGlsl(src);
    ASSERT_TRUE(spirv.ok()) << spirv.message();
    ASSERT_GT(spirv.value().size(), 5u);
    EXPECT_EQ(spirv.value()[0], 0x07230203u); // SPIR-V magic
}

TEST(ShaderCompiler, ErrorsCarryNameAndLine) {
    GlslSource src;
    src.name = "user_field.glsl";
    src.text =
        "#version 460\nlayout(local_size_x = 1) in;\nvoid main() {\n  float x = 1.0\n}\n"; // missing ';' on line 4
    auto spirv = compileGlsl(src);
    ASSERT_FALSE(spirv.ok());
    EXPECT_NE(spirv.message().find("user_field.glsl:"), std::string::npos) << spirv.message();
    EXPECT_NE(spirv.message().find(":5:"), std::string::npos) << spirv.message(); // glslang reports at the next token
    EXPECT_NE(spirv.message().find("error"), std::string::npos) << spirv.message();
}

TEST(ShaderCompiler, LineDirectiveMapsToUserLines) {
    // Modules prepend a prelude and reset numbering so errors point into the user's snippet.
    GlslSource src;
    src.name = "snippet";
    src.text =
        "#version 460\nlayout(local_size_x = 1) in;\n#line 1\nfloat f() { return undefined_name; }\nvoid main() {}\n";
    auto spirv = compileGlsl(src);
    ASSERT_FALSE(spirv.ok());
    EXPECT_NE(spirv.message().find("snippet:1:"), std::string::npos) << spirv.message();
    EXPECT_NE(spirv.message().find("undefined_name"), std::string::npos) << spirv.message();
}

TEST(ShaderCompiler, EmptySourceIsAnError) {
    GlslSource src;
    EXPECT_FALSE(compileGlsl(src).ok());
}
