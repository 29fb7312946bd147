// ParticleKernel::SphCubicSpline (splashsurf's field: sum_j V_j W(|x - x_j|),
// V_j = w_j / sum_k w_k W(|x_j - x_k|), the cubic spline W) on the validated
// shared device:
// - the density pass's volumes against a CPU reference (brute force over all
//   pairs), particle by particle, and the field against the CPU's SPH sum;
// - with position smoothing (the volumes of the re-binned smoothed particles)
//   and with anisotropic kernels (the field against the cubic spline summed
//   over the GPU's kernel records);
// - a lone particle gives a closed droplet (and vanishes with the neighbour
//   count kernel at the same threshold), a lattice block's bulk is ~1;
// - a sparse domain gives the dense path's triangles, bit for bit;
// - bit-identical fields and vertices over frames and instances;
// - bad settings rejected at create.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <vector>

#include "particle_fixture.h"
#include "pyramarch/isosurface/isosurface.h"
#include "pyramarch/isosurface/particle_grid.h"
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

constexpr float kOne = 65536.f;    // kIsoSplatFixedOne
constexpr size_t kRecordVec4s = 3; // kIsoAnisoRecordVec4s

// particles_kernel.glsl's cubicSplineUnit / sphTerm / squaredYZ, the same
// float operations (this file is built with -ffp-contract=off), each
// mulThenAdd() a rounded multiply, then the add, as every device runs it
// (the tests' one unit per term is left for a sqrt or division rounded
// otherwise).
float cubicSplineUnit(float q) {
    if (!(q < 1.f)) return 0.f;
    const float s = std::sqrt(q);
    if (s <= 0.5f) return 6.f * q * (s - 1.f) + 1.f;
    const float u = 1.f - s;
    return 2.f * u * u * u;
}
uint32_t fixedTerm(float t) { return uint32_t(std::min(t, 4.0e9f)); }
uint32_t sphTerm(float dx, float yz, float v, float invR2) {
    const float d2 = dx * dx + yz;
    const float q = d2 * invR2;
    if (!(q < 1.f)) return 0u;
    return fixedTerm(v * cubicSplineUnit(q) * kOne);
}
float squaredYZ(float dy, float dz) { return dy * dy + dz * dz; }
float sampleCoord(uint32_t i, float lo, float spacing) { return float(i) * spacing + lo; }

// Volumes V_j of particles (x, y, z, w): every pair within the support;
// `tolerance` the relative bound of one 16.16 unit per term of the density
// (a device whose fma() is fused rounds otherwise) and of the division.
struct CpuVolumes {
    std::vector<float> v, tolerance;
};
CpuVolumes volumesCpu(const std::vector<std::array<float, 4>>& ps, float invR2) {
    CpuVolumes out;
    for (const auto& p : ps) {
        uint32_t rho = 0, terms = 0;
        for (const auto& o : ps) {
            const uint32_t t = sphTerm(o[0] - p[0], squaredYZ(o[1] - p[1], o[2] - p[2]), o[3], invR2);
            rho += t;
            terms += t != 0;
        }
        out.v.push_back(rho != 0 ? p[3] * kOne / float(rho) : 0.f);
        out.tolerance.push_back(float(terms + 1) / float(std::max(rho, 1u)) + 2.5e-7f);
    }
    return out;
}

// The field of particles (x, y, z, V) at every sample, as the gather sums it;
// `touching` counts the particles within the support of each sample.
std::vector<float> fieldCpu(const IsoSurfaceCreateInfo& info, const std::vector<std::array<float, 4>>& ps, float invR2,
                            std::vector<uint32_t>* touching) {
    const ref::Grid g = referenceGridOf(info);
    std::vector<float> out(g.samples());
    if (touching) touching->assign(g.samples(), 0);
    for (uint32_t z = 0; z < g.n[2]; ++z)
        for (uint32_t y = 0; y < g.n[1]; ++y)
            for (uint32_t x = 0; x < g.n[0]; ++x) {
                const float xs = sampleCoord(x, g.min[0], g.spacing(0));
                const float ys = sampleCoord(y, g.min[1], g.spacing(1));
                const float zs = sampleCoord(z, g.min[2], g.spacing(2));
                uint32_t sum = 0, n = 0;
                for (const auto& p : ps) {
                    const uint32_t t = sphTerm(xs - p[0], squaredYZ(ys - p[1], zs - p[2]), p[3], invR2);
                    sum += t;
                    n += t != 0;
                }
                out[g.index(x, y, z)] = float(sum) / kOne;
                if (touching) (*touching)[g.index(x, y, z)] = n;
            }
    return out;
}

