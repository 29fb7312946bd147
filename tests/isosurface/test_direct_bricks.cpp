// A grid that fits, laid out as bricks with a direct brick table
// (the default for every source; the scan in cell order): every brick
// resident, brick index =
// its place; over a field buffer classify runs over the bricks whose samples
// straddle the iso value, no slot atomics. Every source's field pass fills the
// field buffer as on the dense path (anisotropic and smoothed particles
// included); classify and extraction are the bricked ones. Checked against
// the CPU reference on the surface's own field: the same triangles, key for
// key in brick order (the CPU's cell-order output sorted by brick, row pair,
// cell), the CPU's counts, closed surfaces, capacities clamped to whole
// triangles with the needed count, and bit-identical buffers over frames and
// instances.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "iso_fixture.h"
#include "iso_reference_convert.h"
#include "particle_fixture.h"
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

iso::testing::Knobs directKnobs(bool storageReads = false) {
    iso::testing::Knobs k; // every source runs on the bricks by default
    k.storageReads = storageReads;
    return k;
}

class IsoDirectBricks : public IsoSurfaceTest {
protected:
    // `s`'s newest frame against the CPU reference on its own field (or on
    // `fieldOf`'s: the same source evaluated at every sample): the same
    // triangles, vertex k the reference's k-th in brick order, the counts.
    void expectMatchesReference(const IsoSurfaceCreateInfo& info, IsoSurface& s, size_t minVertices = 300,
                                IsoSurface* fieldOf = nullptr) {
        auto field = (fieldOf ? *fieldOf : s).readField();
        ASSERT_TRUE(field.ok()) << field.message();
        const ref::Grid g = referenceGridOf(info);
        const ref::McResult cpu = ref::marchingCubes(g, field.value().data(), s.isoValue(), refNormals(info.normals));
        EXPECT_GE(cpu.vertices.size(), minVertices) << "the case should have a surface";
        auto v = s.readVertices();
        ASSERT_TRUE(v.ok()) << v.message();
        const auto gpu = toRef(v.value());
        const float tol = ref::positionTolerance(g);
        EXPECT_EQ(ref::compareTriangleSets(cpu.vertices, gpu, tol, 1e-3f), "");
        const auto expected = inBrickOrder(cpu, info.samples);
        ASSERT_EQ(gpu.size(), expected.size());
        for (size_t k = 0; k < gpu.size(); ++k) {
            bool same = gpu[k].cellTriangles == expected[k].cellTriangles;
            for (int c = 0; c < 3; ++c) same = same && std::fabs(gpu[k].p[c] - expected[k].p[c]) <= tol;
            if (!same) {
                ADD_FAILURE() << "vertex " << k << " is not the reference's in brick order";
                break;
            }
        }
        const auto stats = s.statsOfFrame(s.framesRecorded() - 1);
        ASSERT_TRUE(stats.has_value());
        EXPECT_FALSE(stats->overflow);
        EXPECT_EQ(stats->verticesNeeded, cpu.vertices.size());
        EXPECT_EQ(stats->activeCells, cpu.activeCells);
    }

    // Two instances, two frames each: every vertex buffer and the draw args the same bytes.
    void expectBitIdentical(const IsoSurfaceCreateInfo& info, const std::function<void(IsoSurface&)>& feed,
                            iso::testing::Knobs knobs = directKnobs()) {
        std::vector<std::vector<IsoVertexData>> runs;
        for (int instance = 0; instance < 2; ++instance) {
            auto s = make(info, knobs);
            ASSERT_TRUE(s);
            feed(*s);
            for (int f = 0; f < 2; ++f) {
                frame(*s);
                auto v = s->readVertices();
                ASSERT_TRUE(v.ok()) << v.message();
                runs.push_back(std::move(v).value());
            }
        }
        ASSERT_GT(runs[0].size(), 0u);
        for (size_t r = 1; r < runs.size(); ++r) {
            ASSERT_EQ(runs[r].size(), runs[0].size()) << "run " << r;
            EXPECT_EQ(std::memcmp(runs[r].data(), runs[0].data(), runs[0].size() * sizeof(IsoVertexData)), 0)
                << "run " << r << " differs from the first";
        }
    }
};

