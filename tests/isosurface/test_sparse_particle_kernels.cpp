// Particle position smoothing and anisotropic kernels on a sparse domain
// (bricks: sparse_particles_neighbours.comp, the blocks' ISO_PARTICLE_RECORDS
// builds) on the validated shared device, with both kernels
// (NeighbourCount, SphCubicSpline):
// - every particle's smoothed position, kernel record and volume equal the
//   dense gather's, bit for bit (found by the particle's position bits);
// - every sample of every listed brick's block equals the dense field, bit
//   for bit, every nonzero dense sample lies in a listed brick, and the
//   triangles are the dense path's;
// - the blocks against the CPU's kernel sum over the GPU's records, and the
//   smoothed positions against the CPU's smoothing;
// - a stretched cluster (a thin sheet and a filament) crossing brick
//   borders: the lists reach the kernels' widened support;
// - particles in clusters far apart on a virtual grid thousands of cells
//   wide go bricked with no sparse.enabled, with anisotropic kernels,
//   position smoothing and mesh smoothing, and give closed surfaces.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "particle_fixture.h"
#include "pyramarch/isosurface/isosurface.h"
#include "pyramarch/isosurface/testing.h"
#include "reference.h"
#include "reference_grid.h"

using namespace pyramarch;
using namespace pyramarch::iso;

