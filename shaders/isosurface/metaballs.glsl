// Metaballs, shared by the field pass (field_metaballs.comp), the bricks'
// bounds (brick_list.comp) and a sparse domain's passes
// (sparse_metaballs_activate.comp, sparse_metaball_field.glsl): the ball
// ring at binding ISO_BALLS_BINDING (default 1), the reach test all use to
// skip a ball, one ball's term and its range over a box. Needs `grid`
// declared by the includer.
#ifndef ISO_METABALLS_GLSL
#define ISO_METABALLS_GLSL

// The balls: texel fetches (an R32G32B32A32_SFLOAT view, 2 texels per
// ball: lavapipe gathers them as vectors, one load for the batch where every
// lane reads the same ball) where the device's maxTexelBufferElements covers
// the ring (ISO_TEXEL_READS), else a storage buffer (the .storage variant).
#ifndef ISO_BALLS_BINDING
#define ISO_BALLS_BINDING 1
#endif
#ifdef ISO_TEXEL_READS
layout(set = 0, binding = ISO_BALLS_BINDING) uniform samplerBuffer ballTexels;
vec4 ballCentreRadius(uint i) { return texelFetch(ballTexels, int(2u * i)); }
float ballStrength(uint i) { return texelFetch(ballTexels, int(2u * i + 1u)).x; }
#else
layout(set = 0, binding = ISO_BALLS_BINDING, std430) readonly buffer BallsBuf { IsoBall balls[]; };
vec4 ballCentreRadius(uint i) { return balls[i].centerRadius; }
float ballStrength(uint i) { return balls[i].strength.x; }
#endif

// Conservative reach of ball `cr` around a box: skipped only when it clearly
// misses (a ball adds exactly 0 to every sample it misses).
bool ballReaches(vec4 cr, vec3 lo, vec3 hi) {
    const vec3 d = cr.xyz - clamp(cr.xyz, lo, hi);
    const float r = abs(cr.w) * 1.001 + 1e-6 * length(grid.spacing.xyz);
    return !(dot(d, d) >= r * r);
}

// The term of the ball (centre and radius `cr`, `strength`) at p:
// s (1 - q)^3 for q = |p - c|^2 / R^2 < 1, else 0 (also for a NaN q, a
// radius-0 ball at its centre, as the CPU reference).
float ballTermAt(vec4 cr, float strength, vec3 p) {
    const vec3 d = p - cr.xyz;
    const float q = dot(d, d) / (cr.w * cr.w);
    if (!(q < 1.0)) return 0.0;
    const float k = 1.0 - q;
    return strength * k * k * k;
}

// (1 - q)^3 for q < 1, else 0 (NaN included), as ballTermAt.
float ballKernel(float q) {
    if (!(q < 1.0)) return 0.0;
    const float k = 1.0 - q;
    return k * k * k;
}

// Range of the ball's term over the box [lo, hi] (world): the kernel falls
// with the distance, so its ends are at the box's nearest and farthest
// points from the centre. (-inf, inf) where the term is not finite.
vec2 ballTermRange(vec4 cr, float strength, vec3 lo, vec3 hi) {
    const vec3 near = cr.xyz - clamp(cr.xyz, lo, hi);
    const vec3 far = max(abs(cr.xyz - lo), abs(cr.xyz - hi));
    const float r2 = cr.w * cr.w;
    const float a = strength * ballKernel(dot(near, near) / r2), b = strength * ballKernel(dot(far, far) / r2);
    const float inf = uintBitsToFloat(0x7f800000u);
    if (!isFiniteF(a) || !isFiniteF(b)) return vec2(-inf, inf);
    return vec2(min(a, b), max(a, b));
}
#endif
