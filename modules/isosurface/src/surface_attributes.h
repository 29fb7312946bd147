// Surface attributes (IsoSurfaceCreateInfo::surfaceAttributes),
// surface_attributes.cpp: particle values interpolated onto the output
// vertices; its buffers, pipelines, sizing and passes.
#pragma once

#include <cstdint>
#include <vector>

#include "stage.h"

namespace pyramarch::iso {

struct SurfaceAttributeStage {
    uint32_t components = 0; // floats per particle and vertex; 0: no attributes
    std::vector<uint32_t> offsets;
    // The host's values (a ring of framesInFlight + 1 slots of maxParticles
    // x components floats), on a dense grid the same in binned order (and
    // re-binned with position smoothing), the per-vertex results, the
    // passes' dispatch and (sparse) a word per brick of the virtual grid.
    Buffer ring, sorted, rebinned, out, args, table;
    ComputePipeline sortPipe, argsPipe, pipe;
    std::vector<float> hostValues; // maxParticles x components, particle-major
    uint64_t version = 1;
    std::vector<uint64_t> slotVersion;
    BufferRef ringRef;
    BufferRef binnedRef, startsRef; // dense: the binned values and bins the interpolation reads

    // The create-info's attributes against the source and the device, with
    // output capacities `g` (creation and growth).
    Status check(const Impl& m, const gpu::IsoGrid& g) const;
    // planGrowth: the most vertices whose values fit one binding.
    static void limitGrowth(const IsoSurfaceCreateInfo& info, const DeviceLimits& lim, uint64_t& vertices);
    // Bytes of the per-vertex results at capacities `g` (growth's budget).
    uint64_t outputBytes(const gpu::IsoGrid& g) const { return uint64_t(g.vertexCapacity) * components * 4; }
    Status createBuffers(Impl& m, const MakeBuffer& make);
    // Growth: the per-vertex results at the grid's new capacity.
    Status createOutputBuffer(const gpu::IsoGrid& g, const MakeBuffer& make);
    Status createPipelines(Impl& m);
    // Dense gather: after a binning's sort (srcLevel as the sort's: 0, or
    // kIsoRebinSmoothed), the attributes moved to the binned order.
    void addSortPass(Impl& m, RenderGraph& graph, const IsoRefs& refs, BufferRef input, uint64_t inputRange,
                     uint32_t srcLevel, BufferRef slots, BufferRef starts);
    // After extraction and mesh smoothing: the per-vertex values (their buffer).
    BufferRef addPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs);
    void upload(const Impl& m); // this frame's ring slot, when stale
};

} // namespace pyramarch::iso
