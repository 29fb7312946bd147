// GPU isosurface vs the CPU reference (tests/reference), on the validated
// shared device: any validation or synchronization message fails a test.
//
// Extraction is compared on the GPU's own field samples (read back), so the
// comparison isolates marching cubes from the field pass; each field pass is
// compared to its analytic / brute-force CPU field separately.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <set>
#include <fstream>
#include <limits>
#include <map>
#include <unistd.h>

#include "pyramarch/engine/render_graph.h"
#include "pyramarch/engine/shader_compiler.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/engine/vulkan_functions.h"
#include "pyramarch/isosurface/isosurface.h"
#include "isosurface/iso_shared.h"
#include "pyramarch/isosurface/testing.h"
#include "reference.h"
#include "iso_fixture.h"
#include "iso_reference_convert.h"
#include "reference_grid.h"
#include "support/gpu_test.h"

using namespace pyramarch;
using namespace pyramarch::iso;
// The measured variants (testing::Knobs, through the fixture's make()).
using iso::testing::ExtractionMethod;
using iso::testing::FieldEvaluation;
using iso::testing::SplatMethod;

namespace {

// Word indices into iso::testing::readDrawArgs() (gpu::IsoArgs, the layout the args shader
// writes), from the shared struct rather than literal offsets.
struct ArgWords {
#define PYRAMARCH_ARG_WORD(member) size_t member = offsetof(gpu::IsoArgs, member) / sizeof(uint32_t);
    PYRAMARCH_ARG_WORD(dispatchX)
    PYRAMARCH_ARG_WORD(dispatchY)
    PYRAMARCH_ARG_WORD(vertexCount)
    PYRAMARCH_ARG_WORD(instanceCount)
    PYRAMARCH_ARG_WORD(indexCount)
    PYRAMARCH_ARG_WORD(indexedInstanceCount)
#undef PYRAMARCH_ARG_WORD
};
constexpr ArgWords kArg;
constexpr size_t kArgWordCount = sizeof(gpu::IsoArgs) / sizeof(uint32_t);
// The offsets hosts draw from are the shared struct's fields.
static_assert(IsoSurface::drawArgsOffset() == offsetof(gpu::IsoArgs, vertexCount));
static_assert(IsoSurface::drawIndexedArgsOffset() == offsetof(gpu::IsoArgs, indexCount));

constexpr const char* kSphereGlsl = "// sphere of radius iso_params[0].w at iso_params[0].xyz\nfloat field(vec3 p) {\n "
                                    "   return iso_params[0].w - length(p - iso_params[0].xyz);\n}\n";

// Same vertex records, byte for byte (memcmp needs non-null pointers even
// for zero bytes: empty surfaces compare by size alone).
bool sameVertexBytes(const std::vector<IsoVertexData>& a, const std::vector<IsoVertexData>& b) {
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(IsoVertexData)) == 0);
}

// Every sample of the tiles `tiled` evaluated (testing::readFieldTiles) has
// the bits of `dense`'s (the same source evaluated at every sample).
void expectTiledFieldMatches(IsoSurface& tiled, IsoSurface& dense, const ref::Grid& g) {
    auto tiles = iso::testing::readFieldTiles(tiled);
    auto a = tiled.readField(), b = dense.readField();
    ASSERT_TRUE(tiles.ok() && a.ok() && b.ok());
    const uint32_t t[2] = {(g.n[0] + 7) / 8, (g.n[1] + 7) / 8};
    for (uint32_t tile : tiles.value()) {
        const uint32_t o[3] = {tile % t[0] * 8, tile / t[0] % t[1] * 8, tile / (t[0] * t[1]) * 8};
        for (uint32_t z = o[2]; z < std::min(o[2] + 8, g.n[2]); ++z)
            for (uint32_t y = o[1]; y < std::min(o[1] + 8, g.n[1]); ++y)
                for (uint32_t x = o[0]; x < std::min(o[0] + 8, g.n[0]); ++x) {
                    const size_t i = g.index(x, y, z);
                    ASSERT_EQ(0, std::memcmp(&a.value()[i], &b.value()[i], 4))
                        << "tile " << tile << " sample " << x << "," << y << "," << z << ": " << a.value()[i] << " vs "
                        << b.value()[i];
                }
    }
}

class IsoGpu : public IsoSurfaceTest {
protected:
    // User fields in a field buffer: the reference checks march the field
    // the GPU classified (readField). The default (Auto: fused with the
    // HistoPyramid) is checked against it in FusedUserFieldMatchesTheBuffer.
    IsoGpu() { fieldEvaluation = FieldEvaluation::Buffer; }
    void checkIndexedVolumeVariants(std::array<uint32_t, 3> n);
    // Full check of the last frame against the CPU reference on the GPU's
    // field: `iso`'s own, or `fieldOf`'s (a dense twin of a user field that
    // evaluates only the tiles it reads: its other samples are stale).
    void checkAgainstReference(IsoSurface& iso, const IsoSurfaceCreateInfo& info, ref::McResult* out = nullptr,
                               IsoSurface* fieldOf = nullptr) {
        const ref::Grid g = referenceGridOf(info);
        auto field = (fieldOf ? fieldOf : &iso)->readField();
        ASSERT_TRUE(field.ok()) << field.message();
        const ref::McResult cpu = ref::marchingCubes(g, field.value().data(), iso.isoValue(), refNormals(info.normals));
        auto verts = iso.readVertices();
        ASSERT_TRUE(verts.ok()) << verts.message();
        const auto gpu = toRef(verts.value());
        const float tol = ref::positionTolerance(g);
        EXPECT_EQ(ref::compareTriangleSets(cpu.vertices, gpu, tol, 1e-3f), "");
        // Key order is cell order (the dense grid) or brick order (the
        // direct brick table): vertex k of the GPU is vertex k of the CPU in
        // that order, i.e. every key maps to the right (cell, local index).
        const bool bricks = iso::testing::directBricks(iso);
        const std::vector<ref::Vertex> expected = bricks ? inBrickOrder(cpu, info.samples) : cpu.vertices;
        ASSERT_EQ(gpu.size(), cpu.vertices.size());
        for (size_t k = 0; k < gpu.size(); ++k) {
            bool same = true;
            for (int c = 0; c < 3; ++c) same = same && std::fabs(gpu[k].p[c] - expected[k].p[c]) <= tol;
            same = same && gpu[k].cellTriangles == expected[k].cellTriangles;
            if (!same) {
                ADD_FAILURE() << "key " << k << " maps elsewhere" << (bricks ? " (brick order)" : "");
                break;
            }
        }
        // Pyramid: base = count | case << 4 per cell, every level the CPU sums.
        auto pyr = iso::testing::readPyramid(iso);
        ASSERT_TRUE(pyr.ok()) << pyr.message();
        if (bricks) {
            // Over every brick's 32 row pairs of 16 cells: a cell past the grid is case 0.
            const uint32_t cx = g.n[0] - 1, cy = g.n[1] - 1, cz = g.n[2] - 1;
            const uint32_t bx = (cx + 7) / 8, by = (cy + 7) / 8, bz = (cz + 7) / 8;
            std::vector<uint32_t> pool(size_t(bx) * by * bz * 512, 0u);
            for (size_t p = 0; p < pool.size(); ++p) {
                const size_t brick = p / 512, pair = p / 16 % 32, i = p % 16;
                const size_t x = brick % bx * 8 + i % 8, y = brick / bx % by * 8 + pair % 4 * 2 + i / 8,
                             z = brick / (size_t(bx) * by) * 8 + pair / 4;
                if (x < cx && y < cy && z < cz) pool[p] = cpu.base[x + cx * (y + size_t(cy) * z)];
            }
            // Over a field buffer only the bricks whose samples straddle the
            // iso value are classified (brick_list.comp): a brick entirely
            // at/above it (every cell case 255, count 0) reads as zeros.
            if (iso.readField().ok())
                for (size_t b = 0; b < pool.size(); b += 512) {
                    const auto first = pool.begin() + std::ptrdiff_t(b), last = first + 512;
                    // Cells past the grid are case 0 in the pool: a brick is uniform when its cells in the grid are.
                    bool inside = false, other = false;
                    for (size_t p = b; p < b + 512; ++p) {
                        const size_t brick = p / 512, pair = p / 16 % 32, i = p % 16;
                        const size_t x = brick % bx * 8 + i % 8, y = brick / bx % by * 8 + pair % 4 * 2 + i / 8,
                                     z = brick / (size_t(bx) * by) * 8 + pair / 4;
                        if (x >= cx || y >= cy || z >= cz) continue;
                        (pool[p] == (255u << 4) ? inside : other) = true;
                    }
                    if (inside && !other) std::fill(first, last, 0u);
                }
            EXPECT_EQ(pyr.value()[0], pool);
            const auto levels = ref::pyramidLevels(pool);
            ASSERT_EQ(pyr.value().size(), levels.size());
            for (size_t l = 1; l < levels.size(); ++l) EXPECT_EQ(pyr.value()[l], levels[l]) << "level " << l;
        } else {
            // Volumes: a classify run (16 consecutive cells) whose cells in its
            // first row and whose cells past it each lie entirely below or
            // entirely at/above the iso value (all case 0 or all case 255) is
            // stored as zeros, not case 255 (count 0 either way).
            std::vector<uint32_t> base = cpu.base;
            if (info.source == FieldSource::Volume) {
                const size_t cx = g.n[0] - 1;
                const auto allSame = [&](size_t b, size_t e) {
                    return b == e ||
                           ((base[b] == 0u || base[b] == (255u << 4)) &&
                            std::all_of(base.begin() + b, base.begin() + e, [&](uint32_t v) { return v == base[b]; }));
                };
                for (size_t r = 0; r < base.size(); r += 16) {
                    const size_t end = std::min(base.size(), r + 16), rowEnd = std::min(end, (r / cx + 1) * cx);
                    if (allSame(r, rowEnd) && allSame(rowEnd, end)) std::fill(base.begin() + r, base.begin() + end, 0u);
                }
            }
            EXPECT_EQ(pyr.value()[0], base);
            const auto levels = ref::pyramidLevels(cpu.base);
            ASSERT_EQ(pyr.value().size(), levels.size());
            for (size_t l = 1; l < levels.size(); ++l) EXPECT_EQ(pyr.value()[l], levels[l]) << "level " << l;
        }
        // Args and stats.
        auto args = iso::testing::readDrawArgs(iso);
        ASSERT_TRUE(args.ok());
        ASSERT_EQ(args.value().size(), kArgWordCount);
        const uint32_t written = std::min<uint32_t>(uint32_t(cpu.vertices.size()), iso.vertexCapacity());
        EXPECT_EQ(args.value()[kArg.vertexCount], written);
        EXPECT_EQ(args.value()[kArg.instanceCount], 1u);
        // The indirect dispatch covers the written triangles (extract,
        // testing::extractTriangles of them per thread) or, for Scan, the
        // active cells (generate, one thread per active cell).
        const bool scan = extraction == ExtractionMethod::Scan || cellOrder;
        ASSERT_EQ(written % 3, 0u);
        const uint32_t perThread = iso::testing::extractTriangles(iso, written / 3);
        const uint32_t items = scan ? uint32_t(cpu.activeCells) : (written / 3 + perThread - 1) / perThread;
        const uint32_t groups = (items + 63) / 64;
        EXPECT_EQ(uint64_t(args.value()[kArg.dispatchX]) * args.value()[kArg.dispatchY] * 64 >= items, true);
        const uint32_t maxX = iso::testing::maxGroupsX(iso);
        EXPECT_EQ(args.value()[kArg.dispatchX], std::min(groups, maxX));
        EXPECT_EQ(args.value()[kArg.dispatchY],
                  groups == 0 ? 1u : (groups + std::min(groups, maxX) - 1) / std::min(groups, maxX));
        auto stats = iso.statsOfFrame(iso.framesRecorded() - 1);
        ASSERT_TRUE(stats.has_value());
        EXPECT_EQ(stats->verticesNeeded, cpu.vertices.size());
        EXPECT_EQ(stats->verticesWritten, written);
        EXPECT_EQ(stats->activeCells, cpu.activeCells);
        EXPECT_EQ(stats->overflow, cpu.vertices.size() > iso.vertexCapacity());
        if (scan) {
            // Compaction: the active-cell list is the CPU's active cells in order.
            std::vector<uint32_t> expectActive;
            for (uint32_t c = 0; c < cpu.base.size(); ++c)
                if ((cpu.base[c] & 0xfu) != 0) expectActive.push_back(c);
            ASSERT_EQ(expectActive.size(), cpu.activeCells);
            auto list = iso::testing::readActiveCells(iso);
            ASSERT_TRUE(list.ok()) << list.message();
            EXPECT_EQ(list.value(), expectActive);
        }
        if (out) *out = cpu;
    }
};

IsoSurfaceCreateInfo userInfo(const char* glsl, std::array<uint32_t, 3> n, NormalMode normals = NormalMode::Central) {
    IsoSurfaceCreateInfo info;
    info.samples = n;
    info.source = FieldSource::UserGlsl;
    info.fieldGlsl = glsl;
#ifdef PYRAMARCH_HAVE_SHADER_COMPILER
    info.compileGlsl = pyramarch::compileGlsl;
#endif
    info.vertexCapacity = 200000;
    info.normals = normals;
    info.isoValue = 0.f;
    return info;
}

} // namespace

TEST_F(IsoGpu, CayleyMatchesReference) {
    const IsoSurfaceCreateInfo info = userInfo(kCayleyGlsl, {34, 34, 34});
    auto iso = make(info);
    ASSERT_TRUE(iso);
    frame(*iso);
    auto field = iso->readField();
    ASSERT_TRUE(field.ok());
    const ref::Grid g = referenceGridOf(info);
    const auto analytic = ref::sampleField(g, ref::cayley);
    for (size_t i = 0; i < analytic.size(); ++i)
        ASSERT_NEAR(field.value()[i], analytic[i], 2e-5f * (1.f + std::fabs(analytic[i]))) << "sample " << i;
    ref::McResult cpu;
    checkAgainstReference(*iso, info, &cpu);
    EXPECT_GT(cpu.vertices.size(), 3000u);
}

class IsoNormals : public IsoGpu, public ::testing::WithParamInterface<NormalMode> {};

TEST_P(IsoNormals, SphereWatertightOutwardAllNormalModes) {
    IsoSurfaceCreateInfo info = userInfo(kSphereGlsl, {23, 21, 25}, GetParam());
    info.boundsMin = {-1.f, -0.9f, -1.1f};
    auto iso = make(info);
    ASSERT_TRUE(iso);
    iso->setUserParams({0.03f, -0.05f, 0.02f, 0.71f, 0, 0, 0, 0});
    frame(*iso);
    checkAgainstReference(*iso, info);
    auto v = iso->readVertices();
    ASSERT_TRUE(v.ok());
    const auto tris = toRef(v.value());
    ASSERT_GT(tris.size(), 300u);
    size_t misoriented = 0;
    EXPECT_EQ(ref::openEdges(tris, &misoriented), 0u);
    EXPECT_EQ(misoriented, 0u);
    for (const auto& x : tris) {
        const float r = (x.p[0] - 0.03f) * x.n[0] + (x.p[1] + 0.05f) * x.n[1] + (x.p[2] - 0.02f) * x.n[2];
        ASSERT_GT(r, 0.f) << "normal points inward";
    }
}

INSTANTIATE_TEST_SUITE_P(Modes, IsoNormals,
                         ::testing::Values(NormalMode::Forward, NormalMode::Central, NormalMode::Sobel));

// NormalMode::None: the positions of the normal modes, bit for bit (the same
// interpolation), zero normals, and the reference's None (checked there).
TEST_F(IsoGpu, NoNormalsKeepPositionsAndWriteZeroNormals) {
    IsoSurfaceCreateInfo info = userInfo(kCayleyGlsl, {29, 33, 26}, NormalMode::None);
    auto none = make(info);
    ASSERT_TRUE(none);
    frame(*none);
    checkAgainstReference(*none, info);
    info.normals = NormalMode::Central;
    auto central = make(info);
    ASSERT_TRUE(central);
    frame(*central);
    auto a = none->readVertices();
    auto b = central->readVertices();
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_EQ(a.value().size(), b.value().size());
    ASSERT_GT(a.value().size(), 1000u);
    size_t nonZeroCentral = 0;
    for (size_t k = 0; k < a.value().size(); ++k) {
        ASSERT_EQ(std::memcmp(a.value()[k].position, b.value()[k].position, sizeof(float) * 4), 0) << "vertex " << k;
        for (int c = 0; c < 4; ++c) ASSERT_EQ(a.value()[k].normal[c], 0.f) << "vertex " << k;
        nonZeroCentral +=
            b.value()[k].normal[0] != 0.f || b.value()[k].normal[1] != 0.f || b.value()[k].normal[2] != 0.f;
    }
    EXPECT_EQ(nonZeroCentral, b.value().size()); // the comparison is against real normals
}

TEST_F(IsoGpu, GyroidWithUserParamsMatchesReference) {
    IsoSurfaceCreateInfo info = userInfo(kGyroidGlsl, {30, 26, 28}, NormalMode::Sobel);
    info.isoValue = 0.2f;
    auto iso = make(info);
    ASSERT_TRUE(iso);
    iso->setUserParams({5.f, 0, 0, 0, 0, 0, 0, 0});
    frame(*iso);
    auto field = iso->readField();
    ASSERT_TRUE(field.ok());
    const auto analytic =
        ref::sampleField(referenceGridOf(info), [](float x, float y, float z) { return ref::gyroid(x, y, z, 5.f); });
    for (size_t i = 0; i < analytic.size(); ++i) ASSERT_NEAR(field.value()[i], analytic[i], 1e-4f) << "sample " << i;
    checkAgainstReference(*iso, info);
}

