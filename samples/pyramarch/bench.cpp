// `pyramarch bench`: see bench.h. Every scenario runs warm-up frames (the
// first dispatch of each pipeline carries the driver's JIT on lavapipe), then
// N measured frames, each submitted and waited for so that the wall-clock
// time around the submission is a check on the GPU timestamps (see the
// docs/design-notes/2026-11-21-lavapipe-timestamps.md for why that check
// matters on lavapipe).
#include "bench.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <thread>

#include "pyramarch/engine/device.h"
#include "pyramarch/engine/memory.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/isosurface/isosurface.h"
#include "pyramarch/isosurface/testing.h"
#include "pyramarch/voxelizer/shapes.h"
#include "pyramarch/voxelizer/testing.h"
#include "pyramarch/voxelizer/voxelizer.h"
#include "sample/cli.h"
#include "sample/framework.h"
#include "sample/scenes.h"
#include "voxelize_command.h"

namespace pyramarch::bench {
namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

struct Summary {
    double median = 0, min = 0, max = 0;
};
Summary summarize(std::vector<double> v) {
    Summary s;
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    s.min = v.front();
    s.max = v.back();
    return s;
}

struct PassStat {
    std::string name; // without the scenario's prefix
    Summary ms;
};

struct MemItem {
    std::string name;
    uint64_t bytes = 0;
};

// One scenario's measurements; JSON keys follow the member names.
struct Record {
    std::string group;    // iso | particles | voxelizer
    std::string scenario; // e.g. cayley-127
    std::string field;    // cayley, sphere, gyroid, metaballs, particles, or the mesh
    std::string source;   // iso: glsl | volume | metaballs | particles
    std::string
        strategy; // histopyramid | scan | histopyramid-indexed | voxelizer-levels | voxelizer-root | voxelizer-hash
    std::string normals; // iso: forward | central | sobel | none
    std::string splat;   // particles: scatter | gather
    uint32_t cells[3] = {0, 0, 0};
    uint64_t cellCount = 0;
    uint32_t warmup = 0, frames = 0;
    std::vector<PassStat> passes;
    Summary gpuMs;                // all passes of a frame
    Summary extractionMs;         // iso: all but the field passes (the marching cubes proper)
    double mcellsPerSecond = 0;   // cells / extraction median
    Summary wallMs;               // submit + wait of one frame
    Summary recordCpuMs;          // host time to record one frame
    double timestampCoverage = 0; // gpu median / wall median
    uint32_t vertices = 0, triangles = 0, activeCells = 0;
    double activeFraction = 0;
    bool overflow = false;
    uint32_t vertexCapacity = 0;
    std::vector<MemItem> memory;
    uint64_t memoryModuleBytes = 0; // sum of the module's buffers
    uint64_t memoryTotalBytes = 0;  // allocator growth, render-graph scratch included
    // particles / voxelizer
    uint32_t particles = 0;
    uint32_t meshTriangles = 0, resolution = 0, fragments = 0, tiles = 0, leaves = 0;
    std::string note;
    float lipschitz = 0;         // glsl fields: IsoSurfaceCreateInfo::lipschitz (0: dense classify)
    std::string fieldEvaluation; // glsl fields: auto | buffer | fused
};

std::string jsonEscape(const std::string& s) {
    std::string o;
    for (char c : s) {
        if (c == '"' || c == '\\')
            o += '\\', o += c;
        else if (static_cast<unsigned char>(c) < 0x20) {
            char b[8];
            std::snprintf(b, sizeof(b), "\\u%04x", c);
            o += b;
        } else
            o += c;
    }
    return o;
}
std::string num(double v) {
    if (!std::isfinite(v)) return "null";
    char b[32];
    std::snprintf(b, sizeof(b), "%.4f", v);
    return b;
}
std::string summaryJson(const Summary& s) {
    return "{\"median\": " + num(s.median) + ", \"min\": " + num(s.min) + ", \"max\": " + num(s.max) + "}";
}

std::string cpuModel() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0) {
            const size_t c = line.find(':');
            return c == std::string::npos ? line : line.substr(line.find_first_not_of(' ', c + 1));
        }
    return "unknown";
}
std::string utcNow() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char b[32];
    std::strftime(b, sizeof(b), "%Y-%m-%dT%H:%M:%SZ", &tm);
    return b;
}

uint32_t defaultFrames(uint64_t cells) {
    if (cells <= 70ull * 70 * 70) return 10;
    if (cells <= 130ull * 130 * 130) return 5;
    return 3;
}

// Fields as GLSL `float field(vec3 p)`: the same functions as `pyramarch iso`
// (sample::analyticFieldGlsl), evaluated on the GPU every frame, and noise.
const char* fieldGlsl(const std::string& f) {
    // White noise: nearly every cell is active with several triangles (the dense extreme).
    if (f == "noise")
        return "float field(vec3 p) { return fract(sin(dot(p, vec3(12.9898, 78.233, 37.719))) * 43758.5453) - 0.5; }\n";
    return sample::analyticFieldGlsl(f);
}

// Lipschitz constants of fieldGlsl() over the bench's bounds [-1, 1]^3
// (sample::analyticFieldLipschitz). Noise (gradient ~4e6) has no useful one:
// 0, classified densely.
float fieldLipschitz(const std::string& f) {
    return sample::isAnalyticField(f) ? sample::analyticFieldLipschitz(f, {-1.f, -1.f, -1.f}, {1.f, 1.f, 1.f}) : 0.f;
}

// Deterministic [0,1) noise (xorshift), enough for scenario layouts.
struct Rng {
    uint32_t s;
    float next() {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        return float(s >> 8) * (1.f / 16777216.f);
    }
};

std::string stripPrefix(const std::string& name, const std::string& prefix) {
    return name.rfind(prefix + ".", 0) == 0 ? name.substr(prefix.size() + 1) : name;
}

struct FrameLoop {
    std::map<std::string, std::vector<double>> passMs;
    std::vector<std::string> order;
    std::vector<double> gpu, extraction, wall, record;
};

void collectTimings(FrameLoop& loop, const std::vector<PassTiming>& timings, const std::string& prefix, bool isoField) {
    double total = 0, extraction = 0;
    for (const PassTiming& t : timings) {
        const std::string name = stripPrefix(t.name, prefix);
        if (!loop.passMs.count(name)) loop.order.push_back(name);
        loop.passMs[name].push_back(t.milliseconds);
        total += t.milliseconds;
        // The field passes (field.*, particles.* splat/resolve) are the host's input, not marching cubes.
        const bool field = isoField && (name.rfind("field", 0) == 0 || name.rfind("particles", 0) == 0);
        if (!field) extraction += t.milliseconds;
    }
    loop.gpu.push_back(total);
    loop.extraction.push_back(extraction);
}