class IsoSph : public IsoParticleTest {};

IsoSurfaceCreateInfo smallInfo() {
    IsoSurfaceCreateInfo info;
    info.samples = {21, 18, 16};
    info.boundsMin = {-1.f, -1.f, -0.5f};
    info.boundsMax = {1.f, 0.7f, 1.f};
    info.source = FieldSource::Particles;
    info.particleKernel = ParticleKernel::SphCubicSpline;
    info.maxParticles = 2000;
    info.particleRadius = 0.23f;
    info.vertexCapacity = 300000;
    info.isoValue = 0.6f;
    return info;
}

// Random particles over the bounds plus 0.3 on every side (all binned: the
// bins reach two supports past the grid), denser in one corner, weights
// 0.5..1.5.
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

std::array<uint32_t, 3> bitsOf(const float* p) {
    std::array<uint32_t, 3> b;
    std::memcpy(b.data(), p, 12);
    return b;
}

// The GPU's volume records, each checked against the CPU's volume of the
// same particle (found by its position bits among `ps`), as (x, y, z, V).
std::vector<std::array<float, 4>> checkVolumes(IsoSurface& iso, const std::vector<std::array<float, 4>>& ps,
                                               float invR2, size_t expectBinned) {
    std::map<std::array<uint32_t, 3>, size_t> byBits;
    for (size_t i = 0; i < ps.size(); ++i) byBits[bitsOf(ps[i].data())] = i;
    EXPECT_EQ(byBits.size(), ps.size());
    const CpuVolumes cpu = volumesCpu(ps, invR2);
    auto gpu = iso::testing::readParticleVolumes(iso);
    EXPECT_TRUE(gpu.ok()) << gpu.message();
    if (!gpu.ok()) return {};
    EXPECT_EQ(gpu->binned, expectBinned);
    std::vector<std::array<float, 4>> out;
    std::vector<bool> seen(ps.size(), false);
    float maxRel = 0.f;
    for (uint32_t j = 0; j < gpu->binned; ++j) {
        const float* rec = &gpu->volumes[size_t(j) * 4];
        const auto it = byBits.find(bitsOf(rec));
        EXPECT_NE(it, byBits.end()) << "record " << j;
        if (it == byBits.end()) return {};
        const size_t i = it->second;
        EXPECT_FALSE(seen[i]);
        seen[i] = true;
        const float rel = std::fabs(rec[3] - cpu.v[i]) / cpu.v[i];
        EXPECT_LE(rel, cpu.tolerance[i]) << "particle " << i << " gpu " << rec[3] << " cpu " << cpu.v[i];
        maxRel = std::max(maxRel, rel);
        out.push_back({rec[0], rec[1], rec[2], rec[3]});
    }
    std::printf("%u volumes, max relative |gpu - cpu| %.3g\n", gpu->binned, maxRel);
    return out;
}

void expectFieldNear(IsoSurface& iso, const std::vector<float>& expect, const std::vector<uint32_t>& touching) {
    auto field = iso.readField();
    ASSERT_TRUE(field.ok()) << field.message();
    ASSERT_EQ(field->size(), expect.size());
    size_t exact = 0, nonzero = 0;
    float maxErr = 0.f;
    for (size_t s = 0; s < expect.size(); ++s) {
        // One 16.16 unit per term for a sqrt or division rounded otherwise.
        ASSERT_NEAR(field.value()[s], expect[s], float(touching[s] + 1) / kOne) << "sample " << s;
        exact += field.value()[s] == expect[s];
        nonzero += expect[s] != 0.f;
        maxErr = std::max(maxErr, std::fabs(field.value()[s] - expect[s]));
    }
    EXPECT_GT(nonzero, expect.size() / 4) << "a field worth testing";
    std::printf("field: %zu of %zu samples equal to the bit, max |gpu - cpu| %.3g\n", exact, expect.size(), maxErr);
}

} // namespace

