// Run-time GLSL -> SPIR-V through libshaderc. Lives in its own target
// (pyramarch::shader_compiler) so a host that ships only precompiled SPIR-V
// does not link a compiler.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pyramarch/engine/status.h"

namespace pyramarch {

enum class ShaderStage { Vertex, Geometry, Fragment, Compute };

struct GlslSource {
    std::string_view text;                 // required, complete GLSL (#version included)
    ShaderStage stage = ShaderStage::Compute;
    std::string name = "shader.glsl";       // used in error messages: name:line: error
    std::vector<std::pair<std::string, std::string>> defines;
    bool optimize = true;
};

// On failure the Status message carries the compiler's diagnostics, one per
// line, each starting with "<name>:<line>: error:".
Result<std::vector<uint32_t>> compileGlsl(const GlslSource& source);

} // namespace pyramarch
