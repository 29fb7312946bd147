#include "sample/voxel_remesh_job.h"

#include <algorithm>
#include <map>

#include "pyramarch/engine/device.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/isosurface/isosurface.h"
#include "pyramarch/voxelizer/field.h"
#include "pyramarch/voxelizer/iso_bridge.h"

namespace sample {

using namespace pyramarch;

namespace {

// Bricks of 8^3 cells with an occupied voxel among their 9^3 samples: the
// pool the surface needs for these leaves (what its mark pass counts).
uint32_t markedBricks(const std::vector<voxel::LeafVoxel>& leaves, const voxel::VoxelGrid& grid) {
    uint32_t nb[3];
    for (int a = 0; a < 3; ++a) nb[a] = std::max(1u, (grid.dims[a] - 1 + 7) / 8);
    std::vector<uint8_t> marked(size_t(nb[0]) * nb[1] * nb[2]);
    uint32_t count = 0;
    for (const voxel::LeafVoxel& l : leaves) {
        const uint32_t v[3] = {l.x, l.y, l.z};
        uint32_t lo[3], hi[3];
        for (int a = 0; a < 3; ++a) {
            hi[a] = std::min(v[a] / 8, nb[a] - 1);
            lo[a] = v[a] % 8 == 0 && v[a] > 0 ? v[a] / 8 - 1 : v[a] / 8;
        }
        for (uint32_t z = lo[2]; z <= hi[2]; ++z)
            for (uint32_t y = lo[1]; y <= hi[1]; ++y)
                for (uint32_t x = lo[0]; x <= hi[0]; ++x) {
                    uint8_t& m = marked[(size_t(z) * nb[1] + y) * nb[0] + x];
                    count += m == 0 ? 1u : 0u;
                    m = 1;
                }
    }
    return count;
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

    // The voxelization's own counts size the voxelizer; the surface starts
    // from the leaves' bricks and grows from what its stats report.
    voxel::VoxelizerCreateInfo vci;
    vci.maxResolution = std::max(1u, voxels.grid.maxDim());
    vci.maxVertices = uint32_t(std::max<size_t>(1, mesh.vertexCount()));
    vci.maxTriangles = uint32_t(std::max<size_t>(1, mesh.triangleCount()));
    vci.fragmentCapacity = std::max(voxels.stats.fragmentsNeeded, 1u);
    vci.tileCapacity = std::max(voxels.stats.tilesNeeded, 1u);
    vci.method = job.method;
    vci.solid = job.solid;
    vci.framesInFlight = 1;

    const uint32_t surfaceBricks = std::max(markedBricks(voxels.leaves, voxels.grid), 1u);
    iso::IsoSurfaceCreateInfo info;
    info.name = "remesh";
    info.samples = {voxels.grid.dims[0], voxels.grid.dims[1], voxels.grid.dims[2]};
    const voxel::SampleBounds b = voxel::voxelCentreBounds(voxels.grid);
    info.boundsMin = b.min;
    info.boundsMax = b.max;
    info.source = iso::FieldSource::Volume;
    info.isoValue = 0.5f;
    info.framesInFlight = 1;
    info.indexed = remesh.indexed;
    info.sparse.enabled = true;
    info.sparse.volumeInput = iso::SparseVolumeInput::OctreeLeaves;
    info.sparse.volumeFormat = iso::VolumeFormat::U8;
    info.sparse.maxVolumeBricks = surfaceBricks;
    info.sparse.maxBricks = surfaceBricks;
    // About 6 of a brick's 32 row pairs hold a cut cell on a smooth surface.
    info.sparse.maxRowPairs = std::min(surfaceBricks * 12u, iso::maxSparseRowPairs(device.limits()));
    info.vertexCapacity = uint32_t(std::min<uint64_t>(uint64_t(voxels.leaves.size()) * 6 + 3000, 1u << 22));
    if (remesh.indexed) info.indexCapacity = uint32_t(std::min<uint64_t>(uint64_t(info.vertexCapacity) * 6, 1u << 25));

    // Output buffers: as large as one buffer written through several storage bindings gets.
    const uint32_t maxVertices = iso::maxVertexCapacity(device.limits()) / 3 * 3;
    const uint32_t maxIndices = iso::maxIndexCapacity(device.limits()) / 3 * 3;
    info.vertexCapacity = std::min(info.vertexCapacity, maxVertices);
    if (remesh.indexed) info.indexCapacity = std::min(info.indexCapacity, maxIndices);

    RemeshJobResult out;
    for (;;) {
        ++out.attempts;
        auto vox = voxel::Voxelizer::create(device, vci);
        if (!vox) return vox.status().withContext(who);
        auto surface = iso::IsoSurface::create(device, info);
        if (!surface) return surface.status().withContext(who);
        RenderGraphOptions options;
        options.timingFrames = 3;
        RenderGraph graph(&device, options);
        PYRAMARCH_TRY_ASSIGN(const voxel::VoxelizerGraphRefs refs, (*vox)->addPasses(graph));
        iso::IsoSurface::GraphInputs in;
        in.octree = voxel::octreeLeafInput(refs, (*vox)->octreeDepth());
        PYRAMARCH_TRY((*surface)->addPasses(graph, in).status());
        PYRAMARCH_TRY(graph.compile());
        PYRAMARCH_TRY((*vox)->setMesh(mesh, voxels.grid, job.mode));
        std::vector<std::vector<PassTiming>> frameTimings;
        const uint32_t frames = 1 + remesh.timedFrames;
        for (uint32_t f = 0; f < frames; ++f) {
            Status rec;
            PYRAMARCH_TRY(submitAndWait(device, [&](VkCommandBuffer cmd) { rec = graph.execute(cmd); }));
            PYRAMARCH_TRY(rec);
            if (f > 0 || frames == 1) {
                std::vector<PassTiming> t = graph.latestTimings();
                if (!t.empty()) frameTimings.push_back(std::move(t));
            }
        }
        const auto stats = (*surface)->statsOfFrame((*surface)->framesRecorded() - 1);
        if (!stats) return Status::error(ErrorCode::InvalidState, who + "no stats for the last frame");
        // The bricks and pool grow to what the stats report; the output
        // buffers up to what one storage binding holds (past it the frame is
        // a reported, truncated result).
        const bool domainShort = stats->sparseBricksNeeded > info.sparse.maxBricks ||
                                 stats->sparseRowPairsNeeded > info.sparse.maxRowPairs ||
                                 stats->sparseVolumeBricksNeeded > info.sparse.maxVolumeBricks;
        const bool outputShort = stats->verticesNeeded > info.vertexCapacity / 3 * 3 ||
                                 (remesh.indexed && stats->indicesNeeded > info.indexCapacity / 3 * 3);
        const bool outputCanGrow =
            info.vertexCapacity < maxVertices || (remesh.indexed && info.indexCapacity < maxIndices);
        if ((domainShort || (outputShort && outputCanGrow)) && out.attempts < 4) {
            const iso::SparseDomain grown = iso::suggestSparseCapacity(*stats);
            info.sparse.maxBricks = std::max(info.sparse.maxBricks, grown.maxBricks);
            info.sparse.maxRowPairs =
                std::min(std::max(info.sparse.maxRowPairs, grown.maxRowPairs), iso::maxSparseRowPairs(device.limits()));
            info.sparse.maxVolumeBricks = std::max(info.sparse.maxVolumeBricks, grown.maxVolumeBricks);
            info.vertexCapacity = std::min(std::max(info.vertexCapacity, iso::suggestCapacity(*stats)), maxVertices);
            if (remesh.indexed)
                info.indexCapacity =
                    std::min(std::max(info.indexCapacity, iso::suggestIndexCapacity(*stats)), maxIndices);
            continue;
        }
        if (domainShort)
            return Status::error(ErrorCode::CapacityExceeded,
                                 who + "the sparse domain still overflows after " + std::to_string(out.attempts) +
                                     " attempts (" + std::to_string(stats->sparseRowPairsNeeded) + " row pairs, " +
                                     std::to_string(stats->sparseVolumeBricksNeeded) + " surface bricks needed)");
        out.triangles = (remesh.indexed ? stats->indicesNeeded : stats->verticesNeeded) / 3;
        out.trianglesWritten = (remesh.indexed ? stats->indicesWritten : stats->verticesWritten) / 3;
        out.truncated = outputShort;
        out.surfaceBricks = stats->sparseVolumeBricksNeeded;
        out.listedBricks = stats->sparseBricksNeeded;
        out.rowPairs = stats->sparseRowPairsNeeded;
        for (const auto& item : (*surface)->memoryReport()) {
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
        break;
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
