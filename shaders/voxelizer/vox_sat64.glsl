// The CPU reference's triangle/voxel test in double precision, for the
// variants built with VOX_EXACT64 (raster.exact64.frag,
// raster.subgroup.exact64.frag, small_triangles.exact64.comp: they declare
// Float64, so the host hands them only to devices with shaderFloat64).
// The callers of voxOverlapsFiltered (vox_triangle.glsl) run it only for the
// pairs whose float margins are within their error bounds of zero.
//
// This is tests/voxelizer/reference/voxel_reference.cpp's
// triangleOverlapsVoxel(..., Overlap::Closed) and separates() operation for
// operation: the same formulas in the same order, every product and sum
// `precise` (NoContraction: no fused multiply-add) and no dot()/cross()
// built-ins a driver could lower with fma. IEEE double add, subtract,
// multiply, abs, min, max and compares are correctly rounded/exact, so the
// GPU reproduces the reference's decision bit for bit, rounding included.
#ifndef PYRAMARCH_VOX_SAT64_GLSL
#define PYRAMARCH_VOX_SAT64_GLSL

// cross(a, b) of the reference.
dvec3 voxCross64(dvec3 a, dvec3 b) {
    precise double x = a.y * b.z - a.z * b.y;
    precise double y = a.z * b.x - a.x * b.z;
    precise double z = a.x * b.y - a.y * b.x;
    return dvec3(x, y, z);
}

// dot(a, b) of the reference: (a.x * b.x + a.y * b.y) + a.z * b.z.
double voxDot64(dvec3 a, dvec3 b) {
    precise double xy = a.x * b.x + a.y * b.y;
    precise double p = xy + a.z * b.z;
    return p;
}

// separates(axis, t, Overlap::Closed): the axis separates the box-centred
// triangle t0..t2 from the box of half size 1/2.
bool voxSeparates64(dvec3 axis, dvec3 t0, dvec3 t1, dvec3 t2) {
    if (axis.x == 0.0lf && axis.y == 0.0lf && axis.z == 0.0lf) return false;
    double p0 = voxDot64(axis, t0), p1 = voxDot64(axis, t1), p2 = voxDot64(axis, t2);
    double lo = min(min(p0, p1), p2), hi = max(max(p0, p1), p2);
    precise double s = abs(axis.x) + abs(axis.y);
    precise double r = 0.5lf * (s + abs(axis.z));
    return lo > r || hi < -r;
}

// The reference's separates(axis, t, Closed) on its ten axes other than
// X, Y, Z (whose test the exact candidate box, voxCandidateBox, decides): axis 0 =
// cross(e0, e1), axis 1 + 3p + j = cross(e_j, Z | X | Y) for p = 0 | 1 | 2.
// True when one of them separates; with the box passed, false is the
// reference's triangleOverlapsVoxel(v, x, y, z, Overlap::Closed) == true
// for its vertices v = hi + lo (v0..v2 the hi, l0..l2 the lo parts).
//
// One axis per loop trip rather than the axes in line: a CPU driver that
// runs the shader SIMD (lavapipe) executes both sides of a divergent branch
// under a lane mask, so code in an untaken branch still costs; a loop whose
// lanes are all off costs one trip.
bool voxReferenceSeparates64(ivec3 voxel, vec3 v0, vec3 v1, vec3 v2, vec3 l0, vec3 l1, vec3 l2) {
    // The reference's double vertices hi + lo (exact: 48 bits), centred at
    // the voxel centre: x + 0.5 and the differences are exact.
    dvec3 centre = dvec3(voxel) + 0.5lf;
    precise dvec3 g0 = dvec3(v0) + dvec3(l0);
    precise dvec3 g1 = dvec3(v1) + dvec3(l1);
    precise dvec3 g2 = dvec3(v2) + dvec3(l2);
    precise dvec3 t0 = g0 - centre;
    precise dvec3 t1 = g1 - centre;
    precise dvec3 t2 = g2 - centre;
    precise dvec3 e0 = t1 - t0;
    precise dvec3 e1 = t2 - t1;
    precise dvec3 e2 = t0 - t2;
    for (int b = 0; b < 10; ++b) {
        int p = (b - 1) / 3, j = (b - 1) - 3 * p;
        dvec3 unit = p == 0 ? dvec3(0.0lf, 0.0lf, 1.0lf) : (p == 1 ? dvec3(1.0lf, 0.0lf, 0.0lf) : dvec3(0.0lf, 1.0lf, 0.0lf));
        dvec3 a = b == 0 || j == 0 ? e0 : (j == 1 ? e1 : e2);
        dvec3 c = b == 0 ? e1 : unit;
        if (voxSeparates64(voxCross64(a, c), t0, t1, t2)) return true;
    }
    return false;
}

#endif
