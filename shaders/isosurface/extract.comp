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

float fetch(ivec3 p) {
    p = clamp(p, ivec3(0), ivec3(grid.samples.xyz) - 1);
    return sanitize(field[uint(p.x) + grid.samples.x * (uint(p.y) + grid.samples.y * uint(p.z))]);
}

// Gradient in index units (see tests/reference/reference.cpp: same formulas).
vec3 gradientAt(ivec3 p) {
    vec3 g;
    const ivec3 n = ivec3(grid.samples.xyz);
    for (int a = 0; a < 3; ++a) {
        ivec3 d = ivec3(0);
        d[a] = 1;
        if (grid.normalMode == kIsoNormalForward) {
            g[a] = p[a] + 1 < n[a] ? fetch(p + d) - fetch(p) : fetch(p) - fetch(p - d);
        } else if (grid.normalMode == kIsoNormalCentral) {
            const int hi = min(p[a] + 1, n[a] - 1), lo = max(p[a] - 1, 0);
            ivec3 ph = p, pl = p;
            ph[a] = hi;
            pl[a] = lo;
            g[a] = (fetch(ph) - fetch(pl)) / float(hi - lo);
        } else {
            const int b = (a + 1) % 3, c = (a + 2) % 3;
            float s = 0.0;
            for (int i = -1; i <= 1; ++i)
                for (int j = -1; j <= 1; ++j) {
                    ivec3 o = ivec3(0);
                    o[b] = i;
                    o[c] = j;
                    const float w = (i == 0 ? 2.0 : 1.0) * (j == 0 ? 2.0 : 1.0);
                    s += w * (fetch(p + o + d) - fetch(p + o - d));
                }
            g[a] = s / 32.0;
        }
    }
    return g;
}

void main() {
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

    const vec3 da = gradientAt(pa) / grid.spacing.xyz;
    const vec3 db = gradientAt(pb) / grid.spacing.xyz;
    const vec3 n = da + t * (db - da);
    const float len = sqrt(dot(n, n));
    vec3 normal = vec3(0.0);
    if (isFiniteF(len) && len > 0.0) normal = -n / len;

    vertices[outIndex].position = vec4(pos, float(count / 3));
    vertices[outIndex].normal = vec4(normal, 0.0);
}