TEST_F(IsoSph, DensitiesAndFieldMatchTheCpu) {
    const IsoSurfaceCreateInfo info = smallInfo();
    auto iso = make(info);
    ASSERT_TRUE(iso);
    EXPECT_EQ(iso::testing::splatMethod(*iso), SplatMethod::Gather);
    const ref::Grid g = referenceGridOf(info);
    std::vector<Particle> ps = randomParticles(g, 1500, 7);
    // Far outside the binned box: never binned, adds nothing.
    ps.push_back({{50.f, -80.f, 1e30f}, 1.f});
    ASSERT_TRUE(iso->setParticles(ps).ok());
    frame(*iso);
    std::vector<std::array<float, 4>> xyzw;
    for (size_t i = 0; i + 1 < ps.size(); ++i)
        xyzw.push_back({ps[i].position[0], ps[i].position[1], ps[i].position[2], ps[i].weight});
    const float invR2 = 1.f / (info.particleRadius * info.particleRadius);
    const auto vols = checkVolumes(*iso, xyzw, invR2, xyzw.size());
    ASSERT_EQ(vols.size(), xyzw.size());
    std::vector<uint32_t> touching;
    const auto expect = fieldCpu(info, vols, invR2, &touching);
    expectFieldNear(*iso, expect, touching);
    auto verts = iso->readVertices();
    ASSERT_TRUE(verts.ok());
    EXPECT_FALSE(verts->empty());
}

TEST_F(IsoSph, AnisotropicAndSmoothedRun) {
    const float invR2 = 1.f / (0.23f * 0.23f);
    {
        // Smoothing: the volumes of the re-binned smoothed particles.
        IsoSurfaceCreateInfo info = smallInfo();
        info.particleSmoothing = 0.5f;
        auto iso = make(info);
        ASSERT_TRUE(iso);
        const ref::Grid g = referenceGridOf(info);
        const std::vector<Particle> ps = randomParticles(g, 1200, 3);
        ASSERT_TRUE(iso->setParticles(ps).ok());
        frame(*iso);
        auto sm = iso::testing::readSmoothedParticles(*iso);
        ASSERT_TRUE(sm.ok()) << sm.message();
        std::vector<std::array<float, 4>> moved;
        for (size_t j = 0; j < ps.size(); ++j) {
            const float* s = &sm->smoothed[j * 4];
            moved.push_back({s[0], s[1], s[2], s[3]});
        }
        const auto vols = checkVolumes(*iso, moved, invR2, moved.size());
        ASSERT_EQ(vols.size(), moved.size());
        std::vector<uint32_t> touching;
        const auto expect = fieldCpu(info, vols, invR2, &touching);
        expectFieldNear(*iso, expect, touching);
    }
    {
        // Anisotropic kernels: weights V det G', the cubic spline of |G (x - c)|.
        IsoSurfaceCreateInfo info = smallInfo();
        info.anisotropic.enabled = true;
        info.particleSmoothing = 0.3f;
        auto iso = make(info);
        ASSERT_TRUE(iso);
        const ref::Grid g = referenceGridOf(info);
        const std::vector<Particle> ps = randomParticles(g, 1200, 5);
        ASSERT_TRUE(iso->setParticles(ps).ok());
        frame(*iso);
        std::vector<std::array<float, 4>> xyzw;
        for (const Particle& p : ps) xyzw.push_back({p.position[0], p.position[1], p.position[2], p.weight});
        const auto vols = checkVolumes(*iso, xyzw, invR2, xyzw.size());
        ASSERT_EQ(vols.size(), xyzw.size());
        auto rec = iso::testing::readAnisotropicKernels(*iso);
        ASSERT_TRUE(rec.ok()) << rec.message();
        ASSERT_EQ(rec->binned, ps.size());
        std::vector<float> expect(g.samples());
        std::vector<uint32_t> touching(g.samples(), 0);
        float maxDet = 0.f;
        for (uint32_t z = 0; z < g.n[2]; ++z)
            for (uint32_t y = 0; y < g.n[1]; ++y)
                for (uint32_t x = 0; x < g.n[0]; ++x) {
                    const float xs = sampleCoord(x, g.min[0], g.spacing(0));
                    const float ys = sampleCoord(y, g.min[1], g.spacing(1));
                    const float zs = sampleCoord(z, g.min[2], g.spacing(2));
                    uint32_t sum = 0, n = 0;
                    for (uint32_t j = 0; j < rec->binned; ++j) {
                        const float* k = &rec->kernels[size_t(j) * 4 * kRecordVec4s];
                        const float dx = xs - k[0], dy = ys - k[1], dz = zs - k[2];
                        if (!(squaredYZ(dy, dz) < k[10])) continue;
                        const float u[3] = {k[5] * dy + k[6] * dz, k[7] * dy + k[8] * dz, k[8] * dy + k[9] * dz};
                        const float gd[3] = {k[4] * dx + u[0], k[5] * dx + u[1], k[6] * dx + u[2]};
                        const float q = gd[0] * gd[0] + (gd[1] * gd[1] + gd[2] * gd[2]);
                        if (!(q < 1.f)) continue;
                        sum += fixedTerm(k[3] * cubicSplineUnit(q) * kOne);
                        ++n;
                    }
                    expect[g.index(x, y, z)] = float(sum) / kOne;
                    touching[g.index(x, y, z)] = n;
                }
        // The kernels' weights are the volumes times det G' (axes at most
        // maxStretch 1 radius: det G' >= 1).
        for (uint32_t j = 0; j < rec->binned; ++j) {
            const float wdet = rec->kernels[size_t(j) * 4 * kRecordVec4s + 3];
            EXPECT_GE(wdet, vols[j][3] * 0.999f) << "kernel " << j;
            maxDet = std::max(maxDet, wdet / vols[j][3]);
        }
        std::printf("largest det G' %.3f\n", maxDet);
        expectFieldNear(*iso, expect, touching);
    }
}

