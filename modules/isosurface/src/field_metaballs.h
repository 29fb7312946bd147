// Field source: metaballs (FieldSource::Metaballs), field_metaballs.cpp:
// the field pass over the grid or (on the direct brick table) over the
// tiles the listed bricks read, how every pass reads the balls, and the
// builds a sparse domain runs for them (the activate passes the brick list
// runs, classify and extraction summing each brick's listed balls). Its
// sizing and pipelines; the balls' ring (Impl::items) is shared with particles.
#pragma once

#include <cstdint>
#include <span>

#include "stage.h"

namespace pyramarch::iso {

struct MetaballsProvider {
    // On the direct brick table: the field pass evaluates only the tiles the
    // listed bricks read (FieldTileStage); testing::Knobs::denseField turns it off.
    bool tiled = false;
    ComputePipeline field; // "<name>.field.metaballs"

    // planLayout: maxBalls (the items' capacity), and whether the field is tiled.
    Status plan(Impl& m);
    Status createPipelines(Impl& m);
    // The balls at `binding`: 2 texels of 4 floats per ball (Impl::texelReads)
    // or the storage buffer.
    void bindBalls(const Impl& m, PassBuilder& pass, const IsoRefs& refs, uint32_t binding = 1) const;
    // "<name>.field.metaballs" over the grid (the frame's first pass); tiled:
    // none here, addTiledFieldPass after the brick list.
    void addPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs);
    void addTiledFieldPass(Impl& m, RenderGraph& graph, const IsoRefs& refs, BufferRef list, BufferRef args);
    // Sparse domains: the activate passes' build (coarse: the super-bricks),
    // classify's and extraction's, with texel or storage reads.
    static std::span<const uint32_t> sparseActivateSpirv(bool texel, bool coarse);
    static std::span<const uint32_t> sparseClassifySpirv(bool texel);
    static std::span<const uint32_t> sparseExtractSpirv(bool texel);
};

} // namespace pyramarch::iso