namespace {

constexpr float kOne = 65536.f;      // kIsoSplatFixedOne
constexpr float kSmoothOne = 4096.f; // kIsoSmoothFixedOne
constexpr uint32_t kRecord = 12;     // floats per kernel record
constexpr uint32_t kSide = 11, kCells = 8, kAxisBits = 10, kMask = (1u << kAxisBits) - 1u;

// particles_kernel.glsl's terms, the same float operations (this file is
// built with -ffp-contract=off: every product rounded before its add).
float cubicSplineUnit(float q) {
    if (!(q < 1.f)) return 0.f;
    const float s = std::sqrt(q);
    if (s <= 0.5f) return 6.f * q * (s - 1.f) + 1.f;
    const float u = 1.f - s;
    return 2.f * u * u * u;
}
uint32_t fixedTerm(float t) { return uint32_t(std::min(t, 4.0e9f)); }
float squaredYZ(float dy, float dz) { return dy * dy + dz * dz; }
float sampleCoord(uint32_t i, float lo, float spacing) { return float(i) * spacing + lo; }
uint32_t isoTerm(float dx, float yz, float w, float invR2, bool sph) {
    const float d2 = dx * dx + yz;
    if (sph) {
        const float q = d2 * invR2;
        if (!(q < 1.f)) return 0u;
        return fixedTerm(w * cubicSplineUnit(q) * kOne);
    }
    const float k = -d2 * invR2 + 1.f;
    if (k <= 0.f) return 0u;
    return fixedTerm(w * k * k * k * kOne);
}
// One kernel record's term (anisoTerm).
uint32_t anisoTerm(const float* k, float xs, float ys, float zs, bool sph) {
    const float dx = xs - k[0], dy = ys - k[1], dz = zs - k[2];
    if (!(squaredYZ(dy, dz) < k[10])) return 0u;
    const float u[3] = {k[5] * dy + k[6] * dz, k[7] * dy + k[8] * dz, k[8] * dy + k[9] * dz};
    const float gd[3] = {k[4] * dx + u[0], k[5] * dx + u[1], k[6] * dx + u[2]};
    const float q = gd[0] * gd[0] + (gd[1] * gd[1] + gd[2] * gd[2]);
    if (!(q < 1.f)) return 0u;
    if (sph) return fixedTerm(k[3] * cubicSplineUnit(q) * kOne);
    const float c = 1.f - q;
    return fixedTerm(k[3] * c * c * c * kOne);
}

std::array<uint32_t, 3> bitsOf(const float* p) {
    std::array<uint32_t, 3> b;
    std::memcpy(b.data(), p, 12);
    return b;
}
bool sameBits(const float* a, const float* b, size_t n) { return std::memcmp(a, b, n * 4) == 0; }

// 41 x 33 x 34 samples of 0.05 (5 x 4 x 5 bricks), radius 2.6 samples.
IsoSurfaceCreateInfo gridInfo(bool sph) {
    IsoSurfaceCreateInfo info;
    info.samples = {41, 33, 34};
    info.boundsMin = {-1.f, -0.8f, -0.8f};
    info.boundsMax = {1.f, 0.8f, 0.85f};
    info.source = FieldSource::Particles;
    info.particleKernel = sph ? ParticleKernel::SphCubicSpline : ParticleKernel::NeighbourCount;
    info.maxParticles = 3000;
    info.particleRadius = 0.13f;
    info.vertexCapacity = 600000;
    info.isoValue = sph ? 0.6f : 0.4f;
    return info;
}

// A blob, a thin sheet (z ~ 0.02) and a filament along x, the last two
// across the brick borders at x = -0.6, -0.2, 0.2, 0.6 and y = -0.4, 0, 0.4
// (anisotropic kernels stretch along them); all 0.1 inside the grid;
// weights 0.5..1.5; `shift` moves everything along x.
std::vector<Particle> stretchedCluster(uint32_t seed, float shift, size_t count = 1400) {
    const auto rnd = ref::noise(count * 4, seed);
    std::vector<Particle> ps;
    for (size_t i = 0; i < count; ++i) {
        const float* u = &rnd[i * 4];
        Particle p{};
        if (i < count * 5 / 14) { // blob
            p.position = {-0.5f + 0.45f * u[0], 0.1f + 0.45f * u[1], 0.2f + 0.45f * u[2]};
        } else if (i < count * 11 / 14) { // sheet
            p.position = {-0.75f + 1.5f * u[0], -0.55f + 1.1f * u[1], 0.02f * u[2]};
        } else { // filament
            p.position = {-0.8f + 1.6f * u[0], 0.38f + 0.05f * u[1], -0.42f + 0.05f * u[2]};
        }
        p.position[0] += shift;
        p.weight = 0.5f + u[3];
        ps.push_back(p);
    }
    return ps;
}

IsoSurfaceCreateInfo sparseOf(IsoSurfaceCreateInfo info) {
    info.sparse.enabled = true;
    info.sparse.maxBricks = 100;
    info.sparse.maxRowPairs = 30000;
    info.sparse.maxItemRefs = 400000;
    return info;
}

std::vector<std::array<uint32_t, 24>> triangleBits(const std::vector<IsoVertexData>& v) {
    std::vector<std::array<uint32_t, 24>> out;
    for (size_t t = 0; t + 3 <= v.size(); t += 3) {
        std::array<uint32_t, 24> bits{};
        std::memcpy(bits.data(), &v[t], sizeof(IsoVertexData) * 3);
        out.push_back(bits);
    }
    std::sort(out.begin(), out.end());
    return out;
}

// Every listed brick's block against the dense field, bit for bit, and
// against `cpuAt(x, y, z, units, touching)` (the CPU's sum at grid sample
// x, y, z) within one 16.16 unit per touching term; every nonzero dense
// sample inside a listed brick. Returns the samples compared.
template <class Cpu>
size_t expectBlocks(IsoSurface& sparse, const std::vector<float>& field, const ref::Grid& g, Cpu cpuAt,
                    size_t minNonzero) {
    auto slots = iso::testing::readBlockSlots(sparse);
    EXPECT_TRUE(slots.ok()) << slots.message();
    if (!slots.ok()) return 0;
    std::set<std::array<uint32_t, 3>> listed;
    size_t compared = 0, differ = 0, offCpu = 0;
    for (const auto& bs : slots.value()) {
        const uint32_t b[3] = {bs.brick & kMask, (bs.brick >> kAxisBits) & kMask, bs.brick >> (2 * kAxisBits)};
        listed.insert({b[0], b[1], b[2]});
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
                    const uint32_t sx = uint32_t(s[0]), sy = uint32_t(s[1]), sz = uint32_t(s[2]);
                    const float want = field[g.index(sx, sy, sz)];
                    const float got = block.value()[x + kSide * (y + kSide * z)];
                    if (!sameBits(&want, &got, 1) && differ++ < 3)
                        ADD_FAILURE() << "brick (" << b[0] << ", " << b[1] << ", " << b[2] << ") grid sample (" << sx
                                      << ", " << sy << ", " << sz << "): dense " << want * kOne << " units, sparse "
                                      << got * kOne;
                    // The CPU on the interior samples (the border ones are copies).
                    if (x == 0 || y == 0 || z == 0 || x == kSide - 1 || y == kSide - 1 || z == kSide - 1) continue;
                    uint32_t units = 0, touching = 0;
                    cpuAt(sx, sy, sz, units, touching);
                    if (std::fabs(got - float(units) / kOne) > float(touching + 1) / kOne && offCpu++ < 3)
                        ADD_FAILURE() << "grid sample (" << sx << ", " << sy << ", " << sz << "): sparse " << got * kOne
                                      << " units, CPU " << units << " (" << touching << " terms)";
                }
    }
    EXPECT_EQ(differ, 0u) << "block samples not equal to the dense field";
    EXPECT_EQ(offCpu, 0u) << "block samples off the CPU's sum";
    size_t nonzero = 0, missed = 0;
    for (uint32_t z = 0; z < g.n[2]; ++z)
        for (uint32_t y = 0; y < g.n[1]; ++y)
            for (uint32_t x = 0; x < g.n[0]; ++x) {
                if (field[g.index(x, y, z)] == 0.f) continue;
                ++nonzero;
                // Brick b's interior: samples 8b .. 8b + 8.
                bool found = false;
                for (uint32_t dz = 0; dz < 2 && !found; ++dz)
                    for (uint32_t dy = 0; dy < 2 && !found; ++dy)
                        for (uint32_t dx = 0; dx < 2 && !found; ++dx) {
                            const uint32_t c[3] = {x, y, z}, d[3] = {dx, dy, dz};
                            std::array<uint32_t, 3> b{};
                            bool ok = true;
                            for (int a = 0; a < 3; ++a) {
                                if (d[a] && (c[a] % kCells != 0 || c[a] == 0)) ok = false;
                                b[size_t(a)] = d[a] ? c[a] / kCells - 1 : std::min(c[a], g.n[a] - 2) / kCells;
                            }
                            found = ok && listed.count(b) != 0;
                        }
                if (!found && missed++ < 3)
                    ADD_FAILURE() << "dense sample (" << x << ", " << y << ", " << z
                                  << ") = " << field[g.index(x, y, z)] << " in no listed brick";
            }
    EXPECT_EQ(missed, 0u);
    EXPECT_GT(nonzero, minNonzero) << "a field worth testing";
    return compared;
}

