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

// A first capacity guess when --capacity is not given: never more than one
// storage binding holds (32-byte vertices), at least 4096 triangles. A
// surface that needs more gets it from the retry (maxVertexCapacity: the
// module writes one buffer through several bindings).
uint32_t guessCapacity(const Device& device, uint64_t guess) {
    const uint64_t most = device.limits().maxStorageBufferRange / iso::IsoSurface::vertexStride() / 3 * 3;
    return uint32_t(std::min<uint64_t>(std::max<uint64_t>(guess, 3 * 4096), most));
}

// The largest capacities the retry may ask for: what one vertex / index
// buffer holds through the module's storage bindings (iso::maxVertexCapacity),
// and with mesh smoothing what its per-vertex and per-index buffers, bound
// whole, hold in one binding.
uint32_t mostVertexCapacity(const Device& device, const iso::IsoSurfaceCreateInfo& info) {
    uint64_t most = iso::maxVertexCapacity(device.limits());
    if (info.meshSmoothing.iterations) most = std::min<uint64_t>(most, device.limits().maxStorageBufferRange / 16);
    return uint32_t(most / 3 * 3);
}
uint32_t mostIndexCapacity(const Device& device, const iso::IsoSurfaceCreateInfo& info) {
    uint64_t most = iso::maxIndexCapacity(device.limits());
    if (info.meshSmoothing.iterations) most = std::min<uint64_t>(most, device.limits().maxStorageBufferRange / 8);
    return uint32_t(most / 3 * 3);
}

// The vertex (and index) buffer the surface got: its size and the storage
// bindings the module writes it through.
void printOutputBuffers(const iso::IsoSurface& surface) {
    for (const iso::IsoSurface::MemoryItem& m : surface.memoryReport())
        if (m.name == "vertices" || m.name == "indices")
            std::printf("%s buffer: %.1f MiB in %u storage binding%s\n", m.name == "vertices" ? "vertex" : "index",
                        m.bytes / 1048576.0, m.bindings, m.bindings == 1 ? "" : "s");
}

// --indexed, and --mesh-smoothing: indexed output (the smoothing finds
// neighbours in the index buffer). `vertices` is the non-indexed guess (3 per triangle); a
// closed MC mesh has about half as many unique vertices as triangles, so
// unique vertices get a third of it and the indices all of it. A fixed
// --capacity counts unique vertices: 6 indices each.
// sizeCapacities false: only the switches (capacities already sized).
void applyMeshSmoothing(const Device& device, const IsoOptions& o, iso::IsoSurfaceCreateInfo& info,
                        bool sizeCapacities = true) {
    if (o.meshSmoothing == 0 && !o.indexed) return;
    info.indexed = true;
    if (o.meshSmoothing) info.meshSmoothing = {o.meshSmoothing, o.meshLambda, o.meshMu};
    if (!sizeCapacities) return;
    const uint64_t mostIndices = mostIndexCapacity(device, info);
    if (o.capacity) {
        info.indexCapacity = uint32_t(std::min<uint64_t>(uint64_t(o.capacity) * 6, mostIndices));
        return;
    }
    info.indexCapacity = uint32_t(std::min<uint64_t>(info.vertexCapacity, mostIndices));
    info.vertexCapacity = std::max(info.vertexCapacity / 3 / 3 * 3, 3u * 4096u);
}

// One extraction: the surface (created here when `surface` is empty, with
// `info`), fed by `feed` after each creation, recorded `repeat` times (the
// last one's timings and stats count). On overflow, unless the capacity is
// fixed, the surface is created once more with the size the stats suggest
// (the tool's retry-on-overflow).
struct Extraction {
    iso::IsoStats stats;
    std::vector<PassTiming> timings;
    uint64_t frame = 0;
    bool created = false; // a surface was (re)created for it
};

// A sparse domain's lists and pool against its capacities, and its resident
// memory against what the dense path would keep for the grid.
void printSparseSummary(Device& device, iso::IsoSurface& surface, const iso::IsoSurfaceCreateInfo& info,
                        const iso::IsoStats& stats) {
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
            std::printf("sparse: %u crowded bricks (more %s than one brick may list) left empty: finer cells "
                        "(--voxel-size, --cells) list fewer a brick\n",
                        stats.sparseCrowdedBricks, info.source == iso::FieldSource::Particles ? "particles" : "balls");
    }
}

