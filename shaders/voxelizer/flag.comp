#version 460
// One thread per occupied level D - 1 cell (cell_list.comp): mark the
// level-`level` node containing it for subdivision (Crassin & Green 2012,
// 22.5.4 step 1, which runs one thread per fragment; docs/algorithms.md).
// The nodes that contain a fragment are exactly those that contain its
// cell, so the flagged set is the same with 5-8x fewer threads.
#include "voxelizer/vox_compute.glsl"

void main() {
    uint i = voxThreadIndex();
    if (i >= counters.cellCount) return;
    uvec3 c = voxUnpack(cells[2u * params.cellWords + i]);
    uint node;
    if (!voxFragmentNode(i, c, params.level, true, node)) return;
    // Every writer stores the same value: no atomic needed.
    nodeChild[node] = VOX_FLAG;
}