class IsoSparseKernels : public IsoParticleTest {
protected:
    // `small`: 400 particles, one frame (the GPU-assisted validation run).
    void compareDenseAndSparse(const IsoSurfaceCreateInfo& info, bool small = false,
                               const iso::testing::Knobs& sparseKnobs = {});
    // Not empty: these particles instead of the stretched cluster.
    std::vector<Particle> particles_;
};

// `count` particles in a cube of side 0.5 near the grid's centre (weights
// 0.5..1.5): every brick near it lists all of them.
std::vector<Particle> compactCloud(size_t count) {
    const auto rnd = ref::noise(count * 4, 21);
    std::vector<Particle> ps;
    for (size_t i = 0; i < count; ++i) {
        const float* u = &rnd[i * 4];
        Particle p{};
        p.position = {-0.23f + 0.5f * u[0], -0.22f + 0.5f * u[1], -0.21f + 0.5f * u[2]};
        p.weight = 0.5f + u[3];
        ps.push_back(p);
    }
    return ps;
}

// Dense and sparse over two frames of the stretched cluster (the second
// moved across the brick borders): the per-particle records, the blocks
// and the triangles, bit for bit.
void IsoSparseKernels::compareDenseAndSparse(const IsoSurfaceCreateInfo& info, bool small,
                                             const iso::testing::Knobs& sparseKnobs) {
    IsoSparseKernels& t = *this;
    const bool sph = info.particleKernel == ParticleKernel::SphCubicSpline;
    const bool aniso = info.anisotropic.enabled;
    const ref::Grid g = referenceGridOf(info);
    const float invR2 = 1.f / (info.particleRadius * info.particleRadius);
    auto dense = iso::testing::create(t.device(), info, {});
    auto sparse = iso::testing::create(t.device(), sparseOf(info), sparseKnobs);
    ASSERT_TRUE(dense.ok()) << dense.message();
    ASSERT_TRUE(sparse.ok()) << sparse.message();
    EXPECT_TRUE((*sparse)->sparseDomain().enabled);
    // The density pass reads through texel buffers unless storage reads are forced.
    EXPECT_EQ(iso::testing::sparseTexelReads(**sparse), !sparseKnobs.storageReads);
    for (int f = 0; f < (small ? 1 : 2); ++f) {
        const std::vector<Particle> ps =
            particles_.empty() ? stretchedCluster(5, f == 0 ? 0.f : 0.09f, small ? 400 : 1400) : particles_;
        ASSERT_TRUE((*dense)->setParticles(ps).ok());
        ASSERT_TRUE((*sparse)->setParticles(ps).ok());
        t.runFrame(**dense);
        t.runFrame(**sparse);
        const auto stats = (*sparse)->statsOfFrame((*sparse)->framesRecorded() - 1);
        ASSERT_TRUE(stats.has_value());
        ASSERT_FALSE(stats->overflow) << "bricks " << stats->sparseBricksNeeded << ", refs "
                                      << stats->sparseItemRefsNeeded;
        size_t differ = 0;
        // Per particle: the sparse record by index, the dense one by position bits.
        std::vector<float> sparseRecords; // smoothed (4 floats) or kernel records (12)
        if (aniso) {
            auto dk = iso::testing::readAnisotropicKernels(**dense);
            auto sk = iso::testing::readAnisotropicKernels(**sparse);
            ASSERT_TRUE(dk.ok() && sk.ok());
            ASSERT_EQ(dk->binned, ps.size());
            std::map<std::array<uint32_t, 3>, uint32_t> byBits;
            for (uint32_t j = 0; j < dk->binned; ++j) byBits[bitsOf(&dk->sorted[size_t(j) * 4])] = j;
            for (size_t i = 0; i < ps.size(); ++i) {
                const float* want = &dk->kernels[size_t(byBits.at(bitsOf(ps[i].position.data()))) * kRecord];
                const float* got = &sk->kernels[i * kRecord];
                if (!sameBits(want, got, kRecord) && differ++ < 3)
                    ADD_FAILURE() << "particle " << i << ": kernel record centre " << got[0] << " " << got[1] << " "
                                  << got[2] << " weight " << got[3] << ", dense " << want[0] << " " << want[1] << " "
                                  << want[2] << " weight " << want[3];
            }
            sparseRecords.assign(sk->kernels.begin(), sk->kernels.begin() + ptrdiff_t(ps.size() * kRecord));
        } else if (info.particleSmoothing == 0.f) {
            // Neither: the particles themselves (the density alone).
            for (const Particle& p : ps)
                sparseRecords.insert(sparseRecords.end(), {p.position[0], p.position[1], p.position[2], p.weight});
        } else {
            auto ds = iso::testing::readSmoothedParticles(**dense);
            auto ss = iso::testing::readSmoothedParticles(**sparse);
            ASSERT_TRUE(ds.ok() && ss.ok());
            std::map<std::array<uint32_t, 3>, size_t> byBits;
            for (size_t j = 0; j < ps.size(); ++j) byBits[bitsOf(&ds->sorted[j * 4])] = j;
            ASSERT_EQ(byBits.size(), ps.size());
            // The CPU's smoothing, particle by particle.
            std::vector<std::array<float, 3>> xyz;
            for (const Particle& p : ps) xyz.push_back(p.position);
            const float r = info.particleRadius, lambda = info.particleSmoothing;
            for (size_t i = 0; i < ps.size(); ++i) {
                const float* want = &ds->smoothed[byBits.at(bitsOf(ps[i].position.data())) * 4];
                const float* got = &ss->smoothed[i * 4];
                if (!sameBits(want, got, 4) && differ++ < 3)
                    ADD_FAILURE() << "particle " << i << ": smoothed " << got[0] << " " << got[1] << " " << got[2]
                                  << ", dense " << want[0] << " " << want[1] << " " << want[2];
                uint32_t sumW = 0, terms = 0;
                int32_t sumD[3] = {0, 0, 0};
                for (const auto& y : xyz) {
                    float d[3];
                    for (int k = 0; k < 3; ++k) d[k] = (y[k] - xyz[i][k]) / r;
                    const float q = d[0] * d[0] + (d[1] * d[1] + d[2] * d[2]);
                    if (!(q < 1.f)) continue;
                    const float w = 1.f - q * std::sqrt(q);
                    sumW += uint32_t(w * kSmoothOne);
                    for (int k = 0; k < 3; ++k) sumD[k] += int32_t(w * d[k] * kSmoothOne);
                    ++terms;
                }
                const float tol = lambda * r * 2.f * float(terms + 1) / float(sumW) + 1e-6f;
                for (int k = 0; k < 3; ++k)
                    EXPECT_NEAR(got[k], xyz[i][k] + lambda * (float(sumD[k]) / float(sumW) * r), tol)
                        << "particle " << i << " axis " << k;
            }
            sparseRecords.assign(ss->smoothed.begin(), ss->smoothed.begin() + ptrdiff_t(ps.size() * 4));
        }
        EXPECT_EQ(differ, 0u) << "frame " << f << ": per-particle records not the dense path's";
        std::vector<float> volumes;
        if (sph) {
            // The volumes by index (dense: by the position bits of the particles it read).
            auto dv = iso::testing::readParticleVolumes(**dense);
            auto sv = iso::testing::readParticleVolumes(**sparse);
            ASSERT_TRUE(dv.ok() && sv.ok());
            std::map<std::array<uint32_t, 3>, float> byBits;
            for (uint32_t j = 0; j < dv->binned; ++j)
                byBits[bitsOf(&dv->volumes[size_t(j) * 4])] = dv->volumes[j * 4 + 3];
            size_t off = 0;
            for (size_t i = 0; i < ps.size(); ++i) {
                const float* at = aniso ? ps[i].position.data() : &sparseRecords[i * 4];
                const auto it = byBits.find(bitsOf(at));
                if ((it == byBits.end() || !sameBits(&it->second, &sv->volumes[i], 1)) && off++ < 3)
                    ADD_FAILURE() << "particle " << i << " sparse volume " << sv->volumes[i];
            }
            EXPECT_EQ(off, 0u) << "frame " << f << ": volumes not the dense path's";
            volumes.assign(sv->volumes.begin(), sv->volumes.begin() + ptrdiff_t(ps.size()));
        }
        auto field = (*dense)->readField();
        ASSERT_TRUE(field.ok()) << field.message();
        const auto cpuAt = [&](uint32_t x, uint32_t y, uint32_t z, uint32_t& units, uint32_t& touching) {
            const float xs = sampleCoord(x, g.min[0], g.spacing(0));
            const float ys = sampleCoord(y, g.min[1], g.spacing(1));
            const float zs = sampleCoord(z, g.min[2], g.spacing(2));
            for (size_t i = 0; i < ps.size(); ++i) {
                uint32_t term;
                if (aniso) {
                    term = anisoTerm(&sparseRecords[i * kRecord], xs, ys, zs, sph);
                } else {
                    const float* p = &sparseRecords[i * 4];
                    term = isoTerm(xs - p[0], squaredYZ(ys - p[1], zs - p[2]), sph ? volumes[i] : p[3], invR2, sph);
                }
                units += term;
                touching += term != 0;
            }
        };
        const size_t compared = expectBlocks(**sparse, field.value(), g, cpuAt, small ? 100 : 1000);
        EXPECT_GT(compared, small ? 2000u : 20000u);
        auto a = (*dense)->readVertices();
        auto b = (*sparse)->readVertices();
        ASSERT_TRUE(a.ok() && b.ok());
        ASSERT_GT(a->size(), small ? 30u : 300u);
        EXPECT_TRUE(triangleBits(a.value()) == triangleBits(b.value()))
            << "frame " << f << ": not the dense path's triangles, bit for bit";
        std::printf("frame %d: %zu block samples equal, %zu vertices\n", f, compared, a->size());
    }
}