TEST_F(IsoGpu, MetaballsPerFrameUpdatesWithoutRecompiling) {
    cellOrder = true; // the scan: every sample evaluated, the reference's pyramid in cell order
    IsoSurfaceCreateInfo info;
    info.samples = {24, 22, 20};
    info.source = FieldSource::Metaballs;
    info.maxBalls = 256;
    info.vertexCapacity = 300000;
    info.isoValue = 0.5f;
    auto iso = make(info);
    ASSERT_TRUE(iso);
    const ref::Grid g = referenceGridOf(info);
    // Several frames with different balls and iso values: each frame must see
    // its own data (ring slots), with one compiled graph. Up to kIsoRowBalls
    // (64) balls the field pass runs per row segment (24 samples: a full and
    // a partial segment), past it per culled tile: both forms, and the
    // switch between them from frame to frame.
    const uint32_t counts[] = {3, 17, 64, 65, 256, 24};
    for (int f = 0; f < 6; ++f) {
        std::vector<Metaball> balls;
        std::vector<ref::Ball> refBalls;
        const uint32_t count = counts[f];
        const auto rnd = ref::noise(count * 5, 77 + f);
        for (uint32_t i = 0; i < count; ++i) {
            Metaball b{};
            for (int k = 0; k < 3; ++k) b.center[k] = rnd[i * 5 + k] * 1.6f - 0.8f;
            b.radius = 0.25f + 0.3f * rnd[i * 5 + 3];
            b.strength = 0.6f + rnd[i * 5 + 4];
            balls.push_back(b);
            refBalls.push_back({{b.center[0], b.center[1], b.center[2]}, b.radius, b.strength});
        }
        ASSERT_OK(iso->setMetaballs(balls));
        iso->setIsoValue(0.4f + 0.05f * f);
        frame(*iso);
        auto field = iso->readField();
        ASSERT_TRUE(field.ok());
        const auto expect = ref::metaballs(g, refBalls);
        for (size_t i = 0; i < expect.size(); ++i)
            ASSERT_NEAR(field.value()[i], expect[i], 1e-5f * (1.f + expect[i])) << "frame " << f << " sample " << i;
        checkAgainstReference(*iso, info);
        if (HasFailure()) break;
    }
    ASSERT_NE(iso->internalGraph(), nullptr);
    // The module's own per-frame timings: every pass of the surface, the frame
    // they belong to (every frame above has finished), and their total.
    if (device().limits().timestampsSupported) {
        auto timings = iso->latestTimings();
        ASSERT_TRUE(timings.has_value());
        EXPECT_LT(timings->frame, iso->framesRecorded());
        EXPECT_GE(timings->frame + 2, iso->framesRecorded() - 1) << "newest finished frame within the ring";
        double sum = 0.0;
        for (const PassTiming& t : timings->passes) {
            EXPECT_EQ(t.name.rfind(info.name + ".", 0), 0u) << t.name;
            sum += t.milliseconds;
        }
        // The scan: the field pass first, generate last.
        EXPECT_EQ(timings->passes.front().name, info.name + ".field.metaballs");
        EXPECT_EQ(timings->passes.back().name, info.name + ".generate");
        EXPECT_DOUBLE_EQ(timings->totalMs, sum);
    }
    // Too many balls is an error value, not a crash.
    std::vector<Metaball> tooMany(257);
    EXPECT_FALSE(iso->setMetaballs(tooMany).ok());
}

TEST_F(IsoGpu, MetaballsBeyondTheCullingLimit) {
    // More balls than the per-tile culling bit set holds: the full loop path.
    IsoSurfaceCreateInfo info;
    info.samples = {13, 11, 9};
    info.source = FieldSource::Metaballs;
    info.maxBalls = 1100;
    info.vertexCapacity = 300000;
    auto iso = make(info);
    ASSERT_TRUE(iso);
    const auto rnd = ref::noise(1100 * 4, 31);
    std::vector<Metaball> balls;
    std::vector<ref::Ball> refBalls;
    for (uint32_t i = 0; i < 1100; ++i) {
        Metaball b{{rnd[i * 4] * 2.f - 1.f, rnd[i * 4 + 1] * 2.f - 1.f, rnd[i * 4 + 2] * 2.f - 1.f},
                   0.1f + 0.1f * rnd[i * 4 + 3],
                   0.3f,
                   {}};
        balls.push_back(b);
        refBalls.push_back({{b.center[0], b.center[1], b.center[2]}, b.radius, b.strength});
    }
    ASSERT_OK(iso->setMetaballs(balls));
    frame(*iso);
    auto field = iso->readField();
    ASSERT_TRUE(field.ok());
    const auto expect = ref::metaballs(referenceGridOf(info), refBalls);
    for (size_t i = 0; i < expect.size(); ++i) ASSERT_NEAR(field.value()[i], expect[i], 1e-5f * (1.f + expect[i])) << i;
    checkAgainstReference(*iso, info);
}

TEST_F(IsoGpu, NoiseVolumesAnyFormatAndOddGrids) {
    struct Case {
        std::array<uint32_t, 3> n;
        VolumeFormat format;
        uint32_t seed;
    };
    const Case cases[] = {{{37, 50, 23}, VolumeFormat::F32, 1},
                          {{2, 2, 2}, VolumeFormat::F32, 2},
                          {{3, 64, 5}, VolumeFormat::U8, 3},
                          {{17, 9, 12}, VolumeFormat::U16, 4}};
    for (const Case& c : cases) {
        SCOPED_TRACE(std::to_string(c.n[0]) + "x" + std::to_string(c.n[1]) + "x" + std::to_string(c.n[2]));
        IsoSurfaceCreateInfo info;
        info.samples = c.n;
        info.boundsMin = {-0.5f, 0.f, 2.f};
        info.boundsMax = {1.5f, 3.f, 2.5f};
        info.source = FieldSource::Volume;
        info.vertexCapacity = 500000;
        info.normals = NormalMode::Sobel;
        auto iso = make(info);
        ASSERT_TRUE(iso);
        const size_t count = size_t(c.n[0]) * c.n[1] * c.n[2];
        const auto rnd = ref::noise(count, c.seed);
        std::vector<float> expect(count);
        const float scale = c.format == VolumeFormat::F32  ? 1.f
                            : c.format == VolumeFormat::U8 ? 1.f / 255.f
                                                           : 1.f / 65535.f;
        const float offset = 0.125f;
        Status s;
        if (c.format == VolumeFormat::F32) {
            for (size_t i = 0; i < count; ++i) expect[i] = rnd[i] * scale + offset;
            s = iso->uploadVolume(rnd.data(), count * 4, c.format, scale, offset);
        } else if (c.format == VolumeFormat::U8) {
            std::vector<uint8_t> raw(count);
            for (size_t i = 0; i < count; ++i) {
                raw[i] = uint8_t(rnd[i] * 255.f);
                expect[i] = float(raw[i]) * scale + offset;
            }
            s = iso->uploadVolume(raw.data(), count, c.format, scale, offset);
        } else {
            std::vector<uint16_t> raw(count);
            for (size_t i = 0; i < count; ++i) {
                raw[i] = uint16_t(rnd[i] * 65535.f);
                expect[i] = float(raw[i]) * scale + offset;
            }
            s = iso->uploadVolume(raw.data(), count * 2, c.format, scale, offset);
        }
        ASSERT_TRUE(s.ok()) << s.message();
        iso->setIsoValue(0.6f);
        frame(*iso);
        auto field = iso->readField();
        ASSERT_TRUE(field.ok());
        EXPECT_EQ(field.value(), expect);
        checkAgainstReference(*iso, info);
        // A second frame without a new upload keeps the field.
        frame(*iso);
        checkAgainstReference(*iso, info);
    }
}

// A volume uploaded once keeps no staging: the staging comes with an upload
// at its size (the format's bytes) and goes framesInFlight + 8 frames after
// the frame that converted it, the field staying; a later upload makes a new
// one. Before any upload the field is zero. A surface in a host graph keeps
// one of the largest format (the graph cannot follow a new buffer).
TEST_F(IsoGpu, VolumeStagingComesWithEachUploadAndGoes) {
    IsoSurfaceCreateInfo info;
    info.samples = {21, 19, 17};
    info.source = FieldSource::Volume;
    info.isoValue = 0.5f;
    const size_t count = size_t(21) * 19 * 17;
    const auto staging = [](const IsoSurface& s) {
        for (const IsoSurface::MemoryItem& m : s.memoryReport())
            if (m.name == "volume staging") return m.bytes;
        return uint64_t(0);
    };
    auto iso = make(info);
    ASSERT_TRUE(iso);
    EXPECT_EQ(staging(*iso), 16u);
    frame(*iso);
    auto zero = iso->readField();
    ASSERT_TRUE(zero.ok()) << zero.message();
    EXPECT_EQ(zero.value(), std::vector<float>(count, 0.f));
    EXPECT_EQ(iso->statsOfFrame(0)->verticesNeeded, 0u);

    const std::vector<float> sphere = ref::sampleField(
        referenceGridOf(info), [](float x, float y, float z) { return 1.f - (x * x + 1.3f * y * y + z * z); });
    ASSERT_OK(iso->uploadVolume(sphere.data(), count * 4, VolumeFormat::F32));
    EXPECT_EQ(staging(*iso), count * 4);
    frame(*iso);
    checkAgainstReference(*iso, info);
    const uint32_t needed = iso->statsOfFrame(iso->framesRecorded() - 1)->verticesNeeded;
    ASSERT_GT(needed, 0u);
    for (uint32_t f = 0; f < info.framesInFlight + 8; ++f) frame(*iso);
    EXPECT_EQ(staging(*iso), 16u) << "released after the frames in flight";
    auto kept = iso->readField();
    ASSERT_TRUE(kept.ok());
    EXPECT_EQ(kept.value(), sphere);
    EXPECT_EQ(iso->statsOfFrame(iso->framesRecorded() - 1)->verticesNeeded, needed);

    // Another upload after the release, in bytes: a staging of its size.
    std::vector<uint8_t> bytes(count);
    for (size_t i = 0; i < count; ++i) bytes[i] = uint8_t(std::clamp(sphere[i] * 100.f + 100.f, 0.f, 255.f));
    ASSERT_OK(iso->uploadVolume(bytes.data(), count, VolumeFormat::U8, 0.01f, -1.f));
    EXPECT_EQ(staging(*iso), (count + 3) / 4 * 4);
    frame(*iso);
    auto field = iso->readField();
    ASSERT_TRUE(field.ok());
    for (size_t i = 0; i < count; ++i) ASSERT_EQ(field.value()[i], float(bytes[i]) * 0.01f + -1.f) << i;
    checkAgainstReference(*iso, info);

    // In a host graph: the largest format's staging, kept.
    auto hosted = make(info);
    ASSERT_TRUE(hosted);
    RenderGraph graph(&device());
    ASSERT_OK(hosted->addPasses(graph));
    ASSERT_OK(graph.compile());
    EXPECT_EQ(staging(*hosted), count * 4);
    ASSERT_OK(hosted->uploadVolume(sphere.data(), count * 4, VolumeFormat::F32));
    for (uint32_t f = 0; f < info.framesInFlight + 10; ++f) {
        Status inner;
        ASSERT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) { inner = graph.execute(cmd); }));
        ASSERT_OK(inner);
    }
    EXPECT_EQ(staging(*hosted), count * 4);
    auto hostedField = hosted->readField();
    ASSERT_TRUE(hostedField.ok());
    EXPECT_EQ(hostedField.value(), sphere);
}

TEST_F(IsoGpu, IsoEqualToManySamples) {
    IsoSurfaceCreateInfo info;
    info.samples = {19, 15, 13};
    info.source = FieldSource::Volume;
    info.vertexCapacity = 300000;
    auto iso = make(info);
    ASSERT_TRUE(iso);
    const auto rnd = ref::noise(size_t(19) * 15 * 13, 9);
    std::vector<uint8_t> raw(rnd.size());
    for (size_t i = 0; i < raw.size(); ++i) raw[i] = uint8_t(rnd[i] * 5.f); // values 0..4, a fifth equal to iso
    ASSERT_OK(iso->uploadVolume(raw.data(), raw.size(), VolumeFormat::U8));
    iso->setIsoValue(2.f);
    frame(*iso);
    checkAgainstReference(*iso, info);
}

// Classify walks 16 consecutive cells per thread along x, reusing the
// previous cell's +x face: grids whose rows (and slices) are shorter than a
// thread's run make every run wrap, several times, into the next row and
// slice, where the faces must be reloaded. Noise volumes with the iso value
// hit by some samples, both strategies, against the CPU reference.
TEST_F(IsoGpu, ThinGridsWrapClassifyRunsAcrossRowsAndSlices) {
    const std::array<uint32_t, 3> shapes[] = {{2, 2, 40}, {2, 3, 17}, {3, 2, 23}, {4, 5, 6}, {17, 2, 9}, {18, 3, 3}};
    uint32_t seed = 3;
    for (const auto& n : shapes)
        for (ExtractionMethod method : {ExtractionMethod::HistoPyramid, ExtractionMethod::Scan}) {
            SCOPED_TRACE(std::to_string(n[0]) + "x" + std::to_string(n[1]) + "x" + std::to_string(n[2]) +
                         (method == ExtractionMethod::Scan ? " scan" : " histopyramid"));
            IsoSurfaceCreateInfo info;
            info.samples = n;
            info.source = FieldSource::Volume;
            extraction = method;
            info.vertexCapacity = 30000;
            auto iso = make(info);
            ASSERT_TRUE(iso);
            const auto rnd = ref::noise(size_t(n[0]) * n[1] * n[2], seed++);
            std::vector<uint8_t> raw(rnd.size());
            for (size_t i = 0; i < raw.size(); ++i) raw[i] = uint8_t(rnd[i] * 5.f);
            ASSERT_OK(iso->uploadVolume(raw.data(), raw.size(), VolumeFormat::U8));
            // One upload, several iso values: the run bounds (computed once,
            // on the first frame) must hold for all of them.
            for (float isoValue : {2.f, 0.5f, 4.f, 3.f}) {
                iso->setIsoValue(isoValue);
                frame(*iso);
                checkAgainstReference(*iso, info);
            }
        }
}

// Volume run bounds against the CPU: run r covers cells [16r, 16r + 16)
// (x fastest, clipped to the grid); its bounds are the min and max over
// those cells' corners, NaN as -infinity. A NaN, an infinity and an iso
// value equal to a run's bound exercise the skip's boundaries.
TEST_F(IsoGpu, VolumeRunBoundsMatchTheCpu) {
    cellOrder = true; // the scan: the run bounds are its classify's
    IsoSurfaceCreateInfo info;
    info.samples = {21, 6, 5};
    info.source = FieldSource::Volume;
    info.vertexCapacity = 30000;
    auto iso = make(info);
    ASSERT_TRUE(iso);
    const size_t count = size_t(21) * 6 * 5;
    // Continuous noise: a run's bounds are two particular samples, so a run
    // reading the wrong rows or slices gets other bounds.
    const auto rnd = ref::noise(count, 17);
    std::vector<float> v(count);
    for (size_t i = 0; i < count; ++i) v[i] = rnd[i] * 8.f - 4.f;
    v[40] = std::numeric_limits<float>::quiet_NaN();
    v[300] = std::numeric_limits<float>::infinity();
    for (size_t i = 400; i < 500; ++i) v[i] = 1.f; // uniform runs, some equal to the iso value below
    ASSERT_OK(iso->uploadVolume(v.data(), v.size() * 4, VolumeFormat::F32));
    iso->setIsoValue(1.f);
    frame(*iso);
    checkAgainstReference(*iso, info);
    auto bounds = iso::testing::readRunBounds(*iso);
    ASSERT_TRUE(bounds.ok()) << bounds.message();
    const uint32_t cx = 20, cy = 5, cells = 20 * 5 * 4;
    ASSERT_EQ(bounds.value().size(), size_t((cells + 15) / 16) * 4);
    // Two intervals per run: its cells in its first row of 20 cells, and the rest.
    size_t past = 0;
    for (uint32_t r = 0; r * 16 < cells; ++r) {
        float lo[2] = {std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity()};
        float hi[2] = {-lo[0], -lo[0]};
        for (uint32_t c = r * 16; c < std::min(r * 16 + 16, cells); ++c) {
            const uint32_t x = c % cx, y = (c / cx) % cy, z = c / (cx * cy);
            const int part = c / cx == r * 16 / cx ? 0 : 1;
            past += part;
            for (uint32_t k = 0; k < 8; ++k) {
                float s = v[(x + (k & 1)) + 21 * ((y + ((k >> 1) & 1)) + 6 * (z + (k >> 2)))];
                if (std::isnan(s)) s = -std::numeric_limits<float>::infinity();
                lo[part] = std::min(lo[part], s);
                hi[part] = std::max(hi[part], s);
            }
        }
        for (int part = 0; part < 2; ++part) {
            EXPECT_EQ(bounds.value()[4 * r + 2 * part], lo[part]) << "run " << r << " part " << part;
            EXPECT_EQ(bounds.value()[4 * r + 2 * part + 1], hi[part]) << "run " << r << " part " << part;
        }
    }
    EXPECT_GT(past, 0u) << "no run goes on past its first row";
    // A new iso value reuses the bounds (no new upload).
    for (float isoValue : {-3.f, 0.f, 3.5f}) {
        iso->setIsoValue(isoValue);
        frame(*iso);
        checkAgainstReference(*iso, info);
    }
}

// Two surfaces of the same input give the same bits: pyramid, vertices,
// args and (scan) the active-cell list.
void expectSameOutput(IsoSurface& listed, IsoSurface& dense, ExtractionMethod method) {
    auto pa = iso::testing::readPyramid(listed), pb = iso::testing::readPyramid(dense);
    ASSERT_TRUE(pa.ok() && pb.ok());
    EXPECT_EQ(pa.value(), pb.value());
    auto va = listed.readVertices(), vb = dense.readVertices();
    ASSERT_TRUE(va.ok() && vb.ok());
    EXPECT_TRUE(sameVertexBytes(va.value(), vb.value()));
    auto aa = iso::testing::readDrawArgs(listed), ab = iso::testing::readDrawArgs(dense);
    ASSERT_TRUE(aa.ok() && ab.ok());
    EXPECT_EQ(aa.value(), ab.value());
    if (method == ExtractionMethod::Scan) {
        auto ca = iso::testing::readActiveCells(listed), cb = iso::testing::readActiveCells(dense);
        ASSERT_TRUE(ca.ok() && cb.ok());
        EXPECT_EQ(ca.value(), cb.value());
    }
}

// Metaballs read through texel buffers (the default where the texel limit
// covers the ball ring) and through the storage buffer (the .storage
// variants) give the same field, brick list and triangles, bit for bit: the
// row path (<= 64 balls), the culled tiles (<= 1024) and the full loop.
TEST_F(IsoGpu, MetaballTexelAndStorageReadsAgree) {
    for (uint32_t count : {40u, 300u, 1100u}) {
        SCOPED_TRACE(std::to_string(count) + " balls");
        IsoSurfaceCreateInfo info;
        info.samples = {29, 21, 17};
        info.source = FieldSource::Metaballs;
        info.maxBalls = count;
        info.vertexCapacity = 300000;
        auto texel = make(info);
        auto storage = make(info, {.storageReads = true});
        auto dense = make(info, {.denseField = true});
        ASSERT_TRUE(texel && storage && dense);
        EXPECT_TRUE(iso::testing::texelReads(*texel));
        EXPECT_FALSE(iso::testing::texelReads(*storage));
        const auto rnd = ref::noise(count * 4, 7 + count);
        std::vector<Metaball> balls;
        for (uint32_t i = 0; i < count; ++i)
            balls.push_back({{rnd[i * 4] * 1.6f - 0.8f, rnd[i * 4 + 1] * 1.6f - 0.8f, rnd[i * 4 + 2] * 1.6f - 0.8f},
                             0.15f + 0.2f * rnd[i * 4 + 3] * (count > 64 ? 0.5f : 1.f),
                             count > 64 ? 0.2f : 0.8f,
                             {}});
        for (IsoSurface* s : {texel.get(), storage.get(), dense.get()}) {
            ASSERT_OK(s->setMetaballs(balls));
            // Samples outside the tiles stay NaN, the same bits in both.
            ASSERT_OK(iso::testing::poisonField(*s, 0x7fc00000u));
            frame(*s);
        }
        auto fa = texel->readField(), fb = storage->readField();
        ASSERT_TRUE(fa.ok() && fb.ok());
        EXPECT_EQ(0, std::memcmp(fa.value().data(), fb.value().data(), fa.value().size() * 4));
        expectSameOutput(*texel, *storage, ExtractionMethod::HistoPyramid);
        expectTiledFieldMatches(*texel, *dense, referenceGridOf(info));
        checkAgainstReference(*texel, info, nullptr, dense.get());
    }
}

