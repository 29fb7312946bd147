// IsoSurfaceCreateInfo::surfaceAttributes (particle quantities interpolated
// onto the surface vertices with the SPH weights) on the validated shared
// device:
// - the dense path's values against a CPU reference at the GPU's vertices
//   (the normalised SPH sum over every particle, with the density pass's
//   volumes), soup and indexed with mesh smoothing (values at the smoothed
//   positions), non-finite values counting as 0;
// - a sparse domain gives the dense path's values, and with indexed output
//   and mesh smoothing the CPU's;
// - a constant attribute stays that constant; with position smoothing and
//   host GPU buffers the particles' own positions come back near each
//   vertex (the values follow their particles through the re-binning);
// - a PLY file carries the values and reads back; bad settings and input
//   rejected with errors naming what is wrong.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <vector>

#include "particle_fixture.h"
#include "pyramarch/engine/render_graph.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/engine/vulkan_functions.h"
#include "pyramarch/isosurface/isosurface.h"
#include "pyramarch/isosurface/particle_io.h"
#include "pyramarch/isosurface/testing.h"
#include "reference.h"
#include "reference_grid.h"

using namespace pyramarch;
using namespace pyramarch::iso;

namespace {

// particles_kernel.glsl's cubicSplineUnit (built with -ffp-contract=off: the
// same float operations).
float cubicSplineUnit(float q) {
    if (!(q < 1.f)) return 0.f;
    const float s = std::sqrt(q);
    if (s <= 0.5f) return 6.f * q * (s - 1.f) + 1.f;
    const float u = 1.f - s;
    return 2.f * u * u * u;
}

IsoSurfaceCreateInfo smallInfo() {
    IsoSurfaceCreateInfo info;
    info.samples = {21, 18, 16};
    info.boundsMin = {-1.f, -1.f, -0.5f};
    info.boundsMax = {1.f, 0.7f, 1.f};
    info.source = FieldSource::Particles;
    info.particleKernel = ParticleKernel::SphCubicSpline;
    info.maxParticles = 1600;
    info.particleRadius = 0.23f;
    info.vertexCapacity = 300000;
    info.isoValue = 0.6f;
    info.surfaceAttributes = {{"velocity", 3}, {"density", 1}};
    return info;
}

// Random particles over the bounds plus 0.3 on every side (all binned),
// denser in one corner, weights 0.5..1.5; attributes: velocity (3) and a
// scalar, both in [-2, 2].
struct Input {
    std::vector<Particle> particles;
    std::vector<float> velocity, scalar;
};
Input randomInput(const ref::Grid& g, size_t count, uint32_t seed) {
    const auto rnd = ref::noise(count * 8, seed);
    Input in;
    for (size_t i = 0; i < count; ++i) {
        Particle p{};
        for (int k = 0; k < 3; ++k) {
            const float u = i % 3 == 0 ? rnd[i * 8 + k] * 0.3f : rnd[i * 8 + k];
            p.position[k] = g.min[k] - 0.3f + u * (g.max[k] - g.min[k] + 0.6f);
        }
        p.weight = 0.5f + rnd[i * 8 + 3];
        in.particles.push_back(p);
        for (int k = 0; k < 3; ++k) in.velocity.push_back(rnd[i * 8 + 4 + k] * 4.f - 2.f);
        in.scalar.push_back(rnd[i * 8 + 7] * 4.f - 2.f);
    }
    return in;
}

std::array<uint32_t, 3> bitsOf(const float* p) {
    std::array<uint32_t, 3> b;
    std::memcpy(b.data(), p, 12);
    return b;
}

struct Values {
    std::vector<IsoVertexData> vertices;
    std::vector<float> attributes; // vertices x components
};
Values readValues(IsoSurface& iso) {
    Values v;
    auto verts = iso.readVertices();
    auto attrs = iso.readAttributes();
    EXPECT_TRUE(verts.ok() && attrs.ok());
    if (!verts.ok() || !attrs.ok()) return v;
    v.vertices = std::move(verts).value();
    v.attributes = std::move(attrs).value();
    EXPECT_EQ(v.attributes.size(), v.vertices.size() * iso.attributeComponents());
    return v;
}

// The CPU reference at the GPU's vertices: sum_j V_j a_j W / sum_j V_j W in
// double over every particle (x, y, z, V) within the support, values
// (components per particle) with non-finite ones as 0. Tolerance: the GPU
// sums the same float weights (the same kernel operations) in float, at
// most a few hundred terms, so its quotient is within ~n 2^-24 of the
// largest |a| of the neighbourhood: 2e-5 x the largest |a| (4e-5 absolute
// here) leaves a margin of 3 over 100 terms; a wrong particle, volume or
// order of the values is off by O(1).
void expectMatchesCpu(const Values& gpu, const std::vector<std::array<float, 4>>& particles,
                      const std::vector<float>& values, uint32_t components, float radius, float maxAbs) {
    const float invR2 = 1.f / (radius * radius);
    ASSERT_FALSE(gpu.vertices.empty());
    const float tolerance = 2e-5f * maxAbs;
    float worst = 0.f;
    for (size_t v = 0; v < gpu.vertices.size(); ++v) {
        const float* x = gpu.vertices[v].position;
        std::vector<double> sums(components, 0.0);
        double weights = 0.0;
        for (size_t j = 0; j < particles.size(); ++j) {
            const auto& p = particles[j];
            const float dx = p[0] - x[0], dy = p[1] - x[1], dz = p[2] - x[2];
            const float q = (dx * dx + (dy * dy + dz * dz)) * invR2;
            const float w = p[3] * cubicSplineUnit(q);
            if (!(w > 0.f)) continue;
            weights += w;
            for (uint32_t c = 0; c < components; ++c) {
                const float a = values[j * components + c];
                sums[c] += std::isfinite(a) ? double(w) * a : 0.0;
            }
        }
        for (uint32_t c = 0; c < components; ++c) {
            const float expect = weights > 0.0 ? float(sums[c] / weights) : 0.f;
            const float got = gpu.attributes[v * components + c];
            ASSERT_TRUE(std::isfinite(got)) << "vertex " << v;
            ASSERT_NEAR(got, expect, tolerance) << "vertex " << v << " component " << c;
            worst = std::max(worst, std::fabs(got - expect));
        }
    }
    std::printf("%zu vertices, max |gpu - cpu| %.3g (tolerance %.3g)\n", gpu.vertices.size(), worst, tolerance);
}

class IsoAttributes : public IsoParticleTest {
protected:
    // Feeds `in` (velocity, then the scalar) and runs a frame.
    void run(IsoSurface& iso, const Input& in) {
        ASSERT_OK(iso.setParticles(in.particles));
        ASSERT_OK(iso.setParticleAttribute(0, in.velocity));
        ASSERT_OK(iso.setParticleAttribute(1, in.scalar));
        frame(iso);
    }
    // The dense surface against the CPU: the volumes the GPU's density pass
    // wrote (checked against the CPU in test_particle_sph.cpp), each with its
    // particle's values (found by its position bits).
    void checkDense(IsoSurface& iso, const Input& in, float radius) {
        auto vols = iso::testing::readParticleVolumes(iso);
        ASSERT_TRUE(vols.ok()) << vols.message();
        std::map<std::array<uint32_t, 3>, size_t> byBits;
        for (size_t i = 0; i < in.particles.size(); ++i) byBits[bitsOf(in.particles[i].position.data())] = i;
        std::vector<std::array<float, 4>> ps;
        std::vector<float> values;
        for (uint32_t j = 0; j < vols->binned; ++j) {
            const float* rec = &vols->volumes[size_t(j) * 4];
            const auto it = byBits.find(bitsOf(rec));
            ASSERT_NE(it, byBits.end()) << "record " << j;
            ps.push_back({rec[0], rec[1], rec[2], rec[3]});
            for (int k = 0; k < 3; ++k) values.push_back(in.velocity[it->second * 3 + size_t(k)]);
            values.push_back(in.scalar[it->second]);
        }
        EXPECT_EQ(ps.size(), in.particles.size());
        expectMatchesCpu(readValues(iso), ps, values, 4, radius, 2.f);
    }
};

TEST_F(IsoAttributes, DenseValuesMatchTheCpu) {
    const IsoSurfaceCreateInfo info = smallInfo();
    auto iso = make(info);
    ASSERT_TRUE(iso);
    EXPECT_EQ(iso->attributeComponents(), 4u);
    EXPECT_EQ(iso->attributeOffset(0), 0u);
    EXPECT_EQ(iso->attributeOffset(1), 3u);
    const Input in = randomInput(referenceGridOf(info), 1500, 7);
    run(*iso, in);
    checkDense(*iso, in, info.particleRadius);
}

// A surface in the host's graph that grows: the host builds its graph again
// with its own buffers imported first this time, so every import of the
// surface gets another place in the new graph; the values still come from
// the attribute ring (a reference kept from the first graph would read a
// host buffer).
TEST_F(IsoAttributes, AHostGraphBuiltAgainAfterGrowthReadsTheRing) {
    IsoSurfaceCreateInfo info = smallInfo();
    info.vertexCapacity = 0;
    auto iso = make(info, {.startOutputCapacity = 30});
    ASSERT_TRUE(iso);
    const Input in = randomInput(referenceGridOf(info), 1500, 7);
    ASSERT_OK(iso->setParticles(in.particles));
    ASSERT_OK(iso->setParticleAttribute(0, in.velocity));
    ASSERT_OK(iso->setParticleAttribute(1, in.scalar));
    std::vector<Buffer> hostBuffers;
    const auto build = [&](uint32_t hostImports) -> std::unique_ptr<RenderGraph> {
        auto graph = std::make_unique<RenderGraph>(&device());
        for (uint32_t i = 0; i < hostImports; ++i) {
            const std::string name = "host.scratch" + std::to_string(i);
            auto b = device().allocator().createBuffer({.size = 256,
                                                        .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                                        .memory = MemoryUsage::DeviceLocal,
                                                        .name = name.c_str()});
            EXPECT_TRUE(b.ok()) << b.message();
            if (!b.ok()) return nullptr;
            hostBuffers.push_back(std::move(b).value());
            const ExternalUse dst{Access::TransferDst, PassKind::Transfer};
            const BufferRef ref = graph->importBuffer(name, hostBuffers.back(), dst, dst);
            graph->addPass(name + ".fill", PassKind::Transfer)
                .use(ref, Access::TransferDst)
                .record([ref](PassContext& ctx) { ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(ref), 0, 256, 0); });
        }
        EXPECT_OK(iso->addPasses(*graph));
        EXPECT_OK(graph->compile());
        return graph;
    };
    auto graph = build(0);
    ASSERT_TRUE(graph);
    const auto runFrame = [&] {
        Status inner;
        ASSERT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) { inner = graph->execute(cmd); }));
        ASSERT_OK(inner);
    };
    ASSERT_NO_FATAL_FAILURE(runFrame());
    auto grown = iso->grow();
    ASSERT_OK(grown);
    ASSERT_TRUE(*grown) << "30 vertices cannot hold the surface";
    graph = build(3);
    ASSERT_TRUE(graph);
    ASSERT_NO_FATAL_FAILURE(runFrame());
    const auto st = iso->statsOfFrame(iso->framesRecorded() - 1);
    ASSERT_TRUE(st.has_value());
    EXPECT_FALSE(st->overflow);
    checkDense(*iso, in, info.particleRadius);
}

