#version 460
#ifndef ISO_STORAGE_READS
#define ISO_TEXEL_READS
#endif
// Indexed output: one thread per shared VERTEX (indirect dispatch over the
// vertices that fit the vertex buffer): key -> top-down walk of the vertex
// pyramid (levels >= 1: 32-bit quads, then level 0's u8 sums of 4 cells)
// -> the cell among the 4 (owned cut edges from their MC cases,
// vertex_owner.glsl) -> the owned edge of that rank -> interpolated
// position and normal, written at the key (the same index extract_indexed
// computes for every use of the edge). A pass of its own, not a branch of
// the per-triangle pass: lavapipe executes a branch's body for the whole
// SIMD batch, and only one use in six computes a vertex.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std140) uniform VertexGridBuf { IsoGrid vertexGrid; };
#ifdef ISO_USER_FIELD
#include "isosurface/user_field.glsl" // fused: no field buffer (binding 2 unused)
#endif
#ifdef ISO_TEXEL_READS
#ifndef ISO_USER_FIELD
layout(set = 0, binding = 2) uniform samplerBuffer fieldTexels;
#endif
layout(set = 0, binding = 3) uniform usamplerBuffer pyramidTexels;      // the cell pyramid's quads (MC cases)
layout(set = 0, binding = 4) uniform usamplerBuffer vertexPyramidTexels; // the vertex pyramid's quads
uvec4 vertexQuadAt(uint q) { return texelFetch(vertexPyramidTexels, int(q)); }
#else
#ifndef ISO_USER_FIELD
layout(set = 0, binding = 2, std430) readonly buffer FieldBuf { float field[]; };
#endif
layout(set = 0, binding = 3, std430) readonly buffer PyramidBuf { uint pyramid[]; };
layout(set = 0, binding = 4, std430) readonly buffer VertexQuadBuf { uvec4 vertexQuads[]; };
uvec4 vertexQuadAt(uint q) { return vertexQuads[q]; }
#endif
// The vertex buffer: slice 0 at binding 5, slices 1.. at 6.. (output_slices.glsl).
#define ISO_VERTEX_SLICES 5
#define ISO_VERTEX_SLICES_NEXT 6
#define ISO_VERTEX_WRITE
#include "isosurface/output_slices.glsl"

#define ISO_NO_TABLES
#include "isosurface/mc_vertex.glsl"
#include "isosurface/pyramid_find.glsl"
#include "isosurface/vertex_owner.glsl"

uint vertexWordAt(uint w) {
    const uvec4 q = vertexQuadAt(w >> 2);
    const uint k = w & 3u;
    return k == 0u ? q.x : k == 1u ? q.y : k == 2u ? q.z : q.w;
}

// Picks the child of `index` whose interval holds `key` among 4 counts.
void descend(uint a, uint b, uint c, inout uint index, inout uint key) {
    const uint ab = a + b, abc = ab + c;
    const bool gA = key >= a, gAB = key >= ab, gABC = key >= abc;
    index = index * 4u + uint(gA) + uint(gAB) + uint(gABC);
    key -= gABC ? abc : gAB ? ab : gA ? a : 0u;
}

void main() {
#ifdef ISO_USER_FIELD
    isoBeginUserFrame();
#endif
    mcVertexInit();
    uint key = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    const uint top = vertexGrid.levelCount - 1u;
    const uint topWord = vertexWordAt(vertexGrid.levels[top].x);
    const uint total = top == 0u ? topWord & 0xffu : topWord;
    if (key >= min(total, grid.vertexCapacity)) return;
    const uint outIndex = key;
    // 32-bit levels (>= 1), top-down: one quad per level.
    uint index = 0u;
    for (int level = int(top) - 1; level >= 1; --level) {
        const uint first = index * 4u, size = vertexGrid.levels[level].y;
        const uvec4 q = vertexQuadAt((vertexGrid.levels[level].x + first) >> 2);
        // Words past a level's end (up to its quad) are never written: masked by the size.
        descend(first < size ? q.x : 0u, first + 1u < size ? q.y : 0u, first + 2u < size ? q.z : 0u, index, key);
    }
    // Level 0: u8 sums of 4 cells, one word per run (bytes past the level's
    // end are 0; a one-level pyramid is that word).
    const uint w = vertexWordAt(vertexGrid.levels[0].x + index);
    descend(w & 0xffu, (w >> 8) & 0xffu, (w >> 16) & 0xffu, index, key);
    // The 4 cells of quad `index`: their owned cut edges from their cases.
    const uint caseWord = pyramidWordAt(grid.levels[0].x + index);
    const uint firstCell = index * 4u;
    ivec3 c = cellCoord(firstCell);
    uint cell = firstCell;
    uint owned = isoCutEdgeStarts(isoCornerBitsByCode(caseWord & 0xffu)) & isoOwnedStarts(isoBoundaryBits(c));
    // Walk forward past the cells whose vertices come before the key (at most 3).
    for (uint k = 1u; k < 4u; ++k) {
        const uint n = bitCount(owned);
        if (key < n) break;
        key -= n;
        ++cell;
        c = c.x + 1 < int(grid.cells.x) ? ivec3(c.x + 1, c.y, c.z)
            : c.y + 1 < int(grid.cells.y) ? ivec3(0, c.y + 1, c.z)
                                          : ivec3(0, 0, c.z + 1);
        owned = isoCutEdgeStarts(isoCornerBitsByCode((caseWord >> (8u * k)) & 0xffu)) & isoOwnedStarts(isoBoundaryBits(c));
    }
    // The owned edge of rank `key`: x edges in bits 0..7, y 8..15, z 16..23, by start code.
    for (uint r = 0u; r < key; ++r) owned &= owned - 1u;
    const uint bit = findLSB(owned);
    const uint axis = bit >> 3, start = bit & 7u;
    const ivec3 pa = c + ivec3(start & 1u, (start >> 1) & 1u, (start >> 2) & 1u);
    const ivec3 pb = pa + ivec3(axis == 0u ? 1 : 0, axis == 1u ? 1 : 0, axis == 2u ? 1 : 0);
    // A shared vertex belongs to up to four cells: no per-cell triangle count.
    isoStoreVertex(outIndex, edgeVertex(pa, pb, 0.0));
}
