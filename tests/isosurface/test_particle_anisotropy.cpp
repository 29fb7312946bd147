// Anisotropic particle kernels (IsoSurfaceCreateInfo::anisotropic, Yu & Turk
// 2013) on the validated shared device:
// - every binned particle's kernel (centre, G, weight x det) against a CPU
//   reference (covariance of the neighbours, eigen-decomposition in double);
// - the field against the brute-force sum of those kernels, and the
//   triangles against the CPU marching cubes of the GPU's field;
// - bit-identical fields and vertices over frames and instances;
// - bad parameters and the scatter splat rejected at create.
// The quality figures (sphere distance, block flatness) are in
// test_particle_smoothing.cpp, beside the smoothing ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <vector>

#include "pyramarch/engine/transfer.h"
#include "pyramarch/isosurface/isosurface.h"
#include "pyramarch/isosurface/testing.h"
#include "reference.h"
#include "iso_reference_convert.h"
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
constexpr uint32_t kRecord = 12;    // floats per kernel record

struct CpuKernel {
    double centre[3];
    double g[3][3];      // G' = G * radius (dimensionless)
    double axis[3];      // sorted descending
    double wdet;         // weight x det G'
    uint32_t count;      // neighbours within the neighbourhood, itself included
    uint32_t borderline; // neighbours with q within 1e-5 of 1 (float rounding may count them or not)
    double tolG, tolCentre;
};

// Eigen-decomposition of a symmetric 3x3 (cyclic Jacobi in double until the
// off-diagonal vanishes): values on the diagonal of a, vectors the columns of v.
void jacobi(double a[3][3], double v[3][3]) {
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) v[r][c] = r == c;
    for (int sweep = 0; sweep < 50; ++sweep) {
        const double off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
        if (off < 1e-30) break;
        for (const auto& [p, q] : {std::pair{0, 1}, std::pair{0, 2}, std::pair{1, 2}}) {
            if (a[p][q] == 0.0) continue;
            const double theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
            const double t = (theta >= 0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1.0));
            const double c = 1.0 / std::sqrt(t * t + 1.0), s = t * c;
            double j[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
            j[p][p] = c;
            j[q][q] = c;
            j[p][q] = s;
            j[q][p] = -s;
            double aj[3][3] = {}, na[3][3] = {}, nv[3][3] = {};
            for (int r = 0; r < 3; ++r)
                for (int cc = 0; cc < 3; ++cc)
                    for (int k = 0; k < 3; ++k) aj[r][cc] += a[r][k] * j[k][cc];
            for (int r = 0; r < 3; ++r)
                for (int cc = 0; cc < 3; ++cc)
                    for (int k = 0; k < 3; ++k) {
                        na[r][cc] += j[k][r] * aj[k][cc];
                        nv[r][cc] += v[r][k] * j[k][cc];
                    }
            std::memcpy(a, na, sizeof na);
            std::memcpy(v, nv, sizeof nv);
        }
    }
}