void finishLoop(Record& r, const FrameLoop& loop) {
    for (const std::string& name : loop.order) r.passes.push_back({name, summarize(loop.passMs.at(name))});
    r.gpuMs = summarize(loop.gpu);
    r.extractionMs = summarize(loop.extraction);
    r.wallMs = summarize(loop.wall);
    r.recordCpuMs = summarize(loop.record);
    r.timestampCoverage = r.wallMs.median > 0 ? r.gpuMs.median / r.wallMs.median : 0;
}

struct IsoScenario {
    std::string field; // cayley | sphere | gyroid | metaballs | particles
    uint32_t n = 0;    // cells per axis
    iso::testing::ExtractionMethod method = iso::testing::ExtractionMethod::HistoPyramid;
    uint32_t particles = 0;
    uint32_t warmup = 1, frames = 5;
    bool indexed = false; // shared vertices + indices (HistoPyramid only)
    iso::NormalMode normals = iso::NormalMode::Central;
    iso::testing::SplatMethod splat = iso::testing::SplatMethod::Scatter;
    bool volume = false;   // analytic fields: sampled once and uploaded (FieldSource::Volume)
    bool lipschitz = true; // glsl fields: IsoSurfaceCreateInfo::lipschitz = fieldLipschitz()
    iso::testing::FieldEvaluation fieldEvaluation = iso::testing::FieldEvaluation::Auto; // glsl fields
    bool sparse = false;      // glsl fields: a sparse domain (IsoSurfaceCreateInfo::sparse), capacities from the stats
    uint64_t bufferLimit = 0; // largest output buffer in bytes (0: the device's maxStorageBufferRange)
};

// The analytic field sampled on the CPU at the module's sample positions
// (bounds [-1, 1]^3), for --source volume: the same functions as fieldGlsl().
std::vector<float> sampleField(const std::string& f, uint32_t samples) {
    const std::array<uint32_t, 3> n{samples, samples, samples};
    if (f != "noise") return sample::sampleAnalyticField(f, n, {-1.f, -1.f, -1.f}, {1.f, 1.f, 1.f});
    std::vector<float> out(size_t(samples) * samples * samples);
    size_t i = 0;
    const float step = 2.f / float(samples - 1);
    for (uint32_t z = 0; z < samples; ++z)
        for (uint32_t y = 0; y < samples; ++y)
            for (uint32_t x = 0; x < samples; ++x, ++i) {
                const float px = -1.f + float(x) * step, py = -1.f + float(y) * step, pz = -1.f + float(z) * step;
                const float s = std::sin(px * 12.9898f + py * 78.233f + pz * 37.719f) * 43758.5453f;
                out[i] = s - std::floor(s) - 0.5f;
            }
    return out;
}

const char* normalsName(iso::NormalMode m) {
    return m == iso::NormalMode::Forward ? "forward"
           : m == iso::NormalMode::Sobel ? "sobel"
           : m == iso::NormalMode::None  ? "none"
                                         : "central";
}

