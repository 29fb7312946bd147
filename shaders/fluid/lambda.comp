#version 460
// PBF solver iteration, part 1, one thread per sorted particle: the density
// constraint C = rho / rho0 - 1 (poly6 density, unit masses) and its
// scaling factor lambda = -C / (sum_k |grad_k C|^2 + epsilon) (spiky
// gradients; epsilon is the constraint force mixing relaxation of the
// paper's eq. 11). Only compression is corrected (C clamped at 0 in lambda):
// a bilateral constraint pulls particles of the free surface inwards and
// clumps them; the paper's s_corr term (delta.comp) handles what is left.
#include "fluid/fluid_common.glsl"

layout(local_size_x = kFluidGroupSize) in;

layout(set = 0, binding = 0, std430) readonly buffer ListBuf { uint neighbourList[]; };
layout(set = 0, binding = 1, std430) readonly buffer CountBuf { uint neighbourCount[]; };
layout(set = 0, binding = 2, std430) readonly buffer PositionBuf { vec4 position[]; };
layout(set = 0, binding = 3, std430) writeonly buffer LambdaBuf { vec2 lambda[]; };

void main() {
    const uint i = threadIndex(kFluidGroupSize);
    if (i >= pc.particles) return;
    const vec3 pi = position[i].xyz;
    float rho = poly6(0.0); // the particle itself
    float sumGrad2 = 0.0;
    vec3 gradI = vec3(0.0);
    const uint count = neighbourCount[i];
    for (uint k = 0u; k < count; ++k) {
        const vec3 d = pi - position[neighbourList[i * kMaxNeighbours + k]].xyz;
        const float r2 = dot(d, d);
        rho += poly6(r2);
        const vec3 g = pc.invRestDensity * spikyGrad(d, r2);
        gradI += g;
        sumGrad2 += dot(g, g);
    }
    const float c = rho * pc.invRestDensity - 1.0;
    const float l = -max(c, 0.0) / (sumGrad2 + dot(gradI, gradI) + pc.epsilon);
    lambda[i] = vec2(l, c);
}
