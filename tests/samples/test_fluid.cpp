// The fluid sample's PBF simulation (samples/fluid): the GPU passes against
// the CPU reference of the same step, invariants of the state (inside the
// box, finite, near rest density once settled), bit-identical reruns, bad
// settings, and the scene surfaced headless through the sample framework.
// Small particle sets: lavapipe runs every pass on the CPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unordered_map>

#include <unistd.h>

#include "fluid/fluid_shared.h"
#include "fluid_sim.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/voxelizer/shapes.h"
#include "sample/framework.h"
#include "support/gpu_test.h"

using namespace pyramarch;
using Vec4 = std::array<float, 4>;

namespace {

// Steps `scene`'s simulation `steps` times, a few steps recorded per
// command buffer (sync validation sees one frame's passes after the last's),
// and reads the state back.
struct GpuRun {
    fluid::FluidState state;
    std::vector<std::array<float, 2>> lambda; // (lambda, C) of the last iteration
};

Result<GpuRun> runGpu(Device& device, fluid::FluidScene& scene, uint32_t steps) {
    RenderGraph graph(&device);
    auto particles = scene.addSimulationPasses(graph);
    if (!particles) return particles.status();
    PYRAMARCH_TRY(graph.compile());
    for (uint32_t done = 0; done < steps;) {
        Status inner;
        const uint32_t batch = std::min(3u, steps - done);
        PYRAMARCH_TRY(submitAndWait(device, [&](VkCommandBuffer cmd) {
            for (uint32_t k = 0; k < batch && inner.ok(); ++k) inner = graph.execute(cmd);
        }));
        PYRAMARCH_TRY(inner);
        done += batch;
    }
    const uint32_t n = scene.params().particles;
    GpuRun out;
    PYRAMARCH_TRY_ASSIGN(out.state.positions, readBufferAs<Vec4>(device, scene.particleBuffer(), n));
    PYRAMARCH_TRY_ASSIGN(out.state.velocities, readBufferAs<Vec4>(device, scene.velocityBuffer(), n));
    PYRAMARCH_TRY_ASSIGN(out.lambda, (readBufferAs<std::array<float, 2>>(device, scene.lambdaBuffer(), n)));
    return out;
}

fluid::FluidSettings smallSettings(uint32_t particles = 2000) {
    fluid::FluidSettings s;
    s.particles = particles;
    return s;
}

void expectInsideBoxAndFinite(const fluid::FluidState& s) {
    for (size_t i = 0; i < s.positions.size(); ++i) {
        for (int a = 0; a < 3; ++a) {
            ASSERT_TRUE(std::isfinite(s.positions[i][a])) << "particle " << i;
            ASSERT_TRUE(std::isfinite(s.velocities[i][a])) << "particle " << i;
            ASSERT_GE(s.positions[i][a], fluid::kBoxMin[a]) << "particle " << i << " axis " << a;
            ASSERT_LE(s.positions[i][a], fluid::kBoxMax[a]) << "particle " << i << " axis " << a;
        }
        ASSERT_EQ(s.positions[i][3], 1.f) << "the isosurface reads w as the particle weight";
    }
}

// Every id 0..n-1 exactly once: the sort lost or duplicated no particle.
void expectPermutation(const fluid::FluidState& s) {
    std::vector<uint8_t> seen(s.velocities.size(), 0);
    for (const Vec4& v : s.velocities) {
        const uint32_t id = fluid::particleId(v);
        ASSERT_LT(id, seen.size());
        ASSERT_EQ(seen[id], 0) << "id " << id << " twice";
        seen[id] = 1;
    }
}

class FluidGpu : public test::GpuTest {
protected:
    // A scene's frames through the sample framework's headless loop (small image).
    void runFrames(sample::Scene& scene, uint32_t frames, sample::StatsRecorder& stats) {
        sample::CommonOptions o;
        o.headless = true;
        o.frames = frames;
        o.width = 96;
        o.height = 64;
        ASSERT_OK(sample::runHeadless(device(), scene, o, stats));
    }
};

// A named built-in collider, as loadCollider places it: its lowest vertex
// on the box's floor.
void expectStandsOnTheFloor(const std::string& name) {
    auto placed = fluid::loadCollider(name);
    ASSERT_TRUE(placed.ok()) << placed.message();
    float lo = 1e9f;
    for (const auto& v : placed->positions) lo = std::min(lo, v[1]);
    EXPECT_FLOAT_EQ(lo, fluid::kBoxMin[1]) << name << " stands on the floor";
}

} // namespace

TEST(FluidSettings, BadValuesAreErrorsNamingTheSetting) {
    auto expectError = [](fluid::FluidSettings s, const char* what) {
        auto r = fluid::deriveParams(s);
        ASSERT_FALSE(r.ok()) << what;
        EXPECT_NE(r.message().find(what), std::string::npos) << r.message();
    };
    fluid::FluidSettings s;
    s.particles = 0;
    expectError(s, "particle count");
    s = {};
    s.particles = fluid::kMaxParticles + 1;
    expectError(s, "particle count");
    s = {};
    s.iterations = 0;
    expectError(s, "iterations");
    s = {};
    s.stepsPerFrame = 0;
    expectError(s, "steps per frame");
    s = {};
    s.stepsPerFrame = fluid::kMaxStepsPerFrame + 1;
    expectError(s, "steps per frame");
    s = {};
    s.dt = NAN;
    expectError(s, "dt");
    s = {};
    s.xsph = 2.f;
    expectError(s, "XSPH");
    s = {};
    s.threshold = INFINITY;
    expectError(s, "threshold");
    s = {};
    s.smoothing = -0.5f;
    expectError(s, "smoothing");
    s = {};
    s.voxelSize = 0.f;
    expectError(s, "voxel size");
    s = {};
    s.cfl = 0.f;
    expectError(s, "speed limit");
    EXPECT_TRUE(fluid::deriveParams(fluid::FluidSettings{}).ok());
}

