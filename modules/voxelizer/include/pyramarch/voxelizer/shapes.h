// Procedural meshes for tests, the CLI and samples. Closed shapes are
// watertight (shared, indexed vertices) so a conservative voxelization of
// them must separate inside from outside.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pyramarch/voxelizer/mesh.h"

namespace pyramarch::voxel::shapes {

// Per-vertex colour from the vertex position (a smooth RGB gradient over the
// mesh bounds), for tests and displays of colour merging.
void colorByPosition(TriangleMesh& mesh);
// Every vertex the same colour.
void colorUniform(TriangleMesh& mesh, uint32_t rgba8);

// Closed UV sphere.
TriangleMesh sphere(std::array<float, 3> center, float radius, uint32_t segments = 48, uint32_t rings = 24);
// Closed torus around the z axis.
TriangleMesh torus(std::array<float, 3> center, float majorRadius, float minorRadius, uint32_t majorSegments = 64,
                   uint32_t minorSegments = 24);
// Closed tube of radius `tube` around the (p,q) torus knot of radius `radius`.
TriangleMesh torusKnot(std::array<float, 3> center, float radius, float tube, uint32_t p = 2, uint32_t q = 3,
                       uint32_t segments = 256, uint32_t tubeSegments = 16);
// Closed axis-aligned box (12 triangles).
TriangleMesh box(std::array<float, 3> minCorner, std::array<float, 3> maxCorner);
// Closed prism whose side walls are at 45 degrees (|nx| = |ny|, ties of the
// dominant axis): cross-section |x - cx| + |y - cy| <= halfWidth, z in [z0, z1].
TriangleMesh diamondPrism(std::array<float, 3> center, float halfWidth, float z0, float z1);
// One triangle.
TriangleMesh triangle(std::array<float, 3> a, std::array<float, 3> b, std::array<float, 3> c);
// `count` triangles of edge length about `size`, scattered in [lo, hi]^3 (deterministic).
TriangleMesh tinyTriangles(std::array<float, 3> lo, std::array<float, 3> hi, float size, uint32_t count,
                           uint32_t seed = 1);
// Long thin triangles (width `width`, length about hi - lo), deterministic.
TriangleMesh slivers(std::array<float, 3> lo, std::array<float, 3> hi, float width, uint32_t count, uint32_t seed = 2);
// Zero-area triangles: collinear vertices, two equal vertices, three equal vertices.
TriangleMesh degenerateTriangles(std::array<float, 3> lo, std::array<float, 3> hi, uint32_t count, uint32_t seed = 3);
// A closed box whose faces appear twice, plus three fins sharing one edge (non-manifold).
TriangleMesh nonManifold(std::array<float, 3> minCorner, std::array<float, 3> maxCorner);
// About `targetTriangles` triangles: a finely tessellated torus knot (closed).
TriangleMesh denseKnot(std::array<float, 3> center, float radius, uint32_t targetTriangles);

// Appends `b` to `a` (indices rebased; attributes kept when both or neither have them).
void append(TriangleMesh& a, const TriangleMesh& b);

// Named shapes for tools: "sphere", "torus", "knot", "box", "diamond", fitted in [-1,1]^3.
// Returns an empty mesh for an unknown name.
TriangleMesh byName(const std::string& name);

} // namespace pyramarch::voxel::shapes
