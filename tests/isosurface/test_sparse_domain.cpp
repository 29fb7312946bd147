// Sparse domains (IsoSurfaceCreateInfo::sparse) on the validated shared
// device: the triangles of the dense fused path and of the CPU reference
// (on the field a buffer surface samples), the stats against counts taken
// from the reference (row pairs with a cut cell, bricks holding one),
// capacities that run out (reported, bounded, suggested), and a virtual grid
// far past what a dense field or pyramid could hold.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <set>
#include <string>
#include <limits>
#include <optional>
#include <tuple>
#include <vector>
#include <type_traits>

#include "iso_fixture.h"
#include "iso_reference_convert.h"
#include "isosurface/iso_shared.h"
#include "pyramarch/engine/shader_compiler.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/isosurface/isosurface.h"
#include "reference.h"
#include "reference_grid.h"

using namespace pyramarch;
using namespace pyramarch::iso;
// The measured variants (testing::Knobs).
using iso::testing::ExtractionMethod;
using iso::testing::FieldEvaluation;
using iso::testing::SplatMethod;

namespace {

IsoSurfaceCreateInfo sparseInfo(const char* glsl, std::array<uint32_t, 3> n, float lipschitz, NormalMode normals) {
    IsoSurfaceCreateInfo info;
    info.samples = n;
    info.source = FieldSource::UserGlsl;
    info.fieldGlsl = glsl;
    info.compileGlsl = pyramarch::compileGlsl;
    info.vertexCapacity = 300000;
    info.normals = normals;
    info.isoValue = 0.f;
    info.lipschitz = lipschitz;
    info.sparse.enabled = true;
    info.sparse.maxBricks = 20000;
    info.sparse.maxRowPairs = 100000;
    return info;
}

// What the reference says the sparse passes must find: row pairs (the
// 16-cell slots: x / 8, y / 2, z) and bricks of 8^3 cells holding a cell
// with triangles.
struct SparseCounts {
    uint32_t rowPairs = 0, bricks = 0, totalBricks = 0;
};
SparseCounts countsOf(const ref::McResult& cpu, std::array<uint32_t, 3> samples) {
    const uint32_t cx = samples[0] - 1, cy = samples[1] - 1, cz = samples[2] - 1;
    std::set<std::tuple<uint32_t, uint32_t, uint32_t>> pairs, bricks;
    for (uint32_t z = 0; z < cz; ++z)
        for (uint32_t y = 0; y < cy; ++y)
            for (uint32_t x = 0; x < cx; ++x)
                if ((cpu.base[x + size_t(cx) * (y + size_t(cy) * z)] & 0xfu) != 0) {
                    pairs.insert({x / 8, y / 2, z});
                    bricks.insert({x / 8, y / 8, z / 8});
                }
    SparseCounts c;
    c.rowPairs = uint32_t(pairs.size());
    c.bricks = uint32_t(bricks.size());
    c.totalBricks = ((cx + 7) / 8) * ((cy + 7) / 8) * ((cz + 7) / 8);
    return c;
}

class IsoSparse : public IsoSurfaceTest {
protected:
    // One frame of `info` as a buffer surface (no bound: every sample), the
    // CPU reference on its field, one frame of the dense fused path and of
    // the sparse domain; triangles, stats and counts compared.
    // Metaballs and particles (defined below).
    template <typename Item>
    void expectItemFramesMatch(const IsoSurfaceCreateInfo& info, const std::vector<std::vector<Item>>& frames,
                               size_t minVertices = 300);
    template <typename Item>
    void expectShortItemCapacitiesReported(const IsoSurfaceCreateInfo& full, const std::vector<Item>& items,
                                           uint32_t bricks, uint32_t refs);

    // One frame of the same particles on the bricks (info) and on the dense
    // path (info without the sparse domain, with denseKnobs): the bricks'
    // stats, and both vertex buffers.
    struct SparseAndDense {
        IsoStats stats;
        std::vector<IsoVertexData> sparse, dense;
    };
    SparseAndDense runSparseAndDense(const IsoSurfaceCreateInfo& info, const std::vector<Particle>& particles,
                                     iso::testing::Knobs denseKnobs = {});
    // The bricks with too few of them (info's maxBricks short of the list):
    // the frame overflows, and the listed bricks next to a dropped one sum
    // their border rows over their own lists, so every triangle kept is one
    // of the dense path's (want: triangleBits of it), bit for bit.
    void expectKeptTrianglesAreTheDensePaths(const IsoSurfaceCreateInfo& info, const std::vector<Particle>& particles,
                                             const std::vector<std::array<uint32_t, 24>>& want);

    // A moving sphere (NaN far outside) with central normals and Cayley
    // with Sobel normals, odd sizes: expectSparseMatches.
    void expectSphereAndCayleyMatch() {
        {
            SCOPED_TRACE("moving sphere 37x50x23, central normals, NaN far outside");
            IsoSurfaceCreateInfo info = sparseInfo(kMovingSphereGlsl, {37, 50, 23}, 1.f, NormalMode::Central);
            info.boundsMin = {-1.f, -0.8f, -1.2f};
            info.boundsMax = {1.f, 0.9f, 1.f};
            expectSparseMatches(info, {0.1f, -0.1f, 0.05f, 0.45f, 0.3f, 0, 0, 0}, 0.9f);
        }
        {
            SCOPED_TRACE("Cayley 61x45x38, Sobel normals");
            // |grad| <= |16 (yz, xz, xy) + 4| <= 20 sqrt(3) on [-1, 1]^3.
            expectSparseMatches(sparseInfo(kCayleyGlsl, {61, 45, 38}, 34.65f, NormalMode::Sobel), {}, 0.f);
        }
    }

    void expectSparseMatches(IsoSurfaceCreateInfo info, const std::array<float, 8>& params, float time,
                             size_t minVertices = 300) {
        IsoSurfaceCreateInfo bufferInfo = info;
        bufferInfo.sparse = {};
        bufferInfo.lipschitz = 0.f;
        IsoSurfaceCreateInfo denseInfo = info;
        denseInfo.sparse = {};
        auto buffer = make(bufferInfo, {.fieldEvaluation = FieldEvaluation::Buffer});
        auto dense = make(denseInfo, {.fieldEvaluation = FieldEvaluation::Fused});
        auto sparse = make(info);
        ASSERT_TRUE(buffer && dense && sparse);
        for (IsoSurface* s : {buffer.get(), dense.get(), sparse.get()}) {
            s->setUserParams(params);
            s->setTime(time);
            frame(*s);
        }
        EXPECT_FALSE(sparse->readField().ok()) << "a sparse domain has no field buffer";
        expectFrameMatches(info, *buffer, *dense, *sparse, minVertices);
    }

