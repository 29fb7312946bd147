#version 460
// Indexed output: one thread per unique vertex (cut edge). Key -> edge
// pyramid traversal -> owning sample and its j-th cut edge -> vertex, with
// exactly the arithmetic of the non-indexed path (same edge, same corners).
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; }; // edge pyramid's grid
layout(set = 0, binding = 1, std430) readonly buffer TablesBuf { IsoTables tables; };
layout(set = 0, binding = 2, std430) readonly buffer FieldBuf { float field[]; };
layout(set = 0, binding = 3, std430) readonly buffer PyramidBuf { uint pyramid[]; }; // edge pyramid
layout(set = 0, binding = 4, std430) writeonly buffer VertexBuf { IsoVertex vertices[]; };

#include "isosurface/mc_vertex.glsl"
#include "isosurface/pyramid_find.glsl"

void main() {
    mcVertexInit();
    uint key = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    if (key >= min(pyramidTotal(), grid.vertexCapacity)) return;
    const uint outIndex = key;
    const uint s = pyramidFind(key);
    uint bits = (pyramid[grid.levels[0].z + s] >> kIsoCaseShift) & 7u;
    for (uint j = 0; j < key; ++j) bits &= bits - 1u; // drop the lower cut edges
    const uint axis = findLSB(bits);
    const uint row = divideBy(s, grid.sampleDivisors.x, grid.sampleDivisors.z);
    const uint z = divideBy(row, grid.sampleDivisors.y, grid.sampleDivisors.w);
    const ivec3 pa = ivec3(s - row * grid.samples.x, row - z * grid.samples.y, z);
    const ivec3 pb = pa + ivec3(axis == 0u ? 1 : 0, axis == 1u ? 1 : 0, axis == 2u ? 1 : 0);
    // A shared vertex belongs to up to four cells: no per-cell triangle count.
    vertices[outIndex] = edgeVertex(pa, pb, 0.0);
}
