#version 460
// Sources that bound patches by position (metaballs, particles), once per
// surface (the first frame): the cell box of each classify patch, for their
// per-frame bounds passes. The grid never changes, so its integer divisions
// (the lane-by-lane kind on lavapipe: most of the metaball bounds pass when
// it ran them every frame) are paid once.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) writeonly buffer PatchBoxBuf { uvec4 patchBoxes[]; };

// Cell index -> (x, y, z) cell coordinates.
uvec3 cellOf(uint c) {
    const uint row = c / grid.cells.x;
    return uvec3(c - row * grid.cells.x, row % grid.cells.y, row / grid.cells.y);
}

void main() {
    const uint patchId = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    if (patchId >= grid.patchCount) return;
    // The box of the cells of the patch's runs (run 16k + b of group
    // patch / 16, classify's lane mapping; 16 consecutive cells each, which
    // may wrap to the next row or slice: then the box spans the whole row or
    // slice, a conservative union).
    const uint first = (patchId / kIsoPatchesPerGroup) * kIsoClassifyGroupSize + patchId % kIsoPatchesPerGroup;
    uvec3 lo = uvec3(0xffffffffu), hi = uvec3(0u);
    for (uint k = 0; k < kIsoPatchRuns; ++k) {
        const uint c0 = (first + kIsoPatchesPerGroup * k) * kIsoClassifyCells;
        if (c0 >= grid.cells.w) continue;
        const uvec3 a = cellOf(c0), b = cellOf(min(c0 + kIsoClassifyCells, grid.cells.w) - 1u);
        uvec3 runLo = min(a, b), runHi = max(a, b);
        if (a.y != b.y || a.z != b.z) {
            runLo.x = 0u;
            runHi.x = grid.cells.x - 1u;
        }
        if (a.z != b.z) {
            runLo.y = 0u;
            runHi.y = grid.cells.y - 1u;
        }
        lo = min(lo, runLo);
        hi = max(hi, runHi);
    }
    patchBoxes[patchId] = lo.x > hi.x ? kIsoNoPatchBox : isoPackPatchBox(lo, hi);
}
