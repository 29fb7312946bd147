// Indexed output on sparse domains (IsoSurfaceCreateInfo::sparse with
// indexed = true) on the validated shared device: for user GLSL fields,
// metaballs and particles, the dense indexed path's mesh (the same vertices,
// position and normal bit for bit as a set; the same triangles as triples of
// vertex positions; the same edge sharing, so watertight where the dense mesh
// is), and the CPU reference's triangles and cut edges; capacities that run
// out (vertices, indices, bricks, pool slots: reported, bounded,
// suggested); mesh smoothing refused at creation.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "iso_fixture.h"
#include "iso_reference_convert.h"
#include "isosurface/iso_shared.h"
#include "pyramarch/engine/shader_compiler.h"
#include "pyramarch/isosurface/isosurface.h"
#include "pyramarch/isosurface/testing.h"
#include "reference.h"
#include "reference_grid.h"

using namespace pyramarch;
using namespace pyramarch::iso;
// The measured variants (testing::Knobs).
using iso::testing::ExtractionMethod;
using iso::testing::FieldEvaluation;
using iso::testing::SplatMethod;

namespace {

using Bits3 = std::array<uint32_t, 3>; // a position's float bits
using Bits8 = std::array<uint32_t, 8>; // a vertex's bytes (position, normal)
using Triangle = std::array<Bits3, 3>; // a triangle as its corners' positions
using Edge = std::pair<Bits3, Bits3>;  // an undirected edge, ends ordered

Bits3 positionBits(const IsoVertexData& v) {
    Bits3 b{};
    std::memcpy(b.data(), v.position, sizeof(b));
    return b;
}

struct IndexedMesh {
    std::vector<IsoVertexData> vertices;
    std::vector<uint32_t> indices;
};

// What both paths must agree on, order aside.
struct MeshKey {
    std::vector<Bits8> vertices;     // sorted
    std::vector<Triangle> triangles; // sorted, each in its own vertex order
    std::map<Edge, int> edgeUses;    // triangles per edge
};

MeshKey keyOf(const IndexedMesh& m) {
    MeshKey k;
    for (const IsoVertexData& v : m.vertices) {
        Bits8 b{};
        std::memcpy(b.data(), &v, sizeof(b));
        k.vertices.push_back(b);
    }
    std::sort(k.vertices.begin(), k.vertices.end());
    for (size_t t = 0; t + 2 < m.indices.size(); t += 3) {
        Triangle tri{};
        for (int c = 0; c < 3; ++c) tri[c] = positionBits(m.vertices.at(m.indices[t + c]));
        k.triangles.push_back(tri);
        for (int e = 0; e < 3; ++e) {
            const Bits3 a = tri[e], b = tri[(e + 1) % 3];
            k.edgeUses[a < b ? Edge{a, b} : Edge{b, a}]++;
        }
    }
    std::sort(k.triangles.begin(), k.triangles.end());
    return k;
}

IsoSurfaceCreateInfo withIndexed(IsoSurfaceCreateInfo info) {
    info.indexed = true;
    info.vertexCapacity = 200000;
    info.indexCapacity = 600000;
    return info;
}

IsoSurfaceCreateInfo sparseUserInfo(const char* glsl, std::array<uint32_t, 3> n, float lipschitz, NormalMode normals) {
    IsoSurfaceCreateInfo info;
    info.samples = n;
    info.source = FieldSource::UserGlsl;
    info.fieldGlsl = glsl;
    info.compileGlsl = pyramarch::compileGlsl;
    info.normals = normals;
    info.isoValue = 0.f;
    info.lipschitz = lipschitz;
    info.sparse.enabled = true;
    info.sparse.maxBricks = 20000;
    info.sparse.maxRowPairs = 100000;
    return withIndexed(info);
}

IsoSurfaceCreateInfo sparseItemInfo(FieldSource source, std::array<uint32_t, 3> n, NormalMode normals) {
    IsoSurfaceCreateInfo info;
    info.samples = n;
    info.source = source;
    info.normals = normals;
    info.sparse.enabled = true;
    info.sparse.maxBricks = 20000;
    info.sparse.maxRowPairs = 100000;
    if (source == FieldSource::Metaballs) {
        info.maxBalls = 200;
        info.isoValue = 0.35f;
        info.sparse.maxItemRefs = 400000;
    } else {
        info.maxParticles = 6000;
        info.particleRadius = 0.11f;
        info.isoValue = 0.5f;
        info.sparse.maxItemRefs = 2000000;
    }
    return withIndexed(info);
}

// Uniform numbers in [0, 1) from a seed (an LCG): the same scenes everywhere.
struct Lcg {
    uint32_t state;
    float next() {
        state = state * 1664525u + 1013904223u;
        return float(state >> 8) / float(1u << 24);
    }
};

std::vector<Metaball> scatteredBalls(uint32_t count, uint32_t seed, float shift = 0.f) {
    std::vector<Metaball> balls;
    Lcg rng{seed};
    for (uint32_t i = 0; i < count; ++i) {
        Metaball b{};
        b.center = {-1.1f + 2.2f * rng.next() + shift, -1.1f + 2.2f * rng.next(), -1.1f + 2.2f * rng.next() - shift};
        b.radius = 0.15f + 0.3f * rng.next();
        b.strength = (0.6f + 0.8f * rng.next()) * (i % 5 == 4 ? -1.f : 1.f);
        balls.push_back(b);
    }
    return balls;
}

std::vector<Particle> clusteredParticles(uint32_t count, uint32_t seed, float shift = 0.f) {
    std::vector<Particle> out;
    Lcg rng{seed};
    const float centres[4][3] = {{-0.5f, 0.3f, 0.1f}, {0.45f, -0.35f, -0.3f}, {0.1f, 0.2f, 0.7f}, {0.9f, 0.9f, -0.95f}};
    for (uint32_t i = 0; i < count; ++i) {
        const float* c = centres[i % 4];
        const float spread = 0.12f + 0.1f * float(i % 3);
        Particle p{};
        p.position = {c[0] + shift + spread * (2.f * rng.next() - 1.f), c[1] + spread * (2.f * rng.next() - 1.f),
                      c[2] - shift + spread * (2.f * rng.next() - 1.f)};
        p.weight = 0.2f + 0.3f * rng.next();
        out.push_back(p);
    }
    return out;
}

class IsoSparseIndexed : public IsoSurfaceTest {
protected:
    void expectEveryCapacityShortBounded(FieldSource source);
    IndexedMesh readIndexed(IsoSurface& s) {
        IndexedMesh m;
        auto v = s.readVertices();
        auto i = s.readIndices();
        EXPECT_TRUE(v.ok() && i.ok());
        if (v.ok()) m.vertices = std::move(v).value();
        if (i.ok()) m.indices = std::move(i).value();
        return m;
    }

