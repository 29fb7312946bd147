#version 460
// Scan baseline (generateTriangles of the CUDA marchingCubes sample, docs/algorithms.md): one thread per ACTIVE cell
// (indirect dispatch sized by the args pass); each writes its vertices at its
// exclusive vertex-count offset (scan_down.comp for levels >= 1, the
// preceding siblings at level 0 here). Same vertex code and capacity clamp
// as extract.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std140) uniform TablesBuf { IsoTables tables; };
layout(set = 0, binding = 2, std430) readonly buffer FieldBuf { float field[]; };
layout(set = 0, binding = 3, std430) readonly buffer PyramidBuf { uint pyramid[]; };
layout(set = 0, binding = 4, std430) readonly buffer OffsetsBuf { uint offsets[]; };
layout(set = 0, binding = 6, std430) readonly buffer ActiveBuf { uint activeCells[]; };
layout(set = 0, binding = 7, std140) uniform OccGridBuf { IsoGrid occGrid; };
layout(set = 0, binding = 8, std430) readonly buffer OccupancyBuf { uint occupancy[]; };
// The vertex buffer: slice 0 at binding 5, slices 1.. at 9.. (output_slices.glsl).
#define ISO_VERTEX_SLICES 5
#define ISO_VERTEX_SLICES_NEXT 9
#define ISO_VERTEX_WRITE
#include "isosurface/output_slices.glsl"

#include "isosurface/mc_vertex.glsl"

void main() {
    const uint i = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    const uint top = grid.levelCount - 1;
    // The folded dispatch rounds up: threads past the active count (the
    // occupancy total) would read stale list entries.
    const uint activeCount = isoOpaque(top) == 0 ? (ISO_LEVEL_COUNT(pyramid, grid, 0u, 0u) != 0 ? 1u : 0u)
                                      : occupancy[occGrid.levels[top].z];
    if (i >= activeCount) return;
    const uint cell = activeCells[i];
    const uint mcCase = ISO_BASE_CASE(pyramid, grid, cell);
    const uint count = isoCaseCount(mcCase);
    const uint total = ISO_LEVEL_COUNT(pyramid, grid, top, 0u);
    const uint limit = min(total, grid.vertexCapacity);
    uint start = 0;
    if (isoOpaque(top) > 0) {
        const uint parent = cell / 4;
        start = isoOpaque(top) == 1 ? 0u : offsets[parent];
        for (uint j = parent * 4; j < cell; ++j) start += ISO_LEVEL_COUNT(pyramid, grid, 0u, j);
    }
    // Past capacity: cells are in order, so every later active cell is too.
    if (start >= limit) return;
    mcVertexInit();
    for (uint j = 0; j < count; ++j) {
        if (start + j >= limit) break;
        const IsoVertex vertex = mcVertex(cell, mcCase, count, j);
        isoStoreVertexPosition(start + j, vertex.position);
        // NormalMode::None: the normals stay the zeros of vertices.clear.
        if (kNormalMode != kIsoNormalNone) isoStoreVertexNormal(start + j, vertex.normal);
    }
}
