// The module's own domain choice: a surface whose dense grid does not fit the
// device (forced at small sizes with iso::testing::Knobs::denseRangeBytes) is laid
// out in bricks by create() itself, with capacities it sizes (none given),
// and gives the CPU reference's triangles; a user field without a Lipschitz
// bound lists every brick; what cannot fit is a named error.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "iso_fixture.h"
#include "iso_reference_convert.h"
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

// A dense pyramid of the grids below needs more than this: the dense plan fails, the module goes sparse.
constexpr uint64_t kTinyDenseRange = 4096;

IsoSurfaceCreateInfo userInfo(const char* glsl, std::array<uint32_t, 3> n, float lipschitz, NormalMode normals) {
    IsoSurfaceCreateInfo info;
    info.samples = n;
    info.source = FieldSource::UserGlsl;
    info.fieldGlsl = glsl;
    info.compileGlsl = pyramarch::compileGlsl;
    info.vertexCapacity = 300000;
    info.normals = normals;
    info.isoValue = 0.f;
    info.lipschitz = lipschitz;
    return info;
}

class IsoBrickedDefault : public IsoSurfaceTest {
protected:
    // `surface`'s newest frame against the CPU reference on `field`: the same
    // triangles, no overflow, the counts.
    void expectMatchesReference(const IsoSurfaceCreateInfo& info, IsoSurface& surface, const std::vector<float>& field,
                                size_t minVertices = 300) {
        const ref::Grid g = referenceGridOf(info);
        const ref::McResult cpu = ref::marchingCubes(g, field.data(), info.isoValue, refNormals(info.normals));
        EXPECT_GE(cpu.vertices.size(), minVertices) << "the case should have a surface";
        auto v = surface.readVertices();
        ASSERT_TRUE(v.ok()) << v.message();
        EXPECT_EQ(ref::compareTriangleSets(cpu.vertices, toRef(v.value()), ref::positionTolerance(g), 1e-3f), "");
        const auto stats = surface.statsOfFrame(surface.framesRecorded() - 1);
        ASSERT_TRUE(stats.has_value());
        EXPECT_FALSE(stats->overflow);
        EXPECT_EQ(stats->verticesNeeded, cpu.vertices.size());
        EXPECT_EQ(stats->activeCells, cpu.activeCells);
    }

    // A user field's samples as a dense field buffer holds them (no bound, no skipping).
    std::vector<float> userField(const IsoSurfaceCreateInfo& info, const std::array<float, 8>& params) {
        IsoSurfaceCreateInfo bufferInfo = info;
        bufferInfo.sparse = {};
        bufferInfo.lipschitz = 0.f;
        auto buffer = make(bufferInfo, {.fieldEvaluation = FieldEvaluation::Buffer});
        EXPECT_TRUE(buffer);
        if (!buffer) return {};
        buffer->setUserParams(params);
        frame(*buffer);
        auto f = buffer->readField();
        EXPECT_TRUE(f.ok()) << f.message();
        return f.ok() ? std::move(f).value() : std::vector<float>{};
    }
};