// The kernels of particles_aniso.comp on the CPU: the neighbour sums as the
// GPU truncates them (float, 1/4096 units), the rest in double. O(n^2).
std::vector<CpuKernel> anisoCpu(const std::vector<Particle>& ps, float radius, float lambda,
                                const AnisotropicKernels& an) {
    const float rn = an.neighbourhood * radius;
    const float invRn = 1.f / rn; // as the shader: one division, then products
    std::vector<CpuKernel> out;
    for (const Particle& x : ps) {
        uint32_t sumW = 0, count = 0, borderline = 0;
        int32_t sumD[3] = {0, 0, 0}, sumDiag[3] = {0, 0, 0}, sumOff[3] = {0, 0, 0};
        for (const Particle& y : ps) {
            float d[3];
            for (int k = 0; k < 3; ++k) d[k] = (y.position[k] - x.position[k]) * invRn;
            const float q = d[0] * d[0] + (d[1] * d[1] + d[2] * d[2]);
            if (std::fabs(q - 1.f) < 1e-5f) ++borderline;
            if (!(q < 1.f)) continue;
            const float w = 1.f - q * std::sqrt(q);
            float wd[3];
            for (int k = 0; k < 3; ++k) wd[k] = w * d[k];
            sumW += uint32_t(w * kFixedOne);
            for (int k = 0; k < 3; ++k) {
                sumD[k] += int32_t(wd[k] * kFixedOne);
                sumDiag[k] += int32_t(wd[k] * d[k] * kFixedOne);
            }
            sumOff[0] += int32_t(wd[0] * d[1] * kFixedOne);
            sumOff[1] += int32_t(wd[0] * d[2] * kFixedOne);
            sumOff[2] += int32_t(wd[1] * d[2] * kFixedOne);
            ++count;
        }
        CpuKernel k{};
        const double W = sumW;
        double m[3], c[3][3], v[3][3];
        for (int a = 0; a < 3; ++a) m[a] = sumD[a] / W;
        for (int a = 0; a < 3; ++a) c[a][a] = sumDiag[a] / W - m[a] * m[a];
        c[0][1] = c[1][0] = sumOff[0] / W - m[0] * m[1];
        c[0][2] = c[2][0] = sumOff[1] / W - m[0] * m[2];
        c[1][2] = c[2][1] = sumOff[2] / W - m[1] * m[2];
        jacobi(c, v);
        double axis[3];
        // The clamped eigenvalue ratios and their volume-preserving scale
        // (kept for the tolerance below).
        double sigmaMax = 0, scale = 1;
        for (int a = 0; a < 3; ++a) sigmaMax = std::max(sigmaMax, c[a][a]);
        if (count < an.minNeighbours || !(sigmaMax > 0)) {
            for (double& a : axis) a = count < an.minNeighbours ? an.isolatedScale : 1.0;
            for (int r = 0; r < 3; ++r)
                for (int cc = 0; cc < 3; ++cc) v[r][cc] = r == cc;
        } else {
            double rho[3];
            for (int a = 0; a < 3; ++a)
                rho[a] = std::clamp(std::max(c[a][a], 0.0) / (sigmaMax * double(an.isotropicRatio)),
                                    1.0 / double(an.maxRatio), 1.0);
            const double gm = std::cbrt(rho[0] * rho[1] * rho[2]);
            for (int a = 0; a < 3; ++a) axis[a] = std::min(rho[a] / gm, double(an.maxStretch));
            scale = sigmaMax * double(an.isotropicRatio) * gm;
        }
        for (int r = 0; r < 3; ++r)
            for (int cc = 0; cc < 3; ++cc) {
                k.g[r][cc] = 0;
                for (int e = 0; e < 3; ++e) k.g[r][cc] += v[r][e] * v[cc][e] / axis[e];
            }
        k.wdet = x.weight / (axis[0] * axis[1] * axis[2]);
        for (int a = 0; a < 3; ++a) k.centre[a] = x.position[a] + double(lambda) * m[a] * rn;
        std::copy(axis, axis + 3, k.axis);
        std::sort(k.axis, k.axis + 3, std::greater<>());
        k.count = count;
        k.borderline = borderline;
        // A term may truncate one unit differently (sqrt, division rounding):
        // up to `count` units per sum. A covariance entry then moves by
        // ~3 (count + 1) / sumW. With a_k = sigma_k / scale (scale = sigmaMax
        // x isotropicRatio x the geometric mean), 1 / a moves by
        // 1 / (a_min^2 scale) per unit of sigma, and the scale itself by
        // dC / (sigmaMax isotropicRatio / maxRatio) relative (its clamped
        // ratios); plus float rounding of the GPU's covariance, Jacobi and
        // cube root (relative ~1e-5 of the entries).
        const double amin = std::min({axis[0], axis[1], axis[2]});
        const double dC = 3.0 * double(count + 1) / W + 2e-5;
        k.tolG = 1e-4 / amin; // isolated: fixed axes, no eigenvectors
        if (count >= an.minNeighbours && sigmaMax > 0) {
            const double relScale = dC * double(an.maxRatio) / (sigmaMax * double(an.isotropicRatio));
            k.tolG += 3.0 * dC / (amin * amin * scale) + 3.0 * relScale / amin;
        }
        k.tolCentre = double(lambda) * rn * 2.0 * double(count + 1) / W + 1e-6;
        out.push_back(k);
    }
    return out;
}

class IsoAniso : public IsoParticleTest {};

IsoSurfaceCreateInfo smallInfo(float lambda) {
    IsoSurfaceCreateInfo info;
    info.samples = {21, 18, 16};
    info.boundsMin = {-1.f, -1.f, -0.5f};
    info.boundsMax = {1.f, 0.7f, 1.f};
    info.source = FieldSource::Particles;
    info.maxParticles = 2000;
    info.particleRadius = 0.23f;
    info.particleSmoothing = lambda;
    info.anisotropic.enabled = true;
    info.anisotropic.maxStretch = 1.5f; // the gather's wider reach is exercised
    info.vertexCapacity = 300000;
    info.isoValue = 0.4f;
    return info;
}