// `fused` against its buffer twin after the same frame: the same cases
// (pyramid), vertex count, draw args and indices; positions to the grid's
// position tolerance and normals to 1e-3 (the snippet's rounding may differ
// between shaders).
void expectFusedMatchesBuffer(IsoSurface& fused, IsoSurface& buffer, const IsoSurfaceCreateInfo& info,
                              size_t minVertices) {
    auto pa = iso::testing::readPyramid(fused), pb = iso::testing::readPyramid(buffer);
    ASSERT_TRUE(pa.ok() && pb.ok());
    // On the direct brick table the buffer classifies only the bricks whose
    // samples straddle the iso value (brick_list.comp); a fused field has no
    // bounds and classifies every brick. A brick left out is all inside or
    // all outside: its pool words read 0 where the fused one wrote case 255
    // (255 << 4, no vertices) or 0; the counts above are the same.
    if (iso::testing::directBricks(fused) && iso::testing::directBricks(buffer) &&
        pa.value()[0].size() == pb.value()[0].size())
        for (size_t b = 0; b + 512 <= pa.value()[0].size(); b += 512) {
            const auto fusedBrick = pa.value()[0].begin() + std::ptrdiff_t(b);
            const auto bufferBrick = pb.value()[0].begin() + std::ptrdiff_t(b);
            const bool unlisted = std::all_of(bufferBrick, bufferBrick + 512, [](uint32_t w) { return w == 0; });
            const bool uniform =
                std::all_of(fusedBrick, fusedBrick + 512, [](uint32_t w) { return w == 0 || w == (255u << 4); });
            if (unlisted && uniform) std::fill(fusedBrick, fusedBrick + 512, 0u);
        }
    EXPECT_EQ(pa.value(), pb.value());
    auto va = fused.readVertices(), vb = buffer.readVertices();
    ASSERT_TRUE(va.ok() && vb.ok());
    ASSERT_GE(vb.value().size(), minVertices);
    ASSERT_EQ(va.value().size(), vb.value().size());
    const float tol = ref::positionTolerance(referenceGridOf(info));
    for (size_t k = 0; k < va.value().size(); ++k)
        for (int a = 0; a < 4; ++a) {
            ASSERT_NEAR(va.value()[k].position[a], vb.value()[k].position[a], tol) << "vertex " << k;
            ASSERT_NEAR(va.value()[k].normal[a], vb.value()[k].normal[a], 1e-3f) << "vertex " << k;
        }
    if (info.indexed) {
        auto ia = fused.readIndices(), ib = buffer.readIndices();
        ASSERT_TRUE(ia.ok() && ib.ok());
        EXPECT_EQ(ia.value(), ib.value());
    }
    auto aa = iso::testing::readDrawArgs(fused), ab = iso::testing::readDrawArgs(buffer);
    ASSERT_TRUE(aa.ok() && ab.ok());
    EXPECT_EQ(aa.value(), ab.value());
}

// A fused user field (FieldEvaluation::Fused: classify and extraction call
// field() themselves, no field pass, no buffer) gives the buffer path's
// cases, triangles and indices, and its positions and normals up to the
// rounding of field() itself (the same sample positions and NaN rule; the
// compiler may round the snippet's arithmetic differently in another
// shader). Odd grids, every normal mode, shared vertices, with and without
// a Lipschitz bound, a field that is NaN somewhere.
TEST_F(IsoGpu, FusedUserFieldMatchesTheBuffer) {
    struct Case {
        std::array<uint32_t, 3> n;
        NormalMode normals;
        bool indexed;
        float lipschitz;
    };
    const Case cases[] = {
        {{37, 50, 23}, NormalMode::Central, false, 0.f}, {{61, 45, 38}, NormalMode::Sobel, false, 1.f},
        {{29, 18, 23}, NormalMode::Forward, true, 1.f},  {{33, 20, 17}, NormalMode::None, true, 0.f},
        {{2, 2, 2}, NormalMode::Central, false, 0.f},    {{3, 64, 5}, NormalMode::Central, true, 0.f}};
    for (const Case& c : cases) {
        SCOPED_TRACE(std::to_string(c.n[0]) + "x" + std::to_string(c.n[1]) + "x" + std::to_string(c.n[2]));
        IsoSurfaceCreateInfo info = userInfo(kMovingSphereGlsl, c.n, c.normals);
        info.boundsMin = {-1.f, -0.8f, -1.2f};
        info.boundsMax = {1.f, 0.9f, 1.f};
        info.lipschitz = c.lipschitz;
        info.indexed = c.indexed;
        info.indexCapacity = c.indexed ? 600000 : 0;
        auto buffer = make(info, {.fieldEvaluation = FieldEvaluation::Buffer});
        auto fused = make(info, {.fieldEvaluation = FieldEvaluation::Fused});
        // The .storage builds, which devices whose texel limit is below the
        // grid's pyramid get (an H100 at 511^3): no field buffer there either.
        auto fusedStorage = make(info, {.fieldEvaluation = FieldEvaluation::Fused, .storageReads = true});
        ASSERT_TRUE(buffer && fused && fusedStorage);
        EXPECT_FALSE(fused->readField().ok()); // no buffer to read
        EXPECT_FALSE(iso::testing::texelReads(*fusedStorage));
        for (float time : {0.f, 0.9f}) {
            SCOPED_TRACE("time " + std::to_string(time));
            for (IsoSurface* s : {buffer.get(), fused.get(), fusedStorage.get()}) {
                s->setUserParams({0.1f, -0.1f, 0.05f, 0.45f, time > 0.f ? 0.3f : 0.f, 0, 0, 0}); // NaN far outside
                s->setTime(time);
                frame(*s);
            }
            // the one 2x2x2 cell lies outside the sphere
            expectFusedMatchesBuffer(*fused, *buffer, info, c.n[0] > 2 ? 1 : 0);
            expectFusedMatchesBuffer(*fusedStorage, *buffer, info, c.n[0] > 2 ? 1 : 0);
            if (c.lipschitz == 0.f && !c.indexed) checkAgainstReference(*fused, info, nullptr, buffer.get());
        }
    }
    // Fused needs a user field and the HistoPyramid.
    IsoSurfaceCreateInfo scan = userInfo(kMovingSphereGlsl, {9, 9, 9});
    auto bad = iso::testing::create(device(), scan,
                                    {.extraction = ExtractionMethod::Scan, .fieldEvaluation = FieldEvaluation::Fused});
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.message().find("FieldEvaluation::Fused needs ExtractionMethod::HistoPyramid"), std::string::npos)
        << bad.message();
    IsoSurfaceCreateInfo volume;
    volume.samples = {9, 9, 9};
    volume.source = FieldSource::Volume;
    bad = iso::testing::create(device(), volume, {.fieldEvaluation = FieldEvaluation::Fused});
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.message().find("applies to FieldSource::UserGlsl only"), std::string::npos) << bad.message();
}

// The default for user fields (FieldEvaluation::Auto) is fused with the
// HistoPyramid and a buffer with the scan; fused Cayley (exact zeros on the
// lattice) and a gyroid driven by iso_params give the buffer's triangles.
TEST_F(IsoGpu, AutoFusesUserFieldsWithTheHistoPyramidOnly) {
    struct Case {
        const char* glsl;
        std::array<uint32_t, 3> n;
        NormalMode normals;
        float isoValue;
    };
    const Case cases[] = {{kCayleyGlsl, {34, 31, 29}, NormalMode::Central, 0.f},
                          {kGyroidGlsl, {30, 26, 28}, NormalMode::Sobel, 0.2f}};
    for (const Case& c : cases) {
        SCOPED_TRACE(c.glsl);
        IsoSurfaceCreateInfo info = userInfo(c.glsl, c.n, c.normals);
        info.isoValue = c.isoValue;
        auto buffer = make(info);
        auto fused = makeDefault(info);
        ASSERT_TRUE(buffer && fused);
        EXPECT_FALSE(fused->readField().ok()); // Auto with the HistoPyramid: fused, no buffer
        for (IsoSurface* s : {buffer.get(), fused.get()}) {
            s->setUserParams({5.f, 0, 0, 0, 0, 0, 0, 0});
            frame(*s);
        }
        expectFusedMatchesBuffer(*fused, *buffer, info, 1000);
        checkAgainstReference(*fused, info, nullptr, buffer.get());
    }
    // A field that sums in a loop keeps its buffer with Auto: fused would
    // repeat the loop at every read of a sample (the probe finds the loop in
    // the snippet's SPIR-V, not in the module's wrapper: the fields above
    // have none and fuse).
    {
        IsoSurfaceCreateInfo loop = userInfo(R"(float field(vec3 p) {
    float s = 0.0;
    for (int i = 0; i < 4; ++i) {
        const vec3 d = p - vec3(0.3 * float(i) - 0.45, 0.1 * float(i), 0.0);
        s += max(0.0, 1.0 - dot(d, d) / 0.16);
    }
    return s - 0.5;
})",
                                             {21, 19, 17}, NormalMode::Central);
        auto iso = makeDefault(loop);
        ASSERT_TRUE(iso);
        frame(*iso);
        EXPECT_TRUE(iso->readField().ok()); // a buffer
        checkAgainstReference(*iso, loop);
        auto fused = make(loop, {.fieldEvaluation = FieldEvaluation::Fused});
        ASSERT_TRUE(fused);
        frame(*fused);
        EXPECT_FALSE(fused->readField().ok());
        expectFusedMatchesBuffer(*fused, *iso, loop, 1);
    }
    IsoSurfaceCreateInfo scan = userInfo(kSphereGlsl, {12, 12, 12});
    auto iso = makeDefault(scan, {.extraction = ExtractionMethod::Scan});
    ASSERT_TRUE(iso);
    frame(*iso);
    EXPECT_TRUE(iso->readField().ok()); // Auto with the scan: a field buffer
    checkAgainstReference(*iso, scan);
}

// A Lipschitz constant the field does not meet (L = 0.3 for a distance)
// leaves crossed bricks out: the surface loses triangles (a subsequence of
// the unbounded output, in order) but nothing fails or writes out of bounds;
// L = 0 (the default) bounds nothing: every triangle; bad constants fail
// create().
TEST_F(IsoGpu, UserLipschitzTooSmallLosesTrianglesOnlyAndZeroStaysDense) {
    IsoSurfaceCreateInfo info = userInfo(kMovingSphereGlsl, {40, 37, 35});
    info.lipschitz = 0.3f;
    auto lying = make(info);
    info.lipschitz = 0.f;
    auto plain = make(info);
    ASSERT_TRUE(lying && plain);
    for (IsoSurface* s : {lying.get(), plain.get()}) {
        s->setUserParams({0.1f, -0.1f, 0.05f, 0.6f, 0, 0, 0, 0});
        frame(*s);
    }
    checkAgainstReference(*plain, info);
    auto a = lying->readVertices(), b = plain->readVertices();
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_GT(a.value().size(), 0u);
    EXPECT_LT(a.value().size(), b.value().size());
    // Key order is brick order: the kept triangles are the unbounded ones of the listed bricks.
    size_t j = 0;
    for (size_t i = 0; i + 2 < a.value().size(); i += 3) {
        while (j + 2 < b.value().size() && std::memcmp(&a.value()[i], &b.value()[j], 3 * sizeof(IsoVertexData)) != 0)
            j += 3;
        ASSERT_LT(j + 2, b.value().size()) << "triangle " << i / 3 << " is not one of the unbounded surface's";
        j += 3;
    }
    auto stats = lying->statsOfFrame(lying->framesRecorded() - 1);
    ASSERT_TRUE(stats.has_value());
    EXPECT_EQ(stats->verticesWritten, a.value().size());
    for (float bad : {-1.f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
        info.lipschitz = bad;
        auto r = iso::testing::create(device(), info, {});
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.code(), ErrorCode::InvalidArgument);
        EXPECT_NE(r.message().find("lipschitz"), std::string::npos) << r.message();
    }
    IsoSurfaceCreateInfo balls;
    balls.samples = {9, 9, 9};
    balls.vertexCapacity = 3000;
    balls.lipschitz = 1.f;
    auto r = iso::testing::create(device(), balls, {});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("UserGlsl only"), std::string::npos) << r.message();
}

// The scan's classify (cell order) counts active cells with one atomic per
// subgroup (the default where the device has ballot + arithmetic in compute)
// or one per thread (the fallback): the same pyramid, vertices, args and
// stats; checkAgainstReference compares the stats' active cells with the
// CPU's.
TEST_F(IsoGpu, SubgroupAndPerThreadAtomicsAgree) {
    cellOrder = true; // the scan: its classify's atomics
    IsoSurfaceCreateInfo info;
    info.samples = {70, 41, 29};
    info.source = FieldSource::Volume;
    info.vertexCapacity = 200000;
    auto grouped = make(info);
    iso::testing::Knobs perThread;
    perThread.perThreadAtomics = true;
    auto single = make(info, perThread);
    ASSERT_TRUE(grouped && single);
    const DeviceLimits& lim = device().limits();
    const VkSubgroupFeatureFlags ops =
        VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
    const bool capable = (lim.subgroupStages & VK_SHADER_STAGE_COMPUTE_BIT) && (lim.subgroupOperations & ops) == ops;
    EXPECT_EQ(iso::testing::subgroupAtomics(*grouped), capable);
    EXPECT_FALSE(iso::testing::subgroupAtomics(*single));
    std::vector<float> v(size_t(70) * 41 * 29);
    for (uint32_t z = 0; z < 29; ++z)
        for (uint32_t y = 0; y < 41; ++y)
            for (uint32_t x = 0; x < 70; ++x) {
                const float d[3] = {float(x) - 40.f, float(y) - 17.f, float(z) - 13.f};
                v[x + 70 * (y + 41 * size_t(z))] = 9.5f - std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            }
    ASSERT_OK(grouped->uploadVolume(v.data(), v.size() * 4, VolumeFormat::F32));
    ASSERT_OK(single->uploadVolume(v.data(), v.size() * 4, VolumeFormat::F32));
    for (float isoValue : {0.f, 2.5f, -3.f}) {
        SCOPED_TRACE("iso " + std::to_string(isoValue));
        grouped->setIsoValue(isoValue);
        single->setIsoValue(isoValue);
        frame(*grouped);
        frame(*single);
        checkAgainstReference(*grouped, info);
        checkAgainstReference(*single, info);
        auto pa = iso::testing::readPyramid(*grouped), pb = iso::testing::readPyramid(*single);
        ASSERT_TRUE(pa.ok() && pb.ok());
        EXPECT_EQ(pa.value(), pb.value());
        auto va = grouped->readVertices(), vb = single->readVertices();
        ASSERT_TRUE(va.ok() && vb.ok());
        ASSERT_EQ(va.value().size(), vb.value().size());
        EXPECT_TRUE(sameVertexBytes(va.value(), vb.value()));
        auto aa = iso::testing::readDrawArgs(*grouped), ab = iso::testing::readDrawArgs(*single);
        ASSERT_TRUE(aa.ok() && ab.ok());
        EXPECT_EQ(aa.value(), ab.value());
    }
}

// Extraction reads the field and the pyramid through texel buffers where
// the device's maxTexelBufferElements covers them, else through storage
// buffers (the extract.storage variant): both give the same bytes. Grids
// with 1, 2 and many pyramid levels (the u8 levels read from a quad's word),
// odd sizes, every normal mode (clamped gradient fetches at the borders),
// NaN and infinite samples, a capacity below the need.
TEST_F(IsoGpu, TexelAndStorageReadsAgreeBitForBit) {
    struct Case {
        std::array<uint32_t, 3> samples;
        NormalMode normals;
        uint32_t capacity;
    };
    const Case cases[] = {{{2, 2, 2}, NormalMode::Central, 30},
                          {{3, 4, 2}, NormalMode::Forward, 300},
                          {{70, 41, 29}, NormalMode::Central, 200000},
                          {{33, 9, 61}, NormalMode::Sobel, 200000},
                          {{40, 40, 40}, NormalMode::None, 3000}};
    for (const Case& c : cases) {
        SCOPED_TRACE(std::to_string(c.samples[0]) + "x" + std::to_string(c.samples[1]) + "x" +
                     std::to_string(c.samples[2]));
        IsoSurfaceCreateInfo info;
        info.samples = c.samples;
        info.source = FieldSource::Volume;
        info.normals = c.normals;
        info.vertexCapacity = c.capacity;
        auto texel = make(info);
        iso::testing::Knobs storageKnobs;
        storageKnobs.storageReads = true;
        auto storage = make(info, storageKnobs);
        ASSERT_TRUE(texel && storage);
        EXPECT_TRUE(iso::testing::texelReads(*texel)); // lavapipe and GPUs cover these grids
        EXPECT_FALSE(iso::testing::texelReads(*storage));
        const auto [nx, ny, nz] = c.samples;
        std::vector<float> v(size_t(nx) * ny * nz);
        for (uint32_t z = 0; z < nz; ++z)
            for (uint32_t y = 0; y < ny; ++y)
                for (uint32_t x = 0; x < nx; ++x) {
                    const float d[3] = {float(x) - 0.45f * nx, float(y) - 0.4f * ny, float(z) - 0.55f * nz};
                    v[x + nx * (y + ny * size_t(z))] = 0.3f * float(std::min({nx, ny, nz})) -
                                                       std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) +
                                                       0.7f * std::sin(0.9f * float(x + 2 * y + 3 * z));
                }
        if (v.size() > 100) {
            v[v.size() / 3] = std::numeric_limits<float>::quiet_NaN();
            v[v.size() / 2] = std::numeric_limits<float>::infinity();
        }
        ASSERT_OK(texel->uploadVolume(v.data(), v.size() * 4, VolumeFormat::F32));
        ASSERT_OK(storage->uploadVolume(v.data(), v.size() * 4, VolumeFormat::F32));
        for (float isoValue : {0.f, 0.5f}) {
            SCOPED_TRACE("iso " + std::to_string(isoValue));
            texel->setIsoValue(isoValue);
            storage->setIsoValue(isoValue);
            frame(*texel);
            frame(*storage);
            if (c.capacity >= 200000) checkAgainstReference(*texel, info);
            auto va = texel->readVertices(), vb = storage->readVertices();
            ASSERT_TRUE(va.ok() && vb.ok());
            ASSERT_EQ(va.value().size(), vb.value().size());
            EXPECT_TRUE(sameVertexBytes(va.value(), vb.value()));
            auto aa = iso::testing::readDrawArgs(*texel), ab = iso::testing::readDrawArgs(*storage);
            ASSERT_TRUE(aa.ok() && ab.ok());
            EXPECT_EQ(aa.value(), ab.value());
        }
    }
}