TEST_F(IsoAttributes, IndexedWithMeshSmoothingAtTheSmoothedPositions) {
    IsoSurfaceCreateInfo info = smallInfo();
    info.indexed = true;
    info.vertexCapacity = 60000;
    info.indexCapacity = 300000;
    info.meshSmoothing.iterations = 3;
    auto iso = make(info);
    ASSERT_TRUE(iso);
    Input in = randomInput(referenceGridOf(info), 1500, 11);
    // Non-finite values count as 0 (the CPU reference does the same).
    in.scalar[5] = std::numeric_limits<float>::quiet_NaN();
    in.velocity[3 * 9 + 1] = std::numeric_limits<float>::infinity();
    in.velocity[3 * 40] = -std::numeric_limits<float>::infinity();
    run(*iso, in);
    checkDense(*iso, in, info.particleRadius);
    auto mesh = iso->readMesh();
    ASSERT_TRUE(mesh.ok()) << mesh.message();
    ASSERT_EQ(mesh->attributes.size(), 2u);
    EXPECT_EQ(mesh->attributes[0].name, "velocity");
    EXPECT_EQ(mesh->attributes[0].values.size(), mesh->positions.size() * 3);
    EXPECT_EQ(mesh->attributes[1].values.size(), mesh->positions.size());
}

