#version 460
// LeafMerge::PerCell, before leaf_merge.comp: a counting sort of the stored
// fragments by their occupied level D - 1 cell (the leaves' parent), in three
// pipelines of this shader (specialization constant kStep, so each compiles
// its own step only):
//   0, one thread per fragment record: count the records of each cell (the
//      cell's list index is a rank query in the cell bitmap, as in leaf.comp);
//   1, one thread per VOX_RANGE_CELLS cells: reserve the cells' ranges of the sorted list;
//   2, one thread per fragment record: write (voxel mask, colour, normal)
//      into its cell's range.
// Two atomics per fragment instead of leaf.comp's seven (count, R, G, B and
// three normal sums into the leaf); the order inside a range is the GPU's,
// and leaf_merge.comp sums integers, so the result does not depend on it.
// Region layout: vox_compute.glsl (binding 14). cell_list.comp zeroed the
// counts of this frame's cells.
#extension GL_EXT_control_flow_attributes : require
#define VOX_TEXEL_READS
#include "voxelizer/vox_compute.glsl"

layout(constant_id = 2) const uint kStep = 0u;

// With OccupancyLevels (VOX_CURSORS) the cursor buffer is free until the
// tree build stores the cells' cursors in it: step 0 keeps there, as a pair
// per record, its cell's list index and its rank among the cell's records
// (the atomic's result); step 1 stores each range's start, and step 2 writes
// record i to start + rank. So step 2 has no atomic (a locked instruction per
// lane on lavapipe, waiting for the lane's earlier scattered store to drain,
// was half of that pass's time) and no rank query of its own (its two
// bitmap loads and the Morton code: a fifth of the pass). Without cursors,
// step 2 counts each range's end down with an atomic.
const bool kRanks = (kVoxFlags & VOX_CURSORS) != 0u;
layout(std430, set = 0, binding = 5) buffer CellRanks { uvec2 cellRanks[]; };
#ifdef VOX_TEXEL_READS
uvec2 cellRank(uint i) { return texelFetch(cursorTexels, int(i)).xy; } // an RG32UI view in this pass
#else
uvec2 cellRank(uint i) { return cellRanks[i]; }
#endif

void main() {
    uint i = voxThreadIndex();
    uint cap = params.fragmentCapacity;
    if (kStep == 1u) {
        // VOX_RANGE_CELLS consecutive cells per thread, one atomic on the
        // shared counter for their ranges (an atomic per cell on that one
        // word, a locked instruction per lane with the other CPU thread
        // contending for its cache line on lavapipe, was most of this step).
        uint first = VOX_RANGE_CELLS * i, cells = voxCellCount();
        if (first >= cells) return;
        uint n[VOX_RANGE_CELLS];
        uint total = 0u, over = 0u;
        [[unroll]] for (uint s = 0u; s < VOX_RANGE_CELLS; ++s) {
            n[s] = first + s < cells ? voxSortPair(min(first + s, cells - 1u)).x : 0u;
            total += n[s];
            over += n[s] > VOX_MERGE_MAX_CELL_FRAGMENTS ? 1u : 0u;
        }
        if (over != 0u) atomicAdd(counters.cellsOverMergeLimit, over);
        // Each range's start; without ranks its end, which step 2 counts
        // down to the start.
        uint at = atomicAdd(counters.sortedFragments, total);
        [[unroll]] for (uint s = 0u; s < VOX_RANGE_CELLS; ++s) {
            if (first + s < cells) leafSort[first + s].y = at + (kRanks ? 0u : n[s]);
            at += n[s];
        }
        return;
    }
    if (i >= voxStoredFragments()) return;
    if (kStep == 0u) {
        uint k = voxCellIndex(voxUnpack(voxFragment(i).x));
        uint rank = atomicAdd(leafSort[k].x, 1u);
        if (kRanks) cellRanks[i] = uvec2(k, rank);
        return;
    }
    uvec4 f = voxFragment(i);
    uint at;
    if (kRanks) {
        uvec2 kr = cellRank(i);
        at = voxSortPair(kr.x).y + kr.y;
    } else {
        at = atomicAdd(leafSort[voxCellIndex(voxUnpack(f.x))].y, 0xffffffffu) - 1u;
    }
    leafSort[cap + at] = uvec2(f.y, f.z); // (voxel mask << 24 | RGB8, packed normal)
}