// Random particles over the bounds plus a margin on every side, a third of
// them packed into one corner (dense: stretched kernels; the rest sparse:
// many isotropic ones), plus a flat sheet of particles (strongly anisotropic),
// weights 0.5..1.5.
std::vector<Particle> someParticles(const ref::Grid& g, size_t count, uint32_t seed) {
    const auto rnd = ref::noise(count * 4, seed);
    std::vector<Particle> ps;
    for (size_t i = 0; i < count; ++i) {
        Particle p{};
        for (int k = 0; k < 3; ++k) {
            const float u = i % 3 == 0 ? rnd[i * 4 + k] * 0.3f : rnd[i * 4 + k];
            p.position[k] = g.min[k] - 0.3f + u * (g.max[k] - g.min[k] + 0.6f);
        }
        if (i % 5 == 1) p.position[2] = 0.4f + 0.01f * rnd[i * 4 + 2]; // the sheet
        p.weight = 0.5f + rnd[i * 4 + 3];
        ps.push_back(p);
    }
    return ps;
}

} // namespace

TEST_F(IsoAniso, KernelsFieldAndTrianglesMatchTheCpu) {
    for (const float lambda : {0.f, 0.6f}) {
        const IsoSurfaceCreateInfo info = smallInfo(lambda);
        auto iso = make(info);
        ASSERT_TRUE(iso);
        const ref::Grid g = referenceGridOf(info);
        std::vector<Particle> ps = someParticles(g, 1500, 7);
        ps.push_back({{50.f, -80.f, 1e30f}, 1.f}); // never binned
        ASSERT_TRUE(iso->setParticles(ps).ok());
        frame(*iso);
        std::map<std::array<uint32_t, 3>, size_t> byBits;
        for (size_t i = 0; i < ps.size(); ++i) {
            std::array<uint32_t, 3> bits;
            std::memcpy(bits.data(), ps[i].position.data(), 12);
            byBits[bits] = i;
        }
        ASSERT_EQ(byBits.size(), ps.size());
        std::vector<Particle> binnedPs(ps.begin(), ps.end() - 1);
        const std::vector<CpuKernel> cpu = anisoCpu(binnedPs, info.particleRadius, lambda, info.anisotropic);
        auto gpu = iso::testing::readAnisotropicKernels(*iso);
        ASSERT_TRUE(gpu.ok()) << gpu.message();
        ASSERT_EQ(gpu->binned, ps.size() - 1);
        std::vector<bool> seen(ps.size(), false);
        double maxGErr = 0, maxCentreErr = 0, maxRatio = 0;
        size_t isotropic = 0, stretched = 0, skipped = 0;
        for (size_t j = 0; j < gpu->binned; ++j) {
            std::array<uint32_t, 3> bits;
            std::memcpy(bits.data(), &gpu->sorted[j * 4], 12);
            const auto it = byBits.find(bits);
            ASSERT_NE(it, byBits.end()) << "sorted " << j;
            const size_t i = it->second;
            ASSERT_FALSE(seen[i]);
            seen[i] = true;
            const CpuKernel& k = cpu[i];
            const float* rec = &gpu->kernels[j * kRecord];
            // A neighbour at q ~ 1 may be counted on one side only; where that
            // crosses minNeighbours the kernels differ by design: skipped.
            const bool straddles = k.borderline > 0 && k.count + k.borderline >= info.anisotropic.minNeighbours &&
                                   k.count <= info.anisotropic.minNeighbours + k.borderline;
            if (straddles) {
                ++skipped;
                continue;
            }
            (k.count < info.anisotropic.minNeighbours ? isotropic : stretched) += 1;
            maxRatio = std::max(maxRatio, k.axis[0] / k.axis[2]);
            for (int a = 0; a < 3; ++a) {
                const double e = std::fabs(rec[a] - k.centre[a]);
                ASSERT_LE(e, k.tolCentre) << "particle " << i << " centre axis " << a << " lambda " << lambda;
                maxCentreErr = std::max(maxCentreErr, e);
            }
            const double gpuG[6] = {rec[4], rec[5], rec[6], rec[7], rec[8], rec[9]};
            const double cpuG[6] = {k.g[0][0], k.g[0][1], k.g[0][2], k.g[1][1], k.g[1][2], k.g[2][2]};
            for (int e = 0; e < 6; ++e) {
                const double err = std::fabs(gpuG[e] * info.particleRadius - cpuG[e]);
                ASSERT_LE(err, k.tolG) << "particle " << i << " G element " << e << " count " << k.count << " axes "
                                       << k.axis[0] << " " << k.axis[1] << " " << k.axis[2];
                maxGErr = std::max(maxGErr, err);
            }
            // det G' from the axes: a relative error of the order of G's.
            EXPECT_NEAR(rec[3], k.wdet, k.wdet * 3.0 * k.tolG * k.axis[0] + 1e-5) << "particle " << i;
            const double extent = k.axis[0] * info.particleRadius;
            EXPECT_NEAR(rec[10], extent * extent, extent * extent * 1e-3 + 1e-4 * k.tolG) << "particle " << i;
        }
        // Both kinds occur, and kernels really stretch.
        EXPECT_GT(isotropic, 50u);
        EXPECT_GT(stretched, 50u);
        EXPECT_GT(maxRatio, 2.0);
        EXPECT_LT(skipped, 20u);
        // The per-particle bound allows every neighbour term to truncate
        // differently, which it practically never does (measured max 1.2e-6):
        // a change of the axis rule (e.g. isotropicRatio 0.5 read as 0.55)
        // moves G' by ~1e-2 and fails here even where it stays in that bound.
        EXPECT_LT(maxGErr, 1e-4);
        std::printf("lambda %.1f: %zu isotropic, %zu stretched (%zu skipped at the count threshold), largest axis "
                    "ratio %.2f, max |G' gpu - cpu| %.3g, max centre error %.3g\n",
                    lambda, isotropic, stretched, skipped, maxRatio, maxGErr, maxCentreErr);

        // The field: the brute-force sum of the GPU's kernels, each term
        // truncated to 16.16 as the gather does. Tolerance per touching
        // kernel: one fixed-point unit plus the float rounding of q.
        auto field = iso->readField();
        ASSERT_TRUE(field.ok());
        size_t nonzero = 0;
        for (uint32_t z = 0; z < g.n[2]; ++z)
            for (uint32_t y = 0; y < g.n[1]; ++y)
                for (uint32_t x = 0; x < g.n[0]; ++x) {
                    const double p[3] = {g.min[0] + x * g.spacing(0), g.min[1] + y * g.spacing(1),
                                         g.min[2] + z * g.spacing(2)};
                    double sum = 0, tol = 1.0 / 65536.0;
                    for (uint32_t j = 0; j < gpu->binned; ++j) {
                        const float* rec = &gpu->kernels[j * kRecord];
                        const double d[3] = {p[0] - rec[0], p[1] - rec[1], p[2] - rec[2]};
                        const double G[3][3] = {
                            {rec[4], rec[5], rec[6]}, {rec[5], rec[7], rec[8]}, {rec[6], rec[8], rec[9]}};
                        double q = 0;
                        for (int r = 0; r < 3; ++r) {
                            const double u = G[r][0] * d[0] + G[r][1] * d[1] + G[r][2] * d[2];
                            q += u * u;
                        }
                        if (q >= 1.0 + 1e-4) continue;
                        tol += 1.0 / 65536.0 + rec[3] * 1e-4;
                        if (q >= 1.0) continue;
                        sum += std::floor(rec[3] * std::pow(1.0 - q, 3) * 65536.0) / 65536.0;
                    }
                    const size_t s = x + g.n[0] * (y + size_t(g.n[1]) * z);
                    ASSERT_NEAR(field.value()[s], sum, tol) << "sample " << x << " " << y << " " << z;
                    nonzero += sum > 0;
                }
        EXPECT_GT(nonzero, size_t(g.n[0]) * g.n[1] * g.n[2] / 4);

        // The triangles: the CPU marching cubes of the GPU's field.
        const ref::McResult mc = ref::marchingCubes(g, field.value().data(), iso->isoValue(), ref::Normals::Central);
        auto verts = iso->readVertices();
        ASSERT_TRUE(verts.ok()) << verts.message();
        ASSERT_GT(mc.vertices.size(), 300u);
        const float tol = ref::positionTolerance(g);
        EXPECT_EQ(ref::compareTriangleSets(mc.vertices, toRef(verts.value()), tol, 1e-3f), "") << lambda;
    }
}

