#version 460
#extension GL_EXT_control_flow_attributes : require
// Position smoothing and anisotropic kernels on a sparse domain,
// <name>.sparse.smooth / <name>.sparse.aniso (after sparse.fill and, with
// SphCubicSpline, the density pass; classify's indirect dispatch,
// kIsoBricksPerGroup bricks a group, taken one after the other by the
// group's threads): each listed brick's list sorted by sub-cell
// (sparse_particles_cells.glsl), then its threads take the particles of its
// list whose home brick (the brick of 8^3 cells holding the particle,
// clamped to the grid) it is, and sum their neighbourhoods over the
// sub-cells within the neighbourhood radius (smoothing r, anisotropic
// grid.aniso.x; the rest of the list adds 0) with the dense gather's
// functions (particles_neighbours.glsl): the same terms, the
// same integer sums, so the same bits as particles_smooth.comp /
// particles_aniso.comp compute for the same particle. The lists reach
// grid.sparseParticleReach.x around every particle (sparse_particles_bin.comp,
// listSamples), past the neighbourhood radius, so every neighbour of a
// particle is in its home brick's list. Writes, by the particle's index in
// the frame (pc.srcLevel):
// 0 (smoothing): records[i] = (smoothed position, weight);
// 1 (anisotropic): records[3 i ..] = particles_aniso.comp's kernel record
//   (the ISO_PARTICLE_SPH build: weight = the density pass's volume).
// The loops take kIsoListUnroll particles an iteration
// (sparse_particles_cells.glsl says why). Every record is cleared to 0
// every frame before this pass: a particle
// whose home brick was not listed (past the capacities: the frame reports
// the overflow) adds nothing to the blocks (weight 0, extent 0).
#include "isosurface/common.glsl"

layout(local_size_x = kIsoBricksPerGroup * kIsoBorderThreads) in;

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

vec3 cellPosition(uint index) {
    vec4 o;
    loadParticle(index, o);
    return o.xyz;
}

#include "isosurface/sparse_particles_cells.glsl"

// The brick of cells holding p, clamped to the grid's bricks.
uvec3 homeBrick(vec3 p) {
    const vec3 rel = (p - grid.boundsMin.xyz) / grid.spacing.xyz;
    const vec3 b = clamp(floor(rel / float(kIsoBrickCells)), vec3(0.0), vec3(grid.sparse.xyz) - 1.0);
    return uvec3(b);
}

void main() {
    const uint l = gl_LocalInvocationIndex;
    const uint listed = min(counters.sparseBricks, grid.sparseLimits.x);
    const bool aniso = isoOpaque(pc.srcLevel) == 1u;
    // smoothAdd's radius, anisoAdd's.
    const float radius = aniso ? grid.aniso.x : grid.particle.x;
    for (uint g = 0u; g < kIsoBricksPerGroup; ++g) {
        const uint brick = linearGroup() * kIsoBricksPerGroup + g;
        if (brick >= listed) break; // the same for the whole group
        const BrickCells c = brickCells(brick);
        sortCells(c, l);
        const uvec3 b = cellBrickOf(bricks[brick]);
        const uint homes = cellHomes(c);
        for (uint h = l; h < homes; h += kIsoCellThreads) {
            const uint i = cellHome(c, h);
            vec4 pw;
            loadParticle(i, pw); // sparse.fill listed it: a particle it loaded
            if (homeBrick(pw.xyz) != b) continue;
            const CellQuery q = cellQuery(c, pw.xyz, radius);
            if (aniso) {
                AnisoSums sums = anisoSumsZero();
                for (uint row = 0u; row < q.rows; ++row) {
                    const uvec2 run = cellRange(c, q, row);
                    for (uint k0 = run.x; k0 < run.y; k0 += kIsoListUnroll) {
                        [[unroll]] for (uint u = 0u; u < kIsoListUnroll; ++u) {
                            if (k0 + u >= run.y) break;
                            vec4 o;
                            loadParticle(cellItem(c, q, k0 + u), o);
                            anisoAdd(pw.xyz, o.xyz, sums);
                        }
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
                for (uint row = 0u; row < q.rows; ++row) {
                    const uvec2 run = cellRange(c, q, row);
                    for (uint k0 = run.x; k0 < run.y; k0 += kIsoListUnroll) {
                        [[unroll]] for (uint u = 0u; u < kIsoListUnroll; ++u) {
                            if (k0 + u >= run.y) break;
                            vec4 o;
                            loadParticle(cellItem(c, q, k0 + u), o);
                            smoothAdd(pw.xyz, o.xyz, sumW, sumD);
                        }
                    }
                }
                records[i] = vec4(smoothFinish(pw.xyz, sumW, sumD), pw.w);
            }
        }
        barrier(); // the next brick's sort reuses the shared arrays
    }
}
