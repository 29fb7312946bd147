#version 460
#ifndef ISO_STORAGE_READS
#define ISO_TEXEL_READS
#endif
// Metaballs, every frame: value bounds of each classify patch for the
// activate pass, from the balls alone (no field read). A ball's term
// s (1 - d^2 / R^2)^3 falls with the distance d and is 0 from d = R on, so
// over a patch's box it lies between its values at the box's farthest and
// nearest points; the bounds are the sums of those, widened for the
// rounding of both this pass and the field's sum (several ulps of the
// terms' magnitudes; the distances a little too). A patch is listed only
// where the surface may cross it: not in the empty space no ball reaches
// (bounds (0, 0)), nor inside a blob whose least value is at or above the
// iso value, where the dense classify would find case 255 everywhere (the
// clear pass's zeros stand for it: count 0 either way). A ball with a
// non-finite value or radius 0 that reaches the box makes the bounds
// (-inf, +inf); so do more than kIsoRowBalls balls (the loop would cost
// more than it saves). Classify's triangles stay the dense path's.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
#include "isosurface/metaballs.glsl" // the balls at binding 1, ballReaches()
// Each patch's cell box (patch_boxes.comp, once per surface).
layout(set = 0, binding = 2, std430) readonly buffer PatchBoxBuf { uvec4 patchBoxes[]; };
layout(set = 0, binding = 3, std430) writeonly buffer PatchBoundsBuf { vec2 patchBounds[]; };

void main() {
    const uint patchId = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    if (patchId >= grid.patchCount) return;
    const float inf = uintBitsToFloat(0x7f800000u);
    uvec3 lo, hi;
    if (!isoPatchBox(patchBoxes[patchId], lo, hi)) {
        patchBounds[patchId] = vec2(inf, -inf); // no runs: never listed
        return;
    }
    const uint count = isoOpaque(min(pc.itemCount, grid.maxItems));
    if (count > kIsoRowBalls) {
        patchBounds[patchId] = vec2(-inf, inf);
        return;
    }
    // Samples of those cells: corners lo .. hi + 1 (the field pass's positions).
    const vec3 boxLo = grid.boundsMin.xyz + vec3(lo) * grid.spacing.xyz;
    const vec3 boxHi = grid.boundsMin.xyz + vec3(hi + 1u) * grid.spacing.xyz;
    const uint base = pc.slot * grid.maxItems;
    float least = 0.0, most = 0.0, magnitude = 0.0;
    bool unbounded = false;
    // The balls that reach the box first (a cheap test), as bits; then the
    // bounds of those only: lavapipe runs a loop body under a mask for every
    // lane, so skipping a ball with `continue` would still cost its math,
    // while a loop over set bits ends when every lane's are done.
    uint reach0 = 0u, reach1 = 0u; // balls 0..31, 32..63 (count <= kIsoRowBalls)
    for (uint i = 0; i < count; ++i) {
        // The field pass's own test: a ball it skips adds exactly 0; NaN reaches.
        const uint hit = ballReaches(ballCentreRadius(base + i), boxLo, boxHi) ? 1u : 0u;
        reach0 |= i < 32u ? hit << i : 0u;
        reach1 |= i >= 32u ? hit << (i - 32u) : 0u;
    }
    while ((reach0 | reach1) != 0u) {
        const uint i = reach0 != 0u ? uint(findLSB(reach0)) : 32u + uint(findLSB(reach1));
        if (reach0 != 0u)
            reach0 &= reach0 - 1u;
        else
            reach1 &= reach1 - 1u;
        const vec4 cr = ballCentreRadius(base + i);
        const vec3 near = cr.xyz - clamp(cr.xyz, boxLo, boxHi);
        const vec3 far = max(abs(cr.xyz - boxLo), abs(cr.xyz - boxHi));
        const float nearest2 = dot(near, near);
        const float strength = ballStrength(base + i);
        const float r2 = cr.w * cr.w;
        // The term at the nearest and farthest points, with q = d^2 / R^2
        // moved outward by a relative 1e-4 for the rounding of the distances.
        const float qNear = max(nearest2 / r2 * (1.0 - 1e-4) - 1e-6, 0.0);
        const float qFar = dot(far, far) / r2 * (1.0 + 1e-4) + 1e-6;
        const float kNear = 1.0 - min(qNear, 1.0), kFar = 1.0 - min(qFar, 1.0);
        const float termNear = strength * (kNear * kNear * kNear), termFar = strength * (kFar * kFar * kFar);
        least += min(termNear, termFar);
        most += max(termNear, termFar);
        magnitude += max(abs(termNear), abs(termFar));
        // NaN or infinite values, or a radius of 0 (the field's q is then
        // not finite): no bound.
        unbounded = unbounded || !isFiniteF(termNear + termFar) || !(r2 > 0.0) || !isFiniteF(r2) ||
                    !isFiniteF(cr.x + cr.y + cr.z);
    }
    // The field's sum and these rounded differently: widen by a relative
    // 1e-5 of the terms' magnitudes (64 terms of float rounding are below
    // 64 x 2^-24 = 4e-6 of it).
    const float slack = magnitude * 1e-5 + 1e-30;
    patchBounds[patchId] = unbounded ? vec2(-inf, inf) : vec2(least - slack, most + slack);
}