TEST_F(IsoAniso, BitIdenticalOverFramesAndInstances) {
    const IsoSurfaceCreateInfo info = smallInfo(0.5f);
    const ref::Grid g = referenceGridOf(info);
    expectBitIdenticalOverFramesAndInstances(info, someParticles(g, 1500, 11));
}

TEST_F(IsoAniso, BadParametersFailCreate) {
    struct Case {
        const char* field;
        void (*set)(AnisotropicKernels&, float);
        std::vector<float> bad;
    };
    const std::vector<Case> cases = {
        {"neighbourhood", [](AnisotropicKernels& a, float v) { a.neighbourhood = v; }, {0.f, -1.f, 4.5f, NAN}},
        {"maxRatio", [](AnisotropicKernels& a, float v) { a.maxRatio = v; }, {0.5f, 65.f, INFINITY, NAN}},
        {"maxStretch", [](AnisotropicKernels& a, float v) { a.maxStretch = v; }, {0.9f, 5.f, NAN}},
        {"isolatedScale", [](AnisotropicKernels& a, float v) { a.isolatedScale = v; }, {0.f, -0.5f, 1.6f, NAN}},
        {"isotropicRatio", [](AnisotropicKernels& a, float v) { a.isotropicRatio = v; }, {0.f, -0.5f, 1.01f, NAN}},
    };
    for (const Case& c : cases)
        for (const float v : c.bad) {
            IsoSurfaceCreateInfo info = smallInfo(0.f);
            c.set(info.anisotropic, v);
            auto r = IsoSurface::create(device(), info);
            ASSERT_FALSE(r.ok()) << c.field << " " << v;
            EXPECT_EQ(r.code(), ErrorCode::InvalidArgument);
            EXPECT_NE(r.message().find(std::string("anisotropic.") + c.field), std::string::npos) << r.message();
        }
    IsoSurfaceCreateInfo info = smallInfo(0.f);
    info.anisotropic.minNeighbours = 0;
    auto r0 = IsoSurface::create(device(), info);
    ASSERT_FALSE(r0.ok());
    EXPECT_NE(r0.message().find("anisotropic.minNeighbours"), std::string::npos) << r0.message();
    info = smallInfo(0.f);
    auto r = iso::testing::create(device(), info, {.splat = SplatMethod::Scatter});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("anisotropic kernels need SplatMethod::Gather"), std::string::npos) << r.message();
    // Disabled: the parameters are not looked at.
    info = smallInfo(0.f);
    info.anisotropic.enabled = false;
    info.anisotropic.maxRatio = NAN;
    EXPECT_TRUE(IsoSurface::create(device(), info).ok());
}