IsoSurfaceCreateInfo userInfo(const char* glsl, std::array<uint32_t, 3> n, NormalMode normals) {
    IsoSurfaceCreateInfo info;
    info.samples = n;
    info.source = FieldSource::UserGlsl;
    info.fieldGlsl = glsl;
    info.compileGlsl = pyramarch::compileGlsl;
    info.vertexCapacity = 300000;
    info.normals = normals;
    info.isoValue = 0.f;
    return info;
}

TEST_F(IsoDirectBricks, UserFieldsBufferAndFusedMatchTheReferenceInBrickOrder) {
    for (const FieldEvaluation evaluation : {FieldEvaluation::Buffer, FieldEvaluation::Fused}) {
        SCOPED_TRACE(evaluation == FieldEvaluation::Buffer ? "field buffer" : "fused");
        // Odd sizes: short last bricks on every axis; Sobel normals read past brick faces.
        IsoSurfaceCreateInfo info = userInfo(kCayleyGlsl, {29, 22, 19}, NormalMode::Sobel);
        fieldEvaluation = evaluation;
        auto s = make(info, directKnobs());
        ASSERT_TRUE(s);
        frame(*s);
        if (evaluation == FieldEvaluation::Fused) {
            // No field buffer: the reference samples the same GLSL through a buffer surface.
            iso::testing::Knobs buffer = directKnobs();
            buffer.fieldEvaluation = FieldEvaluation::Buffer;
            auto b = make(info, buffer);
            ASSERT_TRUE(b);
            frame(*b);
            auto vs = s->readVertices(), vb = b->readVertices();
            ASSERT_TRUE(vs.ok() && vb.ok());
            ASSERT_EQ(vs->size(), vb->size());
            EXPECT_EQ(std::memcmp(vs->data(), vb->data(), vs->size() * sizeof(IsoVertexData)), 0)
                << "fused and buffer bricks differ";
            expectMatchesReference(info, *b);
        } else {
            expectMatchesReference(info, *s);
        }
    }
}

// User fields with a Lipschitz bound (the default for them on a grid that
// fits): the bricks listed by the bound (no field read), fused (classify
// over the listed bricks) and through a buffer (the field evaluated only on
// the tiles the listed bricks read). A sphere moving across an odd grid
// (the first frame NaN far outside: those bricks' centres list them): each
// frame key for key the reference in brick order, on the field of a twin
// that evaluates every sample (Knobs::denseField).
TEST_F(IsoDirectBricks, BoundedUserFieldsListBricksByTheBound) {
    IsoSurfaceCreateInfo info = userInfo(kMovingSphereGlsl, {35, 29, 33}, NormalMode::Central);
    info.lipschitz = 1.f;
    iso::testing::Knobs full;
    full.fieldEvaluation = FieldEvaluation::Buffer;
    full.denseField = true;
    iso::testing::Knobs buffer;
    buffer.fieldEvaluation = FieldEvaluation::Buffer;
    iso::testing::Knobs fused;
    fused.fieldEvaluation = FieldEvaluation::Fused;
    auto ref = make(info, full);
    auto tiled = make(info, buffer);
    auto f = make(info, fused);
    ASSERT_TRUE(ref && tiled && f);
    for (IsoSurface* s : {ref.get(), tiled.get(), f.get()}) ASSERT_TRUE(iso::testing::directBricks(*s));
    const uint32_t total = ((35 + 6) / 8) * ((29 + 6) / 8) * ((33 + 6) / 8);
    for (const float cx : {-0.45f, 0.4f, 0.f}) {
        SCOPED_TRACE("centre x " + std::to_string(cx));
        for (IsoSurface* s : {ref.get(), tiled.get(), f.get()}) {
            s->setUserParams({cx, 0.1f, -0.05f, 0.35f, cx < 0.f ? 0.3f : 0.f, 0, 0, 0});
            frame(*s);
        }
        expectMatchesReference(info, *tiled, 300, ref.get());
        expectMatchesReference(info, *f, 300, ref.get());
        if (cx < 0.f) continue; // NaN: no bound
        for (IsoSurface* s : {tiled.get(), f.get()}) {
            const auto stats = s->statsOfFrame(s->framesRecorded() - 1);
            ASSERT_TRUE(stats.has_value());
            EXPECT_GT(stats->sparseBricksNeeded, 0u);
            EXPECT_LT(stats->sparseBricksNeeded, total) << "bricks the bound rules out are not listed";
        }
        auto tiles = iso::testing::readFieldTiles(*tiled);
        ASSERT_TRUE(tiles.ok()) << tiles.message();
        EXPECT_LT(tiles->size(), size_t(5 * 4 * 5)) << "tiles no listed brick reads are not evaluated";
    }
    expectBitIdentical(
        info,
        [&](IsoSurface& x) {
            x.setUserParams({0.1f, 0.1f, -0.05f, 0.35f, 0.3f, 0, 0, 0});
        },
        fused);
}

