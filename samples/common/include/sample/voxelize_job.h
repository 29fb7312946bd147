// One-shot voxelization of a mesh file or built-in shape into files: the
// work behind `pyramarch voxelize --mesh file.obj|--shape name --res R
// --out voxels.(ply|txt) --stats stats.json` and the voxelize sample's
// sizing, so the command itself only parses arguments. Submits and waits on
// the device's queue: a tool's job, not the frame path, so it lives with the
// samples (target pyramarch_voxelize_job), not in the voxelizer library.
#pragma once

#include <string>
#include <vector>

#include "pyramarch/engine/render_graph.h"
#include "pyramarch/engine/status.h"
#include "pyramarch/voxelizer/voxelizer.h"

namespace pyramarch {
class Device;
}

namespace sample {

using pyramarch::Result;

struct VoxelizeJob {
    std::string meshPath;      // an OBJ, PLY, glTF or GLB file (mesh_files.h), or empty to use `shape`
    std::string shape;         // shapes::byName: sphere, torus, knot, box, diamond
    uint32_t resolution = 128; // R of the default grid (1..1024)
    std::string outPath;       // optional: .ply or .txt (by extension)
    std::string statsPath;     // optional: JSON (statsJson)
    pyramarch::voxel::VoxelMode mode = pyramarch::voxel::VoxelMode::Conservative;
    pyramarch::voxel::ConservativeMethod method = pyramarch::voxel::ConservativeMethod::Auto;
    // VoxelizerCreateInfo::solid: the inside voxels too. A mesh that is not
    // watertight (columns of odd parity) fails the job with their count.
    bool solid = false;
    // Frames recorded. The first carries the pipeline JIT: with more than one,
    // timings are the per-pass medians of the frames after it.
    uint32_t timedFrames = 2;
    // VoxelizerCreateInfo::memoryBudget: bytes the voxelizer's buffers may
    // grow to (0 = the device's limits only).
    uint64_t memoryBudget = 0;
    // Largest storage buffer the capacities may use, in bytes (0: the
    // device's maxStorageBufferRange). Non-zero fixes the capacities at that
    // size (they do not grow): a mesh needing more fails the job with
    // ErrorCode::CapacityExceeded, as on a device whose range is that small.
    uint64_t bufferLimit = 0;
};

struct VoxelizeJobResult {
    pyramarch::voxel::VoxelGrid grid;
    pyramarch::voxel::VoxelStats stats;
    std::vector<pyramarch::voxel::LeafVoxel> leaves;
    std::vector<pyramarch::PassTiming> timings; // per-pass medians of the timed frames (see timedFrames)
    std::vector<double> frameMilliseconds;      // GPU time of each timed frame (sum of its passes)
    uint32_t attempts = 0;                      // frames until none overflowed (the voxelizer grew in between)
};

// Whether `s` ends with `suffix` (the output files' kinds).
bool endsWith(const std::string& s, const std::string& suffix);
// Per-pass medians over frames that ran the same passes (the upper median
// for an even count: a value some frame measured).
std::vector<pyramarch::PassTiming> medianTimings(const std::vector<std::vector<pyramarch::PassTiming>>& frames);

// The job's mesh: its mesh file (sample::loadMeshFile) or built-in shape.
Result<pyramarch::voxel::TriangleMesh> loadJobMesh(const VoxelizeJob& job);

// The voxelizer grows its buffers after a frame that overflowed, so the
// result is never silently truncated; an error names what did not fit
// (the device's buffers, the memory budget).
Result<VoxelizeJobResult> runVoxelizeJob(pyramarch::Device& device, const VoxelizeJob& job);

} // namespace sample