// Closed: every edge of the indexed mesh is shared by exactly two triangles.
void expectClosedIndexed(const std::vector<uint32_t>& indices, size_t* edgesOut) {
    ASSERT_FALSE(indices.empty());
    ASSERT_EQ(indices.size() % 3, 0u);
    std::map<std::pair<uint32_t, uint32_t>, int> edges;
    for (size_t t = 0; t < indices.size(); t += 3) {
        const uint32_t v[3] = {indices[t], indices[t + 1], indices[t + 2]};
        for (int e = 0; e < 3; ++e) {
            const uint32_t a = v[e], b = v[(e + 1) % 3];
            ++edges[{std::min(a, b), std::max(a, b)}];
        }
    }
    size_t open = 0;
    for (const auto& [e, n] : edges)
        if (n != 2 && open++ < 3) ADD_FAILURE() << "edge " << e.first << "-" << e.second << " in " << n << " triangles";
    EXPECT_EQ(open, 0u);
    *edgesOut = edges.size();
}

} // namespace

TEST_F(IsoSparseKernels, SmoothedFieldIsTheDensePathsBitForBit) {
    for (const bool sph : {false, true}) {
        SCOPED_TRACE(sph ? "SphCubicSpline" : "NeighbourCount");
        IsoSurfaceCreateInfo info = gridInfo(sph);
        info.particleSmoothing = 0.5f;
        compareDenseAndSparse(info);
    }
}

