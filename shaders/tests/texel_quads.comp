#version 460
// Texel bindings, second half: the words the first half wrote, 4 at a time
// through an R32G32B32A32_UINT view, into a storage buffer:
// out[q] = w0 + 3 w1 + 5 w2 + 7 w3. Texels past the view read as 0.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform usamplerBuffer quads;
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint values[]; } dst;
layout(push_constant) uniform Params { uint count; } params;
void main() {
    const uint q = gl_GlobalInvocationID.x;
    if (q >= params.count) return;
    const uvec4 w = texelFetch(quads, int(q));
    dst.values[q] = w.x + 3u * w.y + 5u * w.z + 7u * w.w;
}
