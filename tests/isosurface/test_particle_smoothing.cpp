// Particle position smoothing (IsoSurfaceCreateInfo::particleSmoothing, the
// Laplacian step of Yu & Turk 2013) on the validated shared device:
// - the GPU's smoothed particles against a CPU reference, particle by particle;
// - the field splatted from them against the brute-force splat of the CPU's;
// - bit-identical fields and vertices over frames and instances;
// - bad parameters rejected at create;
// - surface quality, isotropic vs smoothed vs anisotropic kernels (with and
//   without smoothing): lattice and jittered particles filling a sphere
//   (mean / max distance of the surface to the sphere) and a block (RMS
//   deviation of the top face from its plane). Numbers are printed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <vector>

#include "pyramarch/engine/transfer.h"
#include "pyramarch/isosurface/isosurface.h"
#include "pyramarch/isosurface/particle_grid.h"
#include "pyramarch/isosurface/testing.h"
#include "reference.h"
#include "particle_fixture.h"
#include "reference_grid.h"
#include "support/gpu_test.h"

using namespace pyramarch;
using namespace pyramarch::iso;
// The measured variants (testing::Knobs).
using iso::testing::ExtractionMethod;
using iso::testing::FieldEvaluation;
using iso::testing::SplatMethod;

namespace {

constexpr float kFixedOne = 4096.f; // kIsoSmoothFixedOne

struct CpuSmoothed {
    std::vector<std::array<float, 3>> p;
    std::vector<float> tolerance; // per particle: the fixed-point truncations' bound
};

// The smoothing of particles_smooth.comp on the CPU: x + lambda * mean offset,
// weights 1 - (d/r)^3 within r, weights and offsets in radii truncated to
// 1/4096 and summed as integers. O(n^2): test sizes only.
CpuSmoothed smoothCpu(const std::vector<std::array<float, 3>>& ps, float r, float lambda) {
    CpuSmoothed out;
    for (const auto& x : ps) {
        uint32_t sumW = 0;
        int32_t sumD[3] = {0, 0, 0};
        uint32_t terms = 0;
        for (const auto& y : ps) {
            float d[3];
            for (int k = 0; k < 3; ++k) d[k] = (y[k] - x[k]) / r;
            const float q = d[0] * d[0] + (d[1] * d[1] + d[2] * d[2]);
            if (!(q < 1.f)) continue;
            const float w = 1.f - q * std::sqrt(q);
            sumW += uint32_t(w * kFixedOne);
            for (int k = 0; k < 3; ++k) sumD[k] += int32_t(w * d[k] * kFixedOne);
            ++terms;
        }
        std::array<float, 3> m;
        for (int k = 0; k < 3; ++k) m[k] = x[k] + lambda * (float(sumD[k]) / float(sumW) * r);
        out.p.push_back(m);
        // A term may truncate one unit differently (sqrt / division rounding):
        // up to `terms` units in each sum, sumW >= 4096 (the particle itself).
        out.tolerance.push_back(lambda * r * 2.f * float(terms + 1) / float(sumW) + 1e-6f);
    }
    return out;
}

class IsoSmooth : public IsoParticleTest {};

IsoSurfaceCreateInfo smallInfo(float lambda) {
    IsoSurfaceCreateInfo info;
    info.samples = {21, 18, 16};
    info.boundsMin = {-1.f, -1.f, -0.5f};
    info.boundsMax = {1.f, 0.7f, 1.f};
    info.source = FieldSource::Particles;
    info.maxParticles = 2000;
    info.particleRadius = 0.23f;
    info.particleSmoothing = lambda;
    info.vertexCapacity = 300000;
    info.isoValue = 0.4f;
    return info;
}

// Random particles over the bounds plus a margin on every side (all within
// the binned box), denser in one corner, weights 0.5..1.5.
std::vector<Particle> randomParticles(const ref::Grid& g, size_t count, uint32_t seed) {
    const auto rnd = ref::noise(count * 4, seed);
    std::vector<Particle> ps;
    for (size_t i = 0; i < count; ++i) {
        Particle p{};
        for (int k = 0; k < 3; ++k) {
            const float u = i % 3 == 0 ? rnd[i * 4 + k] * 0.3f : rnd[i * 4 + k];
            p.position[k] = g.min[k] - 0.3f + u * (g.max[k] - g.min[k] + 0.6f);
        }
        p.weight = 0.5f + rnd[i * 4 + 3];
        ps.push_back(p);
    }
    return ps;
}

} // namespace

