// The built-in bunny collider: a smooth union of ellipsoids (body, haunches,
// head, ears, front paws, tail) meshed by marching tetrahedra on a regular
// grid. Each cube is split into the 6 tetrahedra around its main diagonal
// (the same split in every cube, so neighbouring cubes share their face
// diagonals) and a vertex on a grid edge is shared by every tetrahedron that
// cuts that edge: the surface is the zero set of a piecewise linear field,
// closed and manifold, with no ambiguous cases to resolve.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <unordered_map>

#include "fluid_sim.h"

namespace fluid {
namespace {

using V3 = std::array<double, 3>;

struct Ellipsoid {
    V3 centre, radii;
};

// Facing +x, standing on y = 0, z across; about 2 units long.
// clang-format off
constexpr Ellipsoid kParts[] = {
    {{0.0, 0.5, 0.0}, {0.8, 0.52, 0.52}},     // body
    {{-0.38, 0.38, 0.3}, {0.42, 0.32, 0.2}},  // haunches
    {{-0.38, 0.38, -0.3}, {0.42, 0.32, 0.2}},
    {{0.72, 0.98, 0.0}, {0.34, 0.3, 0.3}},    // head
    {{0.6, 1.48, 0.13}, {0.1, 0.38, 0.12}},   // ears
    {{0.6, 1.48, -0.13}, {0.1, 0.38, 0.12}},
    {{0.66, 0.13, 0.2}, {0.24, 0.12, 0.11}},  // front paws
    {{0.66, 0.13, -0.2}, {0.24, 0.12, 0.11}},
    {{-0.84, 0.62, 0.0}, {0.17, 0.17, 0.17}}, // tail
};
// clang-format on
constexpr V3 kLo{-1.15, -0.12, -0.7}, kHi{1.22, 1.98, 0.7};

// About the signed distance to one ellipsoid (negative inside).
double ellipsoid(const Ellipsoid& e, const V3& p) {
    double s = 0.0;
    for (int a = 0; a < 3; ++a) {
        const double q = (p[size_t(a)] - e.centre[size_t(a)]) / e.radii[size_t(a)];
        s += q * q;
    }
    return (std::sqrt(s) - 1.0) * std::min({e.radii[0], e.radii[1], e.radii[2]});
}

// Polynomial smooth minimum: blends within `k` of the crease.
double smoothMin(double a, double b, double k) {
    const double h = std::max(k - std::fabs(a - b), 0.0) / k;
    return std::min(a, b) - h * h * k * 0.25;
}

double field(const V3& p) {
    double d = ellipsoid(kParts[0], p);
    for (size_t i = 1; i < std::size(kParts); ++i) d = smoothMin(d, ellipsoid(kParts[i], p), 0.12);
    // Never exactly zero: every grid edge is then cut at most once, strictly
    // inside (a sample on the surface would make a vertex shared by edges).
    return d == 0.0 ? 1e-12 : d;
}

// The 6 tetrahedra of a cube around its diagonal from corner 0 to corner 7
// (corner bits: x = 1, y = 2, z = 4): each walks the axes in one order.
constexpr int kTets[6][4] = {{0, 1, 3, 7}, {0, 1, 5, 7}, {0, 2, 3, 7}, {0, 2, 6, 7}, {0, 4, 5, 7}, {0, 4, 6, 7}};
// Whether each is positively oriented: det(c1 - c0, c2 - c0, c3 - c0) > 0.
constexpr bool kTetPositive[6] = {true, false, false, true, true, false};

int inversions(const int* order) {
    int n = 0;
    for (int i = 0; i < 4; ++i)
        for (int j = i + 1; j < 4; ++j) n += order[i] > order[j] ? 1 : 0;
    return n;
}

} // namespace

pyramarch::voxel::TriangleMesh bunnyMesh(uint32_t cells) {
    cells = std::clamp(cells, 16u, 256u);
    double longest = 0.0;
    for (int a = 0; a < 3; ++a) longest = std::max(longest, kHi[size_t(a)] - kLo[size_t(a)]);
    const double h = longest / double(cells);
    uint32_t n[3]; // samples per axis
    for (int a = 0; a < 3; ++a) n[a] = uint32_t(std::ceil((kHi[size_t(a)] - kLo[size_t(a)]) / h)) + 1u;
    auto sampleIndex = [&](uint32_t x, uint32_t y, uint32_t z) { return (uint64_t(z) * n[1] + y) * n[0] + x; };
    auto position = [&](uint64_t s) {
        const uint64_t x = s % n[0], y = (s / n[0]) % n[1], z = s / (uint64_t(n[0]) * n[1]);
        return V3{kLo[0] + double(x) * h, kLo[1] + double(y) * h, kLo[2] + double(z) * h};
    };
    std::vector<double> f(size_t(n[0]) * n[1] * n[2]);
    for (uint32_t z = 0; z < n[2]; ++z)
        for (uint32_t y = 0; y < n[1]; ++y)
            for (uint32_t x = 0; x < n[0]; ++x) {
                const uint64_t s = sampleIndex(x, y, z);
                // The box's border is outside, so the surface closes.
                const bool border = x == 0 || y == 0 || z == 0 || x + 1 == n[0] || y + 1 == n[1] || z + 1 == n[2];
                f[size_t(s)] = border ? std::max(1e-3, field(position(s))) : field(position(s));
            }

    pyramarch::voxel::TriangleMesh mesh;
    std::unordered_map<uint64_t, uint32_t> edgeVertex; // (lower sample, higher sample) -> vertex
    const uint64_t samples = uint64_t(f.size());
    auto vertexOn = [&](uint64_t a, uint64_t b) {
        if (a > b) std::swap(a, b); // one order per edge: the same vertex from every side
        const uint64_t key = a * samples + b;
        auto [it, added] = edgeVertex.try_emplace(key, uint32_t(mesh.positions.size()));
        if (added) {
            const double fa = f[size_t(a)], fb = f[size_t(b)];
            const double t = std::clamp(fa / (fa - fb), 1e-3, 1.0 - 1e-3);
            const V3 pa = position(a), pb = position(b);
            mesh.positions.push_back({float(pa[0] + t * (pb[0] - pa[0])), float(pa[1] + t * (pb[1] - pa[1])),
                                      float(pa[2] + t * (pb[2] - pa[2]))});
        }
        return it->second;
    };
    for (uint32_t z = 0; z + 1 < n[2]; ++z)
        for (uint32_t y = 0; y + 1 < n[1]; ++y)
            for (uint32_t x = 0; x + 1 < n[0]; ++x) {
                uint64_t corner[8];
                for (uint32_t c = 0; c < 8; ++c)
                    corner[c] = sampleIndex(x + (c & 1u), y + ((c >> 1) & 1u), z + (c >> 2));
                for (int t = 0; t < 6; ++t) {
                    // Tetrahedron corners reordered: inside ones first. The
                    // winding comes from the orientation of that order (the
                    // tetrahedron's own times the reordering's parity), not
                    // from a normal, so slivers are wound right as well.
                    int order[4], ni = 0;
                    for (int k = 0; k < 4; ++k)
                        if (f[size_t(corner[kTets[t][k]])] < 0.0) order[ni++] = k;
                    if (ni == 0 || ni == 4) continue;
                    for (int k = 0, m = ni; k < 4; ++k)
                        if (!(f[size_t(corner[kTets[t][k]])] < 0.0)) order[m++] = k;
                    const bool positive = kTetPositive[t] == (inversions(order) % 2 == 0);
                    uint64_t s[4];
                    for (int k = 0; k < 4; ++k) s[k] = corner[kTets[t][order[k]]];
                    if (ni == 1) {
                        // (s0, s1, s2, s3) positive: the triangle on the edges
                        // from s0 faces away from s0, which is inside.
                        const uint32_t a = vertexOn(s[0], s[1]), b = vertexOn(s[0], s[2]), c = vertexOn(s[0], s[3]);
                        mesh.indices.insert(mesh.indices.end(), {a, positive ? b : c, positive ? c : b});
                    } else if (ni == 3) {
                        // The lone outside corner s3 first: (s3, s0, s1, s2) is an
                        // odd reordering; the triangle must face towards s3.
                        const uint32_t a = vertexOn(s[3], s[0]), b = vertexOn(s[3], s[1]), c = vertexOn(s[3], s[2]);
                        mesh.indices.insert(mesh.indices.end(), {a, positive ? b : c, positive ? c : b});
                    } else {
                        // Inside s0, s1, outside s2, s3: the quad s0s2, s0s3,
                        // s1s3, s1s2 (outward when the order is positive).
                        if (!positive) std::swap(s[2], s[3]);
                        const uint32_t ac = vertexOn(s[0], s[2]), ad = vertexOn(s[0], s[3]);
                        const uint32_t bd = vertexOn(s[1], s[3]), bc = vertexOn(s[1], s[2]);
                        mesh.indices.insert(mesh.indices.end(), {ac, ad, bd, ac, bd, bc});
                    }
                }
            }
    return mesh;
}

} // namespace fluid
