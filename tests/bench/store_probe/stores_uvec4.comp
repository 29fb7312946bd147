#version 460
// The leaf merge's store pattern: thread k writes words 8k..8k+7 of each of 7
// arrays as two uvec4 stores per array (storage buffers, the merge's way).
layout(local_size_x = 64) in;
layout(push_constant) uniform Push { uint threads; uint pad; uvec2 address[7]; } p;
layout(std430, set = 0, binding = 0) writeonly buffer A0 { uvec4 a0[]; };
layout(std430, set = 0, binding = 1) writeonly buffer A1 { uvec4 a1[]; };
layout(std430, set = 0, binding = 2) writeonly buffer A2 { uvec4 a2[]; };
layout(std430, set = 0, binding = 3) writeonly buffer A3 { uvec4 a3[]; };
layout(std430, set = 0, binding = 4) writeonly buffer A4 { uvec4 a4[]; };
layout(std430, set = 0, binding = 5) writeonly buffer A5 { uvec4 a5[]; };
layout(std430, set = 0, binding = 6) writeonly buffer A6 { uvec4 a6[]; };
void main() {
    uint k = gl_GlobalInvocationID.x;
    if (k >= p.threads) return;
    uint w = 2u * k;
    uvec4 v = uvec4(k, k + 1u, k + 2u, k + 3u);
    a0[w] = v; a0[w + 1u] = v + 4u;
    a1[w] = v; a1[w + 1u] = v + 5u;
    a2[w] = v; a2[w + 1u] = v + 6u;
    a3[w] = v; a3[w + 1u] = v + 7u;
    a4[w] = v; a4[w + 1u] = v + 8u;
    a5[w] = v; a5[w + 1u] = v + 9u;
    a6[w] = v; a6[w + 1u] = v + 1u;
}
