#version 460
// The same 8 words per array and thread as one 64-bit 4-vector store.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;
layout(push_constant) uniform Push { uint threads; uint pad; uvec2 address[7]; } p;
layout(std430, set = 0, binding = 0) writeonly buffer A0 { u64vec4 a0[]; };
layout(std430, set = 0, binding = 1) writeonly buffer A1 { u64vec4 a1[]; };
layout(std430, set = 0, binding = 2) writeonly buffer A2 { u64vec4 a2[]; };
layout(std430, set = 0, binding = 3) writeonly buffer A3 { u64vec4 a3[]; };
layout(std430, set = 0, binding = 4) writeonly buffer A4 { u64vec4 a4[]; };
layout(std430, set = 0, binding = 5) writeonly buffer A5 { u64vec4 a5[]; };
layout(std430, set = 0, binding = 6) writeonly buffer A6 { u64vec4 a6[]; };
void main() {
    uint k = gl_GlobalInvocationID.x;
    if (k >= p.threads) return;
    uint64_t b = uint64_t(k);
    u64vec4 v = u64vec4(b, b + 1ul, b + 2ul, b + 3ul);
    a0[k] = v; a1[k] = v + 1ul; a2[k] = v + 2ul; a3[k] = v + 3ul; a4[k] = v + 4ul; a5[k] = v + 5ul; a6[k] = v + 6ul;
}