Result<Record> runIso(Device& dev, const IsoScenario& sc) {
    Record r;
    r.group = sc.field == "particles" ? "particles" : "iso";
    r.field = sc.field;
    r.strategy = sc.method == iso::testing::ExtractionMethod::Scan ? "scan"
                 : sc.indexed                                      ? "histopyramid-indexed"
                                                                   : "histopyramid";
    r.normals = normalsName(sc.normals);
    r.source = sc.field == "particles" || sc.field == "metaballs" ? sc.field
               : sc.volume                                        ? "volume"
               : sc.sparse                                        ? "sparse"
                                                                  : "glsl";
    // Scenarios that differ only in strategy share a name (their triangle
    // counts must agree). Particles: named by the splat the surface runs
    // (SplatMethod::Auto resolves at creation), so renamed once created.
    const auto name = [&](iso::testing::SplatMethod splat) {
        if (sc.particles) r.splat = splat == iso::testing::SplatMethod::Gather ? "gather" : "scatter";
        r.scenario = sc.field + "-" + std::to_string(sc.n) +
                     (sc.particles ? "-" + std::to_string(sc.particles) : std::string()) +
                     (sc.particles && splat == iso::testing::SplatMethod::Gather ? "-gather" : "") +
                     (sc.normals != iso::NormalMode::Central ? std::string("-") + r.normals : "") +
                     (r.source == "volume"   ? "-volume"
                      : r.source == "sparse" ? "-sparse"
                                             : "");
    };
    name(sc.splat);
    for (uint32_t& c : r.cells) c = sc.n;
    r.cellCount = uint64_t(sc.n) * sc.n * sc.n;
    r.warmup = sc.warmup;
    r.frames = sc.frames;
    r.particles = sc.particles;

    // The largest output buffer: the device's, or --buffer-limit below it.
    const uint64_t range = sc.bufferLimit ? std::min<uint64_t>(sc.bufferLimit, dev.limits().maxStorageBufferRange)
                                          : dev.limits().maxStorageBufferRange;
    // --buffer-limit: the output buffers capped at it; otherwise the module
    // sizes and grows them (and a sparse domain's capacities).
    const uint32_t capacity = sc.bufferLimit ? uint32_t(range / iso::IsoSurface::vertexStride() / 3 * 3) : 0;
    const uint32_t indexCapacity = sc.bufferLimit ? uint32_t(range / 4 / 3 * 3) : 0;

    Rng rng{0x9e3779b9u};
    std::vector<iso::Metaball> balls(sc.field == "metaballs" ? 64 : 0);
    std::vector<float> ballPhase(balls.size() * 3);
    for (float& p : ballPhase) p = rng.next();
    std::vector<iso::Particle> particles(sc.particles);
    std::vector<float> dirs(size_t(sc.particles) * 3);
    for (float& d : dirs) d = rng.next() * 2.f - 1.f;
    // A thin shell (0.6 +- 0.01) seen by a kernel of 2.5 cells: a sample sees
    // the particles of a disc whose area shrinks as cells^-2, so the weight
    // grows with it to keep the field about the same for every count and
    // grid (the 2^20-particle, 128^3 case as reference).
    const float scale = float(sc.n) / 128.f;
    const float weight = 0.02f * float(1u << 20) / float(std::max(1u, sc.particles)) * scale * scale;

    std::vector<float> volume;
    if (r.source == "volume") volume = sampleField(sc.field, sc.n + 1);
    iso::SparseDomain sparse;
    sparse.enabled = sc.sparse;

    {
        iso::IsoSurfaceCreateInfo info;
        info.samples = {sc.n + 1, sc.n + 1, sc.n + 1};
        info.vertexCapacity = capacity;
        info.normals = sc.normals;
        info.indexed = sc.indexed;
        if (sc.indexed) info.indexCapacity = indexCapacity;
        info.name = "iso";
        if (sc.field == "metaballs") {
            info.source = iso::FieldSource::Metaballs;
            info.maxBalls = uint32_t(balls.size());
            info.isoValue = 0.5f;
        } else if (sc.field == "particles") {
            info.source = iso::FieldSource::Particles;
            info.maxParticles = sc.particles;
            info.particleRadius = 2.5f * 2.f / float(sc.n);
            info.isoValue = 1.f;
        } else if (r.source == "volume") {
            info.source = iso::FieldSource::Volume;
            info.isoValue = 0.f;
        } else {
            info.source = iso::FieldSource::UserGlsl;
            info.fieldGlsl = fieldGlsl(sc.field);
            info.compileGlsl = sample::glslCompiler();
            info.isoValue = 0.f;
            info.lipschitz = sc.lipschitz ? fieldLipschitz(sc.field) : 0.f;
            info.sparse = sparse;
            r.lipschitz = info.lipschitz;
            r.fieldEvaluation = sc.fieldEvaluation == iso::testing::FieldEvaluation::Fused    ? "fused"
                                : sc.fieldEvaluation == iso::testing::FieldEvaluation::Buffer ? "buffer"
                                                                                              : "auto";
        }
        const uint64_t before = dev.allocator().stats().allocatedBytes;
        // The measured variants through the module's testing entry point.
        const iso::testing::Knobs knobs{
            .extraction = sc.method, .splat = sc.splat, .fieldEvaluation = sc.fieldEvaluation};
        auto created = iso::testing::create(dev, info, knobs);
        if (!created) return created.status();
        iso::IsoSurface& surface = **created;
        name(iso::testing::splatMethod(surface));
        // Uploaded once: the warm-up frames convert it (field.volume), the
        // measured frames start with the volume resident.
        if (!volume.empty())
            PYRAMARCH_TRY(surface.uploadVolume(volume.data(), volume.size() * sizeof(float), iso::VolumeFormat::F32));
        auto animate = [&](uint32_t f) -> Status {
            const float phase = 0.1f * float(f);
            if (!balls.empty()) {
                for (size_t i = 0; i < balls.size(); ++i) {
                    for (int k = 0; k < 3; ++k)
                        balls[i].center[k] = 0.7f * std::sin(6.283f * ballPhase[i * 3 + k] + phase * float(k + 1));
                    balls[i].radius = 0.3f + 0.15f * ballPhase[i * 3];
                    balls[i].strength = 1.f;
                }
                return surface.setMetaballs(balls);
            }
            if (!particles.empty()) {
                for (size_t i = 0; i < particles.size(); ++i) {
                    const float* d = &dirs[i * 3];
                    const float len = std::sqrt(std::max(d[0] * d[0] + d[1] * d[1] + d[2] * d[2], 1e-6f));
                    const float s = (0.6f + 0.01f * std::sin(phase + float(i % 97))) / len;
                    particles[i] = {{d[0] * s, d[1] * s, d[2] * s}, weight};
                }
                return surface.setParticles(particles);
            }
            surface.setTime(phase);
            return {};
        };
        // Before the warm-up: frames until the buffers hold the surface (the
        // module grows them from the stats framesInFlight frames late; each
        // growth makes buffers and, for a sparse domain, pipelines), or until
        // a cap holds it back (reported as an overflow).
        {
            // The replaced buffers go framesInFlight + 8 frames after a growth:
            // the measured memory is the grown surface's alone.
            const uint32_t settle = info.framesInFlight + 2, released = info.framesInFlight + 9;
            const auto holdsReplaced = [&surface] {
                for (const auto& m : surface.memoryReport())
                    if (m.name == "replaced") return true;
                return false;
            };
            uint32_t sinceGrowth = 0;
            for (uint32_t f = 0; f < 8 * released; ++f, ++sinceGrowth) {
                PYRAMARCH_TRY(animate(0));
                Status recorded;
                PYRAMARCH_TRY(submitAndWait(dev, [&](VkCommandBuffer cmd) { recorded = surface.record(cmd); }));
                // The budget held a growth back (said once, nothing recorded):
                // the surface stays at the most it holds and its frames report
                // the overflow, which the scenario's record marks.
                if (!recorded && recorded.code() == ErrorCode::CapacityExceeded) continue;
                PYRAMARCH_TRY(recorded);
                const auto stats = surface.statsOfFrame(surface.framesRecorded() - 1);
                if (!stats) return Status::error(ErrorCode::InvalidState, "no stats for a settling frame");
                if (stats->grown) sinceGrowth = 0;
                if (sinceGrowth >= settle && !stats->overflow && !holdsReplaced()) break;
                if (sinceGrowth >= released && !holdsReplaced()) break; // at a cap: the overflow is reported
            }
        }
        FrameLoop loop;
        for (uint32_t f = 0; f < sc.warmup + sc.frames; ++f) {
            PYRAMARCH_TRY(animate(f));
            Status recorded;
            double recordMs = 0;
            const auto t0 = Clock::now();
            PYRAMARCH_TRY(submitAndWait(dev, [&](VkCommandBuffer cmd) {
                const auto r0 = Clock::now();
                recorded = surface.record(cmd);
                recordMs = msSince(r0);
            }));
            const double wall = msSince(t0);
            PYRAMARCH_TRY(recorded);
            const auto stats = surface.statsOfFrame(surface.framesRecorded() - 1);
            if (!stats)
                return Status::error(ErrorCode::InvalidState,
                                     "no stats for frame " + std::to_string(surface.framesRecorded() - 1));
            if (f == 0) {
                r.memory.clear();
                r.memoryModuleBytes = 0;
                for (const auto& m : surface.memoryReport()) {
                    r.memory.push_back({m.name, m.bytes});
                    r.memoryModuleBytes += m.bytes;
                }
                r.memoryTotalBytes = dev.allocator().stats().allocatedBytes - before;
            }
            r.vertices = stats->verticesWritten;
            r.triangles = sc.indexed ? stats->indicesWritten / 3 : stats->verticesWritten / 3;
            r.activeCells = stats->activeCells;
            r.overflow = stats->overflow;
            if (f < sc.warmup) continue;
            const std::optional<iso::IsoTimings> timings = surface.latestTimings();
            if (!timings || timings->frame != surface.framesRecorded() - 1)
                return Status::error(ErrorCode::InvalidState,
                                     "timestamps of the frame just waited for are not available");
            collectTimings(loop, timings->passes, "iso", true);
            loop.wall.push_back(wall);
            loop.record.push_back(recordMs);
        }
        r.vertexCapacity = surface.vertexCapacity();
        finishLoop(r, loop);
        r.activeFraction = double(r.activeCells) / double(r.cellCount);
        r.mcellsPerSecond = r.extractionMs.median > 0 ? double(r.cellCount) / (r.extractionMs.median * 1e3) : 0;
        if (r.overflow)
            r.note = "overflow: more vertices than the largest vertex buffer (the memory budget or --buffer-limit)";
    }
    return r;
}