// The start block is the rest lattice the rest density is computed on: its
// interior particles start exactly at C = 0 (to float rounding), so any
// compression later comes from the simulation.
TEST(FluidCpu, StartBlockIsAtRestDensity) {
    auto p = fluid::deriveParams(smallSettings());
    ASSERT_TRUE(p.ok()) << p.message();
    fluid::FluidSettings still = smallSettings();
    still.gravity = 0.f;
    auto ps = fluid::deriveParams(still);
    ASSERT_TRUE(ps.ok());
    fluid::FluidState s = fluid::initialState(*ps);
    std::vector<float> c;
    fluid::stepCpu(*ps, s, &c);
    const float maxC = *std::max_element(c.begin(), c.end());
    EXPECT_LT(maxC, 1e-3f) << "the lattice is denser than the rest density";
    EXPECT_GT(maxC, -1e-3f) << "no particle of the block sees the rest density";
    expectInsideBoxAndFinite(s);
}

// The GPU passes against the CPU reference of the same steps: same sort,
// same summation order, so the two differ by float rounding only (FMA
// contraction and the shader compiler's reassociation); particles are
// matched by id. The dam must really move (else the comparison is empty).
TEST_F(FluidGpu, MatchesCpuReference) {
    const fluid::FluidSettings settings = smallSettings();
    auto scene = fluid::FluidScene::create(device(), settings);
    ASSERT_TRUE(scene.ok()) << scene.message();
    const fluid::FluidParams& p = (*scene)->params();
    const uint32_t steps = 6;
    auto gpu = runGpu(device(), **scene, steps);
    ASSERT_TRUE(gpu.ok()) << gpu.message();
    fluid::FluidState cpu = fluid::initialState(p);
    const fluid::FluidState start = cpu;
    std::vector<float> c;
    for (uint32_t k = 0; k < steps; ++k) fluid::stepCpu(p, cpu, &c);
    expectPermutation(gpu->state);
    expectPermutation(cpu);
    std::vector<uint32_t> gpuSlot(p.particles);
    for (uint32_t k = 0; k < p.particles; ++k) gpuSlot[fluid::particleId(gpu->state.velocities[k])] = k;
    float maxPosErr = 0.f, maxVelErr = 0.f, maxMove = 0.f, maxSpeed = 0.f;
    uint32_t sameSlot = 0;
    for (uint32_t k = 0; k < p.particles; ++k) {
        const uint32_t id = fluid::particleId(cpu.velocities[k]);
        const uint32_t g = gpuSlot[id];
        sameSlot += g == k;
        for (int a = 0; a < 3; ++a) {
            maxPosErr = std::max(maxPosErr, std::fabs(gpu->state.positions[g][a] - cpu.positions[k][a]));
            maxVelErr = std::max(maxVelErr, std::fabs(gpu->state.velocities[g][a] - cpu.velocities[k][a]));
            maxMove = std::max(maxMove, std::fabs(cpu.positions[k][a] - start.positions[id][a]));
            maxSpeed = std::max(maxSpeed, std::fabs(cpu.velocities[k][a]));
        }
    }
    std::printf(
        "fluid: %u steps: max move %g, max |v| %g; GPU - CPU: position %g, velocity %g; %u of %u in the same slot\n",
        steps, maxMove, maxSpeed, maxPosErr, maxVelErr, sameSlot, p.particles);
    EXPECT_GT(maxMove, 0.1f * p.spacing) << "the particles barely moved";
    EXPECT_LT(maxPosErr, 1e-3f * p.h) << "largest position difference after " << steps;
    EXPECT_LT(maxVelErr, 2e-2f * std::max(1.f, maxSpeed)) << "largest velocity difference";
    // The same deterministic order: (cell, particle index) of the last step.
    EXPECT_GT(sameSlot, p.particles * 99 / 100);
    // The constraint of the last iteration, per sorted particle.
    float maxCErr = 0.f;
    for (uint32_t k = 0; k < p.particles; ++k)
        if (gpuSlot[fluid::particleId(cpu.velocities[k])] == k)
            maxCErr = std::max(maxCErr, std::fabs(gpu->lambda[k][1] - c[k]));
    std::printf("fluid: constraint C of the last iteration: GPU - CPU %g\n", maxCErr);
    EXPECT_LT(maxCErr, 1e-3f);
}

// Two scenes with the same settings, stepped the same number of times, hold
// bit-identical state: the sort is deterministic and no float atomics sum
// in thread order.
TEST_F(FluidGpu, RunsAreBitIdentical) {
    const fluid::FluidSettings settings = smallSettings(3000);
    std::vector<GpuRun> runs;
    for (int r = 0; r < 2; ++r) {
        auto scene = fluid::FluidScene::create(device(), settings);
        ASSERT_TRUE(scene.ok()) << scene.message();
        auto run = runGpu(device(), **scene, 8);
        ASSERT_TRUE(run.ok()) << run.message();
        runs.push_back(std::move(run).value());
    }
    const size_t bytes = runs[0].state.positions.size() * sizeof(Vec4);
    EXPECT_EQ(std::memcmp(runs[0].state.positions.data(), runs[1].state.positions.data(), bytes), 0);
    EXPECT_EQ(std::memcmp(runs[0].state.velocities.data(), runs[1].state.velocities.data(), bytes), 0);
    EXPECT_EQ(std::memcmp(runs[0].lambda.data(), runs[1].lambda.data(), runs[0].lambda.size() * 8), 0);
}