// ParticleInput::GpuBuffer (a simulation's own 32-byte records): the
// anisotropic kernels read the binned particles whatever their source, so the
// field is bit-identical to the host input of the same particles, and
// particles the GPU skips (non-finite, weight <= 0) count as no neighbour.
TEST_F(IsoAniso, GpuBufferInputMatchesHostInput) {
    struct SimParticle {
        float velocity[3];
        float mass;
        float position[3];
        float pad;
    };
    const IsoSurfaceCreateInfo hostInfo = smallInfo(0.5f);
    const ref::Grid g = referenceGridOf(hostInfo);
    const std::vector<Particle> ps = someParticles(g, 1500, 23);
    std::vector<SimParticle> sim(ps.size() + 3);
    for (size_t i = 0; i < ps.size(); ++i) {
        sim[i] = {{1.f, 2.f, 3.f}, ps[i].weight, {ps[i].position[0], ps[i].position[1], ps[i].position[2]}, 0.f};
    }
    // Skipped on the GPU: no kernel, no neighbour.
    sim[ps.size()] = {{}, NAN, {0.1f, 0.1f, 0.1f}, 0.f};
    sim[ps.size() + 1] = {{}, 0.f, {0.2f, 0.1f, 0.1f}, 0.f};
    sim[ps.size() + 2] = {{}, 1.f, {0.3f, INFINITY, 0.1f}, 0.f};
    auto buffer = device().allocator().createBuffer(
        {.size = sim.size() * sizeof(SimParticle),
         .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
         .memory = MemoryUsage::DeviceLocal,
         .name = "sim.particles"});
    ASSERT_TRUE(buffer.ok()) << buffer.message();
    ASSERT_TRUE(uploadBuffer(device(), buffer.value(), sim.data(), sim.size() * sizeof(SimParticle)).ok());

    auto host = make(hostInfo);
    ASSERT_TRUE(host);
    ASSERT_TRUE(host->setParticles(ps).ok());
    frame(*host);
    IsoSurfaceCreateInfo gpuInfo = hostInfo;
    gpuInfo.maxParticles = uint32_t(sim.size());
    useParticleRecords<SimParticle>(gpuInfo, buffer.value());
    auto gpu = make(gpuInfo);
    ASSERT_TRUE(gpu);
    ASSERT_TRUE(gpu->setParticleCount(uint32_t(sim.size())).ok());
    frame(*gpu);
    auto a = host->readField();
    auto b = gpu->readField();
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_EQ(a->size(), b->size());
    EXPECT_EQ(std::memcmp(a->data(), b->data(), a->size() * 4), 0);
    size_t nonzero = 0;
    for (float v : a.value()) nonzero += v > 0.f;
    EXPECT_GT(nonzero, a->size() / 4);
}