TEST_F(IsoDirectBricks, SphereIsWatertightAndBitIdenticalOverRunsAndInstances) {
    IsoSurfaceCreateInfo info = userInfo(kMovingSphereGlsl, {27, 25, 31}, NormalMode::Central);
    fieldEvaluation = FieldEvaluation::Buffer;
    const std::array<float, 8> params = {0.05f, -0.04f, 0.02f, 0.7f, 0, 0, 0, 0};
    auto s = make(info, directKnobs());
    ASSERT_TRUE(s);
    s->setUserParams(params);
    frame(*s);
    expectMatchesReference(info, *s);
    auto v = s->readVertices();
    ASSERT_TRUE(v.ok());
    size_t misoriented = 0;
    EXPECT_EQ(ref::openEdges(toRef(v.value()), &misoriented), 0u);
    EXPECT_EQ(misoriented, 0u);
    expectBitIdentical(info, [&](IsoSurface& x) { x.setUserParams(params); });
}

TEST_F(IsoDirectBricks, VolumesWithNaNAndIsoOnSampleValuesTexelAndStorageReads) {
    // A u8 volume whose samples take few values (the iso value lands on
    // sample values), NaN in an f32 one.
    const std::array<uint32_t, 3> n = {23, 18, 21};
    std::vector<uint8_t> u8(size_t(n[0]) * n[1] * n[2]);
    std::vector<float> f32(u8.size());
    for (uint32_t z = 0; z < n[2]; ++z)
        for (uint32_t y = 0; y < n[1]; ++y)
            for (uint32_t x = 0; x < n[0]; ++x) {
                const size_t i = x + size_t(n[0]) * (y + size_t(n[1]) * z);
                const float dx = float(x) - 11.f, dy = float(y) - 8.5f, dz = float(z) - 10.f;
                u8[i] = uint8_t(std::min(255.f, std::sqrt(dx * dx + dy * dy + dz * dz) * 12.f)) & 0xf0;
                f32[i] = (x * 7 + y * 3 + z) % 13 == 0 ? NAN : 9.f - std::sqrt(dx * dx + dy * dy + dz * dz);
            }
    for (const bool storage : {false, true}) {
        SCOPED_TRACE(storage ? "storage reads" : "texel reads");
        IsoSurfaceCreateInfo info;
        info.samples = n;
        info.source = FieldSource::Volume;
        info.vertexCapacity = 200000;
        info.normals = NormalMode::Central;
        info.isoValue = 96.f; // a sample value of the u8 volume
        auto s = make(info, directKnobs(storage));
        ASSERT_TRUE(s);
        ASSERT_TRUE(s->uploadVolume(u8.data(), u8.size(), VolumeFormat::U8).ok());
        frame(*s);
        expectMatchesReference(info, *s);
        info.isoValue = 0.5f;
        auto f = make(info, directKnobs(storage));
        ASSERT_TRUE(f);
        ASSERT_TRUE(f->uploadVolume(f32.data(), f32.size() * 4, VolumeFormat::F32).ok());
        frame(*f);
        expectMatchesReference(info, *f);
    }
}