// Several steps per frame are the same steps: 2 frames of 3 steps leave the
// state bit for bit as 6 frames of 1 step (the passes of a step read what
// the step before wrote; a missing barrier or a step recorded twice shows).
TEST_F(FluidGpu, StepsPerFrameAreTheSameSteps) {
    fluid::FluidSettings settings = smallSettings(3000);
    auto single = fluid::FluidScene::create(device(), settings);
    ASSERT_TRUE(single.ok()) << single.message();
    settings.stepsPerFrame = 3;
    auto triple = fluid::FluidScene::create(device(), settings);
    ASSERT_TRUE(triple.ok()) << triple.message();
    auto a = runGpu(device(), **single, 6);
    ASSERT_TRUE(a.ok()) << a.message();
    auto b = runGpu(device(), **triple, 2);
    ASSERT_TRUE(b.ok()) << b.message();
    const size_t bytes = a->state.positions.size() * sizeof(Vec4);
    EXPECT_EQ(std::memcmp(a->state.positions.data(), b->state.positions.data(), bytes), 0);
    EXPECT_EQ(std::memcmp(a->state.velocities.data(), b->state.velocities.data(), bytes), 0);
    // And they moved: 6 steps from rest under gravity.
    auto rest = fluid::FluidScene::create(device(), smallSettings(3000));
    ASSERT_TRUE(rest.ok()) << rest.message();
    auto r = runGpu(device(), **rest, 0);
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_NE(std::memcmp(a->state.positions.data(), r->state.positions.data(), bytes), 0);
}