    // The newest frame of `sparse` against the CPU reference on the field
    // `withField` kept and against `dense`: the same triangles, the stats
    // against the reference's cut cells. Returns the sparse frame's stats.
    std::optional<IsoStats> expectFrameMatches(const IsoSurfaceCreateInfo& info, IsoSurface& withField,
                                               IsoSurface& dense, IsoSurface& sparse, size_t minVertices) {
        auto field = withField.readField();
        EXPECT_TRUE(field.ok()) << field.message();
        if (!field.ok()) return std::nullopt;
        const ref::Grid g = referenceGridOf(info);
        const ref::McResult cpu = ref::marchingCubes(g, field.value().data(), info.isoValue, refNormals(info.normals));
        EXPECT_GE(cpu.vertices.size(), minVertices) << "the case should have a surface";
        auto sv = sparse.readVertices();
        auto dv = dense.readVertices();
        EXPECT_TRUE(sv.ok() && dv.ok());
        if (!sv.ok() || !dv.ok()) return std::nullopt;
        const float tol = ref::positionTolerance(g);
        EXPECT_EQ(ref::compareTriangleSets(cpu.vertices, toRef(sv.value()), tol, 1e-3f), "") << "against the CPU";
        EXPECT_EQ(ref::compareTriangleSets(toRef(dv.value()), toRef(sv.value()), tol, 1e-3f), "")
            << "against the dense path";
        const auto stats = sparse.statsOfFrame(sparse.framesRecorded() - 1);
        EXPECT_TRUE(stats.has_value());
        if (!stats) return std::nullopt;
        EXPECT_FALSE(stats->overflow);
        EXPECT_EQ(stats->verticesNeeded, cpu.vertices.size());
        EXPECT_EQ(stats->verticesWritten, cpu.vertices.size());
        EXPECT_EQ(stats->activeCells, cpu.activeCells);
        const SparseCounts want = countsOf(cpu, info.samples);
        EXPECT_EQ(stats->sparseRowPairsNeeded, want.rowPairs);
        // Listed: every brick with a triangle, and what the bound cannot rule out.
        EXPECT_GE(stats->sparseBricksNeeded, want.bricks);
        EXPECT_LE(stats->sparseBricksNeeded, want.totalBricks);
        return stats;
    }
};

TEST_F(IsoSparse, MatchesTheDenseFusedPathAndTheReference) {
    expectSphereAndCayleyMatch();
    {
        SCOPED_TRACE("gyroid 30x26x28, iso 0.2, no normals");
        IsoSurfaceCreateInfo info = sparseInfo(kGyroidGlsl, {30, 26, 28}, 15.40f, NormalMode::None);
        info.isoValue = 0.2f;
        expectSparseMatches(info, {6.2831853f, 0, 0, 0, 0, 0, 0, 0}, 0.f);
    }
    {
        // 17 x 9 x 18 bricks in 3 x 2 x 3 super-bricks (the coarse pass
        // lists some, the fine pass tests only their bricks), short at every far end.
        SCOPED_TRACE("sphere 130x70x140 (several super-bricks)");
        IsoSurfaceCreateInfo info = sparseInfo(kMovingSphereGlsl, {131, 71, 141}, 1.f, NormalMode::Central);
        expectSparseMatches(info, {0.2f, 0.1f, -0.15f, 0.35f, 0, 0, 0, 0}, 0.f);
    }
    {
        SCOPED_TRACE("one brick, one short row: 9x2x3");
        expectSparseMatches(sparseInfo(kCayleyGlsl, {9, 2, 3}, 34.65f, NormalMode::Forward), {}, 0.f, 30);
    }
}

// Extraction in the device's longest runs (Knobs::extractMinGroups 1: on
// CPU drivers every thread takes kIsoExtractTrianglesCpu triangles, on these
// small surfaces too): a run crosses pool slots of different bricks (the
// walk up the pool pyramid to the next pair), the same triangles as above.
TEST_F(IsoSparse, LongExtractRunsMatchTheDensePathAndTheReference) {
    extractMinGroups = 1;
    expectSphereAndCayleyMatch();
}

// Too few bricks or slots: the frame reports what it needed and the
// overflow, writes only what fits (no validation message, no write past a
// buffer: the gpuav run checks the accesses), and the suggested capacities
// give the full surface.
TEST_F(IsoSparse, OverflowIsReportedBoundedAndSuggested) {
    const IsoSurfaceCreateInfo full = sparseInfo(kCayleyGlsl, {61, 45, 38}, 34.65f, NormalMode::Central);
    auto reference = make(full);
    ASSERT_TRUE(reference);
    frame(*reference);
    const auto want = reference->statsOfFrame(0);
    ASSERT_TRUE(want.has_value());
    ASSERT_FALSE(want->overflow);
    ASSERT_GT(want->sparseRowPairsNeeded, 100u);
    auto fullVerts = reference->readVertices();
    ASSERT_TRUE(fullVerts.ok());
    const float tol = ref::positionTolerance(referenceGridOf(full));

    struct Short {
        const char* what;
        uint32_t bricks, pairs;
    };
    // A short list, and a pool of one slot (the smallest pool pyramid: 16 cells, 3 levels).
    for (const Short& c : {Short{"3 bricks", 3u, full.sparse.maxRowPairs}, Short{"one slot", 5000u, 1u}}) {
        SCOPED_TRACE(c.what);
        IsoSurfaceCreateInfo info = full;
        info.sparse.maxBricks = c.bricks;
        info.sparse.maxRowPairs = c.pairs;
        auto s = make(info);
        ASSERT_TRUE(s);
        frame(*s);
        frame(*s);
        const auto stats = s->statsOfFrame(1);
        ASSERT_TRUE(stats.has_value());
        EXPECT_TRUE(stats->overflow);
        EXPECT_EQ(stats->sparseBricksNeeded, want->sparseBricksNeeded);
        // Pairs of unlisted bricks are never classified: a lower bound then.
        if (c.bricks >= want->sparseBricksNeeded)
            EXPECT_EQ(stats->sparseRowPairsNeeded, want->sparseRowPairsNeeded);
        else
            EXPECT_LT(stats->sparseRowPairsNeeded, want->sparseRowPairsNeeded);
        EXPECT_LT(stats->verticesWritten, want->verticesWritten);
        EXPECT_EQ(stats->verticesWritten % 3, 0u);
        // What was written is part of the surface.
        auto v = s->readVertices();
        ASSERT_TRUE(v.ok());
        ASSERT_EQ(v.value().size(), stats->verticesWritten);
        std::vector<std::array<float, 3>> fullPositions;
        for (const IsoVertexData& x : fullVerts.value())
            fullPositions.push_back({x.position[0], x.position[1], x.position[2]});
        std::sort(fullPositions.begin(), fullPositions.end());
        for (const IsoVertexData& x : v.value()) {
            const std::array<float, 3> p{x.position[0], x.position[1], x.position[2]};
            auto it = std::lower_bound(fullPositions.begin(), fullPositions.end(),
                                       std::array<float, 3>{p[0] - tol, p[1] - tol, p[2] - tol});
            bool found = false;
            for (; it != fullPositions.end() && (*it)[0] <= p[0] + tol && !found; ++it)
                found = std::fabs((*it)[1] - p[1]) <= tol && std::fabs((*it)[2] - p[2]) <= tol;
            ASSERT_TRUE(found) << "a vertex that is not on the surface";
        }
        // The suggestion holds the whole surface.
        IsoSurfaceCreateInfo suggested = full;
        suggested.sparse = suggestSparseCapacity(*stats);
        // The pairs of bricks that were not listed were not counted: a
        // second suggestion from the first suggestion's frame settles it.
        for (int round = 0; round < 2; ++round) {
            auto t = make(suggested);
            ASSERT_TRUE(t);
            frame(*t);
            const auto st = t->statsOfFrame(0);
            ASSERT_TRUE(st.has_value());
            if (!st->overflow) {
                EXPECT_EQ(st->verticesWritten, want->verticesWritten);
                auto tv = t->readVertices();
                ASSERT_TRUE(tv.ok());
                EXPECT_EQ(ref::compareTriangleSets(toRef(fullVerts.value()), toRef(tv.value()), tol, 1e-3f), "");
                break;
            }
            ASSERT_EQ(round, 0) << "the second suggestion still overflows";
            suggested.sparse = suggestSparseCapacity(*st);
        }
    }
}

// A sparse domain of metaballs or particles on `n` samples, capacities to spare.
IsoSurfaceCreateInfo sparseItemInfo(FieldSource source, std::array<uint32_t, 3> n, NormalMode normals) {
    IsoSurfaceCreateInfo info;
    info.samples = n;
    info.source = source;
    info.vertexCapacity = 300000;
    info.normals = normals;
    info.sparse.enabled = true;
    info.sparse.maxBricks = 20000;
    info.sparse.maxRowPairs = 100000;
    return info;
}

IsoSurfaceCreateInfo sparseMetaballInfo(std::array<uint32_t, 3> n, NormalMode normals) {
    IsoSurfaceCreateInfo info = sparseItemInfo(FieldSource::Metaballs, n, normals);
    info.maxBalls = 200;
    info.isoValue = 0.35f;
    info.sparse.maxItemRefs = 400000;
    return info;
}

// Uniform numbers in [0, 1) from a seed (an LCG): the same scenes everywhere.
struct Lcg {
    uint32_t state;
    float next() {
        state = state * 1664525u + 1013904223u;
        return float(state >> 8) / float(1u << 24);
    }
};

// `count` balls of radius 0.15..0.45 spread over [-1.1, 1.1]^3 (past the
// grid's [-1, 1] too), strength 0.6..1.4, every fifth one negative.
std::vector<Metaball> scatteredBalls(uint32_t count, uint32_t seed, float shift = 0.f) {
    std::vector<Metaball> balls;
    Lcg rng{seed};
    const auto next = [&rng] { return rng.next(); };
    for (uint32_t i = 0; i < count; ++i) {
        Metaball b{};
        b.center = {-1.1f + 2.2f * next() + shift, -1.1f + 2.2f * next(), -1.1f + 2.2f * next() - shift};
        b.radius = 0.15f + 0.3f * next();
        b.strength = (0.6f + 0.8f * next()) * (i % 5 == 4 ? -1.f : 1.f);
        balls.push_back(b);
    }
    return balls;
}

// Metaballs and particles: a sparse domain against the dense path of the
// same source (its field buffer read back for the CPU reference), frame by
// frame: `feed(surface, f)` sets frame f's items. Triangles against both,
// stats against the reference's cut cells, and every listed brick lists at
// least one item.
template <typename Item>
void IsoSparse::expectItemFramesMatch(const IsoSurfaceCreateInfo& info, const std::vector<std::vector<Item>>& frames,
                                      size_t minVertices) {
    const auto feed = [](IsoSurface& s, const std::vector<Item>& items) {
        if constexpr (std::is_same_v<Item, Metaball>)
            return s.setMetaballs(items);
        else
            return s.setParticles(items);
    };
    IsoSurfaceCreateInfo denseInfo = info;
    denseInfo.sparse = {};
    auto dense = make(denseInfo);
    auto sparse = make(info);
    ASSERT_TRUE(dense && sparse);
    // Metaballs on a grid that fits evaluate only the tiles their listed
    // bricks read: the reference marches a twin's field of every sample.
    std::unique_ptr<IsoSurface> full;
    if constexpr (std::is_same_v<Item, Metaball>) {
        full = make(denseInfo, {.denseField = true});
        ASSERT_TRUE(full);
    }
    for (size_t f = 0; f < frames.size(); ++f) {
        SCOPED_TRACE("frame " + std::to_string(f));
        ASSERT_TRUE(feed(*dense, frames[f]).ok());
        ASSERT_TRUE(feed(*sparse, frames[f]).ok());
        frame(*dense);
        frame(*sparse);
        if (full) {
            ASSERT_TRUE(feed(*full, frames[f]).ok());
            frame(*full);
        }
        const auto stats = expectFrameMatches(info, full ? *full : *dense, *dense, *sparse, minVertices);
        ASSERT_TRUE(stats.has_value());
        // Every listed brick lists at least one item, at most all of them.
        EXPECT_GE(stats->sparseItemRefsNeeded, stats->sparseBricksNeeded);
        EXPECT_LE(stats->sparseItemRefsNeeded, uint64_t(stats->sparseBricksNeeded) * frames[f].size());
    }
}

// Metaballs and particles: `full` fits `items`; with `bricks` listed
// bricks and `refs` item references (0: the default) the frame reports the
// overflow and what it needed, writes only part of the surface, and the
// suggestion holds all of it. Bricks without items had no cut row pairs to
// count: the first suggestion's frame counts them, its suggestion settles it.
template <typename Item>
void IsoSparse::expectShortItemCapacitiesReported(const IsoSurfaceCreateInfo& full, const std::vector<Item>& items,
                                                  uint32_t bricks, uint32_t refs) {
    const auto feed = [&items](IsoSurface& s) {
        if constexpr (std::is_same_v<Item, Metaball>)
            return s.setMetaballs(items);
        else
            return s.setParticles(items);
    };
    auto reference = make(full);
    ASSERT_TRUE(reference);
    ASSERT_TRUE(feed(*reference).ok());
    frame(*reference);
    const auto want = reference->statsOfFrame(0);
    ASSERT_TRUE(want.has_value());
    ASSERT_FALSE(want->overflow);
    IsoSurfaceCreateInfo info = full;
    info.sparse.maxBricks = bricks;
    info.sparse.maxItemRefs = refs;
    auto s = make(info);
    ASSERT_TRUE(s);
    ASSERT_TRUE(feed(*s).ok());
    frame(*s);
    frame(*s);
    const auto stats = s->statsOfFrame(1);
    ASSERT_TRUE(stats.has_value());
    EXPECT_TRUE(stats->overflow);
    EXPECT_EQ(stats->sparseItemRefsNeeded, want->sparseItemRefsNeeded);
    EXPECT_EQ(stats->sparseBricksNeeded, want->sparseBricksNeeded);
    EXPECT_LT(stats->verticesWritten, want->verticesWritten);
    IsoSurfaceCreateInfo suggested = full;
    suggested.sparse = suggestSparseCapacity(*stats);
    EXPECT_GE(suggested.sparse.maxItemRefs, want->sparseItemRefsNeeded);
    for (int round = 0; round < 2; ++round) {
        auto t = make(suggested);
        ASSERT_TRUE(t);
        ASSERT_TRUE(feed(*t).ok());
        frame(*t);
        const auto st = t->statsOfFrame(0);
        ASSERT_TRUE(st.has_value());
        if (!st->overflow) {
            EXPECT_EQ(st->verticesWritten, want->verticesWritten);
            break;
        }
        ASSERT_EQ(round, 0) << "the second suggestion still overflows";
        suggested.sparse = suggestSparseCapacity(*st);
    }
}

using IsoSparseMetaballs = IsoSparse;
using IsoSparseParticles = IsoSparse;

TEST_F(IsoSparseMetaballs, MatchTheDensePathAndTheReference) {
    {
        // Moving balls: each frame reads its own slot of the ball ring.
        SCOPED_TRACE("12 balls, 3 frames, 41x37x45, central normals");
        std::vector<std::vector<Metaball>> frames;
        for (int f = 0; f < 3; ++f) frames.push_back(scatteredBalls(12, 7u, 0.07f * float(f)));
        expectItemFramesMatch(sparseMetaballInfo({41, 37, 45}, NormalMode::Central), frames);
    }
    {
        // Past kIsoRowBalls: the dense field pass culls per tile; the sparse
        // lists per brick. Several super-bricks, short last bricks.
        SCOPED_TRACE("150 balls, 131x71x141, Sobel normals");
        IsoSurfaceCreateInfo info = sparseMetaballInfo({131, 71, 141}, NormalMode::Sobel);
        info.boundsMin = {-1.f, -0.6f, -1.1f};
        info.boundsMax = {1.2f, 0.7f, 1.f};
        std::vector<Metaball> balls = scatteredBalls(150, 11u);
        for (Metaball& b : balls) b.radius *= 0.6f;
        expectItemFramesMatch<Metaball>(info, {balls});
    }
    {
        // NaN centre, radius and strength: the dense field's NaN samples
        // (sanitized: outside) and the balls that add nothing.
        SCOPED_TRACE("NaN balls, 30x33x29, forward normals");
        std::vector<Metaball> balls = scatteredBalls(10, 3u);
        const float nan = std::nanf("");
        balls[1].center[0] = nan;
        balls[2].radius = nan;
        balls[3].strength = nan;
        balls[4].radius = 0.f;
        expectItemFramesMatch<Metaball>(sparseMetaballInfo({30, 33, 29}, NormalMode::Forward), {balls}, 100);
    }
    {
        SCOPED_TRACE("no balls: nothing listed");
        auto s = make(sparseMetaballInfo({20, 20, 20}, NormalMode::Central));
        ASSERT_TRUE(s);
        frame(*s);
        const auto stats = s->statsOfFrame(0);
        ASSERT_TRUE(stats.has_value());
        EXPECT_FALSE(stats->overflow);
        EXPECT_EQ(stats->sparseBricksNeeded, 0u);
        EXPECT_EQ(stats->verticesNeeded, 0u);
    }
}

// Too few ball references: the bricks past them get no balls (no
// triangles), the frame reports the overflow and what it needed, and the
// suggestion holds the whole surface.
// Capacities 0 on a sparse domain: it starts at 2 bricks (16 row pairs, 8
// ball references) and 30 vertices, overflows, grows at the frame
// boundaries (the surface planned again) until a frame fits, and that
// frame matches the CPU reference and the dense path; a user field with a
// Lipschitz bound and metaballs.
TEST_F(IsoSparse, CapacitiesGrowToTheReference) {
    for (const bool balls : {false, true}) {
        SCOPED_TRACE(balls ? "metaballs" : "user field");
        IsoSurfaceCreateInfo info = balls ? sparseMetaballInfo({33, 30, 28}, NormalMode::Central)
                                          : sparseInfo(kMovingSphereGlsl, {37, 50, 23}, 1.f, NormalMode::Central);
        info.vertexCapacity = 0;
        info.sparse.maxBricks = info.sparse.maxRowPairs = info.sparse.maxItemRefs = 0;
        const std::vector<Metaball> scene = scatteredBalls(24, 5);
        const std::array<float, 8> params = {0.1f, -0.1f, 0.05f, 0.45f, 0.3f, 0, 0, 0};
        const auto feed = [&](IsoSurface& s) {
            if (balls) return s.setMetaballs(scene);
            s.setUserParams(params);
            return Status{};
        };
        auto sparse = make(info, {.startOutputCapacity = 30, .startSparseBricks = 2});
        ASSERT_TRUE(sparse);
        EXPECT_EQ(sparse->sparseDomain().maxBricks, 2u);
        ASSERT_OK(feed(*sparse));
        uint32_t growths = 0;
        std::vector<IsoStats> stats; // each frame's, read once it finished
        for (uint32_t f = 0; f < 16; ++f) {
            frame(*sparse);
            const auto st = sparse->statsOfFrame(f);
            ASSERT_TRUE(st.has_value());
            stats.push_back(*st);
            // The frames before the growth keep their stats (the replaced surface's ring).
            if (f == info.framesInFlight + 1) {
                EXPECT_TRUE(st->grown);
                const auto before = sparse->statsOfFrame(0);
                ASSERT_TRUE(before.has_value());
                EXPECT_EQ(before->sparseBrickCapacity, 2u);
            }
            if (st->grown) {
                ++growths;
                EXPECT_LT(st->grownAfterFrame, f);
                EXPECT_GE(st->sparseBrickCapacity, st->previousSparseBrickCapacity);
            }
            if (f > info.framesInFlight && !st->overflow) break;
        }
        EXPECT_GE(growths, 1u);
        EXPECT_GT(sparse->sparseDomain().maxBricks, 2u);
        const auto last = sparse->statsOfFrame(sparse->framesRecorded() - 1);
        ASSERT_TRUE(last.has_value());
        ASSERT_FALSE(last->overflow);
        EXPECT_EQ(last->sparseBrickCapacity, sparse->sparseDomain().maxBricks);
        EXPECT_TRUE(stats[0].overflow);
        EXPECT_EQ(stats[0].sparseBrickCapacity, 2u);
        // The grown surface against the reference (a buffer twin's field) and the dense path.
        IsoSurfaceCreateInfo denseInfo = info;
        denseInfo.sparse = {};
        denseInfo.vertexCapacity = 300000;
        IsoSurfaceCreateInfo bufferInfo = denseInfo;
        if (!balls) bufferInfo.lipschitz = 0.f;
        auto dense = make(denseInfo, {.fieldEvaluation = balls ? FieldEvaluation::Auto : FieldEvaluation::Fused});
        auto buffer = make(bufferInfo, {.fieldEvaluation = balls ? FieldEvaluation::Auto : FieldEvaluation::Buffer,
                                        .denseField = true});
        ASSERT_TRUE(dense && buffer);
        for (IsoSurface* s : {dense.get(), buffer.get()}) {
            ASSERT_OK(feed(*s));
            frame(*s);
        }
        expectFrameMatches(info, *buffer, *dense, *sparse, 300);
    }
}

// A need past what a capacity may reach goes there in a growth or two, not
// step by step. Bricks capped below the need: the row pairs grow to what
// the listed bricks need (they used to double every few frames while the
// list stayed short). A budget below the need: the counted needs first
// (the guessed ones do not fit), then as far as the budget holds; it says
// so once (naming memoryBudget) and stays, its frames bounded and reported.
TEST_F(IsoSparse, ANeedPastALimitIsReachedInAFewGrowths) {
    const std::vector<Metaball> scene = scatteredBalls(24, 5);
    // Runs `frames` frames; the frames whose stats say a growth, and the errors.
    struct Run {
        uint32_t growths = 0, errors = 0;
        std::vector<IsoStats> stats;
    };
    const auto runFrames = [&](IsoSurface& s, uint32_t frames) {
        Run r;
        for (uint32_t f = 0; f < frames; ++f) {
            Status rec;
            EXPECT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) { rec = s.record(cmd); }));
            if (!rec) {
                ++r.errors;
                EXPECT_EQ(rec.code(), ErrorCode::CapacityExceeded) << rec.message();
                EXPECT_NE(rec.message().find("memoryBudget"), std::string::npos) << rec.message();
                continue;
            }
            const auto st = s.statsOfFrame(s.framesRecorded() - 1);
            EXPECT_TRUE(st.has_value());
            if (!st) break;
            r.growths += st->grown ? 1 : 0;
            r.stats.push_back(*st);
        }
        return r;
    };
    {
        SCOPED_TRACE("bricks capped");
        IsoSurfaceCreateInfo info = sparseMetaballInfo({41, 37, 45}, NormalMode::Central);
        info.sparse.maxBricks = 12; // fewer than the surface needs: a hard cap
        info.sparse.maxRowPairs = 0;
        auto s = make(info, {.startSparseBricks = 2}); // 16 row pairs to start
        ASSERT_TRUE(s);
        ASSERT_OK(s->setMetaballs(scene));
        const Run r = runFrames(*s, 15);
        ASSERT_EQ(r.stats.size(), 15u);
        EXPECT_EQ(r.errors, 0u);
        // Once to the need (a quarter above it), once more where another
        // frame's twelve bricks (which ones list first varies) pass 90% of it.
        EXPECT_GE(r.growths, 1u);
        EXPECT_LE(r.growths, 2u);
        const IsoStats& last = r.stats.back();
        EXPECT_GT(last.sparseBricksNeeded, 12u);
        EXPECT_EQ(last.sparseBrickCapacity, 12u);
        EXPECT_EQ(last.overflowed, kOverflowSparseBricks) << "only the capped bricks short";
        EXPECT_LE(last.sparseRowPairCapacity, 12u * 32u) << "no more row pairs than twelve bricks hold";
        // No crawl: the row-pair capacity changes only in the frames that grew
        // (which frame lists the fuller twelve bricks varies from run to run).
        uint32_t capacityChanges = 0;
        for (size_t f = 1; f < r.stats.size(); ++f)
            capacityChanges += r.stats[f].sparseRowPairCapacity != r.stats[f - 1].sparseRowPairCapacity ? 1 : 0;
        EXPECT_LE(capacityChanges, r.growths) << "and no crawl";
    }
    {
        SCOPED_TRACE("a budget below the need");
        IsoSurfaceCreateInfo info = sparseMetaballInfo({41, 37, 45}, NormalMode::Central);
        info.vertexCapacity = 0;
        info.sparse.maxBricks = info.sparse.maxRowPairs = info.sparse.maxItemRefs = 0;
        const iso::testing::Knobs knobs{.startOutputCapacity = 30, .startSparseBricks = 2};
        // What the starting surface takes, and the grown one without a budget.
        uint64_t start = 0, grown = 0;
        {
            auto free = make(info, knobs);
            ASSERT_TRUE(free);
            for (const auto& item : free->memoryReport()) start += item.bytes;
            ASSERT_OK(free->setMetaballs(scene));
            const Run r = runFrames(*free, 10);
            ASSERT_FALSE(r.stats.empty());
            ASSERT_FALSE(r.stats.back().overflow);
            for (const auto& item : free->memoryReport())
                if (item.name != "replaced") grown += item.bytes;
        }
        ASSERT_GT(grown, start);
        info.memoryBudget = start + (grown - start) / 5;
        auto s = make(info, knobs);
        ASSERT_TRUE(s);
        ASSERT_OK(s->setMetaballs(scene));
        const Run r = runFrames(*s, 12);
        EXPECT_EQ(r.errors, 1u) << "said once";
        EXPECT_GE(r.growths, 1u);
        EXPECT_LE(r.growths, 3u);
        ASSERT_GE(r.stats.size(), 8u);
        const IsoStats& last = r.stats.back();
        EXPECT_TRUE(last.overflow) << "the budget does not hold the surface";
        EXPECT_GT(last.sparseBrickCapacity, 2u) << "grown as far as the budget holds";
        EXPECT_EQ(last.sparseBrickCapacity, r.stats[r.stats.size() - 4].sparseBrickCapacity) << "and stays";
        uint64_t held = 0;
        for (const auto& item : s->memoryReport())
            if (item.name != "replaced") held += item.bytes;
        EXPECT_LE(held, info.memoryBudget);
    }
}

