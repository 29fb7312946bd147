// A particle's neighbourhood sums and what follows from them, shared by the
// dense gather's passes (particles_smooth.comp, particles_aniso.comp: the
// neighbours from the bins) and a sparse domain's
// (sparse_particles_neighbours.comp: the neighbours from the particle's home
// brick's list), so that both compute the same bits: every term truncated
// to 1/kIsoSmoothFixedOne and summed as an integer (any order, the same
// sums), every product next to an add through mulThenAdd()
// (particles_kernel.glsl). Needs `grid` and GL_EXT_control_flow_attributes.
#ifndef ISO_PARTICLES_NEIGHBOURS_GLSL
#define ISO_PARTICLES_NEIGHBOURS_GLSL
#include "isosurface/particles_kernel.glsl"

// Position smoothing (Yu & Turk 2013): weight w = 1 - (|x_k - x| / r)^3 and
// offset (in radii) of neighbour `other` of the particle at `p`, added to the
// sums; nothing past the radius.
void smoothAdd(vec3 p, vec3 other, inout uint sumW, inout ivec3 sumD) {
    const float fixedOne = float(kIsoSmoothFixedOne);
    precise vec3 d = (other - p) / grid.particle.x;
    precise float q = mulThenAdd(d.x, d.x, mulThenAdd(d.y, d.y, d.z * d.z));
    if (q >= 1.0) return;
    precise float w = mulThenAdd(-q, sqrt(q), 1.0);
    precise vec3 wd = w * d * fixedOne;
    sumW += uint(w * fixedOne);
    sumD += ivec3(wd);
}

// The smoothed position x + lambda (weighted mean offset): sumW >=
// kIsoSmoothFixedOne (the particle itself weighs 1).
vec3 smoothFinish(vec3 p, uint sumW, ivec3 sumD) {
    precise vec3 mean = vec3(sumD) / float(sumW) * grid.particle.x;
    precise vec3 moved = vec3(mulThenAdd(grid.particle.z, mean.x, p.x), mulThenAdd(grid.particle.z, mean.y, p.y),
                              mulThenAdd(grid.particle.z, mean.z, p.z));
    return moved;
}

// Anisotropic kernels: the weighted sums of neighbour `other` (within the
// neighbourhood radius rn = grid.aniso.x) of the particle at `p`.
struct AnisoSums {
    uint w, count;
    ivec3 d, diag, off; // sum w d; xx yy zz; xy xz yz
};

AnisoSums anisoSumsZero() { return AnisoSums(0u, 0u, ivec3(0), ivec3(0), ivec3(0)); }

void anisoAdd(vec3 p, vec3 other, inout AnisoSums s) {
    const float fixedOne = float(kIsoSmoothFixedOne);
    const float invRn = 1.0 / grid.aniso.x;
    precise vec3 d = (other - p) * invRn;
    precise float q = mulThenAdd(d.x, d.x, mulThenAdd(d.y, d.y, d.z * d.z));
    if (q >= 1.0) return;
    precise float w = mulThenAdd(-q, sqrt(q), 1.0);
    precise vec3 wd = w * d;
    s.w += uint(w * fixedOne);
    s.d += ivec3(wd * fixedOne);
    precise vec3 diag = wd * d * fixedOne;
    precise vec3 off = vec3(wd.x * d.y, wd.x * d.z, wd.y * d.z) * fixedOne;
    s.diag += ivec3(diag);
    s.off += ivec3(off);
    ++s.count;
}

// One Jacobi rotation zeroing a[p][q] of the symmetric a, accumulated into v
// (columns = eigenvectors).
void anisoRotate(inout float a[3][3], inout float v[3][3], const int p, const int q) {
    const float apq = a[p][q];
    if (abs(apq) < 1e-20) return;
    precise float theta = (a[q][q] - a[p][p]) / (2.0 * apq);
    // The smaller root of t^2 + 2 theta t - 1 = 0 (theta 0: t = 1, not sign()'s 0).
    precise float t = (theta >= 0.0 ? 1.0 : -1.0) / (abs(theta) + sqrt(mulThenAdd(theta, theta, 1.0)));
    precise float c = inversesqrt(mulThenAdd(t, t, 1.0));
    precise float s = t * c;
    [[unroll]] for (int k = 0; k < 3; ++k) {
        const float akp = a[k][p], akq = a[k][q];
        a[k][p] = mulThenAdd(c, akp, -(s * akq));
        a[k][q] = mulThenAdd(s, akp, c * akq);
    }
    [[unroll]] for (int k = 0; k < 3; ++k) {
        const float apk = a[p][k], aqk = a[q][k];
        a[p][k] = mulThenAdd(c, apk, -(s * aqk));
        a[q][k] = mulThenAdd(s, apk, c * aqk);
    }
    [[unroll]] for (int k = 0; k < 3; ++k) {
        const float vkp = v[k][p], vkq = v[k][q];
        v[k][p] = mulThenAdd(c, vkp, -(s * vkq));
        v[k][q] = mulThenAdd(s, vkp, c * vkq);
    }
}

