#version 460
// Indirect dispatch, one thread per output vertex: key -> top-down pyramid
// traversal -> (cell, local vertex) -> edge -> interpolated position and
// normal, written straight into the vertex buffer the draw reads.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std430) readonly buffer GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer TablesBuf { IsoTables tables; };
layout(set = 0, binding = 2, std430) readonly buffer FieldBuf { float field[]; };
layout(set = 0, binding = 3, std430) readonly buffer PyramidBuf { uint pyramid[]; };
layout(set = 0, binding = 4, std430) writeonly buffer VertexBuf { IsoVertex vertices[]; };

#include "isosurface/mc_vertex.glsl"
#include "isosurface/pyramid_find.glsl"

void main() {
    mcVertexInit();
    uint key = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    // The dispatch was sized by the args pass; the bound is recomputed here
    // so that extraction never trusts anything but the pyramid and capacity.
    if (key >= min(pyramidTotal(), grid.vertexCapacity)) return;
    const uint outIndex = key;
    const uint cell = pyramidFind(key);
    const uint packed = pyramid[grid.levelOffset[0] + cell];
    const uint mcCase = (packed >> kIsoCaseShift) & 0xffu;
    const uint count = packed & kIsoCountMask;
    vertices[outIndex] = mcVertex(cell, mcCase, count, key);
}
