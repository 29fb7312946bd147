// The brick listing of the bricked pipeline, brick_list.cpp: which bricks
// classify runs over this frame, in a fixed order. On a grid that fits over
// the field buffer (direct, brick_list.comp): each brick's value bounds,
// the bricks the iso value cuts, their build groups and the dispatches. On a
// sparse domain: the super-bricks and bricks each source marks
// (sparse_activate.glsl, sparse_volume_activate.comp), scanned into the
// list in index order (sparse_order.comp), and after classify the cut row
// pairs' pool slots in list order (sparse_slot_order.comp). Its buffers,
// pipelines, sizing and passes.
#pragma once

#include <cstdint>

#include "stage.h"

namespace pyramarch::iso {

struct BrickListStage {
    // Sparse sizes (plan): the list (a word per brick), the slot records (a
    // word per row pair) and classify's staging (kIsoSlotStageWords words
    // per row pair), the listed super-bricks (a word each), the order's
    // marks, their words' bases and the pair masks (sparse_order.comp).
    uint64_t listBytes = 0, slotBytes = 0, stageBytes = 0, superBytes = 0;
    uint64_t markBytes = 0, baseBytes = 0, pairOrderBytes = 0;

    // Direct over the field buffer (Impl::directListed()): per brick its
    // value bounds; the listed bricks, build groups and group marks;
    // classify's and the listed build's dispatches.
    Buffer directBounds, directList, directArgs;
    ComputePipeline listPipe, buildListedPipe;
    bool boundsDirty = true; // volumes: the bounds follow the converted field

    // Sparse: the bricks listed this frame, classify's indirect dispatch,
    // per pool slot its record (listed brick << 5 | row pair) and what
    // classify staged there; the super-bricks the coarse pass listed and the
    // fine, list and slot passes' dispatches; the lists' order (marks,
    // bases, pair masks).
    Buffer brickList, sparseArgs, slotRecords, slotStage, superList, superArgs;
    Buffer orderMarks, orderBases, pairOrder;
    ComputePipeline supersPipe, activatePipe; // coarse and fine (sparse_activate.glsl; volumes: fine only)
    ComputePipeline orderPipe, slotOrderPipe; // sparse_order.comp, sparse_slot_order.comp

    // planLayout (a sparse domain, once `g`'s bricks and super-bricks are
    // known): the lists' sizes against one binding (`range`); sets
    // g.sparseOrderSupers.
    Status plan(const IsoSurfaceCreateInfo& info, gpu::IsoGrid& g, uint64_t range, const std::string& dev);
    Status createDirectBuffers(const gpu::IsoGrid& g, const MakeBuffer& make);
    Status createSparseBuffers(const MakeBuffer& make);
    // Direct: the list and the listed build (a bounded user field: the list
    // compiled with the snippet). Sparse: the order passes and the source's
    // activate passes.
    Status createDirectPipelines(Impl& m);
    Status createSparsePipelines(Impl& m);
    void importDirectBuffers(Impl& m, RenderGraph& graph, IsoRefs& refs);
    void importSparseBuffers(Impl& m, RenderGraph& graph, IsoRefs& refs);

    // Direct over the field buffer: "<name>.bricks.{clear,bounds,list,args}"
    // (then the field tiles and the tiled field pass, field_tiles.cpp);
    // `first`, `listedLevels`: the levels classify and the listed build write.
    void addDirectPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs, uint32_t first, uint32_t listedLevels);
    // After classify: "<name>.pyramid.<first>" over the listed bricks' build groups.
    void addListedBuild(Impl& m, RenderGraph& graph, const IsoRefs& refs, uint32_t first, uint32_t listedLevels);
    // Sparse: "<name>.sparse.clear" (the frame's first pass), then the lists:
    // "<name>.sparse.{supers,supers.order,supers.args,activate,bricks.order,list,args}"
    // (volumes: the upload or octree passes, then activate, order, list, args).
    void addClearPass(Impl& m, RenderGraph& graph, const IsoRefs& refs);
    void addListPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs);
    // One workgroup scanning marks or pair masks (sparse_order.comp's `mode`).
    void addOrderPass(Impl& m, RenderGraph& graph, const IsoRefs& refs, const char* suffix, uint32_t mode);
    // After classify: "<name>.sparse.slots.{order,place}".
    void addSlotOrderPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs);
};

} // namespace pyramarch::iso
