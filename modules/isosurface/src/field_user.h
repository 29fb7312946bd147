// Field source: user GLSL (FieldSource::UserGlsl), field_user.cpp: the
// host's `float field(vec3 p)` compiled at creation into the field pass
// (over the grid, or on the direct brick table with a Lipschitz bound over
// the tiles the listed bricks read), or fused into the module's passes
// (fusedSpirv: classify, extraction, the brick list's bounds and the
// sparse activate passes call field() themselves). Its sizing and
// pipelines; compileUserField (pyramarch/isosurface/isosurface.h) is the
// plain field pass's compile.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stage.h"

namespace pyramarch::iso {

struct UserFieldProvider {
    // field() contains a loop (its SPIR-V, probed at creation):
    // FieldEvaluation::Auto then keeps a buffer (see hasLoop()).
    bool loops = false;
    // A Lipschitz bound through a buffer on the direct brick table: the
    // field pass evaluates only the tiles the listed bricks read
    // (field_tiles.cpp); testing::Knobs::denseField turns it off.
    bool tiled = false;
    ComputePipeline field; // "<name>.field.user" (not fused)

    // planLayout (once Impl::fusedField and Impl::direct are known): the
    // compiler, the snippet and the bound, and whether the field is tiled.
    Status plan(Impl& m);
    Status createPipelines(Impl& m);
    // "<name>.field.user" over every sample (the frame's first pass); fused
    // or tiled: none here (tiled: addTiledFieldPass after the brick list).
    void addPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs);
    void addTiledFieldPass(Impl& m, RenderGraph& graph, const IsoRefs& refs, BufferRef list, BufferRef args);
    // One of the module's passes (its .comp text) compiled with the user's
    // field() (FieldEvaluation::Fused); `defines`: more #define lines before
    // the shader's text.
    static Result<std::vector<uint32_t>> fusedSpirv(const Impl& m, const char* shaderText, const char* what,
                                                    const std::string& defines = {});
    // Sparse domains: the activate passes (sparse_activate.glsl) around the
    // snippet: coarse (super-bricks) or fine (bricks).
    static Result<std::vector<uint32_t>> sparseActivateSpirv(const IsoSurfaceCreateInfo& info, bool coarse);
    // Whether the user's field() compiles to a loop (FieldEvaluation::Auto).
    static Result<bool> hasLoop(const IsoSurfaceCreateInfo& info);
};

} // namespace pyramarch::iso
