// Field source: user GLSL. compileUserField() wraps the host's
// `float field(vec3 p)` in the field shader and compiles it at creation with
// the host's compiler (IsoSurfaceCreateInfo::compileGlsl, e.g. the optional
// shader_compiler component); pass "<name>.field.user" runs it per sample.
// With IsoSurfaceCreateInfo::lipschitz > 0, pass "<name>.field.user.bounds"
// (user_bounds.glsl wrapped the same way) lists the classify patches the
// surface may cross, every frame.
#include <cstring>

#include "iso_glsl_text.h"
#include "iso_impl.h"

namespace pyramarch::iso {
namespace {

// The module's GLSL (shared layouts, helpers) + what every user-field pass
// declares (workgroup size, the grid, the globals the snippet may read and
// isoBeginUserFrame() setting them) + `body` (its output, main) + the user's
// snippet, which defines field(); its lines keep their numbers (#line 1), so
// compile errors name the user's lines.
std::string userShaderSource(const std::string& fieldGlsl, const std::string& body) {
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
layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
float iso_time;
vec4 iso_params[2];
float field(vec3 p);
void isoBeginUserFrame() {
    iso_time = pc.time;
    iso_params[0] = pc.user0;
    iso_params[1] = pc.user1;
}
)";
    src += body;
    src += "\n#line 1\n";
    src += fieldGlsl;
    src += "\n";
    return src;
}

Result<std::vector<uint32_t>> compileUserShader(const std::string& src, const GlslCompiler& compileGlsl,
                                                const std::string& name, const char* what) {
    GlslSource gs;
    gs.text = src;
    gs.stage = ShaderStage::Compute;
    gs.name = name + ".fieldGlsl";
    auto spv = compileGlsl(gs);
    if (!spv)
        return Status::error(ErrorCode::ParseError, "isosurface '" + name + "': user field GLSL does not compile" +
                                                        what + ":\n" + spv.message());
    return spv;
}

// The bounds pass (user_bounds.glsl) with the constant's exact bits.
Result<std::vector<uint32_t>> compileUserBounds(const std::string& fieldGlsl, float lipschitz,
                                                const GlslCompiler& compileGlsl, const std::string& name) {
    uint32_t bits = 0;
    std::memcpy(&bits, &lipschitz, 4);
    const std::string body =
        "#define ISO_LIPSCHITZ uintBitsToFloat(" + std::to_string(bits) + "u)\n" + kIsoText_user_bounds_glsl;
    return compileUserShader(userShaderSource(fieldGlsl, body), compileGlsl, name, " (bounds pass, lipschitz > 0)");
}

} // namespace

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
    return compileUserShader(userShaderSource(fieldGlsl, R"(
layout(set = 0, binding = 1, std430) writeonly buffer FieldBuf { float fieldOut[]; };
void main() {
    isoBeginUserFrame();
    uint index;
    vec3 p;
    if (!sampleIndex(grid, index, p)) return;
    fieldOut[index] = field(p);
}
)"),
                             compileGlsl, n, "");
}

Status IsoSurface::Impl::createUserPipelines() {
    PYRAMARCH_TRY_ASSIGN(const std::vector<uint32_t> words,
                         compileUserField(info.fieldGlsl, info.compileGlsl, info.name));
    PYRAMARCH_TRY(makePipeline(fieldPipe, words, "field.user", 2, false));
    if (!grid.patchList) return {};
    PYRAMARCH_TRY_ASSIGN(const std::vector<uint32_t> bounds,
                         compileUserBounds(info.fieldGlsl, info.lipschitz, info.compileGlsl, info.name));
    return makePipeline(userBoundsPipe, bounds, "field.user.bounds", 2, false);
}

void IsoSurface::Impl::addUserPasses(RenderGraph& graph, const IsoRefs& refs) {
    graph.addPass(info.name + ".field.user", PassKind::Compute)
        .pipeline(fieldPipe)
        .uniform(0, refs.grid)
        .storage(1, refs.field, W)
        .record([this](PassContext& ctx) {
            beginFrame(ctx);
            ctx.pushConstants(push());
            dispatchFolded(ctx, groupsOf(grid.samples.w, gpu::kIsoGroupSize), maxGroupsX());
        });
    if (!grid.patchList) return;
    // Which patches the surface may cross this frame (time, parameters and
    // iso value change per frame), from the Lipschitz bound: user_bounds.glsl.
    graph.addPass(info.name + ".field.user.bounds", PassKind::Compute)
        .pipeline(userBoundsPipe)
        .uniform(0, refs.grid)
        .storage(1, refs.patchBounds, W)
        .record([this](PassContext& ctx) {
            ctx.pushConstants(push());
            dispatchFolded(ctx, groupsOf(grid.patchCount, gpu::kIsoGroupSize), maxGroupsX());
        });
}

} // namespace pyramarch::iso
