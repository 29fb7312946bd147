#version 460
// One thread per word of the cell bitmap: append the occupied cells it marks
// to the cell list. Each set bit came from a stored fragment, so the list
// never holds more entries than fragments (its capacity): no overflow case.
// Within a word the cells are in Morton order, so siblings stay together.
#define VOX_TEXEL_READS
#include "voxelizer/vox_compute.glsl"

void main() {
    uint i = voxThreadIndex();
    if (i >= params.cellWords) return;
    uint w = voxCellWord(i);
    if (w == 0u) return;
    uint first = atomicAdd(counters.cellCount, bitCount(w));
    cells[params.cellWords + i] = first; // for voxCellIndex
    uint at = 2u * params.cellWords + first;
    bool sorted = (kVoxFlags & VOX_SORTED_LEAVES) != 0u;
    while (w != 0u) {
        uint b = uint(findLSB(w));
        w &= w - 1u;
        // LeafMerge::PerCell: the cell's fragment count starts at 0 (no fill of the whole region per frame).
        if (sorted) leafSort[at - 2u * params.cellWords].x = 0u;
        // Stored as the cell's first leaf coordinates (level D), as a fragment's.
        cells[at++] = voxPack(voxUnmorton(32u * i + b) * 2u);
    }
}
