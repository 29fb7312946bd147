// Sparse volumes fed by a voxel octree (SparseVolumeInput::OctreeLeaves),
// sparse_octree.cpp: the surface bricks from the octree's occupied leaves,
// every frame on the GPU; its buffers, pipelines, sizing and passes. The
// pool it fills is the sparse volume's (SparseVolumeStage).
#pragma once

#include <cstdint>

#include "stage.h"

namespace pyramarch::iso {

struct SparseOctreeStage {
    uint64_t tableBytes = 0; // a word per brick of the virtual grid
    // Per brick of the virtual grid its occupied samples and its pool slot;
    // the mark/scatter and activate passes' dispatch.
    Buffer brickCounts, brickSurface, args;
    ComputePipeline argsPipe, activatePipe;

    // planLayout (a sparse volume domain): the brick table of `g`'s bricks
    // (bricks per axis `b`) against one binding.
    Status plan(const IsoSurfaceCreateInfo& info, const gpu::IsoGrid& g, const uint32_t (&b)[3], uint64_t range,
                const std::string& dev);
    Status createBuffers(const MakeBuffer& make);
    Status createPipelines(Impl& m);
    // The host's octree buffers and this stage's into `refs`.
    void importBuffers(Impl& m, RenderGraph& graph, IsoRefs& refs, const OctreeLeafInput& octree);
    // After "<name>.sparse.clear": the pool cleared, the leaves marked and
    // scattered, the marked bricks activated.
    void addPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs);
};

} // namespace pyramarch::iso
