// The particle kernel as both splat methods and the sparse block pass
// evaluate it, to the bit: sample coordinates, the squared distance dx^2 +
// (dy^2 + dz^2), and the 16.16 fixed-point term, truncated. Every
// multiply-add is mulThenAdd(): the product rounded to float, then the add,
// on every device and in every shader. Neither `precise` (NoContraction)
// nor an explicit fma() keeps that: an NVIDIA driver fused some `precise`
// products into adds in one shader and not in another (gather and scatter
// 1-2 fixed-point units apart at 26 of 17342 samples), and lavapipe ran
// sampleCoord's fma() fused in the sparse block pass but as a rounded
// multiply then add in the dense gather (a sample coordinate one ulp apart,
// one SPH term one unit apart: open edges between sparse bricks). The
// product passes through an integer OR with an opaque zero (isoOpaque), so
// no compiler sees a multiply next to the add. The CPU references in tests/
// compute the same: a rounded multiply, then the add. Needs `grid`.
#ifndef ISO_PARTICLES_KERNEL_GLSL
#define ISO_PARTICLES_KERNEL_GLSL

// A sparse domain's per-particle loops over a brick's sub-cells (the SPH
// density, the smoothing and anisotropic neighbourhoods) take this many
// particles an iteration: lavapipe ends an invocation's loops after 65,535
// iterations in all (sparse_particles_cells.glsl).
const uint kIsoListUnroll = 8u;

// a * b + c with the product rounded first, never fused (see above).
float mulThenAdd(float a, float b, float c) {
    precise float p = a * b;
    precise float s = uintBitsToFloat(isoOpaque(floatBitsToUint(p))) + c;
    return s;
}

// World coordinate of sample index i along an axis.
float sampleCoord(uint i, float boundsMin, float spacing) {
    precise float c = mulThenAdd(float(i), spacing, boundsMin);
    return c;
}

float squaredYZ(float dy, float dz) {
    precise float dz2 = dz * dz;
    precise float s = mulThenAdd(dy, dy, dz2);
    return s;
}

// Samples a..b (inclusive, clamped to the grid) of the box the kernel of a
// particle at `centre` covers; false where it misses the grid. The scatter
// adds the particle to these samples; a sparse domain lists it for the
// bricks around them (sparse_particles_bin.comp).
bool kernelSamples(vec3 centre, out uvec3 a, out uvec3 b) {
    const vec3 rel = (centre - grid.boundsMin.xyz) / grid.spacing.xyz;
    const vec3 reach = vec3(grid.particle.x) / grid.spacing.xyz;
    // In float first, so that far-away particles cannot overflow the int conversion.
    const vec3 lo = max(ceil(rel - reach), vec3(0.0));
    const vec3 hi = min(floor(rel + reach), vec3(grid.samples.xyz) - 1.0);
    a = uvec3(lo);
    b = uvec3(hi);
    return !any(greaterThan(lo, hi));
}

// Sparse particles with position smoothing or anisotropic kernels
// (grid.sparseParticleReach: x the list reach, y the filter reach, world
// units): samples a..b per axis within the list reach of `centre`, each end
// clamped into the grid on its own, so that a particle outside the grid is
// still listed in the bricks on the grid's face nearest it (where its
// neighbours inside the filter reach find it); false for a particle past the
// filter reach of the grid on some axis (it reaches nothing that counts).
// One sample of slack either way: wider lists only cost.
bool listSamples(vec3 centre, out uvec3 a, out uvec3 b) {
    const vec3 rel = (centre - grid.boundsMin.xyz) / grid.spacing.xyz;
    const vec3 reach = vec3(grid.sparseParticleReach.x) / grid.spacing.xyz + 1.0;
    const vec3 filterReach = vec3(grid.sparseParticleReach.y) / grid.spacing.xyz + 1.0;
    const vec3 top = vec3(grid.samples.xyz) - 1.0;
    a = uvec3(0u);
    b = uvec3(0u);
    if (any(lessThan(rel, -filterReach)) || any(greaterThan(rel, top + filterReach))) return false;
    a = uvec3(clamp(ceil(rel - reach), vec3(0.0), top));
    b = uvec3(clamp(floor(rel + reach), vec3(0.0), top));
    return true;
}

