// The create-infos for the common sources (metaballSurface, particleSurface,
// volumeSurface, userFieldSurface): each creates a surface whose frame gives
// the vertices of the same surface written out field by field, bit for bit
// (a volume's also against the CPU reference); bad arguments reach create()
// and come back as its error.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "pyramarch/engine/transfer.h"
#include "pyramarch/isosurface/isosurface.h"
#include "pyramarch/isosurface/particle_grid.h"
#include "iso_reference_convert.h"
#include "reference.h"
#include "reference_grid.h"
#include "support/gpu_test.h"
#if PYRAMARCH_HAVE_SHADER_COMPILER
#include "pyramarch/engine/shader_compiler.h"
#endif

using namespace pyramarch;
using namespace pyramarch::iso;

namespace {

class EntryPointTest : public test::GpuTest {
protected:
    // Creates a surface from `info`, gives it its input, runs one frame and
    // reads its vertices back (at least one triangle expected).
    std::vector<IsoVertexData> run(const IsoSurfaceCreateInfo& info, const std::function<Status(IsoSurface&)>& feed) {
        auto created = IsoSurface::create(device(), info);
        EXPECT_TRUE(created.ok()) << created.message();
        if (!created) return {};
        IsoSurface& iso = **created;
        Status fed = feed(iso);
        EXPECT_TRUE(fed.ok()) << fed.message();
        Status inner;
        Status ran = submitAndWait(device(), [&](VkCommandBuffer cmd) { inner = iso.record(cmd); });
        EXPECT_TRUE(ran.ok()) << ran.message();
        EXPECT_TRUE(inner.ok()) << inner.message();
        auto v = iso.readVertices();
        EXPECT_TRUE(v.ok()) << v.message();
        if (!v) return {};
        EXPECT_GE(v->size(), 3u);
        return std::move(v).value();
    }
    // The helper's surface and the hand-written one give the same bytes.
    void expectSameVertices(const IsoSurfaceCreateInfo& helper, const IsoSurfaceCreateInfo& byHand,
                            const std::function<Status(IsoSurface&)>& feed) {
        const auto a = run(helper, feed);
        const auto b = run(byHand, feed);
        ASSERT_EQ(a.size(), b.size());
        EXPECT_TRUE(a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(IsoVertexData)) == 0);
    }
    // create() refuses `info` with `code`, its message naming `field`.
    void expectRefused(const IsoSurfaceCreateInfo& info, ErrorCode code, const std::string& field) {
        auto created = IsoSurface::create(device(), info);
        ASSERT_FALSE(created.ok());
        EXPECT_EQ(created.code(), code) << created.message();
        EXPECT_NE(created.message().find(field), std::string::npos) << created.message();
    }
};

const std::vector<Metaball> kBalls = {{{-0.3f, 0.f, 0.f}, 0.7f, 1.f, {}}, {{0.35f, 0.1f, 0.f}, 0.6f, 1.f, {}}};

// Two clusters of particles, 0.1 apart on a lattice.
std::vector<Particle> particles() {
    std::vector<Particle> out;
    for (int c = 0; c < 2; ++c)
        for (int z = 0; z < 4; ++z)
            for (int y = 0; y < 4; ++y)
                for (int x = 0; x < 4; ++x)
                    out.push_back(
                        {{0.1f * float(x) - 0.5f + 0.6f * float(c), 0.1f * float(y) - 0.15f, 0.1f * float(z) - 0.15f},
                         1.f});
    return out;
}

TEST_F(EntryPointTest, MetaballSurfaceIsTheHandWrittenOne) {
    IsoSurfaceCreateInfo byHand;
    byHand.samples = {24, 20, 17};
    byHand.source = FieldSource::Metaballs;
    byHand.maxBalls = 8;
    byHand.isoValue = 0.4f;
    const auto feed = [](IsoSurface& s) { return s.setMetaballs(kBalls); };
    expectSameVertices(metaballSurface({24, 20, 17}, 8, 0.4f), byHand, feed);
    // The default iso value is the module's.
    EXPECT_EQ(metaballSurface({24, 20, 17}, 8).isoValue, IsoSurfaceCreateInfo{}.isoValue);
}

TEST_F(EntryPointTest, ParticleSurfaceIsTheHandWrittenOne) {
    const std::vector<Particle> p = particles();
    IsoSurfaceCreateInfo byHand;
    byHand.samples = {33, 17, 17};
    byHand.boundsMin = {-0.8f, -0.4f, -0.4f};
    byHand.boundsMax = {0.8f, 0.4f, 0.4f};
    byHand.source = FieldSource::Particles;
    byHand.maxParticles = uint32_t(p.size());
    byHand.particleRadius = 0.15f;
    byHand.isoValue = 1.5f;
    const auto feed = [&](IsoSurface& s) { return s.setParticles(p); };
    expectSameVertices(
        particleSurface({33, 17, 17}, {-0.8f, -0.4f, -0.4f}, {0.8f, 0.4f, 0.4f}, uint32_t(p.size()), 0.15f, 1.5f),
        byHand, feed);

    // From particleGrid(): the particles' bounds padded by the radius at a voxel size.
    ParticleBounds bounds;
    for (const Particle& q : p) bounds.add(q.position[0], q.position[1], q.position[2]);
    auto grid = particleGrid(bounds, 0.05f, 0.15f);
    ASSERT_TRUE(grid.ok()) << grid.message();
    IsoSurfaceCreateInfo onGrid = byHand;
    onGrid.samples = grid->samples;
    onGrid.boundsMin = grid->boundsMin;
    onGrid.boundsMax = grid->boundsMax;
    expectSameVertices(particleSurface(*grid, uint32_t(p.size()), 0.15f, 1.5f), onGrid, feed);
}

