#version 460
// Mesh smoothing, move step: one thread per written vertex (the vertex
// pass's dispatch). kIsoMeshStepMove: position += factor (IsoPush.user0.x)
// x the mean neighbour offset; kIsoMeshStepNormals: normal = the normalised
// sum of the face normals (area-weighted). Either way the accumulator is
// zeroed for the next step, so a frame's steps need no clear pass between
// them. A vertex no triangle named (a frame without indices) keeps what it has.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std430) readonly buffer GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer ArgsBuf { IsoArgs args; };
layout(set = 0, binding = 2, std430) buffer AccumBuf { ivec4 accum[]; };
layout(set = 0, binding = 3, std430) buffer VertexBuf { IsoVertex vertices[]; };

void main() {
    const uint v = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    if (v >= min(args.verticesWritten, grid.vertexCapacity)) return;
    const ivec4 s = accum[v];
    accum[v] = ivec4(0);
    if (s.w <= 0) return;
    if (pc.srcLevel == kIsoMeshStepNormals) {
        const vec3 n = vec3(s.xyz);
        const float len2 = dot(n, n);
        vertices[v].normal = vec4(len2 > 0.0 ? n * inversesqrt(len2) : vec3(0.0), 0.0);
    } else {
        precise vec3 mean = vec3(s.xyz) / (float(s.w) * float(kIsoMeshFixedOne));
        precise vec3 step = (mean * grid.spacing.xyz) * pc.user0.x;
        precise vec3 p = vertices[v].position.xyz + step;
        vertices[v].position.xyz = p;
    }
}
