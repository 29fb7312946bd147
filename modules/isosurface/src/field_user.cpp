// Field source: user GLSL. compileUserField() wraps the host's
// `float field(vec3 p)` in the field shader and compiles it at creation with
// the host's compiler (IsoSurfaceCreateInfo::compileGlsl, e.g. the optional
// shader_compiler component); pass "<name>.field.user" runs it per sample.
// With IsoSurfaceCreateInfo::lipschitz > 0 on the direct brick table the
// bricks are bounded (brick_list.comp around the snippet, brick_list.cpp) and
// flag the tiles of 8^3 samples they read; "<name>.field.tiles.{list,args}"
// (field_tiles.cpp) list them and "<name>.field.user" evaluates only those,
// indirectly; fused, classify runs over the listed bricks.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <utility>

#include "field_user.h"

#include "iso_glsl_text.h"
#include "iso_impl.h"

namespace pyramarch::iso {
namespace {

// The module's GLSL files by include name, for the shaders compiled at
// creation around the user's snippet.
const std::pair<const char*, const char*> kIsoGlsl[] = {
    {"isosurface/iso_shared.h", kIsoText_iso_shared_h},
    {"isosurface/common.glsl", kIsoText_common_glsl},
    {"isosurface/field_common.glsl", kIsoText_field_common_glsl},
    {"isosurface/user_field.glsl", kIsoText_user_field_glsl},
    {"isosurface/mc_vertex.glsl", kIsoText_mc_vertex_glsl},
    {"isosurface/output_slices.glsl", kIsoText_output_slices_glsl},
    {"isosurface/cell_edge.glsl", kIsoText_cell_edge_glsl},
    {"isosurface/pyramid_find.glsl", kIsoText_pyramid_find_glsl},
    {"isosurface/vertex_owner.glsl", kIsoText_vertex_owner_glsl},
    {"isosurface/sparse_indexed.glsl", kIsoText_sparse_indexed_glsl},
    {"isosurface/sparse_pair_cases.glsl", kIsoText_sparse_pair_cases_glsl},
    {"isosurface/lipschitz_bounds.glsl", kIsoText_lipschitz_bounds_glsl},
    // Only inside sparse_*.comp's metaball and volume branches
    // (ISO_SPARSE_METABALLS, ISO_SPARSE_VOLUME), never
    // defined around a snippet: resolved, then skipped by the preprocessor.
    {"isosurface/sparse_metaball_field.glsl", kIsoText_sparse_metaball_field_glsl},
    {"isosurface/metaballs.glsl", kIsoText_metaballs_glsl},
    {"isosurface/sparse_item_refs.glsl", kIsoText_sparse_item_refs_glsl},
    {"isosurface/sparse_volume_field.glsl", kIsoText_sparse_volume_field_glsl},
    {"isosurface/dense_field.glsl", kIsoText_dense_field_glsl},
};

// `text` with every `#include "isosurface/..."` line replaced by that file,
// recursively (the files' include guards drop repeats); a name the table
// lacks is a module bug.
std::string resolveIncludes(const std::string& text) {
    std::string out;
    size_t pos = 0;
    for (size_t at; (at = text.find("#include \"", pos)) != std::string::npos;) {
        const size_t nameStart = at + 10, nameEnd = text.find('"', nameStart);
        const size_t lineEnd = text.find('\n', at);
        const std::string name = text.substr(nameStart, nameEnd - nameStart);
        out += text.substr(pos, at - pos);
        const auto* file =
            std::find_if(std::begin(kIsoGlsl), std::end(kIsoGlsl), [&](const auto& f) { return name == f.first; });
        PYRAMARCH_ASSERT(file != std::end(kIsoGlsl), "user field shader: an include the module did not embed");
        out += resolveIncludes(file->second);
        pos = lineEnd == std::string::npos ? text.size() : lineEnd;
    }
    return out + text.substr(pos);
}

// The module's GLSL (shared layouts, helpers) + what every user-field pass
// declares (workgroup size, the grid, user_field.glsl: the globals the
// snippet may read and isoBeginUserFrame() setting them) + `body` (its
// output, main) + the user's snippet, which defines field(); its lines keep
// their numbers (#line 1), so compile errors name the user's lines.
std::string userShaderSource(const std::string& fieldGlsl, const std::string& body) {
    std::string src = "#version 460\n";
    src += resolveIncludes(R"(
#include "isosurface/common.glsl"
#include "isosurface/field_common.glsl"
layout(local_size_x = kIsoGroupSize) in;
layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
#include "isosurface/user_field.glsl"
)");
    src += resolveIncludes(body);
    src += "\n#line 1\n";
    src += fieldGlsl;
    src += "\n";
    return src;
}

// One of the module's passes (`shaderText`, a .comp file) with the user's
// field() fused in (ISO_USER_FIELD) and the given defines.
std::string fusedShaderSource(const std::string& fieldGlsl, const char* shaderText, const std::string& defines) {
    std::string text = shaderText;
    const size_t version = text.find("#version 460");
    PYRAMARCH_ASSERT(version != std::string::npos, "user field shader: a pass without #version 460");
    text.erase(version, 12);
    return "#version 460\n#define ISO_USER_FIELD\n" + defines + resolveIncludes(text) + "\n#line 1\n" + fieldGlsl +
           "\n";
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
    // pc.srcLevel 0: one thread per sample. 1: a group per listed tile of
    // kIsoFieldTile^3 samples (field_tiles.comp), a thread per row of 8;
    // the same positions (isoSamplePosition), so the same values.
    return compileUserShader(userShaderSource(fieldGlsl, R"(
layout(set = 0, binding = 1, std430) writeonly buffer FieldBuf { float fieldOut[]; };
layout(set = 0, binding = 2, std430) readonly buffer TileListBuf {
    uvec4 tileHead;
    uint tiles[];
};
void main() {
    isoBeginUserFrame();
    // One structured if/else, no early return inside a branch: GPU-assisted
    // validation's instrumented copy of other shapes failed Mesa's SPIR-V parser.
    if (pc.srcLevel == 0u) {
        uint index;
        vec3 p;
        if (sampleIndex(grid, index, p)) fieldOut[index] = field(p);
    } else if (linearGroup() < tileHead.y) {
        const uint tile = tiles[linearGroup()];
        const uvec3 n = (grid.samples.xyz + kIsoFieldTile - 1u) / kIsoFieldTile;
        const uvec3 origin = uvec3(tile % n.x, (tile / n.x) % n.y, tile / (n.x * n.y)) * kIsoFieldTile;
        const uvec3 row = origin + uvec3(0u, gl_LocalInvocationIndex % kIsoFieldTile, gl_LocalInvocationIndex / kIsoFieldTile);
        const uint end = row.y < grid.samples.y && row.z < grid.samples.z ? min(row.x + kIsoFieldTile, grid.samples.x) : 0u;
        for (uint x = row.x; x < end; ++x)
            fieldOut[x + grid.samples.x * (row.y + grid.samples.y * row.z)] =
                field(isoSamplePosition(grid, uvec3(x, row.y, row.z)));
    }
}
)"),
                             compileGlsl, n, "");
}

Result<std::vector<uint32_t>> UserFieldProvider::fusedSpirv(const Impl& m, const char* shaderText, const char* what,
                                                            const std::string& more) {
    std::string defines = more;
    if (!m.texelReads) defines += "#define ISO_STORAGE_READS\n";
    if (m.subgroupAtomics) defines += "#define ISO_SUBGROUP_ATOMICS\n";
    return compileUserShader(fusedShaderSource(m.info.fieldGlsl, shaderText, defines), m.info.compileGlsl, m.info.name,
                             (std::string(" (") + what + ", FieldEvaluation::Fused)").c_str());
}

// Fused, classify evaluates field() ~1.25 times per cell of a listed brick
// and extraction twice per vertex plus the gradient's samples (12 more with
// central normals), where a field pass evaluates each sample once: a field
// whose cost is a loop (a sum over balls or octaves) pays that loop several
// times over. Measured on lavapipe, 64 metaballs as a user loop at 127^3
// (`pyramarch iso --glsl --field-evaluation`): 10.5-11.4 s fused against
// 0.38-0.43 s with a buffer; loop-free analytic fields ran 2x faster fused
// (docs/design-notes/2026-11-22-iso-pipeline-v2.md, "Fused user fields"). The wrapper
// (common.glsl, field_common.glsl, user_field.glsl) and the probe's main
// have no loops, so a loop in the probe is the snippet's.
// Sparse domains: sparse_activate.glsl around the snippet, with the
// constant's exact bits (as the bounds pass).
// Without a bound (lipschitz 0) the constant is +inf: every interval is
// (-inf, inf) (lipschitz_bounds.glsl), so every brick is listed.
Result<std::vector<uint32_t>> UserFieldProvider::sparseActivateSpirv(const IsoSurfaceCreateInfo& info, bool coarse) {
    uint32_t bits = 0x7f800000u;
    if (info.lipschitz > 0.f) std::memcpy(&bits, &info.lipschitz, 4);
    const std::string body = "#define ISO_LIPSCHITZ uintBitsToFloat(" + std::to_string(bits) + "u)\n" +
                             (coarse ? "#define ISO_SPARSE_COARSE\n" : "") + kIsoText_sparse_activate_glsl;
    return compileUserShader(userShaderSource(info.fieldGlsl, body), info.compileGlsl, info.name,
                             coarse ? " (sparse.supers pass)" : " (sparse.activate pass)");
}

Result<bool> UserFieldProvider::hasLoop(const IsoSurfaceCreateInfo& info) {
    const std::string probe = userShaderSource(info.fieldGlsl, R"(
layout(set = 0, binding = 1, std430) writeonly buffer ProbeBuf { float probeOut[]; };
void main() {
    isoBeginUserFrame();
    probeOut[gl_GlobalInvocationID.x] = field(vec3(gl_GlobalInvocationID));
}
)");
    PYRAMARCH_TRY_ASSIGN(const std::vector<uint32_t> words,
                         compileUserShader(probe, info.compileGlsl, info.name, " (loop probe)"));
    constexpr uint32_t kOpLoopMerge = 246;
    for (size_t i = 5; i < words.size();) { // past the SPIR-V header
        const uint32_t count = words[i] >> 16;
        if ((words[i] & 0xffffu) == kOpLoopMerge) return true;
        if (count == 0) break;
        i += count;
    }
    return false;
}

Status UserFieldProvider::plan(Impl& m) {
    const IsoSurfaceCreateInfo& info = m.info;
    if (!info.compileGlsl)
        return Status::error(ErrorCode::Unsupported,
                             "isosurface '" + info.name +
                                 "': FieldSource::UserGlsl needs IsoSurfaceCreateInfo::compileGlsl "
                                 "(e.g. pyramarch::compileGlsl of the shader_compiler component)");
    if (info.fieldGlsl.empty())
        return Status::error(ErrorCode::InvalidArgument, "isosurface '" + info.name + "': fieldGlsl is empty");
    if (!(std::isfinite(info.lipschitz) && info.lipschitz >= 0.f))
        return Status::error(ErrorCode::InvalidArgument,
                             "isosurface '" + info.name + "': lipschitz must be finite and >= 0 (0: no bound), got " +
                                 std::to_string(info.lipschitz));
    tiled = m.direct && info.lipschitz > 0.f && !m.denseFieldForced && !m.fusedField;
    return {};
}

Status UserFieldProvider::createPipelines(Impl& m) {
    if (!m.fusedField) {
        PYRAMARCH_TRY_ASSIGN(const std::vector<uint32_t> words,
                             compileUserField(m.info.fieldGlsl, m.info.compileGlsl, m.info.name));
        PYRAMARCH_TRY(m.makePipeline(field, words, "field.user", 3, false));
    }
    if (tiled) PYRAMARCH_TRY(m.fieldTiles.createPipeline(m));
    return {}; // the bricks' bounds: BrickListStage::listPipe (brick_list.cpp)
}

void UserFieldProvider::addPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs) {
    // Fused: no field pass (classify and extraction call field()).
    if (tiled || m.fusedField) return;
    graph.addPass(m.info.name + ".field.user", PassKind::Compute)
        .pipeline(field)
        .uniform(0, refs.grid)
        .storage(1, refs.field, W)
        .storage(2, refs.field, R) // no tile list: the field stands in, unread
        .record([&m](PassContext& ctx) {
            m.beginFrame(ctx);
            ctx.pushConstants(m.push());
            dispatchFolded(ctx, groupsOf(m.grid.samples.w, gpu::kIsoGroupSize), m.maxGroupsX());
        });
}

// The tiled field pass (pc.srcLevel 1): a group per tile the list names.
void UserFieldProvider::addTiledFieldPass(Impl& m, RenderGraph& graph, const IsoRefs& refs, BufferRef list,
                                          BufferRef args) {
    graph.addPass(m.info.name + ".field.user", PassKind::Compute)
        .pipeline(field)
        .uniform(0, refs.grid)
        .storage(1, refs.field, W)
        .storage(2, list, R)
        .use(args, Access::IndirectRead)
        .record(m.indirectDispatch(args, 0, 1));
}

} // namespace pyramarch::iso