TEST_F(IsoSparseMetaballs, BallReferencesRunningOutAreReportedBoundedAndSuggested) {
    const IsoSurfaceCreateInfo full = sparseMetaballInfo({41, 37, 45}, NormalMode::Central);
    expectShortItemCapacitiesReported(full, scatteredBalls(12, 7u), full.sparse.maxBricks, 20u);
}

IsoSurfaceCreateInfo sparseParticleInfo(std::array<uint32_t, 3> n, NormalMode normals) {
    IsoSurfaceCreateInfo info = sparseItemInfo(FieldSource::Particles, n, normals);
    info.maxParticles = 6000;
    info.particleRadius = 0.11f;
    info.isoValue = 0.5f;
    info.sparse.maxItemRefs = 2000000;
    return info;
}

// `count` particles in a few clouds (some past the grid), weights 0.2..0.5,
// and one of weight 0 (the kernel sum skips it).
std::vector<Particle> clusteredParticles(uint32_t count, uint32_t seed, float shift = 0.f) {
    std::vector<Particle> out;
    Lcg rng{seed};
    const auto next = [&rng] { return rng.next(); };
    const float centres[4][3] = {{-0.5f, 0.3f, 0.1f}, {0.45f, -0.35f, -0.3f}, {0.1f, 0.2f, 0.7f}, {0.9f, 0.9f, -0.95f}};
    for (uint32_t i = 0; i < count; ++i) {
        const float* c = centres[i % 4];
        const float spread = 0.12f + 0.1f * float(i % 3);
        Particle p{};
        p.position = {c[0] + shift + spread * (2.f * next() - 1.f), c[1] + spread * (2.f * next() - 1.f),
                      c[2] - shift + spread * (2.f * next() - 1.f)};
        p.weight = 0.2f + 0.3f * next();
        out.push_back(p);
    }
    out.push_back({{0.1f, 0.1f, 0.1f}, 0.f}); // adds nothing, lists nothing
    return out;
}

