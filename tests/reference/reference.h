// CPU reference for the isosurface module: plain marching cubes with the
// module's tables and exactly its conventions (see mc_tables.h), analytic
// fields, brute-force particle splat, triangle-set comparison, welding and
// watertightness. Used only by tests and benchmarks.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace pyramarch::ref {

// N samples per axis spanning [min, max] inclusively; sample i sits at
// min + i * spacing with spacing = (max - min) / (N - 1); x fastest.
struct Grid {
    uint32_t n[3] = {2, 2, 2};
    float min[3] = {-1, -1, -1};
    float max[3] = {1, 1, 1};
    float spacing(int axis) const { return (max[axis] - min[axis]) / float(n[axis] - 1); }
    float coord(int axis, uint32_t i) const { return min[axis] + float(i) * spacing(axis); }
    size_t samples() const { return size_t(n[0]) * n[1] * n[2]; }
    size_t cells() const { return size_t(n[0] - 1) * (n[1] - 1) * (n[2] - 1); }
    size_t index(uint32_t x, uint32_t y, uint32_t z) const { return x + size_t(n[0]) * (y + size_t(n[1]) * z); }
};

enum class Normals { Forward = 0, Central = 1, Sobel = 2, None = 3 }; // None: zero normals

struct Vertex {
    float p[3];
    float n[3];
    float cellTriangles; // triangles of the cell the vertex belongs to
};

struct McResult {
    std::vector<Vertex> vertices;     // 3 per triangle, in key order
    std::vector<uint32_t> base;       // per cell: count | case << 4 (GPU base level)
    std::vector<uint32_t> vertexCell; // cell of each vertex
    uint32_t activeCells = 0;
};

// Samples f(x, y, z) at every grid point (x fastest).
std::vector<float> sampleField(const Grid& g, const std::function<float(float, float, float)>& f);

// The paper's Cayley surface f = 16xyz + 4(x + y + z) - 1 (iso 0 over [-1,1]^3).
float cayley(float x, float y, float z);
// r - |p - c|: positive inside a sphere of radius r.
float sphere(float x, float y, float z, float cx, float cy, float cz, float r);
// Gyroid sin(kx)cos(ky) + sin(ky)cos(kz) + sin(kz)cos(kx).
float gyroid(float x, float y, float z, float k);

struct Ball {
    float c[3];
    float radius;
    float strength;
};
// Metaball falloff (Wyvill-like, compact): s * (1 - d^2/R^2)^3 for d < R.
std::vector<float> metaballs(const Grid& g, const std::vector<Ball>& balls);

struct Particle {
    float p[3];
    float weight;
};
// Brute force O(samples x particles) splat with the same kernel as metaballs
// (radius r, strength = weight). Also returns, per sample, how many particles
// touched it (for the fixed-point tolerance of the GPU splat).
std::vector<float> splatBruteForce(const Grid& g, const std::vector<Particle>& particles, float r,
                                   std::vector<uint32_t>* touching = nullptr);

// Deterministic noise in [0, 1) per sample from a seed (portable generator).
std::vector<float> noise(size_t count, uint32_t seed);

// Marching cubes over `field` (g.samples() values) at `iso`.
McResult marchingCubes(const Grid& g, const float* field, float iso, Normals normals);

// Pyramid levels (counts only) as the GPU lays them out: level 0 = per-cell
// vertex counts, level k+1 element i = sum of level k elements 4i..4i+3.
std::vector<std::vector<uint32_t>> pyramidLevels(const std::vector<uint32_t>& base);

// How far a GPU vertex may be from the CPU's: 1e-5 of the smallest spacing
// (the interpolation), plus 4 ulps of the largest coordinate, since GLSL
// allows 2.5 ulp for a division and the final add rounds at the magnitude of
// the coordinate, not of the spacing (bounds far from the origin: an NVIDIA
// driver differs from the CPU by 1 ulp there where lavapipe does not).
float positionTolerance(const Grid& g);

// Compares two triangle soups as sets of triangles: same count, and every
// triangle of `a` matches a distinct triangle of `b` (same vertex order)
// with positions within `tol` and normals within `normalTol`. Returns an
// empty string when equal, otherwise a description of the first mismatch.
std::string compareTriangleSets(const std::vector<Vertex>& a, const std::vector<Vertex>& b, float tol, float normalTol);

// Welds exactly equal positions; returns indices (3 per triangle) and unique
// positions count.
struct Welded {
    std::vector<uint32_t> indices;
    size_t uniqueVertices = 0;
};
Welded weld(const std::vector<Vertex>& v);

// Number of undirected edges (of non-degenerate triangles after welding)
// not shared by exactly two triangles; 0 means watertight. Also counts
// edges used twice in the same direction (inconsistent winding) in
// `*misoriented` when given.
size_t openEdges(const std::vector<Vertex>& v, size_t* misoriented = nullptr);

} // namespace pyramarch::ref
