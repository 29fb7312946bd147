#include "triangle_tiles.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace pyramarch::voxel {
namespace {

using Point = std::array<double, 3>;

// Slack in voxels on every bound: the corners are hi + lo to 48 bits and
// the clipping rounds at 2^-52 relative; a bound too wide costs tests, one
// too tight a missing voxel.
constexpr double kSlack = 1.0 / 1024.0;

uint32_t pack(int64_t x, int64_t y, int64_t z) { return uint32_t(x) | (uint32_t(y) << 10) | (uint32_t(z) << 20); }

// Sutherland-Hodgman against coordinate[axis] * side <= limit * side (side
// +1: <= limit, -1: >= limit).
int clip(const Point* in, int n, Point* out, int axis, double limit, double side) {
    int m = 0;
    for (int i = 0; i < n; ++i) {
        const Point& p = in[i];
        const Point& q = in[(i + 1) % n];
        const double dp = (p[axis] - limit) * side, dq = (q[axis] - limit) * side;
        if (dp <= 0) out[m++] = p;
        if ((dp < 0 && dq > 0) || (dp > 0 && dq < 0)) {
            const double t = dp / (dp - dq);
            Point r;
            for (int k = 0; k < 3; ++k) r[k] = p[k] + t * (q[k] - p[k]);
            r[axis] = limit; // exactly on the plane
            out[m++] = r;
        }
    }
    return m;
}

} // namespace

bool appendTriangleTiles(const SplitVertex& a, const SplitVertex& b, const SplitVertex& c, uint32_t triangle,
                         const uint32_t (&dims)[3], std::vector<uint32_t>& out, size_t maxWords) {
    if (!isFinite(a.hi) || !isFinite(b.hi) || !isFinite(c.hi)) return true;
    std::array<Point, 3> v;
    for (int k = 0; k < 3; ++k) {
        v[0][k] = double(a.hi[k]) + double(a.lo[k]);
        v[1][k] = double(b.hi[k]) + double(b.lo[k]);
        v[2][k] = double(c.hi[k]) + double(c.lo[k]);
    }
    // The candidate box: voxel i spans [i, i + 1], so a point at x touches
    // voxels ceil(x) - 1 .. floor(x).
    std::array<int64_t, 3> lo{}, hi{};
    for (int k = 0; k < 3; ++k) {
        const double mn = std::min({v[0][k], v[1][k], v[2][k]}), mx = std::max({v[0][k], v[1][k], v[2][k]});
        if (mx < -2.0 || mn > double(dims[k]) + 2.0) return true;
        lo[k] = std::max<int64_t>(int64_t(std::ceil(std::max(mn, -2.0) - kSlack)) - 1, 0);
        hi[k] = std::min<int64_t>(int64_t(std::floor(std::min(mx, double(dims[k]) + 2.0) + kSlack)), dims[k] - 1);
        if (lo[k] > hi[k]) return true;
    }
    // Tiles across the dominant axis of the normal (the projection with the
    // most area, so a tile's depth range is short); a segment or a point
    // looks along the axis it varies least on, as raster.geom does.
    Point e1, e2;
    for (int k = 0; k < 3; ++k) e1[k] = v[1][k] - v[0][k], e2[k] = v[2][k] - v[0][k];
    const Point n = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    int w;
    if (n[0] != 0 || n[1] != 0 || n[2] != 0) {
        const Point an = {std::abs(n[0]), std::abs(n[1]), std::abs(n[2])};
        w = an[0] >= an[1] && an[0] >= an[2] ? 0 : (an[1] >= an[2] ? 1 : 2);
    } else {
        Point ext;
        for (int k = 0; k < 3; ++k) ext[k] = double(hi[k] - lo[k]);
        w = ext[0] <= ext[1] && ext[0] <= ext[2] ? 0 : (ext[1] <= ext[2] ? 1 : 2);
    }
    const int u = (w + 1) % 3, t = (w + 2) % 3;
    const int64_t side = kTileColumns;
    for (int64_t u0 = lo[u] / side * side; u0 <= hi[u]; u0 += side) {
        for (int64_t t0 = lo[t] / side * side; t0 <= hi[t]; t0 += side) {
            // The triangle within the tile's columns: voxels u0 .. u0 + 7
            // span [u0, u0 + 8].
            Point bufA[9], bufB[9];
            int m = 3;
            std::copy(v.begin(), v.end(), bufA);
            m = clip(bufA, m, bufB, u, double(u0) - kSlack, -1);
            m = clip(bufB, m, bufA, u, double(u0 + side) + kSlack, 1);
            m = clip(bufA, m, bufB, t, double(t0) - kSlack, -1);
            m = clip(bufB, m, bufA, t, double(t0 + side) + kSlack, 1);
            if (m == 0) continue;
            double dmin = bufA[0][w], dmax = bufA[0][w];
            for (int i = 1; i < m; ++i) dmin = std::min(dmin, bufA[i][w]), dmax = std::max(dmax, bufA[i][w]);
            const int64_t d0 = std::max<int64_t>(int64_t(std::ceil(dmin - kSlack)) - 1, lo[w]);
            const int64_t d1 = std::min<int64_t>(int64_t(std::floor(dmax + kSlack)), hi[w]);
            std::array<int64_t, 3> bmin{}, bmax{};
            bmin[u] = std::max(u0, lo[u]);
            bmax[u] = std::min(u0 + side - 1, hi[u]);
            bmin[t] = std::max(t0, lo[t]);
            bmax[t] = std::min(t0 + side - 1, hi[t]);
            // Runs of the depth range that start on even voxels (whole 2^3
            // cells) and hold at most kTileDepth voxels.
            for (int64_t r0 = d0; r0 <= d1;) {
                const int64_t r1 = std::min<int64_t>(d1, (r0 & ~int64_t(1)) + kTileDepth - 1);
                if (out.size() + kTileWords > maxWords) return false;
                bmin[w] = r0;
                bmax[w] = r1;
                out.push_back(triangle);
                out.push_back(pack(bmin[0], bmin[1], bmin[2]));
                out.push_back(pack(bmax[0], bmax[1], bmax[2]));
                r0 = r1 + 1;
            }
        }
    }
    return true;
}

} // namespace pyramarch::voxel
