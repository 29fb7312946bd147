#version 460
// Particle splat, scatter form: one thread per particle adds its kernel
// weight w (1 - d^2/r^2)^3 to every grid sample within radius r, as fixed
// point with integer atomics (exact, order independent). Cost is
// O(particles x samples per kernel), independent of the grid size; a
// particle outside the bounds still reaches the samples its kernel covers
// and is never clamped into the grid. Terms are particles_kernel.glsl's,
// the same bits as the gather form.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer ParticlesBuf { float particleData[]; };
layout(set = 0, binding = 2, std430) buffer AccumBuf { uint accum[]; };

#include "isosurface/particles_common.glsl"
#include "isosurface/particles_kernel.glsl"

void main() {
    const uint i = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    if (i >= min(pc.itemCount, grid.maxItems)) return;
    vec4 pw;
    if (!loadParticle(i, pw)) return;
    uvec3 a, b;
    if (!kernelSamples(pw.xyz, a, b)) return;
    for (uint z = a.z; z <= b.z; ++z) {
        const float dz = sampleCoord(z, grid.boundsMin.z, grid.spacing.z) - pw.z;
        for (uint y = a.y; y <= b.y; ++y) {
            const float yz = squaredYZ(sampleCoord(y, grid.boundsMin.y, grid.spacing.y) - pw.y, dz);
            if (yz * grid.particle.y >= 1.0) continue; // the row misses the kernel
            const uint row = grid.samples.x * (y + grid.samples.y * z);
            for (uint x = a.x; x <= b.x; ++x) {
                const uint add = kernelTerm(sampleCoord(x, grid.boundsMin.x, grid.spacing.x) - pw.x, yz, pw.w);
                if (add != 0) atomicAdd(accum[row + x], add);
            }
        }
    }
}
