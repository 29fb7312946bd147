#include "reference.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <unordered_map>

#include "pyramarch/isosurface/mc_tables.h"

namespace pyramarch::ref {
namespace {

// Same sanitising as the shaders: NaN counts as -infinity (outside).
float sanitize(float v) { return std::isnan(v) ? -std::numeric_limits<float>::infinity() : v; }

float at(const Grid& g, const float* f, int x, int y, int z) {
    x = std::clamp(x, 0, int(g.n[0]) - 1);
    y = std::clamp(y, 0, int(g.n[1]) - 1);
    z = std::clamp(z, 0, int(g.n[2]) - 1);
    return sanitize(f[g.index(x, y, z)]);
}

// Gradient in index units along each axis, before dividing by spacing.
void gradient(const Grid& g, const float* f, int x, int y, int z, Normals mode, float out[3]) {
    if (mode == Normals::None) {
        out[0] = out[1] = out[2] = 0.f;
        return;
    }
    const int p[3] = {x, y, z};
    for (int a = 0; a < 3; ++a) {
        int d[3] = {0, 0, 0};
        d[a] = 1;
        const int n = int(g.n[a]);
        if (mode == Normals::Forward) {
            if (p[a] + 1 < n)
                out[a] = at(g, f, x + d[0], y + d[1], z + d[2]) - at(g, f, x, y, z);
            else
                out[a] = at(g, f, x, y, z) - at(g, f, x - d[0], y - d[1], z - d[2]);
        } else if (mode == Normals::Central) {
            const int hi = std::min(p[a] + 1, n - 1), lo = std::max(p[a] - 1, 0);
            int ph[3] = {x, y, z}, pl[3] = {x, y, z};
            ph[a] = hi;
            pl[a] = lo;
            out[a] = (at(g, f, ph[0], ph[1], ph[2]) - at(g, f, pl[0], pl[1], pl[2])) / float(hi - lo);
        } else {
            // 3D Sobel: central difference along a, smoothed 1-2-1 across the other two axes.
            const int b = (a + 1) % 3, c = (a + 2) % 3;
            const float w[3] = {1.f, 2.f, 1.f};
            float s = 0.f;
            for (int i = -1; i <= 1; ++i)
                for (int j = -1; j <= 1; ++j) {
                    int ph[3] = {x, y, z}, pl[3] = {x, y, z};
                    ph[a] += 1;
                    pl[a] -= 1;
                    ph[b] += i;
                    pl[b] += i;
                    ph[c] += j;
                    pl[c] += j;
                    s += w[i + 1] * w[j + 1] * (at(g, f, ph[0], ph[1], ph[2]) - at(g, f, pl[0], pl[1], pl[2]));
                }
            out[a] = s / 32.f;
        }
    }
}

bool finite(float v) { return std::isfinite(v); }

} // namespace

std::vector<float> sampleField(const Grid& g, const std::function<float(float, float, float)>& f) {
    std::vector<float> out(g.samples());
    for (uint32_t z = 0; z < g.n[2]; ++z)
        for (uint32_t y = 0; y < g.n[1]; ++y)
            for (uint32_t x = 0; x < g.n[0]; ++x)
                out[g.index(x, y, z)] = f(g.coord(0, x), g.coord(1, y), g.coord(2, z));
    return out;
}

float cayley(float x, float y, float z) { return 16.f * x * y * z + 4.f * (x + y + z) - 1.f; }

float sphere(float x, float y, float z, float cx, float cy, float cz, float r) {
    const float dx = x - cx, dy = y - cy, dz = z - cz;
    return r - std::sqrt(dx * dx + dy * dy + dz * dz);
}

float gyroid(float x, float y, float z, float k) {
    return std::sin(k * x) * std::cos(k * y) + std::sin(k * y) * std::cos(k * z) + std::sin(k * z) * std::cos(k * x);
}

std::vector<float> metaballs(const Grid& g, const std::vector<Ball>& balls) {
    return sampleField(g, [&](float x, float y, float z) {
        double sum = 0.0;
        for (const Ball& b : balls) {
            const double dx = x - b.c[0], dy = y - b.c[1], dz = z - b.c[2];
            const double q = (dx * dx + dy * dy + dz * dz) / (double(b.radius) * b.radius);
            if (q < 1.0) sum += b.strength * (1.0 - q) * (1.0 - q) * (1.0 - q);
        }
        return float(sum);
    });
}

std::vector<float> splatBruteForce(const Grid& g, const std::vector<Particle>& particles, float r,
                                   std::vector<uint32_t>* touching) {
    std::vector<float> out(g.samples());
    if (touching) touching->assign(g.samples(), 0);
    for (uint32_t z = 0; z < g.n[2]; ++z)
        for (uint32_t y = 0; y < g.n[1]; ++y)
            for (uint32_t x = 0; x < g.n[0]; ++x) {
                const double px = g.coord(0, x), py = g.coord(1, y), pz = g.coord(2, z);
                double sum = 0.0;
                uint32_t count = 0;
                for (const Particle& p : particles) {
                    const double dx = px - p.p[0], dy = py - p.p[1], dz = pz - p.p[2];
                    const double q = (dx * dx + dy * dy + dz * dz) / (double(r) * r);
                    if (q < 1.0) {
                        sum += p.weight * (1.0 - q) * (1.0 - q) * (1.0 - q);
                        ++count;
                    }
                }
                out[g.index(x, y, z)] = float(sum);
                if (touching) (*touching)[g.index(x, y, z)] = count;
            }
    return out;
}

std::vector<float> noise(size_t count, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<float> out(count);
    for (float& v : out) v = float(rng() >> 8) * (1.0f / 16777216.0f);
    return out;
}

McResult marchingCubes(const Grid& g, const float* field, float iso, Normals normals) {
    McResult r;
    const uint32_t cx = g.n[0] - 1, cy = g.n[1] - 1, cz = g.n[2] - 1;
    r.base.resize(size_t(cx) * cy * cz);
    const float h[3] = {g.spacing(0), g.spacing(1), g.spacing(2)};
    uint32_t cell = 0;
    for (uint32_t z = 0; z < cz; ++z)
        for (uint32_t y = 0; y < cy; ++y)
            for (uint32_t x = 0; x < cx; ++x, ++cell) {
                float v[8];
                uint32_t mcCase = 0;
                for (int c = 0; c < 8; ++c) {
                    const int* o = iso::mc::kCornerOffset[c];
                    v[c] = sanitize(field[g.index(x + o[0], y + o[1], z + o[2])]);
                    if (v[c] >= iso) mcCase |= 1u << c;
                }
                const int count = iso::mc::vertexCount(mcCase);
                r.base[cell] = uint32_t(count) | (mcCase << 4);
                if (count == 0) continue;
                ++r.activeCells;
                for (int j = 0; j < count; ++j) {
                    const int e = iso::mc::triangleEdge(mcCase, j);
                    const int a = iso::mc::kEdgeCorners[e][0], b = iso::mc::kEdgeCorners[e][1];
                    const int* oa = iso::mc::kCornerOffset[a];
                    const int* ob = iso::mc::kCornerOffset[b];
                    float t = (iso - v[a]) / (v[b] - v[a]);
                    if (!finite(t)) t = 0.5f;
                    Vertex out{};
                    const uint32_t pa[3] = {x + oa[0], y + oa[1], z + oa[2]};
                    const uint32_t pb[3] = {x + ob[0], y + ob[1], z + ob[2]};
                    float ga[3], gb[3];
                    gradient(g, field, int(pa[0]), int(pa[1]), int(pa[2]), normals, ga);
                    gradient(g, field, int(pb[0]), int(pb[1]), int(pb[2]), normals, gb);
                    float n[3];
                    for (int k = 0; k < 3; ++k) {
                        const float fa = float(pa[k]), fb = float(pb[k]);
                        const float gc = fa + t * (fb - fa);
                        out.p[k] = g.min[k] + gc * h[k];
                        const float da = ga[k] / h[k], db = gb[k] / h[k];
                        n[k] = da + t * (db - da);
                    }
                    const float len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
                    if (normals != Normals::None && finite(len) && len > 0.f)
                        for (int k = 0; k < 3; ++k) out.n[k] = -n[k] / len;
                    out.cellTriangles = float(count / 3);
                    r.vertices.push_back(out);
                    r.vertexCell.push_back(cell);
                }
            }
    return r;
}

std::vector<std::vector<uint32_t>> pyramidLevels(const std::vector<uint32_t>& base) {
    std::vector<std::vector<uint32_t>> levels;
    std::vector<uint32_t> cur(base.size());
    for (size_t i = 0; i < base.size(); ++i) cur[i] = base[i] & 0xFu;
    levels.push_back(cur);
    while (levels.back().size() > 1) {
        const auto& prev = levels.back();
        std::vector<uint32_t> next((prev.size() + 3) / 4, 0);
        for (size_t i = 0; i < prev.size(); ++i) next[i / 4] += prev[i];
        levels.push_back(std::move(next));
    }
    return levels;
}

float positionTolerance(const Grid& g) {
    float spacing = g.spacing(0), magnitude = 0.f;
    for (int a = 0; a < 3; ++a) {
        spacing = std::min(spacing, g.spacing(a));
        magnitude = std::max({magnitude, std::fabs(g.min[a]), std::fabs(g.max[a])});
    }
    return 1e-5f * spacing + 4.f * std::numeric_limits<float>::epsilon() * magnitude;
}

std::string compareTriangleSets(const std::vector<Vertex>& a, const std::vector<Vertex>& b, float tol,
                                float normalTol) {
    std::ostringstream msg;
    if (a.size() % 3 || b.size() % 3) {
        msg << "vertex counts not multiples of 3: " << a.size() << " vs " << b.size();
        return msg.str();
    }
    if (a.size() != b.size()) {
        msg << "triangle count differs: " << a.size() / 3 << " vs " << b.size() / 3;
        return msg.str();
    }
    const size_t n = a.size() / 3;
    auto key = [](const std::vector<Vertex>& v, size_t t) {
        return v[3 * t].p[0] + v[3 * t + 1].p[0] + v[3 * t + 2].p[0];
    };
    std::vector<std::pair<float, size_t>> sb(n);
    for (size_t t = 0; t < n; ++t) sb[t] = {key(b, t), t};
    std::sort(sb.begin(), sb.end());
    std::vector<bool> used(n, false);
    auto close = [&](size_t ta, size_t tb) {
        for (int k = 0; k < 3; ++k)
            for (int c = 0; c < 3; ++c) {
                if (!(std::fabs(a[3 * ta + k].p[c] - b[3 * tb + k].p[c]) <= tol)) return false;
                if (!(std::fabs(a[3 * ta + k].n[c] - b[3 * tb + k].n[c]) <= normalTol)) return false;
            }
        return true;
    };
    for (size_t ta = 0; ta < n; ++ta) {
        const float k = key(a, ta);
        auto it = std::lower_bound(sb.begin(), sb.end(), std::make_pair(k - 3.f * tol, size_t(0)));
        bool found = false;
        for (; it != sb.end() && it->first <= k + 3.f * tol; ++it) {
            if (used[it->second] || !close(ta, it->second)) continue;
            used[it->second] = true;
            found = true;
            break;
        }
        if (!found) {
            const Vertex* v = &a[3 * ta];
            msg << "triangle " << ta << " of " << n << " has no match: (" << v[0].p[0] << "," << v[0].p[1] << ","
                << v[0].p[2] << ") (" << v[1].p[0] << "," << v[1].p[1] << "," << v[1].p[2] << ") (" << v[2].p[0] << ","
                << v[2].p[1] << "," << v[2].p[2] << ") n0=(" << v[0].n[0] << "," << v[0].n[1] << "," << v[0].n[2]
                << ")";
            return msg.str();
        }
    }
    return {};
}

Welded weld(const std::vector<Vertex>& v) {
    Welded w;
    std::map<std::array<float, 3>, uint32_t> ids;
    w.indices.reserve(v.size());
    for (const Vertex& x : v) {
        auto [it, inserted] = ids.try_emplace({x.p[0], x.p[1], x.p[2]}, uint32_t(ids.size()));
        w.indices.push_back(it->second);
    }
    w.uniqueVertices = ids.size();
    return w;
}

size_t openEdges(const std::vector<Vertex>& v, size_t* misoriented) {
    const Welded w = weld(v);
    std::unordered_map<uint64_t, int> directed;
    std::unordered_map<uint64_t, int> undirected;
    for (size_t t = 0; t + 2 < w.indices.size(); t += 3) {
        const uint32_t i[3] = {w.indices[t], w.indices[t + 1], w.indices[t + 2]};
        if (i[0] == i[1] || i[1] == i[2] || i[0] == i[2]) continue; // degenerate: no area, no edges
        for (int k = 0; k < 3; ++k) {
            const uint32_t a = i[k], b = i[(k + 1) % 3];
            directed[(uint64_t(a) << 32) | b]++;
            undirected[(uint64_t(std::min(a, b)) << 32) | std::max(a, b)]++;
        }
    }
    size_t open = 0;
    for (const auto& [e, c] : undirected)
        if (c != 2) ++open;
    if (misoriented) {
        *misoriented = 0;
        for (const auto& [e, c] : directed)
            if (c > 1) ++*misoriented;
    }
    return open;
}

} // namespace pyramarch::ref
