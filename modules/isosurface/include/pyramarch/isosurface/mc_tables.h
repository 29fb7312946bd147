// Marching cubes tables: the single source of truth. The GPU gets a packed
// copy of these at creation (IsoTables in shaders/isosurface/iso_shared.h);
// the CPU reference in tests/reference uses them directly.
//
// Conventions (shared by GPU, CPU reference, tools):
// - Corner c of cell (x,y,z) is sample (x,y,z) + kCornerOffset[c].
// - Case bit c is set when corner c is *inside*: sample >= iso ("inside is
//   greater"). A NaN sample is treated as -infinity (outside).
// - Vertex j of a case lies on edge triangleEdge(case, j); triangles are
//   wound counter-clockwise seen from outside, i.e. the face normal
//   cross(v1 - v0, v2 - v0) points where the field decreases.
#pragma once

#include <cstdint>

namespace pyramarch::iso::mc {

inline constexpr int kCornerOffset[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                            {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};

// Endpoints of each edge, the corner with the smaller coordinate first: two
// cells sharing an edge then interpolate it in the same direction and get
// bit-identical vertices, which is what makes welding exact.
inline constexpr int kEdgeCorners[12][2] = {{0, 1}, {1, 2}, {3, 2}, {0, 3}, {4, 5}, {5, 6},
                                            {7, 6}, {4, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};

// Classic table (Lorensen/Cline cases as tabulated by Bourke, public domain):
// edges of each triangle of a case, -1 terminated, in table order.
extern const int8_t kTriTable[256][16];

// Number of vertices (3 x triangles) of each case, 0..15.
int vertexCount(uint32_t mcCase);

// Edge of output vertex j (0 <= j < vertexCount) of a case, with the
// project's winding applied.
int triangleEdge(uint32_t mcCase, int j);

// Bits of the edges a case cuts (an edge is cut when its corners differ).
uint32_t cutEdges(uint32_t mcCase);

} // namespace pyramarch::iso::mc