// The bricks brick_list.comp lists: those whose samples lie on both sides
// of the iso value (NaN outside), counted on the CPU.
uint32_t straddlingBricks(const std::vector<float>& f, const std::array<uint32_t, 3>& n, float iso) {
    uint32_t listed = 0;
    for (uint32_t bz = 0; 8 * bz < n[2] - 1; ++bz)
        for (uint32_t by = 0; 8 * by < n[1] - 1; ++by)
            for (uint32_t bx = 0; 8 * bx < n[0] - 1; ++bx) {
                bool inside = false, outside = false;
                for (uint32_t z = 8 * bz; z <= std::min(8 * bz + 8, n[2] - 1); ++z)
                    for (uint32_t y = 8 * by; y <= std::min(8 * by + 8, n[1] - 1); ++y)
                        for (uint32_t x = 8 * bx; x <= std::min(8 * bx + 8, n[0] - 1); ++x) {
                            const float v = f[x + size_t(n[0]) * (y + size_t(n[1]) * z)];
                            (v >= iso ? inside : outside) = true;
                        }
                listed += inside && outside ? 1u : 0u;
            }
    return listed;
}

// Classify and the first build pass run over the listed bricks only; the
// pyramid words of the others are cleared every frame. Across frames the
// list follows the iso value (a volume: bounds kept from the upload) and a
// moving field (bounds every frame): each frame is the reference's, a
// brick listed before and not now leaves nothing behind.
TEST_F(IsoDirectBricks, ListedBricksFollowTheIsoValueAndAMovingField) {
    const std::array<uint32_t, 3> n = {37, 26, 30};
    std::vector<float> f32(size_t(n[0]) * n[1] * n[2]);
    for (uint32_t z = 0; z < n[2]; ++z)
        for (uint32_t y = 0; y < n[1]; ++y)
            for (uint32_t x = 0; x < n[0]; ++x) {
                const float dx = float(x) - 14.f, dy = float(y) - 12.f, dz = float(z) - 13.f;
                f32[x + size_t(n[0]) * (y + size_t(n[1]) * z)] =
                    (x * 5 + y * 11 + z) % 17 == 0 ? NAN : 12.f - std::sqrt(dx * dx + dy * dy + dz * dz);
            }
    IsoSurfaceCreateInfo info;
    info.samples = n;
    info.source = FieldSource::Volume;
    info.vertexCapacity = 200000;
    info.normals = NormalMode::Central;
    auto s = make(info, directKnobs());
    ASSERT_TRUE(s);
    ASSERT_TRUE(iso::testing::directBricks(*s));
    ASSERT_TRUE(s->uploadVolume(f32.data(), f32.size() * 4, VolumeFormat::F32).ok());
    for (const float iso : {1.f, 8.5f, 3.f, 10.f}) {
        SCOPED_TRACE("iso " + std::to_string(iso));
        s->setIsoValue(iso);
        info.isoValue = iso;
        frame(*s);
        expectMatchesReference(info, *s, 30);
        const auto stats = s->statsOfFrame(s->framesRecorded() - 1);
        ASSERT_TRUE(stats.has_value());
        const uint32_t total = ((n[0] + 6) / 8) * ((n[1] + 6) / 8) * ((n[2] + 6) / 8);
        EXPECT_EQ(stats->sparseBricksNeeded, straddlingBricks(f32, n, iso));
        EXPECT_LT(stats->sparseBricksNeeded, total) << "bricks away from the surface are not listed";
    }
    // A sphere that moves: the bricks of its old place go unlisted.
    IsoSurfaceCreateInfo user = userInfo(kMovingSphereGlsl, {35, 29, 33}, NormalMode::Central);
    fieldEvaluation = FieldEvaluation::Buffer;
    auto m = make(user, directKnobs());
    ASSERT_TRUE(m);
    for (const float cx : {-0.45f, 0.4f, 0.f}) {
        SCOPED_TRACE("centre x " + std::to_string(cx));
        m->setUserParams({cx, 0.1f, -0.05f, 0.35f, 0, 0, 0, 0});
        frame(*m);
        expectMatchesReference(user, *m);
    }
}

