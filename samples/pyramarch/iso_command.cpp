// `pyramarch iso`: a surface from an analytic field, a raw volume, a GLSL
// field function (--glsl) or particle files (--particles, one file or a
// '{}' sequence), written as PLY/OBJ with per-pass GPU times.
#include "iso_command.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <unistd.h>

#include "pyramarch/engine/device.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/isosurface/particle_grid.h"
#include "pyramarch/isosurface/particle_io.h"
#include "pyramarch/isosurface/raw_volume.h"
#include "sample/cli.h"
#include "sample/framework.h"
#include "sample/output.h"
#include "sample/scenes.h"
#include "mesh_clip.h"

using namespace pyramarch;
using sample::fail;
using sample::IsoOptions;
using sample::usageError;

namespace {

const std::string kProg = "pyramarch iso";

iso::NormalMode normalMode(const std::string& n) {
    if (n == "forward") return iso::NormalMode::Forward;
    if (n == "sobel") return iso::NormalMode::Sobel;
    if (n == "none") return iso::NormalMode::None;
    return iso::NormalMode::Central;
}

// --memory-budget in bytes; without it three quarters of the largest
// device-local heap. The module's own default (a quarter) leaves room for a
// host's other work; the tool's one surface is all there is.
uint64_t toolMemoryBudget(const Device& device, uint64_t mib) {
    if (mib) return mib << 20;
    uint64_t heap = 0;
    const VkPhysicalDeviceMemoryProperties& mp = device.memoryProperties();
    for (uint32_t h = 0; h < mp.memoryHeapCount; ++h)
        if (mp.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
            heap = std::max<uint64_t>(heap, mp.memoryHeaps[h].size);
    return heap / 4 * 3; // 0 where no heap says device-local: the module's default
}

// The vertex (and index) buffer the surface got: its size and the storage
// bindings the module writes it through.
void printOutputBuffers(const iso::IsoSurface& surface, uint64_t budget) {
    uint64_t total = 0, replaced = 0;
    for (const iso::IsoSurface::MemoryItem& m : surface.memoryReport()) {
        if (m.name == "vertices" || m.name == "indices")
            std::printf("%s buffer: %.1f MiB in %u storage binding%s\n", m.name == "vertices" ? "vertex" : "index",
                        m.bytes / 1048576.0, m.bindings, m.bindings == 1 ? "" : "s");
        (m.name == "replaced" ? replaced : total) += m.bytes;
    }
    std::printf("GPU memory: %.1f MiB of a %.1f MiB budget (+ %.1f MiB replaced by growth, released after the "
                "frames in flight)\n",
                total / 1048576.0, budget / 1048576.0, replaced / 1048576.0);
}

// --indexed, and --mesh-smoothing: indexed output (the smoothing finds
// neighbours in the index buffer). A --capacity counts unique vertices: 6
// indices each (a hard cap); without it the module sizes both buffers.
void applyMeshSmoothing(const Device& device, const IsoOptions& o, iso::IsoSurfaceCreateInfo& info) {
    if (o.meshSmoothing == 0 && !o.indexed) return;
    info.indexed = true;
    if (o.meshSmoothing) info.meshSmoothing = {o.meshSmoothing, o.meshLambda, o.meshMu};
    if (o.capacity)
        info.indexCapacity =
            uint32_t(std::min<uint64_t>(uint64_t(o.capacity) * 6, iso::maxIndexCapacity(device.limits())));
}

// One extraction: the surface (created here when `surface` is empty, with
// `info`, and fed by `feed`), recorded at least `repeat` times and until a
// frame fits its buffers (the module grows them from the stats of the
// frames before, framesInFlight frames late; a capacity the user gave stays
// a cap); the last frame's timings and stats count.
struct Extraction {
    iso::IsoStats stats;
    std::vector<PassTiming> timings;
    uint64_t frame = 0;
    bool created = false; // a surface was (re)created for it
};

// A sparse domain's lists and pool against its capacities, and its resident
// memory against what the dense path would keep for the grid.
void printSparseSummary(Device& device, iso::IsoSurface& surface, const iso::IsoSurfaceCreateInfo& created,
                        const iso::IsoStats& stats) {
    iso::IsoSurfaceCreateInfo info = created;
    info.sparse = surface.sparseDomain(); // the capacities it has now (grown from those it started with)
    const sample::SparseMemory memory = sample::sparseMemoryOf(surface, info.samples);
    const uint64_t resident = memory.resident, vertexBytes = memory.vertices;
    const double dense = memory.dense;
    const uint64_t bricks = sample::sparseBricksOf(info.samples);
    const uint32_t pooled = std::min(stats.sparseRowPairsNeeded, info.sparse.maxRowPairs);
    char stagingText[64] = "";
    if (memory.staging)
        std::snprintf(stagingText, sizeof stagingText, " (+ %.1f MiB host-visible upload staging)",
                      memory.staging / 1048576.0);
    std::printf("sparse: %u of %llu bricks listed (capacity %u%s), %u row pairs with a cut cell (pool %u%s); "
                "resident %.1f MiB + vertices %.1f MiB, %.0f bytes per pooled row pair; a dense grid: %.1f GiB%s\n",
                stats.sparseBricksNeeded, (unsigned long long)bricks, info.sparse.maxBricks,
                stats.sparseBricksNeeded > info.sparse.maxBricks ? ", too small" : "", stats.sparseRowPairsNeeded,
                info.sparse.maxRowPairs, stats.sparseRowPairsNeeded > info.sparse.maxRowPairs ? ", too small" : "",
                resident / 1048576.0, vertexBytes / 1048576.0, pooled ? double(resident) / pooled : 0.0,
                dense / (1024.0 * 1048576.0), stagingText);
    if (info.source == iso::FieldSource::Metaballs || info.source == iso::FieldSource::Particles) {
        const uint32_t refs = iso::sparseItemRefCapacity(info, device.limits());
        std::printf("sparse: %u %s references in the listed bricks (capacity %u%s)\n", stats.sparseItemRefsNeeded,
                    info.source == iso::FieldSource::Particles ? "particle" : "ball", refs,
                    stats.sparseItemRefsNeeded > refs ? ", too small" : "");
        if (stats.sparseCrowdedBricks != 0)
            std::printf("sparse: %u crowded bricks (more %s than the %u one brick may list) left empty: finer cells "
                        "(--voxel-size, --cells) list fewer a brick\n",
                        stats.sparseCrowdedBricks, info.source == iso::FieldSource::Particles ? "particles" : "balls",
                        info.source == iso::FieldSource::Particles ? iso::kMaxSparseParticlesPerBrick
                                                                   : iso::kMaxSparseItemsPerBrick);
    }
}

Result<Extraction> extract(Device& device, std::unique_ptr<iso::IsoSurface>& surface,
                           const iso::IsoSurfaceCreateInfo& info, const std::function<Status(iso::IsoSurface&)>& feed,
                           uint32_t repeat, bool quiet) {
    Extraction e;
    if (!surface) {
        auto created = iso::IsoSurface::create(device, info);
        if (!created) return created.status();
        surface = std::move(created).value();
        e.created = true;
        PYRAMARCH_TRY(feed(*surface));
    }
    iso::IsoSurface& s = *surface;
    // Growth needs the stats of a frame framesInFlight back: a frame that
    // still overflows framesInFlight + 2 frames after the last growth has
    // reached a cap (reported).
    const uint64_t settle = uint64_t(info.framesInFlight) + 2;
    uint64_t lastGrowth = s.framesRecorded();
    for (uint32_t r = 0;; ++r) {
        Status recorded;
        PYRAMARCH_TRY(submitAndWait(device, [&](VkCommandBuffer cmd) { recorded = s.record(cmd); }));
        if (!recorded) {
            // Growth refused (the budget, the allocator, a device limit):
            // said once, nothing recorded; the frames after it run at the
            // sizes the surface has, truncated and reported (OVERFLOW).
            const ErrorCode c = recorded.code();
            if (c != ErrorCode::CapacityExceeded && c != ErrorCode::OutOfMemory && c != ErrorCode::DeviceLimit)
                return recorded;
            std::fprintf(stderr, "%s\n", recorded.message().c_str());
            lastGrowth = s.framesRecorded();
            continue;
        }
        e.frame = s.framesRecorded() - 1;
        const auto stats = s.statsOfFrame(e.frame);
        if (!stats)
            return Status::error(ErrorCode::InvalidState, "no surface stats for the frame (the GPU did not finish it)");
        e.stats = *stats;
        if (stats->grown) {
            lastGrowth = e.frame;
            if (!quiet) {
                std::fprintf(stderr, "frame %llu overflowed: grew the vertices %u -> %u",
                             (unsigned long long)stats->grownAfterFrame, stats->previousVertexCapacity,
                             stats->vertexCapacity);
                if (info.indexed)
                    std::fprintf(stderr, ", indices %u -> %u", stats->previousIndexCapacity, stats->indexCapacity);
                if (stats->sparseBrickCapacity)
                    std::fprintf(stderr, ", bricks %u -> %u, row pairs %u -> %u", stats->previousSparseBrickCapacity,
                                 stats->sparseBrickCapacity, stats->previousSparseRowPairCapacity,
                                 stats->sparseRowPairCapacity);
                std::fprintf(stderr, "\n");
            }
        }
        if (r + 1 < std::max(1u, repeat)) continue;
        if (!stats->overflow || e.frame >= lastGrowth + settle) break;
    }
    if (const std::optional<iso::IsoTimings> timings = s.latestTimings()) e.timings = timings->passes;
    return e;
}

// A box "x,y,z" pair from the command line (checked by the parser).
std::optional<iso::ParticleBox> boxOption(const std::string& lo, const std::string& hi) {
    iso::ParticleBox box;
    if (lo.empty() || !sample::parseFloatList(lo, box.min.data(), 3) || !sample::parseFloatList(hi, box.max.data(), 3))
        return std::nullopt;
    return box;
}

// Reads the mesh back, clips it to `clip` (--mesh-aabb) and writes it;
// `clipped` gets what the clip did.
Status writeMesh(iso::IsoSurface& s, const std::string& path, bool weld, bool quiet,
                 const std::optional<iso::ParticleBox>& clip = std::nullopt, sample::MeshClipStats* clipped = nullptr) {
    auto mesh = s.readMesh(weld);
    if (!mesh) return mesh.status();
    sample::MeshClipStats c;
    if (clip) c = sample::clipMeshToBox(*mesh, clip->min, clip->max);
    if (clipped) *clipped = c;
    const std::string ext = std::filesystem::path(path).extension().string();
    Status st = ext == ".obj" ? iso::writeObj(*mesh, path) : iso::writePly(*mesh, path);
    if (!st) return st;
    if (!quiet) {
        std::printf("wrote %s (%zu vertices, %zu triangles)\n", path.c_str(), mesh->positions.size(),
                    mesh->indices.size() / 3);
        if (clip)
            std::printf("mesh clipped to --mesh-aabb: %llu triangles inside, %llu cut, %llu outside removed\n",
                        (unsigned long long)c.kept, (unsigned long long)c.cut, (unsigned long long)c.removed);
    }
    return {};
}

std::string jsonNumber(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.7g", v);
    return b;
}

// The user's field function: the file's text, compiled up front so errors
// name the file and its lines ("field.glsl:3: error: ...").
Result<std::string> readGlslFile(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        return Status::error(ErrorCode::NotFound, "--glsl " + path + ": no such file");
    std::ifstream f(path, std::ios::binary);
    if (!f) return Status::error(ErrorCode::Io, "--glsl " + path + ": cannot open");
    std::ostringstream text;
    text << f.rdbuf();
    if (text.str().find_first_not_of(" \t\r\n") == std::string::npos)
        return Status::error(ErrorCode::InvalidArgument, "--glsl " + path + ": the file is empty");
    auto spv = iso::compileUserField(text.str(), sample::glslCompiler(), "glsl");
    if (!spv) {
        // "isosurface 'glsl': user field GLSL does not compile:\n<compiler lines>":
        // the compiler's lines, named by the file, on one line.
        std::string m = spv.message();
        const size_t nl = m.find('\n');
        if (nl != std::string::npos) m = m.substr(nl + 1);
        const std::string tag = "glsl.fieldGlsl";
        for (size_t p = 0; (p = m.find(tag, p)) != std::string::npos; p += path.size()) m.replace(p, tag.size(), path);
        std::string oneLine;
        std::istringstream lines(m);
        for (std::string line; std::getline(lines, line);)
            if (!line.empty()) oneLine += (oneLine.empty() ? "" : " | ") + line;
        return Status::error(ErrorCode::ParseError, "--glsl " + path + " does not compile: " + oneLine);
    }
    return text.str();
}

int runFieldIso(const IsoOptions& o) {
    const iso::NormalMode normals = normalMode(o.normals);
    float b[6];
    {
        if (!sample::parseFloatList(o.bounds, b, 6))
            return usageError(kProg, "--bounds: expected six finite numbers minX,minY,minZ,maxX,maxY,maxZ, got '" +
                                         o.bounds + "'");
        for (int a = 0; a < 3; ++a)
            if (!(b[a] < b[a + 3])) return usageError(kProg, "--bounds: min must be below max on every axis");
    }
    sample::CommonOptions co;
    co.validation = o.validation;
    co.device = o.device;
    std::atomic<uint32_t> messages{0};
    auto device = sample::createSampleDevice(co, &messages);
    if (!device) return fail(kProg, device.message());
    std::array<uint32_t, 3> samples{};
    iso::VolumeFormat format = iso::VolumeFormat::F32;
    iso::VolumeSlabs rawSlabs; // --raw: read slab by slab, never whole
    std::vector<float> fieldValues;
    std::string glslText;
    bool metaballs = false;
    if (!o.raw.empty()) {
        uint32_t dims[3];
        if (o.dims.empty() || !sample::parseTriple(o.dims, dims))
            return usageError(kProg, "--raw needs --dims X,Y,Z (samples, each >= 2)");
        if (!iso::parseVolumeFormat(o.type, format)) return usageError(kProg, "--type must be u8, u16 or f32");
        samples = {dims[0], dims[1], dims[2]};
        auto r = iso::openRawVolumeSlabs(o.raw, samples, format);
        if (!r) return fail(kProg, r.message());
        rawSlabs = std::move(r).value();
    } else {
        uint32_t cells[3];
        if (!sample::parseTriple(o.cells, cells))
            return usageError(kProg, "--cells: expected X,Y,Z positive integers, got '" + o.cells + "'");
        samples = {cells[0] + 1, cells[1] + 1, cells[2] + 1};
        if (!o.glsl.empty()) {
            auto text = readGlslFile(o.glsl);
            if (!text) return fail(kProg, text.message());
            glslText = std::move(text).value();
        } else if (o.field == "metaballs")
            metaballs = true;
        else if (!sample::isAnalyticField(o.field))
            return usageError(kProg, "--field must be cayley, sphere, gyroid or metaballs");
        else if (o.sparse ||
                 uint64_t(samples[0]) * samples[1] * samples[2] * 4 > (**device).limits().maxStorageBufferRange) {
            // The analytic field as GLSL with its Lipschitz constant over the
            // bounds: no samples on the CPU. Where its samples would not fit
            // one storage buffer, the module lays the grid out in bricks by itself.
            if (!o.sparse)
                std::fprintf(stderr,
                             "%s: the sampled field (%.1f MiB) exceeds maxStorageBufferRange (%.1f MiB): evaluated "
                             "on the GPU, in bricks where the dense grid does not fit\n",
                             o.field.c_str(), double(samples[0]) * samples[1] * samples[2] * 4 / 1048576.0,
                             (**device).limits().maxStorageBufferRange / 1048576.0);
            glslText = sample::analyticFieldGlsl(o.field);
        } else {
            std::fprintf(stderr, "sampling %s at %ux%ux%u ...\n", o.field.c_str(), samples[0], samples[1], samples[2]);
            const uint64_t count = uint64_t(samples[0]) * samples[1] * samples[2];
            if (count > (1ull << 31))
                return usageError(kProg, "--cells too large: " + std::to_string(count) + " samples");
            fieldValues = sample::sampleAnalyticField(o.field, samples, {b[0], b[1], b[2]}, {b[3], b[4], b[5]});
        }
    }
    const float isoValue = o.isoGiven  ? o.iso
                           : metaballs ? 0.35f
                           : o.field == "sphere" || o.field == "cayley" || o.field == "gyroid" || !glslText.empty()
                               ? 0.f
                               : 0.5f;
    iso::IsoSurfaceCreateInfo info;
    info.samples = samples;
    info.boundsMin = {b[0], b[1], b[2]};
    info.boundsMax = {b[3], b[4], b[5]};
    info.vertexCapacity = o.capacity; // 0: sized and grown by the module
    info.memoryBudget = toolMemoryBudget(**device, o.memoryBudgetMiB);
    info.normals = normals;
    info.isoValue = isoValue;
    applyMeshSmoothing(**device, o, info);
    // A raw volume whose dense field would not fit one storage buffer goes sparse by itself.
    const uint64_t denseFieldBytes = uint64_t(samples[0]) * samples[1] * samples[2] * 4;
    const bool sparseRaw = !o.raw.empty() && (o.sparse || denseFieldBytes > (**device).limits().maxStorageBufferRange);
    iso::SparseVolumeCensus census;
    if (sparseRaw) {
        std::fprintf(stderr, "%s: finding the bricks iso %g cuts ...\n", o.raw.c_str(), isoValue);
        auto c = iso::censusSparseVolume(rawSlabs, samples, isoValue, isoValue);
        if (!c) return fail(kProg, c.message());
        census = c.value();
        if (!o.sparse)
            std::fprintf(
                stderr, "%s: the dense field (%.1f MiB) exceeds maxStorageBufferRange (%.1f MiB): sparse domain\n",
                o.raw.c_str(), denseFieldBytes / 1048576.0, (**device).limits().maxStorageBufferRange / 1048576.0);
    }
    if (o.sparse || sparseRaw) {
        info.sparse.enabled = true; // the capacities: sized (and grown) by the module
        if (sparseRaw) {
            // The census lists every brick the iso value cuts: the pool and
            // the list never need more (the row pairs: 32 a brick at most).
            info.sparse.maxBricks = std::max(census.surfaceBricks, 1u);
            info.sparse.maxVolumeBricks = std::max(census.surfaceBricks, 1u);
            info.sparse.volumeFormat = format;
        }
    }
    if (metaballs)
        info.source = iso::FieldSource::Metaballs;
    else if (!glslText.empty()) {
        info.source = iso::FieldSource::UserGlsl;
        info.fieldGlsl = glslText;
        info.compileGlsl = sample::glslCompiler();
        info.lipschitz = o.glsl.empty()
                             ? sample::analyticFieldLipschitz(o.field, {b[0], b[1], b[2]}, {b[3], b[4], b[5]})
                             : o.lipschitz;
    } else
        info.source = iso::FieldSource::Volume;
    auto feed = [&](iso::IsoSurface& s) -> Status {
        if (metaballs) {
            std::vector<iso::Metaball> balls;
            const float c[6][3] = {{-0.4f, 0, 0},    {0.4f, 0, 0},       {0, 0.45f, 0},
                                   {0, -0.4f, 0.2f}, {0.1f, 0.1f, 0.5f}, {-0.2f, 0.2f, -0.45f}};
            for (auto& p : c) balls.push_back({{p[0], p[1], p[2]}, 0.55f, 1.f, {}});
            return s.setMetaballs(balls);
        }
        if (!glslText.empty()) return {};
        std::fprintf(stderr, "extracting (%ux%ux%u samples, iso %g) ...\n", samples[0], samples[1], samples[2],
                     isoValue);
        if (!fieldValues.empty())
            return s.uploadVolume(fieldValues.data(), fieldValues.size() * sizeof(float), iso::VolumeFormat::F32);
        return s.uploadVolume(rawSlabs, isoValue, isoValue);
    };
    std::unique_ptr<iso::IsoSurface> surface;
    auto e = extract(**device, surface, info, feed, o.repeat, false);
    if (!e) return fail(kProg, e.message());
    if (surface->sparseDomain().enabled) printSparseSummary(**device, *surface, info, e->stats);
    if (sparseRaw)
        std::printf("sparse volume: %u of %llu bricks resident (%.1f MiB of %s samples, 11^3 a brick; the volume: "
                    "%.1f MiB)\n",
                    census.surfaceBricks, (unsigned long long)census.bricks, census.poolBytes / 1048576.0,
                    iso::volumeFormatName(format),
                    double(samples[0]) * samples[1] * samples[2] * iso::volumeFormatBytes(format) / 1048576.0);
    std::printf("triangles: %u (needed %u)%s, active cells: %u\n",
                (info.indexed ? e->stats.indicesWritten : e->stats.verticesWritten) / 3,
                (info.indexed ? e->stats.indicesNeeded : e->stats.verticesNeeded) / 3,
                e->stats.overflow ? " OVERFLOW" : "", e->stats.activeCells);
    printOutputBuffers(*surface, info.memoryBudget);
    sample::StatsRecorder rec;
    sample::FrameStats fs;
    fs.passes = e->timings;
    sample::fillSurfaceStats(fs, *surface, e->frame);
    rec.setInfo("device", (*device)->name());
    rec.setInfo("source", metaballs ? "metaballs" : !o.raw.empty() ? o.raw : !o.glsl.empty() ? o.glsl : o.field);
    rec.add(fs);
    std::printf("%s", rec.table().c_str());
    if (!o.stats.empty()) {
        Status st = rec.write(o.stats);
        if (!st) return fail(kProg, st.message());
    }
    if (!o.out.empty()) {
        std::fprintf(stderr, "reading back the mesh ...\n");
        Status st = writeMesh(*surface, o.out, o.weld, false, boxOption(o.meshAabbMin, o.meshAabbMax));
        if (!st) return fail(kProg, st.message());
    }
    if (messages) return fail(kProg, std::to_string(messages.load()) + " validation message(s)");
    return e->stats.overflow ? sample::kExitOverflow : sample::kExitDone;
}

// Progress on stderr: a bar redrawn in place on a terminal, else one line per frame.
class Progress {
public:
    explicit Progress(size_t total) : total_(total), tty_(::isatty(STDERR_FILENO) != 0) {}
    void frame(size_t done, const std::string& what) {
        if (tty_) {
            const int width = 30;
            const int filled = int(double(done) / double(std::max<size_t>(total_, 1)) * width);
            std::fprintf(stderr, "\r[%s%s] %zu/%zu %s\x1b[K", std::string(size_t(filled), '#').c_str(),
                         std::string(size_t(width - filled), '.').c_str(), done, total_, what.c_str());
            if (done == total_) std::fprintf(stderr, "\n");
        } else {
            std::fprintf(stderr, "frame %zu/%zu: %s\n", done, total_, what.c_str());
        }
        std::fflush(stderr);
    }
    // Ends the bar's line before another message.
    void interrupt() {
        if (tty_) std::fprintf(stderr, "\n");
    }
    // Erases the bar (a terminal) so a line can be printed in its place; the next frame() redraws it.
    void clear() {
        if (tty_) std::fprintf(stderr, "\r\x1b[K");
    }

private:
    size_t total_;
    bool tty_;
};

std::string gridText(const std::array<uint32_t, 3>& n) {
    return std::to_string(n[0]) + "x" + std::to_string(n[1]) + "x" + std::to_string(n[2]);
}

bool gridContains(const iso::IsoSurfaceCreateInfo& info, const iso::ParticleGrid& g) {
    for (int k = 0; k < 3; ++k)
        if (g.boundsMin[size_t(k)] < info.boundsMin[size_t(k)] || g.boundsMax[size_t(k)] > info.boundsMax[size_t(k)])
            return false;
    return true;
}

// "2 non-finite dropped, 5 outside --particle-aabb" (empty when none).
std::string droppedParticlesText(const iso::ParticleSet::Dropped& d) {
    std::string t;
    if (d.nonFinite) t = std::to_string(d.nonFinite) + " non-finite dropped";
    if (d.outsideBox) t += (t.empty() ? "" : ", ") + std::to_string(d.outsideBox) + " outside --particle-aabb";
    return t;
}

// Particle files: one IsoSurface for the whole sequence. Its grid starts as
// the first frame's (particle bounds padded by the kernel support, on the
// world lattice k * voxel size); a frame whose padded bounds leave it makes
// the grid grow to the union plus an eighth of its extent on every side, so
// an expanding splash recreates the surface a few times, not every frame.
// The samples stay on the same world lattice however the grid moves, so a
// frame's mesh does not depend on the grid it was extracted in. A frame with
// more particles than the surface holds recreates it too (with a quarter to
// spare).
int runParticleIso(const IsoOptions& o) {
    const float r = o.particleRadius;
    const float L = o.smoothingLength;
    const float voxel = o.cubeSize > 0.f ? o.cubeSize * r : o.voxelSize > 0.f ? o.voxelSize : r;
    // ParticleKernel::SphCubicSpline's field is ~1 inside a fluid at rest: the threshold is the iso value.
    const bool sph = o.particleKernel == "sph";
    const float support = iso::kernelSupportRadius(r, L);
    if (!std::isfinite(support) || !(support > 0.f))
        return usageError(kProg, "--particle-radius " + jsonNumber(r) + " x --smoothing-length " + jsonNumber(L) +
                                     " gives no finite kernel support");
    float isoValue = o.iso;
    if (!o.isoGiven) {
        auto v = sph ? Result<float>(o.surfaceThreshold) : iso::particleIsoValue(o.surfaceThreshold, L);
        if (!v) return fail(kProg, v.message());
        isoValue = *v;
    }
    auto rest = sph ? Result<double>(1.0) : iso::particleRestDensity(L);
    if (!rest) return fail(kProg, rest.message());

    const bool sequence = iso::isSequencePattern(o.particles);
    std::vector<iso::SequenceFrame> frames;
    if (sequence) {
        auto f = iso::expandSequence(o.particles);
        if (!f) return fail(kProg, f.message());
        frames = std::move(f).value();
    } else {
        frames.push_back({0, "", o.particles});
    }

    // Reader options: the --particle-aabb box, the attributes asked for;
    // non-finite positions are dropped and counted.
    iso::ParticleReadOptions readOptions;
    readOptions.box = boxOption(o.particleAabbMin, o.particleAabbMax);
    readOptions.attributes = o.attributes;
    for (const std::string& name : o.interpolateAttributes)
        if (std::find(readOptions.attributes.begin(), readOptions.attributes.end(), name) ==
            readOptions.attributes.end())
            readOptions.attributes.push_back(name);
    const std::optional<iso::ParticleBox> meshBox = boxOption(o.meshAabbMin, o.meshAabbMax);
    // The first frame is read before the device is made: a bad file fails fast.
    auto first = iso::readParticles(frames[0].path, readOptions);
    if (!first) return fail(kProg, first.message());

    sample::CommonOptions co;
    co.validation = o.validation;
    co.device = o.device;
    std::atomic<uint32_t> messages{0};
    auto device = sample::createSampleDevice(co, &messages);
    if (!device) return fail(kProg, device.message());
    Device& dev = **device;

    iso::IsoSurfaceCreateInfo info;
    info.source = iso::FieldSource::Particles;
    info.particleRadius = support;
    info.particleKernel = sph ? iso::ParticleKernel::SphCubicSpline : iso::ParticleKernel::NeighbourCount;
    info.particleSmoothing = o.particleSmoothing;
    info.anisotropic.enabled = o.anisotropic;
    info.normals = normalMode(o.normals);
    info.isoValue = isoValue;
    info.vertexCapacity = o.capacity; // 0: sized and grown by the module
    info.memoryBudget = toolMemoryBudget(**device, o.memoryBudgetMiB);
    info.sparse.enabled = o.sparse;
    // --interpolate-attributes: as many components as the first frame's arrays.
    for (const std::string& name : o.interpolateAttributes)
        info.surfaceAttributes.push_back({name, first->attribute(name)->components});
    applyMeshSmoothing(dev, o, info);
    std::unique_ptr<iso::IsoSurface> surface;

    sample::StatsRecorder rec;
    rec.setInfo("device", dev.name());
    rec.setInfo("source", o.particles);
    rec.setInfo("particle_radius", jsonNumber(r));
    rec.setInfo("smoothing_length", jsonNumber(L));
    rec.setInfo("kernel_support", jsonNumber(support));
    rec.setInfo("voxel_size", jsonNumber(voxel));
    rec.setInfo("surface_threshold", o.isoGiven ? "" : jsonNumber(o.surfaceThreshold));
    rec.setInfo("rest_density", jsonNumber(*rest));
    rec.setInfo("iso_value", jsonNumber(isoValue));
    rec.setInfo("particle_kernel", o.particleKernel);
    rec.setInfo("particle_smoothing", jsonNumber(o.particleSmoothing));
    rec.setInfo("anisotropic", o.anisotropic ? "true" : "false");
    rec.setInfo("mesh_smoothing", std::to_string(o.meshSmoothing));
    if (o.meshSmoothing) {
        rec.setInfo("mesh_smoothing_lambda", jsonNumber(o.meshLambda));
        rec.setInfo("mesh_smoothing_mu", jsonNumber(o.meshMu));
    }
    if (!sequence)
        std::fprintf(stderr,
                     "particle radius %g, smoothing length %g (kernel support %g), voxel size %g, iso %g (%g x rest "
                     "density %g), particle smoothing %g%s\n",
                     r, L, support, voxel, isoValue, isoValue / *rest, *rest, o.particleSmoothing,
                     o.anisotropic ? ", anisotropic kernels" : "");

    Progress progress(frames.size());
    uint32_t recreations = 0;
    for (size_t i = 0; i < frames.size(); ++i) {
        const iso::SequenceFrame& frame = frames[i];
        auto failFrame = [&](const std::string& m) {
            progress.interrupt();
            return fail(kProg, m);
        };
        auto set = i == 0 ? std::move(first) : iso::readParticles(frame.path, readOptions);
        if (!set) return failFrame(set.message());
        const iso::ParticleSet::Dropped dropped = set->dropped;
        const std::string droppedText = droppedParticlesText(dropped);
        if (set->count() == 0)
            return failFrame(frame.path + ": no particles" + (droppedText.empty() ? "" : " (" + droppedText + ")"));
        if (set->count() > std::numeric_limits<uint32_t>::max())
            return failFrame(frame.path + ": more than 2^32 - 1 particles");
        auto g = iso::particleGrid(set->bounds, voxel, support);
        if (!g) {
            // A stray particle far from the fluid: say where the particles are and how to keep the fluid only.
            const auto& b = set->bounds;
            return failFrame(
                frame.path + ": " + g.message() + "; the particles span " + jsonNumber(b.min[0]) + "," +
                jsonNumber(b.min[1]) + "," + jsonNumber(b.min[2]) + " to " + jsonNumber(b.max[0]) + "," +
                jsonNumber(b.max[1]) + "," + jsonNumber(b.max[2]) +
                (readOptions.box ? "" : ": keep the fluid with --particle-aabb-min X,Y,Z --particle-aabb-max X,Y,Z") +
                " (or give a larger --voxel-size)");
        }
        const uint32_t count = uint32_t(set->count());

        // Does the current surface hold this frame?
        bool recreate = !surface || count > info.maxParticles || !gridContains(info, *g);
        if (recreate) {
            iso::ParticleGrid grid = *g;
            if (surface && sequence) {
                // Grow: union of the old grid and this frame's, plus slack.
                iso::ParticleBounds u;
                float slack = 0.f;
                for (int k = 0; k < 3; ++k) {
                    const size_t a = size_t(k);
                    u.min[a] = std::min(info.boundsMin[a], g->boundsMin[a]);
                    u.max[a] = std::max(info.boundsMax[a], g->boundsMax[a]);
                    slack = std::max(slack, (u.max[a] - u.min[a]) / 8.f);
                }
                auto grown = iso::particleGrid(u, voxel, gridContains(info, *g) ? 0.f : slack);
                if (grown) grid = *grown;
            }
            info.samples = grid.samples;
            info.boundsMin = grid.boundsMin;
            info.boundsMax = grid.boundsMax;
            info.maxParticles =
                std::max(info.maxParticles, sequence && i + 1 < frames.size()
                                                ? uint32_t(std::min<uint64_t>(uint64_t(count) * 5 / 4, 0xFFFFFFFFu))
                                                : count);
            surface.reset();
            // A grown grid can be too large for the device: fall back to
            // this frame's own grid before giving up.
            auto created = iso::IsoSurface::create(dev, info);
            if (!created && !(grid.samples == g->samples && grid.boundsMin == g->boundsMin)) {
                info.samples = g->samples;
                info.boundsMin = g->boundsMin;
                info.boundsMax = g->boundsMax;
                created = iso::IsoSurface::create(dev, info);
            }
            if (!created)
                return failFrame(frame.path + ": " + gridText(info.samples) + " samples at voxel size " +
                                 jsonNumber(voxel) + ": " + created.message());
            surface = std::move(created).value();
            // A grid the dense layout does not fit: the module chose bricks
            // and sized them; the summary and the retries start from those.
            if (surface->sparseDomain().enabled) info.sparse = surface->sparseDomain();
            ++recreations;
        }
        // The reader's xyz floats as they are (stride 12, every weight 1): no repacking.
        const iso::ParticleArrays particles{.positions = set->xyz.data(), .count = count};
        // --interpolate-attributes: each frame's arrays, as the surface was made for.
        std::vector<const iso::ParticleAttribute*> attributeArrays;
        for (const iso::SurfaceAttribute& a : info.surfaceAttributes) {
            const iso::ParticleAttribute* values = set->attribute(a.name);
            if (!values || values->components != a.components)
                return failFrame(frame.path + ": attribute '" + a.name + "' has " +
                                 std::to_string(values ? values->components : 0) + " components, the first frame's " +
                                 std::to_string(a.components));
            attributeArrays.push_back(values);
        }
        auto feed = [&](iso::IsoSurface& s) {
            PYRAMARCH_TRY(s.setParticles(particles));
            for (size_t a = 0; a < attributeArrays.size(); ++a)
                PYRAMARCH_TRY(s.setParticleAttribute(uint32_t(a), attributeArrays[a]->values));
            return Status{};
        };
        if (!sequence)
            std::fprintf(stderr, "extracting %u particles (%s samples) ...\n", count, gridText(info.samples).c_str());
        Status fed = feed(*surface);
        if (!fed) return failFrame(frame.path + ": " + fed.message());
        auto e = extract(dev, surface, info, feed, o.repeat, sequence);
        if (!e) return failFrame(frame.path + ": " + e.message());
        if (e->created) ++recreations;
        if (surface->sparseDomain().enabled && !sequence) printSparseSummary(dev, *surface, info, e->stats);

        sample::FrameStats fs;
        fs.frame = sequence ? frame.index : 0;
        fs.passes = e->timings;
        sample::fillSurfaceStats(fs, *surface, e->frame);
        fs.extra.emplace_back("file", sample::jsonString(frame.path));
        fs.extra.emplace_back("particles", std::to_string(count));
        fs.extra.emplace_back("particles_non_finite", std::to_string(dropped.nonFinite));
        fs.extra.emplace_back("particles_outside_box", std::to_string(dropped.outsideBox));
        fs.extra.emplace_back("grid", "[" + std::to_string(info.samples[0]) + ", " + std::to_string(info.samples[1]) +
                                          ", " + std::to_string(info.samples[2]) + "]");
        fs.extra.emplace_back("grid_min", "[" + jsonNumber(info.boundsMin[0]) + ", " + jsonNumber(info.boundsMin[1]) +
                                              ", " + jsonNumber(info.boundsMin[2]) + "]");
        fs.extra.emplace_back("grid_max", "[" + jsonNumber(info.boundsMax[0]) + ", " + jsonNumber(info.boundsMax[1]) +
                                              ", " + jsonNumber(info.boundsMax[2]) + "]");
        fs.extra.emplace_back("iso_value", jsonNumber(isoValue));
        fs.extra.emplace_back("vertex_capacity", std::to_string(surface->vertexCapacity()));
        const double gpuMs = fs.gpuMs();
        const uint32_t tris = fs.triangles, trisNeeded = fs.trianglesNeeded;
        const bool overflow = fs.overflow;

        std::string outPath;
        if (!o.out.empty()) {
            outPath = sequence ? iso::sequencePath(o.out, frame.indexText) : o.out;
            const auto parent = std::filesystem::path(outPath).parent_path();
            std::error_code ec;
            if (!parent.empty()) std::filesystem::create_directories(parent, ec);
            sample::MeshClipStats clipped;
            Status st = writeMesh(*surface, outPath, o.weld, sequence, meshBox, &clipped);
            if (!st) return failFrame(st.message());
            if (meshBox) {
                fs.extra.emplace_back("mesh_triangles_cut", std::to_string(clipped.cut));
                fs.extra.emplace_back("mesh_triangles_removed", std::to_string(clipped.removed));
            }
        }
        rec.add(std::move(fs));
        if (sequence) {
            char what[512];
            std::snprintf(what, sizeof what, "%s: %u particles%s%s%s, %u triangles%s, %.1f ms GPU%s%s",
                          std::filesystem::path(frame.path).filename().c_str(), count, droppedText.empty() ? "" : " (",
                          droppedText.c_str(), droppedText.empty() ? "" : ")", tris, overflow ? " OVERFLOW" : "", gpuMs,
                          outPath.empty() ? "" : " -> ", outPath.c_str());
            if (!o.stats.empty()) {
                // --stats: the frame's figures as a line above the bar, and the JSON so far on disk.
                progress.clear();
                std::printf("frame %llu: %s\n", (unsigned long long)frame.index, what);
                std::fflush(stdout);
                rec.setInfo("frames", std::to_string(i + 1));
                Status st = rec.write(o.stats);
                if (!st) return failFrame(st.message());
            }
            progress.frame(i + 1, what);
        } else {
            std::printf("particles: %u%s%s%s, grid %s samples (voxel %g), iso %g\n", count,
                        droppedText.empty() ? "" : " (", droppedText.c_str(), droppedText.empty() ? "" : ")",
                        gridText(info.samples).c_str(), voxel, isoValue);
            std::printf("triangles: %u (needed %u)%s, active cells: %u\n", tris, trisNeeded,
                        overflow ? " OVERFLOW" : "", e->stats.activeCells);
            printOutputBuffers(*surface, info.memoryBudget);
        }
    }
    rec.setInfo("frames", std::to_string(frames.size()));
    rec.setInfo("surfaces_created", std::to_string(recreations));
    std::printf("%s", rec.table().c_str());
    if (sequence) std::printf("%zu frames, %u surface (re)creations\n", frames.size(), recreations);
    if (!o.stats.empty()) {
        Status st = rec.write(o.stats);
        if (!st) return fail(kProg, st.message());
    }
    if (messages) return fail(kProg, std::to_string(messages.load()) + " validation message(s)");
    for (const sample::FrameStats& f : rec.frames())
        if (f.overflow) return sample::kExitOverflow;
    return sample::kExitDone;
}

} // namespace

int runIso(const IsoOptions& o) {
    if (!o.particles.empty()) return runParticleIso(o);
    return runFieldIso(o);
}
