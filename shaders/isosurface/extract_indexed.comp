#version 460
#ifndef ISO_STORAGE_READS
#define ISO_TEXEL_READS
#endif
// Indexed output (shared vertices), indirect dispatch, one thread per
// TRIANGLE of the cell pyramid (the same keys as the non-indexed extract):
// walk to the cell, then for each of its three edges find the vertex index:
// the edge's owner cell (vertex_owner.glsl) -> the first vertex of the
// owner's run (vertex_bases.comp) + the vertex sums of the quads of 4 cells
// before the owner in its run (one word of the vertex pyramid's level 0) +
// the owned cut edges of the cells before it in its quad (from their MC
// cases) + the edge's rank among the owner's vertices; shared_vertices.comp
// writes the vertex there, once. Indices are written only when every vertex
// fits the vertex buffer (else they could name vertices that were never
// written), within the index capacity (whole triangles).
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std140) uniform TablesBuf { IsoTables tables; };
layout(set = 0, binding = 3, std140) uniform VertexGridBuf { IsoGrid vertexGrid; };
// The cell pyramid, the vertex pyramid's words and the runs' first vertices:
// texel buffers where the device's maxTexelBufferElements covers them (see
// extract.comp), else storage buffers (the extract_indexed.storage variant).
#ifdef ISO_TEXEL_READS
layout(set = 0, binding = 2) uniform usamplerBuffer pyramidTexels;       // RGBA32_UINT quads
layout(set = 0, binding = 4) uniform usamplerBuffer vertexPyramidTexels; // R32_UINT
layout(set = 0, binding = 5) uniform usamplerBuffer runBaseTexels;       // R32_UINT
uint vertexWordAt(uint w) { return texelFetch(vertexPyramidTexels, int(w)).x; }
uint runBaseAt(uint run) { return texelFetch(runBaseTexels, int(run)).x; }
#else
layout(set = 0, binding = 2, std430) readonly buffer PyramidBuf { uint pyramid[]; };
layout(set = 0, binding = 2, std430) readonly buffer PyramidQuadBuf { uvec4 pyramidQuads[]; };
#define ISO_PYRAMID_QUADS
layout(set = 0, binding = 4, std430) readonly buffer VertexPyramidBuf { uint vertexPyramid[]; };
layout(set = 0, binding = 5, std430) readonly buffer RunBaseBuf { uint runBase[]; };
uint vertexWordAt(uint w) { return vertexPyramid[w]; }
uint runBaseAt(uint run) { return runBase[run]; }
#endif
// The index buffer: slice 0 at binding 6, slices 1.. at 7.. (output_slices.glsl).
#define ISO_INDEX_SLICES 6
#define ISO_INDEX_SLICES_NEXT 7
#define ISO_INDEX_WRITE
#include "isosurface/output_slices.glsl"

#include "isosurface/cell_edge.glsl"
#include "isosurface/pyramid_find.glsl"
#include "isosurface/vertex_owner.glsl"

uint vertexTotal() {
    const uint top = vertexGrid.levelCount - 1u;
    const uint w = vertexWordAt(vertexGrid.levels[top].x);
    return top == 0u ? w & 0xffu : w; // level 0 is u8 (one word for the whole grid then)
}

// The cell before p in linear order (x fastest), with wrap-around.
ivec3 previousCell(ivec3 p) {
    const ivec3 last = ivec3(grid.cells.xyz) - 1;
    if (p.x > 0) return ivec3(p.x - 1, p.y, p.z);
    return p.y > 0 ? ivec3(last.x, p.y - 1, p.z) : ivec3(last.x, last.y, p.z - 1);
}

// Index of the first vertex `cell` (at coordinates oc) owns: the vertices of
// the cells before it. `caseWord`: the level-0 word holding its MC case.
uint ownedVertexPrefix(uint cell, ivec3 oc, uint caseWord) {
    const uint run = cell >> 4;
    uint prefix = runBaseAt(run);
    // The quads of 4 cells before the cell's quad in its run: byte sums (each <= 48, three < 256).
    const uint q = (cell >> 2) & 3u;
    const uint quadSums = q == 0u ? 0u : vertexWordAt(vertexGrid.levels[0].x + run) & ((1u << (8u * q)) - 1u);
    prefix += (quadSums * 0x01010101u) >> 24;
    // The cells before it in its quad (their cases share the cell's word), walking back.
    ivec3 p = oc;
    for (uint k = cell & 3u; k > 0u; --k) {
        p = previousCell(p);
        prefix += isoOwnedVertexCount(isoCornerBitsByCode((caseWord >> (8u * (k - 1u))) & 0xffu), isoBoundaryBits(p));
    }
    return prefix;
}

void main() {
    const uint triangle = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    const uint keys = pyramidTotal();
    if (triangle >= keys / 3u) return;
    const uint total = vertexTotal();
    const bool writeIndices = total <= grid.vertexCapacity && triangle < grid.indexCapacity / 3u;
    uint key = triangle * 3u;
    uint cellWord; // the found cell's level-0 word, from the walk
    const uint cell = pyramidFindWithCases(key, cellWord);
    const ivec3 c = cellCoord(cell);
    const uint mcCase = (cellWord >> (8u * (cell & 3u))) & 0xffu;
    const uint boundary = isoBoundaryBits(c);
    const uvec2 edges = tables.cases[mcCase].xy;
    const uint cx = grid.cells.x, cxy = grid.cells.x * grid.cells.y;
    uvec3 index;
    for (uint v = 0u; v < 3u; ++v) {
        const uint local = key + v;
        const uint edge = ((local < 8u ? edges.x : edges.y) >> (4u * (local & 7u))) & 0xfu;
        const uint word = edge < 4u ? kIsoEdgeCodes0 : edge < 8u ? kIsoEdgeCodes1 : kIsoEdgeCodes2;
        const uint codes = (word >> (8u * (edge & 3u))) & 0xffu;
        const uint start = codes & 7u, axis = findLSB(start ^ ((codes >> 4) & 7u));
        // The owner: one cell further along each axis the start corner is
        // offset on, unless this cell is the last along it.
        const uint shift = start & ~boundary;
        const uint owner = cell + (shift & 1u) + ((shift >> 1) & 1u) * cx + ((shift >> 2) & 1u) * cxy;
        const ivec3 oc = c + ivec3(shift & 1u, (shift >> 1) & 1u, (shift >> 2) & 1u);
        const uint ownerWord = shift == 0u ? cellWord : pyramidWordAt(grid.levels[0].x + (owner >> 2));
        const uint ownerCase = (ownerWord >> (8u * (owner & 3u))) & 0xffu;
        const uint ownerBoundary = isoBoundaryBits(oc);
        index[v] = ownedVertexPrefix(owner, oc, ownerWord) +
                   isoOwnedVertexRank(isoCornerBitsByCode(ownerCase), ownerBoundary, axis, start & boundary);
    }
    if (writeIndices) {
        isoStoreIndex(triangle * 3u, index.x);
        isoStoreIndex(triangle * 3u + 1u, index.y);
        isoStoreIndex(triangle * 3u + 2u, index.z);
    }
}