// Metaballs (the default for them on a grid that fits): the bricks bounded
// by the balls (no field read), the field evaluated only on the tiles the
// listed bricks read. Frames that move the balls (bricks and tiles of the
// old places go unlisted: their samples stay stale) and pass kIsoRowBalls
// (every brick listed); the reference marches a twin's field evaluated at
// every sample (Knobs::denseField), and the tiles' samples have its bits.
TEST_F(IsoDirectBricks, MetaballsBoundedByTheBallsMatchTheReference) {
    IsoSurfaceCreateInfo info;
    info.samples = {33, 30, 35};
    info.source = FieldSource::Metaballs;
    info.vertexCapacity = 300000;
    info.isoValue = 0.35f;
    info.maxBalls = 80;
    info.normals = NormalMode::Sobel;
    auto s = make(info);
    iso::testing::Knobs everySample;
    everySample.denseField = true;
    auto dense = make(info, everySample);
    ASSERT_TRUE(s && dense);
    ASSERT_TRUE(iso::testing::directBricks(*s));
    ASSERT_TRUE(iso::testing::directBricks(*dense));
    std::vector<Metaball> balls = {{{-0.4f, 0.f, 0.f}, 0.6f, 1.f, {}},
                                   {{0.35f, 0.1f, 0.f}, 0.55f, 1.f, {}},
                                   {{0.f, 0.45f, 0.2f}, 0.5f, 0.8f, {}},
                                   {{0.1f, -0.3f, -0.4f}, 0.5f, -0.5f, {}}};
    std::vector<Metaball> many;
    const auto rnd = ref::noise(70 * 5, 9);
    for (uint32_t i = 0; i < 70; ++i)
        many.push_back({{rnd[i * 5] * 1.6f - 0.8f, rnd[i * 5 + 1] * 1.6f - 0.8f, rnd[i * 5 + 2] * 1.6f - 0.8f},
                        0.15f + 0.2f * rnd[i * 5 + 3],
                        0.6f + rnd[i * 5 + 4],
                        {}});
    const uint32_t total = ((33 + 6) / 8) * ((30 + 6) / 8) * ((35 + 6) / 8);
    const auto tilesOf = [](uint32_t n) { return (n + 7) / 8; };
    const uint32_t allTiles = tilesOf(33) * tilesOf(30) * tilesOf(35);
    for (int f = 0; f < 3; ++f) {
        SCOPED_TRACE("frame " + std::to_string(f));
        const std::vector<Metaball>& now = f == 2 ? many : balls;
        for (IsoSurface* x : {s.get(), dense.get()}) {
            ASSERT_TRUE(x->setMetaballs(now).ok());
            frame(*x);
        }
        expectMatchesReference(info, *s, 300, dense.get());
        const auto stats = s->statsOfFrame(s->framesRecorded() - 1);
        ASSERT_TRUE(stats.has_value());
        auto tiles = iso::testing::readFieldTiles(*s);
        ASSERT_TRUE(tiles.ok()) << tiles.message();
        if (f < 2) {
            EXPECT_LT(stats->sparseBricksNeeded, total) << "bricks no ball reaches, or inside a blob, are not listed";
            EXPECT_LT(tiles.value().size(), allTiles) << "tiles no listed brick reads are not evaluated";
        } else {
            EXPECT_EQ(stats->sparseBricksNeeded, total) << "past kIsoRowBalls balls every brick is listed";
            EXPECT_EQ(tiles.value().size(), allTiles);
        }
        auto a = s->readField(), b = dense->readField();
        ASSERT_TRUE(a.ok() && b.ok());
        for (uint32_t tile : tiles.value()) {
            const uint32_t o[3] = {tile % tilesOf(33) * 8, tile / tilesOf(33) % tilesOf(30) * 8,
                                   tile / (tilesOf(33) * tilesOf(30)) * 8};
            for (uint32_t z = o[2]; z < std::min(o[2] + 8, 35u); ++z)
                for (uint32_t y = o[1]; y < std::min(o[1] + 8, 30u); ++y)
                    for (uint32_t x = o[0]; x < std::min(o[0] + 8, 33u); ++x) {
                        const size_t i = x + 33 * (y + size_t(30) * z);
                        ASSERT_EQ(0, std::memcmp(&a.value()[i], &b.value()[i], 4)) << x << "," << y << "," << z;
                    }
        }
        // The next frame moves the balls: the old places' bricks and tiles go unlisted.
        for (Metaball& m : balls) m.center[0] += 0.15f;
    }
    expectBitIdentical(info, [&](IsoSurface& x) { ASSERT_TRUE(x.setMetaballs(balls).ok()); }, {});
}