// Closed: every edge of the welded mesh (vertices joined by position bits)
// belongs to exactly two triangles.
void expectClosed(const std::vector<IsoVertexData>& verts) {
    ASSERT_FALSE(verts.empty());
    ASSERT_EQ(verts.size() % 3, 0u);
    std::map<std::array<uint32_t, 3>, uint32_t> ids;
    auto id = [&](const IsoVertexData& v) {
        const auto b = bitsOf(v.position);
        return ids.emplace(b, uint32_t(ids.size())).first->second;
    };
    std::map<std::pair<uint32_t, uint32_t>, int> edges;
    for (size_t t = 0; t < verts.size(); t += 3) {
        const uint32_t a = id(verts[t]), b = id(verts[t + 1]), c = id(verts[t + 2]);
        for (auto e : {std::pair{a, b}, std::pair{b, c}, std::pair{c, a}})
            ++edges[{std::min(e.first, e.second), std::max(e.first, e.second)}];
    }
    for (const auto& [e, n] : edges) ASSERT_EQ(n, 2) << "edge " << e.first << "-" << e.second;
}

TEST_F(IsoSph, LoneParticlesAreClosedDroplets) {
    // splashsurf's setting: particle radius r, smoothing length 2 (support
    // 4 r), cubes of 0.75 r, threshold 0.6; three particles far apart.
    const float r = 0.1f;
    const std::vector<std::array<float, 3>> xyz = {{0.f, 0.f, 0.f}, {1.f, 0.3f, 0.1f}, {0.4f, 1.2f, 0.9f}};
    IsoSurfaceCreateInfo info = cliParticleSurfaceInfo(xyz, 2.f * r);
    const float support = kernelSupportRadius(r, kDefaultSmoothingLength);
    ParticleBounds b;
    for (const auto& p : xyz) b.add(p[0], p[1], p[2]);
    auto grid = particleGrid(b, 0.75f * r, support);
    ASSERT_TRUE(grid.ok()) << grid.message();
    info.samples = grid->samples;
    info.boundsMin = grid->boundsMin;
    info.boundsMax = grid->boundsMax;
    info.vertexCapacity = 200000;
    std::vector<Particle> ps;
    for (const auto& p : xyz) ps.push_back({p, 1.f});
    for (const ParticleKernel kernel : {ParticleKernel::NeighbourCount, ParticleKernel::SphCubicSpline}) {
        const bool sph = kernel == ParticleKernel::SphCubicSpline;
        info.particleKernel = kernel;
        info.isoValue = sph ? kDefaultSurfaceThreshold
                            : particleIsoValue(kDefaultSurfaceThreshold, kDefaultSmoothingLength).value();
        auto iso = make(info);
        ASSERT_TRUE(iso);
        ASSERT_TRUE(iso->setParticles(ps).ok());
        frame(*iso);
        auto field = iso->readField();
        ASSERT_TRUE(field.ok());
        const float peak = *std::max_element(field->begin(), field->end());
        auto verts = iso->readVertices();
        ASSERT_TRUE(verts.ok());
        std::printf("%s: peak %.4f (iso %.4f), %zu triangles\n", sph ? "SPH cubic spline" : "neighbour count", peak,
                    info.isoValue, verts->size() / 3);
        if (!sph) {
            // The neighbour count peaks at 1 of a rest density of 5.16: gone.
            EXPECT_LT(peak, info.isoValue);
            EXPECT_TRUE(verts->empty());
            continue;
        }
        // V = 1 for a lone particle: its field is W(d) / W(0), 1 at the centre.
        EXPECT_GT(peak, 0.9f);
        EXPECT_LE(peak, 1.f);
        expectClosed(verts.value());
        // Three droplets, each within the support of its particle.
        for (const IsoVertexData& v : verts.value()) {
            float best = 1e9f;
            for (const auto& p : xyz) {
                const float dx = v.position[0] - p[0], dy = v.position[1] - p[1], dz = v.position[2] - p[2];
                best = std::min(best, std::sqrt(dx * dx + dy * dy + dz * dz));
            }
            // W = 0.6 W(0) at s = 0.29 of the support: a droplet of ~1.17 r.
            EXPECT_GT(best, 0.9f * r);
            EXPECT_LT(best, 1.4f * r);
        }
    }
}

