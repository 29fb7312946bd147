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
layout(constant_id = kIsoSpecExtractTriangles) const uint kExtractTriangles = kIsoExtractTriangles;
layout(constant_id = kIsoSpecExtractMinGroups) const uint kExtractMinGroups = kIsoExtractMinGroups;

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

// Non-empty cells of a pair (bit i: cell i has triangles) from its 16 MC
// cases, 4 per word: only cases 0 and 255 have none (checked by packTables).
uint pairNonEmpty(uvec4 q) {
    uint mask = 0u;
    for (uint k = 0u; k < 4u; ++k) {
        const uint w = k == 0u ? q.x : k == 1u ? q.y : k == 2u ? q.z : q.w;
        // 0x80 in each byte that is 0x00 or 0xff (exact per byte, no borrows).
        const uint zero = ~(((w & 0x7f7f7f7fu) + 0x7f7f7f7fu) | w | 0x7f7f7f7fu);
        const uint nw = ~w;
        const uint full = ~(((nw & 0x7f7f7f7fu) + 0x7f7f7f7fu) | nw | 0x7f7f7f7fu);
        const uint empty = zero | full;
        const uint bits = ((empty >> 7) & 1u) | ((empty >> 14) & 2u) | ((empty >> 21) & 4u) | ((empty >> 28) & 8u);
        mask |= (~bits & 0xfu) << (4u * k);
    }
    return mask;
}

// MC case of cell i (0..15) of a pair's cases.
uint pairCase(uvec4 q, uint i) {
    const uint k = i >> 2;
    const uint w = k == 0u ? q.x : k == 1u ? q.y : k == 2u ? q.z : q.w;
    return (w >> (8u * (i & 3u))) & 0xffu;
}

// Element e's quad at 32-bit level `level` (elements past the level's end: 0).
uvec4 levelQuad(uint level, uint e) {
    const uint base = e & ~3u, size = grid.levels[level].y;
    const uvec4 q = pyramidQuadAt((grid.levels[level].x + base) >> 2);
    return uvec4(base < size ? q.x : 0u, base + 1u < size ? q.y : 0u, base + 2u < size ? q.z : 0u,
                 base + 3u < size ? q.w : 0u);
}

// Lowest j >= from with q[j] != 0; 4 when none.
uint firstNonZero(uvec4 q, uint from) {
    const uint m = ((q.x != 0u ? 1u : 0u) | (q.y != 0u ? 2u : 0u) | (q.z != 0u ? 4u : 0u) | (q.w != 0u ? 8u : 0u)) &
                   (0xfu << from);
    return m != 0u ? uint(findLSB(m)) : 4u;
}

// The next pair after `pair` with triangles (level 2 of the pool pyramid:
// pairs, 32-bit counts): up the levels until a later sibling has triangles,
// then down through the first non-empty children; one quad per level, and
// only as many levels as the gap between the pairs needs. Returns false when
// no later pair has triangles.
bool nextPair(inout uint pair) {
    uint level = kIsoPackedLevels, e = pair, j = 4u;
    const uint top = isoOpaque(grid.levelCount) - 1u;
    bool up = true;
    while (up) {
        const uint from = (e & 3u) + 1u;
        j = from < 4u ? firstNonZero(levelQuad(level, e), from) : 4u;
        up = j == 4u && level + 1u < top;
        if (up) {
            e >>= 2;
            ++level;
        }
    }
    if (j == 4u) return false;
    e = (e & ~3u) + j;
    while (level > kIsoPackedLevels) {
        --level;
        e = 4u * e + firstNonZero(levelQuad(level, 4u * e), 0u);
    }
    pair = e;
    return true;
}

// Corner k's entry of 8 per-corner values (k lane-varying; selects, no
// dynamically indexed array, which lavapipe would keep in memory).
float pickCorner(uint k, float c0, float c1, float c2, float c3, float c4, float c5, float c6, float c7) {
    const bool b0 = (k & 1u) != 0u, b1 = (k & 2u) != 0u;
    const float lo = b1 ? (b0 ? c3 : c2) : (b0 ? c1 : c0), hi = b1 ? (b0 ? c7 : c6) : (b0 ? c5 : c4);
    return (k & 4u) != 0u ? hi : lo;
}
vec3 pickCorner(uint k, vec3 c0, vec3 c1, vec3 c2, vec3 c3, vec3 c4, vec3 c5, vec3 c6, vec3 c7) {
    const bool b0 = (k & 1u) != 0u, b1 = (k & 2u) != 0u;
    const vec3 lo = b1 ? (b0 ? c3 : c2) : (b0 ? c1 : c0), hi = b1 ? (b0 ? c7 : c6) : (b0 ? c5 : c4);
    return (k & 4u) != 0u ? hi : lo;
}

