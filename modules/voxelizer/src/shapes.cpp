#include "pyramarch/voxelizer/shapes.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace pyramarch::voxel::shapes {
namespace {

using Vec3 = std::array<float, 3>; // the public headers spell it out; short here

constexpr float kPi = std::numbers::pi_v<float>;

// Deterministic across platforms (std::uniform_real_distribution is not).
struct Rng {
    uint64_t s;
    explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
    uint32_t next() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return uint32_t(s >> 32);
    }
    float uniform(float lo, float hi) { return lo + (hi - lo) * float(next() >> 8) * (1.0f / 16777216.0f); }
};

Vec3 add(Vec3 a, Vec3 b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
Vec3 scale(Vec3 a, float s) { return {a[0] * s, a[1] * s, a[2] * s}; }
Vec3 sub(Vec3 a, Vec3 b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Vec3 cross(Vec3 a, Vec3 b) { return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]}; }
Vec3 normalize(Vec3 a) {
    const float l = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    return l > 0 ? scale(a, 1.0f / l) : Vec3{0, 0, 1};
}

// A closed tube (u periodic, v periodic) from a grid of points.
TriangleMesh periodicGrid(uint32_t nu, uint32_t nv, const std::vector<Vec3>& pts) {
    TriangleMesh m;
    m.positions = pts;
    for (uint32_t i = 0; i < nu; ++i) {
        for (uint32_t j = 0; j < nv; ++j) {
            const uint32_t a = i * nv + j, b = ((i + 1) % nu) * nv + j;
            const uint32_t c = ((i + 1) % nu) * nv + (j + 1) % nv, d = i * nv + (j + 1) % nv;
            m.indices.insert(m.indices.end(), {a, b, c, a, c, d});
        }
    }
    return m;
}

Vec3 knotPoint(float t, float radius, uint32_t p, uint32_t q) {
    const float r = radius * (0.5f + 0.25f * std::cos(float(q) * t));
    return {r * std::cos(float(p) * t), r * std::sin(float(p) * t), radius * 0.25f * std::sin(float(q) * t)};
}

} // namespace

void colorByPosition(TriangleMesh& mesh) {
    Vec3 lo{INFINITY, INFINITY, INFINITY}, hi{-INFINITY, -INFINITY, -INFINITY};
    for (const Vec3& p : mesh.positions)
        for (int a = 0; a < 3; ++a) {
            lo[a] = std::min(lo[a], p[a]);
            hi[a] = std::max(hi[a], p[a]);
        }
    mesh.colors.resize(mesh.positions.size());
    for (size_t i = 0; i < mesh.positions.size(); ++i) {
        uint32_t ch[3];
        for (int a = 0; a < 3; ++a) {
            const float e = hi[a] - lo[a];
            const float t = e > 0 ? (mesh.positions[i][a] - lo[a]) / e : 0.5f;
            ch[a] = uint32_t(std::lround(std::clamp(t, 0.f, 1.f) * 255.f));
        }
        mesh.colors[i] = packRGBA8(ch[0], ch[1], ch[2]);
    }
}

void colorUniform(TriangleMesh& mesh, uint32_t rgba8) { mesh.colors.assign(mesh.positions.size(), rgba8); }

TriangleMesh sphere(Vec3 c, float radius, uint32_t segments, uint32_t rings) {
    segments = std::max(segments, 3u);
    rings = std::max(rings, 2u);
    TriangleMesh m;
    m.positions.push_back(add(c, {0, 0, radius}));  // north pole
    m.positions.push_back(add(c, {0, 0, -radius})); // south pole
    for (uint32_t r = 1; r < rings; ++r) {
        const float th = kPi * float(r) / float(rings);
        for (uint32_t s = 0; s < segments; ++s) {
            const float ph = 2 * kPi * float(s) / float(segments);
            m.positions.push_back(add(c, {radius * std::sin(th) * std::cos(ph), radius * std::sin(th) * std::sin(ph),
                                          radius * std::cos(th)}));
        }
    }
    auto ring = [&](uint32_t r, uint32_t s) { return 2 + (r - 1) * segments + s % segments; };
    for (uint32_t s = 0; s < segments; ++s) {
        m.indices.insert(m.indices.end(), {0u, ring(1, s), ring(1, s + 1)});
        m.indices.insert(m.indices.end(), {1u, ring(rings - 1, s + 1), ring(rings - 1, s)});
    }
    for (uint32_t r = 1; r + 1 < rings; ++r)
        for (uint32_t s = 0; s < segments; ++s) {
            const uint32_t a = ring(r, s), b = ring(r + 1, s), cc = ring(r + 1, s + 1), d = ring(r, s + 1);
            m.indices.insert(m.indices.end(), {a, b, cc, a, cc, d});
        }
    return m;
}