// Vertex and index buffers past one storage binding: the module writes one
// buffer through several bindings at offsets (Knobs::outputSliceBytes
// spreads a small surface over ~10): every extraction method that writes
// vertices or indices, and mesh smoothing's reads and writes, give the
// one-binding bytes.
TEST_F(IsoGpu, OutputSlicesMatchOneBindingBitForBit) {
    const auto none = [](IsoSurface&) {};
    {
        SCOPED_TRACE("HistoPyramid, Cayley 37x50x23, central normals");
        expectOutputSlicesMatch(userInfo(kCayleyGlsl, {37, 50, 23}), none);
    }
    {
        SCOPED_TRACE("HistoPyramid, fused field, no normals");
        IsoSurfaceCreateInfo info = userInfo(kCayleyGlsl, {21, 17, 19}, NormalMode::None);
        expectOutputSlicesMatch(info, none, {.fieldEvaluation = FieldEvaluation::Fused});
    }
    {
        SCOPED_TRACE("Scan, Sobel normals");
        IsoSurfaceCreateInfo info = userInfo(kCayleyGlsl, {34, 29, 31}, NormalMode::Sobel);
        expectOutputSlicesMatch(info, none, {.extraction = ExtractionMethod::Scan});
    }
    {
        SCOPED_TRACE("indexed");
        IsoSurfaceCreateInfo info = userInfo(kCayleyGlsl, {37, 50, 23});
        info.indexed = true;
        expectOutputSlicesMatch(info, none);
    }
    {
        SCOPED_TRACE("indexed, storage reads, mesh smoothing");
        IsoSurfaceCreateInfo info = userInfo(kCayleyGlsl, {30, 26, 28});
        info.indexed = true;
        info.meshSmoothing = {2, 0.7f, -0.72f};
        expectOutputSlicesMatch(info, none, {.storageReads = true});
    }
}

TEST_F(IsoGpu, EmptyAndFullFieldsGiveNoTriangles) {
    IsoSurfaceCreateInfo info;
    info.samples = {9, 10, 11};
    info.source = FieldSource::Volume;
    info.vertexCapacity = 3000;
    auto iso = make(info);
    ASSERT_TRUE(iso);
    std::vector<float> ones(9 * 10 * 11, 1.f);
    ASSERT_OK(iso->uploadVolume(ones.data(), ones.size() * 4, VolumeFormat::F32));
    for (float isoValue : {2.f, 0.f, 1.f}) {
        iso->setIsoValue(isoValue);
        frame(*iso);
        checkAgainstReference(*iso, info);
        auto args = iso::testing::readDrawArgs(*iso);
        ASSERT_TRUE(args.ok());
        EXPECT_EQ(args.value()[kArg.dispatchX], 0u); // extraction dispatch is empty
        EXPECT_EQ(args.value()[kArg.vertexCount], 0u);
    }
}

TEST_F(IsoGpu, CapacityOverflowClampsToWholeTriangles) {
    IsoSurfaceCreateInfo info = userInfo(kCayleyGlsl, {20, 20, 20});
    auto probe = make(info);
    ASSERT_TRUE(probe);
    frame(*probe);
    const auto stats = probe->statsOfFrame(0);
    ASSERT_TRUE(stats.has_value());
    const uint32_t needed = stats->verticesNeeded;
    ASSERT_GT(needed, 300u);
    EXPECT_GE(suggestCapacity(*stats), needed);
    EXPECT_EQ(suggestCapacity(*stats) % 3, 0u);
    EXPECT_GE(suggestCapacity(*stats, 1.f), needed);
    EXPECT_LE(suggestCapacity(*stats, 1.f), needed + 2);
    auto full = probe->readVertices();
    ASSERT_TRUE(full.ok());

    // (0 is not here: it lets the module size and grow the buffer; see
    // OutputCapacitiesGrowToTheReference.)
    for (uint32_t capacity : {needed / 2 + 1, 2u, needed - 1, needed}) {
        SCOPED_TRACE("capacity " + std::to_string(capacity));
        info.vertexCapacity = capacity;
        auto iso = make(info);
        ASSERT_TRUE(iso);
        EXPECT_EQ(iso->vertexCapacity(), capacity / 3 * 3);
        frame(*iso);
        const auto s = iso->statsOfFrame(0);
        ASSERT_TRUE(s.has_value());
        EXPECT_EQ(s->verticesNeeded, needed);
        EXPECT_EQ(s->verticesWritten, capacity / 3 * 3);
        EXPECT_EQ(s->overflow, capacity < needed);
        auto args = iso::testing::readDrawArgs(*iso);
        ASSERT_TRUE(args.ok());
        EXPECT_EQ(args.value()[kArg.vertexCount], capacity / 3 * 3);
        auto v = iso->readVertices();
        ASSERT_TRUE(v.ok());
        ASSERT_EQ(v.value().size(), capacity / 3 * 3);
        // The first keys are written exactly as without the clamp.
        for (size_t k = 0; k < v.value().size(); ++k)
            for (int c = 0; c < 4; ++c) ASSERT_EQ(v.value()[k].position[c], full.value()[k].position[c]) << k;
    }
}

// Capacities 0: the surface starts at a tiny size (Knobs::startOutputCapacity),
// overflows, grows once at the frame boundary from the stats of that frame
// (framesInFlight frames later), and its last frame is the CPU reference's.
// Metaballs, a volume, a volume with indexed output and mesh smoothing, and
// metaballs and a volume whose growth crosses from one storage binding into
// several (Knobs::outputSliceBytes: 100 or 300 vertices a binding), where the
// surface is planned again with pipelines for the new slice count (and the
// volume uploaded once must carry over: no upload follows).
TEST_F(IsoGpu, OutputCapacitiesGrowToTheReference) {
    for (int source = 0; source < 5; ++source) {
        SCOPED_TRACE(source == 0   ? "metaballs"
                     : source == 1 ? "volume"
                     : source == 2 ? "indexed volume"
                     : source == 3 ? "metaballs past one binding"
                                   : "volume past one binding, on the bricks");
        IsoSurfaceCreateInfo info;
        info.samples = {21, 19, 17};
        info.isoValue = 0.5f;
        const bool balls = source == 0 || source == 3;
        info.source = balls ? FieldSource::Metaballs : FieldSource::Volume;
        info.maxBalls = 4;
        info.indexed = source == 2;
        if (info.indexed) info.meshSmoothing.iterations = 2;
        const uint64_t sliceBytes = (source == 3 ? 100 : source == 4 ? 300 : 0) * IsoSurface::vertexStride();
        auto iso = make(info, {.startOutputCapacity = 30, .denseField = true, .outputSliceBytes = sliceBytes});
        ASSERT_TRUE(iso);
        EXPECT_EQ(iso->vertexCapacity(), 30u);
        const VkBuffer first = iso->vertexBuffer().handle();
        if (balls) {
            const std::vector<Metaball> balls = {{{-0.3f, 0.f, 0.1f}, 0.6f, 1.f}, {{0.35f, 0.1f, -0.1f}, 0.5f, 1.f}};
            ASSERT_OK(iso->setMetaballs(balls));
        } else {
            const ref::Grid g = referenceGridOf(info);
            const std::vector<float> v =
                ref::sampleField(g, [](float x, float y, float z) { return 1.f - (x * x + 1.3f * y * y + z * z); });
            ASSERT_OK(iso->uploadVolume(v.data(), v.size() * 4, VolumeFormat::F32));
        }
        const uint32_t frames = info.framesInFlight + 3;
        std::vector<IsoStats> stats; // each frame's, read once it finished
        for (uint32_t f = 0; f < frames; ++f) {
            frame(*iso);
            const auto st = iso->statsOfFrame(f);
            ASSERT_TRUE(st.has_value());
            stats.push_back(*st);
        }
        // Frame 0 overflowed; frame framesInFlight + 1 ran on the grown buffers.
        const IsoStats* firstStats = &stats[0];
        EXPECT_TRUE(firstStats->overflow);
        EXPECT_EQ(firstStats->vertexCapacity, 30u);
        EXPECT_FALSE(stats[info.framesInFlight].grown);
        const IsoStats* grown = &stats[info.framesInFlight + 1];
        EXPECT_TRUE(grown->grown);
        EXPECT_EQ(grown->grownAfterFrame, 0u);
        EXPECT_EQ(grown->previousVertexCapacity, 30u);
        EXPECT_GE(grown->vertexCapacity, firstStats->verticesNeeded);
        const auto last = iso->statsOfFrame(frames - 1);
        ASSERT_TRUE(last.has_value());
        EXPECT_FALSE(last->overflow);
        EXPECT_FALSE(last->grown);
        EXPECT_EQ(last->vertexCapacity, iso->vertexCapacity());
        // The same input every frame: the grown surface extracts what the
        // first frame needed (a re-planned surface keeps the field it was given).
        EXPECT_EQ(last->verticesNeeded, firstStats->verticesNeeded);
        if (info.indexed) {
            EXPECT_GE(iso->indexCapacity(), last->indicesNeeded);
            EXPECT_EQ(last->indicesWritten, last->indicesNeeded);
        }
        // The handles a host draws changed; the replaced buffers are held
        // until the frames in flight are done.
        EXPECT_NE(iso->vertexBuffer().handle(), first);
        const auto report = iso->memoryReport();
        if (sliceBytes) {
            const auto vertices =
                std::find_if(report.begin(), report.end(), [](const auto& m) { return m.name == "vertices"; });
            ASSERT_NE(vertices, report.end());
            EXPECT_GE(vertices->bindings, 2u) << "the grown buffer spans several bindings";
        }
        EXPECT_TRUE(std::any_of(report.begin(), report.end(), [](const auto& m) { return m.name == "replaced"; }));
        if (info.indexed) {
            auto mesh = iso->readMesh();
            ASSERT_TRUE(mesh.ok()) << mesh.message();
            EXPECT_EQ(mesh.value().indices.size(), last->indicesNeeded);
        } else {
            checkAgainstReference(*iso, info);
        }
        // Growth happens once: the replaced buffers are released later and
        // nothing grows again.
        for (uint32_t f = 0; f < info.framesInFlight + 9; ++f) frame(*iso);
        const auto later = iso->memoryReport();
        EXPECT_FALSE(std::any_of(later.begin(), later.end(), [](const auto& m) { return m.name == "replaced"; }));
        const auto end = iso->statsOfFrame(iso->framesRecorded() - 1);
        ASSERT_TRUE(end.has_value());
        EXPECT_EQ(end->vertexCapacity, grown->vertexCapacity);
        EXPECT_FALSE(end->overflow);
        // The graph built after the growth numbers its timings in the surface's frames.
        if (device().limits().timestampsSupported) {
            const auto timings = iso->latestTimings();
            ASSERT_TRUE(timings.has_value());
            EXPECT_LT(timings->frame, iso->framesRecorded());
            EXPECT_GE(timings->frame + info.framesInFlight + 2, iso->framesRecorded() - 1);
        }
        if (!info.indexed) checkAgainstReference(*iso, info);
    }
}

// A host capacity is a hard cap: the frames keep overflowing, reported, and
// nothing grows. A budget too small for the growth: record() returns
// ErrorCode::CapacityExceeded once, the buffers stay and the later frames run
// truncated; a budget under the starting sizes fails create().
TEST_F(IsoGpu, OutputCapacityCapsAndBudgets) {
    IsoSurfaceCreateInfo info = userInfo(kCayleyGlsl, {20, 20, 20});
    info.vertexCapacity = 30;
    auto capped = make(info);
    ASSERT_TRUE(capped);
    for (uint32_t f = 0; f < info.framesInFlight + 3; ++f) frame(*capped);
    const auto s = capped->statsOfFrame(capped->framesRecorded() - 1);
    ASSERT_TRUE(s.has_value());
    EXPECT_TRUE(s->overflow);
    EXPECT_FALSE(s->grown);
    EXPECT_EQ(s->vertexCapacity, 30u);
    EXPECT_EQ(capped->vertexCapacity(), 30u);

    info.vertexCapacity = 0;
    uint64_t startBytes = 0;
    {
        auto probe = make(info, {.startOutputCapacity = 30});
        ASSERT_TRUE(probe);
        for (const auto& m : probe->memoryReport()) startBytes += m.bytes;
    }
    info.memoryBudget = startBytes + 64; // room for two more vertices, not for the surface
    auto tight = make(info, {.startOutputCapacity = 30});
    ASSERT_TRUE(tight);
    // Records `frames` frames of `surface`, appending the codes of the
    // record() calls that failed, each of which must name the budget.
    auto recordFrames = [&](IsoSurface& surface, uint32_t frames, std::vector<ErrorCode>& codes) {
        for (uint32_t f = 0; f < frames; ++f) {
            Status inner;
            ASSERT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) { inner = surface.record(cmd); }));
            if (!inner) {
                codes.push_back(inner.code());
                EXPECT_NE(inner.message().find("memoryBudget"), std::string::npos) << inner.message();
            }
        }
    };
    std::vector<ErrorCode> errors;
    ASSERT_NO_FATAL_FAILURE(recordFrames(*tight, info.framesInFlight + 4, errors));
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0], ErrorCode::CapacityExceeded);
    EXPECT_EQ(tight->vertexCapacity(), 30u);
    const auto t = tight->statsOfFrame(tight->framesRecorded() - 1);
    ASSERT_TRUE(t.has_value());
    EXPECT_TRUE(t->overflow);

    // Room for ~100 more vertices, not for the surface: grown as far as the
    // budget holds, said once; the frames after it report the overflow.
    info.memoryBudget = startBytes + 3200;
    auto partial = make(info, {.startOutputCapacity = 30});
    ASSERT_TRUE(partial);
    errors.clear();
    ASSERT_NO_FATAL_FAILURE(recordFrames(*partial, 2 * info.framesInFlight + 5, errors));
    ASSERT_GE(errors.size(), 1u);
    EXPECT_LE(errors.size(), 2u); // the first growth's, and the next request's refusal
    for (ErrorCode c : errors) EXPECT_EQ(c, ErrorCode::CapacityExceeded);
    EXPECT_GT(partial->vertexCapacity(), 30u);
    EXPECT_LE(partial->vertexCapacity(), 30u + 100u);
    uint64_t held = 0;
    for (const auto& m : partial->memoryReport())
        if (m.name != "replaced") held += m.bytes;
    EXPECT_LE(held, info.memoryBudget);
    const auto p = partial->statsOfFrame(partial->framesRecorded() - 1);
    ASSERT_TRUE(p.has_value());
    EXPECT_TRUE(p->overflow);

    info.memoryBudget = startBytes / 2;
    auto refused =
        iso::testing::create(device(), info, {.fieldEvaluation = FieldEvaluation::Buffer, .startOutputCapacity = 30});
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), ErrorCode::CapacityExceeded);
}

// A surface in the host's own graph keeps its sizes until the host asks:
// a frame overflows (its stats name the capacity and what it needed),
// grow() between frames grows the buffers within the budget, the host
// builds its graph again, and the next frame is the CPU reference's (soup)
// or holds every index it needed (indexed); with nothing left to grow the
// graph stays. record() grows by itself: grow() is an error there.
TEST_F(IsoGpu, HostGraphGrowsWhenTheHostAsks) {
    IsoSurfaceCreateInfo info;
    info.samples = {21, 19, 17};
    info.source = FieldSource::Metaballs;
    info.maxBalls = 4;
    const std::vector<Metaball> balls = {{{-0.3f, 0.f, 0.1f}, 0.6f, 1.f}, {{0.35f, 0.1f, -0.1f}, 0.5f, 1.f}};
    for (const bool indexed : {false, true}) {
        SCOPED_TRACE(indexed ? "indexed" : "soup");
        info.indexed = indexed;
        auto iso = make(info, {.startOutputCapacity = 30, .denseField = true});
        ASSERT_TRUE(iso);
        ASSERT_OK(iso->setMetaballs(balls));
        auto nothing = iso->grow(); // no frame yet
        ASSERT_OK(nothing);
        EXPECT_FALSE(*nothing);
        auto graph = std::make_unique<RenderGraph>(&device());
        ASSERT_OK(iso->addPasses(*graph));
        ASSERT_OK(graph->compile());
        const auto runFrame = [&] {
            Status inner;
            ASSERT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) { inner = graph->execute(cmd); }));
            ASSERT_OK(inner);
        };
        ASSERT_NO_FATAL_FAILURE(runFrame());
        ASSERT_NO_FATAL_FAILURE(runFrame()); // the host graph keeps the sizes
        const auto short_ = iso->statsOfFrame(1);
        ASSERT_TRUE(short_.has_value());
        EXPECT_TRUE(short_->overflow);
        EXPECT_FALSE(short_->grown);
        EXPECT_EQ(short_->vertexCapacity, 30u);
        EXPECT_GT(short_->verticesNeeded, 30u);
        EXPECT_NE(short_->overflowed & kOverflowVertices, 0u);
        EXPECT_EQ(short_->overflowed & (kOverflowSparseBricks | kOverflowSparseRowPairs), 0u);
        EXPECT_EQ((short_->overflowed & kOverflowIndices) != 0, short_->indicesNeeded > short_->indexCapacity);
        const VkBuffer before = iso->vertexBuffer().handle();

        auto grown = iso->grow();
        ASSERT_OK(grown);
        EXPECT_TRUE(*grown);
        EXPECT_GE(iso->vertexCapacity(), short_->verticesNeeded);
        EXPECT_NE(iso->vertexBuffer().handle(), before);
        // The old graph holds the old buffers: the host builds its graph again.
        graph = std::make_unique<RenderGraph>(&device());
        ASSERT_OK(iso->addPasses(*graph));
        ASSERT_OK(graph->compile());
        ASSERT_NO_FATAL_FAILURE(runFrame());
        const auto after = iso->statsOfFrame(iso->framesRecorded() - 1);
        ASSERT_TRUE(after.has_value());
        EXPECT_FALSE(after->overflow);
        EXPECT_EQ(after->overflowed, 0u);
        EXPECT_TRUE(after->grown);
        EXPECT_EQ(after->previousVertexCapacity, 30u);
        EXPECT_EQ(after->vertexCapacity, iso->vertexCapacity());
        if (indexed) {
            EXPECT_EQ(after->indicesWritten, after->indicesNeeded);
            auto mesh = iso->readMesh();
            ASSERT_TRUE(mesh.ok()) << mesh.message();
            EXPECT_EQ(mesh.value().indices.size(), after->indicesNeeded);
        } else {
            checkAgainstReference(*iso, info);
        }
        // Nothing more to grow: the graph stays and keeps running; the
        // replaced buffers go once their frames are done.
        auto again = iso->grow();
        ASSERT_OK(again);
        EXPECT_FALSE(*again);
        const auto replaced = [&] {
            for (const auto& m : iso->memoryReport())
                if (m.name == "replaced") return true;
            return false;
        };
        EXPECT_TRUE(replaced());
        for (uint32_t f = 0; f < info.framesInFlight + 8; ++f) ASSERT_NO_FATAL_FAILURE(runFrame());
        EXPECT_FALSE(replaced());
        if (!indexed) checkAgainstReference(*iso, info);
    }
    // A budget that holds the starting buffers only: grow() says so once
    // (the frames stay truncated and report it), then has nothing to do.
    info.indexed = false;
    uint64_t startBytes = 0;
    {
        auto probe = make(info, {.startOutputCapacity = 30, .denseField = true});
        ASSERT_TRUE(probe);
        for (const auto& m : probe->memoryReport()) startBytes += m.bytes;
    }
    info.memoryBudget = startBytes + 64;
    auto tight = make(info, {.startOutputCapacity = 30, .denseField = true});
    ASSERT_TRUE(tight);
    ASSERT_OK(tight->setMetaballs(balls));
    RenderGraph tightGraph(&device());
    ASSERT_OK(tight->addPasses(tightGraph));
    ASSERT_OK(tightGraph.compile());
    Status inner;
    ASSERT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) { inner = tightGraph.execute(cmd); }));
    ASSERT_OK(inner);
    auto held = tight->grow();
    ASSERT_FALSE(held.ok());
    EXPECT_EQ(held.code(), ErrorCode::CapacityExceeded);
    EXPECT_NE(held.message().find("memoryBudget"), std::string::npos) << held.message();
    EXPECT_EQ(tight->vertexCapacity(), 30u);
    auto quiet = tight->grow();
    ASSERT_OK(quiet);
    EXPECT_FALSE(*quiet);
    info.memoryBudget = 0;

    auto own = make(info, {.startOutputCapacity = 30, .denseField = true});
    ASSERT_TRUE(own);
    ASSERT_OK(own->setMetaballs(balls));
    frame(*own);
    auto refused = own->grow();
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.code(), ErrorCode::InvalidState);
}