TEST_F(IsoSph, LatticeBulkIsOne) {
    // A block of particles of spacing s = 2r (a fluid at rest): the field
    // inside is the Shepard sum, ~1 whatever the spacing or weight.
    const float s = 0.1f;
    std::vector<std::array<float, 3>> xyz;
    for (int z = 0; z < 10; ++z)
        for (int y = 0; y < 10; ++y)
            for (int x = 0; x < 10; ++x) xyz.push_back({x * s, y * s, z * s});
    IsoSurfaceCreateInfo info = cliParticleSurfaceInfo(xyz, s);
    info.particleKernel = ParticleKernel::SphCubicSpline;
    info.isoValue = kDefaultSurfaceThreshold;
    info.vertexCapacity = 400000;
    std::vector<Particle> ps;
    for (const auto& p : xyz) ps.push_back({p, 2.5f});
    auto iso = make(info);
    ASSERT_TRUE(iso);
    ASSERT_TRUE(iso->setParticles(ps).ok());
    frame(*iso);
    auto field = iso->readField();
    ASSERT_TRUE(field.ok());
    const ref::Grid g = referenceGridOf(info);
    float lo = 1e9f, hi = 0.f;
    for (uint32_t z = 0; z < g.n[2]; ++z)
        for (uint32_t y = 0; y < g.n[1]; ++y)
            for (uint32_t x = 0; x < g.n[0]; ++x) {
                const float p[3] = {g.coord(0, x), g.coord(1, y), g.coord(2, z)};
                bool bulk = true;
                for (int k = 0; k < 3; ++k) bulk = bulk && p[k] > 3.f * s && p[k] < 6.f * s;
                if (!bulk) continue;
                lo = std::min(lo, field.value()[g.index(x, y, z)]);
                hi = std::max(hi, field.value()[g.index(x, y, z)]);
            }
    std::printf("lattice bulk: field %.4f .. %.4f\n", lo, hi);
    EXPECT_GT(lo, 0.97f);
    EXPECT_LT(hi, 1.03f);
    auto verts = iso->readVertices();
    ASSERT_TRUE(verts.ok());
    expectClosed(verts.value());
}

