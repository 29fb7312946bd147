#version 460
// Indexed output: one thread per index (= per vertex of the non-indexed
// path, same key order). Key -> cell pyramid -> (cell, local vertex) -> edge
// -> owning sample and axis -> vertex index = exclusive prefix of the owner
// in the edge pyramid (bottom-up: preceding siblings at every level) + rank
// of the axis among the owner's cut edges.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer TablesBuf { IsoTables tables; };
layout(set = 0, binding = 2, std430) readonly buffer PyramidBuf { uint pyramid[]; };
layout(set = 0, binding = 2, std430) readonly buffer PyramidQuadBuf { uvec4 pyramidQuads[]; };
#define ISO_PYRAMID_QUADS
layout(set = 0, binding = 3, std140) uniform EdgeGridBuf { IsoGrid edgeGrid; };
layout(set = 0, binding = 4, std430) readonly buffer EdgePyramidBuf { uint edgePyramid[]; };
layout(set = 0, binding = 5, std430) writeonly buffer IndexBuf { uint indices[]; };

#include "isosurface/cell_edge.glsl"
#include "isosurface/pyramid_find.glsl"

void main() {
    uint key = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    const uint edgeTop = edgeGrid.levelCount - 1;
    uint vertexTotal = edgePyramid[edgeGrid.levels[edgeTop].z];
    if (edgeTop == 0) vertexTotal &= kIsoCountMask;
    // Indices only when every vertex they could name was written.
    if (vertexTotal > grid.vertexCapacity) return;
    if (key >= min(pyramidTotal(), grid.indexCapacity)) return;
    const uint outIndex = key;
    const uint cell = pyramidFind(key);
    const uint mcCase = ISO_BASE_CASE(pyramid, grid, cell);
    ivec3 pa, pb;
    cellEdge(cell, mcCase, key, pa, pb);
    const uint axis = pb.x != pa.x ? 0u : pb.y != pa.y ? 1u : 2u;
    const uint s = uint(pa.x) + grid.samples.x * (uint(pa.y) + grid.samples.y * uint(pa.z));
    const uint bits = (edgePyramid[edgeGrid.levels[0].z + s] >> kIsoCaseShift) & 7u;
    uint prefix = bitCount(bits & ((1u << axis) - 1u));
    uint index = s;
    for (uint level = 0; level < edgeTop; ++level) {
        const uint offset = edgeGrid.levels[level].z;
        const uint mask = level == 0 ? kIsoCountMask : 0xffffffffu;
        for (uint j = index & ~3u; j < index; ++j) prefix += edgePyramid[offset + j] & mask;
        index >>= 2;
    }
    indices[outIndex] = prefix;
}
