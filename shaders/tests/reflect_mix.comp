#version 460
// One buffer descriptor of each kind the render graph binds, for the SPIR-V
// reflection tests (pipeline_reflect_test, engine_gpu_test): binding 4 is
// declared but unused, so the optimizer removes it and the reflection
// reports a gap there. dst[i] = src[i] + uint(texels[i]) + counters[i]++.
layout(local_size_x = 8) in;
layout(set = 0, binding = 0, std140) uniform Params { uvec4 n; } params;
layout(set = 0, binding = 1, std430) readonly buffer In { uint values[]; } src;
layout(set = 0, binding = 2) uniform samplerBuffer texels;
layout(set = 0, binding = 3, r32ui) uniform uimageBuffer counters;
layout(set = 0, binding = 4, std430) readonly buffer Unused { uint unused[]; };
layout(set = 0, binding = 5, std430) writeonly buffer Out { uint values[]; } dst;
void main() {
    const uint i = gl_GlobalInvocationID.x;
    if (i >= params.n.x) return;
    dst.values[i] = src.values[i] + uint(texelFetch(texels, int(i)).x) + imageAtomicAdd(counters, int(i), 1u);
}