// A sparse domain: the same triangles, each vertex's values from its brick's
// particle list (vertices matched by their position bits; the order of a
// sparse surface's vertices is the pool's).
TEST_F(IsoAttributes, SparseMatchesDense) {
    IsoSurfaceCreateInfo info = smallInfo();
    auto dense = make(info);
    info.sparse.enabled = true;
    info.sparse.maxBricks = 64;
    info.sparse.maxRowPairs = 20000;
    info.sparse.maxItemRefs = 200000;
    info.name = "sparse";
    auto sparse = make(info);
    ASSERT_TRUE(dense && sparse);
    const ref::Grid g = referenceGridOf(info);
    Input in = randomInput(g, 1500, 23);
    // Inside the grid, 0.05 from its faces: the particles whose fields the
    // two domains sum alike (test_particle_sph.cpp).
    for (Particle& p : in.particles)
        for (int k = 0; k < 3; ++k) {
            const float u = (p.position[k] - (g.min[k] - 0.3f)) / (g.max[k] - g.min[k] + 0.6f);
            p.position[k] = g.min[k] + 0.05f + u * (g.max[k] - g.min[k] - 0.1f);
        }
    run(*dense, in);
    run(*sparse, in);
    const auto stats = sparse->statsOfFrame(sparse->framesRecorded() - 1);
    ASSERT_TRUE(stats.has_value());
    EXPECT_FALSE(stats->overflow);
    const Values a = readValues(*dense), b = readValues(*sparse);
    ASSERT_EQ(a.vertices.size(), b.vertices.size());
    ASSERT_FALSE(a.vertices.empty());
    std::map<std::array<uint32_t, 3>, size_t> byBits;
    for (size_t v = 0; v < a.vertices.size(); ++v) byBits[bitsOf(a.vertices[v].position)] = v;
    float worst = 0.f;
    for (size_t v = 0; v < b.vertices.size(); ++v) {
        const auto it = byBits.find(bitsOf(b.vertices[v].position));
        ASSERT_NE(it, byBits.end()) << "sparse vertex " << v;
        for (size_t c = 0; c < 4; ++c) {
            // Both sum the same weights in float, in another order (see expectMatchesCpu).
            ASSERT_NEAR(b.attributes[v * 4 + c], a.attributes[it->second * 4 + c], 4e-5f) << "vertex " << v;
            worst = std::max(worst, std::fabs(b.attributes[v * 4 + c] - a.attributes[it->second * 4 + c]));
        }
    }
    std::printf("%zu vertices, max |sparse - dense| %.3g\n", b.vertices.size(), worst);
}