TriangleMesh torus(Vec3 c, float R, float r, uint32_t nu, uint32_t nv) {
    nu = std::max(nu, 3u);
    nv = std::max(nv, 3u);
    std::vector<Vec3> pts;
    for (uint32_t i = 0; i < nu; ++i) {
        const float u = 2 * kPi * float(i) / float(nu);
        for (uint32_t j = 0; j < nv; ++j) {
            const float v = 2 * kPi * float(j) / float(nv);
            pts.push_back(
                add(c, {(R + r * std::cos(v)) * std::cos(u), (R + r * std::cos(v)) * std::sin(u), r * std::sin(v)}));
        }
    }
    return periodicGrid(nu, nv, pts);
}

TriangleMesh torusKnot(Vec3 c, float radius, float tube, uint32_t p, uint32_t q, uint32_t segments,
                       uint32_t tubeSegments) {
    segments = std::max(segments, 8u);
    tubeSegments = std::max(tubeSegments, 3u);
    std::vector<Vec3> pts;
    for (uint32_t i = 0; i < segments; ++i) {
        const float t = 2 * kPi * float(i) / float(segments);
        const float dt = 1e-3f;
        const Vec3 p0 = knotPoint(t, radius, p, q);
        const Vec3 tangent = normalize(sub(knotPoint(t + dt, radius, p, q), knotPoint(t - dt, radius, p, q)));
        // Frame from the tangent and the z axis (the knot's tangent is never parallel to z).
        const Vec3 n1 = normalize(cross(tangent, {0, 0, 1}));
        const Vec3 n2 = cross(tangent, n1);
        for (uint32_t j = 0; j < tubeSegments; ++j) {
            const float v = 2 * kPi * float(j) / float(tubeSegments);
            pts.push_back(add(c, add(p0, add(scale(n1, tube * std::cos(v)), scale(n2, tube * std::sin(v))))));
        }
    }
    return periodicGrid(segments, tubeSegments, pts);
}

TriangleMesh box(Vec3 lo, Vec3 hi) {
    TriangleMesh m;
    for (int i = 0; i < 8; ++i)
        m.positions.push_back({(i & 1) ? hi[0] : lo[0], (i & 2) ? hi[1] : lo[1], (i & 4) ? hi[2] : lo[2]});
    // Two triangles per face.
    m.indices = {0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4,
                 2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5};
    return m;
}

TriangleMesh diamondPrism(Vec3 c, float h, float z0, float z1) {
    TriangleMesh m;
    const Vec3 ring[4] = {{c[0] + h, c[1], 0}, {c[0], c[1] + h, 0}, {c[0] - h, c[1], 0}, {c[0], c[1] - h, 0}};
    for (int k = 0; k < 4; ++k) m.positions.push_back({ring[k][0], ring[k][1], z0});
    for (int k = 0; k < 4; ++k) m.positions.push_back({ring[k][0], ring[k][1], z1});
    for (uint32_t k = 0; k < 4; ++k) {
        const uint32_t a = k, b = (k + 1) % 4;
        m.indices.insert(m.indices.end(), {a, b, b + 4, a, b + 4, a + 4});
    }
    m.indices.insert(m.indices.end(), {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7});
    return m;
}

TriangleMesh triangle(Vec3 a, Vec3 b, Vec3 c) {
    TriangleMesh m;
    m.positions = {a, b, c};
    m.indices = {0, 1, 2};
    return m;
}

TriangleMesh tinyTriangles(Vec3 lo, Vec3 hi, float size, uint32_t count, uint32_t seed) {
    Rng rng(seed);
    TriangleMesh m;
    for (uint32_t i = 0; i < count; ++i) {
        const Vec3 p{rng.uniform(lo[0], hi[0]), rng.uniform(lo[1], hi[1]), rng.uniform(lo[2], hi[2])};
        const uint32_t base = uint32_t(m.positions.size());
        m.positions.push_back(p);
        for (int k = 0; k < 2; ++k)
            m.positions.push_back(
                add(p, {rng.uniform(-size, size), rng.uniform(-size, size), rng.uniform(-size, size)}));
        m.indices.insert(m.indices.end(), {base, base + 1, base + 2});
    }
    return m;
}

TriangleMesh slivers(Vec3 lo, Vec3 hi, float width, uint32_t count, uint32_t seed) {
    Rng rng(seed);
    TriangleMesh m;
    for (uint32_t i = 0; i < count; ++i) {
        const Vec3 a{rng.uniform(lo[0], hi[0]), rng.uniform(lo[1], hi[1]), rng.uniform(lo[2], hi[2])};
        const Vec3 b{rng.uniform(lo[0], hi[0]), rng.uniform(lo[1], hi[1]), rng.uniform(lo[2], hi[2])};
        const Vec3 off{rng.uniform(-width, width), rng.uniform(-width, width), rng.uniform(-width, width)};
        const Vec3 mid = add(scale(add(a, b), 0.5f), off);
        const uint32_t base = uint32_t(m.positions.size());
        m.positions.insert(m.positions.end(), {a, b, mid});
        m.indices.insert(m.indices.end(), {base, base + 1, base + 2});
    }
    return m;
}

