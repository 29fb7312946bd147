#version 460
// out[i] = in[i] * scale + add: one link of the three-pass chain test.
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint values[]; } src;
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint values[]; } dst;
layout(push_constant) uniform Params { uint count; uint scale; uint add; } params;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= params.count) return;
    dst.values[i] = src.values[i] * params.scale + params.add;
}
