#version 460
// Texel bindings, first half: dst[i] = uint(src[i] * 2) + i, read through a
// uniform texel buffer (R32_SFLOAT) and written through a storage texel
// buffer (R32_UINT).
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform samplerBuffer src;
layout(set = 0, binding = 1, r32ui) uniform writeonly uimageBuffer dst;
layout(push_constant) uniform Params { uint count; } params;
void main() {
    const uint i = gl_GlobalInvocationID.x;
    if (i >= params.count) return;
    imageStore(dst, int(i), uvec4(uint(texelFetch(src, int(i)).x * 2.0) + i));
}