TEST_F(IsoSparseParticles, MatchTheDensePathAndTheReference) {
    {
        SCOPED_TRACE("2000 particles, 2 frames, 41x37x45, central normals");
        expectItemFramesMatch<Particle>(sparseParticleInfo({41, 37, 45}, NormalMode::Central),
                                        {clusteredParticles(2000, 5u), clusteredParticles(2000, 5u, 0.06f)});
    }
    {
        // Several super-bricks, short last bricks; a kernel of ~7 cells.
        // Sobel normals read 54 samples a vertex end: with ~100 particles a
        // brick, a loop per sample passed lavapipe's 65535 loop iterations
        // per invocation and left vertices unwritten (now a block per vertex).
        SCOPED_TRACE("4000 particles, 131x71x141, Sobel normals");
        IsoSurfaceCreateInfo info = sparseParticleInfo({131, 71, 141}, NormalMode::Sobel);
        info.boundsMin = {-1.f, -0.6f, -1.1f};
        info.boundsMax = {1.2f, 0.7f, 1.f};
        expectItemFramesMatch<Particle>(info, {clusteredParticles(4000, 9u)});
    }
}

// Too few references, then too few bricks: reported, bounded, suggested.
TEST_F(IsoSparseParticles, CapacitiesRunningOutAreReportedBoundedAndSuggested) {
    const IsoSurfaceCreateInfo full = sparseParticleInfo({41, 37, 45}, NormalMode::Central);
    const std::vector<Particle> particles = clusteredParticles(2000, 5u);
    {
        SCOPED_TRACE("30 references");
        expectShortItemCapacitiesReported(full, particles, full.sparse.maxBricks, 30u);
    }
    {
        SCOPED_TRACE("5 bricks");
        expectShortItemCapacitiesReported(full, particles, 5u, 0u);
    }
}

