#version 460
#extension GL_EXT_control_flow_attributes : require
// ParticleKernel::SphCubicSpline on a sparse domain, <name>.sparse.density
// (after sparse.fill, before the blocks; classify's indirect dispatch,
// kIsoBricksPerGroup bricks a group, taken one after the other by the
// group's threads): each listed brick's list sorted by sub-cell
// (sparse_particles_cells.glsl), then its threads take the particles of its
// list whose home brick (the brick of 8^3 cells holding the particle,
// clamped to the grid) it is, and sum the cubic spline over the sub-cells
// within r of each (the rest of the list adds 0),
// rho_i = sum_k w_k W(|x_k - x_i|) (particles_kernel.glsl's sphTerm, 16.16
// terms summed as integers). A neighbour within the support r of a particle
// inside the grid has a kernel box that holds a sample of the particle's
// cell (r >= one sample spacing, checked at creation), so it is in the home
// brick's list: rho_i, and V_i = w_i / rho_i, equal the dense gather's
// density pass bit for bit. volumes[i] (by the particle's index in the
// frame) is cleared to 0 every frame before this pass: a particle whose home
// brick was not listed (past the capacities: the frame reports the
// overflow) adds nothing. The ISO_SPARSE_SMOOTHED build (particleSmoothing) sums
// over the smoothed particles instead; the lists then reach (1 + 2 lambda)
// r past every particle (sparse_particles_bin.comp), so the home brick's
// list still holds every smoothed neighbour; its sub-cells sort the smoothed
// positions.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoBricksPerGroup * kIsoBorderThreads) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer CountersBuf { IsoCounters counters; };
layout(set = 0, binding = 2, std430) readonly buffer BrickListBuf { uint bricks[]; };
layout(set = 0, binding = 3, std430) readonly buffer BrickItemsBuf { uint brickItems[]; };
layout(set = 0, binding = 4, std430) readonly buffer ParticlesBuf { float particleData[]; };
layout(set = 0, binding = 5, std430) writeonly buffer VolumesBuf { float volumes[]; };
#ifdef ISO_SPARSE_SMOOTHED
// Position smoothing: the smoothed particles by index (x', weight), from
// sparse_particles_neighbours.comp; the density is theirs, as the dense
// density pass sums over the re-binned smoothed particles.
layout(set = 0, binding = 6, std430) readonly buffer SmoothedBuf { vec4 smoothed[]; };
#endif

#include "isosurface/particles_common.glsl"
#include "isosurface/particles_kernel.glsl"

// The positions the density measures distances between.
vec3 cellPosition(uint index) {
#ifdef ISO_SPARSE_SMOOTHED
    return smoothed[index].xyz;
#else
    vec4 o;
    loadParticle(index, o);
    return o.xyz;
#endif
}

#ifdef ISO_SPARSE_SMOOTHED
// The sub-cells sort the smoothed positions; home is the particle's own.
#define ISO_CELLS_HOME_BY_LIST
#endif
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
#ifdef ISO_SPARSE_SMOOTHED
            pw = smoothed[i];
#endif
            const CellQuery q = cellQuery(c, pw.xyz, grid.particle.x);
            uint rho = 0u;
            // kIsoListUnroll neighbours an iteration: lavapipe ends an
            // invocation's loops after 65,535 iterations in all
            // (sparse_particles_cells.glsl). The sum is an integer: any order.
            for (uint row = 0u; row < q.rows; ++row) {
                const uvec2 run = cellRange(c, q, row);
                for (uint k0 = run.x; k0 < run.y; k0 += kIsoListUnroll) {
                    [[unroll]] for (uint u = 0u; u < kIsoListUnroll; ++u) {
                        const uint k = k0 + u;
                        if (k >= run.y) break;
                        vec4 o;
#ifdef ISO_SPARSE_SMOOTHED
                        o = smoothed[cellItem(c, q, k)];
#else
                        loadParticle(cellItem(c, q, k), o);
#endif
                        rho += sphTerm(o.x - pw.x, squaredYZ(o.y - pw.y, o.z - pw.z), o.w);
                    }
                }
            }
            precise float v = rho != 0u ? pw.w * float(kIsoSplatFixedOne) / float(rho) : 0.0;
            volumes[i] = v;
        }
        barrier(); // the next brick's sort reuses the shared arrays
    }
}
