#version 460
// PBF step, after the solver: velocity from the position change, v = (p - x) / dt.
#include "fluid/fluid_common.glsl"

layout(local_size_x = kFluidGroupSize) in;

layout(set = 0, binding = 0, std430) readonly buffer PositionBuf { vec4 position[]; };
layout(set = 0, binding = 1, std430) readonly buffer OldBuf { vec4 old[]; };
layout(set = 0, binding = 2, std430) writeonly buffer VelocityOutBuf { vec4 velocityOut[]; };

void main() {
    const uint i = threadIndex(kFluidGroupSize);
    if (i >= pc.particles) return;
    velocityOut[i] = vec4((position[i].xyz - old[i].xyz) / pc.dt, 0.0);
}
