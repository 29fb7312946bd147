#version 460
#extension GL_EXT_control_flow_attributes : require
// Anisotropic particle kernels (IsoSurfaceCreateInfo::anisotropic, Yu & Turk
// 2013), between the sort and the anisotropic gather: one thread per sorted
// particle j sums, over every binned particle k within the neighbourhood
// radius rn (itself included), with w = 1 - (|x_k - x_j| / rn)^3:
//   W = sum w,  m = sum w d / W,  C = sum w d d^T / W - m m^T,  d = (x_k - x_j) (1 / rn),
// the weighted mean offset and the weighted covariance about the weighted
// mean. Every term is truncated to 1/kIsoSmoothFixedOne and summed as an
// integer, so the sums (and everything after) do not depend on the order the
// sort left within a bin: the kernels are identical every frame
// (particles_neighbours.glsl, shared with a sparse domain's pass).
// C's eigen-decomposition (cyclic Jacobi, a fixed number of sweeps: the same
// operations every time) gives the kernel axes in radii from the eigenvalue
// ratios rho_k = sigma_k / sigma_max:
//   rho_k' = clamp(rho_k / isotropicRatio, 1 / maxRatio, 1)
// (a soft threshold: the ratios a sampled isotropic neighbourhood shows by
// chance count as isotropic, stronger anisotropy is kept, less by as much),
// then a_k = rho_k' / cbrt(rho_0' rho_1' rho_2') (det 1: every kernel keeps
// the isotropic kernel's volume, flattening along one axis stretches the
// others) and a_k <= maxStretch. Particles with fewer than minNeighbours
// neighbours get a_k = isolatedScale. G' = V diag(1 / a) V^T. The record
// (kIsoAnisoRecordVec4s) holds the centre (the particle moved by lambda m rn:
// Yu & Turk's smoothing, lambda 0 leaves it), weight x det G', G = G' /
// radius and the squared extent (largest axis x radius) the gather culls with.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
// The bin starts and the sorted particles (SPH: their volume records); particles_reads.glsl.
#include "isosurface/particles_reads.glsl"
layout(set = 0, binding = 3, std430) writeonly buffer KernelBuf { vec4 kernels[]; };

#include "isosurface/particles_bins.glsl"
#include "isosurface/particles_neighbours.glsl"

void main() {
    const uint j = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    if (j >= BIN_START(grid.binDims.w)) return; // the gather reads binned particles only
    const vec4 pw = RECORD(j);
    uint bin;
    binOf(pw.xyz, bin); // the sort binned it with the same function
    const uvec3 dims = grid.binDims.xyz;
    const uvec3 b = uvec3(bin % dims.x, (bin / dims.x) % dims.y, bin / (dims.x * dims.y));
    const uvec3 lo = uvec3(max(ivec3(b) - ivec3(grid.anisoReach.xyz), ivec3(0)));
    const uvec3 hi = min(b + grid.anisoReach.xyz, dims - 1u);
    AnisoSums sums = anisoSumsZero();
    for (uint bz = lo.z; bz <= hi.z; ++bz)
        for (uint by = lo.y; by <= hi.y; ++by) {
            // Only the bins of this row the neighbourhood sphere can reach
            // (about half the box's).
            uint x0, x1;
            if (!rowBins(pw.xyz, grid.aniso.x, by, bz, lo.x, hi.x, x0, x1)) continue;
            const uint row = dims.x * (by + dims.y * bz);
            const uint end = BIN_START(row + x1 + 1);
            for (uint k = BIN_START(row + x0); k < end; ++k) anisoAdd(pw.xyz, RECORD(k).xyz, sums);
        }
    vec4 r0, r1, r2;
    anisoFinish(pw.xyz, pw.w, sums, r0, r1, r2);
    kernels[j * kIsoAnisoRecordVec4s] = r0;
    kernels[j * kIsoAnisoRecordVec4s + 1] = r1;
    kernels[j * kIsoAnisoRecordVec4s + 2] = r2;
}
