#include "sample/voxel_remesh_job.h"

#include <algorithm>

#include "pyramarch/engine/device.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/isosurface/isosurface.h"
#include "pyramarch/voxelizer/field.h"
#include "pyramarch/voxelizer/iso_bridge.h"

namespace sample {

using namespace pyramarch;

namespace {

// The surface's memory budget when none is given: a quarter of the largest
// device-local heap (IsoSurfaceCreateInfo::memoryBudget).
uint64_t defaultBudget(const Device& device) {
    uint64_t heap = 0;
    const VkPhysicalDeviceMemoryProperties& mp = device.memoryProperties();
    for (uint32_t h = 0; h < mp.memoryHeapCount; ++h)
        if (mp.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
            heap = std::max<uint64_t>(heap, mp.memoryHeaps[h].size);
    return (heap ? heap : (4ull << 30)) / 4;
}

} // namespace

Result<RemeshJobResult> runRemeshJob(Device& device, const VoxelizeJob& job, const VoxelizeJobResult& voxels,
                                     const RemeshJob& remesh) {
    const std::string who = "voxelize --remesh: ";
    if (!remesh.outPath.empty() && !endsWith(remesh.outPath, ".obj") && !endsWith(remesh.outPath, ".ply"))
        return Status::error(ErrorCode::InvalidArgument,
                             who + "output '" + remesh.outPath + "' must end in .obj or .ply");
    for (uint32_t d : voxels.grid.dims)
        if (d < 2)
            return Status::error(ErrorCode::InvalidArgument, who + "the voxel grid needs at least 2 voxels per axis");
    PYRAMARCH_TRY_ASSIGN(const voxel::TriangleMesh mesh, loadJobMesh(job));

    // The voxelization's own counts size the voxelizer; the surface is
    // created with no capacity and grows from what its stats report.
    voxel::VoxelizerCreateInfo vci;
    vci.maxResolution = std::max(1u, voxels.grid.maxDim());
    vci.maxVertices = uint32_t(std::max<size_t>(1, mesh.vertexCount()));
    vci.maxTriangles = uint32_t(std::max<size_t>(1, mesh.triangleCount()));
    vci.fragmentCapacity = std::max(voxels.stats.fragmentsNeeded, 1u);
    vci.tileCapacity = std::max(voxels.stats.tilesNeeded, 1u);
    vci.method = job.method;
    vci.solid = job.solid;
    vci.framesInFlight = 1;

    iso::IsoSurfaceCreateInfo info; // no capacity: the surface grows from its stats (grow() below)
    info.name = "remesh";
    info.samples = {voxels.grid.dims[0], voxels.grid.dims[1], voxels.grid.dims[2]};
    const voxel::SampleBounds b = voxel::voxelCentreBounds(voxels.grid);
    info.boundsMin = b.min;
    info.boundsMax = b.max;
    info.source = iso::FieldSource::Volume;
    info.isoValue = 0.5f;
    info.framesInFlight = 1;
    info.indexed = remesh.indexed;
    info.memoryBudget = remesh.memoryBudget;
    info.sparse.enabled = true;
    info.sparse.volumeInput = iso::SparseVolumeInput::OctreeLeaves;
    info.sparse.volumeFormat = iso::VolumeFormat::U8;
    auto surface = iso::IsoSurface::create(device, info);
    if (!surface) return surface.status().withContext(who);

    // One host graph: the voxelizer, then the surface reading its octree.
    // Built again (both modules' passes) after the surface grew.
    auto v = voxel::Voxelizer::create(device, vci);
    if (!v) return v.status().withContext(who);
    const std::unique_ptr<voxel::Voxelizer> vox = std::move(v).value();
    std::unique_ptr<RenderGraph> graph;
    const auto buildGraph = [&]() -> Status {
        graph.reset(); // the old graph never runs again: the passes move to the new one
        RenderGraphOptions options;
        options.timingFrames = 3;
        auto g = std::make_unique<RenderGraph>(&device, options);
        PYRAMARCH_TRY_ASSIGN(const voxel::VoxelizerGraphRefs refs, vox->addPasses(*g));
        iso::IsoSurface::GraphInputs in;
        in.octree = voxel::octreeLeafInput(refs, vox->octreeDepth());
        PYRAMARCH_TRY((*surface)->addPasses(*g, in).status());
        PYRAMARCH_TRY(g->compile());
        PYRAMARCH_TRY(vox->setMesh(mesh, voxels.grid, job.mode));
        graph = std::move(g);
        return {};
    };
    PYRAMARCH_TRY(buildGraph());

    // Frames until one has nothing left to grow (each frame is waited for,
    // so grow() reads its stats), then the timed frames.
    RemeshJobResult out;
    constexpr uint32_t kMaxGrowths = 8;
    const uint32_t frames = 1 + remesh.timedFrames;
    std::vector<std::vector<PassTiming>> frameTimings;
    for (uint32_t f = 0; f < frames; ++f) {
        Status rec;
        PYRAMARCH_TRY(submitAndWait(device, [&](VkCommandBuffer cmd) { rec = graph->execute(cmd); }));
        PYRAMARCH_TRY(rec);
        Result<bool> grown = (*surface)->grow();
        if (!grown) {
            // Past the device's largest output buffers the frames are a
            // reported, truncated result; past the budget (or a short
            // sparse domain) an error naming it.
            const auto last = (*surface)->statsOfFrame((*surface)->framesRecorded() - 1);
            const uint32_t outputBits = iso::kOverflowVertices | iso::kOverflowIndices;
            if (grown.code() != ErrorCode::DeviceLimit || !last || (last->overflowed & ~outputBits) != 0)
                return grown.status().withContext(who);
        } else if (*grown) {
            if (++out.growths > kMaxGrowths)
                return Status::error(ErrorCode::CapacityExceeded, who + "the surface still grew after " +
                                                                      std::to_string(kMaxGrowths) +
                                                                      " frames of growth");
            PYRAMARCH_TRY(buildGraph());
            frameTimings.clear();
            f = uint32_t(-1); // the frames start again on the grown surface
            continue;
        }
        if (f > 0 || frames == 1) {
            std::vector<PassTiming> t = graph->latestTimings();
            if (!t.empty()) frameTimings.push_back(std::move(t));
        }
    }
    const auto stats = (*surface)->statsOfFrame((*surface)->framesRecorded() - 1);
    if (!stats) return Status::error(ErrorCode::InvalidState, who + "no stats for the last frame");
    const uint32_t outputBits = iso::kOverflowVertices | iso::kOverflowIndices;
    if ((stats->overflowed & ~outputBits) != 0)
        return Status::error(ErrorCode::CapacityExceeded,
                             who + "the sparse domain still overflows after " + std::to_string(out.growths) +
                                 " growths (" + std::to_string(stats->sparseVolumeBricksNeeded) + " surface bricks, " +
                                 std::to_string(stats->sparseRowPairsNeeded) + " row pairs needed)");
    out.triangles = (remesh.indexed ? stats->indicesNeeded : stats->verticesNeeded) / 3;
    out.trianglesWritten = (remesh.indexed ? stats->indicesWritten : stats->verticesWritten) / 3;
    out.truncated = (stats->overflowed & outputBits) != 0;
    out.surfaceBricks = stats->sparseVolumeBricksNeeded;
    out.listedBricks = stats->sparseBricksNeeded;
    out.rowPairs = stats->sparseRowPairsNeeded;
    out.budgetBytes = remesh.memoryBudget ? remesh.memoryBudget : defaultBudget(device);
    for (const auto& item : (*surface)->memoryReport()) {
        if (item.name == "replaced") continue; // released after the frames in flight
        const bool output = item.name == "vertices" || item.name == "indices";
        (output ? out.outputBytes : out.residentBytes) += item.bytes;
    }
    out.timings = medianTimings(frameTimings);
    for (const auto& passes : frameTimings) {
        double total = 0;
        for (const PassTiming& t : passes) total += t.milliseconds;
        out.frameMilliseconds.push_back(total);
    }
    if (!remesh.outPath.empty()) {
        PYRAMARCH_TRY_ASSIGN(const iso::Mesh m, (*surface)->readMesh(true));
        PYRAMARCH_TRY(endsWith(remesh.outPath, ".ply") ? iso::writePly(m, remesh.outPath)
                                                       : iso::writeObj(m, remesh.outPath));
    }
    uint64_t bricks = 1, samples = 1, cells = 1;
    for (uint32_t d : voxels.grid.dims) {
        bricks *= (d - 1 + 7) / 8;
        samples *= d;
        cells *= d - 1;
    }
    out.bricks = bricks;
    out.denseBytes = samples * 4 + cells;
    return out;
}

} // namespace sample