class IsoSplat : public IsoGpu, public ::testing::WithParamInterface<SplatMethod> {
protected:
    // `count` random particles over the bounds plus a margin, hand-placed
    // ones at the border and non-finite ones; two frames, each field checked
    // against the brute-force splat and the mesh against the reference.
    void checkSplatIncludingBorders(std::array<uint32_t, 3> samples, size_t count);
};

TEST_P(IsoSplat, ParticleSplatMatchesBruteForceIncludingBorders) { checkSplatIncludingBorders({21, 18, 16}, 1500); }

// The same at the size the `gpuav` label runs (tests/gpuav): instrumented
// splat atomics are slow, the full case takes ~20 s there.
TEST_P(IsoSplat, SmallParticleSplatIncludingBorders) { checkSplatIncludingBorders({9, 8, 7}, 120); }

void IsoSplat::checkSplatIncludingBorders(std::array<uint32_t, 3> samples, size_t count) {
    IsoSurfaceCreateInfo info;
    splat = GetParam();
    info.samples = samples;
    info.boundsMin = {-1.f, -1.f, -0.5f};
    info.boundsMax = {1.f, 0.7f, 1.f};
    info.source = FieldSource::Particles;
    info.maxParticles = 2000;
    info.particleRadius = 0.23f;
    info.vertexCapacity = 300000;
    info.isoValue = 0.4f;
    auto iso = make(info);
    ASSERT_TRUE(iso);
    const bool cpuDriver = device().properties().deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ||
                           device().properties().deviceType == VK_PHYSICAL_DEVICE_TYPE_OTHER;
    EXPECT_EQ(iso::testing::splatMethod(*iso), splat != SplatMethod::Auto ? splat
                                               : cpuDriver                ? SplatMethod::Gather
                                                                          : SplatMethod::Scatter);
    const ref::Grid g = referenceGridOf(info);
    std::vector<Particle> ps;
    std::vector<ref::Particle> refPs;
    const auto rnd = ref::noise(count * 4, 5);
    for (size_t i = 0; i < count; ++i) {
        Particle p{};
        // Spread over the bounds plus a margin larger than the radius on every side.
        for (int k = 0; k < 3; ++k) p.position[k] = g.min[k] - 0.4f + rnd[i * 4 + k] * (g.max[k] - g.min[k] + 0.8f);
        p.weight = 0.5f + rnd[i * 4 + 3];
        ps.push_back(p);
        refPs.push_back({{p.position[0], p.position[1], p.position[2]}, p.weight});
    }
    // Hand-placed: just outside a face and far outside. (Non-finite ones are
    // rejected by setParticles, BadHostParticlesAreRejected; skipped on the
    // GPU with GpuBuffer input, StridedGpuBufferSkipsBadParticles.)
    ps.push_back({{1.1f, 0.f, 0.25f}, 1.f});
    refPs.push_back({{1.1f, 0.f, 0.25f}, 1.f});
    ps.push_back({{50.f, -80.f, 1e30f}, 1.f});
    refPs.push_back({{50.f, -80.f, 1e30f}, 1.f});
    for (int f = 0; f < 2; ++f) {
        ASSERT_OK(iso->setParticles(ps));
        frame(*iso);
        std::vector<uint32_t> touching;
        const auto expect = ref::splatBruteForce(g, refPs, info.particleRadius, &touching);
        auto field = iso->readField();
        ASSERT_TRUE(field.ok());
        for (size_t i = 0; i < expect.size(); ++i)
            ASSERT_NEAR(field.value()[i], expect[i], (float(touching[i]) + 1.f) / 65536.f + 1e-5f * expect[i])
                << "sample " << i;
        checkAgainstReference(*iso, info);
        // Second frame: same data again, must not accumulate on top of the first.
    }
}

TEST_P(IsoSplat, MillionParticles) {
    IsoSurfaceCreateInfo info;
    splat = GetParam();
    info.samples = {40, 40, 40};
    info.source = FieldSource::Particles;
    info.maxParticles = 1u << 20;
    info.particleRadius = 0.06f;
    info.vertexCapacity = 2000000;
    info.isoValue = 1.f;
    auto iso = make(info);
    ASSERT_TRUE(iso);
    const ref::Grid g = referenceGridOf(info);
    const size_t n = 1u << 20;
    const auto rnd = ref::noise(n * 3, 11);
    std::vector<Particle> ps(n);
    for (size_t i = 0; i < n; ++i) {
        // A shell-ish cloud: radius from 0.3 to 0.9.
        float d[3];
        for (int k = 0; k < 3; ++k) d[k] = rnd[i * 3 + k] * 2.f - 1.f;
        ps[i] = {{d[0] * 1.05f, d[1] * 1.05f, d[2] * 1.05f}, 0.05f};
    }
    ASSERT_OK(iso->setParticles(ps));
    frame(*iso);
    // CPU scatter reference (O(points x kernel)), double accumulation.
    std::vector<double> sum(g.samples(), 0.0);
    std::vector<uint32_t> touch(g.samples(), 0);
    const float r = info.particleRadius, h = g.spacing(0);
    for (const Particle& p : ps) {
        int lo[3], hi[3];
        for (int k = 0; k < 3; ++k) {
            lo[k] = std::max(0, int(std::ceil((p.position[k] - r - g.min[k]) / h)) - 1);
            hi[k] = std::min(int(g.n[k]) - 1, int(std::floor((p.position[k] + r - g.min[k]) / h)) + 1);
        }
        for (int z = lo[2]; z <= hi[2]; ++z)
            for (int y = lo[1]; y <= hi[1]; ++y)
                for (int x = lo[0]; x <= hi[0]; ++x) {
                    const double dx = g.coord(0, x) - p.position[0], dy = g.coord(1, y) - p.position[1],
                                 dz = g.coord(2, z) - p.position[2];
                    const double q = (dx * dx + dy * dy + dz * dz) / (double(r) * r);
                    if (q >= 1.0) continue;
                    sum[g.index(x, y, z)] += p.weight * (1 - q) * (1 - q) * (1 - q);
                    ++touch[g.index(x, y, z)];
                }
    }
    auto field = iso->readField();
    ASSERT_TRUE(field.ok());
    for (size_t i = 0; i < sum.size(); ++i)
        ASSERT_NEAR(field.value()[i], sum[i], (touch[i] + 1.0) / 65536.0 + 1e-5 * sum[i]) << "sample " << i;
    checkAgainstReference(*iso, info);
}

// Auto (the default) resolves by device type: gather on lavapipe, scatter on a GPU.
INSTANTIATE_TEST_SUITE_P(Methods, IsoSplat,
                         ::testing::Values(SplatMethod::Scatter, SplatMethod::Gather, SplatMethod::Auto));

// ParticleInput::GpuBuffer: a host pass in the same graph writes the host's
// particle buffer every frame (here a copy from staging); the surface must
// give the brute-force field and the same field and triangles as the
// setParticles path fed the same particles, also when the count changes.
TEST_P(IsoSplat, GpuBufferInputMatchesHostInput) {
    IsoSurfaceCreateInfo info;
    splat = GetParam();
    info.samples = {19, 17, 21};
    info.boundsMin = {-1.f, -0.8f, -1.f};
    info.boundsMax = {1.f, 0.9f, 0.7f};
    info.source = FieldSource::Particles;
    info.maxParticles = 1200;
    info.particleRadius = 0.21f;
    info.vertexCapacity = 300000;
    info.isoValue = 0.45f;
    IsoSurfaceCreateInfo hostInfo = info;
    hostInfo.name = "host";
    auto hostIso = make(hostInfo);
    ASSERT_TRUE(hostIso);

    const VkDeviceSize bytes = VkDeviceSize(info.maxParticles) * sizeof(Particle);
    auto particles = device().allocator().createBuffer(
        {.size = bytes,
         .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
         .memory = MemoryUsage::DeviceLocal,
         .name = "host.particles"});
    ASSERT_TRUE(particles.ok()) << particles.message();
    auto staging = device().allocator().createBuffer({.size = bytes,
                                                      .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                                      .memory = MemoryUsage::Upload,
                                                      .name = "host.staging"});
    ASSERT_TRUE(staging.ok()) << staging.message();
    info.particleInput = ParticleInput::GpuBuffer;
    info.particleBuffer = &particles.value();
    info.name = "gpu";
    auto gpuIso = make(info);
    ASSERT_TRUE(gpuIso);

    RenderGraph graph(&device());
    const ExternalUse splatRead{Access::StorageRead, PassKind::Compute};
    const BufferRef ref = graph.importBuffer("host.particles", particles.value(), splatRead, splatRead);
    uint32_t count = 0;
    graph.addPass("host.write", PassKind::Transfer).use(ref, Access::TransferDst).record([&](PassContext& ctx) {
        const VkBufferCopy region{0, 0, VkDeviceSize(count) * sizeof(Particle)};
        if (region.size) ctx.vk->vkCmdCopyBuffer(ctx.cmd, staging.value().handle(), ctx.buffer(ref), 1, &region);
    });
    ASSERT_OK(gpuIso->addPasses(graph, {.particles = ref}));
    ASSERT_OK(graph.compile());

    const ref::Grid g = referenceGridOf(info);
    const auto rnd = ref::noise(1000 * 4 * 3, 17);
    for (uint32_t f = 0; f < 3; ++f) {
        // Different particles and counts each frame (the last one reaches maxParticles).
        count = f == 0 ? 1000 : f == 1 ? 333 : info.maxParticles;
        std::vector<Particle> ps(count);
        std::vector<ref::Particle> refPs;
        for (uint32_t i = 0; i < count; ++i) {
            const float* r = &rnd[(size_t(i % 1000) * 3 + f) * 4];
            for (int k = 0; k < 3; ++k) ps[i].position[k] = g.min[k] - 0.3f + r[k] * (g.max[k] - g.min[k] + 0.6f);
            ps[i].weight = 0.4f + r[3];
            refPs.push_back({{ps[i].position[0], ps[i].position[1], ps[i].position[2]}, ps[i].weight});
        }
        std::memcpy(staging.value().mapped(), ps.data(), ps.size() * sizeof(Particle));
        staging.value().flush();
        ASSERT_OK(gpuIso->setParticleCount(count));
        Status inner;
        ASSERT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) { inner = graph.execute(cmd); }));
        ASSERT_OK(inner);
        ASSERT_OK(hostIso->setParticles(ps));
        frame(*hostIso);

        std::vector<uint32_t> touching;
        const auto expect = ref::splatBruteForce(g, refPs, info.particleRadius, &touching);
        auto gpuField = gpuIso->readField();
        auto hostField = hostIso->readField();
        ASSERT_TRUE(gpuField.ok() && hostField.ok());
        for (size_t i = 0; i < expect.size(); ++i) {
            ASSERT_NEAR(gpuField.value()[i], expect[i], (float(touching[i]) + 1.f) / 65536.f + 1e-5f * expect[i])
                << "frame " << f << " sample " << i;
            // Scatter is exact fixed point; gather sums in sort order (atomics decide it).
            if (splat == SplatMethod::Scatter) {
                ASSERT_EQ(gpuField.value()[i], hostField.value()[i]) << "frame " << f << " sample " << i;
            }
        }
        checkAgainstReference(*gpuIso, info);
        if (splat == SplatMethod::Scatter) {
            auto a = gpuIso->readVertices();
            auto b = hostIso->readVertices();
            ASSERT_TRUE(a.ok() && b.ok());
            ASSERT_EQ(a.value().size(), b.value().size()) << "frame " << f;
            EXPECT_TRUE(sameVertexBytes(a.value(), b.value())) << "frame " << f;
        }
    }
    EXPECT_FALSE(gpuIso->setParticleCount(info.maxParticles + 1).ok());
}

// A particle struct of a host engine: position inside a 32-byte record,
// mass elsewhere in it.
struct HostParticle {
    float velocity[3];
    float mass;
    float position[3];
    float age;
};
static_assert(sizeof(HostParticle) == 32);

std::vector<HostParticle> hostParticles(const ref::Grid& g, size_t count, uint32_t seed) {
    const auto rnd = ref::noise(count * 4, seed);
    std::vector<HostParticle> hs(count);
    for (size_t i = 0; i < count; ++i) {
        for (int k = 0; k < 3; ++k) {
            hs[i].position[k] = g.min[k] - 0.3f + rnd[i * 4 + k] * (g.max[k] - g.min[k] + 0.6f);
            hs[i].velocity[k] = 1e30f; // never read
        }
        hs[i].mass = 0.3f + rnd[i * 4 + 3];
        hs[i].age = std::numeric_limits<float>::quiet_NaN(); // never read
    }
    return hs;
}

void expectSplatField(IsoSurface& iso, const ref::Grid& g, const std::vector<ref::Particle>& refPs, float r,
                      const std::string& what) {
    std::vector<uint32_t> touching;
    const auto expect = ref::splatBruteForce(g, refPs, r, &touching);
    auto field = iso.readField();
    ASSERT_TRUE(field.ok()) << field.message();
    for (size_t i = 0; i < expect.size(); ++i)
        ASSERT_NEAR(field.value()[i], expect[i], (float(touching[i]) + 1.f) / 65536.f + 1e-5f * expect[i])
            << what << ": sample " << i;
}

// ParticleArrays: positions inside the host's own struct (stride 32) with the
// mass as weight; tight xyz (stride 12) with one weight for all; a separate
// weight array. Each field against the brute-force splat, both methods.
TEST_P(IsoSplat, StridedHostInputWithWeights) {
    IsoSurfaceCreateInfo info;
    splat = GetParam();
    info.samples = {17, 15, 18};
    info.boundsMin = {-1.f, -0.8f, -1.f};
    info.boundsMax = {1.f, 0.9f, 0.7f};
    info.source = FieldSource::Particles;
    info.maxParticles = 700;
    info.particleRadius = 0.22f;
    info.vertexCapacity = 300000;
    info.isoValue = 0.45f;
    auto iso = make(info);
    ASSERT_TRUE(iso);
    const ref::Grid g = referenceGridOf(info);
    const auto hs = hostParticles(g, 700, 23);

    // 1. Position and mass members of HostParticle.
    ParticleArrays a;
    a.positions = &hs[0].position;
    a.positionStride = sizeof(HostParticle);
    a.weights = &hs[0].mass;
    a.weightStride = sizeof(HostParticle);
    a.count = uint32_t(hs.size());
    ASSERT_OK(iso->setParticles(a));
    frame(*iso);
    std::vector<ref::Particle> refPs;
    for (const HostParticle& h : hs) refPs.push_back({{h.position[0], h.position[1], h.position[2]}, h.mass});
    expectSplatField(*iso, g, refPs, info.particleRadius, "struct stride 32 + mass");
    checkAgainstReference(*iso, info);

    // 2. Tight xyz, one weight for all (fewer particles than before).
    std::vector<float> xyz;
    for (size_t i = 0; i < 400; ++i) xyz.insert(xyz.end(), hs[i].position, hs[i].position + 3);
    a = {};
    a.positions = xyz.data();
    a.count = 400;
    a.weight = 0.7f;
    ASSERT_OK(iso->setParticles(a));
    frame(*iso);
    refPs.clear();
    for (size_t i = 0; i < 400; ++i) refPs.push_back({{xyz[i * 3], xyz[i * 3 + 1], xyz[i * 3 + 2]}, 0.7f});
    expectSplatField(*iso, g, refPs, info.particleRadius, "xyz stride 12, weight 0.7");

    // 3. xyz with a separate weight array (stride 4), zero weights included.
    std::vector<float> w(400);
    for (size_t i = 0; i < 400; ++i) w[i] = i % 7 == 0 ? 0.f : hs[i].mass;
    a.weights = w.data();
    ASSERT_OK(iso->setParticles(a));
    frame(*iso);
    for (size_t i = 0; i < 400; ++i) refPs[i].weight = w[i];
    expectSplatField(*iso, g, refPs, info.particleRadius, "xyz + weight array");
    checkAgainstReference(*iso, info);
}

// ParticleInput::GpuBuffer with the host's 32-byte record (position at 16,
// mass at 12): the GPU reads the layout; particles with a non-finite
// coordinate or weight, or a weight <= 0, add nothing. The same buffer with
// kNoParticleWeight gives every particle weight 1.
TEST_P(IsoSplat, StridedGpuBufferSkipsBadParticles) {
    IsoSurfaceCreateInfo info;
    splat = GetParam();
    info.samples = {16, 17, 15};
    info.boundsMin = {-1.f, -0.8f, -1.f};
    info.boundsMax = {1.f, 0.9f, 0.7f};
    info.source = FieldSource::Particles;
    info.maxParticles = 500;
    info.particleRadius = 0.22f;
    info.vertexCapacity = 300000;
    info.isoValue = 0.45f;
    const ref::Grid g = referenceGridOf(info);
    auto hs = hostParticles(g, 500, 31);
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    hs[3].position[0] = nan;
    hs[10].position[2] = -inf;
    hs[17].mass = nan;
    hs[20].mass = inf;
    hs[41].mass = -0.5f;
    hs[42].mass = 0.f;
    const std::set<size_t> skippedWeighted{3, 10, 17, 20, 41, 42}, skippedUnweighted{3, 10};

    auto particles = device().allocator().createBuffer(
        {.size = hs.size() * sizeof(HostParticle),
         .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
         .memory = MemoryUsage::DeviceLocal,
         .name = "host.particles"});
    ASSERT_TRUE(particles.ok()) << particles.message();
    ASSERT_OK(uploadBuffer(device(), particles.value(), hs.data(), hs.size() * sizeof(HostParticle)));
    useParticleRecords<HostParticle>(info, particles.value());
    for (bool weighted : {true, false}) {
        SCOPED_TRACE(weighted ? "mass as weight" : "kNoParticleWeight");
        info.particleWeightOffset = weighted ? uint32_t(offsetof(HostParticle, mass)) : kNoParticleWeight;
        auto iso = make(info);
        ASSERT_TRUE(iso);
        ASSERT_OK(iso->setParticleCount(uint32_t(hs.size())));
        frame(*iso);
        std::vector<ref::Particle> refPs;
        const auto& skipped = weighted ? skippedWeighted : skippedUnweighted;
        for (size_t i = 0; i < hs.size(); ++i)
            if (!skipped.count(i))
                refPs.push_back(
                    {{hs[i].position[0], hs[i].position[1], hs[i].position[2]}, weighted ? hs[i].mass : 1.f});
        expectSplatField(*iso, g, refPs, info.particleRadius, "gpu buffer");
        checkAgainstReference(*iso, info);
    }
}

