#version 460
// ParticleKernel::SphCubicSpline, between the sort (or the re-binning of
// smoothed particles) and the gather: one thread per sorted particle j sums
// the cubic spline over its binned neighbours within the support r, itself
// included, rho_j = sum_k w_k W(|x_k - x_j|), and writes (x_j, V_j) with the
// volume V_j = w_j / rho_j (1 for a lone particle; particles_density.glsl,
// shared with sparse_particles_density.comp), in the same order: the gather
// (or the aniso pass) reads those. The bins reach r past every particle that
// can reach a sample, so such a particle has all its neighbours binned.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
// The bin starts and the particles (particles_reads.glsl: texel reads in the .texel build).
#include "isosurface/particles_reads.glsl"
layout(set = 0, binding = 3, std430) writeonly buffer VolumesBuf { vec4 volumes[]; };

#include "isosurface/particles_bins.glsl"
#include "isosurface/particles_kernel.glsl"
#include "isosurface/particles_density.glsl"

void main() {
    const uint j = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    if (j >= BIN_START(grid.binDims.w)) return; // past the binned ones: nobody reads them
    const vec4 pw = RECORD(j);
    uint bin;
    binOf(pw.xyz, bin); // the sort binned it with the same function
    const uvec3 dims = grid.binDims.xyz;
    const uvec3 b = uvec3(bin % dims.x, (bin / dims.x) % dims.y, bin / (dims.x * dims.y));
    const uvec3 lo = uvec3(max(ivec3(b) - ivec3(grid.smoothReach.xyz), ivec3(0)));
    const uvec3 hi = min(b + grid.smoothReach.xyz, dims - 1u);
    uint rho = 0u;
    for (uint bz = lo.z; bz <= hi.z; ++bz) {
        uint y0, y1;
        if (!slabRows(pw.xyz, grid.particle.x, bz, lo.y, hi.y, y0, y1)) continue;
        for (uint by = y0; by <= y1; ++by) {
            uint x0, x1;
            if (!rowBins(pw.xyz, grid.particle.x, by, bz, lo.x, hi.x, x0, x1)) continue;
            const uint row = dims.x * (by + dims.y * bz);
            const uint end = BIN_START(row + x1 + 1);
            for (uint k = BIN_START(row + x0); k < end; ++k) {
                const vec4 o = RECORD(k);
                densityAdd(pw, o, rho);
            }
        }
    }
    volumes[j] = vec4(pw.xyz, densityVolume(pw.w, rho));
}
