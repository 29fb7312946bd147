#include "voxel_reference.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <numeric>
#include <random>

namespace pyramarch::voxel::ref {
namespace {

struct D3 {
    double x, y, z;
};
D3 sub(D3 a, D3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
D3 cross(D3 a, D3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
double dot(D3 a, D3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

// True when `axis` separates the box-centred triangle from the box of half size 1/2.
bool separates(D3 axis, const D3 t[3], Overlap mode) {
    if (axis.x == 0.0 && axis.y == 0.0 && axis.z == 0.0) return false;
    const double p0 = dot(axis, t[0]), p1 = dot(axis, t[1]), p2 = dot(axis, t[2]);
    const double lo = std::min({p0, p1, p2}), hi = std::max({p0, p1, p2});
    const double r = 0.5 * (std::fabs(axis.x) + std::fabs(axis.y) + std::fabs(axis.z));
    if (mode == Overlap::Closed) return lo > r || hi < -r;
    return lo >= r || hi <= -r;
}

} // namespace

bool triangleOverlapsVoxel(const std::array<float, 3> v[3], int x, int y, int z, Overlap mode) {
    const Vec3d d[3] = {{v[0][0], v[0][1], v[0][2]}, {v[1][0], v[1][1], v[1][2]}, {v[2][0], v[2][1], v[2][2]}};
    return triangleOverlapsVoxel(d, x, y, z, mode);
}

bool triangleOverlapsVoxel(const Vec3d v[3], int x, int y, int z, Overlap mode) {
    // Centre at the voxel centre. Grid coordinates are hi + lo splits below
    // 2^11 (48 significant bits, the lowest 2^-38) and the corner is an
    // integer, so these differences are exact in double.
    D3 t[3];
    for (int i = 0; i < 3; ++i)
        t[i] = {double(v[i][0]) - (x + 0.5), double(v[i][1]) - (y + 0.5), double(v[i][2]) - (z + 0.5)};
    const D3 e[3] = {sub(t[1], t[0]), sub(t[2], t[1]), sub(t[0], t[2])};
    const D3 axes[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (const D3& a : axes)
        if (separates(a, t, mode)) return false;
    if (separates(cross(e[0], e[1]), t, mode)) return false;
    for (const D3& ed : e)
        for (const D3& a : axes)
            if (separates(cross(ed, a), t, mode)) return false;
    return true;
}

void forEachBoxVoxel(const Vec3d v[3], const VoxelGrid& grid, const std::function<void(int, int, int)>& fn) {
    int lo[3], hi[3];
    for (int a = 0; a < 3; ++a) {
        const double mn = std::min({double(v[0][a]), double(v[1][a]), double(v[2][a])});
        const double mx = std::max({double(v[0][a]), double(v[1][a]), double(v[2][a])});
        // Voxel i spans [i, i+1]: a coordinate equal to i touches voxels i-1 and i.
        lo[a] = int(std::max(0.0, std::ceil(mn) - 1.0));
        hi[a] = int(std::min(double(grid.dims[a]) - 1.0, std::floor(mx)));
        if (mx < 0.0 || mn > double(grid.dims[a]) || lo[a] > hi[a]) return;
    }
    for (int z = lo[2]; z <= hi[2]; ++z)
        for (int y = lo[1]; y <= hi[1]; ++y)
            for (int x = lo[0]; x <= hi[0]; ++x) fn(x, y, z);
}

bool gridTriangle(const TriangleMesh& mesh, const VoxelGrid& grid, size_t tri, Vec3d out[3]) {
    for (int c = 0; c < 3; ++c) {
        const SplitVertex s = toGridSpaceSplit(mesh.positions[mesh.indices[3 * tri + c]], grid);
        if (!isFinite(s.hi)) return false;
        for (int a = 0; a < 3; ++a) out[c][a] = double(s.hi[a]) + double(s.lo[a]);
    }
    return true;
}

TriangleMesh shuffledTriangles(const TriangleMesh& mesh, uint32_t seed) {
    std::vector<uint32_t> perm(mesh.triangleCount());
    std::iota(perm.begin(), perm.end(), 0u);
    std::shuffle(perm.begin(), perm.end(), std::mt19937(seed));
    TriangleMesh shuffled = mesh;
    for (size_t t = 0; t < perm.size(); ++t)
        std::copy_n(&mesh.indices[3 * size_t(perm[t])], 3, &shuffled.indices[3 * t]);
    return shuffled;
}

std::vector<uint32_t> voxelize(const TriangleMesh& mesh, const VoxelGrid& grid, Overlap mode) {
    std::vector<uint32_t> keys;
    for (size_t t = 0; t < mesh.triangleCount(); ++t) {
        Vec3d v[3];
        if (!gridTriangle(mesh, grid, t, v)) continue;
        forEachBoxVoxel(v, grid, [&](int x, int y, int z) {
            if (triangleOverlapsVoxel(v, x, y, z, mode)) keys.push_back(key(x, y, z));
        });
    }
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    return keys;
}

namespace {

// Edge function of edge a -> b at p in the yz plane (y = [1], z = [2]),
// endpoints in canonical order so the reverse edge gives exactly -w.
double edgeFunction(const Vec3d& a, const Vec3d& b, double py, double pz) {
    const bool swap = a[1] > b[1] || (a[1] == b[1] && a[2] > b[2]);
    const Vec3d& s = swap ? b : a;
    const Vec3d& t = swap ? a : b;
    const double w = (t[1] - s[1]) * (pz - s[2]) - (t[2] - s[2]) * (py - s[1]);
    return swap ? -w : w;
}

} // namespace

bool columnCrossing(const Vec3d v[3], int y, int z, int dimsX, int& firstBehind) {
    const double py = y + 0.5, pz = z + 0.5;
    const double w[3] = {edgeFunction(v[0], v[1], py, pz), edgeFunction(v[1], v[2], py, pz),
                         edgeFunction(v[2], v[0], py, pz)};
    const bool pos = w[0] >= 0.0 && w[1] >= 0.0 && w[2] >= 0.0;
    const bool neg = w[0] <= 0.0 && w[1] <= 0.0 && w[2] <= 0.0;
    if (pos == neg) return false; // outside, or no area in the projection
    const double sgn = pos ? 1.0 : -1.0;
    for (int i = 0; i < 3; ++i) {
        if (w[i] != 0.0) continue;
        const double dy = (v[(i + 1) % 3][1] - v[i][1]) * sgn, dz = (v[(i + 1) % 3][2] - v[i][2]) * sgn;
        if (!(dy > 0.0 || (dy == 0.0 && dz > 0.0))) return false;
    }
    // x_t = num / W; voxel x is behind the crossing when (x + 1/2) W > num
    // (W > 0; reversed for W < 0), no division.
    const double W = (w[0] + w[1]) + w[2];
    const double num = (w[0] * v[2][0] + w[1] * v[0][0]) + w[2] * v[1][0];
    auto behind = [&](int x) {
        const double c = (x + 0.5) * W;
        return W > 0.0 ? c > num : c < num;
    };
    int k = 0;
    while (k < dimsX && !behind(k)) ++k;
    firstBehind = k;
    return true;
}

SolidReference solidInside(const TriangleMesh& mesh, const VoxelGrid& grid) {
    const int nx = int(grid.dims[0]), ny = int(grid.dims[1]), nz = int(grid.dims[2]);
    // Per column, the flips at 0..nx (nx: behind every centre).
    std::vector<uint8_t> flips(size_t(nx + 1) * ny * nz, 0);
    for (size_t t = 0; t < mesh.triangleCount(); ++t) {
        Vec3d v[3];
        if (!gridTriangle(mesh, grid, t, v)) continue;
        const double ylo = std::min({v[0][1], v[1][1], v[2][1]}), yhi = std::max({v[0][1], v[1][1], v[2][1]});
        const double zlo = std::min({v[0][2], v[1][2], v[2][2]}), zhi = std::max({v[0][2], v[1][2], v[2][2]});
        const int y0 = std::max(0, int(std::floor(std::max(ylo, -2.0) - 0.5))),
                  y1 = std::min(ny - 1, int(std::ceil(std::min(yhi, ny + 2.0) - 0.5)));
        const int z0 = std::max(0, int(std::floor(std::max(zlo, -2.0) - 0.5))),
                  z1 = std::min(nz - 1, int(std::ceil(std::min(zhi, nz + 2.0) - 0.5)));
        for (int z = z0; z <= z1; ++z)
            for (int y = y0; y <= y1; ++y) {
                int k = 0;
                if (columnCrossing(v, y, z, nx, k)) flips[(size_t(z) * ny + y) * (nx + 1) + k] ^= 1;
            }
    }
    SolidReference r;
    r.inside.assign(grid.voxelCount(), 0);
    for (int z = 0; z < nz; ++z)
        for (int y = 0; y < ny; ++y) {
            const uint8_t* f = &flips[(size_t(z) * ny + y) * (nx + 1)];
            uint8_t parity = 0;
            for (int x = 0; x <= nx; ++x) parity ^= f[x];
            if (parity) {
                ++r.oddColumns;
                continue;
            }
            for (int x = 0; x < nx; ++x) {
                parity ^= f[x];
                r.inside[(size_t(z) * ny + y) * nx + x] = parity;
            }
        }
    return r;
}

std::vector<uint8_t> floodFillOutside(const std::vector<uint32_t>& sortedKeys, const VoxelGrid& grid) {
    const int nx = int(grid.dims[0]) + 2, ny = int(grid.dims[1]) + 2, nz = int(grid.dims[2]) + 2;
    auto idx = [&](int x, int y, int z) { return (size_t(z) * ny + y) * nx + x; };
    std::vector<uint8_t> state(size_t(nx) * ny * nz, 0); // 0 free, 1 marked, 2 reached
    for (uint32_t k : sortedKeys) {
        const auto c = unkey(k);
        state[idx(int(c[0]) + 1, int(c[1]) + 1, int(c[2]) + 1)] = 1;
    }
    std::vector<size_t> stack{idx(0, 0, 0)};
    state[idx(0, 0, 0)] = 2;
    while (!stack.empty()) {
        const size_t i = stack.back();
        stack.pop_back();
        const int x = int(i % nx), y = int((i / nx) % ny), z = int(i / (size_t(nx) * ny));
        const int d[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
        for (const auto& o : d) {
            const int X = x + o[0], Y = y + o[1], Z = z + o[2];
            if (X < 0 || Y < 0 || Z < 0 || X >= nx || Y >= ny || Z >= nz) continue;
            const size_t j = idx(X, Y, Z);
            if (state[j] == 0) {
                state[j] = 2;
                stack.push_back(j);
            }
        }
    }
    std::vector<uint8_t> reached(grid.voxelCount());
    for (uint32_t z = 0; z < grid.dims[2]; ++z)
        for (uint32_t y = 0; y < grid.dims[1]; ++y)
            for (uint32_t x = 0; x < grid.dims[0]; ++x)
                reached[(size_t(z) * grid.dims[1] + y) * grid.dims[0] + x] = state[idx(x + 1, y + 1, z + 1)] == 2;
    return reached;
}

std::vector<uint32_t> octreeLevelCounts(const std::vector<uint32_t>& sortedKeys, uint32_t depth) {
    std::vector<uint32_t> counts(depth + 1, 0);
    for (uint32_t k = 0; k <= depth; ++k) {
        const uint32_t s = depth - k;
        std::vector<uint32_t> parents;
        parents.reserve(sortedKeys.size());
        for (uint32_t key : sortedKeys) {
            const auto c = unkey(key);
            parents.push_back(ref::key(c[0] >> s, c[1] >> s, c[2] >> s));
        }
        std::sort(parents.begin(), parents.end());
        counts[k] = uint32_t(std::unique(parents.begin(), parents.end()) - parents.begin());
    }
    return counts;
}

uint32_t averageRGB(const std::vector<uint32_t>& colors) {
    if (colors.empty()) return 0;
    uint64_t sum[3] = {0, 0, 0};
    for (uint32_t c : colors)
        for (int ch = 0; ch < 3; ++ch) sum[ch] += (c >> (8 * ch)) & 0xffu;
    const uint64_t n = colors.size();
    uint32_t out[3];
    for (int ch = 0; ch < 3; ++ch) out[ch] = uint32_t((2 * sum[ch] + n) / (2 * n)); // round half up
    return packRGBA8(out[0], out[1], out[2], uint32_t(std::min<uint64_t>(n, 255)));
}

uint32_t triangleColor(const TriangleMesh& mesh, size_t tri) {
    if (mesh.colors.empty()) return packRGBA8(255, 255, 255, 255);
    uint32_t out = 0;
    for (int ch = 0; ch < 4; ++ch) {
        uint32_t s = 0;
        for (int c = 0; c < 3; ++c) s += (mesh.colors[mesh.indices[3 * tri + c]] >> (8 * ch)) & 0xffu;
        out |= ((s + 1) / 3) << (8 * ch);
    }
    return out;
}

} // namespace pyramarch::voxel::ref
