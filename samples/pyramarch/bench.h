// `pyramarch bench`: the one GPU benchmark driver of the project.
// Iso-surface scenarios (analytic fields at the Table 1 sizes of
// HPMC (Dyken et al. 2008), metaballs, particles with either splat) for the
// HistoPyramid, scan and indexed HistoPyramid strategies with any normal
// mode, and voxelizer scenarios with any octree build (occupancy levels, root
// descent as in Crassin & Green 2012, tile hash); per-pass GPU times,
// throughput, output sizes (triangles, leaves), GPU memory by structure and
// CPU record time, as a table and as JSON. The Google Benchmark programs in
// tests/bench measure CPU-side pieces, not GPU work.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace pyramarch::bench {

struct BenchOptions {
    std::string strategy = "both";          // histopyramid | scan | indexed | both (histopyramid + scan) | all
    std::vector<uint32_t> sizes;            // cells per axis of the field scenarios (default 31,63,127,255 for cayley)
    std::vector<std::string> fields;        // cayley, sphere, gyroid, metaballs, noise (default all)
    std::vector<std::string> groups;        // iso, particles, voxelizer (default all)
    std::vector<uint32_t> particleCounts;   // default 100000, 1000000
    std::vector<uint32_t> particleSizes;    // cells per axis, default 128, 256
    std::vector<uint32_t> voxelResolutions; // default 128, 512
    std::vector<std::string> meshes;        // sphere, knot, dense (100k triangles); default all
    uint32_t frames = 0;                    // measured frames; 0 = by size (fewer at large sizes)
    uint32_t warmup = 1;                    // unmeasured frames first (lavapipe JITs on the first dispatch)
    std::string json;                       // JSON output file
    std::string device;                     // device index or name substring
    bool validation = false;
    std::string normals = "central"; // forward | central | sobel | none
    // Analytic iso fields: glsl (the user GLSL field evaluated every frame,
    // field pass excluded from extraction) | volume (sampled once on the CPU
    // and uploaded as float32 before timing: extraction is every pass after
    // the volume is resident, the work a CPU library does on a volume in memory).
    std::string source = "glsl";
    // glsl source: auto (each field's Lipschitz constant over [-1, 1]^3,
    // fieldLipschitz in bench.cpp: classify skips the patches the surface
    // cannot cross; noise has none) | off (every patch classified, as before
    // IsoSurfaceCreateInfo::lipschitz).
    std::string lipschitz = "auto";
    // glsl source: auto (the module's default) | buffer | fused (FieldEvaluation).
    std::string fieldEvaluation = "auto";
    std::string splat = "auto";         // particles: auto (the module's default) | scatter | gather | both
    std::string octreeBuild = "levels"; // voxelizer: levels | root | hash | both (levels, root) | all (+ old words)
    uint32_t smallVoxels = UINT32_MAX;  // voxelizer: 0 = raster, N = split at N voxels, UINT32_MAX = default
    std::string leafMerge = "percell";  // voxelizer: percell (default) | atomic | both
    bool timingCheck = false;           // only the timestamp-vs-wall-clock experiment
    uint64_t bufferLimit = 0;           // largest output buffer in bytes (0: the device's maxStorageBufferRange)
};

// Registers the subcommand; returns it so main can test whether it was chosen.
CLI::App* addBenchCommand(CLI::App& app, BenchOptions& options);
// The command line as one shell-quoted string (recorded in the JSON).
std::string joinCommandLine(int argc, char** argv);
// Runs the suite; `commandLine` is recorded in the JSON as given.
int runBench(const BenchOptions& options, const std::string& commandLine);

} // namespace pyramarch::bench