TEST_F(IsoSph, BitIdenticalOverFramesAndInstances) {
    IsoSurfaceCreateInfo info = smallInfo();
    const ref::Grid g = referenceGridOf(info);
    expectBitIdenticalOverFramesAndInstances(info, randomParticles(g, 1500, 11));
    info.anisotropic.enabled = true;
    expectBitIdenticalOverFramesAndInstances(info, randomParticles(g, 1500, 13));
}

// The particle gather's texel reads (the default where maxTexelBufferElements
// covers the bins and the records: every pass after the sort,
// particleTexelReads) against its storage reads (Knobs::storageReads): the
// same volumes and field, bit for bit, for each texel build: the SPH field
// (density, gather sph), the neighbour count of smoothed, re-binned
// particles (smooth, gather), anisotropic kernels with SPH (density over
// the sorted particles, aniso, gather_aniso sph) and without (gather_aniso).
TEST_F(IsoSph, TexelAndStorageReadsAgreeBitForBit) {
    for (int mode = 0; mode < 4; ++mode) {
        const bool sph = mode % 2 == 0;
        SCOPED_TRACE("mode " + std::to_string(mode));
        IsoSurfaceCreateInfo info = smallInfo();
        if (!sph) {
            info.particleKernel = ParticleKernel::NeighbourCount;
            info.isoValue = 1.5f;
        }
        if (mode == 1) info.particleSmoothing = 0.5f;
        info.anisotropic.enabled = mode >= 2;
        const std::vector<Particle> ps = randomParticles(referenceGridOf(info), 1500, 17);
        std::vector<float> fields[2];
        std::map<std::array<uint32_t, 3>, uint32_t> volumes[2];
        size_t triangles[2] = {};
        for (int storage = 0; storage < 2; ++storage) {
            auto iso = make(info, {.storageReads = storage == 1});
            ASSERT_TRUE(iso);
            ASSERT_EQ(iso::testing::particleTexelReads(*iso), storage == 0);
            ASSERT_TRUE(iso->setParticles(ps).ok());
            frame(*iso);
            auto field = iso->readField();
            auto verts = iso->readVertices();
            ASSERT_TRUE(field.ok() && verts.ok());
            fields[storage] = field.value();
            triangles[storage] = verts->size() / 3;
            if (!sph) continue;
            // Records by position (the sort's order within a bin follows its atomics).
            auto vols = iso::testing::readParticleVolumes(*iso);
            ASSERT_TRUE(vols.ok()) << vols.message();
            ASSERT_EQ(vols->binned, ps.size());
            for (uint32_t j = 0; j < vols->binned; ++j) {
                uint32_t v = 0;
                std::memcpy(&v, &vols->volumes[size_t(j) * 4 + 3], 4);
                volumes[storage][bitsOf(&vols->volumes[size_t(j) * 4])] = v;
            }
        }
        EXPECT_GT(triangles[0], 0u);
        EXPECT_EQ(triangles[0], triangles[1]);
        EXPECT_TRUE(volumes[0] == volumes[1]) << "volumes differ";
        ASSERT_EQ(fields[0].size(), fields[1].size());
        size_t nonzero = 0;
        for (float f : fields[0]) nonzero += f != 0.f;
        EXPECT_GT(nonzero, fields[0].size() / 4) << "a field worth testing";
        EXPECT_EQ(std::memcmp(fields[0].data(), fields[1].data(), fields[0].size() * 4), 0) << "fields differ";
    }
}

// Each triangle's three vertices (position and normal bits), sorted.
std::vector<std::array<uint32_t, 24>> triangleBits(const std::vector<IsoVertexData>& v) {
    std::vector<std::array<uint32_t, 24>> out;
    for (size_t t = 0; t + 2 < v.size(); t += 3) {
        std::array<uint32_t, 24> bits{};
        std::memcpy(bits.data(), &v[t], sizeof(IsoVertexData) * 3);
        out.push_back(bits);
    }
    std::sort(out.begin(), out.end());
    return out;
}

