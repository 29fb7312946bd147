#version 460
#extension GL_EXT_control_flow_attributes : require
// ParticleKernel::SphCubicSpline on a sparse domain, <name>.sparse.density
// (after sparse.fill, before the blocks; a thread per home particle of the
// listed bricks, sparse_particles_cells.glsl's home list): the particle's
// home brick (the brick of 8^3 cells holding it, clamped to the grid) lists
// every neighbour within its support r (a neighbour's kernel box holds a
// sample of the particle's cell, r >= one sample spacing, checked at
// creation), ordered by sub-cell; the thread sums the cubic spline over the
// sub-cells within r (the rest of the list adds 0),
// rho_i = sum_k w_k W(|x_k - x_i|), and V_i = w_i / rho_i
// (particles_density.glsl, shared with the dense density pass
// particles_density.comp: 16.16 terms summed as integers), so both equal
// the dense gather's density pass bit for bit, at any list length. volumes[i]
// (by the particle's index in the frame) is cleared to 0 every frame before
// this pass: a particle whose home brick was not listed (past the
// capacities: the frame reports the overflow) adds nothing. The
// ISO_SPARSE_SMOOTHED build (particleSmoothing) sums over the smoothed
// particles instead: the sub-cells sort the particles' own positions and a
// smoothed particle lies within lambda r of its own, so the query takes the
// sub-cells within (1 + lambda) r of the smoothed position; the lists reach
// (1 + 2 lambda) r past every particle (sparse_particles_bin.comp), so the
// home brick's list still holds every smoothed neighbour.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 2, std430) readonly buffer BrickListBuf { uint bricks[]; };
layout(set = 0, binding = 5, std430) writeonly buffer VolumesBuf { float volumes[]; };
// The cell table, the references and the particles at 1, 3 and 4
// (sparse_particles_reads.glsl: texel buffers in the .texel builds).
#include "isosurface/sparse_particles_reads.glsl"
#ifdef ISO_SPARSE_SMOOTHED
// Position smoothing: the smoothed particles by index (x', weight), from
// sparse_particles_neighbours.comp; the density is theirs, as the dense
// density pass sums over the re-binned smoothed particles. A texel buffer
// in the .texel builds.
#ifdef ISO_TEXEL_READS
layout(set = 0, binding = 6) uniform samplerBuffer smoothedTexels;
#define SMOOTHED(i) texelFetch(smoothedTexels, int(i))
#else
layout(set = 0, binding = 6, std430) readonly buffer SmoothedBuf { vec4 smoothed[]; };
#define SMOOTHED(i) smoothed[i]
#endif
#endif

#include "isosurface/particles_common.glsl"
#include "isosurface/particles_kernel.glsl"
#include "isosurface/particles_density.glsl"
#define ISO_CELLS_READ
#include "isosurface/sparse_particles_cells.glsl"

void main() {
    const uint t = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    if (t >= cellHomes()) return;
    const uvec2 home = cellHome(t);
    const uint i = home.x;
    const BrickCells c = brickCells(home.y);
    vec4 pw;
#ifdef ISO_SPARSE_SMOOTHED
    pw = SMOOTHED(i); // (binding 4 unused: a storage buffer in every build)
    const float reach = mulThenAdd(grid.particle.z, grid.particle.x, grid.particle.x);
#else
    loadParticle(i, pw); // sparse.fill listed it: a particle it loaded
    const float reach = grid.particle.x;
#endif
    const CellQuery q = cellQuery(c, pw.xyz, reach);
    uint rho = 0u;
    // kIsoListUnroll neighbours an iteration (sparse_particles_cells.glsl).
    // The sum is an integer: any order.
    for (uint row = 0u; row < q.rows; ++row) {
        const uvec2 run = cellRange(c, q, row);
        for (uint k0 = run.x; k0 < run.y; k0 += kIsoListUnroll) {
            [[unroll]] for (uint u = 0u; u < kIsoListUnroll; ++u) {
                const uint k = k0 + u;
                if (k >= run.y) break;
                vec4 o;
#ifdef ISO_SPARSE_SMOOTHED
                o = SMOOTHED(cellItem(c, k));
#else
                loadParticle(cellItem(c, k), o);
#endif
                densityAdd(pw, o, rho);
            }
        }
    }
    volumes[i] = densityVolume(pw.w, rho);
}