// Sparse, indexed, with mesh smoothing: against the CPU with the sparse
// domain's volumes (one per particle of the frame, by its index).
TEST_F(IsoAttributes, SparseIndexedWithMeshSmoothingMatchesTheCpu) {
    IsoSurfaceCreateInfo info = smallInfo();
    info.sparse.enabled = true;
    info.sparse.maxBricks = 64;
    info.sparse.maxRowPairs = 20000;
    info.sparse.maxItemRefs = 200000;
    info.indexed = true;
    info.vertexCapacity = 60000;
    info.indexCapacity = 300000;
    info.meshSmoothing.iterations = 2;
    auto iso = make(info);
    ASSERT_TRUE(iso);
    const ref::Grid g = referenceGridOf(info);
    Input in = randomInput(g, 1200, 29);
    for (Particle& p : in.particles)
        for (int k = 0; k < 3; ++k) {
            const float u = (p.position[k] - (g.min[k] - 0.3f)) / (g.max[k] - g.min[k] + 0.6f);
            p.position[k] = g.min[k] + 0.05f + u * (g.max[k] - g.min[k] - 0.1f);
        }
    run(*iso, in);
    const auto stats = iso->statsOfFrame(iso->framesRecorded() - 1);
    ASSERT_TRUE(stats.has_value());
    EXPECT_FALSE(stats->overflow);
    auto vols = iso::testing::readParticleVolumes(*iso);
    ASSERT_TRUE(vols.ok()) << vols.message();
    std::vector<std::array<float, 4>> ps;
    std::vector<float> values;
    for (size_t i = 0; i < in.particles.size(); ++i) {
        const Particle& p = in.particles[i];
        ps.push_back({p.position[0], p.position[1], p.position[2], vols->volumes[i]});
        for (int k = 0; k < 3; ++k) values.push_back(in.velocity[i * 3 + size_t(k)]);
        values.push_back(in.scalar[i]);
    }
    expectMatchesCpu(readValues(*iso), ps, values, 4, info.particleRadius, 2.f);
}