// Bad host input: a clear error naming what is wrong, and the previous
// particles stay in force.
TEST_F(IsoGpu, BadHostParticlesAreRejected) {
    IsoSurfaceCreateInfo info;
    info.samples = {10, 10, 10};
    info.source = FieldSource::Particles;
    info.maxParticles = 8;
    info.particleRadius = 0.5f;
    info.vertexCapacity = 30000;
    info.isoValue = 0.3f;
    auto iso = make(info);
    ASSERT_TRUE(iso);
    std::vector<float> xyz = {0.f, 0.f, 0.f, 0.3f, 0.1f, -0.2f, -0.4f, 0.2f, 0.1f};
    std::vector<float> w = {1.f, 0.5f, 2.f};
    ParticleArrays good;
    good.positions = xyz.data();
    good.count = 3;
    good.weights = w.data();
    ASSERT_OK(iso->setParticles(good));
    frame(*iso);
    auto before = iso->readField();
    ASSERT_TRUE(before.ok());

    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    struct Case {
        const char* name;
        std::function<void(ParticleArrays&, std::vector<float>&, std::vector<float>&)> edit;
        ErrorCode code;
        const char* message;
    };
    const Case cases[] = {
        {"NaN x", [&](auto&, auto& p, auto&) { p[3] = nan; }, ErrorCode::InvalidArgument, "particle 1: x"},
        {"inf z", [&](auto&, auto& p, auto&) { p[8] = -inf; }, ErrorCode::InvalidArgument, "particle 2: z"},
        {"NaN weight", [&](auto&, auto&, auto& ws) { ws[2] = nan; }, ErrorCode::InvalidArgument, "particle 2: weight"},
        {"inf weight", [&](auto&, auto&, auto& ws) { ws[0] = inf; }, ErrorCode::InvalidArgument, "not finite"},
        {"negative weight", [&](auto&, auto&, auto& ws) { ws[1] = -1.f; }, ErrorCode::InvalidArgument,
         "particle 1: weight -1.000000 is negative"},
        {"negative uniform weight",
         [&](auto& a, auto&, auto&) {
             a.weights = nullptr;
             a.weight = -2.f;
         },
         ErrorCode::InvalidArgument, "weight -2"},
        {"NaN uniform weight",
         [&](auto& a, auto&, auto&) {
             a.weights = nullptr;
             a.weight = nan;
         },
         ErrorCode::InvalidArgument, "weight nan"},
        {"stride 8", [&](auto& a, auto&, auto&) { a.positionStride = 8; }, ErrorCode::InvalidArgument,
         "positionStride 8"},
        {"stride 14", [&](auto& a, auto&, auto&) { a.positionStride = 14; }, ErrorCode::InvalidArgument,
         "positionStride 14"},
        {"weight stride 2", [&](auto& a, auto&, auto&) { a.weightStride = 2; }, ErrorCode::InvalidArgument,
         "weightStride 2"},
        {"weight stride 6", [&](auto& a, auto&, auto&) { a.weightStride = 6; }, ErrorCode::InvalidArgument,
         "weightStride 6"},
        {"null positions", [&](auto& a, auto&, auto&) { a.positions = nullptr; }, ErrorCode::InvalidArgument,
         "positions is null"},
        {"over capacity", [&](auto& a, auto&, auto&) { a.count = 9; }, ErrorCode::CapacityExceeded,
         "9 particles, maxParticles is 8"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        std::vector<float> p = xyz, ws = w;
        ParticleArrays a = good;
        c.edit(a, p, ws);
        if (a.positions) a.positions = p.data();
        if (a.weights) a.weights = ws.data();
        std::vector<float> big(27 * 3, 0.f); // backing for the count past capacity
        if (a.count > 3) a.positions = big.data(), a.weights = nullptr;
        const Status s = iso->setParticles(a);
        ASSERT_FALSE(s.ok());
        EXPECT_EQ(s.code(), c.code) << s.message();
        EXPECT_NE(s.message().find(c.message), std::string::npos) << s.message();
        EXPECT_NE(s.message().find("setParticles"), std::string::npos) << s.message();
    }
    // The span form goes through the same checks.
    std::vector<Particle> ps = {{{0.f, nan, 0.f}, 1.f}};
    EXPECT_FALSE(iso->setParticles(ps).ok());
    ps = {{{0.f, 0.f, 0.f}, -1.f}};
    EXPECT_FALSE(iso->setParticles(ps).ok());
    // Nothing above replaced the good particles.
    frame(*iso);
    auto after = iso->readField();
    ASSERT_TRUE(after.ok());
    ASSERT_EQ(after.value(), before.value());
    // Empty input is fine (no particles, a zero field).
    ASSERT_OK(iso->setParticles(ParticleArrays{}));
}

// GpuBuffer layouts that cannot be read are refused at creation.
TEST_F(IsoGpu, BadGpuBufferLayoutIsRejected) {
    auto particles = device().allocator().createBuffer({.size = 64 * 32,
                                                        .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                                        .memory = MemoryUsage::DeviceLocal,
                                                        .name = "host.particles"});
    ASSERT_TRUE(particles.ok());
    IsoSurfaceCreateInfo info;
    info.samples = {8, 8, 8};
    info.source = FieldSource::Particles;
    info.maxParticles = 64;
    info.vertexCapacity = 3000;
    info.particleInput = ParticleInput::GpuBuffer;
    info.particleBuffer = &particles.value();
    struct Case {
        uint32_t stride, pos, weight;
        const char* message;
    };
    const Case bad[] = {
        {8, 0, kNoParticleWeight, "particleStride 8"},
        {18, 0, kNoParticleWeight, "particleStride 18"},
        {16, 8, kNoParticleWeight, "particlePositionOffset 8"},
        {16, 2, kNoParticleWeight, "particlePositionOffset 2"},
        {16, 0, 14, "particleWeightOffset 14"},
        {16, 0, 16, "particleWeightOffset 16"},
        {36, 0, 32, "particleBuffer holds"}, // 63 * 36 + 36 bytes > 64 * 32
    };
    for (const Case& c : bad) {
        SCOPED_TRACE(c.message);
        info.particleStride = c.stride;
        info.particlePositionOffset = c.pos;
        info.particleWeightOffset = c.weight;
        auto r = IsoSurface::create(device(), info);
        ASSERT_FALSE(r.ok());
        EXPECT_NE(r.message().find(c.message), std::string::npos) << r.message();
    }
    // The tightest fit: 63 records of 32 bytes and the last one's xyz at 20..32.
    info.particleStride = 32;
    info.particlePositionOffset = 20;
    info.particleWeightOffset = 0;
    EXPECT_TRUE(IsoSurface::create(device(), info).ok());
}

// record() without a host graph imports the host's buffer itself.
TEST_F(IsoGpu, GpuBufferInputWithoutHostGraph) {
    IsoSurfaceCreateInfo info;
    info.samples = {12, 12, 12};
    info.source = FieldSource::Particles;
    info.maxParticles = 64;
    info.particleRadius = 0.35f;
    info.vertexCapacity = 100000;
    info.isoValue = 0.3f;
    auto particles = device().allocator().createBuffer(
        {.size = 64 * sizeof(Particle),
         .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
         .memory = MemoryUsage::DeviceLocal,
         .name = "host.particles"});
    ASSERT_TRUE(particles.ok());

    // Bad input first: missing, too small, or set for host input.
    info.particleInput = ParticleInput::GpuBuffer;
    auto r = IsoSurface::create(device(), info);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("particleBuffer"), std::string::npos) << r.message();
    info.particleBuffer = &particles.value();
    info.maxParticles = 65;
    r = IsoSurface::create(device(), info);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("particleBuffer holds"), std::string::npos) << r.message();
    info.maxParticles = 64;
    info.particleInput = ParticleInput::Host;
    r = IsoSurface::create(device(), info);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("particleInput"), std::string::npos) << r.message();
    info.particleInput = ParticleInput::GpuBuffer;

    auto iso = make(info);
    ASSERT_TRUE(iso);
    const auto rnd = ref::noise(64 * 4, 3);
    std::vector<Particle> ps(64);
    std::vector<ref::Particle> refPs;
    for (size_t i = 0; i < ps.size(); ++i) {
        for (int k = 0; k < 3; ++k) ps[i].position[k] = rnd[i * 4 + k] * 1.6f - 0.8f;
        ps[i].weight = 0.5f + rnd[i * 4 + 3];
    }
    ASSERT_OK(uploadBuffer(device(), particles.value(), ps.data(), ps.size() * sizeof(Particle)));
    // No count set yet: nothing is splatted.
    frame(*iso);
    auto field = iso->readField();
    ASSERT_TRUE(field.ok());
    for (float v : field.value()) ASSERT_EQ(v, 0.f);
    ASSERT_OK(iso->setParticleCount(50));
    for (size_t i = 0; i < 50; ++i)
        refPs.push_back({{ps[i].position[0], ps[i].position[1], ps[i].position[2]}, ps[i].weight});
    frame(*iso);
    std::vector<uint32_t> touching;
    const ref::Grid g = referenceGridOf(info);
    const auto expect = ref::splatBruteForce(g, refPs, info.particleRadius, &touching);
    field = iso->readField();
    ASSERT_TRUE(field.ok());
    for (size_t i = 0; i < expect.size(); ++i)
        ASSERT_NEAR(field.value()[i], expect[i], (float(touching[i]) + 1.f) / 65536.f + 1e-5f * expect[i])
            << "sample " << i;
    checkAgainstReference(*iso, info);
    EXPECT_GT(iso->readVertices().value().size(), 0u);
}

TEST_F(IsoGpu, NonFiniteSamplesAreBounded) {
    IsoSurfaceCreateInfo info;
    info.samples = {12, 11, 10};
    info.source = FieldSource::Volume;
    info.vertexCapacity = 100000;
    info.normals = NormalMode::Sobel;
    info.isoValue = 0.f;
    auto iso = make(info);
    ASSERT_TRUE(iso);
    const ref::Grid g = referenceGridOf(info);
    auto f = ref::sampleField(g, [](float x, float y, float z) { return ref::sphere(x, y, z, 0, 0, 0, 0.7f); });
    const auto rnd = ref::noise(f.size(), 3);
    for (size_t i = 0; i < f.size(); ++i) {
        if (rnd[i] < 0.05f)
            f[i] = std::numeric_limits<float>::quiet_NaN();
        else if (rnd[i] < 0.1f)
            f[i] = std::numeric_limits<float>::infinity();
        else if (rnd[i] < 0.15f)
            f[i] = -std::numeric_limits<float>::infinity();
    }
    ASSERT_OK(iso->uploadVolume(f.data(), f.size() * 4, VolumeFormat::F32));
    frame(*iso);
    auto v = iso->readVertices();
    ASSERT_TRUE(v.ok());
    ASSERT_GT(v.value().size(), 0u);
    for (const auto& x : v.value())
        for (int k = 0; k < 3; ++k) {
            ASSERT_TRUE(std::isfinite(x.position[k]));
            ASSERT_TRUE(std::isfinite(x.normal[k]));
        }
    checkAgainstReference(*iso, info);
}

TEST_F(IsoGpu, BadInputIsAnErrorValue) {
    IsoSurfaceCreateInfo info;
    info.source = FieldSource::Metaballs;
    info.vertexCapacity = 30;
    info.samples = {1, 5, 5};
    auto r = IsoSurface::create(device(), info);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("samples.x"), std::string::npos) << r.message();
    info.samples = {5, 0, 5};
    r = IsoSurface::create(device(), info);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("samples.y"), std::string::npos) << r.message();
    // Past the dense limits and a sparse domain's 8192 cells per axis.
    info.samples = {9000, 1024, 1024};
    r = IsoSurface::create(device(), info);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("maxStorageBufferRange"), std::string::npos) << r.message();
    info.samples = {8, 8, 8};
    info.vertexCapacity = 0xFFFFFFFFu;
    r = IsoSurface::create(device(), info);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("vertexCapacity"), std::string::npos) << r.message();
    info.vertexCapacity = 30;
    info.boundsMax = {1.f, -2.f, 1.f};
    r = IsoSurface::create(device(), info);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("bounds"), std::string::npos) << r.message();

    IsoSurfaceCreateInfo vol;
    vol.samples = {4, 4, 4};
    vol.source = FieldSource::Volume;
    auto v = IsoSurface::create(device(), vol);
    ASSERT_TRUE(v.ok()) << v.message();
    std::vector<float> few(10);
    EXPECT_FALSE(v.value()->uploadVolume(few.data(), few.size() * 4, VolumeFormat::F32).ok());
}

TEST_F(IsoGpu, GlslSyntaxErrorNamesUserLine) {
    IsoSurfaceCreateInfo info = userInfo("float field(vec3 p) {\n    float a = p.x;\n    return a +;\n}\n", {8, 8, 8});
    auto r = IsoSurface::create(device(), info);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find(":3:"), std::string::npos) << r.message();
    EXPECT_NE(r.message().find("error"), std::string::npos) << r.message();
}

// The module links no compiler: UserGlsl goes through the host's
// IsoSurfaceCreateInfo::compileGlsl, and without one create() says so.
TEST_F(IsoGpu, UserGlslUsesTheHostsCompiler) {
    IsoSurfaceCreateInfo info = userInfo(kSphereGlsl, {8, 8, 8});
    info.compileGlsl = nullptr;
    auto none = IsoSurface::create(device(), info);
    ASSERT_FALSE(none.ok());
    EXPECT_NE(none.message().find("compileGlsl"), std::string::npos) << none.message();
    EXPECT_NE(none.message().find("shader_compiler"), std::string::npos) << none.message();
    EXPECT_FALSE(compileUserField(kSphereGlsl, nullptr, "iso").ok());

    // A compiler of the host's own gets the module's whole field shader.
    int calls = 0;
    std::string seen;
    info.compileGlsl = [&](const pyramarch::GlslSource& src) -> pyramarch::Result<std::vector<uint32_t>> {
        ++calls;
        seen = std::string(src.text);
        EXPECT_EQ(src.stage, pyramarch::ShaderStage::Compute);
        return pyramarch::Status::error(pyramarch::ErrorCode::ParseError,
                                        src.name + ":1: error: host compiler refuses");
    };
    // (In a field buffer: one compile; the default also probes the snippet for loops.)
    auto refused = iso::testing::create(device(), info, {.fieldEvaluation = FieldEvaluation::Buffer});
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(calls, 1);
    EXPECT_NE(seen.find("#version"), std::string::npos);
    EXPECT_NE(seen.find("iso_params[0].w - length(p - iso_params[0].xyz)"), std::string::npos)
        << "the user's field is part of the source";
    EXPECT_NE(refused.message().find("host compiler refuses"), std::string::npos) << refused.message();
}

TEST_F(IsoGpu, TwoSurfacesInOneHostGraph) {
    IsoSurfaceCreateInfo a = userInfo(kSphereGlsl, {16, 16, 16});
    a.name = "sphere";
    IsoSurfaceCreateInfo b;
    b.name = "blobs";
    b.samples = {14, 18, 15};
    b.source = FieldSource::Metaballs;
    b.vertexCapacity = 100000;
    auto sa = make(a);
    auto sb = make(b);
    ASSERT_TRUE(sa && sb);
    sa->setUserParams({0, 0, 0, 0.6f, 0, 0, 0, 0});
    RenderGraph graph(&device());
    auto addedA = sa->addPasses(graph);
    ASSERT_OK(addedA);
    const auto outA = *addedA;
    ASSERT_OK(sb->addPasses(graph));
    // A second addPasses is an error, not an abort.
    RenderGraph other(&device());
    auto again = sa->addPasses(other);
    ASSERT_FALSE(again.ok());
    EXPECT_EQ(again.code(), ErrorCode::InvalidState);
    // A host pass consuming surface A's output in the same graph: the graph
    // must order it after extraction (sync validation checks the barriers).
    auto copy = device().allocator().createBuffer({.size = 16 + 64,
                                                   .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                                   .memory = MemoryUsage::Readback,
                                                   .name = "host.copy"});
    ASSERT_TRUE(copy.ok()) << copy.message();
    const BufferRef copyRef = graph.importBuffer("host.copy", copy.value(), {Access::HostRead}, {Access::HostRead});
    graph.addPass("host.consume", PassKind::Transfer)
        .use(outA.drawArgs, Access::TransferSrc)
        .use(outA.vertices, Access::TransferSrc)
        .use(copyRef, Access::TransferDst)
        .record([&](PassContext& ctx) {
            // The draw command the module's draw reads: VkDrawIndirectCommand at
            // drawArgsOffset(), which is IsoArgs::vertexCount.
            const VkBufferCopy regions[2] = {{IsoSurface::drawArgsOffset(), 0, sizeof(VkDrawIndirectCommand)},
                                             {0, 16, 64}};
            ctx.vk->vkCmdCopyBuffer(ctx.cmd, ctx.buffer(outA.drawArgs), ctx.buffer(copyRef), 1, &regions[0]);
            ctx.vk->vkCmdCopyBuffer(ctx.cmd, ctx.buffer(outA.vertices), ctx.buffer(copyRef), 1, &regions[1]);
        });
    ASSERT_OK(graph.compile());
    for (int f = 0; f < 3; ++f) {
        std::vector<Metaball> balls = {{{-0.3f + 0.1f * f, 0.f, 0.f}, 0.6f, 1.f, {}},
                                       {{0.35f, 0.1f, 0.f}, 0.5f, 1.f, {}}};
        ASSERT_OK(sb->setMetaballs(balls));
        Status inner;
        ASSERT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) { inner = graph.execute(cmd); }));
        ASSERT_OK(inner);
        checkAgainstReference(*sa, a);
        checkAgainstReference(*sb, b);
        copy.value().invalidate();
        VkDrawIndirectCommand drawn;
        IsoVertexData first[2];
        std::memcpy(&drawn, copy.value().mapped(), sizeof drawn);
        std::memcpy(first, static_cast<const uint8_t*>(copy.value().mapped()) + 16, 64);
        auto v = sa->readVertices();
        ASSERT_TRUE(v.ok());
        EXPECT_EQ(drawn.vertexCount, v.value().size());
        EXPECT_EQ(drawn.instanceCount, 1u);
        ASSERT_GE(v.value().size(), 2u);
        EXPECT_EQ(std::memcmp(first, v.value().data(), 64), 0);
    }
    EXPECT_EQ(sa->framesRecorded(), 3u);
    EXPECT_EQ(sb->framesRecorded(), 3u);
}