TEST_F(IsoSparseKernels, AnisotropicFieldIsTheDensePathsBitForBit) {
    for (const bool sph : {false, true}) {
        SCOPED_TRACE(sph ? "SphCubicSpline" : "NeighbourCount");
        IsoSurfaceCreateInfo info = gridInfo(sph);
        info.anisotropic.enabled = true;
        info.anisotropic.maxStretch = 2.f; // kernels reaching 2 radii: lists past the isotropic reach
        info.particleSmoothing = 0.3f;
        compareDenseAndSparse(info);
    }
}

// Every combination at a small size: smoothing and anisotropic kernels,
// both kernels, 400 particles on 21 x 17 x 18 samples, one frame (what the
// GPU-assisted validation run runs: the full-size cases take minutes there).
TEST_F(IsoSparseKernels, SmallGridsAreTheDensePathsBitForBit) {
    for (const bool aniso : {false, true})
        for (const bool sph : {false, true}) {
            SCOPED_TRACE(std::string(aniso ? "anisotropic" : "smoothed") + (sph ? ", SphCubicSpline" : ""));
            IsoSurfaceCreateInfo info = gridInfo(sph);
            info.samples = {21, 17, 18}; // spacing 0.1
            info.particleRadius = 0.2f;
            info.anisotropic.enabled = aniso;
            info.particleSmoothing = aniso ? 0.3f : 0.5f;
            compareDenseAndSparse(info, true);
        }
}

