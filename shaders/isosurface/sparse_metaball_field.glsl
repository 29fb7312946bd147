// A sparse domain of metaballs: field() for sparse_classify.comp and
// sparse_extract.comp (ISO_SPARSE_METABALLS), as the user_field.glsl of a
// user snippet. It sums the terms of the balls the activate pass listed for
// the brick being read (isoSparseUseBrick), in ascending order: the balls
// that reach the brick and one sample around it, so every sample the brick's
// cells and normals read gets the same sum as the dense field pass (which
// skips only balls adding exactly 0). Needs `grid` and `pc` declared by the
// includer.
#ifndef ISO_SPARSE_METABALL_FIELD_GLSL
#define ISO_SPARSE_METABALL_FIELD_GLSL

#define ISO_BALLS_BINDING 7
#include "isosurface/metaballs.glsl"
#include "isosurface/sparse_item_refs.glsl" // the brick's balls at binding 8

// The brick's first kIsoCachedBalls balls in registers (isoCacheBrickBalls,
// called by isoSparseUseBrick's callers in extraction): a vertex reads
// 14-110 samples of one brick, and each ball's two texel loads run lane by
// lane on lavapipe. Constant indices only (a dynamically indexed array
// would live in memory there).
const uint kIsoCachedBalls = 4u;
vec4 isoCachedCr[kIsoCachedBalls];
float isoCachedStrength[kIsoCachedBalls];
uint isoCachedCount;

void isoCacheBrickBalls() {
    isoCachedCount = min(isoBrickRefCount, kIsoCachedBalls);
    [[unroll]] for (uint k = 0u; k < kIsoCachedBalls; ++k) {
        const uint i = isoBrickItem(min(k, max(isoBrickRefCount, 1u) - 1u));
        isoCachedCr[k] = k < isoCachedCount ? ballCentreRadius(i) : vec4(0.0);
        isoCachedStrength[k] = k < isoCachedCount ? ballStrength(i) : 0.0;
    }
}

float field(vec3 p) {
    // The same terms in the same ascending order, cached ones first.
    float sum = 0.0;
    [[unroll]] for (uint k = 0u; k < kIsoCachedBalls; ++k)
        if (k < isoCachedCount) sum += ballTermAt(isoCachedCr[k], isoCachedStrength[k], p);
    for (uint j = kIsoCachedBalls; j < isoBrickRefCount; ++j) {
        const uint i = isoBrickItem(j);
        sum += ballTermAt(ballCentreRadius(i), ballStrength(i), p);
    }
    return sum;
}

// The field at sample s, as the dense path stores and reads it.
float isoUserSample(uvec3 s) { return sanitize(field(isoSamplePosition(grid, s))); }

// Classify's row of 9 samples s .. s + (8, 0, 0): inside bits (bit k for
// s + (k, 0, 0)) with the balls in the outer loop, each loaded once for the
// row instead of once per sample (loads run lane by lane on lavapipe); every
// sample still sums the same terms in the same order as field().
uint isoSparseInsideRow9(uvec3 s, float iso) {
    vec3 p[9];
    float sum[9];
    [[unroll]] for (uint k = 0u; k < 9u; ++k) {
        p[k] = isoSamplePosition(grid, s + uvec3(k, 0u, 0u));
        sum[k] = 0.0;
    }
    for (uint j = 0u; j < isoBrickRefCount; ++j) {
        const uint i = isoBrickItem(j);
        const vec4 cr = ballCentreRadius(i);
        const float strength = ballStrength(i);
        [[unroll]] for (uint k = 0u; k < 9u; ++k) sum[k] += ballTermAt(cr, strength, p[k]);
    }
    uint bits = 0u;
    [[unroll]] for (uint k = 0u; k < 9u; ++k) bits |= (sanitize(sum[k]) >= iso ? 1u : 0u) << k;
    return bits;
}

#endif