Result<Extraction> extract(Device& device, std::unique_ptr<iso::IsoSurface>& surface, iso::IsoSurfaceCreateInfo& info,
                           const std::function<Status(iso::IsoSurface&)>& feed, uint32_t repeat, bool capacityFixed,
                           bool quiet, bool sparseFixed = false) {
    Extraction e;
    bool fed = false;
    // Sparse domains may take two retries: pairs of bricks past a short
    // brick list were never counted, so the first suggestion can fall short.
    int attempts = info.sparse.enabled && !sparseFixed ? 4 : 2;
    bool vertexRetried = false;
    for (int attempt = 0; attempt < attempts; ++attempt) {
        if (!surface) {
            auto created = iso::IsoSurface::create(device, info);
            if (!created) return created.status();
            surface = std::move(created).value();
            e.created = true;
            fed = false;
            // A grid the dense layout does not fit: the module chose a sparse
            // domain and sized it; retries grow from its capacities.
            const iso::SparseDomain chosen = surface->sparseDomain();
            if (chosen.enabled) {
                if (!info.sparse.enabled && !sparseFixed) attempts = 4;
                info.sparse = chosen;
            }
        }
        iso::IsoSurface& s = *surface;
        if (!fed) {
            Status st = feed(s);
            if (!st) return st;
            fed = true;
        }
        // The first frame carries the pipelines' JIT on some drivers: time the last.
        for (uint32_t r = 0; r < std::max(1u, repeat); ++r) {
            Status recorded;
            Status st = submitAndWait(device, [&](VkCommandBuffer cmd) { recorded = s.record(cmd); });
            if (!st) return st;
            if (!recorded) return recorded;
        }
        e.frame = s.framesRecorded() - 1;
        const auto stats = s.statsOfFrame(e.frame);
        if (!stats)
            return Status::error(ErrorCode::InvalidState, "no surface stats for the frame (the GPU did not finish it)");
        e.stats = *stats;
        bool retry = false;
        // Metaballs and particles: the item references too.
        const uint32_t ballRefs = iso::sparseItemRefCapacity(info, device.limits());
        const bool refsShort = stats->sparseItemRefsNeeded > ballRefs;
        const bool sparseShort =
            info.sparse.enabled && (stats->sparseBricksNeeded > info.sparse.maxBricks ||
                                    stats->sparseRowPairsNeeded > info.sparse.maxRowPairs || refsShort);
        const bool sparseCanGrow = stats->sparseBricksNeeded > info.sparse.maxBricks || refsShort ||
                                   info.sparse.maxRowPairs < iso::maxSparseRowPairs(device.limits());
        if (sparseShort && sparseCanGrow && !sparseFixed && attempt + 1 < attempts) {
            const iso::SparseDomain more = iso::suggestSparseCapacity(*stats);
            // At most what the device holds: past it the overflow stays a reported, bounded result.
            const uint32_t mostPairs = iso::maxSparseRowPairs(device.limits());
            info.sparse.maxBricks = std::max(info.sparse.maxBricks, more.maxBricks);
            // Particles keep a block of samples per brick: at most what the device's pool holds.
            if (info.source == iso::FieldSource::Particles)
                info.sparse.maxBricks = std::min(info.sparse.maxBricks, iso::maxSparseParticleBricks(device.limits()));
            info.sparse.maxRowPairs = std::min(std::max(info.sparse.maxRowPairs, more.maxRowPairs), mostPairs);
            if (refsShort) info.sparse.maxItemRefs = std::max(ballRefs, more.maxItemRefs);
            if (!quiet)
                std::fprintf(stderr,
                             "sparse capacities too small (%u bricks, %u row pairs, %u item references needed): "
                             "retrying with %u, %u, %u\n",
                             stats->sparseBricksNeeded, stats->sparseRowPairsNeeded, stats->sparseItemRefsNeeded,
                             info.sparse.maxBricks, info.sparse.maxRowPairs,
                             iso::sparseItemRefCapacity(info, device.limits()));
            retry = true;
        }
        // The vertex buffer once, from counts no short sparse capacity cut.
        // Never past what one vertex buffer can hold (through several
        // storage bindings): beyond it the overflow stays a reported, bounded result.
        const uint32_t mostVertices = mostVertexCapacity(device, info);
        if (stats->overflow && !sparseShort && !vertexRetried && !capacityFixed &&
            (info.vertexCapacity < mostVertices || info.indexed)) {
            info.vertexCapacity = std::min(std::max(info.vertexCapacity, iso::suggestCapacity(*stats)), mostVertices);
            // Indices, as vertices, at most what one buffer holds.
            const uint32_t mostIndices = mostIndexCapacity(device, info);
            if (info.indexed)
                info.indexCapacity =
                    std::min(std::max(info.indexCapacity, iso::suggestIndexCapacity(*stats)), mostIndices);
            if (!quiet)
                std::fprintf(stderr, "capacity too small (%u vertices needed): retrying with %u\n",
                             stats->verticesNeeded, info.vertexCapacity);
            vertexRetried = true;
            retry = attempt + 1 < attempts;
        }
        if (retry) {
            surface.reset();
            continue;
        }
        if (const std::optional<iso::IsoTimings> timings = s.latestTimings()) e.timings = timings->passes;
        break;
    }
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
    // About one vertex per two cells suits smooth surfaces.
    const uint64_t cells = uint64_t(samples[0] - 1) * (samples[1] - 1) * (samples[2] - 1);
    // Sparse: a guess of 1 vertex per 64 cells (a surface crossing a few percent of the bricks), retried.
    info.vertexCapacity = o.capacity ? o.capacity : guessCapacity(**device, o.sparse ? cells / 64 : cells / 2);
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
        info.sparse.enabled = true;
        // Guesses (retried from the stats when short): the bricks along
        // 3 faces of the grid, 8 row pairs a brick.
        const uint64_t bricks = sample::sparseBricksOf(samples);
        const uint64_t face = uint64_t((std::max({samples[0], samples[1], samples[2]}) + 6) / 8);
        info.sparse.maxBricks = o.sparseBricks
                                    ? o.sparseBricks
                                    : uint32_t(std::min<uint64_t>(bricks, std::max<uint64_t>(3 * face * face, 64)));
        info.sparse.maxRowPairs = o.sparseRowPairs ? o.sparseRowPairs : std::max(info.sparse.maxBricks, 1u) * 8u;
        if (sparseRaw) {
            // The census lists every brick the iso value cuts: the list never needs more.
            info.sparse.maxBricks = o.sparseBricks ? o.sparseBricks : std::max(census.surfaceBricks, 1u);
            info.sparse.maxRowPairs = o.sparseRowPairs ? o.sparseRowPairs
                                                       : std::min(std::max(census.surfaceBricks, 1u) * 24u,
                                                                  iso::maxSparseRowPairs((**device).limits()));
            info.sparse.maxVolumeBricks = std::max(census.surfaceBricks, 1u);
            info.sparse.volumeFormat = format;
            // ~20 of a brick's 32 row pairs hold a cut cell, ~1 vertex a cell
            // (a CT head): guesses, retried from the stats.
            if (!o.capacity) info.vertexCapacity = guessCapacity(**device, uint64_t(census.surfaceBricks) * 512);
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
        info.fieldEvaluation = o.fieldEvaluation == "fused"    ? iso::FieldEvaluation::Fused
                               : o.fieldEvaluation == "buffer" ? iso::FieldEvaluation::Buffer
                                                               : iso::FieldEvaluation::Auto;
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
        std::fprintf(stderr, "extracting (%ux%ux%u samples, iso %g, capacity %u vertices) ...\n", samples[0],
                     samples[1], samples[2], isoValue, info.vertexCapacity);
        if (!fieldValues.empty())
            return s.uploadVolume(fieldValues.data(), fieldValues.size() * sizeof(float), iso::VolumeFormat::F32);
        return s.uploadVolume(rawSlabs, isoValue, isoValue);
    };
    std::unique_ptr<iso::IsoSurface> surface;
    auto e = extract(**device, surface, info, feed, o.repeat, o.capacity != 0, false, o.sparseCapacityGiven);
    if (!e) return fail(kProg, e.message());
    if (info.sparse.enabled) printSparseSummary(**device, *surface, info, e->stats);
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
    printOutputBuffers(*surface);
    sample::StatsRecorder rec;
    sample::FrameStats fs;
    fs.passes = e->timings;
    sample::fillSurfaceStats(fs, *surface, e->frame);
    rec.setInfo("device", (*device)->name());
    rec.setInfo("source", metaballs ? "metaballs" : !o.raw.empty() ? o.raw : !o.glsl.empty() ? o.glsl : o.field);
    if (!o.glsl.empty()) rec.setInfo("field_evaluation", o.fieldEvaluation);
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
    info.splat = sample::splatMethodFromName(o.splat);
    info.particleSmoothing = o.particleSmoothing;
    info.anisotropic.enabled = o.anisotropic;
    info.normals = normalMode(o.normals);
    info.isoValue = isoValue;
    info.vertexCapacity = o.capacity;
    info.sparse.enabled = o.sparse;
    // --interpolate-attributes: as many components as the first frame's arrays.
    for (const std::string& name : o.interpolateAttributes)
        info.surfaceAttributes.push_back({name, first->attribute(name)->components});
    if (o.capacity) applyMeshSmoothing(dev, o, info); // the index capacity of a fixed --capacity
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
    rec.setInfo("splat", o.splat);
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
            if (!o.capacity) {
                // A closed surface crosses about cells^(2/3) cells, a few
                // triangles each; fluid sets (splashes, low-density shells
                // inside) need more: measured 2.4-3 vertices per particle
                // on peer_particles' dam break (100k and 1M). The retry
                // fixes a wrong guess at the price of a second extraction.
                const double cells = double(grid.samples[0] - 1) * (grid.samples[1] - 1) * (grid.samples[2] - 1);
                const uint64_t guess =
                    std::max<uint64_t>(uint64_t(48.0 * std::pow(cells, 2.0 / 3.0)), 4ull * info.maxParticles);
                // Indexed (--mesh-smoothing): grows from the unique-vertex
                // and index capacities applyMeshSmoothing derives.
                iso::IsoSurfaceCreateInfo sized = info;
                sized.vertexCapacity = guessCapacity(dev, guess);
                applyMeshSmoothing(dev, o, sized);
                info.vertexCapacity = std::max(info.vertexCapacity, sized.vertexCapacity);
                info.indexCapacity = std::max(info.indexCapacity, sized.indexCapacity);
            }
            applyMeshSmoothing(dev, o, info, false);
            if (o.sparse && !o.sparseCapacityGiven) {
                // Guesses, retried from the stats: a brick per 8 particles
                // (fluid shells and splashes), 8 row pairs a brick.
                const uint64_t bricks = sample::sparseBricksOf(grid.samples);
                // At most the blocks the device's pool holds (sparse particles keep 11^3 samples a brick).
                const uint64_t most = std::min<uint64_t>(bricks, iso::maxSparseParticleBricks(dev.limits()));
                const uint32_t guess = uint32_t(std::clamp<uint64_t>(info.maxParticles / 8 + 64, 64, most));
                info.sparse.maxBricks = std::max(info.sparse.maxBricks, guess);
                info.sparse.maxRowPairs = std::max(info.sparse.maxRowPairs, info.sparse.maxBricks * 8u);
            } else if (o.sparse) {
                info.sparse.maxBricks = o.sparseBricks ? o.sparseBricks : std::max(info.sparse.maxBricks, 64u);
                info.sparse.maxRowPairs =
                    o.sparseRowPairs ? o.sparseRowPairs : std::max(info.sparse.maxRowPairs, info.sparse.maxBricks * 8u);
            }
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
            rec.setInfo("splat", sample::splatMethodName(surface->splatMethod())); // Auto resolved
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
            std::fprintf(stderr, "extracting %u particles (%s samples, capacity %u vertices) ...\n", count,
                         gridText(info.samples).c_str(), info.vertexCapacity);
        Status fed = feed(*surface);
        if (!fed) return failFrame(frame.path + ": " + fed.message());
        // extract() feeds again only when it recreates the surface (overflow).
        auto e = extract(dev, surface, info, feed, o.repeat, o.capacity != 0, sequence, o.sparseCapacityGiven);
        if (!e) return failFrame(frame.path + ": " + e.message());
        if (e->created) ++recreations;
        if (info.sparse.enabled && !sequence) printSparseSummary(dev, *surface, info, e->stats);

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
        fs.extra.emplace_back("vertex_capacity", std::to_string(info.vertexCapacity));
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
            printOutputBuffers(*surface);
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
