#version 460
// Volume source, once per upload (after field.volume.bounds): the value
// bounds of each classify patch (the 8 runs one SIMD batch of classify takes,
// kIsoPatchRuns in iso_shared.h) from its runs' bounds. The activate pass
// compares them with each frame's iso value, so a new iso value costs no
// re-scan. A patch without runs (past the grid's last run) keeps the empty
// bounds (+inf, -inf): below every iso value, never listed.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer RunBoundsBuf { vec2 runBounds[]; };
layout(set = 0, binding = 2, std430) writeonly buffer PatchBoundsBuf { vec2 patchBounds[]; };

void main() {
    const uint patchId = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    if (patchId >= grid.patchCount) return;
    const uint runs = (grid.cells.w + kIsoClassifyCells - 1) / kIsoClassifyCells;
    // Run 16k + b of group patch / 16 (b = patch % 16): classify's lane mapping.
    const uint first = (patchId / kIsoPatchesPerGroup) * kIsoClassifyGroupSize + patchId % kIsoPatchesPerGroup;
    float lo = uintBitsToFloat(0x7f800000u), hi = uintBitsToFloat(0xff800000u);
    for (uint k = 0; k < kIsoPatchRuns; ++k) {
        const uint run = first + kIsoPatchesPerGroup * k;
        if (run < runs) {
            const vec2 b = runBounds[run];
            lo = min(lo, b.x);
            hi = max(hi, b.y);
        }
    }
    patchBounds[patchId] = vec2(lo, hi);
}
