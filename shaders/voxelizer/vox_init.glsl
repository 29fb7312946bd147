// Emptying 4 nodes of a tile just allocated (init.comp, one launch per
// level; alloc_top.comp, the levels near the root in one workgroup): null
// children and empty values. A tile's nodes are 8 consecutive, 32-byte
// aligned words of each node array, so one wide store per array and 4 nodes
// (lavapipe stores lane by lane; a thread per node with 6 single-word stores
// took 4x the stores). The coordinates came with the allocation.
// The includer declares nodeChild4 (binding 3, 4 nodes at a time) and, when
// a later phase of the same launch reads the values, defines
// VOX_INIT_COHERENT.
#ifndef PYRAMARCH_VOX_INIT_GLSL
#define PYRAMARCH_VOX_INIT_GLSL
#ifndef VOX_INIT_COHERENT
#define VOX_INIT_COHERENT
#endif

// Bindings 7..11 of vox_compute.glsl, 4 nodes at a time.
layout(std430, set = 0, binding = 7) VOX_INIT_COHERENT writeonly buffer NodeColor4 { uvec4 nodeColor4[]; };
layout(std430, set = 0, binding = 8) VOX_INIT_COHERENT writeonly buffer NodeCount4 { uvec4 nodeCount4[]; };
layout(std430, set = 0, binding = 9) VOX_INIT_COHERENT writeonly buffer NodeNx4 { ivec4 nodeNx4[]; };
layout(std430, set = 0, binding = 10) VOX_INIT_COHERENT writeonly buffer NodeNy4 { ivec4 nodeNy4[]; };
layout(std430, set = 0, binding = 11) VOX_INIT_COHERENT writeonly buffer NodeNz4 { ivec4 nodeNz4[]; };

// Nodes 4q .. 4q + 3.
void voxEmptyQuad(uint q) {
    nodeChild4[q] = uvec4(0u);
    nodeColor4[q] = uvec4(0u);
    nodeCount4[q] = uvec4(0u);
    nodeNx4[q] = ivec4(0);
    nodeNy4[q] = ivec4(0);
    nodeNz4[q] = ivec4(0);
}

#endif