// The dam breaks: after a third of a second the water has run along the
// floor past the block, every particle is still inside the box with finite
// values, the speeds stay physical (a 1 m column falls at most ~4.5 m/s),
// and no particle is lost.
TEST_F(FluidGpu, DamBreakStaysInsideTheBoxAndFinite) {
    fluid::FluidSettings settings = smallSettings();
    auto scene = fluid::FluidScene::create(device(), settings);
    ASSERT_TRUE(scene.ok()) << scene.message();
    const uint32_t steps = uint32_t(std::lround(0.33f / settings.dt));
    auto run = runGpu(device(), **scene, steps);
    ASSERT_TRUE(run.ok()) << run.message();
    expectInsideBoxAndFinite(run->state);
    expectPermutation(run->state);
    float maxX = -1e9f, maxSpeed = 0.f;
    for (size_t i = 0; i < run->state.positions.size(); ++i) {
        maxX = std::max(maxX, run->state.positions[i][0]);
        const Vec4& v = run->state.velocities[i];
        maxSpeed = std::max(maxSpeed, std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
    }
    std::printf("fluid: after %u steps: front at x = %g, max speed %g\n", steps, maxX, maxSpeed);
    EXPECT_GT(maxX, fluid::kBlockMax[0] + 0.3f) << "the water did not run out of the block";
    EXPECT_LT(maxSpeed, 8.f);
}

// The speed limit (FluidSettings::cfl) holds on the GPU and is reached: at
// 0.1 kernel radii per step (1.8 m/s with 2,000 particles) the falling
// column hits it within 20 steps.
TEST_F(FluidGpu, SpeedLimitHolds) {
    fluid::FluidSettings settings = smallSettings();
    settings.cfl = 0.1f;
    auto scene = fluid::FluidScene::create(device(), settings);
    ASSERT_TRUE(scene.ok()) << scene.message();
    auto run = runGpu(device(), **scene, 20);
    ASSERT_TRUE(run.ok()) << run.message();
    const float limit = (*scene)->params().maxSpeed;
    float maxSpeed = 0.f;
    for (const Vec4& v : run->state.velocities)
        maxSpeed = std::max(maxSpeed, std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
    EXPECT_LE(maxSpeed, limit * 1.0001f);
    EXPECT_GT(maxSpeed, limit * 0.99f) << "the limit was never reached: the test shows nothing";
    expectInsideBoxAndFinite(run->state);
}

// The window's pause: an update with the same time as the one before records
// no step (the particles stay bit for bit), the next new time steps again.
TEST_F(FluidGpu, SameTimeUpdateDoesNotStep) {
    auto scene = fluid::FluidScene::create(device(), smallSettings());
    ASSERT_TRUE(scene.ok()) << scene.message();
    fluid::FluidScene& s = **scene;
    RenderGraph graph(&device());
    ASSERT_OK(s.addPasses(graph));
    ASSERT_OK(graph.compile());
    const uint32_t n = s.params().particles;
    auto frame = [&](double t) -> Result<std::vector<Vec4>> {
        PYRAMARCH_TRY(s.update(t));
        Status inner;
        PYRAMARCH_TRY(submitAndWait(device(), [&](VkCommandBuffer cmd) { inner = graph.execute(cmd); }));
        PYRAMARCH_TRY(inner);
        return readBufferAs<Vec4>(device(), s.particleBuffer(), n);
    };
    auto a = frame(0.0);
    ASSERT_TRUE(a.ok()) << a.message();
    EXPECT_TRUE(s.stepping());
    auto b = frame(0.0);
    ASSERT_TRUE(b.ok()) << b.message();
    EXPECT_FALSE(s.stepping());
    EXPECT_EQ(std::memcmp(a->data(), b->data(), n * sizeof(Vec4)), 0) << "a paused frame moved the particles";
    auto c = frame(0.1);
    ASSERT_TRUE(c.ok()) << c.message();
    EXPECT_TRUE(s.stepping());
    EXPECT_NE(std::memcmp(b->data(), c->data(), n * sizeof(Vec4)), 0) << "the frame after the pause did not step";
}

// A block at rest in a box it fills wall to wall settles under gravity:
// after the solver, the compression left is small (the mean of max(C, 0)
// over the particles and the largest C), where no solver would leave the
// bottom layers compressed by the whole column's weight.
TEST_F(FluidGpu, SettledBlockIsNearRestDensity) {
    fluid::FluidSettings settings = smallSettings();
    settings.iterations = 4;
    auto scene = fluid::FluidScene::create(device(), settings);
    ASSERT_TRUE(scene.ok()) << scene.message();
    // 12 steps: the block's top falls by less than a particle spacing (the
    // dam has not broken yet); the column is loaded by gravity.
    auto run = runGpu(device(), **scene, 12);
    ASSERT_TRUE(run.ok()) << run.message();
    double meanPositive = 0.0;
    float maxC = -1.f;
    for (const auto& l : run->lambda) {
        ASSERT_TRUE(std::isfinite(l[0]) && std::isfinite(l[1]));
        meanPositive += std::max(l[1], 0.f);
        maxC = std::max(maxC, l[1]);
    }
    meanPositive /= double(run->lambda.size());
    std::printf("fluid: settled block: mean max(C, 0) %g, max C %g\n", meanPositive, maxC);
    EXPECT_LT(meanPositive, 0.01) << "mean compression after the solver";
    EXPECT_LT(maxC, 0.1f) << "largest compression after the solver";
}

// The scene through the sample framework (as the fluid sample and `pyramarch
// demo` run it): simulated and surfaced in one graph, headless, triangles
// out, every frame's stats recorded, validation clean (the fixture).
TEST_F(FluidGpu, SurfacesHeadlessThroughTheSampleFramework) {
    fluid::FluidSettings settings = smallSettings(3000);
    auto scene = fluid::FluidScene::create(device(), settings);
    ASSERT_TRUE(scene.ok()) << scene.message();
    sample::StatsRecorder stats;
    runFrames(**scene, 3, stats);
    ASSERT_EQ(stats.frames().size(), 3u);
    for (const sample::FrameStats& f : stats.frames()) {
        EXPECT_TRUE(f.haveSurfaceStats);
        EXPECT_GT(f.triangles, 100u) << "frame " << f.frame;
        EXPECT_FALSE(f.overflow);
        bool sim = false, splat = false;
        for (const PassTiming& t : f.passes) {
            sim |= t.name == "pbf.lambda.0";
            splat |= t.name.rfind("fluid.particles", 0) == 0;
        }
        EXPECT_TRUE(sim && splat) << "the simulation and the surface are one frame's passes";
    }
}

// The sample's kernel modes (--kernel, the panel's combo) reach the module:
// smoothed runs the position-smoothing pass, anisotropic the kernel pass,
// each still a closed surface of the same block.
TEST_F(FluidGpu, KernelModesReachTheSurface) {
    struct Mode {
        const char* name;
        float smoothing;
        bool anisotropic;
        const char* pass; // present in this mode only
    };
    const Mode modes[] = {{"isotropic", 0.f, false, nullptr},
                          {"smoothed", 0.5f, false, "fluid.particles.smooth"},
                          {"anisotropic", 0.f, true, "fluid.particles.aniso"}};
    for (const Mode& m : modes) {
        SCOPED_TRACE(m.name);
        sample::SceneConfig config;
        config.particles = 3000;
        config.particleSmoothing = m.smoothing;
        config.anisotropic = m.anisotropic;
        auto scene = fluid::makeFluidScene(device(), config, smallSettings(3000));
        ASSERT_TRUE(scene.ok()) << scene.message();
        sample::StatsRecorder stats;
        runFrames(**scene, 2, stats);
        ASSERT_EQ(stats.frames().size(), 2u);
        const sample::FrameStats& f = stats.frames().back();
        EXPECT_GT(f.triangles, 100u);
        EXPECT_FALSE(f.overflow);
        bool smooth = false, aniso = false;
        for (const PassTiming& t : f.passes) {
            smooth |= t.name == "fluid.particles.smooth";
            aniso |= t.name == "fluid.particles.aniso";
        }
        EXPECT_EQ(smooth, m.smoothing > 0.f);
        EXPECT_EQ(aniso, m.anisotropic);
    }
}

// --mesh-smoothing (the panel's slider) reaches the module: an indexed
// surface with the smoothing passes, the same triangles as without.
TEST_F(FluidGpu, MeshSmoothingReachesTheSurface) {
    uint32_t triangles[2] = {};
    for (const uint32_t iterations : {0u, 3u}) {
        SCOPED_TRACE(iterations);
        sample::SceneConfig config;
        config.particles = 3000;
        config.meshSmoothing = iterations;
        auto scene = fluid::makeFluidScene(device(), config, smallSettings(3000));
        ASSERT_TRUE(scene.ok()) << scene.message();
        EXPECT_EQ((*scene)->indexed(), iterations > 0);
        sample::StatsRecorder stats;
        runFrames(**scene, 2, stats);
        ASSERT_EQ(stats.frames().size(), 2u);
        const sample::FrameStats& f = stats.frames().back();
        EXPECT_FALSE(f.overflow);
        triangles[iterations > 0] = f.triangles;
        bool lambda = false, normals = false;
        for (const PassTiming& t : f.passes) {
            lambda |= t.name == "fluid.mesh.smooth.2.lambda";
            normals |= t.name == "fluid.mesh.smooth.normals";
        }
        EXPECT_EQ(lambda, iterations > 0);
        EXPECT_EQ(normals, iterations > 0);
    }
    EXPECT_GT(triangles[0], 100u);
    EXPECT_EQ(triangles[1], triangles[0]);
}

TEST_F(FluidGpu, CreateRejectsBadSettings) {
    fluid::FluidSettings s = smallSettings();
    s.particles = 0;
    auto r = fluid::FluidScene::create(device(), s);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("particle count"), std::string::npos) << r.message();
    s = smallSettings();
    s.threshold = -1.f;
    EXPECT_FALSE(fluid::FluidScene::create(device(), s).ok());
    // More particles than the neighbour lists' descriptor range holds: an
    // error naming the limit, before any buffer is made (lavapipe: 128 MiB,
    // 524,288 particles).
    const uint64_t fit = device().limits().maxStorageBufferRange / (fluid::gpu::kMaxNeighbours * 4u);
    if (fit < fluid::kMaxParticles) {
        s = smallSettings(uint32_t(fit + 1));
        auto big = fluid::FluidScene::create(device(), s);
        ASSERT_FALSE(big.ok());
        EXPECT_NE(big.message().find("maxStorageBufferRange"), std::string::npos) << big.message();
        s = smallSettings(uint32_t(fit));
        // The largest count that fits is not refused for its size (it may
        // still fail for memory on a small device, but not with this error).
        auto edge = fluid::deriveParams(s);
        EXPECT_TRUE(edge.ok()) << edge.message();
    }
}

// ---- the collider ----

namespace {

// A 6^3 grid of 0.1 m voxels from the origin, a 3^3 solid block standing
// on its floor (voxels x, z in 1..3, y in 0..2).
fluid::ColliderGrid smallBlockGrid() {
    fluid::ColliderGrid g;
    g.origin = {0.f, 0.f, 0.f};
    g.voxel = 0.1f;
    g.dims = {6, 6, 6};
    g.solid.assign(216, 0.f);
    for (uint32_t z = 1; z <= 3; ++z)
        for (uint32_t y = 0; y <= 2; ++y)
            for (uint32_t x = 1; x <= 3; ++x) g.solid[(z * 6 + y) * 6 + x] = 1.f;
    return g;
}

// The sphere placed over the start block's right edge: particles start
// inside it, so the first step already projects many of them.
fluid::FluidSettings colliderSettings(uint32_t particles = 2000) {
    fluid::FluidSettings s = smallSettings(particles);
    s.collider = fluid::placeCollider(voxel::shapes::sphere({0.f, 0.f, 0.f}, 1.f, 24, 12), 0.5f, -0.25f, 0.f);
    s.colliderResolution = 32;
    return s;
}

uint32_t countInSolid(const fluid::ColliderGrid& g, const fluid::FluidState& s) {
    uint32_t n = 0;
    for (const Vec4& p : s.positions) n += g.solidAt({p[0], p[1], p[2]}) ? 1u : 0u;
    return n;
}

} // namespace

// The collision step on a small grid, by hand: the shortest walk to a free
// voxel wins, ties go to +y (then -y, +x, -x, +z, -z), the particle lands
// 1/64 voxel inside the free voxel; free voxels and points outside the grid
// are left alone; no point of the block stays in it.
TEST(FluidCpu, ColliderProjectsToTheNearestFreeFace) {
    const fluid::ColliderGrid g = smallBlockGrid();
    const float skin = 1.f / 64.f;
    // The block's centre voxel (2, 1, 2): every open walk is 1.5 voxels; +y wins.
    auto c = fluid::collidePoint(g, {0.25f, 0.15f, 0.25f});
    EXPECT_FLOAT_EQ(c[0], 0.25f);
    EXPECT_FLOAT_EQ(c[1], (3.f + skin) * 0.1f);
    EXPECT_FLOAT_EQ(c[2], 0.25f);
    // Near the -x face: out through it, 0.01 m away.
    c = fluid::collidePoint(g, {0.11f, 0.05f, 0.25f});
    EXPECT_FLOAT_EQ(c[0], (1.f - skin) * 0.1f);
    EXPECT_FLOAT_EQ(c[1], 0.05f);
    // Near the +z face at the floor (-y ends at the grid's edge: no walk).
    c = fluid::collidePoint(g, {0.25f, 0.01f, 0.395f});
    EXPECT_FLOAT_EQ(c[2], (4.f + skin) * 0.1f);
    EXPECT_FLOAT_EQ(c[1], 0.01f);
    // Free voxels, outside the grid, NaN: unchanged.
    for (const std::array<float, 3> p : std::initializer_list<std::array<float, 3>>{
             {0.05f, 0.05f, 0.05f}, {0.25f, 0.35f, 0.25f}, {-0.1f, 0.1f, 0.2f}, {0.25f, 0.15f, 0.7f}}) {
        const auto q = fluid::collidePoint(g, p);
        EXPECT_EQ(q, p);
    }
    const auto n = fluid::collidePoint(g, {NAN, 0.1f, 0.2f});
    EXPECT_TRUE(std::isnan(n[0]));
    // Every point of the block comes out of it.
    for (int i = 0; i < 1000; ++i) {
        const std::array<float, 3> p{0.1f + 0.3f * float(i % 10) / 10.f + 0.013f, 0.3f * float((i / 10) % 10) / 10.f,
                                     0.1f + 0.3f * float(i / 100) / 10.f + 0.017f};
        ASSERT_TRUE(g.solidAt(p)) << i;
        const auto q = fluid::collidePoint(g, p);
        EXPECT_FALSE(g.solidAt(q)) << p[0] << " " << p[1] << " " << p[2];
    }
}

TEST(FluidSettings, ColliderOutsideTheBoxOrBadResolutionIsAnError) {
    fluid::FluidSettings s = smallSettings();
    s.collider = voxel::shapes::sphere({0.f, 0.f, 0.f}, 2.f, 12, 6);
    auto r = fluid::deriveParams(s);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("inside the box"), std::string::npos) << r.message();
    s = smallSettings();
    s.colliderResolution = 4;
    r = fluid::deriveParams(s);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("collider resolution"), std::string::npos) << r.message();
    EXPECT_FALSE(fluid::loadCollider("/nonexistent/collider.obj").ok());
    expectStandsOnTheFloor("torus");
}

