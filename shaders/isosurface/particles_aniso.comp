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
// sort left within a bin: the kernels are identical every frame.
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
layout(set = 0, binding = 1, std430) readonly buffer BinStartBuf { uint binStart[]; };
layout(set = 0, binding = 2, std430) readonly buffer SortedBuf { vec4 sorted[]; };
layout(set = 0, binding = 3, std430) writeonly buffer KernelBuf { vec4 kernels[]; };

#include "isosurface/particles_bins.glsl"

// One Jacobi rotation zeroing a[p][q] of the symmetric a, accumulated into v
// (columns = eigenvectors).
void rotate(inout float a[3][3], inout float v[3][3], const int p, const int q) {
    const float apq = a[p][q];
    if (abs(apq) < 1e-20) return;
    const float theta = (a[q][q] - a[p][p]) / (2.0 * apq);
    // The smaller root of t^2 + 2 theta t - 1 = 0 (theta 0: t = 1, not sign()'s 0).
    const float t = (theta >= 0.0 ? 1.0 : -1.0) / (abs(theta) + sqrt(theta * theta + 1.0));
    const float c = inversesqrt(t * t + 1.0);
    const float s = t * c;
    [[unroll]] for (int k = 0; k < 3; ++k) {
        const float akp = a[k][p], akq = a[k][q];
        a[k][p] = c * akp - s * akq;
        a[k][q] = s * akp + c * akq;
    }
    [[unroll]] for (int k = 0; k < 3; ++k) {
        const float apk = a[p][k], aqk = a[q][k];
        a[p][k] = c * apk - s * aqk;
        a[q][k] = s * apk + c * aqk;
    }
    [[unroll]] for (int k = 0; k < 3; ++k) {
        const float vkp = v[k][p], vkq = v[k][q];
        v[k][p] = c * vkp - s * vkq;
        v[k][q] = s * vkp + c * vkq;
    }
}

void main() {
    const uint j = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    if (j >= binStart[grid.binDims.w]) return; // the gather reads binned particles only
    const vec4 pw = sorted[j];
    uint bin;
    binOf(pw.xyz, bin); // the sort binned it with the same function
    const uvec3 dims = grid.binDims.xyz;
    const uvec3 b = uvec3(bin % dims.x, (bin / dims.x) % dims.y, bin / (dims.x * dims.y));
    const uvec3 lo = uvec3(max(ivec3(b) - ivec3(grid.anisoReach.xyz), ivec3(0)));
    const uvec3 hi = min(b + grid.anisoReach.xyz, dims - 1u);
    const float fixedOne = float(kIsoSmoothFixedOne);
    const float rn = grid.aniso.x, invRn = 1.0 / rn;
    uint sumW = 0u, count = 0u;
    ivec3 sumD = ivec3(0);
    ivec3 sumDiag = ivec3(0), sumOff = ivec3(0); // xx yy zz, xy xz yz
    for (uint bz = lo.z; bz <= hi.z; ++bz)
        for (uint by = lo.y; by <= hi.y; ++by) {
            // Only the bins of this row the neighbourhood sphere can reach
            // (about half the box's).
            uint x0, x1;
            if (!rowBins(pw.xyz, rn, by, bz, lo.x, hi.x, x0, x1)) continue;
            const uint row = dims.x * (by + dims.y * bz);
            const uint end = binStart[row + x1 + 1];
            for (uint k = binStart[row + x0]; k < end; ++k) {
                precise vec3 d = (sorted[k].xyz - pw.xyz) * invRn;
                precise float q = d.x * d.x + (d.y * d.y + d.z * d.z);
                if (q >= 1.0) continue;
                precise float w = 1.0 - q * sqrt(q);
                precise vec3 wd = w * d;
                sumW += uint(w * fixedOne);
                sumD += ivec3(wd * fixedOne);
                precise vec3 diag = wd * d * fixedOne;
                precise vec3 off = vec3(wd.x * d.y, wd.x * d.z, wd.y * d.z) * fixedOne;
                sumDiag += ivec3(diag);
                sumOff += ivec3(off);
                ++count;
            }
        }
    // sumW >= kIsoSmoothFixedOne: the particle itself weighs 1.
    const float W = float(sumW);
    const vec3 m = vec3(sumD) / W;
    float a[3][3], v[3][3];
    a[0][0] = float(sumDiag.x) / W - m.x * m.x;
    a[1][1] = float(sumDiag.y) / W - m.y * m.y;
    a[2][2] = float(sumDiag.z) / W - m.z * m.z;
    a[0][1] = a[1][0] = float(sumOff.x) / W - m.x * m.y;
    a[0][2] = a[2][0] = float(sumOff.y) / W - m.x * m.z;
    a[1][2] = a[2][1] = float(sumOff.z) / W - m.y * m.z;
    [[unroll]] for (int r = 0; r < 3; ++r)
        [[unroll]] for (int c = 0; c < 3; ++c) v[r][c] = r == c ? 1.0 : 0.0;
    // 3x3: a handful of sweeps converges to float precision; always the same
    // number, so every run does the same operations.
    [[unroll]] for (int sweep = 0; sweep < 6; ++sweep) {
        rotate(a, v, 0, 1);
        rotate(a, v, 0, 2);
        rotate(a, v, 1, 2);
    }
    const float maxRatio = grid.aniso.y, maxStretch = grid.aniso.z, isolated = grid.aniso.w;
    const vec3 sigma = max(vec3(a[0][0], a[1][1], a[2][2]), vec3(0.0));
    const float sigmaMax = max(sigma.x, max(sigma.y, sigma.z));
    vec3 axis;
    // sigmaMax 0: every neighbour at the particle itself, no shape to follow.
    if (count < grid.anisoReach.w || !(sigmaMax > 0.0)) {
        axis = vec3(count < grid.anisoReach.w ? isolated : 1.0);
    } else {
        const vec3 rho = clamp(sigma / (sigmaMax * grid.particle.w), vec3(1.0 / maxRatio), vec3(1.0));
        axis = min(rho / pow(rho.x * rho.y * rho.z, 1.0 / 3.0), vec3(maxStretch));
    }
    const vec3 inv = 1.0 / axis;
    // G' = V diag(1/a) V^T (symmetric), then G = G' / radius.
    float g[6];
    const int rr[6] = int[6](0, 0, 0, 1, 1, 2), cc[6] = int[6](0, 1, 2, 1, 2, 2);
    [[unroll]] for (int e = 0; e < 6; ++e) {
        const int r = rr[e], c = cc[e];
        g[e] = (v[r][0] * v[c][0] * inv.x + v[r][1] * v[c][1] * inv.y + v[r][2] * v[c][2] * inv.z) / grid.particle.x;
    }
    const float extent = max(axis.x, max(axis.y, axis.z)) * grid.particle.x;
    const vec3 centre = pw.xyz + grid.particle.z * m * rn;
    kernels[j * kIsoAnisoRecordVec4s] = vec4(centre, pw.w * inv.x * inv.y * inv.z);
    kernels[j * kIsoAnisoRecordVec4s + 1] = vec4(g[0], g[1], g[2], g[3]);
    kernels[j * kIsoAnisoRecordVec4s + 2] = vec4(g[4], g[5], extent * extent, 0.0);
}
