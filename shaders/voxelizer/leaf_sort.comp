#version 460
// LeafMerge::PerCell, before leaf_merge.comp: a counting sort of the stored
// fragments by their occupied level D - 1 cell (the leaves' parent), in three
// pipelines of this shader (specialization constant kStep, so each compiles
// its own step only):
//   0, one thread per fragment record: count the records of each cell (the
//      cell's list index is a rank query in the cell bitmap, as in leaf.comp);
//   1, one thread per cell: reserve the cell's range of the sorted list;
//   2, one thread per fragment record: write (voxel mask, colour, normal)
//      into its cell's range.
// Two atomics per fragment instead of leaf.comp's seven (count, R, G, B and
// three normal sums into the leaf); the order inside a range is the GPU's,
// and leaf_merge.comp sums integers, so the result does not depend on it.
// Region layout: vox_compute.glsl (binding 14). cell_list.comp zeroed the
// counts of this frame's cells.
#define VOX_TEXEL_READS
#include "voxelizer/vox_compute.glsl"

layout(constant_id = 2) const uint kStep = 0u;

void main() {
    uint i = voxThreadIndex();
    uint cap = params.fragmentCapacity;
    if (kStep == 1u) {
        if (i >= voxCellCount()) return;
        uint n = voxSortPair(i).x;
        if (n > VOX_MERGE_MAX_CELL_FRAGMENTS) atomicAdd(counters.cellsOverMergeLimit, 1u);
        // The end of the range; step 2 counts it down to the start.
        leafSort[i].y = atomicAdd(counters.sortedFragments, n) + n;
        return;
    }
    if (i >= voxStoredFragments()) return;
    if (kStep == 0u) {
        atomicAdd(leafSort[voxCellIndex(voxUnpack(voxFragment(i).x))].x, 1u);
        return;
    }
    uvec4 f = voxFragment(i);
    uvec3 c = voxUnpack(f.x);
    uint at = atomicAdd(leafSort[voxCellIndex(c)].y, 0xffffffffu) - 1u;
    leafSort[cap + at] = uvec2(f.y, f.z); // (voxel mask << 24 | RGB8, packed normal)
}