// The solid voxels the voxelizer writes in the simulation's graph: every
// voxel whose centre is a voxel inside the sphere is solid, every one a
// voxel outside it is free; then the GPU steps against the CPU reference
// of the same steps on that grid (particles matched by id).
TEST_F(FluidGpu, ColliderMatchesCpuReference) {
    const fluid::FluidSettings settings = colliderSettings();
    auto scene = fluid::FluidScene::create(device(), settings);
    ASSERT_TRUE(scene.ok()) << scene.message();
    const fluid::FluidParams& p = (*scene)->params();
    const uint32_t steps = 4;
    auto gpu = runGpu(device(), **scene, steps);
    ASSERT_TRUE(gpu.ok()) << gpu.message();
    auto grid = (*scene)->readColliderGrid();
    ASSERT_TRUE(grid.ok()) << grid.message();
    const std::array<float, 3> centre{-0.25f, fluid::kBoxMin[1] + 0.25f, 0.f};
    uint32_t solid = 0;
    for (uint32_t z = 0; z < grid->dims[2]; ++z)
        for (uint32_t y = 0; y < grid->dims[1]; ++y)
            for (uint32_t x = 0; x < grid->dims[0]; ++x) {
                const float c[3] = {grid->origin[0] + (float(x) + 0.5f) * grid->voxel,
                                    grid->origin[1] + (float(y) + 0.5f) * grid->voxel,
                                    grid->origin[2] + (float(z) + 0.5f) * grid->voxel};
                const float d =
                    std::sqrt((c[0] - centre[0]) * (c[0] - centre[0]) + (c[1] - centre[1]) * (c[1] - centre[1]) +
                              (c[2] - centre[2]) * (c[2] - centre[2]));
                const bool s = grid->solid[(size_t(z) * grid->dims[1] + y) * grid->dims[0] + x] > 0.5f;
                solid += s ? 1u : 0u;
                if (d < 0.25f - grid->voxel) {
                    EXPECT_TRUE(s) << x << " " << y << " " << z;
                }
                if (d > 0.25f + grid->voxel) {
                    EXPECT_FALSE(s) << x << " " << y << " " << z;
                }
            }
    EXPECT_GT(solid, 100u);

    fluid::FluidState cpu = fluid::initialState(p);
    const uint32_t insideAtStart = countInSolid(*grid, cpu);
    EXPECT_GT(insideAtStart, 50u) << "the collider should start over part of the block";
    std::vector<float> c;
    for (uint32_t k = 0; k < steps; ++k) fluid::stepCpu(p, cpu, &c, &*grid);
    expectPermutation(gpu->state);
    std::vector<uint32_t> gpuSlot(p.particles);
    for (uint32_t k = 0; k < p.particles; ++k) gpuSlot[fluid::particleId(gpu->state.velocities[k])] = k;
    float maxPosErr = 0.f;
    for (uint32_t k = 0; k < p.particles; ++k) {
        const uint32_t g = gpuSlot[fluid::particleId(cpu.velocities[k])];
        for (int a = 0; a < 3; ++a)
            maxPosErr = std::max(maxPosErr, std::fabs(gpu->state.positions[g][a] - cpu.positions[k][a]));
    }
    std::printf("fluid collider: %u solid voxels, %u particles inside at the start; after %u steps GPU - CPU "
                "position %g; inside: GPU %u, CPU %u\n",
                solid, insideAtStart, steps, maxPosErr, countInSolid(*grid, gpu->state), countInSolid(*grid, cpu));
    EXPECT_LT(maxPosErr, 1e-3f * p.h) << "largest position difference after " << steps;
    EXPECT_EQ(countInSolid(*grid, gpu->state), 0u);
    EXPECT_EQ(countInSolid(*grid, cpu), 0u);
}