struct VoxScenario {
    std::string mesh; // sphere | knot | dense
    uint32_t resolution = 128;
    uint32_t warmup = 1, frames = 3;
    // Octree build: levels | root | hash (octreeBuildWord, voxelize_command.h).
    std::string build = "levels";
    // Triangle path: 0 = raster, else TrianglePath::Split at this many voxels;
    // UINT32_MAX = the default (voxel::testing::Knobs).
    uint32_t smallVoxels = UINT32_MAX;
    // LeafMerge::Atomic instead of the default PerCell.
    bool atomicLeaves = false;
    uint64_t bufferLimit = 0; // largest storage buffer in bytes (0: the device's maxStorageBufferRange)
};

Result<Record> runVox(Device& dev, const VoxScenario& sc) {
    Record r;
    r.group = "voxelizer";
    r.strategy = "voxelizer-" + sc.build;
    if (sc.atomicLeaves) r.strategy += "-atomic";
    r.field = sc.mesh;
    r.resolution = sc.resolution;
    r.scenario = sc.mesh + "-" + std::to_string(sc.resolution);
    r.warmup = sc.warmup;
    r.frames = sc.frames;
    voxel::TriangleMesh mesh =
        sc.mesh == "dense" ? voxel::shapes::denseKnot({0, 0, 0}, 0.7f, 100000) : voxel::shapes::byName(sc.mesh);
    if (mesh.indices.empty()) return Status::error(ErrorCode::InvalidArgument, "unknown mesh " + sc.mesh);
    r.meshTriangles = uint32_t(mesh.triangleCount());
    auto grid = voxel::defaultGrid(mesh, sc.resolution);
    if (!grid) return grid.status();
    for (int a = 0; a < 3; ++a) r.cells[a] = grid->dims[a];
    r.cellCount = grid->voxelCount();

    // No capacities: the voxelizer grows its buffers from the counters of
    // the frames before (at the next setMesh), so the first frames settle
    // the sizes and are not timed.
    voxel::VoxelizerCreateInfo info;
    voxel::testing::Knobs knobs; // the measured variants (pyramarch/voxelizer/testing.h)
    info.maxResolution = sc.resolution;
    info.framesInFlight = 1; // every frame is waited for: the next one may grow from its counters
    if (sc.bufferLimit) {
        // --buffer-limit: fixed capacities no larger than that (a hard cap overflows instead of growing).
        const uint64_t range = std::min<uint64_t>(sc.bufferLimit, dev.limits().maxStorageBufferRange);
        info.fragmentCapacity = uint32_t(std::max<uint64_t>(1, std::min<uint64_t>(1u << 21, range / 16)));
        info.tileCapacity =
            std::max(1u, std::min(1u << 16, voxel::testing::maxTileCapacity(range, octreeBuildFromWord(sc.build))));
    }
    knobs.octreeBuild = octreeBuildFromWord(sc.build);
    knobs.leafMerge = sc.atomicLeaves ? voxel::testing::LeafMerge::Atomic : voxel::testing::LeafMerge::PerCell;
    if (sc.smallVoxels != UINT32_MAX) {
        knobs.trianglePath =
            sc.smallVoxels == 0 ? voxel::testing::TrianglePath::Raster : voxel::testing::TrianglePath::Split;
        if (sc.smallVoxels != 0) knobs.smallTriangleVoxels = sc.smallVoxels;
    }
    const uint64_t before = dev.allocator().stats().allocatedBytes;
    auto created = voxel::testing::create(dev, info, knobs);
    if (!created) return created.status();
    voxel::Voxelizer& vox = **created;
    FrameLoop loop;
    constexpr uint32_t kSettleFrames = 8; // growth frames at most before the warm-up
    uint32_t settle = 0;
    for (uint32_t f = 0; f < sc.warmup + sc.frames; ++f) {
        // A dynamic mesh is re-staged every frame; the host copy is not part of the recorded frame.
        PYRAMARCH_TRY(vox.setMesh(mesh, *grid));
        Status recorded;
        double recordMs = 0;
        const auto t0 = Clock::now();
        PYRAMARCH_TRY(submitAndWait(dev, [&](VkCommandBuffer cmd) {
            const auto r0 = Clock::now();
            recorded = vox.record(cmd);
            recordMs = msSince(r0);
        }));
        const double wall = msSince(t0);
        PYRAMARCH_TRY(recorded);
        auto stats = vox.readStats();
        if (!stats) return stats.status();
        r.fragments = stats->fragmentsNeeded;
        r.tiles = stats->tilesNeeded;
        r.overflow = stats->fragmentOverflow || stats->tileOverflow;
        r.triangles = stats->triangles;
        if ((stats->grown || (r.overflow && !sc.bufferLimit)) && settle < kSettleFrames) {
            ++settle;
            f = uint32_t(-1); // the warm-up starts again after the growth
            continue;
        }
        if (f == 0) {
            r.memory.clear();
            r.memoryModuleBytes = 0;
            for (const auto& m : vox.memoryReport()) {
                r.memory.push_back({m.name, m.bytes});
                r.memoryModuleBytes += m.bytes;
            }
            r.memoryTotalBytes = dev.allocator().stats().allocatedBytes - before;
        }
        if (f < sc.warmup) continue;
        const std::optional<FrameTimings> voxTimings = vox.latestTimings();
        collectTimings(loop, voxTimings ? voxTimings->passes : std::vector<PassTiming>{}, "vox", false);
        loop.wall.push_back(wall);
        loop.record.push_back(recordMs);
    }
    finishLoop(r, loop);
    // Occupied leaves of the last frame (read back after the timings: not part of them).
    auto tree = vox.readOctree();
    if (!tree) return tree.status();
    r.leaves = uint32_t(voxel::extractLeaves(*tree).size());
    // Throughput in input triangles: the voxelizer's work grows with triangles and fragments, not grid cells.
    r.mcellsPerSecond = r.gpuMs.median > 0 ? double(r.meshTriangles) / (r.gpuMs.median * 1e3) : 0;
    if (r.overflow) r.note = "overflow: the needed sizes pass the device's buffers (or --buffer-limit)";
    return r;
}