// Every capacity short at once on one surface of each source (a user field
// with a Lipschitz bound, metaballs, particles): a brick list of 6, a pool
// of 9 row pairs, 40 item references and 60 vertices. Two frames on the
// same buffers: each reports the overflow and what it needed, writes whole
// triangles within the capacity, and every vertex it wrote lies in the grid.
// One surface a source: the GPU-assisted validation run's sparse overflow
// case (a surface's shader compile is what costs there).
TEST_F(IsoSparse, EveryCapacityShortInOneSurface) {
    for (const FieldSource source : {FieldSource::UserGlsl, FieldSource::Metaballs, FieldSource::Particles}) {
        SCOPED_TRACE(source == FieldSource::UserGlsl    ? "user field"
                     : source == FieldSource::Metaballs ? "metaballs"
                                                        : "particles");
        IsoSurfaceCreateInfo info =
            source == FieldSource::UserGlsl    ? sparseInfo(kCayleyGlsl, {33, 29, 31}, 34.65f, NormalMode::Central)
            : source == FieldSource::Metaballs ? sparseMetaballInfo({33, 29, 31}, NormalMode::Sobel)
                                               : sparseParticleInfo({33, 29, 31}, NormalMode::Sobel);
        info.sparse.maxBricks = 6;
        info.sparse.maxRowPairs = 9;
        if (source != FieldSource::UserGlsl) info.sparse.maxItemRefs = 40;
        info.vertexCapacity = 60;
        auto s = make(info);
        ASSERT_TRUE(s);
        if (source == FieldSource::Metaballs) ASSERT_OK(s->setMetaballs(scatteredBalls(12, 7u)));
        if (source == FieldSource::Particles) ASSERT_OK(s->setParticles(clusteredParticles(2000, 5u)));
        for (uint32_t f = 0; f < 2; ++f) {
            frame(*s);
            const auto st = s->statsOfFrame(f);
            ASSERT_TRUE(st.has_value());
            EXPECT_TRUE(st->overflow);
            EXPECT_GT(st->sparseBricksNeeded, 6u);
            if (source != FieldSource::UserGlsl) EXPECT_GT(st->sparseItemRefsNeeded, 40u);
            // The stats name the capacities the frame ran short of.
            EXPECT_NE(st->overflowed & kOverflowSparseBricks, 0u);
            EXPECT_EQ(st->sparseItemRefCapacity, source == FieldSource::UserGlsl ? 0u : 40u);
            EXPECT_EQ((st->overflowed & kOverflowSparseItemRefs) != 0, source != FieldSource::UserGlsl);
            EXPECT_EQ((st->overflowed & kOverflowSparseRowPairs) != 0,
                      st->sparseRowPairsNeeded > st->sparseRowPairCapacity);
            EXPECT_LE(st->verticesWritten, 60u);
            EXPECT_EQ(st->verticesWritten % 3, 0u);
        }
        const auto st = s->statsOfFrame(1);
        auto v = s->readVertices();
        ASSERT_TRUE(v.ok()) << v.message();
        ASSERT_EQ(v.value().size(), st->verticesWritten);
        for (const IsoVertexData& x : v.value())
            for (int a = 0; a < 3; ++a) {
                ASSERT_TRUE(std::isfinite(x.position[a]));
                ASSERT_GE(x.position[a], info.boundsMin[a] - 1e-4f);
                ASSERT_LE(x.position[a], info.boundsMax[a] + 1e-4f);
            }
    }
}

