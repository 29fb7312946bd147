#version 460
#extension GL_EXT_control_flow_attributes : require
#ifndef ISO_STORAGE_READS
#define ISO_TEXEL_READS
#endif
// Sparse domain, pass <name>.extract: extract.comp over the pool pyramid.
// The walk ends at a pool cell (slot * 16 + i); the slot's record names the
// listed brick and the row pair, the brick list its coordinates, so cell i
// of the pair is brick * 8 + (i & 7, 2 * (pair & 3) + i / 8, pair / 4) of
// the virtual grid, and the vertex comes from field() there (mc_vertex.glsl,
// the same code and samples as the dense fused extraction).
// Fused only (ISO_USER_FIELD): compiled at creation with the snippet, or by
// the build for metaballs (ISO_SPARSE_METABALLS: the field sums the balls of
// the cell's brick, sparse_metaball_field.glsl) and volumes and particles
// (ISO_SPARSE_VOLUME: the resident bricks' samples, or the blocks
// sparse_particles_blocks.comp filled this frame, sparse_volume_field.glsl).
// A grid that fits (ISO_DIRECT_BRICKS, sparse_classify.comp): pool slot
// 32 i + p is brick i's pair p, no record; the field is the source's field
// buffer (ISO_DENSE_FIELD: mc_vertex.glsl reads it as extract.comp does) or,
// fused, the user's field().
#if defined(ISO_SPARSE_METABALLS) || defined(ISO_SPARSE_VOLUME)
#define ISO_USER_FIELD
#endif
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std140) uniform TablesBuf { IsoTables tables; };
#if defined(ISO_SPARSE_METABALLS)
#include "isosurface/sparse_metaball_field.glsl" // the brick's balls at bindings 7 and 8
#elif defined(ISO_SPARSE_VOLUME)
#include "isosurface/sparse_volume_field.glsl" // the resident bricks at binding 7, their table at 8
#elif defined(ISO_DENSE_FIELD)
#include "isosurface/dense_field.glsl" // the field buffer at binding 2
#else
#include "isosurface/user_field.glsl"
void isoSparseUseBrick(uint listedBrick) {}
#endif
#ifdef ISO_TEXEL_READS
layout(set = 0, binding = 3) uniform usamplerBuffer pyramidTexels;
#else
layout(set = 0, binding = 3, std430) readonly buffer PyramidBuf { uint pyramid[]; };
layout(set = 0, binding = 3, std430) readonly buffer PyramidQuadBuf { uvec4 pyramidQuads[]; };
#define ISO_PYRAMID_QUADS
#endif
// The vertex buffer: slice 0 at binding 4, slices 1.. at 12.. (after the
// sparse volume pool's 7-11; output_slices.glsl).
#define ISO_VERTEX_SLICES 4
#define ISO_VERTEX_SLICES_NEXT 12
#define ISO_VERTEX_WRITE
#include "isosurface/output_slices.glsl"
#ifndef ISO_DIRECT_BRICKS
layout(set = 0, binding = 5, std430) readonly buffer BrickListBuf { uint bricks[]; };
#ifdef ISO_SPARSE_VOLUME
uint isoListedEntry(uint listedBrick) { return bricks[listedBrick]; }
#endif
layout(set = 0, binding = 6, std430) readonly buffer SlotBuf { uint slotRecords[]; };
#endif

#include "isosurface/mc_vertex.glsl"
#include "isosurface/pyramid_find.glsl"

// Virtual-grid coordinates of pool cell `cell`; its brick's balls for field().
ivec3 sparseCell(uint cell) {
#ifdef ISO_DIRECT_BRICKS
    const uint record = cell / kIsoClassifyCells; // brick << 5 | pair
    const uint pair = record & 31u;
    const uvec3 b = isoBrickOf(record >> 5, grid.sparse, grid.brickDivisors);
#else
    const uint record = slotRecords[cell / kIsoClassifyCells];
    isoSparseUseBrick(record >> 5);
#ifdef ISO_SPARSE_METABALLS
    isoCacheBrickBalls();
#endif
    const uint pair = record & 31u, packed = bricks[record >> 5];
    const uint mask = (1u << kIsoBrickAxisBits) - 1u;
    const uvec3 b = uvec3(packed & mask, (packed >> kIsoBrickAxisBits) & mask, packed >> (2 * kIsoBrickAxisBits));
#endif
    const uint i = cell % kIsoClassifyCells;
    return ivec3(b * kIsoBrickCells + uvec3(i & 7u, (pair & 3u) * 2u + (i >> 3), pair >> 2));
}

void main() {
    isoBeginUserFrame();
    mcVertexInit();
    const uint first = (linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex) * kIsoExtractTriangles;
    const uint triangles = min(pyramidTotal(), grid.vertexCapacity) / 3;
    if (first >= triangles) return;
    const bool second = first + 1u < triangles;
    uvec2 keys = uvec2(first * 3u, second ? first * 3u + 3u : first * 3u);
    uvec2 cases;
    const uvec2 cells = pyramidFind2WithCases(keys, cases);
    for (uint t = 0; t < kIsoExtractTriangles; ++t) {
        const uint cell = t == 0u ? cells.x : cells.y;
        const uint key = t == 0u ? keys.x : keys.y;
        const uint mcCase = ((t == 0u ? cases.x : cases.y) >> (8u * (cell & 3u))) & 0xffu;
        const uint count = isoCaseCount(mcCase);
        const ivec3 c = sparseCell(cell);
        const uvec2 edges = tables.cases[mcCase].xy;
        const uint outIndex = (t == 0u || !second ? first : first + 1u) * 3u;
        for (uint v = 0; v < 3; ++v) {
            const IsoVertex vertex = mcVertexOf(c, edges, count, key + v);
            isoStoreVertexPosition(outIndex + v, vertex.position);
            if (kNormalMode != kIsoNormalNone) isoStoreVertexNormal(outIndex + v, vertex.normal);
        }
    }
}
