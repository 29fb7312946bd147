// What a run-time GLSL compiler takes and the callback type modules accept.
// Header-only: using these types links nothing. The compiler itself,
// pyramarch::compileGlsl (shader_compiler.h), is the optional
// `shader_compiler` component of the package; a host that ships only
// precompiled SPIR-V never links it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pyramarch/engine/status.h"

namespace pyramarch {

enum class ShaderStage { Vertex, Geometry, Fragment, Compute };

struct GlslSource {
    std::string_view text; // required, complete GLSL (#version included)
    ShaderStage stage = ShaderStage::Compute;
    std::string name = "shader.glsl"; // used in error messages: name:line: error
    std::vector<std::pair<std::string, std::string>> defines;
    bool optimize = true;
};

// GLSL -> SPIR-V (Vulkan 1.3 environment, SPIR-V 1.5 at most). On failure
// the Status message should carry the diagnostics as "<name>:<line>: error: ...".
// pyramarch::compileGlsl is one; a host may pass its own (its glslang, a
// cache of SPIR-V keyed by the source).
using GlslCompiler = std::function<Result<std::vector<uint32_t>>(const GlslSource&)>;

} // namespace pyramarch