// A jittered lattice block: a constant attribute gives that constant at
// every vertex (normalised weights), and the particles' own positions as an
// attribute come back within the support of each vertex, also after
// position smoothing (the values follow their particles through the second
// binning) and with the particles in a host GPU buffer.
TEST_F(IsoAttributes, ConstantAndPositionAttributes) {
    const float s = 0.1f;
    const auto xyz = jitteredLattice(s, 0.2f, {0.f, 0.f, 0.f}, {0.8f, 0.6f, 0.7f}, [](const auto&) { return true; });
    IsoSurfaceCreateInfo base = cliParticleSurfaceInfo(xyz, s);
    base.particleKernel = ParticleKernel::SphCubicSpline;
    base.isoValue = 0.6f;
    base.vertexCapacity = 200000;
    base.surfaceAttributes = {{"constant", 1}, {"position", 3}};
    std::vector<Particle> ps;
    std::vector<float> constant, position;
    for (const auto& p : xyz) {
        ps.push_back({{p[0], p[1], p[2]}, 1.f});
        constant.push_back(2.5f);
        position.insert(position.end(), p.begin(), p.end());
    }
    const auto check = [&](IsoSurface& iso, const char* what) {
        const Values v = readValues(iso);
        ASSERT_GT(v.vertices.size(), 1000u) << what;
        float worstConstant = 0.f, worstDistance = 0.f;
        for (size_t i = 0; i < v.vertices.size(); ++i) {
            const float* a = &v.attributes[i * 4];
            worstConstant = std::max(worstConstant, std::fabs(a[0] - 2.5f));
            float d2 = 0.f;
            for (int k = 0; k < 3; ++k)
                d2 += (a[1 + k] - v.vertices[i].position[k]) * (a[1 + k] - v.vertices[i].position[k]);
            worstDistance = std::max(worstDistance, std::sqrt(d2));
        }
        EXPECT_LE(worstConstant, 2.5f * 1e-5f) << what;
        // A weighted mean of positions within the support lies inside it.
        EXPECT_LT(worstDistance, base.particleRadius) << what;
        std::printf("%s: %zu vertices, max |a - 2.5| %.3g, max |mean position - vertex| %.3g (support %.3g)\n", what,
                    v.vertices.size(), worstConstant, worstDistance, base.particleRadius);
    };
    {
        IsoSurfaceCreateInfo info = base;
        info.particleSmoothing = 0.5f;
        auto iso = make(info);
        ASSERT_TRUE(iso);
        ASSERT_OK(iso->setParticles(ps));
        ASSERT_OK(iso->setParticleAttribute(0, constant));
        ASSERT_OK(iso->setParticleAttribute(1, position));
        frame(*iso);
        check(*iso, "position smoothing");
    }
    {
        IsoSurfaceCreateInfo info = base;
        const VkDeviceSize bytes = VkDeviceSize(ps.size()) * sizeof(Particle);
        auto buffer = device().allocator().createBuffer({.size = bytes,
                                                         .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                                         .memory = MemoryUsage::Upload,
                                                         .name = "attributes.particles"});
        ASSERT_TRUE(buffer.ok()) << buffer.message();
        std::memcpy(buffer.value().mapped(), ps.data(), bytes);
        buffer.value().flush();
        info.particleInput = ParticleInput::GpuBuffer;
        info.particleBuffer = &buffer.value();
        auto iso = make(info);
        ASSERT_TRUE(iso);
        ASSERT_OK(iso->setParticleCount(uint32_t(ps.size())));
        ASSERT_OK(iso->setParticleAttribute(0, constant));
        ASSERT_OK(iso->setParticleAttribute(1, position));
        frame(*iso);
        check(*iso, "GPU buffer");
    }
}

