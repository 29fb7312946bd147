#version 460
// Mesh smoothing, sum step: one thread per index of the indexed output (the
// index pass's dispatch). Thread t's vertex v takes the terms of t's
// triangle: the offsets to its two other vertices (kIsoMeshStepMove) or the
// triangle's normal, |n| = twice its area (kIsoMeshStepNormals), in cells,
// added as fixed-point integer atomics: the sums do not depend on the order
// threads run in. Indices naming vertices past the written count (never
// written by the module; guarded all the same) drop their triangle.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std430) readonly buffer GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer ArgsBuf { IsoArgs args; };
layout(set = 0, binding = 2, std430) readonly buffer IndexBuf { uint indices[]; };
layout(set = 0, binding = 3, std430) readonly buffer VertexBuf { IsoVertex vertices[]; };
layout(set = 0, binding = 4, std430) buffer AccumBuf { ivec4 accum[]; };

// Truncation toward zero after one multiply: no contraction into an FMA, so
// the CPU reference (tests/isosurface/test_mesh_smoothing.cpp) repeats it.
ivec3 fixedTerm(vec3 v) {
    const float m = float(kIsoMeshClamp);
    precise vec3 c = clamp(v, vec3(-m), vec3(m)) * float(kIsoMeshFixedOne);
    // A NaN (a vertex at a non-finite position) adds nothing.
    return ivec3(isNanF(c.x) ? 0.0 : c.x, isNanF(c.y) ? 0.0 : c.y, isNanF(c.z) ? 0.0 : c.z);
}

void main() {
    const uint t = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    if (t >= min(args.indexCount, grid.indexCapacity)) return;
    // t / 3 without a division (lavapipe divides lane by lane).
    uint hi, lo;
    umulExtended(t, 0xAAAAAAABu, hi, lo);
    const uint first = (hi >> 1) * 3u;
    const uint corner = t - first;
    const uint v = indices[t];
    const uint a = indices[first + (corner == 2u ? 0u : corner + 1u)]; // next corner
    const uint b = indices[first + (corner == 0u ? 2u : corner - 1u)]; // previous corner
    const uint written = min(args.verticesWritten, grid.vertexCapacity);
    if (v >= written || a >= written || b >= written) return;
    const vec3 inv = vec3(1.0) / grid.spacing.xyz;
    const vec3 pv = vertices[v].position.xyz;
    precise vec3 ea = (vertices[a].position.xyz - pv) * inv;
    precise vec3 eb = (vertices[b].position.xyz - pv) * inv;
    ivec3 term;
    int weight;
    if (pc.srcLevel == kIsoMeshStepNormals) {
        // cross(next - v, previous - v): the triangle's winding, outward.
        precise vec3 n = vec3(ea.y * eb.z - ea.z * eb.y, ea.z * eb.x - ea.x * eb.z, ea.x * eb.y - ea.y * eb.x);
        term = fixedTerm(n);
        weight = 1;
    } else {
        term = fixedTerm(ea) + fixedTerm(eb);
        weight = 2;
    }
    atomicAdd(accum[v].x, term.x);
    atomicAdd(accum[v].y, term.y);
    atomicAdd(accum[v].z, term.z);
    atomicAdd(accum[v].w, weight);
}