TEST_F(IsoBrickedDefault, UserFieldsGoSparseWhereTheDenseGridDoesNotFit) {
    for (const float lipschitz : {1.f, 0.f}) {
        SCOPED_TRACE(lipschitz > 0.f ? "with a Lipschitz bound" : "without a bound: every brick listed");
        IsoSurfaceCreateInfo info = userInfo(kMovingSphereGlsl, {61, 45, 38}, lipschitz, NormalMode::Central);
        const std::array<float, 8> params = {0.1f, -0.1f, 0.05f, 0.55f, 0, 0, 0, 0};
        // As given: the dense grid.
        auto densePlan = iso::testing::planLayout(info, device().limits());
        ASSERT_TRUE(densePlan.ok()) << densePlan.message();
        EXPECT_FALSE(densePlan->sparse.enabled);
        iso::testing::Knobs small;
        small.denseRangeBytes = kTinyDenseRange;
        auto s = make(info, small);
        ASSERT_TRUE(s);
        const SparseDomain chosen = s->sparseDomain();
        ASSERT_TRUE(chosen.enabled) << "the dense pyramid does not fit the range: a sparse domain";
        const uint32_t bricks = 8 * 6 * 5; // ceil(60 / 8) x ceil(44 / 8) x ceil(37 / 8)
        EXPECT_GE(chosen.maxBricks, lipschitz > 0.f ? 1u : bricks);
        EXPECT_LE(chosen.maxBricks, bricks);
        EXPECT_GE(chosen.maxRowPairs, 1u);
        EXPECT_LE(chosen.maxRowPairs, chosen.maxBricks * 32u);
        s->setUserParams(params);
        frame(*s);
        expectMatchesReference(info, *s, userField(info, params));
        const auto stats = s->statsOfFrame(0);
        ASSERT_TRUE(stats.has_value());
        if (lipschitz == 0.f) {
            EXPECT_EQ(stats->sparseBricksNeeded, bricks);
        } else {
            EXPECT_LT(stats->sparseBricksNeeded, bricks) << "the bound skips bricks far from the sphere";
        }
    }
}

TEST_F(IsoBrickedDefault, SparseWithNoCapacitiesIsSizedByTheModule) {
    // sparse.enabled as a hint with every capacity 0: Cayley with Sobel normals, odd sizes.
    IsoSurfaceCreateInfo info = userInfo(kCayleyGlsl, {45, 30, 27}, 34.65f, NormalMode::Sobel);
    info.sparse.enabled = true;
    auto s = make(info);
    ASSERT_TRUE(s);
    const SparseDomain chosen = s->sparseDomain();
    EXPECT_TRUE(chosen.enabled);
    EXPECT_GE(chosen.maxBricks, 1u);
    EXPECT_GE(chosen.maxRowPairs, 1u);
    frame(*s);
    expectMatchesReference(info, *s, userField(info, {}));
}

TEST_F(IsoBrickedDefault, MetaballsAndVolumesGoSparseToo) {
    iso::testing::Knobs small;
    small.denseRangeBytes = kTinyDenseRange;
    {
        SCOPED_TRACE("metaballs 41x37x45");
        IsoSurfaceCreateInfo info;
        info.samples = {41, 37, 45};
        info.source = FieldSource::Metaballs;
        info.vertexCapacity = 300000;
        info.isoValue = 0.35f;
        info.maxBalls = 8;
        const std::vector<Metaball> balls = {{{-0.4f, 0.f, 0.f}, 0.6f, 1.f, {}},
                                             {{0.35f, 0.1f, 0.f}, 0.55f, 1.f, {}},
                                             {{0.f, 0.45f, 0.2f}, 0.5f, 0.8f, {}},
                                             {{0.1f, -0.3f, -0.4f}, 0.5f, -0.5f, {}}};
        iso::testing::Knobs everySample;
        everySample.denseField = true;
        auto dense = make(info, everySample);
        auto s = make(info, small);
        ASSERT_TRUE(dense && s);
        EXPECT_FALSE(dense->sparseDomain().enabled);
        EXPECT_TRUE(s->sparseDomain().enabled);
        ASSERT_TRUE(dense->setMetaballs(balls).ok());
        ASSERT_TRUE(s->setMetaballs(balls).ok());
        frame(*dense);
        frame(*s);
        auto field = dense->readField();
        ASSERT_TRUE(field.ok()) << field.message();
        expectMatchesReference(info, *s, field.value());
    }
    {
        SCOPED_TRACE("volume 33x29x40, iso on sample values, NaN samples");
        IsoSurfaceCreateInfo info;
        info.samples = {33, 29, 40};
        info.source = FieldSource::Volume;
        info.vertexCapacity = 300000;
        info.normals = NormalMode::Forward;
        info.isoValue = 0.25f;
        const ref::Grid g = referenceGridOf(info);
        std::vector<float> volume(size_t(33) * 29 * 40);
        for (uint32_t z = 0; z < 40; ++z)
            for (uint32_t y = 0; y < 29; ++y)
                for (uint32_t x = 0; x < 33; ++x) {
                    // Quantised to quarters: many samples equal the iso value.
                    const float dx = float(x) - 15.f, dy = float(y) - 13.f, dz = float(z) - 19.f;
                    const float d = std::sqrt(dx * dx + dy * dy + 0.6f * dz * dz);
                    float v = std::round((1.f - d / 12.f) * 4.f) / 4.f;
                    if (x == 20 && y == 7 && z == 5) v = std::nanf("");
                    volume[g.index(x, y, z)] = v;
                }
        auto s = make(info, small);
        ASSERT_TRUE(s);
        EXPECT_TRUE(s->sparseDomain().enabled);
        EXPECT_GE(s->sparseDomain().maxVolumeBricks, 1u);
        ASSERT_TRUE(s->uploadVolume(volume.data(), volume.size() * 4, VolumeFormat::F32).ok());
        frame(*s);
        expectMatchesReference(info, *s, volume);
    }
}

