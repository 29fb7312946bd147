#version 460
// Scan baseline (compactVoxels of the CUDA marchingCubes sample, docs/algorithms.md): one thread per cell; an active
// cell writes its index at its exclusive occupancy offset, so the list holds
// the active cells in cell order. The offset is the level-1 prefix from the
// occupancy down-sweep plus the active siblings preceding it at level 0.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer PyramidBuf { uint pyramid[]; };
layout(set = 0, binding = 2, std430) readonly buffer OccOffsetsBuf { uint occOffsets[]; }; // occupancy levels >= 1
layout(set = 0, binding = 3, std430) writeonly buffer ActiveBuf { uint activeCells[]; };

// A case has vertices unless it is 0 or 255 (no count lookup).
uint caseActive(uint mcCase) { return mcCase != 0u && mcCase != 255u ? 1u : 0u; }

void main() {
    const uint cell = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    if (cell >= grid.cells.w) return;
    // Level 0 of the cell pyramid is always u8 (kIsoPackedLevels >= 1): one
    // word holds this cell's case and its 3 siblings'.
    const uint parent = cell / 4, lane = cell & 3u;
    const uint word = pyramid[grid.levels[0].x + parent];
    if (caseActive((word >> (lane * 8u)) & 0xffu) == 0u) return;
    const uint top = grid.levelCount - 1;
    uint slot = 0;
    if (isoOpaque(top) > 0) {
        slot = isoOpaque(top) == 1 ? 0u : occOffsets[parent];
        // Active siblings before this cell (bytes past the level's end are
        // never read: they follow this cell).
        for (uint j = 0; j < lane; ++j) slot += caseActive((word >> (j * 8u)) & 0xffu);
    }
    // slot < number of active cells <= cells: within the list.
    activeCells[slot] = cell;
}