TEST_F(IsoGpu, FramesInOneSubmissionEachSeeTheirOwnBalls) {
    // Three frames recorded back to back before anything runs: each must read
    // its own ring slot (the host data of later frames must not overwrite a
    // slot an earlier frame still needs), and frame-to-frame barriers must hold.
    IsoSurfaceCreateInfo info;
    info.samples = {16, 16, 16};
    info.source = FieldSource::Metaballs;
    info.vertexCapacity = 100000;
    info.framesInFlight = 2;
    auto iso = make(info);
    ASSERT_TRUE(iso);
    const ref::Grid g = referenceGridOf(info);
    std::vector<uint32_t> expected;
    Status inner;
    ASSERT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) {
        for (int f = 0; f < 3; ++f) {
            std::vector<Metaball> balls;
            for (int i = 0; i <= f; ++i) balls.push_back({{-0.5f + 0.5f * i, 0.f, 0.f}, 0.45f, 1.f, {}});
            std::vector<ref::Ball> rb;
            for (const Metaball& b : balls)
                rb.push_back({{b.center[0], b.center[1], b.center[2]}, b.radius, b.strength});
            const auto field = ref::metaballs(g, rb);
            expected.push_back(
                uint32_t(ref::marchingCubes(g, field.data(), 0.5f, ref::Normals::Central).vertices.size()));
            if (!iso->setMetaballs(balls).ok()) return;
            Status s = iso->record(cmd);
            if (!s) inner = s;
        }
    }));
    ASSERT_OK(inner);
    for (int f = 0; f < 3; ++f) {
        const auto s = iso->statsOfFrame(f);
        ASSERT_TRUE(s.has_value()) << "frame " << f;
        // Counts from the CPU field may differ from the GPU field only by
        // samples within float rounding of iso; these balls have none.
        EXPECT_EQ(s->verticesNeeded, expected[f]) << "frame " << f;
    }
    EXPECT_NE(expected[0], expected[2]);
    checkAgainstReference(*iso, info);
}

TEST_F(IsoGpu, StatsRingDelayedWithoutWaiting) {
    IsoSurfaceCreateInfo info = userInfo(kSphereGlsl, {12, 12, 12});
    info.framesInFlight = 2;
    auto iso = make(info);
    ASSERT_TRUE(iso);
    std::vector<uint32_t> needed;
    for (int f = 0; f < 6; ++f) {
        iso->setUserParams({0, 0, 0, 0.3f + 0.1f * f, 0, 0, 0, 0});
        if (f < 3) {
            EXPECT_FALSE(iso->latestStats().has_value());
        }
        frame(*iso);
        needed.push_back(iso->statsOfFrame(f)->verticesNeeded);
    }
    const auto s = iso->latestStats();
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->frame, 6u - 1 - 2);
    EXPECT_EQ(s->verticesNeeded, needed[s->frame]);
    EXPECT_NE(needed[0], needed[5]);
}

// Triangles per extract thread as the module's rule says, derived here on
// its own: the longest run, halving from the device's most down to
// gpu::kIsoExtractTriangles, whose groups of 64 threads still number
// `minGroups` or more.
uint32_t expectedExtractRun(uint32_t triangles, uint32_t most, uint32_t minGroups) {
    for (uint32_t run = most; run > gpu::kIsoExtractTriangles; run /= 2) {
        const uint64_t threads = (uint64_t(triangles) + run - 1) / run;
        if ((threads + 63) / 64 >= minGroups) return run;
    }
    return std::min(most, gpu::kIsoExtractTriangles);
}

TEST_F(IsoGpu, DispatchesFoldIntoTwoDimensions) {
    // Every dispatch (field, classify, pyramid, extract) split into rows of 3
    // groups: the same surface must come out, key for key; with the
    // module's extract runs (this small surface: the fewest triangles a
    // thread) and with the device's longest (Knobs::extractMinGroups 1).
    IsoSurfaceCreateInfo info = userInfo(kCayleyGlsl, {23, 19, 29}, NormalMode::Forward);
    for (const uint32_t minGroups : {0u, 1u}) {
        SCOPED_TRACE(minGroups);
        auto iso = make(info, {.maxGroupsX = 3, .extractMinGroups = minGroups});
        ASSERT_TRUE(iso);
        frame(*iso);
        checkAgainstReference(*iso, info);
        auto args = iso::testing::readDrawArgs(*iso);
        ASSERT_TRUE(args.ok());
        // The extract dispatch folds too: its groups in rows of 3.
        const uint32_t triangles = args.value()[kArg.vertexCount] / 3;
        const uint32_t most = iso::testing::extractTriangles(*iso, 0xffffffffu);
        const uint32_t perThread = iso::testing::extractTriangles(*iso, triangles);
        EXPECT_EQ(perThread, minGroups == 1 ? most : gpu::kIsoExtractTriangles) << triangles << " triangles";
        const uint32_t threads = (triangles + perThread - 1) / perThread;
        const uint32_t groups = (threads + 63) / 64;
        EXPECT_EQ(args.value()[kArg.dispatchX], std::min(groups, 3u));
        EXPECT_EQ(args.value()[kArg.dispatchY], (groups + 2) / 3);
        if (perThread == gpu::kIsoExtractTriangles) EXPECT_GT(args.value()[kArg.dispatchY], 5u);
    }
}

// The triangles an extract thread takes follow the surface written: a small
// one keeps many groups of short runs, a larger one takes longer runs (on
// CPU drivers; a GPU's most is gpu::kIsoExtractTriangles), and
// Knobs::extractMinGroups moves the threshold. Each surface's dispatch is
// the rule's (derived here independently), and its triangles are the CPU
// reference's, key for key, whatever the run.
TEST_F(IsoGpu, ExtractRunsFollowTheSurfaceSize) {
    struct Case {
        const char* glsl;
        std::array<uint32_t, 3> n;
        NormalMode normals;
        uint32_t minGroups; // Knobs::extractMinGroups (0: the module's)
        std::array<float, 8> params;
    };
    const std::array<float, 8> sphere = {0.03f, -0.05f, 0.02f, 0.71f, 0, 0, 0, 0}, gyroid = {5.f, 0, 0, 0, 0, 0, 0, 0};
    const Case cases[] = {{kSphereGlsl, {12, 12, 12}, NormalMode::Central, 0, sphere},
                          {kGyroidGlsl, {41, 39, 44}, NormalMode::Central, 0, gyroid},
                          {kGyroidGlsl, {41, 39, 44}, NormalMode::Sobel, 1, gyroid},
                          {kGyroidGlsl, {41, 39, 44}, NormalMode::Forward, 16, gyroid},
                          {kCayleyGlsl, {45, 38, 41}, NormalMode::None, 3, {}}};
    std::vector<uint32_t> runs;
    for (const Case& c : cases) {
        SCOPED_TRACE(std::to_string(c.n[0]) + "x" + std::to_string(c.n[1]) + "x" + std::to_string(c.n[2]) +
                     " minGroups " + std::to_string(c.minGroups));
        IsoSurfaceCreateInfo info = userInfo(c.glsl, c.n, c.normals);
        auto iso = make(info, {.extractMinGroups = c.minGroups});
        ASSERT_TRUE(iso);
        iso->setUserParams(c.params);
        frame(*iso);
        checkAgainstReference(*iso, info);
        auto args = iso::testing::readDrawArgs(*iso);
        ASSERT_TRUE(args.ok());
        const uint32_t triangles = args.value()[kArg.vertexCount] / 3;
        const uint32_t most = iso::testing::extractTriangles(*iso, 0xffffffffu);
        const uint32_t run = expectedExtractRun(triangles, most, c.minGroups ? c.minGroups : gpu::kIsoExtractMinGroups);
        EXPECT_EQ(iso::testing::extractTriangles(*iso, triangles), run) << triangles << " triangles";
        const uint32_t groups = (triangles + 64 * run - 1) / (64 * run);
        EXPECT_EQ(uint64_t(args.value()[kArg.dispatchX]) * args.value()[kArg.dispatchY], groups);
        runs.push_back(run);
    }
    ASSERT_EQ(runs.size(), std::size(cases));
    EXPECT_EQ(runs[0], gpu::kIsoExtractTriangles) << "a small surface: the shortest runs";
    const uint32_t most = runs[2]; // minGroups 1: the device's most
    if (most > gpu::kIsoExtractTriangles) {
        // CPU drivers: the larger surface takes longer runs than the small
        // one, and fewer groups to keep longer runs still (the third knob's
        // between the module's and the most).
        EXPECT_GT(runs[1], runs[0]);
        EXPECT_GT(runs[3], runs[1]);
        EXPECT_LT(runs[3], most);
        EXPECT_EQ(runs[4], most);
    } else {
        for (uint32_t r : runs) EXPECT_EQ(r, gpu::kIsoExtractTriangles);
    }
}

// The gather's bin-start scan (particles.scan.{sums,top,starts}) against
// the CPU's count of every bin, at 1, 65, 791 and 4226 chunks of
// kIsoBinScanChunk bins, none a multiple of the chunk: the scan's top level
// splits the chunks into kIsoGroupSize (64) slices, here of 1 (one slice),
// 2 (one slice short, the rest empty), 13 (the last three empty) and 67.
// Particles sit at cell centres (no rounding at a bin's edge): some bins
// empty, one crowded, some particles outside the binned box; two frames
// with different particles, so a count the starts pass failed to clear
// shows in the second.
TEST_F(IsoGpu, GatherBinStartsMatchTheCpuCount) {
    const std::array<uint32_t, 3> grids[] = {{2, 2, 2}, {112, 28, 4}, {70, 61, 45}, {128, 128, 64}};
    for (size_t gi = 0; gi < std::size(grids); ++gi) {
        IsoSurfaceCreateInfo info;
        info.samples = grids[gi];
        info.boundsMin = {-1.f, -0.5f, -2.f};
        info.boundsMax = {1.f, 1.5f, 0.f};
        info.source = FieldSource::Particles;
        splat = SplatMethod::Gather;
        const ref::Grid g = referenceGridOf(info);
        float h[3];
        for (int k = 0; k < 3; ++k) h[k] = g.spacing(k);
        info.particleRadius = 0.4f * std::min({h[0], h[1], h[2]});
        info.vertexCapacity = 3000;
        info.isoValue = 0.5f;
        // A radius under one cell: one bin row below the samples, none above.
        const size_t count = size_t(grids[gi][0] + 1) * (grids[gi][1] + 1) * (grids[gi][2] + 1) / 3 + 400;
        info.maxParticles = uint32_t(count);
        // Every other grid folds the chunk passes' dispatches into rows.
        auto iso = make(info, {.maxGroupsX = gi % 2 ? 5u : 0u});
        ASSERT_TRUE(iso);
        auto layout = iso::testing::readGatherBins(*iso);
        ASSERT_TRUE(layout.ok()) << layout.message();
        const std::array<uint32_t, 3> dims = layout.value().dims, pad = layout.value().pad;
        for (int k = 0; k < 3; ++k) ASSERT_EQ(dims[k], grids[gi][k] + 1);
        const size_t bins = size_t(dims[0]) * dims[1] * dims[2];
        const size_t chunks = (bins + gpu::kIsoBinScanChunk - 1) / gpu::kIsoBinScanChunk;
        SCOPED_TRACE(std::to_string(bins) + " bins, " + std::to_string(chunks) + " chunks");
        ASSERT_NE(bins % gpu::kIsoBinScanChunk, 0u);
        for (uint32_t f = 0; f < 2; ++f) {
            const auto rnd = ref::noise(count * 3, 17 + f);
            std::vector<Particle> ps;
            std::vector<uint32_t> expect(bins + 1, 0);
            for (size_t i = 0; i < count; ++i) {
                // Cells from 2 below the binned box to 2 past it; the last
                // 300 particles share one cell.
                int64_t cell[3];
                for (int k = 0; k < 3; ++k)
                    cell[k] = i + 300 >= count ? int64_t(dims[k]) / 2 - int64_t(pad[k])
                                               : int64_t(rnd[i * 3 + k] * float(dims[k] + 4)) - 2 - int64_t(pad[k]);
                Particle p{};
                for (int k = 0; k < 3; ++k) p.position[k] = g.min[k] + (float(cell[k]) + 0.5f) * h[k];
                p.weight = 1.f;
                ps.push_back(p);
                bool inside = true;
                size_t bin = 0;
                for (int k = 2; k >= 0; --k) {
                    const int64_t b = cell[k] + int64_t(pad[k]);
                    inside = inside && b >= 0 && b < int64_t(dims[k]);
                    bin = bin * dims[k] + size_t(b);
                }
                if (inside) ++expect[bin];
            }
            // Exclusive prefix, the total last.
            uint32_t sum = 0;
            for (uint32_t& e : expect) {
                const uint32_t c = e;
                e = sum;
                sum += c;
            }
            ASSERT_LT(sum, count);
            ASSERT_OK(iso->setParticles(ps));
            frame(*iso);
            auto got = iso::testing::readGatherBins(*iso);
            ASSERT_TRUE(got.ok()) << got.message();
            const std::vector<uint32_t>& starts = got.value().starts;
            ASSERT_EQ(starts.size(), expect.size());
            const auto diff = std::mismatch(starts.begin(), starts.end(), expect.begin());
            EXPECT_TRUE(diff.first == starts.end())
                << "frame " << f << ": bin " << (diff.first - starts.begin()) << " starts at " << *diff.first
                << ", the CPU says " << *diff.second;
        }
    }
}

TEST_F(IsoGpu, ScanBaselineMatchesReference) {
    // The scan pipeline of the CUDA marchingCubes sample must produce the same vertex buffer.
    for (std::array<uint32_t, 3> n :
         {std::array<uint32_t, 3>{34, 34, 34}, {37, 50, 23}, {2, 2, 2}, {3, 64, 5}, {3, 3, 2}}) {
        SCOPED_TRACE(std::to_string(n[0]) + "x" + std::to_string(n[1]) + "x" + std::to_string(n[2]));
        IsoSurfaceCreateInfo info = userInfo(kCayleyGlsl, n, NormalMode::Sobel);
        extraction = ExtractionMethod::Scan;
        info.boundsMin = {-1.f, -0.6f, -0.9f};
        auto iso = make(info);
        ASSERT_TRUE(iso);
        frame(*iso);
        checkAgainstReference(*iso, info);
    }
    // Capacity clamp (down to one triangle) and folded dispatches.
    IsoSurfaceCreateInfo info = userInfo(kCayleyGlsl, {21, 17, 19});
    extraction = ExtractionMethod::Scan;
    const iso::testing::Knobs fold{.maxGroupsX = 5};
    auto full = make(info, fold);
    ASSERT_TRUE(full);
    frame(*full);
    checkAgainstReference(*full, info);
    auto all = full->readVertices();
    ASSERT_TRUE(all.ok());
    const uint32_t needed = uint32_t(all.value().size());
    for (uint32_t capacity : {needed / 2 + 2, 3u}) {
        info.vertexCapacity = capacity;
        auto iso = make(info, fold);
        ASSERT_TRUE(iso);
        frame(*iso);
        const auto s = iso->statsOfFrame(0);
        ASSERT_TRUE(s.has_value());
        EXPECT_EQ(s->verticesNeeded, needed);
        EXPECT_EQ(s->verticesWritten, capacity / 3 * 3);
        auto v = iso->readVertices();
        ASSERT_TRUE(v.ok());
        ASSERT_EQ(v.value().size(), capacity / 3 * 3);
        for (size_t k = 0; k < v.value().size(); ++k)
            for (int c = 0; c < 4; ++c) ASSERT_EQ(v.value()[k].position[c], all.value()[k].position[c]) << k;
        // Overflow is reported; generate still runs over every active cell
        // (the list is complete) and stops each at capacity.
        EXPECT_EQ(s->overflow, 1u);
        auto fullList = iso::testing::readActiveCells(*full);
        auto list = iso::testing::readActiveCells(*iso);
        ASSERT_TRUE(fullList.ok() && list.ok());
        EXPECT_EQ(list.value(), fullList.value());
        EXPECT_EQ(s->activeCells, fullList.value().size());
        auto args = iso::testing::readDrawArgs(*iso);
        ASSERT_TRUE(args.ok());
        EXPECT_GE(uint64_t(args.value()[kArg.dispatchX]) * args.value()[kArg.dispatchY] * 64, fullList.value().size());
    }
    // No surface: no active cell, an empty list and an empty dispatch.
    info.vertexCapacity = needed;
    info.isoValue = 1e30f;
    auto none = make(info, fold);
    ASSERT_TRUE(none);
    frame(*none);
    checkAgainstReference(*none, info);
    auto list = iso::testing::readActiveCells(*none);
    ASSERT_TRUE(list.ok());
    EXPECT_TRUE(list.value().empty());
    auto args = iso::testing::readDrawArgs(*none);
    ASSERT_TRUE(args.ok());
    EXPECT_EQ(args.value()[kArg.dispatchX], 0u);
}

namespace {
// Indexed output against the CPU reference: one vertex per cut edge, and
// index k names the vertex the non-indexed path writes at key k (positions to
// 1e-5 of a cell, normals to 1e-3). `indices` receives the index buffer and
// `uniqueVertices` the vertex count.
void expectIndexedMatchesReference(IsoSurface& iso, const IsoSurfaceCreateInfo& info, std::vector<uint32_t>& indices,
                                   size_t& uniqueVertices) {
    const ref::Grid g = referenceGridOf(info);
    auto field = iso.readField();
    ASSERT_TRUE(field.ok());
    const ref::McResult cpu = ref::marchingCubes(g, field.value().data(), 0.f, refNormals(info.normals));
    auto verts = iso.readVertices();
    auto idx = iso.readIndices();
    ASSERT_TRUE(verts.ok() && idx.ok());
    EXPECT_EQ(verts.value().size(), cutEdges(g, field.value(), 0.f));
    ASSERT_EQ(idx.value().size(), cpu.vertices.size());
    const float tol = ref::positionTolerance(g);
    const auto unique = toRef(verts.value());
    // Key order: the grid's (brick order on the direct brick table).
    const std::vector<ref::Vertex> expected =
        iso::testing::directBricks(iso) ? inBrickOrder(cpu, info.samples) : cpu.vertices;
    for (size_t k = 0; k < idx.value().size(); ++k) {
        ASSERT_LT(idx.value()[k], unique.size()) << k;
        const ref::Vertex& v = unique[idx.value()[k]];
        for (int a = 0; a < 3; ++a) {
            ASSERT_NEAR(v.p[a], expected[k].p[a], tol) << "key " << k;
            ASSERT_NEAR(v.n[a], expected[k].n[a], 1e-3f) << "key " << k;
        }
    }
    indices = std::move(idx).value();
    uniqueVertices = unique.size();
}
} // namespace

