#version 460
// PBF step, last pass: XSPH viscosity (paper eq. 17), a speed limit, v_i += c sum_j (v_j -
// v_i) W(p_i - p_j) / rho0 (divided by the rest density so that c is the
// fraction of the way to the neighbourhood's kernel-weighted mean velocity,
// whatever h), then the step's result in sorted order: positions into the
// particle buffer the isosurface splats (weight 1) and velocities (w: the
// particle's id) for the next step.
#include "fluid/fluid_common.glsl"

layout(local_size_x = kFluidGroupSize) in;

layout(set = 0, binding = 0, std430) readonly buffer ListBuf { uint neighbourList[]; };
layout(set = 0, binding = 1, std430) readonly buffer CountBuf { uint neighbourCount[]; };
layout(set = 0, binding = 2, std430) readonly buffer PositionBuf { vec4 position[]; };
layout(set = 0, binding = 3, std430) readonly buffer VelocityInBuf { vec4 velocityIn[]; };
layout(set = 0, binding = 4, std430) readonly buffer OldBuf { vec4 old[]; };
layout(set = 0, binding = 5, std430) writeonly buffer ParticlesBuf { vec4 particles[]; };
layout(set = 0, binding = 6, std430) writeonly buffer VelocityBuf { vec4 velocity[]; };

void main() {
    const uint i = threadIndex(kFluidGroupSize);
    if (i >= pc.particles) return;
    const vec3 pi = position[i].xyz;
    const vec3 vi = velocityIn[i].xyz;
    vec3 v = vi;
    if (pc.xsph > 0.0) {
        vec3 sum = vec3(0.0);
        const uint count = neighbourCount[i];
        for (uint k = 0u; k < count; ++k) {
            const uint j = neighbourList[i * kMaxNeighbours + k];
            const vec3 d = pi - position[j].xyz;
            sum += (velocityIn[j].xyz - vi) * poly6(dot(d, d));
        }
        v += (pc.xsph * pc.invRestDensity) * sum;
    }
    // Speed limit: a particle faster than about a kernel radius per step
    // jumps past its neighbours' reach and lands overlapping, which the
    // next step's few iterations answer with a larger push: at 100,000
    // particles a few hundred ran away to 300 m/s in 48 steps without it.
    const float speed = sqrt(dot(v, v));
    if (speed > pc.maxSpeed) v *= pc.maxSpeed / speed;
    particles[i] = vec4(pi, 1.0);
    velocity[i] = vec4(v, old[i].w);
}
