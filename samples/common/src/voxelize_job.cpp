#include "sample/voxelize_job.h"

#include "sample/mesh_files.h"

#include <algorithm>
#include <fstream>

#include "pyramarch/engine/device.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/voxelizer/export.h"
#include "pyramarch/voxelizer/shapes.h"

namespace sample {

using namespace pyramarch;
using namespace pyramarch::voxel;

bool endsWith(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Per-pass medians over frames that ran the same passes (the upper median
// for an even count: a value some frame measured). On a shared CPU driver
// single frames vary by tens of percent; the median of a few is steadier.
std::vector<PassTiming> medianTimings(const std::vector<std::vector<PassTiming>>& frames) {
    if (frames.empty()) return {};
    std::vector<PassTiming> out = frames.back();
    for (size_t p = 0; p < out.size(); ++p) {
        std::vector<double> ms;
        for (const auto& f : frames)
            if (p < f.size() && f[p].name == out[p].name) ms.push_back(f[p].milliseconds);
        std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
        out[p].milliseconds = ms[ms.size() / 2];
    }
    return out;
}

Result<TriangleMesh> loadJobMesh(const VoxelizeJob& job) {
    if (!job.meshPath.empty()) return loadMeshFile(job.meshPath);
    TriangleMesh mesh = shapes::byName(job.shape);
    if (mesh.indices.empty())
        return Status::error(ErrorCode::InvalidArgument,
                             "voxelize: unknown shape '" + job.shape + "' (sphere, torus, knot, box, diamond)");
    return mesh;
}

Result<VoxelizeJobResult> runVoxelizeJob(Device& device, const VoxelizeJob& job) {
    PYRAMARCH_TRY_ASSIGN(const TriangleMesh mesh, loadJobMesh(job));
    if (!job.outPath.empty() && !endsWith(job.outPath, ".ply") && !endsWith(job.outPath, ".txt"))
        return Status::error(ErrorCode::InvalidArgument,
                             "voxelize: output '" + job.outPath + "' must end in .ply or .txt");
    auto grid = defaultGrid(mesh, job.resolution);
    if (!grid) return grid.status();

    const uint64_t deviceRange = device.limits().maxStorageBufferRange;
    const uint64_t range = job.bufferLimit ? std::min<uint64_t>(job.bufferLimit, deviceRange) : deviceRange;
    const uint32_t maxFragments = uint32_t(std::min<uint64_t>(range / 16, UINT32_MAX));
    // The node pool is one buffer per node field (4 bytes per node each), so the
    // range bounds tiles at range / 32, not range / 256 as for 32-byte nodes in one buffer.
    const uint32_t maxTiles = maxTileCapacity(range);
    const uint64_t r = job.resolution;
    // A surface covers on the order of R^2 voxels, a few fragments each.
    uint32_t fragments = uint32_t(std::min<uint64_t>(std::max<uint64_t>(16 * r * r, 1u << 12), maxFragments));
    uint32_t tiles = uint32_t(std::min<uint64_t>(std::max<uint64_t>(2 * r * r, 1u << 10), maxTiles));
    if (job.initialFragmentCapacity) fragments = std::min(job.initialFragmentCapacity, maxFragments);
    if (job.initialTileCapacity) tiles = std::min(job.initialTileCapacity, maxTiles);

    VoxelizeJobResult out;
    out.grid = *grid;
    for (;;) {
        ++out.attempts;
        VoxelizerCreateInfo ci;
        ci.maxResolution = std::max(1u, grid->maxDim());
        ci.maxVertices = uint32_t(std::max<size_t>(1, mesh.vertexCount()));
        ci.maxTriangles = uint32_t(std::max<size_t>(1, mesh.triangleCount()));
        ci.fragmentCapacity = fragments;
        ci.tileCapacity = tiles;
        ci.method = job.method;
        ci.framesInFlight = 1;
        ci.solid = job.solid;
        auto v = Voxelizer::create(device, ci);
        if (!v) return v.status();
        PYRAMARCH_TRY((*v)->setMesh(mesh, *grid, job.mode));
        const uint32_t frames = std::max(1u, job.timedFrames);
        std::vector<std::vector<PassTiming>> frameTimings;
        for (uint32_t f = 0; f < frames; ++f) {
            Status rec;
            PYRAMARCH_TRY(submitAndWait(device, [&](VkCommandBuffer cmd) { rec = (*v)->record(cmd); }));
            PYRAMARCH_TRY(rec);
            // The first frame carries the pipeline JIT: timed only when it is the only one.
            if (f > 0 || frames == 1)
                if (auto t = (*v)->latestTimings()) frameTimings.push_back(std::move(t->passes));
        }
        auto stats = (*v)->readStats();
        if (!stats) return stats.status();
        out.stats = *stats;
        bool retry = false;
        if (stats->fragmentOverflow) {
            if (fragments >= maxFragments)
                return Status::error(ErrorCode::CapacityExceeded,
                                     "voxelize: " + std::to_string(stats->fragmentsNeeded) +
                                         " voxel fragments exceed the largest storage buffer (" +
                                         std::to_string(maxFragments) + " fragments of " + std::to_string(range) +
                                         " bytes); lower the resolution");
            fragments = std::min<uint32_t>(maxFragments, stats->fragmentsNeeded);
            retry = true;
        }
        if (stats->tileOverflow && !retry) {
            if (tiles >= maxTiles)
                return Status::error(ErrorCode::CapacityExceeded,
                                     "voxelize: the octree needs more than " + std::to_string(maxTiles) +
                                         " tiles (maxStorageBufferRange / " + std::to_string(8 * kNodeArrayBytes) +
                                         " bytes per tile and node array); lower the resolution");
            // A lower bound when the pool ran out above the leaves: grow by at least 2x.
            const uint64_t want = stats->tilesNeededIsLowerBound
                                      ? std::max<uint64_t>(uint64_t(tiles) * 2, stats->tilesNeeded)
                                      : stats->tilesNeeded;
            tiles = uint32_t(std::min<uint64_t>(maxTiles, want));
            retry = true;
        }
        if (retry) continue;
        if (job.solid && stats->solidOddColumns > 0)
            return Status::error(
                ErrorCode::InvalidArgument,
                "voxelize --solid: the mesh is not watertight: " + std::to_string(stats->solidOddColumns) + " of " +
                    std::to_string(uint64_t(grid->dims[1]) * grid->dims[2]) +
                    " voxel columns cross it an odd number of times (the solid fill needs a "
                    "closed mesh; without --solid the surface voxelizes as is)");
        auto tree = (*v)->readOctree();
        if (!tree) return tree.status();
        out.leaves = extractLeaves(*tree);
        out.timings = medianTimings(frameTimings);
        for (const auto& passes : frameTimings) {
            double total = 0;
            for (const PassTiming& t : passes) total += t.milliseconds;
            out.frameMilliseconds.push_back(total);
        }
        break;
    }
    if (!job.outPath.empty()) {
        PYRAMARCH_TRY(endsWith(job.outPath, ".ply") ? writeLeavesPly(job.outPath, out.leaves, out.grid)
                                                    : writeLeavesTxt(job.outPath, out.leaves, out.grid));
    }
    if (!job.statsPath.empty()) {
        std::ofstream f(job.statsPath);
        f << statsJson(out.stats, out.grid, out.leaves.size(), out.timings);
        if (!f) return Status::error(ErrorCode::Io, "voxelize: cannot write '" + job.statsPath + "'");
    }
    return out;
}

} // namespace sample