// Lists of 4,500 particles (a compact cloud): a thread of the density and
// neighbourhood passes once looped over the whole list for each of its
// home particles, which passed lavapipe's 65,535 loop iterations an
// invocation (it ends the loops silently) from about 1,450 a list, then
// sorted lists of up to 3,840 in shared memory and left longer ones empty
// (crowded). Smoothing and anisotropic kernels with SphCubicSpline, one
// frame, bit for bit, no brick crowded.
TEST_F(IsoSparseKernels, LongListsAreTheDensePathsBitForBit) {
    particles_ = compactCloud(4500);
    for (const bool aniso : {false, true}) {
        SCOPED_TRACE(aniso ? "anisotropic" : "smoothed");
        IsoSurfaceCreateInfo info = gridInfo(true);
        info.maxParticles = 4500;
        info.anisotropic.enabled = aniso;
        info.particleSmoothing = aniso ? 0.3f : 0.5f;
        compareDenseAndSparse(info, true);
    }
}

// The bricked density pass reads the sub-cells, the references, the
// particles and the smoothed particles through texel buffers, or (a host
// particle buffer, Knobs::storageReads) through storage buffers: both builds
// give the dense path's volumes and triangles bit for bit, the density alone
// and over smoothed particles, one frame of 400 particles.
TEST_F(IsoSparseKernels, TexelAndStorageReadsAreTheDensePathsBitForBit) {
    for (const bool storage : {false, true})
        for (const bool smoothed : {false, true}) {
            SCOPED_TRACE(std::string(storage ? "storage reads" : "texel reads") + (smoothed ? ", smoothed" : ""));
            IsoSurfaceCreateInfo info = gridInfo(true);
            info.samples = {21, 17, 18}; // spacing 0.1
            info.particleRadius = 0.2f;
            info.particleSmoothing = smoothed ? 0.5f : 0.f;
            iso::testing::Knobs knobs;
            knobs.storageReads = storage;
            compareDenseAndSparse(info, true, knobs);
        }
}