TEST_F(IsoSmooth, SmoothedParticlesAndFieldMatchTheCpu) {
    for (const float lambda : {0.5f, 1.f}) {
        const IsoSurfaceCreateInfo info = smallInfo(lambda);
        auto iso = make(info);
        ASSERT_TRUE(iso);
        const ref::Grid g = referenceGridOf(info);
        std::vector<Particle> ps = randomParticles(g, 1500, 7);
        // Far outside the binned box: never binned, moves nothing.
        ps.push_back({{50.f, -80.f, 1e30f}, 1.f});
        ASSERT_TRUE(iso->setParticles(ps).ok());
        frame(*iso);
        std::vector<std::array<float, 3>> xyz;
        std::map<std::array<uint32_t, 3>, size_t> byBits;
        for (size_t i = 0; i < ps.size(); ++i) {
            xyz.push_back({ps[i].position[0], ps[i].position[1], ps[i].position[2]});
            std::array<uint32_t, 3> bits;
            std::memcpy(bits.data(), ps[i].position.data(), 12);
            byBits[bits] = i;
        }
        ASSERT_EQ(byBits.size(), ps.size());
        const CpuSmoothed cpu = smoothCpu(xyz, info.particleRadius, lambda);
        auto gpu = iso::testing::readSmoothedParticles(*iso);
        ASSERT_TRUE(gpu.ok()) << gpu.message();
        // The binned particles come first: all but the far one, each once.
        std::vector<bool> seen(ps.size(), false);
        float maxErr = 0.f, maxMove = 0.f;
        for (size_t j = 0; j + 1 < ps.size(); ++j) {
            std::array<uint32_t, 3> bits;
            std::memcpy(bits.data(), &gpu->sorted[j * 4], 12);
            const auto it = byBits.find(bits);
            ASSERT_NE(it, byBits.end()) << "sorted " << j;
            const size_t i = it->second;
            ASSERT_LT(i, ps.size() - 1);
            ASSERT_FALSE(seen[i]);
            seen[i] = true;
            EXPECT_EQ(gpu->smoothed[j * 4 + 3], ps[i].weight);
            for (int k = 0; k < 3; ++k) {
                const float err = std::fabs(gpu->smoothed[j * 4 + k] - cpu.p[i][k]);
                ASSERT_LE(err, cpu.tolerance[i]) << "particle " << i << " axis " << k << " lambda " << lambda;
                maxErr = std::max(maxErr, err);
                maxMove = std::max(maxMove, std::fabs(cpu.p[i][k] - xyz[i][k]));
            }
        }
        // Smoothing moves particles (a real test), by at most lambda r.
        EXPECT_GT(maxMove, 0.05f * info.particleRadius);
        EXPECT_LE(maxMove, lambda * info.particleRadius * 1.0001f);
        std::printf("lambda %.2f: max |gpu - cpu| %.3g (radius %.2f), max move %.3g\n", lambda, maxErr,
                    info.particleRadius, maxMove);
        // The field: the brute-force splat of the CPU's smoothed particles.
        std::vector<ref::Particle> refPs;
        for (size_t i = 0; i + 1 < ps.size(); ++i)
            refPs.push_back({{cpu.p[i][0], cpu.p[i][1], cpu.p[i][2]}, ps[i].weight});
        std::vector<uint32_t> touching;
        const auto expect = ref::splatBruteForce(g, refPs, info.particleRadius, &touching);
        auto field = iso->readField();
        ASSERT_TRUE(field.ok());
        // Kernel slope <= 1.3 w / r per unit of distance, weights <= 1.5.
        const float perParticle = 1.f / 65536.f + 1.3f * 1.5f * (maxErr * 1.8f) / info.particleRadius;
        for (size_t s = 0; s < expect.size(); ++s)
            ASSERT_NEAR(field.value()[s], expect[s], (float(touching[s]) + 1.f) * perParticle + 1e-5f * expect[s])
                << "sample " << s << " lambda " << lambda;
    }
}

TEST_F(IsoSmooth, BitIdenticalOverFramesAndInstances) {
    const IsoSurfaceCreateInfo info = smallInfo(0.7f);
    const ref::Grid g = referenceGridOf(info);
    expectBitIdenticalOverFramesAndInstances(info, randomParticles(g, 1500, 11));
}

TEST_F(IsoSmooth, BadParametersFailCreate) {
    for (const float bad : {std::nanf(""), -0.1f, 1.5f, INFINITY, -INFINITY}) {
        IsoSurfaceCreateInfo info = smallInfo(bad);
        auto r = IsoSurface::create(device(), info);
        ASSERT_FALSE(r.ok()) << bad;
        EXPECT_EQ(r.code(), ErrorCode::InvalidArgument);
        EXPECT_NE(r.message().find("particleSmoothing"), std::string::npos) << r.message();
        EXPECT_NE(r.message().find("[0, 1]"), std::string::npos) << r.message();
    }
    IsoSurfaceCreateInfo info = smallInfo(0.5f);
    auto r = iso::testing::create(device(), info, {.splat = SplatMethod::Scatter});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("particleSmoothing needs SplatMethod::Gather"), std::string::npos) << r.message();
    // Ignored (and so not checked) for other sources; 0 and 1 are valid.
    for (const float ok : {0.f, 1.f}) EXPECT_TRUE(IsoSurface::create(device(), smallInfo(ok)).ok()) << ok;
}

