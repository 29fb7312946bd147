#version 460
#extension GL_EXT_control_flow_attributes : require
// Indexed output on a sparse domain, pass <name>.vertices: one thread per
// shared vertex (indirect, the vertices that fit the vertex buffer), as
// shared_vertices.comp with a pool slot for a classify run: key -> top-down
// walk of the vertex pyramid (levels >= 1 to the slot, then its level-0
// word: the quad of 4 cells) -> the cell among the 4 (owned cut edges from
// their MC cases and virtual-grid positions) -> the owned edge of that rank
// -> position and normal from field() at the owner's brick (the same code
// and samples as the dense shared vertices: the same bits), written at the
// key, the index extraction computes for every use of the edge.
// Fused: compiled at creation with the user's snippet, or by the build for
// metaballs (ISO_SPARSE_METABALLS: the field sums the owner brick's balls)
// and volumes and particles (ISO_SPARSE_VOLUME: the owner brick's block of
// samples holds every sample its cells' vertices read; particles fill their
// blocks every frame, sparse_particles_blocks.comp). Pool and vertex pyramid are read as storage buffers
// (ISO_STORAGE_READS only picks how the balls or the volume pool are read).
// A grid that fits (ISO_DIRECT_BRICKS): slot 32 i + p is brick i's pair p
// (no record, no list); the field is the source's field buffer
// (ISO_DENSE_FIELD, dense_field.glsl) or, fused, the user's field().
#if defined(ISO_SPARSE_METABALLS) || defined(ISO_SPARSE_VOLUME)
#define ISO_USER_FIELD
#endif
#if (defined(ISO_SPARSE_METABALLS) || defined(ISO_SPARSE_VOLUME) || defined(ISO_DENSE_FIELD)) && \
    !defined(ISO_STORAGE_READS)
#define ISO_TEXEL_READS // the balls (metaballs.glsl), the volume pool (sparse_volume_field.glsl)
#endif
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std140) uniform VertexGridBuf { IsoGrid vertexGrid; };
#if defined(ISO_SPARSE_METABALLS)
#include "isosurface/sparse_metaball_field.glsl" // the brick's balls at bindings 7 and 8
#elif defined(ISO_SPARSE_VOLUME)
#include "isosurface/sparse_volume_field.glsl" // the pool at 7, 9, 10, 11, the bricks' slots at 8
#elif defined(ISO_DENSE_FIELD)
#include "isosurface/dense_field.glsl" // the field buffer at binding 2
#else
#include "isosurface/user_field.glsl"
void isoSparseUseBrick(uint listedBrick) {}
#endif
#ifndef ISO_DIRECT_BRICKS
layout(set = 0, binding = 2, std430) readonly buffer BrickListBuf { uint bricks[]; };
#ifdef ISO_SPARSE_VOLUME
uint isoListedEntry(uint listedBrick) { return bricks[listedBrick]; }
#endif
#endif
layout(set = 0, binding = 3, std430) readonly buffer PyramidBuf { uint pyramid[]; };
layout(set = 0, binding = 4, std430) readonly buffer VertexPyramidBuf { uint vertexPyramid[]; };
layout(set = 0, binding = 4, std430) readonly buffer VertexQuadBuf { uvec4 vertexQuads[]; };
// The vertex buffer: slice 0 at binding 5, slices 1.. at 12.. (after the
// sparse volume pool's 7-11; output_slices.glsl).
#define ISO_VERTEX_SLICES 5
#define ISO_VERTEX_SLICES_NEXT 12
#define ISO_VERTEX_WRITE
#include "isosurface/output_slices.glsl"
#ifndef ISO_DIRECT_BRICKS
layout(set = 0, binding = 6, std430) readonly buffer SlotBuf { uint slotRecords[]; };
#endif

#define ISO_NO_TABLES
#include "isosurface/mc_vertex.glsl"
#define ISO_SPARSE_NO_LOOKUP // only the pool's coordinates
#include "isosurface/sparse_indexed.glsl"
#include "isosurface/vertex_owner.glsl"

// Picks the child of `index` whose interval holds `key` among 4 counts.
void descend(uint a, uint b, uint c, inout uint index, inout uint key) {
    const uint ab = a + b, abc = ab + c;
    const bool gA = key >= a, gAB = key >= ab, gABC = key >= abc;
    index = index * 4u + uint(gA) + uint(gAB) + uint(gABC);
    key -= gABC ? abc : gAB ? ab : gA ? a : 0u;
}

void main() {
    isoBeginUserFrame();
    mcVertexInit();
    uint key = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    // A pool has at least 4 quads: two levels or more, the top 32-bit.
    const uint top = vertexGrid.levelCount - 1u;
    if (key >= min(vertexPyramid[vertexGrid.levels[top].x], grid.vertexCapacity)) return;
    const uint outIndex = key;
    uint index = 0u;
    for (int level = int(top) - 1; level >= 1; --level) {
        const uint first = index * 4u, size = vertexGrid.levels[level].y;
        const uvec4 q = vertexQuads[(vertexGrid.levels[level].x + first) >> 2];
        descend(first < size ? q.x : 0u, first + 1u < size ? q.y : 0u, first + 2u < size ? q.z : 0u, index, key);
    }
    // index: the slot; its level-0 word: the u8 sums of its 4 quads.
    const uint slot = index;
    const uint w = vertexPyramid[vertexGrid.levels[0].x + slot];
    descend(w & 0xffu, (w >> 8) & 0xffu, (w >> 16) & 0xffu, index, key);
    const uint quad = index & 3u;
    const uint caseWord = pyramid[grid.levels[0].x + index];
#ifdef ISO_DIRECT_BRICKS
    const uint record = slot; // brick << 5 | pair
#else
    const uint record = slotRecords[slot];
#endif
    const uint listed = record >> 5;
    isoSparseUseBrick(listed);
#ifdef ISO_SPARSE_METABALLS
    isoCacheBrickBalls();
#endif
    // The quad's 4 cells are consecutive along x in one row of the pair.
#ifdef ISO_DIRECT_BRICKS
    const uvec3 brick = isoBrickOf(listed, grid.sparse, grid.brickDivisors);
#else
    const uvec3 brick = isoUnpackBrick(bricks[listed]);
#endif
    ivec3 c = ivec3(isoPairOrigin(brick, record & 31u)) +
              ivec3((quad & 1u) * 4u, quad >> 1, 0);
    uint owned = isoCutEdgeStarts(isoCornerBitsByCode(caseWord & 0xffu)) & isoOwnedStarts(isoBoundaryBits(c));
    for (uint k = 1u; k < 4u; ++k) {
        const uint n = bitCount(owned);
        if (key < n) break;
        key -= n;
        c.x += 1;
        owned = isoCutEdgeStarts(isoCornerBitsByCode((caseWord >> (8u * k)) & 0xffu)) &
                isoOwnedStarts(isoBoundaryBits(c));
    }
    for (uint r = 0u; r < key; ++r) owned &= owned - 1u;
    const uint bit = findLSB(owned);
    const uint axis = bit >> 3, start = bit & 7u;
    const ivec3 pa = c + ivec3(start & 1u, (start >> 1) & 1u, (start >> 2) & 1u);
    const ivec3 pb = pa + ivec3(axis == 0u ? 1 : 0, axis == 1u ? 1 : 0, axis == 2u ? 1 : 0);
    // As the dense shared vertices: a vertex belongs to up to four cells, no per-cell triangle count.
    isoStoreVertex(outIndex, edgeVertex(pa, pb, 0.0));
}
