#version 460
// Indirect dispatch, one thread per output vertex: key -> top-down pyramid
// traversal -> (cell, local vertex) -> edge -> interpolated position and
// normal, written straight into the vertex buffer the draw reads.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std430) readonly buffer GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer TablesBuf { IsoTables tables; };
layout(set = 0, binding = 2, std430) readonly buffer FieldBuf { float field[]; };
layout(set = 0, binding = 3, std430) readonly buffer PyramidBuf { uint pyramid[]; };
layout(set = 0, binding = 4, std430) writeonly buffer VertexBuf { IsoVertex vertices[]; };

ivec3 gridMax; // samples - 1 per axis
uint sx, sxy;

float fetch(ivec3 p) {
    p = clamp(p, ivec3(0), gridMax);
    return sanitize(field[uint(p.x) + sx * uint(p.y) + sxy * uint(p.z)]);
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

void main() {
    gridMax = ivec3(grid.samples.xyz) - 1;
    sx = grid.samples.x;
    sxy = grid.samples.x * grid.samples.y;
    uint key = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    const uint top = grid.levelCount - 1;
    uint total = pyramid[grid.levelOffset[top]];
    if (top == 0) total &= kIsoCountMask;
    // The dispatch was sized by the args pass; the bound is recomputed here
    // so that extraction never trusts anything but the pyramid and capacity.
    if (key >= min(total, grid.vertexCapacity)) return;
    const uint outIndex = key;

    uint index = 0;
    for (int level = int(top) - 1; level >= 0; --level) {
        const uint offset = grid.levelOffset[level];
        const uint size = grid.levelSize[level];
        const uint mask = level == 0 ? kIsoCountMask : 0xffffffffu;
        uint child = index * 4;
        for (uint c = 0; c < 3; ++c) {
            const uint v = child < size ? (pyramid[offset + child] & mask) : 0u;
            if (key < v) break;
            key -= v;
            ++child;
        }
        index = child;
    }
    const uint cell = index;
    const uint packed = pyramid[grid.levelOffset[0] + cell];
    const uint mcCase = (packed >> kIsoCaseShift) & 0xffu;
    const uint count = packed & kIsoCountMask;
    const uvec2 edges = tables.caseEdges[mcCase];
    const uint edge = ((key < 8 ? edges.x : edges.y) >> (4 * (key & 7u))) & 0xfu;
    const uint corners = tables.edgeCorners[edge];
    const uint oa = tables.cornerOffset[corners & 0xfu];
    const uint ob = tables.cornerOffset[(corners >> 4) & 0xfu];

    const uint cx = grid.cells.x, cy = grid.cells.y;
    const ivec3 c = ivec3(cell % cx, (cell / cx) % cy, cell / (cx * cy));
    const ivec3 pa = c + ivec3(oa & 1u, (oa >> 1) & 1u, (oa >> 2) & 1u);
    const ivec3 pb = c + ivec3(ob & 1u, (ob >> 1) & 1u, (ob >> 2) & 1u);
    const float va = fetch(pa), vb = fetch(pb);
    precise float t = (pc.iso - va) / (vb - va);
    if (!isFiniteF(t)) t = 0.5;

    precise vec3 fa = vec3(pa), fb = vec3(pb);
    precise vec3 gc = fa + t * (fb - fa);
    precise vec3 pos = grid.boundsMin.xyz + gc * grid.spacing.xyz;

    const uint mode = grid.normalMode;
    const vec3 da = gradientAt(pa, mode) / grid.spacing.xyz;
    const vec3 db = gradientAt(pb, mode) / grid.spacing.xyz;
    const vec3 n = da + t * (db - da);
    const float len = sqrt(dot(n, n));
    vec3 normal = vec3(0.0);
    if (isFiniteF(len) && len > 0.0) normal = -n / len;

    vertices[outIndex].position = vec4(pos, float(count / 3));
    vertices[outIndex].normal = vec4(normal, 0.0);
}