// Capacities 0 with particles: the references start at the default a
// brick (2 bricks here, 512 references) and grow with the bricks and row
// pairs until a frame fits; that frame's triangles are the dense gather's,
// bit for bit (as a multiset: the pool writes in its own order).
std::vector<std::array<uint32_t, 24>> triangleBits(const std::vector<IsoVertexData>& v);
TEST_F(IsoSparseParticles, ReferencesGrowToTheDensePath) {
    IsoSurfaceCreateInfo info = sparseParticleInfo({41, 37, 45}, NormalMode::Central);
    info.vertexCapacity = 0;
    info.sparse.maxBricks = info.sparse.maxRowPairs = info.sparse.maxItemRefs = 0;
    // A wide kernel over dense clouds: bricks list more than the default.
    info.particleRadius = 0.3f;
    info.isoValue = 2.f;
    const std::vector<Particle> particles = clusteredParticles(4000, 5u);
    auto sparse = make(info, {.startOutputCapacity = 30, .startSparseBricks = 2});
    ASSERT_TRUE(sparse);
    ASSERT_OK(sparse->setParticles(particles));
    const auto first = sparse->sparseDomain();
    EXPECT_EQ(first.maxItemRefs, 2u * kDefaultSparseParticleRefsPerBrick);
    bool fits = false;
    for (uint32_t f = 0; f < 24 && !fits; ++f) {
        frame(*sparse);
        const auto st = sparse->statsOfFrame(f);
        ASSERT_TRUE(st.has_value());
        fits = f > info.framesInFlight && !st->overflow;
    }
    ASSERT_TRUE(fits) << "still overflowing after 24 frames";
    const auto last = sparse->statsOfFrame(sparse->framesRecorded() - 1);
    ASSERT_TRUE(last.has_value());
    EXPECT_GT(last->sparseItemRefsNeeded, last->sparseBricksNeeded * kDefaultSparseParticleRefsPerBrick);
    EXPECT_GE(sparse->sparseDomain().maxItemRefs, last->sparseItemRefsNeeded);

    IsoSurfaceCreateInfo denseInfo = info;
    denseInfo.sparse = {};
    denseInfo.vertexCapacity = 300000;
    auto dense = make(denseInfo, {.splat = SplatMethod::Gather});
    ASSERT_TRUE(dense);
    ASSERT_OK(dense->setParticles(particles));
    frame(*dense);
    auto want = dense->readVertices();
    auto got = sparse->readVertices();
    ASSERT_TRUE(want.ok() && got.ok());
    ASSERT_GT(want.value().size(), 1000u);
    EXPECT_EQ(triangleBits(got.value()), triangleBits(want.value()));
}

// Triangles as the bits of their three vertices (position with w, normal),
// sorted: the same multiset whatever the order the pool wrote them in.
std::vector<std::array<uint32_t, 24>> triangleBits(const std::vector<IsoVertexData>& v) {
    std::vector<std::array<uint32_t, 24>> out;
    for (size_t t = 0; t + 2 < v.size(); t += 3) {
        std::array<uint32_t, 24> bits{};
        std::memcpy(bits.data(), &v[t], sizeof(IsoVertexData) * 3);
        out.push_back(bits);
    }
    std::sort(out.begin(), out.end());
    return out;
}

IsoSparse::SparseAndDense IsoSparse::runSparseAndDense(const IsoSurfaceCreateInfo& info,
                                                       const std::vector<Particle>& particles,
                                                       iso::testing::Knobs denseKnobs) {
    IsoSurfaceCreateInfo denseInfo = info;
    denseInfo.sparse = {};
    auto sparse = make(info);
    auto dense = make(denseInfo, denseKnobs);
    EXPECT_TRUE(sparse && dense);
    SparseAndDense out;
    if (!sparse || !dense) return out;
    for (IsoSurface* s : {sparse.get(), dense.get()}) {
        EXPECT_OK(s->setParticles(particles));
        frame(*s);
    }
    const auto stats = sparse->statsOfFrame(0);
    EXPECT_TRUE(stats.has_value());
    if (stats) out.stats = *stats;
    auto v = sparse->readVertices();
    auto dv = dense->readVertices();
    EXPECT_TRUE(v.ok() && dv.ok());
    if (v.ok()) out.sparse = std::move(v).value();
    if (dv.ok()) out.dense = std::move(dv).value();
    return out;
}

void IsoSparse::expectKeptTrianglesAreTheDensePaths(const IsoSurfaceCreateInfo& info,
                                                    const std::vector<Particle>& particles,
                                                    const std::vector<std::array<uint32_t, 24>>& want) {
    auto cut = make(info);
    ASSERT_TRUE(cut);
    ASSERT_OK(cut->setParticles(particles));
    frame(*cut);
    const auto stats = cut->statsOfFrame(0);
    ASSERT_TRUE(stats.has_value());
    EXPECT_TRUE(stats->overflow);
    EXPECT_EQ(stats->sparseCrowdedBricks, 0u);
    auto v = cut->readVertices();
    ASSERT_TRUE(v.ok()) << v.message();
    const auto got = triangleBits(v.value());
    EXPECT_GT(got.size(), 0u);
    EXPECT_LT(got.size(), want.size());
    EXPECT_TRUE(std::includes(want.begin(), want.end(), got.begin(), got.end()))
        << "a kept triangle that is not the dense path's, bit for bit";
}

// The block pool (sparse_particles_blocks.comp): each listed brick's 11^3
// samples gathered into its block (interior) and copied from its
// neighbours' (border), every frame with no clear. Against the dense
// gather bit for bit (positions, cell triangle counts, Sobel normals, which
// read the whole block): over frames whose particles move (a sample a pass
// left unwritten keeps the previous frame's value), with the pool in one
// buffer, spread over four (the last one short) and read through storage
// buffers; and with too few bricks, where a listed brick whose neighbour
// has no block sums its border rows itself: the triangles kept are still
// the dense path's, bit for bit.
TEST_F(IsoSparseParticles, BlockPoolMatchesTheDensePathBitForBit) {
    IsoSurfaceCreateInfo info = sparseParticleInfo({131, 71, 141}, NormalMode::Sobel);
    info.boundsMin = {-1.f, -0.6f, -1.1f};
    info.boundsMax = {1.2f, 0.7f, 1.f};
    const std::vector<std::vector<Particle>> frames = {clusteredParticles(4000, 9u),
                                                       clusteredParticles(4000, 9u, 0.05f)};
    IsoSurfaceCreateInfo denseInfo = info;
    denseInfo.sparse = {};
    auto dense = make(denseInfo, {.splat = SplatMethod::Gather});
    ASSERT_TRUE(dense);
    std::vector<std::vector<std::array<uint32_t, 24>>> want;
    for (const auto& particles : frames) {
        ASSERT_TRUE(dense->setParticles(particles).ok());
        frame(*dense);
        auto v = dense->readVertices();
        ASSERT_TRUE(v.ok()) << v.message();
        want.push_back(triangleBits(v.value()));
        ASSERT_GT(want.back().size(), 1000u);
    }
    // The bricks the scene lists, for a pool of exactly that many blocks.
    uint32_t listed = 0;
    {
        auto probe = make(info);
        ASSERT_TRUE(probe);
        ASSERT_TRUE(probe->setParticles(frames[0]).ok());
        frame(*probe);
        const auto st = probe->statsOfFrame(0);
        ASSERT_TRUE(st.has_value());
        listed = std::max(st->sparseBricksNeeded, 1u);
        ASSERT_GT(listed, 100u);
    }
    struct Case {
        const char* name;
        uint32_t poolBricks; // Knobs::volumePoolBricks (0: one buffer)
        bool storage;
    };
    // The second frame may list a few more bricks.
    const uint32_t capacity = listed + listed / 4;
    for (const Case c : {Case{"one pool buffer", 0, false}, Case{"four pool buffers", (capacity + 3) / 4, false},
                         Case{"four pool buffers, storage reads", (capacity + 3) / 4, true}}) {
        SCOPED_TRACE(c.name);
        IsoSurfaceCreateInfo sized = info;
        sized.sparse.maxBricks = capacity;
        iso::testing::Knobs knobs;
        knobs.volumePoolBricks = c.poolBricks;
        knobs.storageReads = c.storage;
        auto sparse = make(sized, knobs);
        ASSERT_TRUE(sparse);
        const std::vector<IsoSurface::MemoryItem> memory = sparse->memoryReport();
        const auto pools = std::count_if(memory.begin(), memory.end(), [](const IsoSurface::MemoryItem& m) {
            return m.name.find("sparse particle blocks") != std::string::npos;
        });
        EXPECT_EQ(pools, c.poolBricks ? 4 : 1) << "pool buffers in memoryReport()";
        for (size_t f = 0; f < frames.size(); ++f) {
            SCOPED_TRACE("frame " + std::to_string(f));
            ASSERT_TRUE(sparse->setParticles(frames[f]).ok());
            frame(*sparse);
            const auto st = sparse->statsOfFrame(sparse->framesRecorded() - 1);
            ASSERT_TRUE(st.has_value());
            EXPECT_FALSE(st->overflow);
            auto v = sparse->readVertices();
            ASSERT_TRUE(v.ok()) << v.message();
            EXPECT_TRUE(triangleBits(v.value()) == want[f]) << "not the dense gather's triangles, bit for bit";
        }
    }
    {
        SCOPED_TRACE("a third of the bricks");
        IsoSurfaceCreateInfo shortList = info;
        shortList.sparse.maxBricks = listed / 3;
        expectKeptTrianglesAreTheDensePaths(shortList, frames[0], want[0]);
    }
}

