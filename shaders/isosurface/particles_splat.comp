#version 460
// Particle splat, scatter form: one thread per particle adds its kernel
// weight w (1 - d^2/r^2)^3 to every grid sample within radius r, as fixed
// point with integer atomics (exact, order independent). Cost is
// O(particles x samples per kernel), independent of the grid size; a
// particle outside the bounds still reaches the samples its kernel covers
// and is never clamped into the grid.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std430) readonly buffer GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer ParticlesBuf { float particleData[]; };

#include "isosurface/particle_load.glsl"
layout(set = 0, binding = 2, std430) buffer AccumBuf { uint accum[]; };

void main() {
    const uint i = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    if (i >= min(pc.itemCount, grid.maxItems)) return;
    vec4 pw;
    if (!loadParticle(i, pw)) return;
    const float r = grid.particle.x;
    const vec3 rel = (pw.xyz - grid.boundsMin.xyz) / grid.spacing.xyz;
    const vec3 reach = vec3(r) / grid.spacing.xyz;
    // Sample range covered by the kernel, intersected with the grid; done in
    // float first so far-away particles cannot overflow the int conversion.
    const vec3 lo = max(ceil(rel - reach), vec3(0.0));
    const vec3 hi = min(floor(rel + reach), vec3(grid.samples.xyz) - 1.0);
    if (any(greaterThan(lo, hi))) return;
    const ivec3 a = ivec3(lo), b = ivec3(hi);
    const float invR2 = grid.particle.y;
    for (int z = a.z; z <= b.z; ++z)
        for (int y = a.y; y <= b.y; ++y)
            for (int x = a.x; x <= b.x; ++x) {
                const vec3 p = grid.boundsMin.xyz + vec3(x, y, z) * grid.spacing.xyz;
                const vec3 d = p - pw.xyz;
                const float q = dot(d, d) * invR2;
                if (q >= 1.0) continue;
                const float k = 1.0 - q;
                // Clamped before the conversion: a float past 2^32 has no defined uint.
                const uint add = uint(min(pw.w * k * k * k * float(kIsoSplatFixedOne), 4.0e9));
                if (add != 0) atomicAdd(accum[uint(x) + grid.samples.x * (uint(y) + grid.samples.y * uint(z))], add);
            }
}
