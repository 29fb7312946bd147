// Determinism of the isosurface module: the same inputs give bit-identical
// vertex buffers across instances and across repeated frames of one
// instance, and the two extraction methods the same triangles.
//
// Why it holds (and what this test pins down): every vertex's slot is a
// function of the grid's order only (HistoPyramid on a grid that fits: key ->
// brick, row pair, cell by a top-down walk over the direct brick table;
// Scan: exclusive prefix of per-cell counts in cell order), never of thread timing;
// the particle splat accumulates with integer atomics (order independent);
// float sums (metaballs) run per sample in a fixed loop order. So the *order*
// is deterministic too, not only the sorted set; the test checks both.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <sstream>
#include <random>

#include "isosurface/iso_shared.h"
#include "pyramarch/engine/shader_compiler.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/isosurface/isosurface.h"
#include "pyramarch/isosurface/testing.h"
#include "support/gpu_test.h"

using namespace pyramarch;
using namespace pyramarch::iso;
using iso::testing::ExtractionMethod;
using iso::testing::SplatMethod;

namespace {

struct Output {
    std::vector<IsoVertexData> vertices;
    std::vector<uint32_t> indices; // indexed output only
    std::vector<uint32_t> drawArgs;
    std::vector<float> field;
    bool bricks = false; // the direct brick table: brick order (else cell order)
};

std::vector<Metaball> balls() {
    std::vector<Metaball> b;
    for (int i = 0; i < 7; ++i) {
        const float t = float(i) * 0.9f;
        b.push_back(
            {{0.55f * std::sin(t), 0.5f * std::cos(1.3f * t), 0.45f * std::sin(0.7f * t + 1.f)}, 0.6f, 1.f, {}});
    }
    return b;
}

std::vector<Particle> particles() {
    std::mt19937 rng(7);
    std::normal_distribution<float> n(0.f, 0.35f);
    std::vector<Particle> p(4000);
    for (auto& q : p) q = {{n(rng), n(rng), n(rng)}, 0.05f};
    return p;
}

// Smooth waves plus a little noise, quantised to u16 (a scanner-like volume).
std::vector<uint16_t> volume(std::array<uint32_t, 3> s) {
    std::vector<uint16_t> v(size_t(s[0]) * s[1] * s[2]);
    std::mt19937 rng(11);
    size_t i = 0;
    for (uint32_t z = 0; z < s[2]; ++z)
        for (uint32_t y = 0; y < s[1]; ++y)
            for (uint32_t x = 0; x < s[0]; ++x, ++i) {
                const float f =
                    std::sin(0.35f * float(x)) * std::cos(0.3f * float(y)) + 0.5f * std::sin(0.25f * float(z));
                v[i] = uint16_t(std::clamp(32768.f + 20000.f * f + float(rng() % 512), 0.f, 65535.f));
            }
    return v;
}

bool sameBytes(const std::vector<IsoVertexData>& a, const std::vector<IsoVertexData>& b) {
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(IsoVertexData)) == 0);
}

// Where two fields differ bit for bit: how many samples, the first one and
// its values (in 16.16 fixed-point units of the splat, the quantum of both
// particle forms), so a failure says whether one term or a rounding differs.
std::string fieldDifference(const std::vector<float>& a, const std::vector<float>& b) {
    if (a.size() != b.size()) return "sizes " + std::to_string(a.size()) + " vs " + std::to_string(b.size());
    size_t count = 0, first = 0;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::memcmp(&a[i], &b[i], 4) != 0 && count++ == 0) first = i;
    if (count == 0) return "";
    std::ostringstream o;
    o << count << " of " << a.size() << " samples differ; first " << first << ": " << a[first] << " vs " << b[first]
      << " (" << (double(a[first]) - double(b[first])) * 65536.0 << " fixed-point units)";
    return o.str();
}

// Triangles as 96-byte records, sorted bytewise: the order-free form.
std::vector<std::array<uint8_t, 96>> sortedTriangles(const std::vector<IsoVertexData>& v) {
    std::vector<std::array<uint8_t, 96>> t(v.size() / 3);
    for (size_t i = 0; i < t.size(); ++i) std::memcpy(t[i].data(), &v[3 * i], 96);
    std::sort(t.begin(), t.end());
    return t;
}