// One invocation writes a run of consecutive triangles (up to
// kExtractTriangles, fewer where the surface is small:
// isoExtractTrianglesFor), cell by cell. The first one's cell comes from the top-down walk; the next cell is
// the next non-empty one of the same pair (its 16 cases are one quad of
// level 0) or the first non-empty one of the next pair with triangles
// (nextPair). Per cell, the samples at its 8 corners and their gradients are
// read once (central differences: 32 samples, the corners' neighbours inside
// the cell among them) for all its triangles, where a walk per triangle read
// 14 per vertex. lavapipe runs every branch of a SIMD batch whenever one lane
// takes it: a batch pays per cell for the lane with the most triangles there.
void main() {
    isoBeginUserFrame();
    mcVertexInit();
    // The args pass sized the dispatch with the same run length, from the
    // same count.
    const uint triangles = min(pyramidTotal(), grid.vertexCapacity) / 3;
    const uint perThread = isoExtractTrianglesFor(triangles, kExtractTriangles, kExtractMinGroups);
    const uint first = (linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex) * perThread;
    if (first >= triangles) return;
    const uint end = min(first + perThread, triangles);
    uint key = first * 3u, cases;
    uint cell = pyramidFindWithCases(key, cases);
    // Level 0 starts at word 0 (pyramidLevels): pair p's 16 cases are quad p.
    uvec4 pairCases = pyramidQuadAt(cell >> 4);
    uint nonEmpty = pairNonEmpty(pairCases);
    uint triangle = first;
    while (triangle < end) {
        const uint mcCase = pairCase(pairCases, cell & 15u);
        const uint count = isoCaseCount(mcCase);
        const ivec3 c = sparseCell(cell);
        float v[8];
        vec3 g[8];
        [[unroll]] for (uint k = 0u; k < 8u; ++k) v[k] = fetch(cellCorner(c, k));
        [[unroll]] for (uint k = 0u; k < 8u; ++k) {
            g[k] = vec3(0.0);
            if (kNormalMode == kIsoNormalCentral) {
                // gradientAt's central differences: the clamped fetch of
                // p +- d is the sample centralDiff reads (at the grid's faces
                // too), and inside the cell it is another corner's sample.
                const ivec3 p = cellCorner(c, k);
                const ivec3 hi = min(p + 1, gridMax), lo = max(p - 1, ivec3(0));
                const float px = (k & 1u) == 0u ? v[k | 1u] : fetch(p + ivec3(1, 0, 0));
                const float mx = (k & 1u) != 0u ? v[k & ~1u] : fetch(p - ivec3(1, 0, 0));
                const float py = (k & 2u) == 0u ? v[k | 2u] : fetch(p + ivec3(0, 1, 0));
                const float my = (k & 2u) != 0u ? v[k & ~2u] : fetch(p - ivec3(0, 1, 0));
                const float pz = (k & 4u) == 0u ? v[k | 4u] : fetch(p + ivec3(0, 0, 1));
                const float mz = (k & 4u) != 0u ? v[k & ~4u] : fetch(p - ivec3(0, 0, 1));
                g[k] = vec3(px - mx, py - my, pz - mz) / vec3(hi - lo) / grid.spacing.xyz;
            } else if (kNormalMode != kIsoNormalNone) {
                g[k] = gradientAt(cellCorner(c, k), kNormalMode) / grid.spacing.xyz;
            }
        }
        const uvec2 edges = tables.cases[mcCase].xy;
        const float cellTriangles = float(count / 3);
        while (key < count && triangle < end) {
            for (uint j = 0u; j < 3u; ++j) {
                uint oa, ob;
                cellEdgeCorners(edges, key + j, oa, ob);
                const IsoVertex vertex =
                    edgeVertexOf(cellCorner(c, oa), cellCorner(c, ob),
                                 pickCorner(oa, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]),
                                 pickCorner(ob, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]),
                                 pickCorner(oa, g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7]),
                                 pickCorner(ob, g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7]), cellTriangles);
                isoStoreVertexPosition(triangle * 3u + j, vertex.position);
                if (kNormalMode != kIsoNormalNone) isoStoreVertexNormal(triangle * 3u + j, vertex.normal);
            }
            key += 3u;
            ++triangle;
        }
        if (triangle < end) {
            key = 0u;
            const uint later = nonEmpty & ~((2u << (cell & 15u)) - 1u);
            uint pair = cell >> 4;
            if (later == 0u) {
                if (!nextPair(pair)) break;
                pairCases = pyramidQuadAt(pair);
                nonEmpty = pairNonEmpty(pairCases);
                cell = pair * 16u + uint(findLSB(nonEmpty));
            } else {
                cell = pair * 16u + uint(findLSB(later));
            }
        }
    }
}