// Every sample of every listed brick's block (sparse_particles_blocks.comp:
// its 9^3 interior summed over its list, the border copied from its
// neighbours) against the dense gather's field, bit for bit: neighbouring
// bricks compute the samples of their shared faces each from its own list,
// so a sample that differs from the dense one also splits the mesh there.
// A differing sample is reported with the CPU's terms of the particles
// within its support (`volumes` by particle index). Returns the samples
// compared.
size_t expectBlocksEqualTheField(IsoSurface& sparse, const std::vector<float>& field, const ref::Grid& g,
                                 const std::vector<Particle>& ps, const std::vector<float>& volumes, float invR2) {
    auto slots = iso::testing::readBlockSlots(sparse);
    EXPECT_TRUE(slots.ok()) << slots.message();
    if (!slots.ok()) return 0;
    constexpr uint32_t kSide = 11, kCells = 8, kAxisBits = 10, kMask = (1u << kAxisBits) - 1u;
    size_t compared = 0, differ = 0;
    for (const auto& bs : slots.value()) {
        const uint32_t b[3] = {bs.brick & kMask, (bs.brick >> kAxisBits) & kMask, bs.brick >> (2 * kAxisBits)};
        auto block = iso::testing::readParticleBlock(sparse, bs.slot);
        EXPECT_TRUE(block.ok()) << block.message();
        if (!block.ok()) return compared;
        for (uint32_t z = 0; z < kSide; ++z)
            for (uint32_t y = 0; y < kSide; ++y)
                for (uint32_t x = 0; x < kSide; ++x) {
                    const int64_t s[3] = {int64_t(b[0] * kCells + x) - 1, int64_t(b[1] * kCells + y) - 1,
                                          int64_t(b[2] * kCells + z) - 1};
                    bool in = true;
                    for (int a = 0; a < 3; ++a) in = in && s[a] >= 0 && s[a] < int64_t(g.n[a]);
                    if (!in) continue;
                    ++compared;
                    const float want = field[g.index(uint32_t(s[0]), uint32_t(s[1]), uint32_t(s[2]))];
                    const float got = block.value()[x + kSide * (y + kSide * z)];
                    if (std::memcmp(&want, &got, 4) == 0 || differ++ >= 3) continue;
                    std::string terms;
                    const float xs = sampleCoord(uint32_t(s[0]), g.min[0], g.spacing(0));
                    const float ys = sampleCoord(uint32_t(s[1]), g.min[1], g.spacing(1));
                    const float zs = sampleCoord(uint32_t(s[2]), g.min[2], g.spacing(2));
                    for (size_t i = 0; i < ps.size(); ++i) {
                        const auto& p = ps[i].position;
                        const uint32_t t = sphTerm(xs - p[0], squaredYZ(ys - p[1], zs - p[2]), volumes[i], invR2);
                        if (t != 0) terms += " " + std::to_string(i) + ": " + std::to_string(t);
                    }
                    ADD_FAILURE() << "brick (" << b[0] << ", " << b[1] << ", " << b[2] << ") block sample (" << x
                                  << ", " << y << ", " << z << "), grid sample (" << s[0] << ", " << s[1] << ", "
                                  << s[2] << "): dense " << want * kOne << " units, sparse " << got * kOne
                                  << "; the CPU's terms (particle: units):" << terms;
                }
    }
    EXPECT_EQ(differ, 0u) << "block samples not equal to the dense field";
    return compared;
}