namespace {

// The surface of `xyz` as `pyramarch iso --particles` makes it: particle
// radius s/2, smoothing length 2 (support 2 s), voxel s/2, threshold 0.6.
Mesh surfaceOf(IsoSmooth& t, Device& device, const std::vector<std::array<float, 3>>& xyz, float s, float lambda,
               bool anisotropic = false) {
    IsoSurfaceCreateInfo info = cliParticleSurfaceInfo(xyz, s);
    info.particleSmoothing = lambda;
    info.anisotropic.enabled = anisotropic;
    info.vertexCapacity = 2000000;
    auto iso = IsoSurface::create(device, info);
    EXPECT_TRUE(iso.ok()) << iso.message();
    if (!iso) return {};
    EXPECT_TRUE((*iso)->setParticles({.positions = xyz.data(), .count = uint32_t(xyz.size())}).ok());
    t.runFrame(**iso);
    auto mesh = (*iso)->readMesh(true);
    EXPECT_TRUE(mesh.ok()) << mesh.message();
    return mesh.ok() ? mesh.value() : Mesh{};
}

// Connected pieces of a welded mesh (triangles sharing a vertex): a closed
// surface is one; a shell under it (a low-density spot inside the fluid) or
// a lone droplet is one more each.
size_t components(const Mesh& mesh) {
    std::vector<uint32_t> parent(mesh.positions.size());
    for (uint32_t i = 0; i < parent.size(); ++i) parent[i] = i;
    const auto root = [&](uint32_t i) {
        while (parent[i] != i) i = parent[i] = parent[parent[i]];
        return i;
    };
    for (size_t t = 0; t + 2 < mesh.indices.size(); t += 3)
        for (int k = 1; k < 3; ++k) parent[root(mesh.indices[t + k])] = root(mesh.indices[t]);
    size_t n = 0;
    for (uint32_t i = 0; i < parent.size(); ++i) n += root(i) == i;
    return n;
}

} // namespace

// Surface quality of the four kernel modes, on a regular lattice and on one
// jittered by +-0.3 spacings (printed; the README's table): isotropic,
// smoothed (lambda 0.5), anisotropic (Yu & Turk 2013, default parameters)
// and anisotropic with smoothing (lambda 0.5, the kernels at the smoothed
// positions).
struct Mode {
    const char* name;
    float lambda;
    bool anisotropic;
};
constexpr Mode kModes[4] = {
    {"isotropic", 0.f, false}, {"smoothed", 0.5f, false}, {"anisotropic", 0.f, true}, {"aniso+smooth", 0.5f, true}};