    // The newest frame of `sparse` against `dense` (the dense indexed path)
    // and the CPU reference on the field `withField` kept.
    void expectMatches(const IsoSurfaceCreateInfo& info, IsoSurface& withField, IsoSurface& dense, IsoSurface& sparse,
                       size_t minTriangles) {
        const IndexedMesh d = readIndexed(dense), s = readIndexed(sparse);
        ASSERT_GE(d.indices.size(), 3 * minTriangles) << "the case should have a surface";
        for (uint32_t index : s.indices) ASSERT_LT(index, s.vertices.size());
        const MeshKey dk = keyOf(d), sk = keyOf(s);
        EXPECT_EQ(sk.vertices.size(), dk.vertices.size());
        EXPECT_TRUE(sk.vertices == dk.vertices) << "the vertices differ from the dense indexed path's";
        EXPECT_EQ(sk.triangles.size(), dk.triangles.size());
        EXPECT_TRUE(sk.triangles == dk.triangles) << "the triangles differ from the dense indexed path's";
        // Edge sharing, the dense mesh's (watertight where it is): each
        // edge in as many triangles, most in exactly two (a grid one cell
        // thick has flat triangles whose edges have more).
        EXPECT_TRUE(sk.edgeUses == dk.edgeUses) << "edges are shared differently";
        size_t shared = 0;
        for (const auto& [e, uses] : sk.edgeUses) shared += uses == 2 ? 1 : 0;
        EXPECT_GT(shared, sk.edgeUses.size() / 2);
        // The CPU reference: the triangles, one vertex per cut edge.
        auto field = withField.readField();
        ASSERT_TRUE(field.ok()) << field.message();
        const ref::Grid g = referenceGridOf(info);
        const ref::McResult cpu = ref::marchingCubes(g, field.value().data(), info.isoValue, refNormals(info.normals));
        EXPECT_EQ(s.vertices.size(), cutEdges(g, field.value(), info.isoValue));
        std::vector<IsoVertexData> soup;
        for (uint32_t index : s.indices) soup.push_back(s.vertices[index]);
        EXPECT_EQ(ref::compareTriangleSets(cpu.vertices, toRef(soup), ref::positionTolerance(g), 1e-3f), "");
        const auto ds = dense.statsOfFrame(dense.framesRecorded() - 1);
        const auto ss = sparse.statsOfFrame(sparse.framesRecorded() - 1);
        ASSERT_TRUE(ds && ss);
        EXPECT_FALSE(ss->overflow);
        EXPECT_EQ(ss->verticesNeeded, ds->verticesNeeded);
        EXPECT_EQ(ss->verticesWritten, s.vertices.size());
        EXPECT_EQ(ss->indicesNeeded, ds->indicesNeeded);
        EXPECT_EQ(ss->indicesWritten, s.indices.size());
        EXPECT_EQ(ss->activeCells, cpu.activeCells);
        // The draw: the indexed command only.
        auto args = iso::testing::readDrawArgs(sparse);
        ASSERT_TRUE(args.ok());
        EXPECT_EQ(args.value()[offsetof(gpu::IsoArgs, vertexCount) / 4], 0u);
        EXPECT_EQ(args.value()[offsetof(gpu::IsoArgs, indexCount) / 4], s.indices.size());
    }

