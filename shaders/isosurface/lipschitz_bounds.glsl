// Lipschitz intervals of a user field over boxes of samples, for the
// passes wrapped around the host's snippet that bound where the surface can
// be (brick_list.comp: the bricks of the direct table; sparse_activate.glsl:
// the bricks of a sparse domain). Needs `grid`, `pc`, field() and ISO_LIPSCHITZ (the
// constant's exact bits) defined by the includer.
#ifndef ISO_LIPSCHITZ_BOUNDS_GLSL
#define ISO_LIPSCHITZ_BOUNDS_GLSL

// Interval holding field() at the samples lo..hi (sample coordinates,
// inclusive) if field() is L-Lipschitz. The margin covers the rounding of
// the sample positions (a few ulps of the largest coordinate), of r and of
// field() itself (relative 1e-5 of the centre value).
vec2 isoBoxBounds(uvec3 lo, uvec3 hi) {
    const vec3 a = grid.boundsMin.xyz + vec3(lo) * grid.spacing.xyz;
    const vec3 b = grid.boundsMin.xyz + vec3(hi) * grid.spacing.xyz;
    const float fc = field(0.5 * (a + b));
    const vec3 m = max(abs(a), abs(b));
    const float r = 0.5 * length(b - a) * 1.001 + 1e-6 * max(m.x, max(m.y, m.z));
    const float d = ISO_LIPSCHITZ * r + 1e-5 * abs(fc);
    const float inf = uintBitsToFloat(0x7f800000u);
    if (!isFiniteF(fc) || !isFiniteF(d)) return vec2(-inf, inf);
    return vec2(fc - d, fc + d);
}

bool isoStraddles(vec2 b) { return b.y >= pc.iso && b.x < pc.iso; }

#endif
