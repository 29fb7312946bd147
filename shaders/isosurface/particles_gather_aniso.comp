#version 460
#extension GL_EXT_control_flow_attributes : require
// Particle gather with anisotropic kernels (particles_aniso.comp's records,
// in the order of the sorted particles): the tiles of particles_gather.comp
// (kIsoGatherColumn x kIsoGatherRows samples per thread, the bin rows their
// kernels can reach), each term w det(G') (1 - |G (x - c)|^2)^3 in 16.16
// fixed point (particles_kernel.glsl's anisoTerm, as a sparse domain's
// blocks sum it), truncated and summed as integers: the same bits whatever
// order the sort left. The bins read reach the largest kernel extent
// (maxStretch radii) plus how far a centre moves (lambda x neighbourhood):
// grid.gatherBelow/Above. A particle is dropped for a row whose y/z distance
// is past its own extent.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
// The bin starts and the kernel records (kIsoAnisoRecordVec4s vec4s each); particles_reads.glsl.
#include "isosurface/particles_reads.glsl"
layout(set = 0, binding = 3, std430) writeonly buffer FieldBuf { float field[]; };
// grid.particleLayout.w: per tile, 1 when one of its samples is nonzero, as
// the isotropic gather writes (brick_list.comp bounds the bricks from them).
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
    const uvec3 b0 = uvec3(x0, y0, z) + grid.binPad.xyz - grid.gatherBelow.xyz;
    const uint bx1 = min(x0 + K - 1 + grid.binPad.x + grid.gatherAbove.x, grid.binDims.x - 1);
    const uint by1 = min(y0 + R - 1 + grid.binPad.y + grid.gatherAbove.y, grid.binDims.y - 1);
    const uint bz1 = z + grid.binPad.z + grid.gatherAbove.z;
    for (uint bz = b0.z; bz <= bz1; ++bz)
        for (uint by = b0.y; by <= by1; ++by) {
            const uint row = grid.binDims.x * (by + grid.binDims.y * bz);
            const uint end = BIN_START(row + bx1 + 1);
            for (uint j = BIN_START(row + b0.x); j < end; ++j) {
                const vec4 c = RECORD(j * kIsoAnisoRecordVec4s);
                const vec4 g0 = RECORD(j * kIsoAnisoRecordVec4s + 1); // G00 G01 G02 G11
                const vec4 g1 = RECORD(j * kIsoAnisoRecordVec4s + 2); // G12 G22 extent^2
                const float dz = zs - c.z;
                [[unroll]] for (uint r = 0; r < R; ++r) {
                    const float dy = ys[r] - c.y;
                    if (squaredYZ(dy, dz) < g1.z) {
                        // G d = column 0 dx + column 1 dy + column 2 dz.
                        const vec3 u = anisoYZ(dy, dz, g0, g1);
                        [[unroll]] for (uint k = 0; k < K; ++k) sum[r][k] += anisoTerm(xs[k] - c.x, u, g0, c.w);
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
