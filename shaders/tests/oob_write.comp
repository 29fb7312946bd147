#version 460
// Deliberately out of bounds (tests/engine/gpuav_test.cpp): invocation i
// writes element i for i < count, and the host passes a count larger than
// the buffer. The test places a guard buffer right behind the target in its
// own device's memory block, so the stray writes corrupt nothing, but
// GPU-assisted validation must report them.
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) writeonly buffer Out { uint values[]; } dst;
layout(push_constant) uniform Push { uint count; } pc;
void main() {
    const uint i = gl_GlobalInvocationID.x;
    if (i < pc.count) dst.values[i] = i + 1u;
}
