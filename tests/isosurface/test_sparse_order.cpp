// Sparse domains (the row-pair pool) on the validated shared device: the
// vertex and index buffers are bit-identical over two instances and two
// frames with the same input, for a volume, metaballs, particles and a user
// field, soup and indexed output. The listed bricks and the pool slots
// come in a fixed order (sparse_order.comp), whatever order the threads that
// find them run in: the grids here span several super-bricks, so that many
// workgroups list bricks and claim slots at once.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "iso_fixture.h"
#include "iso_reference_convert.h"
#include "pyramarch/engine/shader_compiler.h"
#include "pyramarch/isosurface/isosurface.h"

using namespace pyramarch;
using namespace pyramarch::iso;

namespace {

// On lavapipe, workgroups run on LP_NUM_THREADS threads (the cores by
// default): more threads than cores interleave the workgroups that list
// bricks and claim slots, so an order that followed the atomics would
// differ from run to run. Set before the shared device exists (a static
// initializer runs before main); a value the environment gives stays.
const bool kManyThreads = [] {
    setenv("LP_NUM_THREADS", "8", 0);
    return true;
}();

// Uniform numbers in [0, 1) from a seed (an LCG): the same scene in every run.
struct Lcg {
    uint32_t state;
    float next() {
        state = state * 1664525u + 1013904223u;
        return float(state >> 8) / float(1u << 24);
    }
};

struct Buffers {
    std::vector<IsoVertexData> vertices;
    std::vector<uint32_t> indices;
};

class IsoSparseOrder : public IsoSurfaceTest {
protected:
    // Two instances of `info`, two frames each with what `feed` sets: every
    // frame's buffers equal the first's, byte for byte. `knobs`: the
    // variant; `first` (if given) receives the first frame's buffers and
    // stats.
    void expectBitIdentical(const IsoSurfaceCreateInfo& info, const std::function<void(IsoSurface&)>& feed,
                            iso::testing::Knobs knobs = {}, Buffers* first = nullptr, IsoStats* firstStats = nullptr) {
        std::vector<Buffers> runs;
        for (int instance = 0; instance < 2; ++instance) {
            auto s = make(info, knobs);
            ASSERT_TRUE(s);
            for (int f = 0; f < 2; ++f) {
                feed(*s);
                frame(*s);
                const auto stats = s->statsOfFrame(s->framesRecorded() - 1);
                ASSERT_TRUE(stats.has_value());
                EXPECT_FALSE(stats->overflow);
                if (runs.empty() && firstStats) *firstStats = *stats;
                Buffers b;
                auto v = s->readVertices();
                ASSERT_TRUE(v.ok()) << v.message();
                b.vertices = std::move(v).value();
                if (info.indexed) {
                    auto i = s->readIndices();
                    ASSERT_TRUE(i.ok()) << i.message();
                    b.indices = std::move(i).value();
                }
                runs.push_back(std::move(b));
            }
        }
        ASSERT_GT(runs[0].vertices.size(), 300u) << "the case should have a surface";
        if (first) *first = runs[0];
        if (info.indexed) {
            ASSERT_GT(runs[0].indices.size(), runs[0].vertices.size());
        }
        for (size_t r = 1; r < runs.size(); ++r) {
            SCOPED_TRACE("instance " + std::to_string(r / 2) + ", frame " + std::to_string(r % 2));
            ASSERT_EQ(runs[r].vertices.size(), runs[0].vertices.size());
            EXPECT_EQ(std::memcmp(runs[r].vertices.data(), runs[0].vertices.data(),
                                  runs[0].vertices.size() * sizeof(IsoVertexData)),
                      0)
                << "the vertex buffer differs from the first frame's";
            ASSERT_EQ(runs[r].indices.size(), runs[0].indices.size());
            // (Soup has no indices: memcmp may not take their null data.)
            EXPECT_TRUE(runs[0].indices.empty() ||
                        std::memcmp(runs[r].indices.data(), runs[0].indices.data(), runs[0].indices.size() * 4) == 0)
                << "the index buffer differs from the first frame's";
        }
    }
};

IsoSurfaceCreateInfo sparseInfo(FieldSource source, std::array<uint32_t, 3> n, bool indexed) {
    IsoSurfaceCreateInfo info;
    info.samples = n;
    info.source = source;
    info.normals = NormalMode::Central;
    info.sparse.enabled = true;
    info.sparse.maxBricks = 20000;
    info.sparse.maxRowPairs = 200000;
    info.vertexCapacity = 400000;
    info.indexed = indexed;
    if (indexed) info.indexCapacity = 1200000;
    return info;
}

// Three spheres far apart, sampled: super-bricks with few and with many bricks.
std::vector<float> spheresVolume(std::array<uint32_t, 3> n) {
    std::vector<float> v(size_t(n[0]) * n[1] * n[2]);
    const float centres[3][4] = {{-0.4f, -0.35f, -0.4f, 0.55f}, {0.6f, 0.55f, 0.6f, 0.3f}, {0.7f, -0.7f, 0.5f, 0.15f}};
    size_t i = 0;
    for (uint32_t z = 0; z < n[2]; ++z)
        for (uint32_t y = 0; y < n[1]; ++y)
            for (uint32_t x = 0; x < n[0]; ++x) {
                const float p[3] = {-1.f + 2.f * float(x) / float(n[0] - 1), -1.f + 2.f * float(y) / float(n[1] - 1),
                                    -1.f + 2.f * float(z) / float(n[2] - 1)};
                float s = -1e9f;
                for (const auto& c : centres) {
                    const float dx = p[0] - c[0], dy = p[1] - c[1], dz = p[2] - c[2];
                    s = std::max(s, c[3] - std::sqrt(dx * dx + dy * dy + dz * dz));
                }
                v[i++] = s;
            }
    return v;
}

TEST_F(IsoSparseOrder, VolumeBuffersAreBitIdenticalOverInstancesAndFrames) {
    const std::array<uint32_t, 3> n = {97, 83, 91};
    const std::vector<float> volume = spheresVolume(n);
    for (bool indexed : {false, true}) {
        SCOPED_TRACE(indexed ? "indexed" : "soup");
        IsoSurfaceCreateInfo info = sparseInfo(FieldSource::Volume, n, indexed);
        info.sparse.maxVolumeBricks = 20000;
        info.isoValue = 0.f;
        expectBitIdentical(info, [&](IsoSurface& s) {
            ASSERT_TRUE(s.uploadVolume(volume.data(), volume.size() * 4, VolumeFormat::F32).ok());
        });
    }
}

TEST_F(IsoSparseOrder, MetaballBuffersAreBitIdenticalOverInstancesAndFrames) {
    std::vector<Metaball> balls;
    Lcg rng{17u};
    for (int i = 0; i < 40; ++i) {
        Metaball b{};
        b.center = {-1.f + 2.f * rng.next(), -1.f + 2.f * rng.next(), -1.f + 2.f * rng.next()};
        b.radius = 0.12f + 0.2f * rng.next();
        b.strength = 0.6f + 0.8f * rng.next();
        balls.push_back(b);
    }
    for (bool indexed : {false, true}) {
        SCOPED_TRACE(indexed ? "indexed" : "soup");
        IsoSurfaceCreateInfo info = sparseInfo(FieldSource::Metaballs, {89, 81, 85}, indexed);
        info.maxBalls = 40;
        info.isoValue = 0.35f;
        info.sparse.maxItemRefs = 400000;
        expectBitIdentical(info, [&](IsoSurface& s) { ASSERT_TRUE(s.setMetaballs(balls).ok()); });
    }
}

TEST_F(IsoSparseOrder, ParticleBuffersAreBitIdenticalOverInstancesAndFrames) {
    std::vector<Particle> particles;
    Lcg rng{5u};
    const float centres[4][3] = {{-0.5f, 0.3f, 0.1f}, {0.45f, -0.35f, -0.3f}, {0.1f, 0.2f, 0.7f}, {0.8f, 0.8f, -0.8f}};
    for (uint32_t i = 0; i < 2000; ++i) {
        const float* c = centres[i % 4];
        const float spread = 0.12f + 0.1f * float(i % 3);
        Particle p{};
        p.position = {c[0] + spread * (2.f * rng.next() - 1.f), c[1] + spread * (2.f * rng.next() - 1.f),
                      c[2] + spread * (2.f * rng.next() - 1.f)};
        p.weight = 0.2f + 0.3f * rng.next();
        particles.push_back(p);
    }
    for (bool indexed : {false, true}) {
        SCOPED_TRACE(indexed ? "indexed" : "soup");
        IsoSurfaceCreateInfo info = sparseInfo(FieldSource::Particles, {73, 69, 77}, indexed);
        info.maxParticles = 2000;
        info.particleRadius = 0.08f;
        info.isoValue = 0.5f;
        info.sparse.maxItemRefs = 2000000;
        expectBitIdentical(info, [&](IsoSurface& s) { ASSERT_TRUE(s.setParticles(particles).ok()); });
    }
}

// A user field (fused): classify claims its slots with one atomic per
// subgroup where the device has ballot and arithmetic (lavapipe has), one
// per pair otherwise (testing::Knobs::perThreadAtomics). Either way the
// slot pass puts the pairs in list order: bit-identical buffers over
// instances and frames, and the same buffers and stats in both variants.
TEST_F(IsoSparseOrder, UserFieldBuffersAreBitIdenticalOverInstancesFramesAndAtomics) {
    const char* glsl = "float field(vec3 p) {\n"
                       "    float s = 0.55 - length(p - vec3(-0.4, -0.35, -0.4));\n"
                       "    s = max(s, 0.3 - length(p - vec3(0.6, 0.55, 0.6)));\n"
                       "    return max(s, 0.15 - length(p - vec3(0.7, -0.7, 0.5)));\n"
                       "}\n";
    for (bool indexed : {false, true}) {
        SCOPED_TRACE(indexed ? "indexed" : "soup");
        IsoSurfaceCreateInfo info = sparseInfo(FieldSource::UserGlsl, {97, 83, 91}, indexed);
        info.fieldGlsl = glsl;
        info.compileGlsl = pyramarch::compileGlsl;
        info.lipschitz = 1.f;
        info.isoValue = 0.f;
        Buffers grouped, single;
        IsoStats groupedStats{}, singleStats{};
        expectBitIdentical(
            info, [](IsoSurface&) {}, {}, &grouped, &groupedStats);
        iso::testing::Knobs perThread;
        perThread.perThreadAtomics = true;
        expectBitIdentical(
            info, [](IsoSurface&) {}, perThread, &single, &singleStats);
        auto probe = make(info);
        ASSERT_TRUE(probe);
        const DeviceLimits& lim = device().limits();
        const VkSubgroupFeatureFlags ops =
            VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
        EXPECT_EQ(iso::testing::subgroupAtomics(*probe),
                  (lim.subgroupStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0 && (lim.subgroupOperations & ops) == ops);
        ASSERT_EQ(single.vertices.size(), grouped.vertices.size());
        EXPECT_EQ(std::memcmp(single.vertices.data(), grouped.vertices.data(),
                              grouped.vertices.size() * sizeof(IsoVertexData)),
                  0)
            << "per-thread and per-subgroup slot claims give different vertex buffers";
        EXPECT_EQ(single.indices, grouped.indices);
        EXPECT_EQ(singleStats.activeCells, groupedStats.activeCells);
        EXPECT_EQ(singleStats.sparseRowPairsNeeded, groupedStats.sparseRowPairsNeeded);
        EXPECT_EQ(singleStats.sparseBricksNeeded, groupedStats.sparseBricksNeeded);
        EXPECT_GT(groupedStats.sparseRowPairsNeeded, 0u);
    }
}

// A frame with fewer cut pairs than the one before: the pool's first build
// pass runs over this frame's places only, the rest of the levels it writes
// cleared (nothing of the larger frame left in them). The smaller sphere
// after a larger one gives the buffers a fresh instance gives it, bit for
// bit, and as many triangles as the stats need.
TEST_F(IsoSparseOrder, AFrameAfterALargerSurfaceIsTheFreshInstancesFrame) {
    IsoSurfaceCreateInfo info = sparseInfo(FieldSource::UserGlsl, {129, 129, 129}, false);
    info.fieldGlsl = "float field(vec3 p) { return iso_params[0].x - length(p - vec3(0.05, -0.1, 0.02)); }\n";
    info.compileGlsl = pyramarch::compileGlsl;
    info.lipschitz = 1.f;
    info.isoValue = 0.f;
    const auto read = [](IsoSurface& s) {
        auto v = s.readVertices();
        EXPECT_TRUE(v.ok()) << v.message();
        return v.ok() ? std::move(v).value() : std::vector<IsoVertexData>{};
    };
    auto fresh = make(info);
    ASSERT_TRUE(fresh);
    fresh->setUserParams({0.2f, 0, 0, 0, 0, 0, 0, 0});
    frame(*fresh);
    const std::vector<IsoVertexData> want = read(*fresh);
    ASSERT_GT(want.size(), 300u);
    auto reused = make(info);
    ASSERT_TRUE(reused);
    reused->setUserParams({0.8f, 0, 0, 0, 0, 0, 0, 0});
    frame(*reused);
    const auto large = reused->statsOfFrame(reused->framesRecorded() - 1);
    ASSERT_TRUE(large.has_value());
    reused->setUserParams({0.2f, 0, 0, 0, 0, 0, 0, 0});
    frame(*reused);
    const auto small = reused->statsOfFrame(reused->framesRecorded() - 1);
    ASSERT_TRUE(small.has_value());
    EXPECT_FALSE(small->overflow);
    EXPECT_GT(large->sparseRowPairsNeeded, 4 * small->sparseRowPairsNeeded) << "the first frame should cut more pairs";
    const std::vector<IsoVertexData> got = read(*reused);
    EXPECT_EQ(got.size(), size_t(small->verticesNeeded));
    ASSERT_EQ(got.size(), want.size());
    EXPECT_EQ(std::memcmp(got.data(), want.data(), want.size() * sizeof(IsoVertexData)), 0);
}

} // namespace
