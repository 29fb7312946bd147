#version 460
// One thread per 4 nodes (half a tile) of the tiles just allocated for level
// `level`: null children and empty values (step 3). The pool is reused every
// frame, so this is what makes old contents unreachable. A tile's nodes are
// 8 consecutive, 32-byte aligned words of each node array: one wide store
// per array and 4 nodes (lavapipe stores lane by lane; a thread per node
// with 6 single-word stores took 4x the stores).
#include "voxelizer/vox_compute.glsl"

// Bindings 3 and 7..11 of vox_compute.glsl, 4 nodes at a time.
layout(std430, set = 0, binding = 3) writeonly buffer NodeChild4 { uvec4 nodeChild4[]; };
layout(std430, set = 0, binding = 7) writeonly buffer NodeColor4 { uvec4 nodeColor4[]; };
layout(std430, set = 0, binding = 8) writeonly buffer NodeCount4 { uvec4 nodeCount4[]; };
layout(std430, set = 0, binding = 9) writeonly buffer NodeNx4 { ivec4 nodeNx4[]; };
layout(std430, set = 0, binding = 10) writeonly buffer NodeNy4 { ivec4 nodeNy4[]; };
layout(std430, set = 0, binding = 11) writeonly buffer NodeNz4 { ivec4 nodeNz4[]; };

void main() {
    uint l = params.level;
    uint first = counters.levelTileStart[l], last = counters.levelTileEnd[l];
    uint i = voxThreadIndex();
    if (i >= 2u * (last - first)) return;
    // The coordinates were written by the allocating parent (not read and
    // rewritten here); everything else starts empty.
    uint q = 2u * first + i;
    nodeChild4[q] = uvec4(0u);
    nodeColor4[q] = uvec4(0u);
    nodeCount4[q] = uvec4(0u);
    nodeNx4[q] = ivec4(0);
    nodeNy4[q] = ivec4(0);
    nodeNz4[q] = ivec4(0);
}
