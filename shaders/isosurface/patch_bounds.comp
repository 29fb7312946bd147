#version 460
// Volume source, once per upload (after field.volume.bounds): the value
// bounds of each classify patch (the 8 runs one SIMD batch of classify takes,
// kIsoPatchRuns in iso_shared.h) from its runs' bounds. The activate pass
// compares them with each frame's iso value, so a new iso value costs no
// re-scan. A patch without runs (past the grid's last run) keeps the empty
// bounds (+inf, -inf): below every iso value, never listed. Two intervals
// per patch: over its runs' cells in their first rows (runBounds), and over
// the cells of the runs that go on past their first row (wrapBounds,
// volume_bounds.comp); activate lists the patch when either straddles the
// iso value.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer RunBoundsBuf { vec2 runBounds[]; };
layout(set = 0, binding = 2, std430) writeonly buffer PatchBoundsBuf { vec2 patchBounds[]; };
layout(set = 0, binding = 3, std430) readonly buffer WrapBoundsBuf { vec2 wrapBounds[]; };
layout(set = 0, binding = 4, std430) writeonly buffer PatchWrapBoundsBuf { vec2 patchWrapBounds[]; };

void main() {
    const uint patchId = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    if (patchId >= grid.patchCount) return;
    const uint runs = (grid.cells.w + kIsoClassifyCells - 1) / kIsoClassifyCells;
    // Run 16k + b of group patch / 16 (b = patch % 16): classify's lane mapping.
    const uint firstRun = (patchId / kIsoPatchesPerGroup) * kIsoClassifyGroupSize + patchId % kIsoPatchesPerGroup;
    const float inf = uintBitsToFloat(0x7f800000u);
    vec2 first = vec2(inf, -inf), rest = vec2(inf, -inf);
    for (uint k = 0; k < kIsoPatchRuns; ++k) {
        const uint run = firstRun + kIsoPatchesPerGroup * k;
        if (run < runs) {
            const vec2 b = runBounds[run];
            first = vec2(min(first.x, b.x), max(first.y, b.y));
            // Cells past the run's first row: its row's entry of wrapBounds.
            const uint cell = run * kIsoClassifyCells, row = cell / grid.cells.x;
            const uint n = min(kIsoClassifyCells, grid.cells.w - cell);
            if (cell - row * grid.cells.x + n > grid.cells.x) {
                const vec2 w = wrapBounds[row];
                rest = vec2(min(rest.x, w.x), max(rest.y, w.y));
            }
        }
    }
    patchBounds[patchId] = first;
    patchWrapBounds[patchId] = rest;
}