TEST_F(IsoSparseParticles, BricksKeepTheirBlockSlotsFromFrameToFrame) {
    // An animated fluid must not re-pool every brick each frame: a brick
    // listed in consecutive frames keeps its block slot, the bricks that
    // leave free theirs and the new ones take free slots; slots stay
    // distinct and within maxBricks. Frames: a cluster, the same cluster
    // moved a little, the same again, a smaller cloud (most bricks leave),
    // then the first cluster back (freed slots taken again).
    IsoSurfaceCreateInfo info = sparseParticleInfo({131, 71, 141}, NormalMode::Central);
    info.boundsMin = {-1.f, -0.6f, -1.1f};
    info.boundsMax = {1.2f, 0.7f, 1.f};
    info.sparse.maxBricks = 4000;
    auto sparse = make(info);
    ASSERT_TRUE(sparse);
    const std::vector<std::vector<Particle>> frames = {
        clusteredParticles(4000, 9u), clusteredParticles(4000, 9u, 0.03f), clusteredParticles(4000, 9u, 0.03f),
        clusteredParticles(600, 4u), clusteredParticles(4000, 9u)};
    std::vector<iso::testing::BlockSlot> previous;
    for (size_t f = 0; f < frames.size(); ++f) {
        SCOPED_TRACE("frame " + std::to_string(f));
        ASSERT_TRUE(sparse->setParticles(frames[f]).ok());
        frame(*sparse);
        const auto st = sparse->statsOfFrame(sparse->framesRecorded() - 1);
        ASSERT_TRUE(st.has_value());
        ASSERT_FALSE(st->overflow);
        auto slots = iso::testing::readBlockSlots(*sparse);
        ASSERT_TRUE(slots.ok()) << slots.message();
        ASSERT_EQ(slots->size(), st->sparseBricksNeeded);
        ASSERT_GT(slots->size(), 20u);
        std::set<uint32_t> distinct;
        for (const auto& s : slots.value()) {
            EXPECT_LT(s.slot, info.sparse.maxBricks);
            distinct.insert(s.slot);
        }
        EXPECT_EQ(distinct.size(), slots->size()) << "two bricks share a block";
        size_t kept = 0, common = 0;
        for (const auto& s : slots.value()) {
            const auto it = std::lower_bound(previous.begin(), previous.end(), s.brick,
                                             [](const iso::testing::BlockSlot& a, uint32_t b) { return a.brick < b; });
            if (it == previous.end() || it->brick != s.brick) continue;
            ++common;
            kept += it->slot == s.slot ? 1u : 0u;
        }
        EXPECT_EQ(kept, common) << "a brick listed in consecutive frames moved to another block";
        if (f == 1 || f == 2) {
            EXPECT_GT(common, slots->size() / 2) << "the moved cluster shares most bricks";
        }
        if (f == 2) {
            EXPECT_EQ(common, slots->size()) << "the same particles: the same bricks";
        }
        previous = std::move(slots).value();
    }
}

// ParticleInput::GpuBuffer: the host's 32-byte records (mass at 12,
// position at 16) read where they lie, with particles the kernel sum
// skips (NaN or infinite coordinates and masses, masses <= 0): the same
// triangles as the dense path reading the same buffer.
TEST_F(IsoSparseParticles, GpuBufferRecordsMatchTheDensePath) {
    struct Record {
        float pad0[3];
        float mass;
        float position[3];
        float pad1;
    };
    std::vector<Record> records;
    for (const Particle& p : clusteredParticles(2000, 5u))
        records.push_back({{0, 0, 0}, p.weight, {p.position[0], p.position[1], p.position[2]}, 0});
    const float nan = std::nanf(""), inf = std::numeric_limits<float>::infinity();
    records[3].position[0] = nan;
    records[10].position[2] = -inf;
    records[17].mass = nan;
    records[20].mass = inf;
    records[41].mass = -0.5f;
    auto buffer = device().allocator().createBuffer(
        {.size = records.size() * sizeof(Record),
         .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
         .memory = MemoryUsage::DeviceLocal,
         .name = "host.particles"});
    ASSERT_TRUE(buffer.ok()) << buffer.message();
    ASSERT_TRUE(uploadBuffer(device(), buffer.value(), records.data(), records.size() * sizeof(Record)).ok());
    IsoSurfaceCreateInfo info = sparseParticleInfo({41, 37, 45}, NormalMode::Central);
    info.maxParticles = uint32_t(records.size());
    info.particleInput = ParticleInput::GpuBuffer;
    info.particleBuffer = &buffer.value();
    info.particleStride = sizeof(Record);
    info.particlePositionOffset = offsetof(Record, position);
    info.particleWeightOffset = offsetof(Record, mass);
    IsoSurfaceCreateInfo denseInfo = info;
    denseInfo.sparse = {};
    auto dense = make(denseInfo);
    auto sparse = make(info);
    ASSERT_TRUE(dense && sparse);
    for (IsoSurface* s : {dense.get(), sparse.get()}) {
        ASSERT_TRUE(s->setParticleCount(uint32_t(records.size())).ok());
        frame(*s);
    }
    expectFrameMatches(info, *dense, *dense, *sparse, 300);
}