TEST_F(EntryPointTest, VolumeSurfaceIsTheHandWrittenOneAndTheReference) {
    const std::array<uint32_t, 3> n{21, 18, 15};
    IsoSurfaceCreateInfo byHand;
    byHand.samples = n;
    byHand.source = FieldSource::Volume;
    byHand.isoValue = 0.25f;
    ref::Grid g = referenceGridOf(byHand);
    const std::vector<float> data =
        ref::sampleField(g, [](float x, float y, float z) { return ref::sphere(x, y, z, 0.1f, -0.05f, 0.f, 0.7f); });
    const auto feed = [&](IsoSurface& s) {
        return s.uploadVolume(data.data(), data.size() * sizeof(float), VolumeFormat::F32);
    };
    const IsoSurfaceCreateInfo helper = volumeSurface(n, 0.25f);
    expectSameVertices(helper, byHand, feed);
    // Against the CPU's marching cubes of the same samples.
    const ref::McResult cpu = ref::marchingCubes(g, data.data(), 0.25f, refNormals(helper.normals));
    EXPECT_EQ(ref::compareTriangleSets(cpu.vertices, toRef(run(helper, feed)), ref::positionTolerance(g), 1e-3f), "");
}

#if PYRAMARCH_HAVE_SHADER_COMPILER
TEST_F(EntryPointTest, UserFieldSurfaceIsTheHandWrittenOne) {
    const std::string sphere = "float field(vec3 p) { return 0.7 - length(p - vec3(0.1, 0.0, -0.1)); }\n";
    IsoSurfaceCreateInfo byHand;
    byHand.samples = {19, 23, 21};
    byHand.source = FieldSource::UserGlsl;
    byHand.fieldGlsl = sphere;
    byHand.compileGlsl = pyramarch::compileGlsl;
    byHand.isoValue = 0.f;
    const auto feed = [](IsoSurface&) { return Status{}; };
    expectSameVertices(userFieldSurface({19, 23, 21}, sphere, pyramarch::compileGlsl), byHand, feed);
    // With a Lipschitz bound (a signed distance: 1) and another iso value.
    byHand.lipschitz = 1.f;
    byHand.isoValue = 0.1f;
    expectSameVertices(userFieldSurface({19, 23, 21}, sphere, pyramarch::compileGlsl, 1.f, 0.1f), byHand, feed);
}
#endif

// The helpers check nothing: create() refuses their bad arguments with its own errors.
TEST_F(EntryPointTest, BadArgumentsGiveCreatesErrors) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    expectRefused(metaballSurface({0, 33, 33}, 8), ErrorCode::InvalidArgument, "samples.x");
    expectRefused(metaballSurface({33, 33, 33}, 0), ErrorCode::InvalidArgument, "maxBalls");
    expectRefused(particleSurface({33, 33, 33}, {-1, -1, -1}, {1, 1, 1}, 64, nan, 1.f), ErrorCode::InvalidArgument,
                  "particleRadius");
    expectRefused(particleSurface({33, 33, 33}, {-1, -1, -1}, {1, 1, 1}, 0, 0.1f, 1.f), ErrorCode::InvalidArgument,
                  "maxParticles");
    expectRefused(particleSurface({33, 33, 33}, {1, -1, -1}, {-1, 1, 1}, 64, 0.1f, 1.f), ErrorCode::InvalidArgument,
                  "bounds along x");
    expectRefused(particleSurface(ParticleGrid{}, 64, 0.1f, 1.f), ErrorCode::InvalidArgument, "samples.x");
    expectRefused(volumeSurface({8, 1, 8}, 0.5f), ErrorCode::InvalidArgument, "samples.y");
    const auto compiler = [](const GlslSource&) -> Result<std::vector<uint32_t>> {
        return Status::error(ErrorCode::ParseError, "not reached");
    };
    expectRefused(userFieldSurface({17, 17, 17}, "", compiler), ErrorCode::InvalidArgument, "fieldGlsl is empty");
    expectRefused(userFieldSurface({17, 17, 17}, "float field(vec3 p) { return 0.0; }", nullptr),
                  ErrorCode::Unsupported, "compileGlsl");
    expectRefused(userFieldSurface({17, 17, 17}, "float field(vec3 p) { return 0.0; }", compiler, nan),
                  ErrorCode::InvalidArgument, "lipschitz");
}

} // namespace