// The dam break against the obstacle: after a fifth of a second (24 steps,
// 4 a frame) no particle is in a solid voxel, all are in the box, finite
// and accounted for, and some rest on the obstacle (within a voxel above
// its solid voxels).
TEST_F(FluidGpu, NoParticleEndsInASolidVoxel) {
    fluid::FluidSettings settings = colliderSettings();
    settings.stepsPerFrame = 4;
    auto scene = fluid::FluidScene::create(device(), settings);
    ASSERT_TRUE(scene.ok()) << scene.message();
    auto run = runGpu(device(), **scene, 6);
    ASSERT_TRUE(run.ok()) << run.message();
    auto grid = (*scene)->readColliderGrid();
    ASSERT_TRUE(grid.ok()) << grid.message();
    expectInsideBoxAndFinite(run->state);
    expectPermutation(run->state);
    EXPECT_EQ(countInSolid(*grid, run->state), 0u);
    uint32_t onTop = 0;
    for (const Vec4& q : run->state.positions)
        onTop += !grid->solidAt({q[0], q[1], q[2]}) && grid->solidAt({q[0], q[1] - grid->voxel, q[2]}) ? 1u : 0u;
    std::printf("fluid collider: %u of %u particles within a voxel above the obstacle\n", onTop,
                uint32_t(run->state.positions.size()));
    EXPECT_GT(onTop, 0u);
    // The same scene through the sample framework's frame loop (update()
    // checks the collider's counters: a closed mesh within its capacities).
    sample::StatsRecorder stats;
    auto framed = fluid::FluidScene::create(device(), settings);
    ASSERT_TRUE(framed.ok()) << framed.message();
    runFrames(**framed, 3, stats);
    EXPECT_GT(stats.frames().back().triangles, 100u);
}

