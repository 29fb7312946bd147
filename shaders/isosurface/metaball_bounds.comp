#version 460
#ifndef ISO_STORAGE_READS
#define ISO_TEXEL_READS
#endif
// Metaballs, every frame after the field pass: value bounds of each classify
// patch for the activate pass, from the balls alone (no field read). A ball
// adds nothing beyond its radius, so a patch no ball reaches holds exactly 0
// at every sample of its cells: bounds (0, 0), never listed for an iso value
// above 0 (every cell outside, as the dense classify finds). A patch a ball
// reaches may hold anything: (-inf, +inf), always listed. With an iso value
// <= 0 an unreached patch is all inside (case 255 in the dense classify),
// and with more than kIsoRowBalls balls the test would cost more than it
// saves: then every patch is listed, as dense. Classify's output stays bit
// for bit the dense one's either way.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
// The balls: texel fetches (an R32G32B32A32_SFLOAT view, 2 texels per
// ball: lavapipe gathers them as vectors, one load for the batch where every
// lane reads the same ball) where the device's maxTexelBufferElements covers
// the ring (ISO_TEXEL_READS), else a storage buffer (the .storage variant).
#ifdef ISO_TEXEL_READS
layout(set = 0, binding = 1) uniform samplerBuffer ballTexels;
vec4 ballCentreRadius(uint i) { return texelFetch(ballTexels, int(2u * i)); }
float ballStrength(uint i) { return texelFetch(ballTexels, int(2u * i + 1u)).x; }
#else
layout(set = 0, binding = 1, std430) readonly buffer BallsBuf { IsoBall balls[]; };
vec4 ballCentreRadius(uint i) { return balls[i].centerRadius; }
float ballStrength(uint i) { return balls[i].strength.x; }
#endif
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
    if (!isoOpaque(pc.iso > 0.0) || count > kIsoRowBalls) {
        patchBounds[patchId] = vec2(-inf, inf);
        return;
    }
    // Samples of those cells: corners lo .. hi + 1.
    const vec3 boxLo = grid.boundsMin.xyz + vec3(lo) * grid.spacing.xyz;
    const vec3 boxHi = grid.boundsMin.xyz + vec3(hi + 1u) * grid.spacing.xyz;
    const uint base = pc.slot * grid.maxItems;
    // Conservative margin, as the field pass's culling: skipped only when it clearly misses.
    const float margin = 1e-6 * length(grid.spacing.xyz);
    bool reached = false;
    for (uint i = 0; i < count && !reached; ++i) {
        const vec4 cr = ballCentreRadius(base + i);
        const vec3 d = cr.xyz - clamp(cr.xyz, boxLo, boxHi);
        const float r = abs(cr.w) * 1.001 + margin;
        reached = !(dot(d, d) >= r * r);
    }
    patchBounds[patchId] = reached ? vec2(-inf, inf) : vec2(0.0);
}