    void expectUserMatches(const IsoSurfaceCreateInfo& info, const std::array<float, 8>& params, float time,
                           size_t minTriangles = 100) {
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
        expectMatches(info, *buffer, *dense, *sparse, minTriangles);
    }

    template <typename Item>
    void expectItemFramesMatch(const IsoSurfaceCreateInfo& info, const std::vector<std::vector<Item>>& frames) {
        IsoSurfaceCreateInfo denseInfo = info;
        denseInfo.sparse = {};
        auto dense = make(denseInfo);
        auto sparse = make(info);
        // Metaballs on a grid that fits evaluate only the tiles their listed
        // bricks read: the reference marches a twin's field of every sample.
        auto full = make(denseInfo, {.denseField = true});
        ASSERT_TRUE(dense && sparse && full);
        for (size_t f = 0; f < frames.size(); ++f) {
            SCOPED_TRACE("frame " + std::to_string(f));
            for (IsoSurface* s : {dense.get(), sparse.get(), full.get()}) {
                if constexpr (std::is_same_v<Item, Metaball>)
                    ASSERT_TRUE(s->setMetaballs(frames[f]).ok());
                else
                    ASSERT_TRUE(s->setParticles(frames[f]).ok());
                frame(*s);
            }
            expectMatches(info, *full, *dense, *sparse, 100);
        }
    }
};

TEST_F(IsoSparseIndexed, UserFieldsMatchTheDenseIndexedPathAndTheReference) {
    {
        SCOPED_TRACE("moving sphere 37x50x23, central normals, NaN far outside");
        IsoSurfaceCreateInfo info = sparseUserInfo(kMovingSphereGlsl, {37, 50, 23}, 1.f, NormalMode::Central);
        info.boundsMin = {-1.f, -0.8f, -1.2f};
        info.boundsMax = {1.f, 0.9f, 1.f};
        expectUserMatches(info, {0.1f, -0.1f, 0.05f, 0.45f, 0.3f, 0, 0, 0}, 0.9f);
    }
    {
        // Open through every face of the grid: the last cells own the edges there.
        SCOPED_TRACE("Cayley 61x45x38, Sobel normals");
        expectUserMatches(sparseUserInfo(kCayleyGlsl, {61, 45, 38}, 34.65f, NormalMode::Sobel), {}, 0.f);
    }
    {
        SCOPED_TRACE("gyroid 30x26x28, iso 0.2, no normals");
        IsoSurfaceCreateInfo info = sparseUserInfo(kGyroidGlsl, {30, 26, 28}, 15.40f, NormalMode::None);
        info.isoValue = 0.2f;
        expectUserMatches(info, {6.2831853f, 0, 0, 0, 0, 0, 0, 0}, 0.f);
    }
    {
        // Several super-bricks, many brick borders, short last bricks.
        SCOPED_TRACE("sphere 131x71x141");
        expectUserMatches(sparseUserInfo(kMovingSphereGlsl, {131, 71, 141}, 1.f, NormalMode::Central),
                          {0.2f, 0.1f, -0.15f, 0.35f, 0, 0, 0, 0}, 0.f);
    }
    {
        SCOPED_TRACE("one brick, one short row: 9x2x3");
        expectUserMatches(sparseUserInfo(kCayleyGlsl, {9, 2, 3}, 34.65f, NormalMode::Forward), {}, 0.f, 5);
    }
}

TEST_F(IsoSparseIndexed, MetaballsMatchTheDenseIndexedPathAndTheReference) {
    {
        SCOPED_TRACE("12 balls, 3 frames, 41x37x45, central normals");
        std::vector<std::vector<Metaball>> frames;
        for (int f = 0; f < 3; ++f) frames.push_back(scatteredBalls(12, 7u, 0.07f * float(f)));
        expectItemFramesMatch(sparseItemInfo(FieldSource::Metaballs, {41, 37, 45}, NormalMode::Central), frames);
    }
    {
        SCOPED_TRACE("150 balls, 131x71x141, Sobel normals");
        IsoSurfaceCreateInfo info = sparseItemInfo(FieldSource::Metaballs, {131, 71, 141}, NormalMode::Sobel);
        info.boundsMin = {-1.f, -0.6f, -1.1f};
        info.boundsMax = {1.2f, 0.7f, 1.f};
        std::vector<Metaball> balls = scatteredBalls(150, 11u);
        for (Metaball& b : balls) b.radius *= 0.6f;
        expectItemFramesMatch<Metaball>(info, {balls});
    }
}

TEST_F(IsoSparseIndexed, ParticlesMatchTheDenseIndexedPathAndTheReference) {
    SCOPED_TRACE("2000 particles, 2 frames, 41x37x45, central normals");
    expectItemFramesMatch<Particle>(sparseItemInfo(FieldSource::Particles, {41, 37, 45}, NormalMode::Central),
                                    {clusteredParticles(2000, 5u), clusteredParticles(2000, 5u, 0.06f)});
}

// Capacities that run out, on a small grid (also the gpuav case): the frame
// reports the overflow and what it needed, writes nothing outside a buffer
// (GPU-AV checks the accesses), every index it writes names a written
// vertex on the surface, and the suggestions hold the whole mesh.
TEST_F(IsoSparseIndexed, SmallCapacitiesRunningOutAreReportedBoundedAndSuggested) {
    const IsoSurfaceCreateInfo full = sparseUserInfo(kCayleyGlsl, {21, 19, 23}, 34.65f, NormalMode::Central);
    auto reference = make(full);
    ASSERT_TRUE(reference);
    frame(*reference);
    const auto want = reference->statsOfFrame(0);
    ASSERT_TRUE(want && !want->overflow);
    ASSERT_GT(want->sparseBricksNeeded, 4u);
    const MeshKey fullKey = keyOf(readIndexed(*reference));
    const std::set<Bits8> fullVertices(fullKey.vertices.begin(), fullKey.vertices.end());
    const std::set<Triangle> fullTriangles(fullKey.triangles.begin(), fullKey.triangles.end());

    struct Short {
        const char* what;
        uint32_t vertices, indices, bricks, pairs;
        bool indexedDraw; // indices are written (all vertices fit)
        // Triangles of the surface are surely among them. Not for a pool
        // that runs out: classify claims slots in the order its threads run
        // and the pool keeps pairs in list order (sparse_slot_order.comp),
        // so only the claimed pairs whose place falls inside the pool stay,
        // and in some runs none of 7 do.
        bool surelyKept;
    };
    const Short cases[] = {
        {"vertices", want->verticesNeeded - 4, full.indexCapacity, full.sparse.maxBricks, full.sparse.maxRowPairs,
         false, false},
        {"indices", full.vertexCapacity, want->indicesNeeded / 2 + 1, full.sparse.maxBricks, full.sparse.maxRowPairs,
         true, true},
        {"bricks", full.vertexCapacity, full.indexCapacity, 3, full.sparse.maxRowPairs, true, true},
        {"pool slots", full.vertexCapacity, full.indexCapacity, full.sparse.maxBricks, 7, true, false},
    };
    for (const Short& c : cases) {
        SCOPED_TRACE(c.what);
        IsoSurfaceCreateInfo info = full;
        info.vertexCapacity = c.vertices;
        info.indexCapacity = c.indices;
        info.sparse.maxBricks = c.bricks;
        info.sparse.maxRowPairs = c.pairs;
        auto s = make(info);
        ASSERT_TRUE(s);
        frame(*s);
        frame(*s);
        const auto stats = s->statsOfFrame(1);
        ASSERT_TRUE(stats.has_value());
        EXPECT_TRUE(stats->overflow);
        EXPECT_LE(stats->verticesWritten, info.vertexCapacity);
        EXPECT_LE(stats->indicesWritten, info.indexCapacity / 3 * 3);
        const IndexedMesh m = readIndexed(*s);
        ASSERT_EQ(m.vertices.size(), stats->verticesWritten);
        ASSERT_EQ(m.indices.size(), stats->indicesWritten);
        if (c.surelyKept) {
            EXPECT_GT(stats->indicesWritten, 0u);
        } else if (!c.indexedDraw) {
            EXPECT_EQ(stats->indicesWritten, 0u) << "indices could name unwritten vertices";
        }
        for (const IsoVertexData& v : m.vertices) {
            Bits8 b{};
            std::memcpy(b.data(), &v, sizeof(b));
            ASSERT_TRUE(fullVertices.count(b)) << "a vertex that is not on the surface";
        }
        // Triangles whose owners the pool dropped are degenerate (0, 0, 0);
        // the others are the full mesh's.
        size_t kept = 0;
        for (size_t t = 0; t + 2 < m.indices.size(); t += 3) {
            const uint32_t a = m.indices[t], b = m.indices[t + 1], d = m.indices[t + 2];
            ASSERT_LT(std::max({a, b, d}), m.vertices.size());
            if (a == 0 && b == 0 && d == 0) continue;
            const Triangle tri{positionBits(m.vertices[a]), positionBits(m.vertices[b]), positionBits(m.vertices[d])};
            ASSERT_TRUE(fullTriangles.count(tri)) << "a triangle that is not the surface's";
            ++kept;
        }
        if (c.surelyKept) {
            EXPECT_GT(kept, 0u);
        }
        IsoSurfaceCreateInfo suggested = full;
        suggested.sparse = suggestSparseCapacity(*stats);
        suggested.vertexCapacity = std::max(c.vertices, suggestCapacity(*stats));
        suggested.indexCapacity = std::max(c.indices, suggestIndexCapacity(*stats));
        // Pairs of bricks that were not listed were not counted: the first
        // suggestion's frame counts them.
        for (int round = 0; round < 2; ++round) {
            auto t = make(suggested);
            ASSERT_TRUE(t);
            frame(*t);
            const auto st = t->statsOfFrame(0);
            ASSERT_TRUE(st.has_value());
            if (!st->overflow) {
                const MeshKey k = keyOf(readIndexed(*t));
                EXPECT_TRUE(k.vertices == fullKey.vertices);
                EXPECT_TRUE(k.triangles == fullKey.triangles);
                break;
            }
            ASSERT_EQ(round, 0) << "the second suggestion still overflows";
            suggested.sparse = suggestSparseCapacity(*st);
            suggested.vertexCapacity = std::max(suggested.vertexCapacity, suggestCapacity(*st));
            suggested.indexCapacity = std::max(suggested.indexCapacity, suggestIndexCapacity(*st));
        }
    }
}

// Small metaball and particle scenes with too few bricks, for gpuav: their
// vertex shaders (the owner brick's items) and the degenerate triangles.
// Indexed output with every capacity short at once on one surface:
// brick list, pool, item references, vertices and indices. The frames
// report the overflow, write within the capacities, and every index they
// wrote names a vertex they wrote. One surface a case: the GPU-assisted
// validation run takes the metaball one (a surface's compile is its cost).
void IsoSparseIndexed::expectEveryCapacityShortBounded(FieldSource source) {
    IsoSurfaceCreateInfo info = source == FieldSource::UserGlsl
                                    ? sparseUserInfo(kCayleyGlsl, {25, 22, 27}, 34.65f, NormalMode::Sobel)
                                    : sparseItemInfo(source, {25, 22, 27}, NormalMode::Sobel);
    info.sparse.maxBricks = 6;
    info.sparse.maxRowPairs = 9;
    if (source != FieldSource::UserGlsl) info.sparse.maxItemRefs = 40;
    info.vertexCapacity = 60;
    info.indexCapacity = 90;
    auto s = make(info);
    ASSERT_TRUE(s);
    if (source == FieldSource::Metaballs) ASSERT_OK(s->setMetaballs(scatteredBalls(8, 7u)));
    if (source == FieldSource::Particles) ASSERT_OK(s->setParticles(clusteredParticles(800, 5u)));
    for (uint32_t f = 0; f < 2; ++f) {
        frame(*s);
        const auto st = s->statsOfFrame(f);
        ASSERT_TRUE(st.has_value());
        EXPECT_TRUE(st->overflow);
        EXPECT_GT(st->sparseBricksNeeded, 6u);
        EXPECT_LE(st->verticesWritten, 60u);
        EXPECT_LE(st->indicesWritten, 90u);
        EXPECT_EQ(st->indicesWritten % 3, 0u);
    }
    const auto st = s->statsOfFrame(1);
    const IndexedMesh m = readIndexed(*s);
    ASSERT_EQ(m.indices.size(), st->indicesWritten);
    ASSERT_LE(m.vertices.size(), 60u);
    for (uint32_t index : m.indices) ASSERT_LT(index, m.vertices.size());
}

TEST_F(IsoSparseIndexed, EveryCapacityShortInOneUserFieldSurface) {
    expectEveryCapacityShortBounded(FieldSource::UserGlsl);
}
TEST_F(IsoSparseIndexed, EveryCapacityShortInOneMetaballSurface) {
    expectEveryCapacityShortBounded(FieldSource::Metaballs);
}
TEST_F(IsoSparseIndexed, EveryCapacityShortInOneParticleSurface) {
    expectEveryCapacityShortBounded(FieldSource::Particles);
}

TEST_F(IsoSparseIndexed, SmallItemSourcesWithShortBrickLists) {
    for (FieldSource source : {FieldSource::Metaballs, FieldSource::Particles}) {
        SCOPED_TRACE(source == FieldSource::Metaballs ? "metaballs" : "particles");
        IsoSurfaceCreateInfo info = sparseItemInfo(source, {25, 22, 27}, NormalMode::Sobel);
        const auto feed = [&](IsoSurface& s) {
            if (source == FieldSource::Metaballs) return s.setMetaballs(scatteredBalls(8, 7u));
            return s.setParticles(clusteredParticles(800, 5u));
        };
        auto full = make(info);
        info.sparse.maxBricks = 6;
        auto small = make(info);
        ASSERT_TRUE(full && small);
        for (IsoSurface* s : {full.get(), small.get()}) {
            ASSERT_TRUE(feed(*s).ok());
            frame(*s);
        }
        const auto fs = full->statsOfFrame(0), ss = small->statsOfFrame(0);
        ASSERT_TRUE(fs && ss);
        EXPECT_FALSE(fs->overflow);
        EXPECT_GT(fs->indicesWritten, 300u);
        EXPECT_TRUE(ss->overflow);
        EXPECT_LT(ss->verticesWritten, fs->verticesWritten);
        const IndexedMesh fm = readIndexed(*full), sm = readIndexed(*small);
        const MeshKey fk = keyOf(fm);
        const std::set<Bits8> fullVertices(fk.vertices.begin(), fk.vertices.end());
        for (const IsoVertexData& v : sm.vertices) {
            Bits8 b{};
            std::memcpy(b.data(), &v, sizeof(b));
            ASSERT_TRUE(fullVertices.count(b)) << "a vertex that is not on the surface";
        }
        for (uint32_t index : sm.indices) ASSERT_LT(index, sm.vertices.size());
    }
}

// Extraction through storage buffers (where a device's texel-buffer limit
// does not cover the pyramids): the same mesh, index for index (both walk
// the same pool, whose slot order is fixed within one run only: compared
// as meshes).
TEST_F(IsoSparseIndexed, SmallStorageReadsMatchTexelReads) {
    const IsoSurfaceCreateInfo info = sparseUserInfo(kCayleyGlsl, {21, 19, 23}, 34.65f, NormalMode::Sobel);
    auto texel = make(info);
    auto storage = make(info, {.storageReads = true});
    ASSERT_TRUE(texel && storage);
    frame(*texel);
    frame(*storage);
    ASSERT_TRUE(iso::testing::planLayout(info, device().limits()).value().texelReads);
    const MeshKey a = keyOf(readIndexed(*texel)), b = keyOf(readIndexed(*storage));
    EXPECT_GT(a.triangles.size(), 300u);
    EXPECT_TRUE(a.vertices == b.vertices);
    EXPECT_TRUE(a.triangles == b.triangles);
    EXPECT_TRUE(a.edgeUses == b.edgeUses);
}

// Sparse volumes: each shared vertex from its owner brick's block of
// samples (sparse_volume_field.glsl); u8 with Sobel normals, f32 with NaN
// samples and cells a multiple of 8 along x; texel reads of one pool
// buffer, and storage reads of a pool spread over three.
TEST_F(IsoSparseIndexed, VolumesMatchTheDenseIndexedPath) {
    struct Case {
        const char* what;
        std::array<uint32_t, 3> n;
        VolumeFormat format;
        NormalMode normals;
        bool storage;
    };
    const Case cases[] = {
        {"u8, Sobel, texel reads", {45, 38, 50}, VolumeFormat::U8, NormalMode::Sobel, false},
        {"f32 with NaN, central, 3 pool buffers", {33, 41, 25}, VolumeFormat::F32, NormalMode::Central, true}};
    for (const Case& c : cases) {
        SCOPED_TRACE(c.what);
        IsoSurfaceCreateInfo info;
        info.samples = c.n;
        info.boundsMin = {-1.f, -0.5f, 0.f};
        info.boundsMax = {1.f, 1.5f, 1.f};
        info.source = FieldSource::Volume;
        info.normals = c.normals;
        info.isoValue = 100.5f;
        info = withIndexed(info);
        // Two balls and ripples, 0..255.
        const size_t count = size_t(c.n[0]) * c.n[1] * c.n[2], each = c.format == VolumeFormat::U8 ? 1 : 4;
        std::vector<uint8_t> bytes(count * each);
        for (uint32_t z = 0; z < c.n[2]; ++z)
            for (uint32_t y = 0; y < c.n[1]; ++y)
                for (uint32_t x = 0; x < c.n[0]; ++x) {
                    const size_t i = x + size_t(c.n[0]) * (y + size_t(c.n[1]) * z);
                    const float a = std::hypot(float(x) - 14.f, float(y) - 15.f, float(z) - 12.f);
                    const float b = std::hypot(float(x) - 28.f, float(y) - 24.f, float(z) - 16.f);
                    float v =
                        std::clamp(255.f - 14.f * std::min(a, b) + 9.f * std::sin(0.7f * float(x + y)), 0.f, 255.f);
                    if (c.format == VolumeFormat::U8) {
                        bytes[i] = uint8_t(v);
                    } else {
                        if (i % 53 == 0) v = NAN;
                        std::memcpy(&bytes[4 * i], &v, 4);
                    }
                }
        const size_t slice = size_t(c.n[0]) * c.n[1] * each;
        const VolumeSlabs slabs{c.format, 1.f, 0.f, [&](uint32_t first, uint32_t n, void* dst) {
                                    std::memcpy(dst, bytes.data() + slice * first, slice * n);
                                    return Status{};
                                }};
        auto census = censusSparseVolume(slabs, c.n, info.isoValue, info.isoValue);
        ASSERT_TRUE(census.ok()) << census.message();
        IsoSurfaceCreateInfo sparseInfo = info;
        sparseInfo.sparse.enabled = true;
        sparseInfo.sparse.maxBricks = census->surfaceBricks;
        sparseInfo.sparse.maxRowPairs = census->surfaceBricks * 32;
        sparseInfo.sparse.maxVolumeBricks = census->surfaceBricks;
        sparseInfo.sparse.volumeFormat = c.format;
        iso::testing::Knobs knobs;
        knobs.storageReads = c.storage;
        if (c.storage) knobs.volumePoolBricks = (census->surfaceBricks + 2) / 3;
        auto dense = make(info);
        auto sparse = make(sparseInfo, knobs);
        ASSERT_TRUE(dense && sparse);
        ASSERT_TRUE(dense->uploadVolume(bytes.data(), bytes.size(), c.format).ok());
        ASSERT_TRUE(sparse->uploadVolume(slabs, info.isoValue, info.isoValue).ok());
        frame(*dense);
        frame(*sparse);
        expectMatches(info, *dense, *dense, *sparse, 300);
    }
}

// Sparse surfaces whose vertex and index buffers span several storage
// bindings (Knobs::outputSliceBytes): bit for bit the one-binding surface's
// vertex and index buffers (the pool's fixed order), triangle soup and
// indexed, user fields and metaballs.
TEST_F(IsoSparseIndexed, OutputSlicesMatchOneBindingBitForBit) {
    for (const bool indexed : {false, true}) {
        SCOPED_TRACE(indexed ? "indexed" : "triangle soup");
        {
            SCOPED_TRACE("user field, Cayley 61x45x38");
            IsoSurfaceCreateInfo info = sparseUserInfo(kCayleyGlsl, {61, 45, 38}, 34.65f, NormalMode::Central);
            info.indexed = indexed;
            expectOutputSlicesMatch(info, [](IsoSurface&) {});
        }
        {
            SCOPED_TRACE("metaballs 41x37x45, Sobel normals, 2 frames");
            IsoSurfaceCreateInfo info = sparseItemInfo(FieldSource::Metaballs, {41, 37, 45}, NormalMode::Sobel);
            info.indexed = indexed;
            const std::vector<Metaball> balls = scatteredBalls(12, 7u, 0.05f);
            expectOutputSlicesMatch(
                info, [&](IsoSurface& s) { ASSERT_OK(s.setMetaballs(balls)); }, {}, 2);
        }
    }
}

// Mesh smoothing post-processes the sparse indexed mesh (against the CPU
// reference: IsoMeshSmooth.SparseDomainsMatchTheCpu): the same triangles,
// moved vertices, nothing past the buffers.
TEST_F(IsoSparseIndexed, MeshSmoothingPostProcessesTheMesh) {
    IsoSurfaceCreateInfo info = sparseUserInfo(kCayleyGlsl, {21, 19, 23}, 34.65f, NormalMode::Central);
    auto plain = make(info);
    info.meshSmoothing.iterations = 2;
    auto smooth = make(info);
    ASSERT_TRUE(plain && smooth);
    frame(*plain);
    frame(*smooth);
    const auto a = plain->statsOfFrame(0), b = smooth->statsOfFrame(0);
    ASSERT_TRUE(a && b);
    EXPECT_FALSE(b->overflow);
    EXPECT_GT(b->indicesWritten, 300u);
    EXPECT_EQ(b->indicesWritten, a->indicesWritten);
    EXPECT_EQ(b->verticesWritten, a->verticesWritten);
    auto va = plain->readVertices(), vb = smooth->readVertices();
    ASSERT_TRUE(va.ok() && vb.ok());
    std::vector<std::array<float, 3>> pa, pb;
    for (const IsoVertexData& v : va.value()) pa.push_back({v.position[0], v.position[1], v.position[2]});
    for (const IsoVertexData& v : vb.value()) pb.push_back({v.position[0], v.position[1], v.position[2]});
    std::sort(pa.begin(), pa.end());
    std::sort(pb.begin(), pb.end());
    EXPECT_NE(pa, pb) << "smoothing moves vertices";
}

} // namespace