// An open mesh cannot be a solid: the frame loop reports it by name.
TEST_F(FluidGpu, OpenColliderMeshIsReported) {
    fluid::FluidSettings settings = smallSettings();
    // A sphere without the triangles facing +x: columns along x (the
    // solid fill's parity axis) through the hole cross it once.
    const voxel::TriangleMesh sphere = voxel::shapes::sphere({0.f, 0.f, 0.f}, 1.f, 16, 8);
    voxel::TriangleMesh open = sphere;
    open.indices.clear();
    for (size_t t = 0; t < sphere.triangleCount(); ++t) {
        float x = 0.f;
        for (int k = 0; k < 3; ++k) x += sphere.positions[sphere.indices[3 * t + size_t(k)]][0] / 3.f;
        if (x < 0.6f)
            for (int k = 0; k < 3; ++k) open.indices.push_back(sphere.indices[3 * t + size_t(k)]);
    }
    ASSERT_LT(open.indices.size(), sphere.indices.size());
    settings.collider = fluid::placeCollider(open, 0.5f, 0.3f, 0.f);
    settings.colliderResolution = 32;
    auto scene = fluid::FluidScene::create(device(), settings);
    ASSERT_TRUE(scene.ok()) << scene.message();
    sample::CommonOptions o;
    o.headless = true;
    o.frames = 4;
    o.width = 32;
    o.height = 24;
    sample::StatsRecorder stats;
    const Status s = sample::runHeadless(device(), **scene, o, stats);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("not watertight"), std::string::npos) << s.message();
}

// ---- the built-in bunny ----

namespace {

// The bunny written as a binary little-endian PLY (float positions: the
// file holds the same bits).
std::string writeBunnyPly(const voxel::TriangleMesh& m) {
    const auto path = std::filesystem::temp_directory_path() / ("fluid-bunny-" + std::to_string(::getpid()) + ".ply");
    std::ofstream out(path, std::ios::binary);
    out << "ply\nformat binary_little_endian 1.0\nelement vertex " << m.vertexCount()
        << "\nproperty float x\nproperty float y\nproperty float z\nelement face " << m.triangleCount()
        << "\nproperty list uchar int vertex_indices\nend_header\n";
    for (const auto& p : m.positions) out.write(reinterpret_cast<const char*>(p.data()), 12);
    for (size_t t = 0; t < m.triangleCount(); ++t) {
        const char three = 3;
        out.write(&three, 1);
        out.write(reinterpret_cast<const char*>(&m.indices[3 * t]), 12);
    }
    return path.string();
}

} // namespace