// The kernel record (kIsoAnisoRecordVec4s vec4s) of the particle at `p` of
// weight `weight` from its sums (particles_aniso.comp says how).
void anisoFinish(vec3 p, float weight, AnisoSums s, out vec4 r0, out vec4 r1, out vec4 r2) {
    // s.w >= kIsoSmoothFixedOne: the particle itself weighs 1.
    const float W = float(s.w);
    precise vec3 m = vec3(s.d) / W;
    float a[3][3], v[3][3];
    a[0][0] = mulThenAdd(-m.x, m.x, float(s.diag.x) / W);
    a[1][1] = mulThenAdd(-m.y, m.y, float(s.diag.y) / W);
    a[2][2] = mulThenAdd(-m.z, m.z, float(s.diag.z) / W);
    a[0][1] = a[1][0] = mulThenAdd(-m.x, m.y, float(s.off.x) / W);
    a[0][2] = a[2][0] = mulThenAdd(-m.x, m.z, float(s.off.y) / W);
    a[1][2] = a[2][1] = mulThenAdd(-m.y, m.z, float(s.off.z) / W);
    [[unroll]] for (int r = 0; r < 3; ++r)
        [[unroll]] for (int c = 0; c < 3; ++c) v[r][c] = r == c ? 1.0 : 0.0;
    // 3x3: a handful of sweeps converges to float precision; always the same
    // number, so every run does the same operations.
    [[unroll]] for (int sweep = 0; sweep < 6; ++sweep) {
        anisoRotate(a, v, 0, 1);
        anisoRotate(a, v, 0, 2);
        anisoRotate(a, v, 1, 2);
    }
    const float maxRatio = grid.aniso.y, maxStretch = grid.aniso.z, isolated = grid.aniso.w;
    const vec3 sigma = max(vec3(a[0][0], a[1][1], a[2][2]), vec3(0.0));
    const float sigmaMax = max(sigma.x, max(sigma.y, sigma.z));
    vec3 axis;
    // sigmaMax 0: every neighbour at the particle itself, no shape to follow.
    if (s.count < grid.anisoReach.w || !(sigmaMax > 0.0)) {
        axis = vec3(s.count < grid.anisoReach.w ? isolated : 1.0);
    } else {
        precise vec3 rho = clamp(sigma / (sigmaMax * grid.particle.w), vec3(1.0 / maxRatio), vec3(1.0));
        precise vec3 stretched = rho / pow(rho.x * rho.y * rho.z, 1.0 / 3.0);
        axis = min(stretched, vec3(maxStretch));
    }
    precise vec3 inv = 1.0 / axis;
    // G' = V diag(1/a) V^T (symmetric), then G = G' / radius.
    float g[6];
    const int rr[6] = int[6](0, 0, 0, 1, 1, 2), cc[6] = int[6](0, 1, 2, 1, 2, 2);
    [[unroll]] for (int e = 0; e < 6; ++e) {
        const int r = rr[e], c = cc[e];
        precise float sum = mulThenAdd(v[r][0] * v[c][0], inv.x,
                                       mulThenAdd(v[r][1] * v[c][1], inv.y, v[r][2] * v[c][2] * inv.z));
        g[e] = sum / grid.particle.x;
    }
    precise float extent = max(axis.x, max(axis.y, axis.z)) * grid.particle.x;
    precise float shift = grid.particle.z * grid.aniso.x;
    precise vec3 centre = vec3(mulThenAdd(shift, m.x, p.x), mulThenAdd(shift, m.y, p.y), mulThenAdd(shift, m.z, p.z));
    precise float wdet = weight * inv.x * inv.y * inv.z;
    r0 = vec4(centre, wdet);
    r1 = vec4(g[0], g[1], g[2], g[3]);
    r2 = vec4(g[4], g[5], extent * extent, 0.0);
}
#endif
