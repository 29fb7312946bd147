#version 460
// OctreeBuild::OccupancyLevels: the occupancy bitmap of level `level` from
// the one of level + 1 (Morton order at each level, so a node's 8 children
// are one byte of the level below): one thread per output word ORs the 32
// bytes of 8 input words. The cell bitmap (cell_mark.comp) is level D - 1;
// these launches run from D - 2 up to the root, and alloc.comp then reads a
// node's bit instead of a flag that one pass per level over all occupied
// cells set (flag.comp, which cost ~2.5 ms a level on lavapipe for a
// 335k-cell mesh; the levels here are 1/8, 1/64, ... of the cell bitmap).
// Word offsets in the cells buffer: params.levelBits (output),
// params.childBits (input; params.childWords words).
#include "voxelizer/vox_compute.glsl"

void main() {
    uint j = voxThreadIndex();
    if (j >= voxLevelWords(params.level)) return;
    cells[params.levelBits + j] = voxLevelWord(params.childBits, params.childWords, j);
}
