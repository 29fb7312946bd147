#version 460
// Each invocation of an indirect dispatch marks its slot with id + 1.
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) writeonly buffer Out { uint values[]; } dst;
void main() { dst.values[gl_GlobalInvocationID.x] = gl_GlobalInvocationID.x + 1u; }
