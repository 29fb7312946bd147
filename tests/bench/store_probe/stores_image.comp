#version 460
// The same stores as imageStore into RGBA32UI storage texel buffers.
layout(local_size_x = 64) in;
layout(push_constant) uniform Push { uint threads; uint pad; uvec2 address[7]; } p;
layout(set = 0, binding = 0, rgba32ui) writeonly uniform uimageBuffer a0;
layout(set = 0, binding = 1, rgba32ui) writeonly uniform uimageBuffer a1;
layout(set = 0, binding = 2, rgba32ui) writeonly uniform uimageBuffer a2;
layout(set = 0, binding = 3, rgba32ui) writeonly uniform uimageBuffer a3;
layout(set = 0, binding = 4, rgba32ui) writeonly uniform uimageBuffer a4;
layout(set = 0, binding = 5, rgba32ui) writeonly uniform uimageBuffer a5;
layout(set = 0, binding = 6, rgba32ui) writeonly uniform uimageBuffer a6;
void main() {
    uint k = gl_GlobalInvocationID.x;
    if (k >= p.threads) return;
    int w = int(2u * k);
    uvec4 v = uvec4(k, k + 1u, k + 2u, k + 3u);
    imageStore(a0, w, v); imageStore(a0, w + 1, v + 4u);
    imageStore(a1, w, v); imageStore(a1, w + 1, v + 5u);
    imageStore(a2, w, v); imageStore(a2, w + 1, v + 6u);
    imageStore(a3, w, v); imageStore(a3, w + 1, v + 7u);
    imageStore(a4, w, v); imageStore(a4, w + 1, v + 8u);
    imageStore(a5, w, v); imageStore(a5, w + 1, v + 9u);
    imageStore(a6, w, v); imageStore(a6, w + 1, v + 1u);
}