TEST_F(IsoGpu, IndexedOutputSharesVertices) {
    struct Case {
        const char* glsl;
        std::array<uint32_t, 3> n;
        NormalMode normals;
        bool closed;
    };
    const Case cases[] = {{kSphereGlsl, {19, 23, 17}, NormalMode::Central, true},
                          {kCayleyGlsl, {37, 50, 23}, NormalMode::Sobel, false},
                          {kCayleyGlsl, {2, 2, 2}, NormalMode::Forward, false},
                          {kCayleyGlsl, {3, 64, 5}, NormalMode::Central, false}};
    for (const Case& c : cases) {
        SCOPED_TRACE(std::to_string(c.n[0]) + "x" + std::to_string(c.n[1]) + "x" + std::to_string(c.n[2]));
        IsoSurfaceCreateInfo info = userInfo(c.glsl, c.n, c.normals);
        info.boundsMin = {-1.f, -0.8f, -0.9f};
        info.indexed = true;
        info.vertexCapacity = 100000;
        info.indexCapacity = 300000;
        auto iso = make(info);
        ASSERT_TRUE(iso);
        iso->setUserParams({0.02f, -0.03f, 0.01f, 0.62f, 0, 0, 0, 0});
        frame(*iso);
        std::vector<uint32_t> indices;
        size_t uniqueVertices = 0;
        expectIndexedMatchesReference(*iso, info, indices, uniqueVertices);
        if (HasFatalFailure()) return;
        if (c.closed) {
            // Watertight on the indices themselves: every edge in exactly two
            // triangles, once in each direction.
            std::map<std::pair<uint32_t, uint32_t>, int> directed;
            for (size_t t = 0; t + 2 < indices.size(); t += 3)
                for (int e = 0; e < 3; ++e) directed[{indices[t + e], indices[t + (e + 1) % 3]}]++;
            for (const auto& [e, count] : directed) {
                ASSERT_EQ(count, 1) << "edge used twice in one direction";
                ASSERT_EQ(directed.count({e.second, e.first}), 1u) << "open edge";
            }
        }
        const auto stats = iso->statsOfFrame(0);
        ASSERT_TRUE(stats.has_value());
        EXPECT_EQ(stats->verticesNeeded, uniqueVertices);
        EXPECT_EQ(stats->indicesNeeded, indices.size());
        EXPECT_EQ(stats->indicesWritten, indices.size());
        EXPECT_FALSE(stats->overflow);
        auto args = iso::testing::readDrawArgs(*iso);
        ASSERT_TRUE(args.ok());
        EXPECT_EQ(args.value()[kArg.vertexCount], 0u);            // the non-indexed draw draws nothing
        EXPECT_EQ(args.value()[kArg.indexCount], indices.size()); // indexCount
        EXPECT_EQ(args.value()[kArg.indexedInstanceCount], 1u);
        auto mesh = iso->readMesh(false);
        ASSERT_TRUE(mesh.ok());
        EXPECT_EQ(mesh.value().indices, indices);
    }
}

// Shared vertices on the bricks: a volume (uniform bricks skipped) whose
// surface leaves through every face of the grid (the cells of the last faces
// own the edges there), odd widths (short last bricks), NaN samples; against
// the reference key for key in brick order and bit for bit against the
// storage-buffer reads.
void IsoGpu::checkIndexedVolumeVariants(std::array<uint32_t, 3> n) {
    SCOPED_TRACE(std::to_string(n[0]) + "x" + std::to_string(n[1]) + "x" + std::to_string(n[2]));
    IsoSurfaceCreateInfo info;
    info.samples = n;
    info.source = FieldSource::Volume;
    info.indexed = true;
    info.normals = NormalMode::Central;
    info.vertexCapacity = 200000;
    info.indexCapacity = 600000;
    auto listed = make(info);
    auto storage = make(info, {.storageReads = true});
    ASSERT_TRUE(listed && storage);
    std::vector<float> v(size_t(n[0]) * n[1] * n[2]);
    for (uint32_t z = 0; z < n[2]; ++z)
        for (uint32_t y = 0; y < n[1]; ++y)
            for (uint32_t x = 0; x < n[0]; ++x)
                // A wavy slab crossing the grid diagonally: every face is cut.
                v[x + n[0] * (y + n[1] * size_t(z))] = float(x) / n[0] + float(y) / n[1] - float(z) / n[2] +
                                                       0.15f * std::sin(1.3f * float(x + 2 * z) - 0.7f * y);
    v[v.size() / 2] = std::numeric_limits<float>::quiet_NaN();
    for (auto* s : {listed.get(), storage.get()}) ASSERT_OK(s->uploadVolume(v.data(), v.size() * 4, VolumeFormat::F32));
    for (float isoValue : {0.5f, 0.1f}) {
        SCOPED_TRACE("iso " + std::to_string(isoValue));
        std::vector<std::vector<uint32_t>> idx;
        std::vector<std::vector<IsoVertexData>> vert;
        for (auto* s : {listed.get(), storage.get()}) {
            s->setIsoValue(isoValue);
            frame(*s);
            auto i = s->readIndices();
            auto vv = s->readVertices();
            ASSERT_TRUE(i.ok() && vv.ok());
            idx.push_back(i.value());
            vert.push_back(vv.value());
        }
        // The reference: every key's vertex, one vertex per cut edge.
        const ref::Grid g = referenceGridOf(info);
        auto field = listed->readField();
        ASSERT_TRUE(field.ok());
        const ref::McResult cpu = ref::marchingCubes(g, field.value().data(), isoValue, refNormals(info.normals));
        ASSERT_GT(cpu.vertices.size(), 0u);
        ASSERT_TRUE(iso::testing::directBricks(*listed));
        const std::vector<ref::Vertex> expected = inBrickOrder(cpu, info.samples);
        EXPECT_EQ(vert[0].size(), cutEdges(g, field.value(), isoValue));
        ASSERT_EQ(idx[0].size(), expected.size());
        const auto unique = toRef(vert[0]);
        const float tol = ref::positionTolerance(g);
        for (size_t k = 0; k < idx[0].size(); ++k) {
            ASSERT_LT(idx[0][k], unique.size()) << k;
            for (int a = 0; a < 3; ++a) {
                ASSERT_NEAR(unique[idx[0][k]].p[a], expected[k].p[a], tol) << "key " << k;
                ASSERT_NEAR(unique[idx[0][k]].n[a], expected[k].n[a], 1e-3f) << "key " << k;
            }
        }
        EXPECT_EQ(idx[1], idx[0]) << "storage reads";
        ASSERT_EQ(vert[1].size(), vert[0].size());
        EXPECT_TRUE(sameVertexBytes(vert[1], vert[0])) << "storage reads";
    }
}

TEST_F(IsoGpu, IndexedVolumeThroughEveryFaceMatchesTheReferenceAndStorageReads) {
    for (const std::array<uint32_t, 3> n :
         {std::array<uint32_t, 3>{29, 18, 23}, std::array<uint32_t, 3>{70, 9, 33}, std::array<uint32_t, 3>{2, 3, 2}})
        checkIndexedVolumeVariants(n);
}

// The same at a small size, for the `gpuav` label: every indexed shader and
// its storage-read variant under GPU-assisted validation in seconds.
TEST_F(IsoGpu, SmallIndexedVolumeVariants) { checkIndexedVolumeVariants({9, 8, 10}); }

TEST_F(IsoGpu, IndexedOutputCapacities) {
    IsoSurfaceCreateInfo info = userInfo(kCayleyGlsl, {20, 20, 20});
    info.indexed = true;
    info.vertexCapacity = 100000;
    info.indexCapacity = 100000;
    auto full = make(info);
    ASSERT_TRUE(full);
    frame(*full);
    const auto need = full->statsOfFrame(0);
    ASSERT_TRUE(need.has_value());
    auto allIdx = full->readIndices();
    ASSERT_TRUE(allIdx.ok());
    EXPECT_GE(suggestIndexCapacity(*need), need->indicesNeeded);
    EXPECT_EQ(suggestIndexCapacity(*need) % 3, 0u);
    // Index capacity short (down to one triangle): whole triangles, same leading indices.
    for (uint32_t cap : {need->indicesNeeded / 2 + 1, 3u}) {
        info.indexCapacity = cap;
        auto iso = make(info);
        ASSERT_TRUE(iso);
        frame(*iso);
        const auto s = iso->statsOfFrame(0);
        ASSERT_TRUE(s.has_value());
        EXPECT_EQ(s->indicesNeeded, need->indicesNeeded);
        EXPECT_EQ(s->indicesWritten, cap / 3 * 3);
        EXPECT_TRUE(s->overflow);
        auto idx = iso->readIndices();
        ASSERT_TRUE(idx.ok());
        ASSERT_EQ(idx.value().size(), cap / 3 * 3);
        for (size_t k = 0; k < idx.value().size(); ++k) ASSERT_EQ(idx.value()[k], allIdx.value()[k]);
    }
    // Vertex capacity short: vertices clamped, no indices at all (they could
    // name vertices that were never written).
    info.indexCapacity = 100000;
    info.vertexCapacity = need->verticesNeeded - 1;
    auto iso = make(info);
    ASSERT_TRUE(iso);
    frame(*iso);
    const auto s = iso->statsOfFrame(0);
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->verticesNeeded, need->verticesNeeded);
    EXPECT_EQ(s->verticesWritten, (need->verticesNeeded - 1) / 3 * 3);
    EXPECT_EQ(s->indicesWritten, 0u);
    EXPECT_TRUE(s->overflow);
    auto args = iso::testing::readDrawArgs(*iso);
    ASSERT_TRUE(args.ok());
    EXPECT_EQ(args.value()[kArg.indexCount], 0u);
    // Scan + indexed is refused with a message.
    auto bad = iso::testing::create(device(), info, {.extraction = ExtractionMethod::Scan});
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.message().find("indexed"), std::string::npos);
}

// Small-size cases of the scan baseline and of indexed output, each with a
// capacity overflow, for the `gpuav` label (tests/gpuav): under GPU-assisted
// validation the full tests above take minutes; these take seconds and run
// every shader of both paths, overflow branches included.
// The scan baseline with its vertex capacity short, on one surface: the
// frame reports what it needed (the CPU reference's count) and writes whole
// triangles up to the capacity, each the reference's vertex of the same key.
// One surface with folded dispatches: the GPU-assisted validation run's
// scan case (a surface's compile is what costs there).
TEST_F(IsoGpu, ScanBaselineOverflowInOneSurface) {
    IsoSurfaceCreateInfo info = userInfo(kCayleyGlsl, {9, 8, 10}, NormalMode::Sobel);
    extraction = ExtractionMethod::Scan;
    info.boundsMin = {-1.f, -0.6f, -0.9f};
    info.vertexCapacity = 31;
    auto s = make(info, {.maxGroupsX = 2});
    ASSERT_TRUE(s);
    frame(*s);
    const ref::Grid g = referenceGridOf(info);
    auto field = s->readField();
    ASSERT_TRUE(field.ok()) << field.message();
    const ref::McResult cpu = ref::marchingCubes(g, field.value().data(), s->isoValue(), refNormals(info.normals));
    ASSERT_GT(cpu.vertices.size(), 31u);
    const auto st = s->statsOfFrame(0);
    ASSERT_TRUE(st.has_value());
    EXPECT_EQ(st->verticesNeeded, cpu.vertices.size());
    EXPECT_EQ(st->verticesWritten, 30u);
    EXPECT_TRUE(st->overflow);
    auto verts = s->readVertices();
    ASSERT_TRUE(verts.ok());
    const auto gpu = toRef(verts.value());
    ASSERT_EQ(gpu.size(), 30u);
    const std::vector<ref::Vertex> expected =
        iso::testing::directBricks(*s) ? inBrickOrder(cpu, info.samples) : cpu.vertices;
    const float tol = ref::positionTolerance(g);
    for (size_t k = 0; k < gpu.size(); ++k)
        for (int c = 0; c < 3; ++c) ASSERT_NEAR(gpu[k].p[c], expected[k].p[c], tol) << "key " << k;
}

TEST_F(IsoGpu, SmallScanBaselineWithOverflow) {
    IsoSurfaceCreateInfo info = userInfo(kCayleyGlsl, {9, 8, 10}, NormalMode::Sobel);
    extraction = ExtractionMethod::Scan;
    info.boundsMin = {-1.f, -0.6f, -0.9f};
    const iso::testing::Knobs folded{.maxGroupsX = 2}; // folded dispatches
    auto full = make(info, folded);
    ASSERT_TRUE(full);
    frame(*full);
    checkAgainstReference(*full, info);
    auto all = full->readVertices();
    ASSERT_TRUE(all.ok());
    const uint32_t needed = uint32_t(all.value().size());
    ASSERT_GT(needed, 6u);
    info.vertexCapacity = needed / 2 + 2;
    auto clamped = make(info, folded);
    ASSERT_TRUE(clamped);
    frame(*clamped);
    const auto s = clamped->statsOfFrame(0);
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->verticesNeeded, needed);
    EXPECT_EQ(s->verticesWritten, info.vertexCapacity / 3 * 3);
    EXPECT_EQ(s->overflow, 1u);
    auto v = clamped->readVertices();
    ASSERT_TRUE(v.ok());
    ASSERT_EQ(v.value().size(), info.vertexCapacity / 3 * 3);
    for (size_t k = 0; k < v.value().size(); ++k)
        for (int c = 0; c < 4; ++c) ASSERT_EQ(v.value()[k].position[c], all.value()[k].position[c]) << k;
}

TEST_F(IsoGpu, SmallIndexedOutputWithOverflow) {
    IsoSurfaceCreateInfo info = userInfo(kSphereGlsl, {9, 10, 8});
    info.indexed = true;
    info.vertexCapacity = 20000;
    info.indexCapacity = 20000;
    auto full = make(info);
    ASSERT_TRUE(full);
    full->setUserParams({0.02f, -0.03f, 0.01f, 0.62f, 0, 0, 0, 0});
    frame(*full);
    std::vector<uint32_t> indices;
    size_t uniqueVertices = 0;
    expectIndexedMatchesReference(*full, info, indices, uniqueVertices);
    if (HasFatalFailure()) return;
    ASSERT_GT(indices.size(), 6u);
    // Index capacity short: whole triangles, the same leading indices.
    info.indexCapacity = uint32_t(indices.size()) / 2 + 1;
    auto clamped = make(info);
    ASSERT_TRUE(clamped);
    clamped->setUserParams({0.02f, -0.03f, 0.01f, 0.62f, 0, 0, 0, 0});
    frame(*clamped);
    const auto s = clamped->statsOfFrame(0);
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->indicesNeeded, indices.size());
    EXPECT_EQ(s->indicesWritten, info.indexCapacity / 3 * 3);
    EXPECT_TRUE(s->overflow);
    auto part = clamped->readIndices();
    ASSERT_TRUE(part.ok());
    ASSERT_EQ(part.value().size(), info.indexCapacity / 3 * 3);
    for (size_t k = 0; k < part.value().size(); ++k) ASSERT_EQ(part.value()[k], indices[k]);
    auto args = iso::testing::readDrawArgs(*clamped);
    ASSERT_TRUE(args.ok());
    EXPECT_EQ(args.value()[kArg.indexCount], info.indexCapacity / 3 * 3);
}

TEST_F(IsoGpu, MeshExportObjAndPly) {
    IsoSurfaceCreateInfo info = userInfo(kSphereGlsl, {14, 14, 14});
    auto iso = make(info);
    ASSERT_TRUE(iso);
    iso->setUserParams({0, 0, 0, 0.65f, 0, 0, 0, 0});
    frame(*iso);
    auto soup = iso->readMesh(false);
    auto welded = iso->readMesh(true);
    ASSERT_TRUE(soup.ok() && welded.ok());
    auto v = iso->readVertices();
    const auto tris = toRef(v.value());
    EXPECT_EQ(soup.value().positions.size(), tris.size());
    EXPECT_EQ(welded.value().indices.size(), tris.size());
    EXPECT_EQ(welded.value().positions.size(), ref::weld(tris).uniqueVertices);
    EXPECT_LT(welded.value().positions.size() * 4, tris.size());
    const auto dir = std::filesystem::temp_directory_path() / ("pyramarch_iso_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    ASSERT_OK(writeObj(welded.value(), (dir / "s.obj").string()));
    ASSERT_OK(writePly(welded.value(), (dir / "s.ply").string()));
    {
        std::ifstream obj(dir / "s.obj");
        size_t vs = 0, fs = 0;
        std::string line;
        while (std::getline(obj, line)) {
            if (line.rfind("v ", 0) == 0) ++vs;
            if (line.rfind("f ", 0) == 0) ++fs;
        }
        EXPECT_EQ(vs, welded.value().positions.size());
        EXPECT_EQ(fs, welded.value().indices.size() / 3);
    }
    {
        std::ifstream ply(dir / "s.ply", std::ios::binary);
        std::string header, line;
        while (std::getline(ply, line)) {
            header += line + "\n";
            if (line == "end_header") break;
        }
        EXPECT_NE(header.find("format binary_little_endian 1.0"), std::string::npos);
        EXPECT_NE(header.find("element vertex " + std::to_string(welded.value().positions.size())), std::string::npos);
        const auto start = ply.tellg();
        ply.seekg(0, std::ios::end);
        const size_t body = size_t(ply.tellg() - start);
        EXPECT_EQ(body, welded.value().positions.size() * 24 + welded.value().indices.size() / 3 * 13);
        ply.seekg(start);
        float first[6];
        ply.read(reinterpret_cast<char*>(first), sizeof(first));
        for (int k = 0; k < 3; ++k) EXPECT_EQ(first[k], welded.value().positions[0][k]);
    }
    EXPECT_FALSE(writeObj(welded.value(), "/nonexistent-dir/x.obj").ok());
    std::filesystem::remove_all(dir);
}

// Without VK_KHR_push_descriptor (a device created with pushDescriptors =
// false) the render graph binds descriptor sets it writes itself: the same
// surface, bit for bit, under validation, for both extraction methods.
TEST_F(IsoGpu, GraphDescriptorSetsMatchPushDescriptors) {
    if (!device().limits().pushDescriptors) GTEST_SKIP() << "the shared device already runs on the graph's sets";
    std::atomic<int> messages{0};
    DeviceCreateInfo ci;
    ci.enableValidation = true;
    ci.pushDescriptors = false;
    ci.preferredDevice = device().name();
    ci.validationCallback = [&](const ValidationMessage& m) {
        if (m.severity == MessageSeverity::Warning || m.severity == MessageSeverity::Error) {
            ++messages;
            std::fprintf(stderr, "validation: %s %s\n", m.idName.c_str(), m.text.c_str());
        }
    };
    auto other = Device::create(ci);
    ASSERT_TRUE(other.ok()) << other.message();
    ASSERT_FALSE((*other)->limits().pushDescriptors);
    std::vector<Metaball> balls(3);
    const float centers[3][3] = {{-0.3f, 0.f, 0.1f}, {0.35f, 0.1f, -0.2f}, {0.f, -0.3f, 0.3f}};
    for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < 3; ++k) balls[i].center[k] = centers[i][k];
        balls[i].radius = 0.6f;
        balls[i].strength = 1.f;
    }
    for (ExtractionMethod method : {ExtractionMethod::HistoPyramid, ExtractionMethod::Scan}) {
        IsoSurfaceCreateInfo info;
        info.samples = {24, 20, 22};
        info.source = FieldSource::Metaballs;
        info.vertexCapacity = 200000;
        auto run = [&](Device& d) {
            std::vector<IsoVertexData> out;
            auto iso = iso::testing::create(d, info, {.extraction = method});
            EXPECT_TRUE(iso.ok()) << iso.message();
            if (!iso) return out;
            EXPECT_OK((*iso)->setMetaballs(balls));
            for (int f = 0; f < 3; ++f) {
                Status inner;
                EXPECT_OK(submitAndWait(d, [&](VkCommandBuffer cmd) { inner = (*iso)->record(cmd); }));
                EXPECT_OK(inner);
            }
            auto v = (*iso)->readVertices();
            EXPECT_TRUE(v.ok()) << v.message();
            if (v) out = *v;
            return out;
        };
        const std::vector<IsoVertexData> pushed = run(device());
        const std::vector<IsoVertexData> sets = run(**other);
        ASSERT_FALSE(pushed.empty());
        ASSERT_EQ(pushed.size(), sets.size());
        EXPECT_EQ(std::memcmp(pushed.data(), sets.data(), pushed.size() * sizeof(IsoVertexData)), 0);
    }
    EXPECT_EQ(messages.load(), 0);
}