std::string mib(uint64_t b) {
    char s[32];
    std::snprintf(s, sizeof(s), "%.1f", double(b) / (1 << 20));
    return s;
}

void printTable(const std::vector<Record>& recs) {
    std::printf("\n%-22s %-20s %7s %9s %9s %9s %8s %9s %7s %8s %8s %6s\n", "scenario", "strategy", "frames", "gpu ms",
                "mc ms", "wall ms", "Mcell/s", "triangles", "active%", "mem MiB", "rec ms", "ts/wall");
    for (const Record& r : recs)
        std::printf("%-22s %-20s %7u %9.2f %9.2f %9.2f %8.1f %9u %7.2f %8s %8.3f %6.2f%s\n", r.scenario.c_str(),
                    r.strategy.c_str(), r.frames, r.gpuMs.median, r.extractionMs.median, r.wallMs.median,
                    r.mcellsPerSecond, r.triangles, 100.0 * r.activeFraction, mib(r.memoryTotalBytes).c_str(),
                    r.recordCpuMs.median, r.timestampCoverage, r.overflow ? "  OVERFLOW" : "");
    std::printf("(gpu ms: median sum of pass timestamps; mc ms: without the field pass; Mcell/s: cells / mc ms, "
                "voxelizer: Mtriangles/s;\n"
                " rec ms: CPU time to record a frame; ts/wall: gpu ms / wall-clock of submit+wait)\n");
    std::printf("\nper-pass GPU ms (median [min, max]):\n");
    for (const Record& r : recs) {
        std::printf("  %s %s:", r.scenario.c_str(), r.strategy.c_str());
        for (const PassStat& p : r.passes)
            std::printf("  %s %.3f [%.3f, %.3f]", p.name.c_str(), p.ms.median, p.ms.min, p.ms.max);
        std::printf("\n");
    }
}

// Cost per cell and per output vertex of each pass over the sizes of one
// field and strategy: a linear pass keeps a flat ns/cell (or ns/vertex).
void printScaling(const std::vector<Record>& recs) {
    std::map<std::pair<std::string, std::string>, std::vector<const Record*>> series;
    for (const Record& r : recs)
        if (r.group == "iso") series[{r.field, r.strategy}].push_back(&r);
    for (auto& [key, list] : series) {
        if (list.size() < 2) continue;
        std::printf("\nscaling %s / %s: ns per cell (ns per output vertex)\n  %-20s", key.first.c_str(),
                    key.second.c_str(), "pass");
        for (const Record* r : list) std::printf(" %20s", (std::to_string(r->cells[0]) + "^3").c_str());
        std::printf("\n");
        std::vector<std::string> names;
        // Largest first: it has every level of the multi-level passes, in schedule order.
        for (auto it = list.rbegin(); it != list.rend(); ++it)
            for (const PassStat& p : (*it)->passes)
                if (std::find(names.begin(), names.end(), p.name) == names.end()) names.push_back(p.name);
        names.push_back("total");
        for (const std::string& name : names) {
            std::printf("  %-20s", name.c_str());
            for (const Record* r : list) {
                double ms = -1;
                if (name == "total") ms = r->gpuMs.median;
                for (const PassStat& p : r->passes)
                    if (p.name == name) ms = p.ms.median;
                if (ms < 0) {
                    std::printf(" %20s", "-");
                    continue;
                }
                char b[48];
                std::snprintf(b, sizeof(b), "%.3f (%.2f)", ms * 1e6 / double(r->cellCount),
                              r->vertices ? ms * 1e6 / r->vertices : 0.0);
                std::printf(" %20s", b);
            }
            std::printf("\n");
        }
    }
}

Status writeJson(const std::string& path, const std::vector<Record>& recs, const Device* isoDev, const Device* voxDev,
                 const std::string& commandLine, const BenchOptions& o, double totalSeconds) {
    std::ostringstream j;
    const Device* any = isoDev ? isoDev : voxDev;
    j << "{\n  \"date\": \"" << utcNow() << "\",\n  \"command\": \"" << jsonEscape(commandLine) << "\",\n";
    j << "  \"machine\": {\"cpu\": \"" << jsonEscape(cpuModel())
      << "\", \"cores\": " << std::thread::hardware_concurrency() << "},\n";
    j << "  \"device\": \"" << jsonEscape(any ? any->name() : "") << "\",\n  \"driver\": \""
      << jsonEscape(any ? any->driverInfo() : "") << "\",\n";
    j << "  \"strategyOption\": \"" << o.strategy << "\",\n  \"totalSeconds\": " << num(totalSeconds)
      << ",\n  \"results\": [";
    for (size_t i = 0; i < recs.size(); ++i) {
        const Record& r = recs[i];
        const Device* d = r.group == "voxelizer" ? voxDev : isoDev;
        j << (i ? "," : "") << "\n    {\"group\": \"" << r.group << "\", \"scenario\": \"" << r.scenario
          << "\", \"field\": \"" << r.field << "\", \"source\": \"" << r.source << "\", \"strategy\": \"" << r.strategy
          << "\",\n     \"device\": \"" << jsonEscape(d ? d->name() : "") << "\", \"driver\": \""
          << jsonEscape(d ? d->driverInfo() : "") << "\", \"command\": \"" << jsonEscape(commandLine)
          << "\",\n     \"cells\": [" << r.cells[0] << ", " << r.cells[1] << ", " << r.cells[2]
          << "], \"cellCount\": " << r.cellCount << ", \"warmupFrames\": " << r.warmup << ", \"frames\": " << r.frames
          << ",\n     \"gpuMs\": " << summaryJson(r.gpuMs) << ", \"extractionMs\": " << summaryJson(r.extractionMs)
          << ",\n     \"wallMs\": " << summaryJson(r.wallMs) << ", \"recordCpuMs\": " << summaryJson(r.recordCpuMs)
          << ",\n     \"timestampCoverage\": " << num(r.timestampCoverage)
          << ", \"mcellsPerSecond\": " << num(r.mcellsPerSecond) << ", \"vertices\": " << r.vertices
          << ", \"triangles\": " << r.triangles << ", \"activeCells\": " << r.activeCells
          << ", \"activeFraction\": " << num(r.activeFraction) << ", \"overflow\": " << (r.overflow ? "true" : "false")
          << ", \"vertexCapacity\": " << r.vertexCapacity;
        if (!r.normals.empty()) j << ", \"normals\": \"" << r.normals << "\"";
        if (r.lipschitz > 0) j << ", \"lipschitz\": " << num(r.lipschitz);
        if (!r.fieldEvaluation.empty()) j << ", \"fieldEvaluation\": \"" << r.fieldEvaluation << "\"";
        if (r.particles) j << ", \"particles\": " << r.particles << ", \"splat\": \"" << r.splat << "\"";
        if (r.group == "voxelizer")
            j << ", \"meshTriangles\": " << r.meshTriangles << ", \"resolution\": " << r.resolution
              << ", \"fragments\": " << r.fragments << ", \"tiles\": " << r.tiles << ", \"leaves\": " << r.leaves;
        if (!r.note.empty()) j << ", \"note\": \"" << jsonEscape(r.note) << "\"";
        j << ",\n     \"memoryBytes\": {\"total\": " << r.memoryTotalBytes << ", \"module\": " << r.memoryModuleBytes
          << ", \"buffers\": {";
        for (size_t m = 0; m < r.memory.size(); ++m)
            j << (m ? ", " : "") << "\"" << jsonEscape(r.memory[m].name) << "\": " << r.memory[m].bytes;
        j << "}},\n     \"passes\": [";
        for (size_t p = 0; p < r.passes.size(); ++p)
            j << (p ? ", " : "") << "\n       {\"pass\": \"" << jsonEscape(r.passes[p].name)
              << "\", \"ms\": " << summaryJson(r.passes[p].ms) << "}";
        j << "]}";
    }
    j << "\n  ]\n}\n";
    std::ofstream out(path, std::ios::binary);
    if (!out) return Status::error(ErrorCode::Io, "cannot write " + path);
    out << j.str();
    out.close();
    if (!out) return Status::error(ErrorCode::Io, "writing " + path + " failed");
    return {};
}