// Measured: smoothing flattens the lattice's ripple on a flat face (asserted),
// does little for the jittered one (its bumps are wider than the smoothing
// radius), and shrinks convex parts: a sphere's surface moves inwards
// (asserted to stay within 0.1 spacing of the isotropic mean distance at
// lambda 0.5). Anisotropic kernels bring the surface closer to the sphere
// (asserted, lattice and jittered).
TEST_F(IsoSmooth, SphereDistanceByKernelMode) {
    // Particles of spacing s filling a ball of radius R: the true surface is
    // the sphere of radius R (each particle stands for a cube of side s).
    const float s = 0.1f, R = 1.f;
    for (const float jitter : {0.f, 0.3f}) {
        const auto xyz = jitteredLattice(s, jitter, {-R, -R, -R}, {R, R, R}, [&](const std::array<float, 3>& p) {
            return p[0] * p[0] + p[1] * p[1] + p[2] * p[2] <= R * R;
        });
        double mean[4] = {}, signedMean[4] = {}, maxD[4] = {};
        size_t pieces[4] = {};
        for (int m = 0; m < 4; ++m) {
            const Mesh mesh = surfaceOf(*this, device(), xyz, s, kModes[m].lambda, kModes[m].anisotropic);
            ASSERT_GT(mesh.positions.size(), 1000u);
            pieces[m] = components(mesh);
            for (const auto& v : mesh.positions) {
                const double d = std::sqrt(double(v[0]) * v[0] + double(v[1]) * v[1] + double(v[2]) * v[2]) - R;
                mean[m] += std::fabs(d);
                signedMean[m] += d;
                maxD[m] = std::max(maxD[m], std::fabs(d));
            }
            mean[m] /= double(mesh.positions.size());
            signedMean[m] /= double(mesh.positions.size());
            std::printf("sphere R=%.2f, %zu particles of spacing %.2f, jitter %.1f s, %-12s: %zu vertices, "
                        "distance to the sphere mean %.4f (signed %+.4f) max %.4f = %.3f / %.3f spacings, %zu "
                        "piece(s)\n",
                        R, xyz.size(), s, jitter, kModes[m].name, mesh.positions.size(), mean[m], signedMean[m],
                        maxD[m], mean[m] / s, maxD[m] / s, pieces[m]);
        }
        // Smoothing pulls the surface in, by a bounded amount.
        EXPECT_LT(signedMean[1], signedMean[0]) << jitter;
        EXPECT_LT(mean[1], mean[0] + 0.1 * s) << jitter;
        // Isotropic kernels: one closed surface.
        EXPECT_EQ(pieces[0], 1u) << jitter;
        // Anisotropic kernels: closer to the sphere on average, lattice
        // (measured 0.55x) and jittered (0.64x), one piece, and on the
        // lattice no further at worst. Jittered, the farthest vertex is a
        // dimple over a spot where the isotropic field itself is only 2 %
        // above the iso value (measured 1.34x the isotropic max). Before
        // the volume-preserving, noise-thresholded axes the jittered mean
        // was 1.05x, with shells under the surface reaching 5.2 spacings.
        EXPECT_EQ(pieces[2], 1u) << jitter;
        if (jitter == 0.f) {
            EXPECT_LT(mean[2], 0.7 * mean[0]);
            EXPECT_LE(maxD[2], maxD[0]);
        } else {
            EXPECT_LT(mean[2], 0.8 * mean[0]);
            EXPECT_LT(maxD[2], 1.5 * maxD[0]);
        }
    }
}

TEST_F(IsoSmooth, BlockTopFlatnessByKernelMode) {
    // Particles filling a block; the top face (normals pointing up, 3
    // spacings away from the block's edges) against its least-squares plane
    // z = c.
    const float s = 0.1f;
    const std::array<float, 3> lo{0.f, 0.f, 0.f}, hi{2.f, 2.f, 0.8f};
    for (const float jitter : {0.f, 0.3f}) {
        const auto xyz = jitteredLattice(s, jitter, lo, hi, [](const std::array<float, 3>&) { return true; });
        double rms[4];
        for (int m = 0; m < 4; ++m) {
            const Mesh mesh = surfaceOf(*this, device(), xyz, s, kModes[m].lambda, kModes[m].anisotropic);
            std::vector<double> z;
            for (size_t i = 0; i < mesh.positions.size(); ++i) {
                const auto& v = mesh.positions[i];
                if (mesh.normals[i][2] < 0.5f || v[2] < hi[2] - 2 * s) continue;
                if (v[0] < lo[0] + 3 * s || v[0] > hi[0] - 3 * s || v[1] < lo[1] + 3 * s || v[1] > hi[1] - 3 * s)
                    continue;
                z.push_back(v[2]);
            }
            ASSERT_GT(z.size(), 500u);
            double mean = 0;
            for (double v : z) mean += v;
            mean /= double(z.size());
            double sq = 0, maxDev = 0;
            for (double v : z) {
                sq += (v - mean) * (v - mean);
                maxDev = std::max(maxDev, std::fabs(v - mean));
            }
            rms[m] = std::sqrt(sq / double(z.size()));
            std::printf("block %.1f x %.1f x %.1f, %zu particles of spacing %.2f, jitter %.1f s, %-12s: top "
                        "face %zu vertices, plane z = %.4f, RMS deviation %.5f (%.4f spacings), max %.5f\n",
                        hi[0], hi[1], hi[2], xyz.size(), s, jitter, kModes[m].name, z.size(), mean, rms[m], rms[m] / s,
                        maxDev);
        }
        if (jitter == 0.f)
            EXPECT_LT(rms[1], 0.8 * rms[0]);
        else
            EXPECT_LT(rms[1], rms[0]);
        // Anisotropic kernels: flatter than isotropic ones (measured 0.79x on
        // the lattice, 0.80x jittered). The top layer's eigenvalue ratio
        // (0.39 on the lattice) is not far under isotropicRatio, so its
        // kernels flatten to 0.84 radii: the lattice's former 0.07x came
        // from kernels flattened to a quarter, which opened shells under
        // jittered surfaces.
        if (jitter == 0.f)
            EXPECT_LT(rms[2], 0.9 * rms[0]);
        else
            EXPECT_LT(rms[2], 0.85 * rms[0]);
    }
}
