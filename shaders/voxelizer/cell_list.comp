#version 460
// One thread per 8 words of the cell bitmap (256 cells, the children of one
// word of level D - 2): append the occupied cells they mark to the cell
// list, with one atomic for the 8 words, and, with OccupancyLevels
// (params.childWords != 0), write that level D - 2 occupancy word, which
// cell_levels.comp would otherwise compute from the same 8 loads. A thread
// per word cost a lane's setup and an atomic per non-zero word for 2^19
// words at R = 512, most of them empty. Each set bit came from a stored
// fragment, so the list never holds more entries than fragments (its
// capacity): no overflow case. Within a word the cells are in Morton order,
// so siblings stay together.
#define VOX_TEXEL_READS
#include "voxelizer/vox_compute.glsl"

const uint kWordsPerThread = 8u;

void main() {
    uint j = voxThreadIndex();
    uint first = kWordsPerThread * j;
    if (first >= params.cellWords) return;
    uint words[kWordsPerThread];
    uint cells8 = 0u, level = 0u;
    for (uint b = 0u; b < kWordsPerThread; ++b) {
        uint w = first + b < params.cellWords ? voxCellWord(first + b) : 0u;
        words[b] = w;
        cells8 += bitCount(w);
        // Level D - 2's bit of each byte (a node's 8 children), as cell_levels.comp.
        level |= voxNonzeroBytes(w) << (4u * b);
    }
    if (params.childWords != 0u) cells[params.levelBits + j] = level;
    if (cells8 == 0u) return;
    uint at = atomicAdd(counters.cellCount, cells8);
    for (uint b = 0u, sum = at; b < kWordsPerThread; ++b) {
        if (words[b] != 0u) cells[params.cellWords + first + b] = sum; // for voxCellIndex
        sum += bitCount(words[b]);
    }
    // One trip per cell of the thread's 8 words, not per cell of each word:
    // lanes run in lockstep and a masked store costs every lane, so the
    // trips are the most cells of any lane, not the sum over the words of
    // each word's most.
    bool sorted = (kVoxFlags & VOX_SORTED_LEAVES) != 0u;
    uint b = 0u, w = words[0];
    for (uint n = 0u; n < cells8; ++n) {
        while (w == 0u) w = words[++b];
        uint bit = uint(findLSB(w));
        w &= w - 1u;
        // LeafMerge::PerCell: the cell's fragment count starts at 0 (no fill of the whole region per frame).
        if (sorted) leafSort[at + n].x = 0u;
        // Stored as the cell's first leaf coordinates (level D), as a fragment's.
        cells[2u * params.cellWords + at + n] = voxPack(voxUnmorton(32u * (first + b) + bit) * 2u);
    }
}
