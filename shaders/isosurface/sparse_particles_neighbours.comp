#version 460
#extension GL_EXT_control_flow_attributes : require
// Position smoothing and anisotropic kernels on a sparse domain,
// <name>.sparse.smooth / <name>.sparse.aniso (after sparse.fill and, with
// SphCubicSpline, the density pass; a thread per home particle of the
// listed bricks, sparse_particles_cells.glsl's home list): the particle's
// home brick (the brick of 8^3 cells holding it, clamped to the grid) lists
// its neighbours ordered by sub-cell; the thread sums its neighbourhood
// over the sub-cells within the neighbourhood radius (smoothing r,
// anisotropic grid.aniso.x; the rest of the list adds 0) with the dense gather's
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
// (sparse_particles_cells.glsl says why), at any list length. Every record is cleared to 0
// every frame before this pass: a particle
// whose home brick was not listed (past the capacities: the frame reports
// the overflow) adds nothing to the blocks (weight 0, extent 0).
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 2, std430) readonly buffer BrickListBuf { uint bricks[]; };
// The cell table, the references and the particles at 1, 3 and 4
// (sparse_particles_reads.glsl: texel buffers in the .texel builds).
#include "isosurface/sparse_particles_reads.glsl"
layout(set = 0, binding = 5, std430) writeonly buffer RecordsBuf { vec4 records[]; };
#ifdef ISO_PARTICLE_SPH
layout(set = 0, binding = 6, std430) readonly buffer VolumesBuf { float volumes[]; };
#endif

#include "isosurface/particles_common.glsl"
#include "isosurface/particles_neighbours.glsl"
#define ISO_CELLS_READ
#include "isosurface/sparse_particles_cells.glsl"

void main() {
    const uint t = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    const bool aniso = isoOpaque(pc.srcLevel) == 1u;
    if (t >= cellHomes()) return;
    const uvec2 home = cellHome(t);
    const uint i = home.x;
    const BrickCells c = brickCells(home.y);
    vec4 pw;
    loadParticle(i, pw); // sparse.fill listed it: a particle it loaded
    // smoothAdd's radius, anisoAdd's.
    const CellQuery q = cellQuery(c, pw.xyz, aniso ? grid.aniso.x : grid.particle.x);
    if (aniso) {
        AnisoSums sums = anisoSumsZero();
        for (uint row = 0u; row < q.rows; ++row) {
            const uvec2 run = cellRange(c, q, row);
            for (uint k0 = run.x; k0 < run.y; k0 += kIsoListUnroll) {
                [[unroll]] for (uint u = 0u; u < kIsoListUnroll; ++u) {
                    if (k0 + u >= run.y) break;
                    vec4 o;
                    loadParticle(cellItem(c, k0 + u), o);
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
                    loadParticle(cellItem(c, k0 + u), o);
                    smoothAdd(pw.xyz, o.xyz, sumW, sumD);
                }
            }
        }
        records[i] = vec4(smoothFinish(pw.xyz, sumW, sumD), pw.w);
    }
}