// writePly writes the attributes as vertex properties; the particle reader
// reads them back (one scalar property each).
TEST_F(IsoAttributes, PlyRoundTrip) {
    IsoSurfaceCreateInfo info = smallInfo();
    auto iso = make(info);
    ASSERT_TRUE(iso);
    const Input in = randomInput(referenceGridOf(info), 800, 31);
    run(*iso, in);
    auto mesh = iso->readMesh(true);
    ASSERT_TRUE(mesh.ok()) << mesh.message();
    ASSERT_FALSE(mesh->positions.empty());
    const std::string path = (std::filesystem::temp_directory_path() / "pyramarch_surface_attributes.ply").string();
    ASSERT_OK(writePly(*mesh, path));
    ParticleReadOptions opt;
    opt.attributes = {"velocity_x", "velocity_y", "velocity_z", "density"};
    auto back = readParticles(path, opt);
    std::filesystem::remove(path);
    ASSERT_TRUE(back.ok()) << back.message();
    ASSERT_EQ(back->count(), mesh->positions.size());
    for (size_t v = 0; v < mesh->positions.size(); ++v) {
        for (int k = 0; k < 3; ++k) {
            ASSERT_EQ(back->xyz[v * 3 + size_t(k)], mesh->positions[v][size_t(k)]);
            ASSERT_EQ(back->attributes[size_t(k)].values[v], mesh->attributes[0].values[v * 3 + size_t(k)]);
        }
        ASSERT_EQ(back->attributes[3].values[v], mesh->attributes[1].values[v]);
    }
    // A name the file lacks: the error names the file and the attribute.
    opt.attributes = {"velocity"};
    ASSERT_OK(writePly(*mesh, path));
    auto missing = readParticles(path, opt);
    std::filesystem::remove(path);
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.message().find(path), std::string::npos) << missing.message();
    EXPECT_NE(missing.message().find("'velocity'"), std::string::npos) << missing.message();
}

TEST_F(IsoAttributes, BadSettingsAndInput) {
    const auto rejected = [&](const IsoSurfaceCreateInfo& info, const char* expect) {
        auto r = iso::testing::create(device(), info, {});
        ASSERT_FALSE(r.ok()) << expect;
        EXPECT_EQ(r.status().code(), ErrorCode::InvalidArgument) << r.message();
        EXPECT_NE(r.message().find(expect), std::string::npos) << r.message();
    };
    IsoSurfaceCreateInfo info = smallInfo();
    info.particleKernel = ParticleKernel::NeighbourCount;
    rejected(info, "SphCubicSpline");
    info = smallInfo();
    info.surfaceAttributes = {{"v", 0}};
    rejected(info, "'v' has 0 components");
    info.surfaceAttributes = {{"a", 9}, {"b", 8}};
    rejected(info, "17 components in all");
    info.surfaceAttributes = {{"", 1}};
    rejected(info, "attribute 0 has no name");
    // Bricks sum at the particles' own positions: refused with position smoothing.
    info = smallInfo();
    info.particleSmoothing = 0.5f;
    info.sparse.enabled = true;
    info.sparse.maxBricks = 64;
    info.sparse.maxRowPairs = 20000;
    info.sparse.maxItemRefs = 200000;
    rejected(info, "particleSmoothing on a sparse");

    info = smallInfo();
    auto iso = make(info);
    ASSERT_TRUE(iso);
    const std::vector<float> four(4, 1.f);
    EXPECT_EQ(iso->setParticleAttribute(2, four).code(), ErrorCode::InvalidArgument);
    const Status notWhole = iso->setParticleAttribute(0, four);
    EXPECT_EQ(notWhole.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(notWhole.message().find("'velocity'"), std::string::npos) << notWhole.message();
    EXPECT_EQ(iso->setParticleAttribute(1, std::vector<float>(info.maxParticles + 1, 0.f)).code(),
              ErrorCode::CapacityExceeded);
    // No values set: every vertex reads 0.
    const Input in = randomInput(referenceGridOf(info), 600, 3);
    ASSERT_OK(iso->setParticles(in.particles));
    frame(*iso);
    const Values v = readValues(*iso);
    ASSERT_FALSE(v.vertices.empty());
    for (float a : v.attributes) ASSERT_EQ(a, 0.f);
}

} // namespace
