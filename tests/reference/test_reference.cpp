// The CPU reference itself: closed surfaces watertight and wound outward,
// empty/full fields, pyramid sums, NaN handling.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "reference.h"

using namespace pyramarch::ref;

namespace {

Grid cube(uint32_t n, float lo = -1.f, float hi = 1.f) {
    Grid g;
    for (int a = 0; a < 3; ++a) {
        g.n[a] = n;
        g.min[a] = lo;
        g.max[a] = hi;
    }
    return g;
}

// Signed volume via the divergence theorem: positive when triangles face outward.
double signedVolume(const std::vector<Vertex>& v) {
    double vol = 0;
    for (size_t t = 0; t + 2 < v.size(); t += 3) {
        const float* a = v[t].p;
        const float* b = v[t + 1].p;
        const float* c = v[t + 2].p;
        vol += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                a[2] * (b[0] * c[1] - b[1] * c[0])) /
               6.0;
    }
    return vol;
}

} // namespace

TEST(ReferenceMc, SphereWatertightAndWoundOutward) {
    const Grid g = cube(24);
    const auto f =
        sampleField(g, [](float x, float y, float z) { return sphere(x, y, z, 0.05f, -0.02f, 0.01f, 0.7f); });
    const McResult r = marchingCubes(g, f.data(), 0.f, Normals::Central);
    ASSERT_GT(r.vertices.size(), 300u);
    size_t misoriented = 0;
    EXPECT_EQ(openEdges(r.vertices, &misoriented), 0u);
    EXPECT_EQ(misoriented, 0u);
    const double vol = signedVolume(r.vertices);
    EXPECT_NEAR(vol, 4.0 / 3.0 * M_PI * 0.343, 0.05) << "negative means inward winding";
    // Normals point outward (away from the centre) and agree with face orientation.
    for (size_t t = 0; t < r.vertices.size(); t += 3) {
        const Vertex* v = &r.vertices[t];
        float e1[3], e2[3], fn[3];
        for (int k = 0; k < 3; ++k) {
            e1[k] = v[1].p[k] - v[0].p[k];
            e2[k] = v[2].p[k] - v[0].p[k];
        }
        fn[0] = e1[1] * e2[2] - e1[2] * e2[1];
        fn[1] = e1[2] * e2[0] - e1[0] * e2[2];
        fn[2] = e1[0] * e2[1] - e1[1] * e2[0];
        const float d = fn[0] * v[0].n[0] + fn[1] * v[0].n[1] + fn[2] * v[0].n[2];
        EXPECT_GE(d, 0.f) << "triangle " << t / 3;
        const float radial =
            (v[0].p[0] - 0.05f) * v[0].n[0] + (v[0].p[1] + 0.02f) * v[0].n[1] + (v[0].p[2] - 0.01f) * v[0].n[2];
        EXPECT_GT(radial, 0.f);
        if (d < 0.f || radial <= 0.f) break;
    }
}

TEST(ReferenceMc, NoiseAndCayleyAreWatertightInside) {
    // Random fields exercise every case and every ambiguous face: a surface
    // that does not reach the boundary must still close. Pad with outside samples.
    Grid g = cube(20);
    auto f = noise(g.samples(), 1234);
    for (uint32_t z = 0; z < g.n[2]; ++z)
        for (uint32_t y = 0; y < g.n[1]; ++y)
            for (uint32_t x = 0; x < g.n[0]; ++x)
                if (x == 0 || y == 0 || z == 0 || x + 1 == g.n[0] || y + 1 == g.n[1] || z + 1 == g.n[2])
                    f[g.index(x, y, z)] = 0.f;
    for (Normals m : {Normals::Forward, Normals::Central, Normals::Sobel}) {
        const McResult r = marchingCubes(g, f.data(), 0.5f, m);
        ASSERT_GT(r.vertices.size(), 1000u);
        size_t mis = 0;
        EXPECT_EQ(openEdges(r.vertices, &mis), 0u);
        EXPECT_EQ(mis, 0u);
    }
}

