#version 460
// PBF solver iteration, part 2, one thread per sorted particle: the position
// correction dp_i = 1/rho0 sum_j (lambda_i + lambda_j + s_corr) gradW(p_i - p_j)
// (paper eq. 14) with the tensile instability term s_corr = -k (W(r) /
// W(dq))^4 (eq. 13), then the box clamp and the collider (collider.glsl).
// Reads one position buffer, writes the other (Jacobi iteration: every
// particle sees its neighbours' positions of the same iteration, so the
// result does not depend on thread order).
#include "fluid/fluid_common.glsl"

layout(local_size_x = kFluidGroupSize) in;

layout(set = 0, binding = 0, std430) readonly buffer ListBuf { uint neighbourList[]; };
layout(set = 0, binding = 1, std430) readonly buffer CountBuf { uint neighbourCount[]; };
layout(set = 0, binding = 2, std430) readonly buffer PositionBuf { vec4 position[]; };
layout(set = 0, binding = 3, std430) readonly buffer LambdaBuf { vec2 lambda[]; };
layout(set = 0, binding = 4, std430) writeonly buffer PositionOutBuf { vec4 positionOut[]; };
#include "fluid/collider.glsl"

void main() {
    const uint i = threadIndex(kFluidGroupSize);
    if (i >= pc.particles) return;
    const vec3 pi = position[i].xyz;
    const float li = lambda[i].x;
    vec3 dp = vec3(0.0);
    const uint count = neighbourCount[i];
    for (uint k = 0u; k < count; ++k) {
        const uint j = neighbourList[i * kMaxNeighbours + k];
        const vec3 d = pi - position[j].xyz;
        const float r2 = dot(d, d);
        const float w = poly6(r2) * pc.invWdq;
        const float w2 = w * w;
        const float scorr = -pc.scorrK * (w2 * w2);
        dp += (li + lambda[j].x + scorr) * spikyGrad(d, r2);
    }
    positionOut[i] = vec4(collide(clampToBox(pi + pc.invRestDensity * dp)), 0.0);
}
