#version 460
// Particles, every frame after the field pass: value bounds of each classify
// patch for the activate pass, from what the field pass noted on the way (no
// field read).
// A particle adds exactly 0 to a sample its kernel does not reach, and a
// sample no particle reaches is exactly 0 (a sum of nothing, in fixed
// point; weights are > 0, so every sample is >= 0). A patch no particle
// reaches: bounds (0, 0), never listed for an iso value above 0 (every cell
// outside, as the dense classify finds); a reached patch: (-inf, +inf),
// always listed. With an iso value <= 0 (or NaN: then activate lists
// nothing) every patch gets (-inf, +inf): unreached cells are all inside
// there, case 255 in the dense classify. Output bit for bit the dense one.
// Which patches are reached: the field pass (the gather, or the scatter's
// resolve) recorded which of its tiles (kIsoGatherColumn x kIsoGatherRows
// samples of one row pair) hold a nonzero sample; a patch is reached when a
// tile holding a corner of its cells (samples lo .. hi + 1 of its box)
// does. Measured alternatives (lavapipe, bench shells at 256^3): the bins
// the gather reads, one prefix difference per bin row (~100 rows a patch),
// cost 110-190 ms; flags set by every particle in the scatter's splat made
// the splat 20-60 % slower (contended atomics). Anisotropic kernels run
// dense (layout.cpp).
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
// Each patch's cell box (patch_boxes.comp, once per surface).
layout(set = 0, binding = 1, std430) readonly buffer PatchBoxBuf { uvec4 patchBoxes[]; };
layout(set = 0, binding = 2, std430) readonly buffer TileFlagsBuf { uint tileFlags[]; };
layout(set = 0, binding = 3, std430) writeonly buffer PatchBoundsBuf { vec2 patchBounds[]; };

void main() {
    const uint patchId = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    if (patchId >= grid.patchCount) return;
    const float inf = uintBitsToFloat(0x7f800000u);
    bool reached = !(pc.iso > 0.0);
    uvec3 lo, hi;
    if (!isoPatchBox(patchBoxes[patchId], lo, hi)) {
        patchBounds[patchId] = vec2(inf, -inf); // no runs: never listed
        return;
    }
    if (!reached) {
        const uint K = kIsoGatherColumn, R = kIsoGatherRows;
        const uint cols = (grid.samples.x + K - 1u) / K, rows = (grid.samples.y + R - 1u) / R;
        const uvec2 t0 = uvec2(lo.x / K, lo.y / R), t1 = uvec2((hi.x + 1u) / K, (hi.y + 1u) / R);
        for (uint z = lo.z; z <= hi.z + 1u && !reached; ++z)
            for (uint ty = t0.y; ty <= t1.y && !reached; ++ty) {
                const uint row = cols * (ty + rows * z);
                for (uint tx = t0.x; tx <= t1.x && !reached; ++tx) reached = tileFlags[row + tx] != 0u;
            }
    }
    patchBounds[patchId] = reached ? vec2(-inf, inf) : vec2(0.0);
}