bool wants(const std::vector<std::string>& list, const std::string& item) {
    return list.empty() || std::find(list.begin(), list.end(), item) != list.end();
}

// The experiment behind the README's lavapipe caveat: the same compute-only
// frames timed by timestamps and by the wall clock, first on a queue that
// has never rendered, then after one render pass into a colour attachment
// on that queue. Prints both; the verdict is the reader's (and the README's).
int runTimingCheck(Device& dev) {
    const std::string prog = "pyramarch bench --timing-check";
    iso::IsoSurfaceCreateInfo info;
    info.samples = {64, 64, 64};
    info.vertexCapacity = 3u << 17;
    info.source = iso::FieldSource::UserGlsl;
    info.fieldGlsl = fieldGlsl("cayley");
    info.compileGlsl = sample::glslCompiler();
    info.isoValue = 0.f;
    info.name = "iso";
    auto created = iso::IsoSurface::create(dev, info);
    if (!created) return sample::fail(prog, created.message());
    iso::IsoSurface& surface = **created;
    auto phase = [&](const char* label) -> Status {
        std::printf("%s\n  %-8s %10s %10s %10s %10s\n", label, "frame", "classify", "extract", "sum ts", "wall");
        for (int f = 0; f < 5; ++f) {
            Status recorded;
            const auto t0 = Clock::now();
            PYRAMARCH_TRY(submitAndWait(dev, [&](VkCommandBuffer cmd) { recorded = surface.record(cmd); }));
            const double wall = msSince(t0);
            PYRAMARCH_TRY(recorded);
            double classify = 0, extract = 0, sum = 0;
            const std::optional<iso::IsoTimings> timings = surface.latestTimings();
            for (const PassTiming& t : timings ? timings->passes : std::vector<PassTiming>{}) {
                sum += t.milliseconds;
                if (t.name == "iso.classify") classify = t.milliseconds;
                if (t.name == "iso.extract") extract = t.milliseconds;
            }
            std::printf("  %-8d %10.3f %10.3f %10.3f %10.3f%s\n", f, classify, extract, sum, wall,
                        f == 0 ? "  (may include JIT)" : "");
        }
        return {};
    };
    Status s = phase("A: compute-only frames on a queue that has not rendered (ms)");
    if (!s) return sample::fail(prog, s.message());
    {
        RenderGraph g(&dev);
        const ImageRef target = g.createImage("target", {.format = VK_FORMAT_R8G8B8A8_UNORM, .extent = {256, 256, 1}});
        g.addPass("clear", PassKind::Graphics).colorAttachment(target).record([](PassContext&) {});
        s = g.compile();
        if (s) s = submitAndWait(dev, [&](VkCommandBuffer cmd) { s = g.execute(cmd); });
        if (!s) return sample::fail(prog, "render pass: " + s.message());
    }
    s = phase("B: the same frames after one render pass (clear of a 256x256 colour attachment) on this queue (ms)");
    if (!s) return sample::fail(prog, s.message());
    return 0;
}

} // namespace

std::string joinCommandLine(int argc, char** argv) {
    std::string out;
    for (int i = 0; i < argc; ++i) {
        const std::string a = argv[i];
        if (i) out += ' ';
        if (!a.empty() && a.find_first_of(" \t'\"$\\") == std::string::npos)
            out += a;
        else {
            out += '\'';
            for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
            out += '\'';
        }
    }
    return out;
}

