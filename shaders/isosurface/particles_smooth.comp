#version 460
#extension GL_EXT_control_flow_attributes : require
// Particle gather with position smoothing (IsoSurfaceCreateInfo::
// particleSmoothing = lambda), between the sort and the gather: one thread per
// sorted particle moves it towards the weighted mean of its neighbours within
// the kernel radius r, as Yu & Turk 2013 do before their anisotropic kernels:
//   x' = x + lambda (sum_j w_ij (x_j - x)) / (sum_j w_ij),  w_ij = 1 - (|x_j - x| / r)^3,
// j over every binned particle with |x_j - x| < r, itself included (weights
// of the particles are not used). Neighbours come from the bins around the
// particle's bin; the bins reach (2 + lambda) r past the grid, so every
// particle that can reach a sample after moving has all its neighbours.
// Each weight and weighted offset (in radii) is summed as an integer of
// 1/kIsoSmoothFixedOne: the sums, and so the smoothed particle, do not
// depend on the order the sort left within a bin (particles_neighbours.glsl,
// shared with a sparse domain's pass). The count and sort passes
// then bin the smoothed particles again, so the gather reads only the bins
// within r of a sample.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
// The bin starts and the sorted particles; particles_reads.glsl.
#include "isosurface/particles_reads.glsl"
layout(set = 0, binding = 3, std430) writeonly buffer SmoothedBuf { vec4 smoothed[]; };

#include "isosurface/particles_bins.glsl"
#include "isosurface/particles_neighbours.glsl"

void main() {
    const uint j = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    if (j >= BIN_START(grid.binDims.w)) {
        // Weight 0: the re-binning of the smoothed particles skips the rest.
        if (j < min(pc.itemCount, grid.maxItems)) smoothed[j] = vec4(0.0);
        return;
    }
    const vec4 pw = RECORD(j);
    uint bin;
    binOf(pw.xyz, bin); // the sort binned it with the same function
    const uvec3 dims = grid.binDims.xyz;
    const uvec3 b = uvec3(bin % dims.x, (bin / dims.x) % dims.y, bin / (dims.x * dims.y));
    const uvec3 lo = uvec3(max(ivec3(b) - ivec3(grid.smoothReach.xyz), ivec3(0)));
    const uvec3 hi = min(b + grid.smoothReach.xyz, dims - 1u);
    uint sumW = 0u;
    ivec3 sumD = ivec3(0);
    for (uint bz = lo.z; bz <= hi.z; ++bz)
        for (uint by = lo.y; by <= hi.y; ++by) {
            // Only the bins of this row the support sphere can reach (about
            // half the box's).
            uint x0, x1;
            if (!rowBins(pw.xyz, grid.particle.x, by, bz, lo.x, hi.x, x0, x1)) continue;
            const uint row = dims.x * (by + dims.y * bz);
            const uint end = BIN_START(row + x1 + 1);
            for (uint k = BIN_START(row + x0); k < end; ++k) smoothAdd(pw.xyz, RECORD(k).xyz, sumW, sumD);
        }
    const vec3 moved = smoothFinish(pw.xyz, sumW, sumD);
    smoothed[j] = vec4(moved, pw.w);
}