// Anisotropic kernels and position smoothing need the gather's sorted
// particles: on a grid that fits they run as on the dense path and the
// bricks read their field.
TEST_F(IsoDirectBricks, AnisotropicAndSmoothedParticlesMatchTheReference) {
    const auto xyz =
        jitteredLattice(0.05f, 0.2f, {-0.3f, -0.25f, -0.2f}, {0.3f, 0.25f, 0.2f}, [](const std::array<float, 3>& p) {
            return p[0] * p[0] / 0.09f + p[1] * p[1] / 0.05f + p[2] * p[2] / 0.03f <= 1.f;
        });
    ASSERT_GT(xyz.size(), 200u);
    std::vector<Particle> particles;
    for (const auto& p : xyz) particles.push_back({{p[0], p[1], p[2]}, 1.f});
    IsoSurfaceCreateInfo info = cliParticleSurfaceInfo(xyz, 0.05f);
    info.maxParticles = uint32_t(particles.size());
    info.vertexCapacity = 400000;
    info.anisotropic.enabled = true;
    info.particleSmoothing = 0.5f;
    auto s = make(info, directKnobs());
    ASSERT_TRUE(s);
    EXPECT_EQ(iso::testing::splatMethod(*s), SplatMethod::Gather);
    ASSERT_TRUE(s->setParticles(particles).ok());
    frame(*s);
    expectMatchesReference(info, *s);
    auto v = s->readVertices();
    ASSERT_TRUE(v.ok());
    EXPECT_EQ(ref::openEdges(toRef(v.value())), 0u) << "a closed blob";
    expectBitIdentical(info, [&](IsoSurface& x) { ASSERT_TRUE(x.setParticles(particles).ok()); });
}

// Particles (on the bricks by default): the bricks bounded by the tiles
// the field pass found nonzero (no pass over the field for the list), with
// the gather and the scatter. A cloud in one corner of the grid: the bricks
// no particle reaches are not listed; an iso value of 0 lists every brick
// (unreached samples are inside there).
TEST_F(IsoDirectBricks, ParticlesListTheBricksTheirTilesReach) {
    const auto xyz =
        jitteredLattice(0.06f, 0.2f, {-0.8f, -0.7f, -0.75f}, {-0.1f, 0.f, -0.05f}, [](const std::array<float, 3>& p) {
            const float dx = p[0] + 0.45f, dy = p[1] + 0.35f, dz = p[2] + 0.4f;
            return dx * dx + dy * dy + dz * dz <= 0.1f;
        });
    ASSERT_GT(xyz.size(), 50u);
    std::vector<Particle> particles;
    for (const auto& p : xyz) particles.push_back({{p[0], p[1], p[2]}, 1.f});
    IsoSurfaceCreateInfo info = cliParticleSurfaceInfo(xyz, 0.06f);
    info.samples = {37, 30, 34};
    info.boundsMin = {-1.f, -1.f, -1.f};
    info.boundsMax = {1.f, 1.f, 1.f};
    info.maxParticles = uint32_t(particles.size());
    info.vertexCapacity = 400000;
    const uint32_t total = ((37 + 6) / 8) * ((30 + 6) / 8) * ((34 + 6) / 8);
    for (const SplatMethod method : {SplatMethod::Gather, SplatMethod::Scatter}) {
        SCOPED_TRACE(method == SplatMethod::Gather ? "gather" : "scatter");
        iso::testing::Knobs knobs;
        knobs.splat = method;
        auto s = make(info, knobs);
        ASSERT_TRUE(s);
        ASSERT_TRUE(iso::testing::directBricks(*s));
        ASSERT_TRUE(s->setParticles(particles).ok());
        frame(*s);
        expectMatchesReference(info, *s);
        auto stats = s->statsOfFrame(s->framesRecorded() - 1);
        ASSERT_TRUE(stats.has_value());
        EXPECT_GT(stats->sparseBricksNeeded, 0u);
        EXPECT_LT(stats->sparseBricksNeeded, total / 2) << "bricks no particle reaches are not listed";
        s->setIsoValue(0.f);
        frame(*s);
        IsoSurfaceCreateInfo zero = info;
        zero.isoValue = 0.f;
        expectMatchesReference(zero, *s, 0);
        stats = s->statsOfFrame(s->framesRecorded() - 1);
        ASSERT_TRUE(stats.has_value());
        EXPECT_EQ(stats->sparseBricksNeeded, total);
    }
}

