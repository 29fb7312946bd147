// Tiled field evaluation on the direct brick table (metaballs, user GLSL
// with a Lipschitz bound through a buffer), field_tiles.cpp: the tiles of
// kIsoFieldTile^3 samples the listed bricks read, flagged by the brick list,
// listed here, and the source's field pass over them only. Its buffers,
// pipeline and passes.
#pragma once

#include <cstdint>

#include "stage.h"

namespace pyramarch::iso {

struct FieldTileStage {
    // Which tiles the field pass evaluates this frame: a flag per tile, the
    // list (a 16-byte head, then a word per tile), its indirect dispatch.
    Buffer flags, list, args;
    ComputePipeline pipe;

    static uint64_t tiles(const gpu::IsoGrid& g); // tiles of the grid's samples
    Status createBuffers(const gpu::IsoGrid& g, const MakeBuffer& make);
    Status createPipeline(Impl& m);
    void importBuffers(Impl& m, RenderGraph& graph, IsoRefs& refs);
    // After the brick list: "<name>.field.tiles.{list,args}", then the
    // source's tiled field pass.
    void addPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs);
};

} // namespace pyramarch::iso