CLI::App* addBenchCommand(CLI::App& app, BenchOptions& o) {
    CLI::App* c = app.add_subcommand(
        "bench", "Run the benchmark suite: per-pass GPU times, throughput, memory; table and --json");
    c->add_option("--strategy", o.strategy,
                  "Iso strategies: histopyramid | scan | indexed (HistoPyramid, shared vertices + indices) | both "
                  "(histopyramid, scan; default) | all")
        ->check(CLI::IsMember({"histopyramid", "scan", "indexed", "both", "all"}));
    c->add_option("--normals", o.normals,
                  "Normals of the iso scenarios: forward | central | sobel | none (zero normals, no gradient reads: "
                  "what a CPU library extracts with normals off; default central)")
        ->check(CLI::IsMember({"forward", "central", "sobel", "none"}));
    c->add_option("--splat", o.splat,
                  "Particle splat: auto (the module's default: gather on CPU drivers, scatter on GPUs) | scatter | "
                  "gather | both (scatter and gather)")
        ->check(CLI::IsMember({"auto", "scatter", "gather", "both"}));
    c->add_option("--octree-build", o.octreeBuild,
                  "Voxelizer octree build: levels (OctreeBuild::OccupancyLevels, default) | root (RootDescent, "
                  "Crassin & Green's flag passes from the root) | hash (TileHash) | both (levels and root) | all "
                  "(the three). Old words, still accepted: default, cursors, topdown (= levels), bottomup (= hash)")
        ->transform(octreeBuildValidator({"both", "all"}));
    c->add_option("--leaf-merge", o.leafMerge,
                  "Voxelizer leaf merge: percell (LeafMerge::PerCell, default: fragments sorted by cell, one "
                  "thread per cell) | atomic (one thread per fragment, atomics) | both")
        ->check(CLI::IsMember({"percell", "atomic", "both"}));
    c->add_option("--small-voxels", o.smallVoxels,
                  "Voxelizer triangle path: 0 = raster only, N = small triangles (candidate box <= N voxels) by "
                  "the compute pass (TrianglePath::Split); default: the voxelizer's default")
        ->check(CLI::Range(0u, voxel::testing::kMaxSmallTriangleVoxels));
    c->add_option("--source", o.source,
                  "Analytic fields (cayley, sphere, gyroid, noise): glsl (GPU field every frame, field pass excluded; "
                  "default) | volume (sampled once, uploaded as float32 before timing) | sparse (glsl in a sparse "
                  "domain: bricks listed by the Lipschitz bound, capacities grown from the first frame; "
                  "HistoPyramid, non-indexed)")
        ->check(CLI::IsMember({"glsl", "volume", "sparse"}));
    c->add_option("--lipschitz", o.lipschitz,
                  "glsl source: auto (each field's Lipschitz constant over [-1,1]^3: classify skips the patches the "
                  "surface cannot cross, same triangles; noise has none; default) | off (every patch classified)")
        ->check(CLI::IsMember({"auto", "off"}));
    c->add_option("--field-evaluation", o.fieldEvaluation,
                  "glsl source: auto (the module's default) | buffer (a field pass and buffer) | fused (classify and "
                  "extraction call field() themselves)")
        ->check(CLI::IsMember({"auto", "buffer", "fused"}));
    c->add_option("--sizes", o.sizes,
                  "Cells per axis of the field scenarios (default 31,63,127,255 for cayley, 31,47 for noise, 127 for "
                  "the others)")
        ->delimiter(',')
        ->check(CLI::Range(1u, 511u));
    c->add_option("--field", o.fields, "Fields: cayley, sphere, gyroid, metaballs, noise (default all)")
        ->delimiter(',')
        ->check(CLI::IsMember({"cayley", "sphere", "gyroid", "metaballs", "noise"}));
    c->add_option("--groups", o.groups, "Scenario groups: iso, particles, voxelizer (default all)")
        ->delimiter(',')
        ->check(CLI::IsMember({"iso", "particles", "voxelizer"}));
    c->add_option("--particles", o.particleCounts, "Particle counts (default 100000,1000000)")
        ->delimiter(',')
        ->check(CLI::Range(1u, 4000000u));
    c->add_option("--particle-sizes", o.particleSizes, "Cells per axis of the particle scenarios (default 128,256)")
        ->delimiter(',')
        ->check(CLI::Range(1u, 511u));
    c->add_option("--resolutions", o.voxelResolutions, "Voxelizer resolutions R (default 128,512)")
        ->delimiter(',')
        ->check(CLI::Range(1u, 1024u));
    c->add_option("--meshes", o.meshes, "Voxelizer meshes: sphere, knot, dense (100k triangles) (default all)")
        ->delimiter(',')
        ->check(CLI::IsMember({"sphere", "knot", "dense"}));
    c->add_option("--frames", o.frames,
                  "Measured frames per scenario (default by size: 10 up to 70^3 cells, 5 up to 130^3, else 3)")
        ->check(CLI::Range(1u, 10000u));
    c->add_option("--warmup", o.warmup, "Unmeasured frames first (default 1: the first carries pipeline JIT)")
        ->check(CLI::Range(1u, 100u));
    c->add_option("--json", o.json, "Write one record per scenario as JSON");
    c->add_option("--buffer-limit", o.bufferLimit,
                  "Largest output buffer a scenario's capacities may grow to, in bytes (default and at most: the "
                  "device's maxStorageBufferRange); a scenario that needs more is marked OVERFLOW (exit 3)")
        ->check(CLI::Range(uint64_t(1024), uint64_t(1) << 40));
    c->add_option("--device", o.device, "Device index or name substring");
    c->add_flag("--timing-check", o.timingCheck,
                "Only the timestamp-versus-wall-clock experiment (see README, Performance)");
    c->add_flag("--validation", o.validation, "Enable the validation layer (any message fails the exit code)");
    return c;
}

