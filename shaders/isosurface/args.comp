#version 460
// One invocation: pyramid top -> indirect dispatch for extraction or, for
// Scan, generate over the active cells (folded
// to respect maxComputeWorkGroupCount), indirect draw, stats. The vertex
// count is clamped to whole triangles within capacity.
#include "isosurface/common.glsl"

layout(local_size_x = 1) in;
layout(constant_id = kIsoSpecExtractTriangles) const uint kExtractTriangles = kIsoExtractTriangles;
layout(constant_id = kIsoSpecExtractMinGroups) const uint kExtractMinGroups = kIsoExtractMinGroups;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer PyramidBuf { uint pyramid[]; };
layout(set = 0, binding = 2, std430) buffer CountersBuf { IsoCounters counters; };
layout(set = 0, binding = 3, std430) writeonly buffer ArgsBuf { IsoArgs args; };
layout(set = 0, binding = 4, std430) writeonly buffer StatsBuf { IsoStatsGpu stats[]; };
// Indexed: the vertex pyramid's grid and levels (its top is the shared-vertex
// count; a one-level vertex pyramid is u8). Scan: the occupancy tree's grid
// and levels (its top is the active-cell count). Otherwise the cell
// grid/pyramid are bound here again, unused.
layout(set = 0, binding = 5, std140) uniform EdgeGridBuf { IsoGrid edgeGrid; };
layout(set = 0, binding = 6, std430) readonly buffer EdgePyramidBuf { uint edgePyramid[]; };

uvec2 fold(uint items) {
    const uint groups = (items + kIsoGroupSize - 1) / kIsoGroupSize;
    const uint gx = min(groups, grid.maxGroupsX);
    return uvec2(gx, gx == 0 ? 1 : (groups + gx - 1) / gx);
}

void main() {
    const uint top = grid.levelCount - 1;
    const uint cellVertices = ISO_LEVEL_COUNT(pyramid, grid, top, 0u);
    uint needed = cellVertices, written, indicesNeeded = 0, indicesWritten = 0;
    if (isoOpaque(grid.indexed) != 0) {
        const uint vertexTop = edgeGrid.levelCount - 1;
        needed = edgePyramid[edgeGrid.levels[vertexTop].x];
        if (vertexTop == 0) needed &= 0xffu;
        written = min(needed, grid.vertexCapacity);
        indicesNeeded = cellVertices;
        // Indices only when all vertices fit: a clamped vertex set would
        // leave indices naming vertices that were never written.
        indicesWritten = needed <= grid.vertexCapacity ? min(cellVertices, grid.indexCapacity) : 0u;
    } else {
        written = min(needed, grid.vertexCapacity);
    }
    // Extract runs one thread per run of isoExtractTrianglesFor() triangles
    // (written is whole triangles; extraction takes the same run length from
    // the same count); indexed: one per triangle of the surface (they write
    // the vertices up to the vertex capacity, and the indices); scan:
    // generate, one per active cell.
    const uint perThread = isoExtractTrianglesFor(written / 3, kExtractTriangles, kExtractMinGroups);
    uint dispatchItems = grid.indexed != 0 ? cellVertices / 3 : (written / 3 + perThread - 1u) / perThread;
    if (isoOpaque(grid.scanOccupancy) != 0)
        dispatchItems = isoOpaque(top) == 0 ? (ISO_LEVEL_COUNT(pyramid, grid, 0u, 0u) != 0 ? 1u : 0u)
                                 : edgePyramid[edgeGrid.levels[top].z];
    const uvec2 vd = fold(dispatchItems);
    args.dispatchX = vd.x;
    args.dispatchY = vd.y;
    args.dispatchZ = 1;
    args.verticesWritten = written;
    args.vertexCount = grid.indexed != 0 ? 0u : written;
    args.instanceCount = 1;
    args.firstVertex = 0;
    args.firstInstance = 0;
    // One thread per index written (mesh smoothing's per-index passes).
    const uvec2 id = fold(indicesWritten);
    args.indexDispatchX = id.x;
    args.indexDispatchY = id.y;
    args.indexDispatchZ = 1;
    args.pad0 = 0;
    args.indexCount = indicesWritten;
    args.indexedInstanceCount = 1;
    args.firstIndex = 0;
    args.vertexOffset = 0;
    args.indexedFirstInstance = 0;
    // Indexed: shared_vertices.comp, one thread per vertex written.
    const uvec2 vd2 = fold(grid.indexed != 0 ? written : 0u);
    args.vertexDispatchX = vd2.x;
    args.vertexDispatchY = vd2.y;
    args.vertexDispatchZ = 1;
    const uint slot = pc.slot;
    stats[slot].verticesNeeded = needed;
    stats[slot].verticesWritten = written;
    stats[slot].activeCells = counters.activeCells;
    // Sparse: a brick list or pool that ran out dropped cells (bounded: the
    // passes write nothing past either), which is an overflow as well.
    // Metaballs: so did the ball references (user fields count none: limit 0);
    // volumes from an octree: the surface bricks past the pool.
    const uint sparseBricks = counters.sparseBricks, sparseSlots = counters.sparseSlots;
    const uint sparseItemRefs = counters.sparseItemRefs;
    const bool sparseShort = sparseBricks > grid.sparseLimits.x || sparseSlots > grid.sparseLimits.y ||
                             sparseItemRefs > grid.sparseLimits.w || counters.sparseCrowdedBricks != 0u ||
                             counters.sparseVolumeBricks > grid.sparseLimits.w;
    stats[slot].overflow = (needed > written || indicesNeeded > indicesWritten || sparseShort) ? 1u : 0u;
    stats[slot].sparseBricks = sparseBricks;
    stats[slot].sparseSlots = sparseSlots;
    stats[slot].sparseItemRefs = sparseItemRefs;
    stats[slot].sparseCrowdedBricks = counters.sparseCrowdedBricks;
    stats[slot].sparseVolumeBricks = counters.sparseVolumeBricks;
    stats[slot].frame = pc.frame;
    stats[slot].valid = 1u;
    stats[slot].indicesNeeded = indicesNeeded;
    stats[slot].indicesWritten = indicesWritten;
    // Ready for the next frame's classify (this pass runs after it) and,
    // sparse, its activate pass.
    counters.activeCells = 0;
    counters.sparseBricks = 0;
    counters.sparseSlots = 0;
    counters.sparseSupers = 0;
    counters.sparseItemRefs = 0;
    counters.sparseCrowdedBricks = 0;
    counters.sparseVolumeBricks = 0;
    counters.sparseFreeSlots = 0;
    counters.sparseFreeTaken = 0;
}
