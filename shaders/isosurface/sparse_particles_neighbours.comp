#version 460
#extension GL_EXT_control_flow_attributes : require
// Position smoothing and anisotropic kernels on a sparse domain,
// <name>.sparse.smooth / <name>.sparse.aniso (after sparse.fill and, with
// SphCubicSpline, the density pass; classify's indirect dispatch,
// kIsoBricksPerGroup bricks a group, kIsoBorderThreads threads a brick):
// each listed brick's threads take the particles of its list whose home
// brick (the brick of 8^3 cells holding the particle, clamped to the grid)
// it is, and sum their neighbourhoods over the brick's whole list with the
// dense gather's functions (particles_neighbours.glsl): the same terms, the
// same integer sums, so the same bits as particles_smooth.comp /
// particles_aniso.comp compute for the same particle. The lists reach
// grid.sparseParticleReach.x around every particle (sparse_particles_bin.comp,
// listSamples), past the neighbourhood radius, so every neighbour of a
// particle is in its home brick's list. Writes, by the particle's index in
// the frame (pc.srcLevel):
// 0 (smoothing): records[i] = (smoothed position, weight);
// 1 (anisotropic): records[3 i ..] = particles_aniso.comp's kernel record
//   (the ISO_PARTICLE_SPH build: weight = the density pass's volume).
// The loops over the list take kIsoListUnroll particles an iteration
// (sparse_particles_density.comp says why). Every record is cleared to 0
// every frame before this pass: a particle
// whose home brick was not listed (past the capacities: the frame reports
// the overflow) adds nothing to the blocks (weight 0, extent 0).
#include "isosurface/common.glsl"

const uint kThreads = kIsoBorderThreads;
layout(local_size_x = kIsoBricksPerGroup * kThreads) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer CountersBuf { IsoCounters counters; };
layout(set = 0, binding = 2, std430) readonly buffer BrickListBuf { uint bricks[]; };
layout(set = 0, binding = 3, std430) readonly buffer BrickItemsBuf { uint brickItems[]; };
layout(set = 0, binding = 4, std430) readonly buffer ParticlesBuf { float particleData[]; };
layout(set = 0, binding = 5, std430) writeonly buffer RecordsBuf { vec4 records[]; };
#ifdef ISO_PARTICLE_SPH
layout(set = 0, binding = 6, std430) readonly buffer VolumesBuf { float volumes[]; };
#endif

#include "isosurface/particles_common.glsl"
#include "isosurface/particles_neighbours.glsl"

uvec3 brickOf(uint packed) {
    const uint mask = (1u << kIsoBrickAxisBits) - 1u;
    return uvec3(packed & mask, (packed >> kIsoBrickAxisBits) & mask, packed >> (2 * kIsoBrickAxisBits));
}

// The brick of cells holding p, clamped to the grid's bricks.
uvec3 homeBrick(vec3 p) {
    const vec3 rel = (p - grid.boundsMin.xyz) / grid.spacing.xyz;
    const vec3 b = clamp(floor(rel / float(kIsoBrickCells)), vec3(0.0), vec3(grid.sparse.xyz) - 1.0);
    return uvec3(b);
}

void main() {
    const uint l = gl_LocalInvocationIndex;
    const uint listed = min(counters.sparseBricks, grid.sparseLimits.x);
    const uint brick = linearGroup() * kIsoBricksPerGroup + l / kThreads;
    if (brick >= listed) return;
    const uint t = l % kThreads;
    const uvec3 b = brickOf(bricks[brick]);
    const uint count = brickItems[2u * brick + 1u];
    const uint first = 2u * grid.sparseLimits.x + brickItems[2u * brick];
    const bool aniso = isoOpaque(pc.srcLevel) == 1u;
    for (uint j = t; j < count; j += kThreads) {
        const uint i = brickItems[first + j];
        vec4 pw;
        loadParticle(i, pw); // sparse.fill listed it: a particle it loaded
        if (homeBrick(pw.xyz) != b) continue;
        if (aniso) {
            AnisoSums sums = anisoSumsZero();
            for (uint k0 = 0u; k0 < count; k0 += kIsoListUnroll) {
                [[unroll]] for (uint u = 0u; u < kIsoListUnroll; ++u) {
                    if (k0 + u >= count) break;
                    vec4 o;
                    loadParticle(brickItems[first + k0 + u], o);
                    anisoAdd(pw.xyz, o.xyz, sums);
                }
            }
#ifdef ISO_PARTICLE_SPH
            const float weight = volumes[i];
#else
            const float weight = pw.w;
#endif
            vec4 r0, r1, r2;
            anisoFinish(pw.xyz, weight, sums, r0, r1, r2);
            records[i * kIsoAnisoRecordVec4s] = r0;
            records[i * kIsoAnisoRecordVec4s + 1u] = r1;
            records[i * kIsoAnisoRecordVec4s + 2u] = r2;
        } else {
            uint sumW = 0u;
            ivec3 sumD = ivec3(0);
            for (uint k0 = 0u; k0 < count; k0 += kIsoListUnroll) {
                [[unroll]] for (uint u = 0u; u < kIsoListUnroll; ++u) {
                    if (k0 + u >= count) break;
                    vec4 o;
                    loadParticle(brickItems[first + k0 + u], o);
                    smoothAdd(pw.xyz, o.xyz, sumW, sumD);
                }
            }
            records[i] = vec4(smoothFinish(pw.xyz, sumW, sumD), pw.w);
        }
    }
}