int runBench(const BenchOptions& o, const std::string& commandLine) {
    const std::string prog = "pyramarch bench";
    const auto start = Clock::now();
    struct Strategy {
        iso::testing::ExtractionMethod method;
        bool indexed;
    };
    std::vector<Strategy> methods;
    const bool all = o.strategy == "all";
    if (all || o.strategy == "both" || o.strategy == "histopyramid")
        methods.push_back({iso::testing::ExtractionMethod::HistoPyramid, false});
    if (all || o.strategy == "both" || o.strategy == "scan")
        methods.push_back({iso::testing::ExtractionMethod::Scan, false});
    if (all || o.strategy == "indexed") methods.push_back({iso::testing::ExtractionMethod::HistoPyramid, true});
    const iso::NormalMode normals = o.normals == "forward" ? iso::NormalMode::Forward
                                    : o.normals == "sobel" ? iso::NormalMode::Sobel
                                    : o.normals == "none"  ? iso::NormalMode::None
                                                           : iso::NormalMode::Central;
    std::vector<iso::testing::SplatMethod> splats;
    if (o.splat == "auto") splats.push_back(iso::testing::SplatMethod::Auto);
    if (o.splat == "scatter" || o.splat == "both") splats.push_back(iso::testing::SplatMethod::Scatter);
    if (o.splat == "gather" || o.splat == "both") splats.push_back(iso::testing::SplatMethod::Gather);
    std::vector<std::string> octreeBuilds;
    if (o.octreeBuild == "levels" || o.octreeBuild == "both" || o.octreeBuild == "all")
        octreeBuilds.push_back("levels");
    if (o.octreeBuild == "root" || o.octreeBuild == "both" || o.octreeBuild == "all") octreeBuilds.push_back("root");
    if (o.octreeBuild == "hash" || o.octreeBuild == "all") octreeBuilds.push_back("hash");

    std::vector<IsoScenario> isoScenarios;
    auto framesFor = [&](uint64_t cells) { return o.frames ? o.frames : defaultFrames(cells); };
    if (wants(o.groups, "iso"))
        for (const std::string f : {"cayley", "sphere", "gyroid", "metaballs", "noise"}) {
            if (!wants(o.fields, f)) continue;
            std::vector<uint32_t> sizes = o.sizes;
            if (sizes.empty())
                sizes = f == "cayley"  ? std::vector<uint32_t>{31, 63, 127, 255}
                        : f == "noise" ? std::vector<uint32_t>{31, 47}
                                       // ~20 vertices per cell: larger grids exceed one vertex buffer
                                       : std::vector<uint32_t>{127};
            // Sparse domains: the analytic fields (a Lipschitz bound), HistoPyramid, non-indexed.
            const bool sparse = o.source == "sparse" && sample::isAnalyticField(f);
            for (uint32_t n : sizes)
                for (const Strategy& m : methods) {
                    if (sparse && (m.method != iso::testing::ExtractionMethod::HistoPyramid || m.indexed)) continue;
                    isoScenarios.push_back({f, n, m.method, 0, o.warmup, framesFor(uint64_t(n) * n * n), m.indexed,
                                            normals, iso::testing::SplatMethod::Scatter,
                                            o.source == "volume" && std::string(f) != "metaballs",
                                            o.lipschitz == "auto" || sparse,
                                            o.fieldEvaluation == "fused"    ? iso::testing::FieldEvaluation::Fused
                                            : o.fieldEvaluation == "buffer" ? iso::testing::FieldEvaluation::Buffer
                                                                            : iso::testing::FieldEvaluation::Auto,
                                            sparse});
                }
        }
    if (wants(o.groups, "particles")) {
        const std::vector<uint32_t> counts =
            o.particleCounts.empty() ? std::vector<uint32_t>{100000, 1000000} : o.particleCounts;
        const std::vector<uint32_t> sizes = o.particleSizes.empty() ? std::vector<uint32_t>{128, 256} : o.particleSizes;
        for (uint32_t n : sizes)
            for (uint32_t count : counts)
                for (iso::testing::SplatMethod splat : splats)
                    for (const Strategy& m : methods)
                        isoScenarios.push_back({"particles", n, m.method, count, o.warmup,
                                                framesFor(uint64_t(n) * n * n), m.indexed, normals, splat});
    }
    std::vector<VoxScenario> voxScenarios;
    if (wants(o.groups, "voxelizer")) {
        const std::vector<uint32_t> res =
            o.voxelResolutions.empty() ? std::vector<uint32_t>{128, 512} : o.voxelResolutions;
        for (const std::string mesh : {"sphere", "knot", "dense"})
            if (wants(o.meshes, mesh))
                for (uint32_t r : res)
                    for (const std::string& build : octreeBuilds)
                        for (bool atomicLeaves : {false, true})
                            if (o.leafMerge == "both" || (o.leafMerge == "atomic") == atomicLeaves)
                                voxScenarios.push_back({mesh, r, o.warmup, o.frames ? o.frames : (r > 256 ? 3u : 5u),
                                                        build, o.smallVoxels, atomicLeaves});
    }

    for (IsoScenario& sc : isoScenarios) sc.bufferLimit = o.bufferLimit;
    for (VoxScenario& sc : voxScenarios) sc.bufferLimit = o.bufferLimit;

    sample::CommonOptions co;
    co.validation = o.validation;
    co.device = o.device;
    std::atomic<uint32_t> messages{0};
    if (o.timingCheck) {
        auto d = sample::createSampleDevice(co, &messages);
        if (!d) return sample::fail(prog, d.message());
        std::printf("device: %s (%s)\n", (*d)->name().c_str(), (*d)->driverInfo().c_str());
        const int rc = runTimingCheck(**d);
        if (messages) return sample::fail(prog, std::to_string(messages.load()) + " validation message(s)");
        return rc;
    }
    std::vector<Record> records;
    std::unique_ptr<Device> isoDevice, voxDevice;
    auto report = [&](const Record& r) {
        const std::string leaves = r.group == "voxelizer" ? ", " + std::to_string(r.leaves) + " leaves" : "";
        std::fprintf(stderr, "  %-22s %-20s gpu %9.2f ms  wall %9.2f ms  %u triangles%s%s\n", r.scenario.c_str(),
                     r.strategy.c_str(), r.gpuMs.median, r.wallMs.median, r.triangles, leaves.c_str(),
                     r.overflow ? " OVERFLOW" : "");
    };
    if (!isoScenarios.empty()) {
        auto d = sample::createSampleDevice(co, &messages);
        if (!d) return sample::fail(prog, d.message());
        isoDevice = std::move(d).value();
        std::fprintf(stderr, "device: %s (%s)\n", isoDevice->name().c_str(), isoDevice->driverInfo().c_str());
        for (const IsoScenario& sc : isoScenarios) {
            auto r = runIso(*isoDevice, sc);
            if (!r)
                return sample::fail(prog, "iso scenario " + sc.field + " " + std::to_string(sc.n) + ": " + r.message());
            report(*r);
            records.push_back(std::move(r).value());
        }
    }
    if (!voxScenarios.empty()) {
        // A device of its own: on lavapipe, a queue that has rendered once
        // takes later timestamps asynchronously to compute work (README,
        // Performance), which would spoil the iso timings if they shared it.
        auto d = sample::createSampleDevice(co, &messages);
        if (!d) return sample::fail(prog, d.message());
        voxDevice = std::move(d).value();
        for (const VoxScenario& sc : voxScenarios) {
            auto r = runVox(*voxDevice, sc);
            if (!r)
                return sample::fail(prog, "voxelizer scenario " + sc.mesh + " " + std::to_string(sc.resolution) + ": " +
                                              r.message());
            report(*r);
            records.push_back(std::move(r).value());
        }
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    const Device* dev = isoDevice ? isoDevice.get() : voxDevice.get();
    if (dev) std::printf("device: %s\ndriver: %s\n", dev->name().c_str(), dev->driverInfo().c_str());
    printTable(records);
    printScaling(records);
    std::printf("\n%zu scenarios in %.1f s\n", records.size(), seconds);
    if (!o.json.empty()) {
        Status s = writeJson(o.json, records, isoDevice.get(), voxDevice.get(), commandLine, o, seconds);
        if (!s) return sample::fail(prog, s.message());
        std::printf("wrote %s\n", o.json.c_str());
    }
    if (messages) return sample::fail(prog, std::to_string(messages.load()) + " validation message(s)");
    for (const Record& r : records)
        if (r.overflow) return sample::kExitOverflow;
    return sample::kExitDone;
}

} // namespace pyramarch::bench
