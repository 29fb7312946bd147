// Field source: user GLSL. compileUserField() wraps the host's
// `float field(vec3 p)` in the field shader and compiles it at creation with
// the host's compiler (IsoSurfaceCreateInfo::compileGlsl, e.g. the optional
// shader_compiler component); pass "<name>.field.user" runs it per sample.
#include "iso_glsl_text.h"
#include "iso_impl.h"

namespace pyramarch::iso {

Result<std::vector<uint32_t>> compileUserField(const std::string& fieldGlsl, const GlslCompiler& compileGlsl,
                                               const std::string& name) {
    const std::string& n = name;
    if (!compileGlsl)
        return Status::error(ErrorCode::Unsupported,
                             "isosurface '" + n +
                                 "': FieldSource::UserGlsl needs IsoSurfaceCreateInfo::compileGlsl "
                                 "(e.g. pyramarch::compileGlsl of the shader_compiler component)");
    if (fieldGlsl.empty())
        return Status::error(ErrorCode::InvalidArgument, "isosurface '" + n + "': fieldGlsl is empty");
    auto stripIncludes = [](std::string s) {
        size_t p;
        while ((p = s.find("#include")) != std::string::npos) s.erase(p, s.find('\n', p) - p);
        return s;
    };
    std::string src = "#version 460\n";
    src += kIsoText_iso_shared_h;
    src += stripIncludes(kIsoText_common_glsl);
    src += stripIncludes(kIsoText_field_common_glsl);
    src += R"(
layout(local_size_x = kIsoGroupSize) in;
layout(set = 0, binding = 0, std430) readonly buffer GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) writeonly buffer FieldBuf { float fieldOut[]; };
float iso_time;
vec4 iso_params[2];
float field(vec3 p);
void main() {
    iso_time = pc.time;
    iso_params[0] = pc.user0;
    iso_params[1] = pc.user1;
    uint index;
    vec3 p;
    if (!sampleIndex(grid, index, p)) return;
    fieldOut[index] = field(p);
}
#line 1
)";
    src += fieldGlsl;
    src += "\n";
    GlslSource gs;
    gs.text = src;
    gs.stage = ShaderStage::Compute;
    gs.name = n + ".fieldGlsl";
    auto spv = compileGlsl(gs);
    if (!spv)
        return Status::error(ErrorCode::ParseError,
                             "isosurface '" + n + "': user field GLSL does not compile:\n" + spv.message());
    return spv;
}

Status IsoSurface::Impl::createUserPipelines() {
    PYRAMARCH_TRY_ASSIGN(const std::vector<uint32_t> words,
                         compileUserField(info.fieldGlsl, info.compileGlsl, info.name));
    return makePipeline(fieldPipe, words, "field.user", 2, false);
}

void IsoSurface::Impl::addUserPasses(RenderGraph& graph, const IsoRefs& refs) {
    graph.addPass(info.name + ".field.user", PassKind::Compute)
        .pipeline(fieldPipe)
        .storage(0, refs.grid, R)
        .storage(1, refs.field, W)
        .record([this](PassContext& ctx) {
            beginFrame(ctx);
            ctx.pushConstants(push());
            dispatchFolded(ctx, groupsOf(grid.samples.w, gpu::kIsoGroupSize), maxGroupsX());
        });
}

} // namespace pyramarch::iso
