#include "pyramarch/engine/shader_compiler.h"

#include <shaderc/shaderc.hpp>

namespace pyramarch {

Result<std::vector<uint32_t>> compileGlsl(const GlslSource& source) {
    if (source.text.empty()) return Status::error(ErrorCode::InvalidArgument, source.name + ": empty GLSL source");
    shaderc::Compiler compiler;
    if (!compiler.IsValid()) return Status::error(ErrorCode::Unsupported, "shaderc compiler could not be initialised");
    shaderc::CompileOptions options;
    options.SetTargetEnvironment(shaderc_target_env_vulkan, shaderc_env_version_vulkan_1_3);
    options.SetTargetSpirv(shaderc_spirv_version_1_5);
    options.SetOptimizationLevel(source.optimize ? shaderc_optimization_level_performance
                                                 : shaderc_optimization_level_zero);
    for (const auto& [name, value] : source.defines) options.AddMacroDefinition(name, value);
    shaderc_shader_kind kind = shaderc_glsl_compute_shader;
    switch (source.stage) {
    case ShaderStage::Vertex: kind = shaderc_glsl_vertex_shader; break;
    case ShaderStage::Geometry: kind = shaderc_glsl_geometry_shader; break;
    case ShaderStage::Fragment: kind = shaderc_glsl_fragment_shader; break;
    case ShaderStage::Compute: kind = shaderc_glsl_compute_shader; break;
    }
    shaderc::SpvCompilationResult result =
        compiler.CompileGlslToSpv(source.text.data(), source.text.size(), kind, source.name.c_str(), "main", options);
    if (result.GetCompilationStatus() != shaderc_compilation_status_success) {
        std::string message = result.GetErrorMessage();
        while (!message.empty() && message.back() == '\n') message.pop_back();
        if (message.empty()) message = source.name + ": compilation failed";
        return Status::error(ErrorCode::ParseError, message);
    }
    return std::vector<uint32_t>(result.cbegin(), result.cend());
}

} // namespace pyramarch