class Determinism : public test::GpuTest {
protected:
    IsoSurfaceCreateInfo info(FieldSource source) {
        IsoSurfaceCreateInfo i;
        i.samples = {29, 23, 26};
        i.boundsMin = {-1.1f, -1.f, -0.95f};
        i.boundsMax = {1.f, 1.05f, 1.f};
        i.vertexCapacity = 3 * 40000;
        i.source = source;
        i.normals = NormalMode::Sobel;
        i.maxParticles = 4000;
        i.particleRadius = 0.15f;
        i.isoValue = source == FieldSource::Volume ? 32768.f : source == FieldSource::UserGlsl ? 0.f : 0.35f;
        i.fieldGlsl =
            "float field(vec3 p) { return sin(5.0 * p.x + iso_time) * cos(4.0 * p.y) + 0.6 * sin(3.0 * p.z) - 0.1; }\n";
#ifdef PYRAMARCH_HAVE_SHADER_COMPILER
        i.compileGlsl = pyramarch::compileGlsl;
#endif
        return i;
    }

    // One fresh instance (with the measured variants of `knobs`): create,
    // feed, run `frames` frames, read everything back.
    Output run(const IsoSurfaceCreateInfo& i, int frames = 1, const iso::testing::Knobs& knobs = {}) {
        Output out;
        auto r = iso::testing::create(device(), i, knobs);
        EXPECT_TRUE(r.ok()) << r.message();
        if (!r) return out;
        IsoSurface& iso = **r;
        out.bricks = iso::testing::directBricks(iso);
        const auto b = balls();
        const auto p = particles();
        const auto v = volume(i.samples);
        for (int f = 0; f < frames; ++f) {
            switch (i.source) {
            case FieldSource::Metaballs: EXPECT_OK(iso.setMetaballs(b)); break;
            case FieldSource::Particles: EXPECT_OK(iso.setParticles(p)); break;
            case FieldSource::Volume: EXPECT_OK(iso.uploadVolume(v.data(), v.size() * 2, VolumeFormat::U16)); break;
            case FieldSource::UserGlsl: iso.setTime(0.25f); break;
            }
            Status inner;
            EXPECT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) { inner = iso.record(cmd); }));
            EXPECT_OK(inner);
        }
        auto verts = iso.readVertices();
        EXPECT_TRUE(verts.ok()) << verts.message();
        if (verts) out.vertices = std::move(verts).value();
        auto args = iso::testing::readDrawArgs(iso);
        if (args) out.drawArgs = std::move(args).value();
        if (i.indexed) {
            auto idx = iso.readIndices();
            EXPECT_TRUE(idx.ok()) << idx.message();
            if (idx) out.indices = std::move(idx).value();
        }
        auto field = iso.readField();
        if (field) out.field = std::move(field).value();
        return out;
    }
};

const FieldSource kSources[] = {FieldSource::Metaballs, FieldSource::Particles, FieldSource::Volume,
                                FieldSource::UserGlsl};
const char* sourceName(FieldSource s) {
    return s == FieldSource::Metaballs   ? "metaballs"
           : s == FieldSource::Particles ? "particles"
           : s == FieldSource::Volume    ? "volume"
                                         : "glsl";
}

} // namespace

TEST_F(Determinism, SameInputsBitIdenticalAcrossInstancesAndFrames) {
    for (FieldSource source : kSources) {
        SCOPED_TRACE(sourceName(source));
        const IsoSurfaceCreateInfo i = info(source);
        const Output a = run(i);
        const Output b = run(i);
        const Output c = run(i, 3); // later frames of one instance, ring slots rotated
        ASSERT_GT(a.vertices.size(), 300u) << "the scene should have a real surface";
        ASSERT_LT(a.vertices.size(), i.vertexCapacity) << "no overflow, so the whole surface is compared";
        EXPECT_TRUE(sameBytes(a.vertices, b.vertices)) << "two instances differ";
        EXPECT_TRUE(sameBytes(a.vertices, c.vertices)) << "frame 3 differs from frame 1";
        EXPECT_EQ(a.drawArgs, b.drawArgs);
        EXPECT_EQ(a.drawArgs, c.drawArgs);
        if (source == FieldSource::UserGlsl) {
            // IsoSurface::create fuses user fields into classify and
            // extraction: no field buffer to read; the vertices cover it.
            EXPECT_TRUE(a.field.empty() && b.field.empty());
        } else {
            ASSERT_FALSE(a.field.empty());
            ASSERT_EQ(a.field.size(), b.field.size());
            EXPECT_EQ(std::memcmp(a.field.data(), b.field.data(), a.field.size() * 4), 0) << "field samples differ";
        }
    }
}

