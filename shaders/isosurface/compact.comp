#version 460
// Scan baseline (compactVoxels of the CUDA marchingCubes sample, docs/algorithms.md): one thread per cell; an active
// cell writes its index at its exclusive occupancy offset, so the list holds
// the active cells in cell order. The offset is the level-1 prefix from the
// occupancy down-sweep plus the active siblings preceding it at level 0.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std430) readonly buffer GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer PyramidBuf { uint pyramid[]; };
layout(set = 0, binding = 2, std430) readonly buffer OccOffsetsBuf { uint occOffsets[]; }; // occupancy levels >= 1
layout(set = 0, binding = 3, std430) writeonly buffer ActiveBuf { uint activeCells[]; };

// A cell has vertices unless its case is 0 or 255 (no count lookup).
bool cellActive(uint cell) {
    const uint mcCase = ISO_BASE_CASE(pyramid, grid, cell);
    return mcCase != 0u && mcCase != 255u;
}

void main() {
    const uint cell = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    if (cell >= grid.cells.w) return;
    if (!cellActive(cell)) return;
    const uint top = grid.levelCount - 1;
    uint slot = 0;
    if (top > 0) {
        const uint parent = cell / 4;
        slot = top == 1 ? 0u : occOffsets[parent];
        for (uint j = parent * 4; j < cell; ++j) slot += cellActive(j) ? 1u : 0u;
    }
    // slot < number of active cells <= cells: within the list.
    activeCells[slot] = cell;
}