// The built-in bunny is a closed, consistently wound, manifold surface of
// one piece: every directed edge once and its reverse once, each vertex's
// triangles one fan, Euler characteristic 2, outward (positive volume).
TEST(FluidCpu, BuiltInBunnyIsClosedAndManifold) {
    for (const uint32_t cells : {16u, 48u}) {
        const voxel::TriangleMesh m = fluid::bunnyMesh(cells);
        ASSERT_GT(m.triangleCount(), 1000u) << cells;
        for (const auto& p : m.positions)
            for (float c : p) ASSERT_TRUE(std::isfinite(c));
        std::unordered_map<uint64_t, uint32_t> directed;                          // (from, to) -> uses
        std::vector<std::unordered_map<uint32_t, uint32_t>> fan(m.vertexCount()); // around v: a -> b
        double volume = 0.0;
        for (size_t t = 0; t < m.triangleCount(); ++t) {
            const uint32_t v[3] = {m.indices[3 * t], m.indices[3 * t + 1], m.indices[3 * t + 2]};
            ASSERT_TRUE(v[0] != v[1] && v[1] != v[2] && v[0] != v[2]) << "triangle " << t;
            for (int k = 0; k < 3; ++k) {
                ++directed[(uint64_t(v[k]) << 32) | v[(k + 1) % 3]];
                ASSERT_TRUE(fan[v[k]].emplace(v[(k + 1) % 3], v[(k + 2) % 3]).second) << "vertex " << v[k];
            }
            const auto &a = m.positions[v[0]], &b = m.positions[v[1]], &c = m.positions[v[2]];
            volume += (double(a[0]) * (double(b[1]) * c[2] - double(b[2]) * c[1]) -
                       double(a[1]) * (double(b[0]) * c[2] - double(b[2]) * c[0]) +
                       double(a[2]) * (double(b[0]) * c[1] - double(b[1]) * c[0])) /
                      6.0;
        }
        for (const auto& [e, uses] : directed) {
            ASSERT_EQ(uses, 1u) << "edge used twice the same way";
            const auto back = directed.find((e << 32) | (e >> 32));
            ASSERT_TRUE(back != directed.end()) << "open edge " << (e >> 32) << "-" << (e & 0xffffffffu);
        }
        for (uint32_t v = 0; v < m.vertexCount(); ++v) {
            ASSERT_FALSE(fan[v].empty()) << "unused vertex " << v;
            // Walk the fan from any neighbour: back at the start after every triangle.
            const uint32_t start = fan[v].begin()->first;
            uint32_t at = start, steps = 0;
            do {
                const auto next = fan[v].find(at);
                ASSERT_TRUE(next != fan[v].end()) << "vertex " << v;
                at = next->second;
            } while (++steps <= fan[v].size() && at != start);
            ASSERT_EQ(steps, fan[v].size()) << "vertex " << v << " is not one fan";
        }
        const int64_t euler = int64_t(m.vertexCount()) - int64_t(directed.size() / 2) + int64_t(m.triangleCount());
        EXPECT_EQ(euler, 2) << cells;
        // Body, haunches, head, ears, paws and tail: about 1.2 cubic units.
        EXPECT_GT(volume, 1.0) << cells;
        EXPECT_LT(volume, 1.4) << cells;
    }
    expectStandsOnTheFloor("bunny");
}

// `--collider bunny` needs no file, and gives what the same mesh read from
// a file gives: the same solid voxels and the same particles, bit for bit;
// the fluid started over it is pushed out (GPU against the CPU reference).
TEST_F(FluidGpu, BuiltInBunnyMatchesTheSameMeshFromAFile) {
    const std::string path = writeBunnyPly(fluid::bunnyMesh());
    auto fromFile = fluid::loadCollider(path);
    std::filesystem::remove(path);
    ASSERT_TRUE(fromFile.ok()) << fromFile.message();
    auto builtIn = fluid::loadCollider("bunny");
    ASSERT_TRUE(builtIn.ok()) << builtIn.message();
    ASSERT_EQ(builtIn->positions, fromFile->positions);
    ASSERT_EQ(builtIn->indices, fromFile->indices);

    const uint32_t steps = 4;
    std::vector<GpuRun> runs;
    std::vector<fluid::ColliderGrid> grids;
    fluid::FluidParams p;
    for (const voxel::TriangleMesh* mesh : {&*builtIn, &*fromFile}) {
        fluid::FluidSettings settings = smallSettings();
        // Over the start block's right edge, as the sphere above.
        settings.collider = fluid::placeCollider(*mesh, 0.5f, -0.25f, 0.f);
        settings.colliderResolution = 32;
        auto scene = fluid::FluidScene::create(device(), settings);
        ASSERT_TRUE(scene.ok()) << scene.message();
        p = (*scene)->params();
        auto run = runGpu(device(), **scene, steps);
        ASSERT_TRUE(run.ok()) << run.message();
        auto grid = (*scene)->readColliderGrid();
        ASSERT_TRUE(grid.ok()) << grid.message();
        runs.push_back(std::move(run).value());
        grids.push_back(std::move(grid).value());
    }
    ASSERT_EQ(grids[0].solid, grids[1].solid);
    uint32_t solid = 0;
    for (float s : grids[0].solid) solid += s > 0.5f ? 1u : 0u;
    EXPECT_GT(solid, 100u);
    EXPECT_EQ(0, std::memcmp(runs[0].state.positions.data(), runs[1].state.positions.data(),
                             runs[0].state.positions.size() * sizeof(Vec4)));
    EXPECT_EQ(0, std::memcmp(runs[0].state.velocities.data(), runs[1].state.velocities.data(),
                             runs[0].state.velocities.size() * sizeof(Vec4)));

    fluid::FluidState cpu = fluid::initialState(p);
    const uint32_t insideAtStart = countInSolid(grids[0], cpu);
    EXPECT_GT(insideAtStart, 20u) << "the bunny should start under part of the block";
    for (uint32_t k = 0; k < steps; ++k) fluid::stepCpu(p, cpu, nullptr, &grids[0]);
    std::vector<uint32_t> gpuSlot(p.particles);
    for (uint32_t k = 0; k < p.particles; ++k) gpuSlot[fluid::particleId(runs[0].state.velocities[k])] = k;
    float maxPosErr = 0.f;
    for (uint32_t k = 0; k < p.particles; ++k) {
        const uint32_t g = gpuSlot[fluid::particleId(cpu.velocities[k])];
        for (int a = 0; a < 3; ++a)
            maxPosErr = std::max(maxPosErr, std::fabs(runs[0].state.positions[g][a] - cpu.positions[k][a]));
    }
    std::printf("fluid bunny: %u solid voxels, %u particles inside at the start; after %u steps GPU - CPU %g\n", solid,
                insideAtStart, steps, maxPosErr);
    EXPECT_LT(maxPosErr, 1e-3f * p.h);
    EXPECT_EQ(countInSolid(grids[0], runs[0].state), 0u);
}
