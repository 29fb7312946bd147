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

    VoxelizeJobResult out;
    out.grid = *grid;
    VoxelizerCreateInfo ci; // no capacities: the voxelizer grows its buffers from its counters
    ci.maxResolution = std::max(1u, grid->maxDim());
    ci.method = job.method;
    ci.framesInFlight = 1; // each frame is waited for, so the next one grows from its counters
    ci.solid = job.solid;
    ci.memoryBudget = job.memoryBudget;
    if (job.bufferLimit) {
        // Fixed capacities no larger than the limit: a hard cap overflows instead of growing.
        const uint64_t range = std::min<uint64_t>(job.bufferLimit, device.limits().maxStorageBufferRange);
        ci.fragmentCapacity = uint32_t(std::max<uint64_t>(1, std::min<uint64_t>(range / 16, UINT32_MAX)));
        ci.tileCapacity = std::max(1u, maxTileCapacity(range));
    }
    auto v = Voxelizer::create(device, ci);
    if (!v) return v.status();
    // A frame that overflowed is followed by one with grown buffers; the
    // timed frames come after the last growth.
    const uint32_t timed = std::max(1u, job.timedFrames);
    constexpr uint32_t kMaxGrowthFrames = 8;
    std::vector<std::vector<PassTiming>> frameTimings;
    uint32_t growthFrames = 0;
    bool meshSet = false;
    for (uint32_t f = 0; f < timed; ++f) {
        // The mesh is set once and again after an overflow: setMesh is the
        // frame boundary where the voxelizer grows where the last frame
        // overflowed. Frames in between voxelize the mesh already on the
        // device (no upload), as a host re-voxelizing a static mesh does.
        // Growth past the device's largest buffers is, for the tool, an
        // overflow like one past the budget (exit code 3).
        if (!meshSet) {
            if (Status staged = (*v)->setMesh(mesh, *grid, job.mode); !staged) {
                if ((f > 0 || growthFrames > 0) && staged.code() == ErrorCode::DeviceLimit)
                    return Status::error(ErrorCode::CapacityExceeded, "voxelize: " + staged.message());
                return staged;
            }
            meshSet = true;
        }
        Status rec;
        PYRAMARCH_TRY(submitAndWait(device, [&](VkCommandBuffer cmd) { rec = (*v)->record(cmd); }));
        PYRAMARCH_TRY(rec);
        auto stats = (*v)->readStats();
        if (!stats) return stats.status();
        out.stats = *stats;
        if ((stats->fragmentOverflow || stats->tileOverflow) && growthFrames < kMaxGrowthFrames && !job.bufferLimit) {
            ++growthFrames;
            meshSet = false;
            frameTimings.clear();
            f = uint32_t(-1); // the timed frames start again after the growth
            continue;
        }
        // The first frame carries the pipeline JIT (and the first after a
        // growth new buffers): timed only when it is the only one.
        if (f > 0 || timed == 1)
            if (auto t = (*v)->latestTimings()) frameTimings.push_back(std::move(t->passes));
    }
    out.attempts = growthFrames + 1;
    if (job.bufferLimit && (out.stats.fragmentOverflow || out.stats.tileOverflow))
        return Status::error(ErrorCode::CapacityExceeded,
                             "voxelize: " + std::to_string(out.stats.fragmentsNeeded) +
                                 " voxel fragments exceed the buffer limit of " + std::to_string(job.bufferLimit) +
                                 " bytes (" + std::to_string(ci.fragmentCapacity) + " fragments fit; " +
                                 std::to_string(out.stats.tilesNeeded) + " octree tiles needed, " +
                                 std::to_string(ci.tileCapacity) + " fit); lower the resolution");
    if (out.stats.fragmentOverflow || out.stats.tileOverflow)
        return Status::error(ErrorCode::CapacityExceeded,
                             "voxelize: the voxelizer still overflowed after " + std::to_string(growthFrames) +
                                 " frames of growth (" + std::to_string(out.stats.fragmentsNeeded) + " fragments, " +
                                 std::to_string(out.stats.tilesNeeded) + " tiles needed)");
    if (job.solid && out.stats.solidOddColumns > 0)
        return Status::error(
            ErrorCode::InvalidArgument,
            "voxelize --solid: the mesh is not watertight: " + std::to_string(out.stats.solidOddColumns) + " of " +
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