TEST_F(Determinism, PyramidAndScanGiveTheSameBytes) {
    for (FieldSource source : kSources) {
        SCOPED_TRACE(sourceName(source));
        const Output pyramid = run(info(source));
        const Output scan = run(info(source), 1, {.extraction = ExtractionMethod::Scan});
        ASSERT_GT(pyramid.vertices.size(), 300u);
        // The same triangles, byte for byte; on the direct brick table (every
        // source's default) the HistoPyramid's order is brick order, fixed
        // from run to run too, and the scan's cell order.
        EXPECT_EQ(sortedTriangles(pyramid.vertices), sortedTriangles(scan.vertices)) << "different triangle sets";
        EXPECT_TRUE(pyramid.bricks);
        if (!pyramid.bricks) EXPECT_TRUE(sameBytes(pyramid.vertices, scan.vertices)) << "same set, different order";
        ASSERT_EQ(pyramid.drawArgs.size(), scan.drawArgs.size());
        constexpr size_t vertexCount = offsetof(iso::gpu::IsoArgs, vertexCount) / sizeof(uint32_t);
        EXPECT_EQ(pyramid.drawArgs[vertexCount], scan.drawArgs[vertexCount]) << "draw vertex count";
    }
}

TEST_F(Determinism, OverflowKeepsTheSamePrefix) {
    // With too small a capacity both methods keep the first whole triangles
    // of their own order (HistoPyramid: brick order; Scan: cell order), so
    // what is drawn does not flicker between runs.
    for (ExtractionMethod m : {ExtractionMethod::HistoPyramid, ExtractionMethod::Scan}) {
        IsoSurfaceCreateInfo i = info(FieldSource::Metaballs);
        const Output full = run(i, 1, {.extraction = m});
        i.vertexCapacity = uint32_t(full.vertices.size() / 2 + 1);
        const Output a = run(i, 1, {.extraction = m});
        const Output b = run(i, 1, {.extraction = m});
        EXPECT_TRUE(sameBytes(a.vertices, b.vertices));
        ASSERT_EQ(a.vertices.size(), i.vertexCapacity / 3 * 3);
        EXPECT_EQ(std::memcmp(a.vertices.data(), full.vertices.data(), a.vertices.size() * sizeof(IsoVertexData)), 0);
    }
}

TEST_F(Determinism, IndexedOutputBitIdentical) {
    // Shared vertices: the cut-edge enumeration and the indices follow the
    // same key order, so both buffers are reproducible byte for byte.
    for (FieldSource source : kSources) {
        SCOPED_TRACE(sourceName(source));
        IsoSurfaceCreateInfo i = info(source);
        i.indexed = true;
        i.indexCapacity = 3 * 60000;
        const Output a = run(i);
        const Output b = run(i);
        const Output c = run(i, 3);
        ASSERT_GT(a.indices.size(), 300u);
        ASSERT_GT(a.vertices.size(), 100u);
        EXPECT_TRUE(sameBytes(a.vertices, b.vertices));
        EXPECT_TRUE(sameBytes(a.vertices, c.vertices));
        EXPECT_EQ(a.indices, b.indices);
        EXPECT_EQ(a.indices, c.indices);
        // The same triangles as the non-indexed output, position for position.
        const Output flat = run(info(source));
        ASSERT_EQ(a.indices.size(), flat.vertices.size());
        for (size_t k = 0; k < a.indices.size(); ++k) {
            ASSERT_LT(a.indices[k], a.vertices.size());
            ASSERT_EQ(std::memcmp(a.vertices[a.indices[k]].position, flat.vertices[k].position, 12), 0)
                << "index " << k;
        }
    }
}

TEST_F(Determinism, ParticleGatherIsOrderIndependent) {
    // The gather form sums bins whose order follows an atomic counting sort;
    // fixed-point sums make it reproducible and equal to the scatter form.
    const IsoSurfaceCreateInfo i = info(FieldSource::Particles);
    const iso::testing::Knobs gather{.splat = SplatMethod::Gather};
    const Output a = run(i, 1, gather);
    const Output b = run(i, 1, gather);
    const Output c = run(i, 3, gather);
    const Output scatter = run(i, 1, {.splat = SplatMethod::Scatter});
    ASSERT_GT(a.vertices.size(), 300u);
    ASSERT_EQ(a.field.size(), scatter.field.size());
    EXPECT_EQ(std::memcmp(a.field.data(), b.field.data(), a.field.size() * 4), 0)
        << "gather field differs between instances";
    EXPECT_EQ(std::memcmp(a.field.data(), c.field.data(), a.field.size() * 4), 0)
        << "gather field differs between frames";
    EXPECT_EQ(fieldDifference(a.field, scatter.field), "") << "gather and scatter fields differ";
    EXPECT_TRUE(sameBytes(a.vertices, b.vertices));
    EXPECT_TRUE(sameBytes(a.vertices, c.vertices));
    EXPECT_TRUE(sameBytes(a.vertices, scatter.vertices));
}
