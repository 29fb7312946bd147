#version 460
#extension GL_EXT_control_flow_attributes : require
// Particle gather, step 4: one thread per tile of kIsoGatherColumn samples
// along x by kIsoGatherRows along y. The bins its kernels can reach form
// rows (fixed y, z) of bins; each row is one contiguous range of the sorted
// particles, so a tile reads each nearby particle once, drops it when its
// y/z distance to every row of the tile is past the radius, and adds it to
// the samples of the rows it reaches. No atomics; terms are
// particles_kernel.glsl's 16.16 fixed point, summed as integers: the same
// bits whatever order the sort left, and as the scatter form. On the
// bricks each tile also records whether any of its samples is nonzero
// (brick_list.comp bounds the bricks from those flags).
// The ISO_PARTICLE_SPH build (ParticleKernel::SphCubicSpline) reads the
// density pass's (xyz, volume) records and sums the cubic spline's terms.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
// The bin starts and the sorted particles, or with position smoothing the
// smoothed ones sorted again (SPH: their volume records); particles_reads.glsl.
#include "isosurface/particles_reads.glsl"
layout(set = 0, binding = 3, std430) writeonly buffer FieldBuf { float field[]; };
// grid.particleLayout.w: per tile, 1 when one of its samples is nonzero (the
// bricks' bounds, brick_list.comp); otherwise the field is bound here again
// and never written through it.
layout(set = 0, binding = 4, std430) writeonly buffer TileFlagsBuf { uint tileFlags[]; };

#include "isosurface/particles_kernel.glsl"

const uint K = kIsoGatherColumn, R = kIsoGatherRows;

void main() {
    const uint t = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    const uint cols = (grid.samples.x + K - 1) / K;
    const uint rows = (grid.samples.y + R - 1) / R;
    const uint tyz = t / cols;
    if (tyz >= rows * grid.samples.z) return;
    const uint x0 = (t - tyz * cols) * K;
    const uint y0 = (tyz % rows) * R, z = tyz / rows;
    const float zs = sampleCoord(z, grid.boundsMin.z, grid.spacing.z);
    float xs[K], ys[R];
    uint sum[R][K];
    [[unroll]] for (uint k = 0; k < K; ++k) xs[k] = sampleCoord(x0 + k, grid.boundsMin.x, grid.spacing.x);
    [[unroll]] for (uint r = 0; r < R; ++r) {
        ys[r] = sampleCoord(y0 + r, grid.boundsMin.y, grid.spacing.y);
        [[unroll]] for (uint k = 0; k < K; ++k) sum[r][k] = 0u;
    }
    // Bins of cells [x0 - below, x0 + K - 1 + above] (bin = cell + pad), the
    // same around y and z; past the grid's last run or row they are clamped.
    // Without smoothing below = pad and above = reach (all bins); with it the
    // bins reach further (the smooth pass's neighbours) and these are fewer.
    const uvec3 b0 = uvec3(x0, y0, z) + grid.binPad.xyz - grid.gatherBelow.xyz;
    const uint bx1 = min(x0 + K - 1 + grid.binPad.x + grid.gatherAbove.x, grid.binDims.x - 1);
    const uint by1 = min(y0 + R - 1 + grid.binPad.y + grid.gatherAbove.y, grid.binDims.y - 1);
    const uint bz1 = z + grid.binPad.z + grid.gatherAbove.z;
    for (uint bz = b0.z; bz <= bz1; ++bz)
        for (uint by = b0.y; by <= by1; ++by) {
            const uint row = grid.binDims.x * (by + grid.binDims.y * bz);
            const uint end = BIN_START(row + bx1 + 1);
            for (uint j = BIN_START(row + b0.x); j < end; ++j) {
                const vec4 pw = RECORD(j);
                const float dz = zs - pw.z;
                [[unroll]] for (uint r = 0; r < R; ++r) {
                    const float d2 = squaredYZ(ys[r] - pw.y, dz);
                    if (d2 * grid.particle.y < 1.0) {
                        [[unroll]] for (uint k = 0; k < K; ++k) sum[r][k] += fieldTerm(xs[k] - pw.x, d2, pw.w);
                    }
                }
            }
        }
    bool nonzero = false;
    [[unroll]] for (uint r = 0; r < R; ++r) {
        if (y0 + r >= grid.samples.y) break;
        const uint base = x0 + grid.samples.x * (y0 + r + grid.samples.y * z);
        [[unroll]] for (uint k = 0; k < K; ++k)
            if (x0 + k < grid.samples.x) {
                field[base + k] = float(sum[r][k]) / float(kIsoSplatFixedOne);
                nonzero = nonzero || sum[r][k] != 0u;
            }
    }
    // Every tile is written every frame: no clear needed.
    if (isoOpaque(grid.particleLayout.w) != 0u) tileFlags[t] = nonzero ? 1u : 0u;
}