// Bricks whose lists are long: 9,000 particles inside one brick (more than
// the 8,192 items a metaball brick may list, and the 3,840 the per-particle
// passes on bricks once sorted in shared memory: such bricks were crowded,
// left empty), and a lone cluster. The neighbour-count kernel, and SPH with
// anisotropic kernels (the density and the kernels' passes): no overflow,
// no crowded brick, and the dense path's vertices bit for bit.
TEST_F(IsoSparseParticles, LongBrickListsAreTheDensePathsBitForBit) {
    std::vector<Particle> particles;
    Lcg rng{3u};
    // Cells 8..15 on each axis: [-0.5, -0.0625].
    for (uint32_t i = 0; i < 9000; ++i)
        particles.push_back(
            {{-0.45f + 0.35f * rng.next(), -0.45f + 0.35f * rng.next(), -0.45f + 0.35f * rng.next()}, 0.3f});
    for (uint32_t i = 0; i < 300; ++i)
        particles.push_back({{0.6f + 0.1f * rng.next(), 0.6f + 0.1f * rng.next(), 0.6f + 0.1f * rng.next()}, 0.3f});
    for (const int mode : {0, 2}) {
        SCOPED_TRACE(mode == 0 ? "neighbour count" : "SPH, anisotropic");
        IsoSurfaceCreateInfo info = sparseParticleInfo({33, 33, 33}, NormalMode::Central);
        info.maxParticles = 12000;
        info.particleRadius = 0.07f;
        info.sparse.maxItemRefs = 4000000;
        info.vertexCapacity = 600000;
        if (mode != 0) {
            info.particleKernel = ParticleKernel::SphCubicSpline;
            info.isoValue = 0.6f;
        }
        info.anisotropic.enabled = mode == 2;
        const SparseAndDense run = runSparseAndDense(info, particles);
        EXPECT_FALSE(run.stats.overflow);
        EXPECT_EQ(run.stats.sparseCrowdedBricks, 0u);
        EXPECT_GT(run.stats.sparseItemRefsNeeded, 9000u) << "the brick holding the 9,000 lists them all";
        ASSERT_GT(run.dense.size(), 1000u);
        const auto positions = [](const std::vector<IsoVertexData>& vs) {
            std::multiset<std::array<float, 3>> out;
            for (const IsoVertexData& x : vs) out.insert({x.position[0], x.position[1], x.position[2]});
            return out;
        };
        EXPECT_TRUE(positions(run.sparse) == positions(run.dense)) << "not the dense path's vertices";
    }
}

// A dense cluster: 150,000 particles in a ball of radius 0.05 (1.6 cells;
// thousands of particles a cell) around the corner of 8 bricks: each lists
// about all of them, more than the 65,535 particles a thread may loop over
// on lavapipe, and their sub-cells' runs end past 2^16. No crowded brick, no overflow, and the
// dense scatter's triangles bit for bit (the scatter takes a thread a
// particle; the dense gather's tiles would loop over the whole cluster).
TEST_F(IsoSparseParticles, ADenseClusterPastAThreadsLoopIsTheDensePathsBitForBit) {
    constexpr uint32_t kCount = 150000;
    std::vector<Particle> particles;
    particles.reserve(kCount);
    Lcg rng{11u};
    // Bricks 1 and 2 of each axis meet at cell 16: -0.5.
    while (particles.size() < kCount) {
        const float x = 2.f * rng.next() - 1.f, y = 2.f * rng.next() - 1.f, z = 2.f * rng.next() - 1.f;
        if (x * x + y * y + z * z > 1.f) continue;
        particles.push_back({{-0.5f + 0.05f * x, -0.5f + 0.05f * y, -0.5f + 0.05f * z}, 0.001f});
    }
    IsoSurfaceCreateInfo info = sparseParticleInfo({65, 65, 65}, NormalMode::Central);
    info.maxParticles = kCount;
    info.particleRadius = 0.09f;
    info.sparse.maxItemRefs = 16 * kCount;
    info.vertexCapacity = 200000;
    const SparseAndDense run = runSparseAndDense(info, particles, {.splat = SplatMethod::Scatter});
    EXPECT_FALSE(run.stats.overflow);
    EXPECT_EQ(run.stats.sparseCrowdedBricks, 0u);
    EXPECT_GE(run.stats.sparseItemRefsNeeded, kCount) << "the brick holding the cluster lists it all";
    const auto want = triangleBits(run.dense);
    ASSERT_GT(want.size(), 200u);
    EXPECT_TRUE(triangleBits(run.sparse) == want) << "not the dense scatter's triangles, bit for bit";
    // Half the bricks: the border pass's threads share the 150k lists.
    IsoSurfaceCreateInfo half = info;
    half.sparse.maxBricks = run.stats.sparseBricksNeeded / 2;
    expectKeptTrianglesAreTheDensePaths(half, particles, want);
}

// A 2047^3 virtual grid (8.6 G cells: 34 GB as a dense float field, past
// any one buffer) holding a small off-centre sphere: watertight, outward,
// on the sphere, the CPU reference's triangles over a window of the grid
// (sampled at the global sample positions), and resident memory that
// follows the surface.
TEST_F(IsoSparse, LargeVirtualGridKeepsOnlyTheSurface) {
    constexpr float kRadius = 0.03f;
    const std::array<float, 3> centre{0.31f, -0.22f, 0.47f};
    IsoSurfaceCreateInfo info =
        sparseInfo("float field(vec3 p) { return iso_params[0].w - length(p - iso_params[0].xyz); }\n",
                   {2048, 2048, 2048}, 1.f, NormalMode::Central);
    info.sparse.maxBricks = 4096;
    info.sparse.maxRowPairs = 65536;
    info.vertexCapacity = 400000;
    auto s = make(info);
    ASSERT_TRUE(s);
    s->setUserParams({centre[0], centre[1], centre[2], kRadius, 0, 0, 0, 0});
    frame(*s);
    const auto stats = s->statsOfFrame(0);
    ASSERT_TRUE(stats.has_value());
    EXPECT_FALSE(stats->overflow);
    auto v = s->readVertices();
    ASSERT_TRUE(v.ok());
    const auto tris = toRef(v.value());
    ASSERT_GT(tris.size(), 3000u);
    size_t misoriented = 0;
    EXPECT_EQ(ref::openEdges(tris, &misoriented), 0u);
    EXPECT_EQ(misoriented, 0u);
    const float h = 2.f / 2047.f;
    for (const ref::Vertex& x : tris) {
        const float d =
            std::sqrt((x.p[0] - centre[0]) * (x.p[0] - centre[0]) + (x.p[1] - centre[1]) * (x.p[1] - centre[1]) +
                      (x.p[2] - centre[2]) * (x.p[2] - centre[2]));
        ASSERT_NEAR(d, kRadius, h) << "a vertex off the sphere";
    }
    // The reference over the window of samples around the sphere, each at its
    // global position min + i * spacing (the module's float arithmetic).
    const float spacing = 2.f / float(2047);
    std::array<uint32_t, 3> lo{}, n{};
    for (int a = 0; a < 3; ++a) {
        lo[a] = uint32_t(std::floor((centre[a] - kRadius + 1.f) / spacing)) - 3;
        n[a] = uint32_t(std::ceil(2.f * kRadius / spacing)) + 8;
    }
    ref::Grid g;
    for (int a = 0; a < 3; ++a) {
        g.n[a] = n[a];
        g.min[a] = -1.f + float(lo[a]) * spacing;
        g.max[a] = -1.f + float(lo[a] + n[a] - 1) * spacing;
    }
    std::vector<float> field(g.samples());
    for (uint32_t z = 0; z < n[2]; ++z)
        for (uint32_t y = 0; y < n[1]; ++y)
            for (uint32_t x = 0; x < n[0]; ++x) {
                const float px = -1.f + float(lo[0] + x) * spacing, py = -1.f + float(lo[1] + y) * spacing,
                            pz = -1.f + float(lo[2] + z) * spacing;
                const float dx = px - centre[0], dy = py - centre[1], dz = pz - centre[2];
                field[g.index(x, y, z)] = kRadius - std::sqrt(dx * dx + dy * dy + dz * dz);
            }
    const ref::McResult cpu = ref::marchingCubes(g, field.data(), 0.f, ref::Normals::Central);
    EXPECT_EQ(stats->verticesNeeded, cpu.vertices.size());
    EXPECT_EQ(ref::compareTriangleSets(cpu.vertices, tris, 4.f * ref::positionTolerance(g), 2e-2f), "");
    // Memory follows the surface: everything but the vertex buffer is the
    // brick list, the slot records, classify's slot stage (16 bytes a slot)
    // and the pool's pyramid (~26 bytes a slot).
    uint64_t resident = 0;
    for (const IsoSurface::MemoryItem& m : s->memoryReport())
        if (m.name != "vertices") resident += m.bytes;
    EXPECT_LT(resident, uint64_t(65536) * 48 + (1u << 20)) << "resident bytes besides the vertices";
}

} // namespace