TEST(ReferenceMc, EmptyAndFullFieldsHaveNoTriangles) {
    const Grid g = cube(9);
    std::vector<float> f(g.samples(), 1.f);
    EXPECT_EQ(marchingCubes(g, f.data(), 2.f, Normals::Central).vertices.size(), 0u);
    EXPECT_EQ(marchingCubes(g, f.data(), 0.f, Normals::Central).vertices.size(), 0u);
    // Equal to iso counts as inside: an all-equal field is full.
    EXPECT_EQ(marchingCubes(g, f.data(), 1.f, Normals::Central).vertices.size(), 0u);
}

TEST(ReferenceMc, PyramidLevelsSumToVertexCount) {
    const Grid g = cube(13);
    const auto f = sampleField(g, [](float x, float y, float z) { return cayley(x, y, z); });
    const McResult r = marchingCubes(g, f.data(), 0.f, Normals::Central);
    const auto levels = pyramidLevels(r.base);
    ASSERT_EQ(levels.back().size(), 1u);
    EXPECT_EQ(levels.back()[0], r.vertices.size());
    EXPECT_EQ(levels.size(), 1u + size_t(std::ceil(std::log(double(r.base.size())) / std::log(4.0))));
}

TEST(ReferenceMc, NanSamplesAreOutsideAndGiveFinitePositions) {
    const Grid g = cube(6);
    auto f = sampleField(g, [](float x, float y, float z) { return sphere(x, y, z, 0, 0, 0, 0.8f); });
    f[g.index(2, 2, 2)] = std::numeric_limits<float>::quiet_NaN();
    f[g.index(3, 2, 2)] = std::numeric_limits<float>::infinity();
    f[g.index(2, 3, 2)] = -std::numeric_limits<float>::infinity();
    const McResult r = marchingCubes(g, f.data(), 0.f, Normals::Sobel);
    ASSERT_GT(r.vertices.size(), 0u);
    for (const Vertex& v : r.vertices)
        for (int k = 0; k < 3; ++k) {
            EXPECT_TRUE(std::isfinite(v.p[k]));
            EXPECT_TRUE(std::isfinite(v.n[k]));
        }
    for (uint32_t b : r.base) EXPECT_LT(b >> 4, 256u);
}

TEST(ReferenceMc, TriangleSetComparisonDetectsDifferences) {
    const Grid g = cube(10);
    const auto f = sampleField(g, [](float x, float y, float z) { return sphere(x, y, z, 0, 0, 0, 0.6f); });
    const McResult r = marchingCubes(g, f.data(), 0.f, Normals::Central);
    auto shuffled = r.vertices;
    // Reverse triangle order: still the same set.
    std::vector<Vertex> rev;
    for (size_t t = shuffled.size(); t >= 3; t -= 3)
        rev.insert(rev.end(), shuffled.begin() + (t - 3), shuffled.begin() + t);
    EXPECT_EQ(compareTriangleSets(r.vertices, rev, 1e-6f, 1e-4f), "");
    auto moved = r.vertices;
    moved[7].p[1] += 1e-3f;
    EXPECT_NE(compareTriangleSets(r.vertices, moved, 1e-5f, 1e-4f), "");
    auto fewer = r.vertices;
    fewer.resize(fewer.size() - 3);
    EXPECT_NE(compareTriangleSets(r.vertices, fewer, 1e-5f, 1e-4f), "");
}

TEST(ReferenceSplat, KernelIsCompactAndSmooth) {
    Grid g = cube(11);
    std::vector<Particle> p = {{{0.f, 0.f, 0.f}, 1.f}, {{1.15f, 0.f, 0.f}, 1.f}};
    std::vector<uint32_t> touching;
    const auto f = splatBruteForce(g, p, 0.3f, &touching);
    EXPECT_FLOAT_EQ(f[g.index(5, 5, 5)], 1.f); // centre, weight 1
    EXPECT_EQ(f[g.index(5, 5, 7)], 0.f);       // 0.4 away: outside radius 0.3
    EXPECT_GT(f[g.index(10, 5, 5)], 0.f);      // particle outside the bounds still reaches x = 1
    EXPECT_EQ(touching[g.index(10, 5, 5)], 1u);
}