// Kernel term (16.16 fixed point) at squared YZ distance yz and x distance dx;
// 0 outside the support.
uint kernelTerm(float dx, float yz, float weight) {
    precise float d2 = mulThenAdd(dx, dx, yz);
    precise float k = mulThenAdd(-d2, grid.particle.y, 1.0);
    if (k <= 0.0) return 0u;
    precise float t = weight * k * k * k * float(kIsoSplatFixedOne);
    // Clamped before the conversion: a float past 2^32 has no defined uint.
    return uint(min(t, 4.0e9));
}

// ParticleKernel::SphCubicSpline: the cubic spline kernel (splashsurf's
// default) in units of its centre value, at q = d^2 / r^2 (r its support),
// s = sqrt(q): 1 - 6 s^2 + 6 s^3 for s <= 1/2, 2 (1 - s)^3 below 1, 0
// beyond. Its normalisation 8 / (pi r^3) cancels in V_j W (V_j = w_j / sum_k
// w_k W_jk), so the field needs none. Every step `precise`, no product next
// to an add but through mulThenAdd (the CPU reference in tests/ repeats them).
float cubicSplineUnit(float q) {
    if (!(q < 1.0)) return 0.0;
    precise float s = sqrt(q);
    if (s <= 0.5) {
        precise float a = 6.0 * q;
        precise float b = s - 1.0;
        precise float k = mulThenAdd(a, b, 1.0);
        return k;
    }
    precise float u = 1.0 - s;
    precise float k = 2.0 * u * u * u;
    return k;
}

// SPH term (16.16 fixed point) of a particle of volume (or weight) v at
// squared YZ distance yz and x distance dx; 0 outside the support.
uint sphTerm(float dx, float yz, float v) {
    precise float d2 = mulThenAdd(dx, dx, yz);
    precise float q = d2 * grid.particle.y;
    if (!(q < 1.0)) return 0u;
    precise float t = v * cubicSplineUnit(q) * float(kIsoSplatFixedOne);
    return uint(min(t, 4.0e9));
}

// Anisotropic kernels: the fixed-point term of one kernel (record: weight
// x det G' `wdet`, G's first column g0.xyz) at x offset dx, the y/z part of
// G d (u) already summed; 0 outside the support. The SPH build
// (ISO_PARTICLE_SPH): the cubic spline of |G d|, else (1 - |G d|^2)^3.
// The dense anisotropic gather and a sparse domain's blocks sum these.
uint anisoTerm(float dx, vec3 u, vec4 g0, float wdet) {
    precise vec3 gd = vec3(mulThenAdd(g0.x, dx, u.x), mulThenAdd(g0.y, dx, u.y), mulThenAdd(g0.z, dx, u.z));
    precise float q = mulThenAdd(gd.x, gd.x, mulThenAdd(gd.y, gd.y, gd.z * gd.z));
    if (q >= 1.0) return 0u;
#ifdef ISO_PARTICLE_SPH
    // ParticleKernel::SphCubicSpline: wdet = V det G' (the aniso pass read the density pass's volumes).
    precise float t = wdet * cubicSplineUnit(q) * float(kIsoSplatFixedOne);
#else
    precise float k = 1.0 - q;
    precise float t = wdet * k * k * k * float(kIsoSplatFixedOne);
#endif
    return uint(min(t, 4.0e9));
}

// The y/z part of G d for a kernel record's G (g0: G00 G01 G02 G11, g1: G12
// G22 ...) at offsets dy, dz.
vec3 anisoYZ(float dy, float dz, vec4 g0, vec4 g1) {
    precise vec3 u = vec3(mulThenAdd(g0.y, dy, g0.z * dz), mulThenAdd(g0.w, dy, g1.x * dz),
                          mulThenAdd(g1.x, dy, g1.y * dz));
    return u;
}

// The term the gather sums: the SPH build (ISO_PARTICLE_SPH) or the
// neighbour count.
uint fieldTerm(float dx, float yz, float weight) {
#ifdef ISO_PARTICLE_SPH
    return sphTerm(dx, yz, weight);
#else
    return kernelTerm(dx, yz, weight);
#endif
}
#endif