// Indexed output: one vertex per cut edge, and the triangles the indices
// name are the reference's, key for key in brick order (index k names the
// vertex the soup writes at key k); bit-identical runs; mesh smoothing runs
// on it as a post-process.
TEST_F(IsoDirectBricks, IndexedOutputIsTheReferenceSoupWithSharedVertices) {
    const auto check = [&](IsoSurfaceCreateInfo info, const std::function<void(IsoSurface&)>& feed,
                           iso::testing::Knobs knobs) {
        info.indexed = true;
        info.indexCapacity = 400000;
        auto s = make(info, knobs);
        ASSERT_TRUE(s);
        feed(*s);
        frame(*s);
        auto field = s->readField();
        const ref::Grid g = referenceGridOf(info);
        std::vector<float> samples;
        if (field.ok()) {
            samples = std::move(field).value();
        } else {
            // Fused: the same GLSL through a buffer surface.
            iso::testing::Knobs buffer = knobs;
            buffer.fieldEvaluation = FieldEvaluation::Buffer;
            auto b = make(info, buffer);
            ASSERT_TRUE(b);
            feed(*b);
            frame(*b);
            auto f = b->readField();
            ASSERT_TRUE(f.ok()) << f.message();
            samples = std::move(f).value();
        }
        const ref::McResult cpu = ref::marchingCubes(g, samples.data(), s->isoValue(), refNormals(info.normals));
        ASSERT_GT(cpu.vertices.size(), 300u);
        auto v = s->readVertices();
        auto idx = s->readIndices();
        ASSERT_TRUE(v.ok() && idx.ok());
        ASSERT_EQ(idx->size(), cpu.vertices.size());
        std::vector<IsoVertexData> soup(idx->size());
        for (size_t k = 0; k < idx->size(); ++k) {
            ASSERT_LT((*idx)[k], v->size());
            soup[k] = (*v)[(*idx)[k]];
            soup[k].position[3] = 0.f;
        }
        const auto expected = inBrickOrder(cpu, info.samples);
        const float tol = ref::positionTolerance(g);
        const auto gpu = toRef(soup);
        for (size_t k = 0; k < gpu.size(); ++k) {
            bool same = true;
            for (int c = 0; c < 3; ++c) same = same && std::fabs(gpu[k].p[c] - expected[k].p[c]) <= tol;
            if (!same) {
                ADD_FAILURE() << "index " << k << " names another vertex than the reference's in brick order";
                break;
            }
        }
        // One vertex per cut edge, each used: their distinct positions are
        // the reference's welded ones (edges cut exactly at a shared sample
        // keep a vertex each).
        std::vector<bool> used(v->size(), false);
        for (const uint32_t i : idx.value()) used[i] = true;
        EXPECT_EQ(std::count(used.begin(), used.end(), false), 0) << "a vertex no triangle uses";
        std::vector<std::array<uint32_t, 3>> positions;
        for (const IsoVertexData& x : v.value()) {
            std::array<uint32_t, 3> b{};
            std::memcpy(b.data(), x.position, sizeof(b));
            positions.push_back(b);
        }
        std::sort(positions.begin(), positions.end());
        const size_t distinct = size_t(std::unique(positions.begin(), positions.end()) - positions.begin());
        EXPECT_EQ(distinct, ref::weld(cpu.vertices).uniqueVertices);
        EXPECT_LE(v->size(), distinct + distinct / 50) << "vertices repeat only where an edge is cut at a sample";
        const auto stats = s->statsOfFrame(0);
        ASSERT_TRUE(stats.has_value());
        EXPECT_FALSE(stats->overflow);
        // Two more instances: the same vertex and index bytes.
        auto again = make(info, knobs);
        ASSERT_TRUE(again);
        feed(*again);
        frame(*again);
        auto v2 = again->readVertices();
        auto i2 = again->readIndices();
        ASSERT_TRUE(v2.ok() && i2.ok());
        ASSERT_EQ(v2->size(), v->size());
        ASSERT_EQ(i2->size(), idx->size());
        EXPECT_EQ(std::memcmp(v2->data(), v->data(), v->size() * sizeof(IsoVertexData)), 0);
        EXPECT_EQ(std::memcmp(i2->data(), idx->data(), idx->size() * 4), 0);
    };
    {
        SCOPED_TRACE("user field, buffer and fused");
        for (const FieldEvaluation e : {FieldEvaluation::Buffer, FieldEvaluation::Fused}) {
            iso::testing::Knobs knobs = directKnobs();
            knobs.fieldEvaluation = e;
            check(
                userInfo(kCayleyGlsl, {25, 19, 22}, NormalMode::Central), [](IsoSurface&) {}, knobs);
        }
    }
    {
        SCOPED_TRACE("metaballs, storage reads");
        IsoSurfaceCreateInfo info;
        info.samples = {27, 26, 30};
        info.source = FieldSource::Metaballs;
        info.vertexCapacity = 300000;
        info.isoValue = 0.35f;
        info.maxBalls = 4;
        const std::vector<Metaball> balls = {{{-0.3f, 0.f, 0.f}, 0.6f, 1.f, {}}, {{0.35f, 0.1f, 0.f}, 0.55f, 1.f, {}}};
        check(
            info, [&](IsoSurface& x) { ASSERT_TRUE(x.setMetaballs(balls).ok()); }, directKnobs(true));
    }
}