TriangleMesh degenerateTriangles(Vec3 lo, Vec3 hi, uint32_t count, uint32_t seed) {
    Rng rng(seed);
    TriangleMesh m;
    for (uint32_t i = 0; i < count; ++i) {
        const Vec3 a{rng.uniform(lo[0], hi[0]), rng.uniform(lo[1], hi[1]), rng.uniform(lo[2], hi[2])};
        const Vec3 b{rng.uniform(lo[0], hi[0]), rng.uniform(lo[1], hi[1]), rng.uniform(lo[2], hi[2])};
        Vec3 c;
        switch (i % 3) {
        case 0: c = add(a, scale(sub(b, a), 0.25f)); break; // collinear (up to float rounding)
        case 1: c = b; break;                               // two equal vertices
        default: c = a; break;
        }
        const uint32_t base = uint32_t(m.positions.size());
        if (i % 3 == 2) {
            m.positions.insert(m.positions.end(), {a, a, a}); // a point
        } else {
            m.positions.insert(m.positions.end(), {a, b, c});
        }
        m.indices.insert(m.indices.end(), {base, base + 1, base + 2});
    }
    // Exactly collinear along an axis-aligned diagonal, where float rounding cannot bend it.
    const uint32_t base = uint32_t(m.positions.size());
    m.positions.insert(m.positions.end(),
                       {lo, {(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, lo[2]}, {hi[0], hi[1], lo[2]}});
    m.indices.insert(m.indices.end(), {base, base + 1, base + 2});
    return m;
}

TriangleMesh nonManifold(Vec3 lo, Vec3 hi) {
    TriangleMesh m = box(lo, hi);
    const size_t n = m.indices.size();
    for (size_t i = 0; i < n; ++i) m.indices.push_back(m.indices[i]); // every face twice
    const Vec3 c = scale(add(lo, hi), 0.5f);
    const Vec3 e = sub(hi, lo);
    // Three fins through the box's central vertical edge line.
    const uint32_t a = uint32_t(m.positions.size());
    m.positions.push_back({c[0], c[1], lo[2] + 0.1f * e[2]});
    m.positions.push_back({c[0], c[1], hi[2] - 0.1f * e[2]});
    for (int k = 0; k < 3; ++k) {
        const float ang = 2 * kPi * float(k) / 3.0f + 0.3f;
        m.positions.push_back({c[0] + 0.4f * e[0] * std::cos(ang), c[1] + 0.4f * e[1] * std::sin(ang), c[2]});
        m.indices.insert(m.indices.end(), {a, a + 1, uint32_t(a + 2 + k)});
    }
    return m;
}

TriangleMesh denseKnot(Vec3 center, float radius, uint32_t targetTriangles) {
    const uint32_t tube = 32;
    const uint32_t segs = std::max(8u, targetTriangles / (2 * tube));
    return torusKnot(center, radius, radius * 0.12f, 2, 3, segs, tube);
}

void append(TriangleMesh& a, const TriangleMesh& b) {
    const uint32_t base = uint32_t(a.positions.size());
    const bool colors = (a.positions.empty() || !a.colors.empty()) && !b.colors.empty();
    const bool normals = (a.positions.empty() || !a.normals.empty()) && !b.normals.empty();
    a.positions.insert(a.positions.end(), b.positions.begin(), b.positions.end());
    for (uint32_t i : b.indices) a.indices.push_back(base + i);
    if (colors)
        a.colors.insert(a.colors.end(), b.colors.begin(), b.colors.end());
    else
        a.colors.clear();
    if (normals)
        a.normals.insert(a.normals.end(), b.normals.begin(), b.normals.end());
    else
        a.normals.clear();
}

TriangleMesh byName(const std::string& name) {
    if (name == "sphere") return sphere({0, 0, 0}, 1.0f, 64, 32);
    if (name == "torus") return torus({0, 0, 0}, 0.7f, 0.3f, 96, 32);
    if (name == "knot") return torusKnot({0, 0, 0}, 1.0f, 0.15f, 2, 3, 512, 24);
    if (name == "box") return box({-1, -1, -1}, {1, 1, 1});
    if (name == "diamond") return diamondPrism({0, 0, 0}, 1.0f, -1.0f, 1.0f);
    return {};
}

} // namespace pyramarch::voxel::shapes
