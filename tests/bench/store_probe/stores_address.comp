#version 460
// The same stores through buffer device addresses (GL_EXT_buffer_reference).
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_EXT_buffer_reference_uvec2 : require
layout(local_size_x = 64) in;
layout(buffer_reference, std430, buffer_reference_align = 16) writeonly buffer Words { uvec4 v[]; };
layout(push_constant) uniform Push { uint threads; uint pad; uvec2 address[7]; } p;
void main() {
    uint k = gl_GlobalInvocationID.x;
    if (k >= p.threads) return;
    uint w = 2u * k;
    uvec4 v = uvec4(k, k + 1u, k + 2u, k + 3u);
    [[unroll]] for (uint a = 0u; a < 7u; ++a) {
        Words arr = Words(p.address[a]);
        arr.v[w] = v;
        arr.v[w + 1u] = v + 4u + a;
    }
}