TEST_F(IsoDirectBricks, MeshSmoothingRunsOnTheIndexedBricks) {
    IsoSurfaceCreateInfo info = userInfo(kMovingSphereGlsl, {23, 23, 23}, NormalMode::Central);
    fieldEvaluation = FieldEvaluation::Buffer;
    info.indexed = true;
    info.indexCapacity = 200000;
    info.meshSmoothing.iterations = 2;
    const std::array<float, 8> params = {0.f, 0.f, 0.f, 0.7f, 0, 0, 0, 0};
    expectBitIdentical(info, [&](IsoSurface& x) { x.setUserParams(params); });
    auto s = make(info, directKnobs());
    ASSERT_TRUE(s);
    s->setUserParams(params);
    frame(*s);
    auto v = s->readVertices();
    auto idx = s->readIndices();
    ASSERT_TRUE(v.ok() && idx.ok());
    ASSERT_GT(idx->size(), 300u);
    // Still closed, every vertex near the sphere (smoothing shrinks it a little).
    std::vector<ref::Vertex> soup;
    for (const uint32_t i : idx.value()) {
        ref::Vertex r{};
        for (int c = 0; c < 3; ++c) r.p[c] = (*v)[i].position[c];
        soup.push_back(r);
        const float d = std::sqrt(r.p[0] * r.p[0] + r.p[1] * r.p[1] + r.p[2] * r.p[2]);
        ASSERT_NEAR(d, 0.7f, 0.1f);
    }
    EXPECT_EQ(ref::openEdges(soup), 0u);
}

TEST_F(IsoDirectBricks, CapacityClampsToWholeTrianglesWithTheNeededCount) {
    IsoSurfaceCreateInfo info = userInfo(kCayleyGlsl, {21, 21, 21}, NormalMode::Forward);
    fieldEvaluation = FieldEvaluation::Buffer;
    auto full = make(info, directKnobs());
    ASSERT_TRUE(full);
    frame(*full);
    auto all = full->readVertices();
    ASSERT_TRUE(all.ok());
    const uint32_t needed = uint32_t(all->size());
    ASSERT_GT(needed, 300u);
    info.vertexCapacity = needed / 2 + 1; // rounds down to whole triangles
    auto s = make(info, directKnobs());
    ASSERT_TRUE(s);
    frame(*s);
    const auto stats = s->statsOfFrame(0);
    ASSERT_TRUE(stats.has_value());
    EXPECT_TRUE(stats->overflow);
    EXPECT_EQ(stats->verticesNeeded, needed);
    EXPECT_EQ(stats->verticesWritten, info.vertexCapacity / 3 * 3);
    auto v = s->readVertices();
    ASSERT_TRUE(v.ok());
    ASSERT_EQ(v->size(), info.vertexCapacity / 3 * 3);
    // The written ones are the first of the full surface's, in order.
    EXPECT_EQ(std::memcmp(v->data(), all->data(), v->size() * sizeof(IsoVertexData)), 0);
}

} // namespace