// A sparse domain sums the same volumes (bit for bit) and terms as the
// dense gather: every block sample equal to the dense field and the same
// triangles, bit for bit (particles inside the grid: a particle outside it
// would count only the neighbours that reach the grid there). Isotropic,
// over two frames of moving particles; the second frame once had a block
// sample one 16.16 unit off (a sample coordinate rounded otherwise).
TEST_F(IsoSph, SparseDomainGivesTheDenseTriangles) {
    IsoSurfaceCreateInfo info = smallInfo();
    const ref::Grid g = referenceGridOf(info);
    auto inside = [&](uint32_t count, uint32_t seed, float shift) {
        std::vector<Particle> ps = randomParticles(g, count, seed);
        // randomParticles' box (0.3 past the grid) squeezed into the grid,
        // 0.05 from its faces (then shifted along x).
        for (Particle& p : ps)
            for (int k = 0; k < 3; ++k) {
                const float u = (p.position[k] - (g.min[k] - 0.3f)) / (g.max[k] - g.min[k] + 0.6f);
                p.position[k] = g.min[k] + 0.05f + (k == 0 ? shift : 0.f) + u * (g.max[k] - g.min[k] - 0.1f - shift);
            }
        return ps;
    };
    const std::vector<std::vector<Particle>> frames = {inside(1500, 21, 0.f), inside(1500, 21, 0.07f)};
    IsoSurfaceCreateInfo sparseInfo = info;
    sparseInfo.sparse.enabled = true;
    sparseInfo.sparse.maxBricks = 64;
    sparseInfo.sparse.maxRowPairs = 20000;
    sparseInfo.sparse.maxItemRefs = 200000;
    auto dense = make(info);
    auto sparse = make(sparseInfo);
    ASSERT_TRUE(dense && sparse);
    for (size_t f = 0; f < frames.size(); ++f) {
        ASSERT_TRUE(dense->setParticles(frames[f]).ok());
        ASSERT_TRUE(sparse->setParticles(frames[f]).ok());
        frame(*dense);
        frame(*sparse);
        const auto stats = sparse->statsOfFrame(sparse->framesRecorded() - 1);
        ASSERT_TRUE(stats.has_value());
        EXPECT_FALSE(stats->overflow);
        // The same volume for every particle, by its index.
        {
            auto dv = iso::testing::readParticleVolumes(*dense);
            auto sv = iso::testing::readParticleVolumes(*sparse);
            ASSERT_TRUE(dv.ok() && sv.ok());
            std::map<std::array<uint32_t, 3>, float> byBits;
            for (uint32_t j = 0; j < dv->binned; ++j)
                byBits[bitsOf(&dv->volumes[size_t(j) * 4])] = dv->volumes[j * 4 + 3];
            ASSERT_EQ(byBits.size(), frames[f].size());
            size_t differ = 0;
            for (size_t i = 0; i < frames[f].size(); ++i) {
                const float want = byBits[bitsOf(frames[f][i].position.data())];
                if (std::memcmp(&want, &sv->volumes[i], 4) != 0 && differ++ < 5)
                    ADD_FAILURE() << "particle " << i << " dense volume " << want << " sparse " << sv->volumes[i];
            }
            EXPECT_EQ(differ, 0u) << "frame " << f;
            std::vector<std::array<float, 4>> vols;
            for (uint32_t j = 0; j < dv->binned; ++j) {
                const float* r = &dv->volumes[size_t(j) * 4];
                vols.push_back({r[0], r[1], r[2], r[3]});
            }
            std::vector<uint32_t> touching;
            const float invR2 = 1.f / (info.particleRadius * info.particleRadius);
            const auto expect = fieldCpu(info, vols, invR2, &touching);
            expectFieldNear(*dense, expect, touching);
            auto field = dense->readField();
            ASSERT_TRUE(field.ok()) << field.message();
            const size_t compared = expectBlocksEqualTheField(*sparse, field.value(), g, frames[f], sv->volumes, invR2);
            EXPECT_GT(compared, 10000u);
        }
        auto a = dense->readVertices();
        auto b = sparse->readVertices();
        ASSERT_TRUE(a.ok() && b.ok());
        ASSERT_GT(a->size(), 300u);
        EXPECT_TRUE(triangleBits(a.value()) == triangleBits(b.value()))
            << "frame " << f << ": not the dense path's triangles, bit for bit";
        std::printf("frame %zu: %zu vertices\n", f, a->size());
    }
    // A support under one sample spacing cannot list every neighbour.
    sparseInfo.particleRadius = 0.05f;
    EXPECT_FALSE(iso::testing::create(device(), sparseInfo, {}).ok());
}

TEST_F(IsoSph, BadSettingsFailCreate) {
    auto fails = [&](IsoSurfaceCreateInfo info, const char* what, iso::testing::Knobs knobs = {}) {
        auto r = iso::testing::create(device(), info, knobs);
        ASSERT_FALSE(r.ok()) << what;
        EXPECT_NE(r.message().find(what), std::string::npos) << r.message();
    };
    IsoSurfaceCreateInfo info = smallInfo();
    fails(info, "SphCubicSpline needs SplatMethod::Gather", {.splat = SplatMethod::Scatter});
    info = smallInfo();
    info.particleKernel = ParticleKernel(7);
    fails(info, "is not a ParticleKernel");
}
