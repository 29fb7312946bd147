// Run-time GLSL -> SPIR-V through libshaderc: the optional `shader_compiler`
// component, target pyramarch::shader_compiler
// (find_package(pyramarch CONFIG COMPONENTS shader_compiler)), so a host that
// ships only precompiled SPIR-V does not link a compiler. Modules that take
// GLSL at run time accept a GlslCompiler (glsl_source.h); pass this function.
#pragma once

#include <vector>

#include "pyramarch/engine/glsl_source.h"
#include "pyramarch/engine/status.h"

namespace pyramarch {

// On failure the Status message carries the compiler's diagnostics, one per
// line, each starting with "<name>:<line>: error:".
Result<std::vector<uint32_t>> compileGlsl(const GlslSource& source);

} // namespace pyramarch
