// Field source: particles (FieldSource::Particles). Everything particle
// specific of a surface: its sizing and checks (field_particles.cpp), the
// dense field passes, either the gather (SplatMethod::Gather:
// field_particles_gather.cpp; the bins, the sorted particles, the
// smoothing, density and kernel records) or the scatter
// (SplatMethod::Scatter: field_particles_splat.cpp; the accumulator), the
// tiles the field pass flags for the direct brick list
// (field_particles.cpp), and on a sparse domain the bricked passes
// (field_particles_sparse.cpp: the bins per brick, the sub-cells and home
// list, the smoothing, density and kernel records by particle index, the
// block slots and the blocks the volume builds of classify and extraction
// read). The particles' ring (Impl::items) is shared with metaballs.
#pragma once

#include <cstdint>
#include <string>

#include "stage.h"

namespace pyramarch::iso {

struct ParticleProvider {
    bool gather = false; // SplatMethod::Gather (dense only)
    bool smooth = false; // particle position smoothing (with aniso, done by the aniso pass)
    bool aniso = false;  // anisotropic kernels
    bool sph = false;    // ParticleKernel::SphCubicSpline: the density pass, the SPH builds
    // The gather's passes after the sort read the bin starts and their
    // records through texel buffers (the *.texel.comp builds,
    // particles_reads.glsl) where maxTexelBufferElements covers them, else
    // (and under testing::Knobs::storageReads) through storage buffers.
    bool texelReads = false;
    // The bricked per-particle passes (sparse_particles_density.comp) read
    // the sub-cells, the references, the particles and the smoothed
    // particles through texel buffers (the .texel builds) where the module
    // owns the particle ring and maxTexelBufferElements covers each, else
    // (a host particle buffer, testing::Knobs::storageReads) through storage.
    bool sparseTexelReads = false;
    // Sparse: a count per brick of the grid, the listed bricks' sub-cells.
    uint64_t tableBytes = 0, cellBytes = 0;

    // Dense: the scatter's accumulator; on the direct brick table the field
    // pass's tiles holding a nonzero sample.
    Buffer accum, tileFlags;
    Buffer binCount, binChunks, binStart, slots, sorted; // the gather's bins and sorted particles
    Buffer smoothed; // particleSmoothing > 0: smoothed sorted particles (sparse: by particle index)
    Buffer rebinned; // particleSmoothing > 0, dense: smoothed particles sorted again
    Buffer kernels;  // anisotropic: kIsoAnisoRecordVec4s vec4 per sorted particle (sparse: by particle index)
    // sph: the density pass's (xyz, volume) per sorted particle; sparse: a volume per particle of the frame.
    Buffer volumes;
    Buffer brickTable, superMarks; // sparse: per brick and super-brick (sparse_particles_bin.comp)
    Buffer cellTable;              // sparse: the listed bricks' sub-cells (sparse_particles_cells.glsl)
    // Sparse: the block slots kept with their bricks from frame to frame
    // (sparse_particles_slots.comp): per brick of the grid its last slot,
    // per slot its owner and stamp (zeroed by the first frame), the free list.
    Buffer slotOfBrick, slotState, freeSlots;
    bool slotStateCleared = false;

    ComputePipeline splatPipe, resolvePipe; // the scatter's field pass and its resolve
    ComputePipeline countPipe, binScanPipe, binScanTopPipe, sortPipe, gatherPipe, smoothPipe, anisoPipe;
    ComputePipeline densityPipe;   // SphCubicSpline: particles_density.comp (sparse: sparse_particles_density.comp)
    ComputePipeline sparseBinPipe; // sparse: count and fill
    // Sparse: each listed brick's own samples, then its block's border from
    // its neighbours (sparse_particles_blocks.comp).
    ComputePipeline sparseBlocksPipe, sparseBordersPipe;
    ComputePipeline sparseSlotsPipe;
    BufferRef volumesRef; // the density pass's volumes as imported (dense and sparse); attributes weigh by them

    // planLayout: the create-info's particle fields against the limits, the
    // splat method, the grid's particle constants and the gather's bins.
    Status plan(Impl& m, gpu::IsoGrid& g, const DeviceLimits& lim, const std::string& dev);
    // planSparseDomain: the brick table, the sub-cells and the blocks
    // pass's workgroup.
    Status planSparse(Impl& m, const gpu::IsoGrid& g, const DeviceLimits& lim, uint64_t range, const std::string& dev);
    // planLayout, once the sizes are known: texel or storage reads.
    void planReads(Impl& m, const DeviceLimits& lim);
    Status createBuffers(Impl& m, const MakeBuffer& make);       // dense and the sparse records
    Status createSparseBuffers(Impl& m, const MakeBuffer& make); // the sparse tables and slots
    Status createPipelines(Impl& m);                             // dense: gather or scatter
    Status createSparsePipelines(Impl& m);
    void importBuffers(Impl& m, RenderGraph& graph, IsoRefs& refs);
    // Dense: the gather's or the scatter's passes (the frame's first).
    void addPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs);
    // Sparse, before the brick lists: "<name>.sparse.table.clear", ".sparse.count".
    void addSparseCountPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs);
    // Sparse, after the brick lists: the sub-cells and homes, smoothing,
    // density, kernels, the block slots and the blocks.
    void addSparseBlockPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs);
    // The field pass's tiles (gather or resolve: kIsoGatherColumn x
    // kIsoGatherRows samples) holding a nonzero sample, flagged for the
    // bricks' list (tileFlagsRef: the field stands in without flags).
    static uint64_t tiles(const gpu::IsoGrid& g);
    static BufferRef tileFlagsRef(const IsoRefs& refs);

private:
    Status createGatherPipelines(Impl& m);
    Status createSplatPipelines(Impl& m);
    void addGatherPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs);
    void addSplatPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs);
    void bindReads(PassBuilder& pass, BufferRef starts, BufferRef records) const;
    // Bindings 1, 3, 4 of the bricked per-particle passes: texel or storage reads.
    void bindSparseReads(PassBuilder& pass, const IsoRefs& refs, bool particles = true) const;
    void addSparseBinPass(Impl& m, RenderGraph& graph, const IsoRefs& refs, const char* suffix, uint32_t mode) const;
};

} // namespace pyramarch::iso
