// Mesh smoothing of the indexed output (IsoSurfaceCreateInfo::meshSmoothing),
// mesh_smooth.cpp: its buffers, pipelines, sizing and passes.
#pragma once

#include <array>
#include <cstdint>

#include "stage.h"

namespace pyramarch::iso {

struct MeshSmoothStage {
    bool enabled = false; // meshSmoothing.iterations > 0 (indexed only)
    // The scan's grid (binDims.w = vertices), per-vertex triangle counts,
    // scan chunk sums, slot starts, the slots (the other two vertices of a
    // triangle, uvec2 per index) and scratch positions.
    Buffer gridBuf, countBuf, chunkBuf, startBuf, listBuf, scratchBuf;
    ComputePipeline listsPipe, stepPipe, scanPipe, scanTopPipe;

    // planLayout: the create-info's meshSmoothing, against `indexed`.
    Status plan(const IsoSurfaceCreateInfo& info, bool indexed);
    // planOutputs: the buffers it binds whole at capacities `g` (asked for
    // as vertexCapacity / indexCapacity, named in the error).
    Status checkOutputs(const DeviceLimits& lim, const std::string& what, const std::string& dev, const gpu::IsoGrid& g,
                        uint32_t vertexCapacity, uint32_t indexCapacity) const;
    // planGrowth: the most vertices and indices those bindings hold.
    void limitGrowth(const DeviceLimits& lim, uint64_t& vertices, uint64_t& indices) const;
    // Bytes of its buffers at capacities `g` (growth's budget).
    uint64_t outputBytes(const gpu::IsoGrid& g) const;
    // Its buffers follow the output capacities: growth re-creates them.
    std::array<Buffer*, 6> sizedByOutputs() {
        return {&gridBuf, &countBuf, &chunkBuf, &startBuf, &listBuf, &scratchBuf};
    }
    static constexpr const char* kBufferNames[6] = {
        "mesh smoothing grid",   "mesh smoothing triangle counts", "mesh smoothing chunk sums",
        "mesh smoothing starts", "mesh smoothing triangle slots",  "mesh smoothing scratch positions"};

    Status createBuffers(const gpu::IsoGrid& grid, const MakeBuffer& make);
    Status createPipelines(Impl& m);
    // After the indexed passes (indices = their index buffer): smoothing steps, then normals.
    void addPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs, BufferRef indices);
};

} // namespace pyramarch::iso