// The per-particle passes read the sub-cells of a brick's list that a
// particle's neighbourhood reaches (sparse_particles_cells.glsl: per axis
// the brick's 8 cells in 4 sub-cells, E = max(r, list reach) / spacing + 1
// cells either side in 2). Particles on those sub-cells' borders, each with
// partners just inside the neighbourhood radii (r, and the anisotropic
// neighbourhood 1.5 r) along an axis and a diagonal: a neighbour one
// sub-cell past the query box, or a border rounded the other way in the
// sort and the query, changes a sum. The density alone, smoothing and
// anisotropic kernels (SphCubicSpline), one frame, bit for bit.
TEST_F(IsoSparseKernels, SubCellBordersAreTheDensePathsBitForBit) {
    for (const int mode : {0, 1, 2}) {
        SCOPED_TRACE(mode == 0 ? "density" : mode == 1 ? "smoothed" : "anisotropic");
        IsoSurfaceCreateInfo info = gridInfo(true);
        info.anisotropic.enabled = mode == 2;
        info.particleSmoothing = mode == 0 ? 0.f : mode == 1 ? 0.5f : 0.3f;
        const double r = info.particleRadius, lambda = info.particleSmoothing, spacing = 0.05;
        const double hood = r * double(info.anisotropic.neighbourhood);
        const double list = mode == 0   ? 0.0
                            : mode == 1 ? (1.0 + 2.0 * lambda) * r
                                        : std::max({r * double(info.anisotropic.maxStretch) + lambda * hood, hood, r});
        const double grow = std::max(r, list) / spacing + 1.0; // cells
        // Brick (2, 2, 1): the borders of its sub-cells 1 .. 7 (grid units past its first cell).
        const double borders[7] = {-grow / 2, 0.0, 2.0, 4.0, 6.0, 8.0, 8.0 + grow / 2};
        const double base[3] = {16.0, 16.0, 8.0};
        const float min[3] = {-1.f, -0.8f, -0.8f};
        std::vector<Particle> ps;
        const auto rnd = ref::noise(400, 3);
        const float dr = float(r) * (1.f - 1e-5f), dh = float(hood) * (1.f - 1e-5f);
        const float diag = dr / std::sqrt(3.f);
        for (int z = 0; z < 7; z += 2)
            for (int y = 0; y < 7; y += 2)
                for (int x = 0; x < 7; ++x) {
                    Particle p{};
                    const int k[3] = {x, y, z};
                    for (int a = 0; a < 3; ++a)
                        p.position[size_t(a)] = min[a] + float((base[a] + borders[k[a]]) * spacing);
                    p.weight = 0.5f + rnd[ps.size() % rnd.size()];
                    ps.push_back(p);
                    // Partners: +r along x, -r along y, the r diagonal, +hood along z.
                    const float offsets[4][3] = {{dr, 0.f, 0.f}, {0.f, -dr, 0.f}, {diag, diag, diag}, {0.f, 0.f, dh}};
                    for (const auto& o : offsets) {
                        Particle q = p;
                        for (int a = 0; a < 3; ++a) q.position[size_t(a)] += o[a];
                        ps.push_back(q);
                    }
                }
        particles_ = ps;
        compareDenseAndSparse(info, true);
    }
}

