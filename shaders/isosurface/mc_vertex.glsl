// Marching cubes output vertex: (cell, case, local vertex index) -> edge ->
// interpolated position and normal. Included by extract.comp (HistoPyramid
// expansion) and generate.comp (scan baseline) after they declare `grid`,
// `tables` and the field: `fieldTexels` (a uniform texel buffer, R32_SFLOAT)
// with ISO_TEXEL_READS, else `field` (a storage buffer), or with
// ISO_USER_FIELD the user's field() itself; call mcVertexInit() first.
// With ISO_FETCH_BLOCK the includer's isoLoadBlock(lo) fills isoBlock (the
// samples lo .. lo + 3, isoBlockLo = lo) once per vertex, and fetch() reads
// it: a field whose evaluation is a loop pays it once per vertex, not once
// per sample read (Sobel normals read 54 per vertex).
#ifndef ISO_MC_VERTEX_GLSL
#define ISO_MC_VERTEX_GLSL

#include "isosurface/cell_edge.glsl"

// The normal mode as a specialization constant: lavapipe runs both sides of
// an `if` under a mask, so a mode read from the grid buffer executed the
// arithmetic of all three gradient operators for every vertex.
layout(constant_id = kIsoSpecNormalMode) const uint kNormalMode = kIsoNormalCentral;

ivec3 gridMax; // samples - 1 per axis
uint sx, sxy;

float fetch(ivec3 p) {
    p = clamp(p, ivec3(0), gridMax);
#if defined(ISO_FETCH_BLOCK)
    // The block edgeVertex loaded holds every sample its vertex reads.
    const ivec3 q = p - isoBlockLo;
    return isoBlock[q.x + 4 * (q.y + 4 * q.z)];
#elif defined(ISO_USER_FIELD)
    return isoUserSample(uvec3(p)); // fused: the field where it is read
#else
    const uint i = uint(p.x) + sx * uint(p.y) + sxy * uint(p.z);
#if defined(ISO_TEXEL_READS)
    return sanitize(texelFetch(fieldTexels, int(i)).x);
#else
    return sanitize(field[i]);
#endif
#endif
}

// Gradient components in index units along axis d (a unit vector; no dynamic
// vector indexing, which lavapipe turns into memory). Same formulas and
// evaluation order as tests/reference/reference.cpp.
float forwardDiff(ivec3 p, ivec3 d, int pa, int last) {
    return pa + 1 <= last ? fetch(p + d) - fetch(p) : fetch(p) - fetch(p - d);
}
float centralDiff(ivec3 p, ivec3 d, int pa, int last) {
    const int hi = min(pa + 1, last), lo = max(pa - 1, 0);
    return (fetch(p + d * (hi - pa)) - fetch(p + d * (lo - pa))) / float(hi - lo);
}
// 3D Sobel: central difference along d smoothed 1-2-1 across axes b and c.
float sobelDiff(ivec3 p, ivec3 d, ivec3 b, ivec3 c) {
    float s = 0.0;
    for (int i = -1; i <= 1; ++i)
        for (int j = -1; j <= 1; ++j) {
            const ivec3 o = b * i + c * j;
            const float w = (i == 0 ? 2.0 : 1.0) * (j == 0 ? 2.0 : 1.0);
            s += w * (fetch(p + o + d) - fetch(p + o - d));
        }
    return s / 32.0;
}

vec3 gradientAt(ivec3 p, uint mode) {
    const ivec3 X = ivec3(1, 0, 0), Y = ivec3(0, 1, 0), Z = ivec3(0, 0, 1);
    if (mode == kIsoNormalForward)
        return vec3(forwardDiff(p, X, p.x, gridMax.x), forwardDiff(p, Y, p.y, gridMax.y), forwardDiff(p, Z, p.z, gridMax.z));
    if (mode == kIsoNormalCentral)
        return vec3(centralDiff(p, X, p.x, gridMax.x), centralDiff(p, Y, p.y, gridMax.y), centralDiff(p, Z, p.z, gridMax.z));
    return vec3(sobelDiff(p, X, Y, Z), sobelDiff(p, Y, Z, X), sobelDiff(p, Z, X, Y));
}

void mcVertexInit() {
    gridMax = ivec3(grid.samples.xyz) - 1;
    sx = grid.samples.x;
    sxy = grid.samples.x * grid.samples.y;
}

// The vertex on the edge from sample pa to sample pb (pa the lower corner)
// from the samples there and the gradients at both (index units over the
// spacing: gradientAt(p) / grid.spacing); edgeVertex and the per-cell
// extraction (sparse_extract.comp) share these operations, so their bits.
IsoVertex edgeVertexOf(ivec3 pa, ivec3 pb, float va, float vb, vec3 da, vec3 db, float cellTriangles) {
    precise float t = (pc.iso - va) / (vb - va);
    if (!isFiniteF(t)) t = 0.5;

    precise vec3 fa = vec3(pa), fb = vec3(pb);
    precise vec3 gc = fa + t * (fb - fa);
    precise vec3 pos = grid.boundsMin.xyz + gc * grid.spacing.xyz;

    vec3 normal = vec3(0.0);
    if (kNormalMode != kIsoNormalNone) {
        const vec3 n = da + t * (db - da);
        const float len = sqrt(dot(n, n));
        if (isFiniteF(len) && len > 0.0) normal = -n / len;
    }

    IsoVertex v;
    v.position = vec4(pos, cellTriangles);
    v.normal = vec4(normal, 0.0);
    return v;
}

// Vertex on the edge from sample pa to sample pb (pa the lower corner).
IsoVertex edgeVertex(ivec3 pa, ivec3 pb, float cellTriangles) {
#if defined(ISO_FETCH_BLOCK)
    // 4^3 samples around the edge, clamped into the grid: every sample the
    // position and the gradients at both ends read (one sample around them).
    isoLoadBlock(clamp(min(pa, pb) - 1, ivec3(0), max(gridMax - 3, ivec3(0))));
#endif
    const float va = fetch(pa), vb = fetch(pb);
    const uint mode = kNormalMode;
    vec3 da = vec3(0.0), db = vec3(0.0);
    // A specialization constant: with None the gradient fetches are not compiled in.
    if (mode != kIsoNormalNone) {
        da = gradientAt(pa, mode) / grid.spacing.xyz;
        db = gradientAt(pb, mode) / grid.spacing.xyz;
    }
    return edgeVertexOf(pa, pb, va, vb, da, db, cellTriangles);
}

// Vertex `key` of a cell whose case edges (tables.cases[case].xy) the caller loaded.
IsoVertex mcVertexOf(ivec3 c, uvec2 edges, uint count, uint key) {
    ivec3 pa, pb;
    cellEdgeOf(c, edges, key, pa, pb);
    return edgeVertex(pa, pb, float(count / 3));
}
#ifndef ISO_NO_TABLES
IsoVertex mcVertexAt(ivec3 c, uint mcCase, uint count, uint key) {
    ivec3 pa, pb;
    cellEdgeAt(c, mcCase, key, pa, pb);
    return edgeVertex(pa, pb, float(count / 3));
}
IsoVertex mcVertex(uint cell, uint mcCase, uint count, uint key) {
    return mcVertexAt(cellCoord(cell), mcCase, count, key);
}
#endif
#endif