// Planned without a device: the grid of the command line's 1023^3 sphere
// goes sparse on lavapipe's limits, every capacity within them and the
// budget; a user field without a bound whose bricks do not fit is a named error.
TEST_F(IsoBrickedDefault, PlansLargeGridsAndNamesWhatCannotFit) {
    DeviceLimits lim = device().limits();
    IsoSurfaceCreateInfo info =
        userInfo("float field(vec3 p) { return 0.8 - length(p); }", {1024, 1024, 1024}, 1.f, NormalMode::Central);
    info.compileGlsl = [](const GlslSource&) -> Result<std::vector<uint32_t>> { return std::vector<uint32_t>{}; };
    auto plan = iso::testing::planLayout(info, lim);
    ASSERT_TRUE(plan.ok()) << plan.message();
    EXPECT_TRUE(plan->sparse.enabled);
    EXPECT_EQ(plan->sparse.maxBricks, 128u * 128u * 128u);
    EXPECT_LE(plan->sparse.maxRowPairs, maxSparseRowPairs(lim));
    EXPECT_GE(plan->sparse.maxRowPairs, 1u << 20) << "room for the sphere's ~1 M cut row pairs";
    // A budget bounds what the module sizes.
    info.memoryBudget = 64ull << 20;
    plan = iso::testing::planLayout(info, lim);
    ASSERT_TRUE(plan.ok()) << plan.message();
    EXPECT_LE(uint64_t(plan->sparse.maxRowPairs) * 30 + uint64_t(plan->sparse.maxBricks) * 4, 64ull << 20);
    // Without a bound every brick is listed: 2 M bricks need 8 MiB of list, over a 4 MiB budget.
    info.lipschitz = 0.f;
    info.memoryBudget = 4ull << 20;
    plan = iso::testing::planLayout(info, lim, {}, "small");
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.code(), ErrorCode::DeviceLimit);
    EXPECT_NE(plan.message().find("without a Lipschitz bound"), std::string::npos) << plan.message();
    EXPECT_NE(plan.message().find("2097152 bricks"), std::string::npos) << plan.message();
    // A configuration no sparse domain takes keeps the dense error, and names the sparse one.
    info = userInfo("float field(vec3 p) { return 0.8 - length(p); }", {1024, 1024, 1024}, 1.f, NormalMode::Central);
    info.compileGlsl = [](const GlslSource&) -> Result<std::vector<uint32_t>> { return std::vector<uint32_t>{}; };
    plan = iso::testing::planLayout(info, lim, {.fieldEvaluation = FieldEvaluation::Buffer});
    ASSERT_FALSE(plan.ok());
    EXPECT_NE(plan.message().find("the field of 1024x1024x1024 samples"), std::string::npos) << plan.message();
    EXPECT_NE(plan.message().find("as a sparse domain"), std::string::npos) << plan.message();
}

} // namespace