// Two clusters 30 units apart on a grid of 3201 x 401 x 401 samples (the
// dense field would need 2 GiB): no sparse.enabled, the module goes
// bricked by itself, with anisotropic kernels, position smoothing and two
// mesh smoothing iterations; both clusters give closed surfaces.
TEST_F(IsoSparseKernels, ClustersFarApartGoBrickedWithEveryFeature) {
    std::vector<Particle> ps;
    const auto rnd = ref::noise(600 * 3, 17);
    for (size_t i = 0; i < 600; ++i) {
        const float* u = &rnd[i * 3];
        const float cx = i < 300 ? 1.f : 31.f; // one cluster near each end
        ps.push_back({{cx + 0.25f * u[0], 2.f + 0.25f * u[1], 2.f + 0.25f * u[2]}, 1.f});
    }
    IsoSurfaceCreateInfo info;
    info.source = FieldSource::Particles;
    info.samples = {3201, 401, 401};
    info.boundsMin = {0.f, 0.f, 0.f};
    info.boundsMax = {32.f, 4.f, 4.f};
    info.maxParticles = uint32_t(ps.size());
    info.particleRadius = 0.05f;
    info.isoValue = 0.3f;
    info.particleSmoothing = 0.5f;
    info.anisotropic.enabled = true;
    info.indexed = true;
    info.meshSmoothing.iterations = 2;
    info.vertexCapacity = 300000;
    info.indexCapacity = 600000;
    // Capacities for a small test (the module sizes them otherwise); not enabled.
    info.sparse.maxBricks = 1024;
    info.sparse.maxRowPairs = 8192;
    info.sparse.maxItemRefs = 200000;
    auto iso = make(info);
    ASSERT_TRUE(iso);
    ASSERT_TRUE(iso->sparseDomain().enabled) << "the dense grid does not fit: bricks";
    ASSERT_TRUE(iso->setParticles(ps).ok());
    frame(*iso);
    const auto stats = iso->statsOfFrame(iso->framesRecorded() - 1);
    ASSERT_TRUE(stats.has_value());
    const SparseDomain d = iso->sparseDomain();
    ASSERT_FALSE(stats->overflow) << "bricks " << stats->sparseBricksNeeded << "/" << d.maxBricks << ", row pairs "
                                  << stats->sparseRowPairsNeeded << "/" << d.maxRowPairs << ", refs "
                                  << stats->sparseItemRefsNeeded << "/" << d.maxItemRefs << ", vertices "
                                  << stats->verticesNeeded << ", indices " << stats->indicesNeeded;
    auto indices = iso->readIndices();
    ASSERT_TRUE(indices.ok()) << indices.message();
    auto verts = iso->readVertices();
    ASSERT_TRUE(verts.ok()) << verts.message();
    size_t edges = 0;
    expectClosedIndexed(indices.value(), &edges);
    // Triangles near both clusters.
    size_t left = 0, right = 0;
    for (size_t t = 0; t < indices->size(); t += 3) {
        const float x = verts.value()[indices.value()[t]].position[0];
        (x < 16.f ? left : right) += 1;
    }
    EXPECT_GT(left, 50u);
    EXPECT_GT(right, 50u);
    std::printf("%zu triangles (%zu / %zu), %zu edges, %u bricks listed\n", indices->size() / 3, left, right, edges,
                stats->sparseBricksNeeded);
}

// Capacities running out with smoothing and anisotropic kernels: a short
// brick list, then short references; the frame reports the overflow and
// what it needed, writes nothing outside its buffers (validation on) and
// the particles whose home brick was dropped add nothing (fewer triangles,
// never more than the dense path's).
TEST_F(IsoSparseKernels, CapacitiesRunningOutAreReportedAndBounded) {
    IsoSurfaceCreateInfo info = gridInfo(true);
    info.anisotropic.enabled = true;
    info.particleSmoothing = 0.3f;
    const std::vector<Particle> ps = stretchedCluster(9, 0.f);
    auto dense = make(info);
    ASSERT_TRUE(dense);
    ASSERT_TRUE(dense->setParticles(ps).ok());
    frame(*dense);
    auto full = dense->readVertices();
    ASSERT_TRUE(full.ok());
    for (const bool shortRefs : {false, true}) {
        SCOPED_TRACE(shortRefs ? "short references" : "short brick list");
        IsoSurfaceCreateInfo ci = sparseOf(info);
        if (shortRefs)
            ci.sparse.maxItemRefs = 5000;
        else
            ci.sparse.maxBricks = 20;
        auto iso = make(ci);
        ASSERT_TRUE(iso);
        ASSERT_TRUE(iso->setParticles(ps).ok());
        frame(*iso);
        const auto stats = iso->statsOfFrame(iso->framesRecorded() - 1);
        ASSERT_TRUE(stats.has_value());
        EXPECT_TRUE(stats->overflow);
        if (shortRefs)
            EXPECT_GT(stats->sparseItemRefsNeeded, ci.sparse.maxItemRefs);
        else
            EXPECT_GT(stats->sparseBricksNeeded, ci.sparse.maxBricks);
        auto verts = iso->readVertices();
        ASSERT_TRUE(verts.ok());
        EXPECT_LT(verts->size(), full->size());
        for (const IsoVertexData& v : verts.value())
            for (int k = 0; k < 3; ++k) ASSERT_TRUE(std::isfinite(v.position[k]));
    }
}
