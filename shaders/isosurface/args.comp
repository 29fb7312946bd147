#version 460
// One invocation: pyramid top -> indirect dispatch for extraction (folded
// to respect maxComputeWorkGroupCount), indirect draw, stats. The vertex
// count is clamped to whole triangles within capacity.
#include "isosurface/common.glsl"

layout(local_size_x = 1) in;

layout(set = 0, binding = 0, std430) readonly buffer GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer PyramidBuf { uint pyramid[]; };
layout(set = 0, binding = 2, std430) buffer CountersBuf { IsoCounters counters; };
layout(set = 0, binding = 3, std430) writeonly buffer ArgsBuf { IsoArgs args; };
layout(set = 0, binding = 4, std430) writeonly buffer StatsBuf { IsoStatsGpu stats[]; };

void main() {
    const uint top = grid.levelCount - 1;
    uint needed = pyramid[grid.levelOffset[top]];
    if (top == 0) needed &= kIsoCountMask;
    const uint written = min(needed, grid.vertexCapacity);
    const uint groups = (written + kIsoGroupSize - 1) / kIsoGroupSize;
    const uint gx = min(groups, grid.maxGroupsX);
    args.dispatchX = gx;
    args.dispatchY = gx == 0 ? 1 : (groups + gx - 1) / gx;
    args.dispatchZ = 1;
    args.pad0 = 0;
    args.vertexCount = written;
    args.instanceCount = 1;
    args.firstVertex = 0;
    args.firstInstance = 0;
    const uint slot = pc.slot;
    stats[slot].verticesNeeded = needed;
    stats[slot].verticesWritten = written;
    stats[slot].activeCells = counters.activeCells;
    stats[slot].overflow = needed > written ? 1u : 0u;
    stats[slot].frame = pc.frame;
    stats[slot].valid = 1u;
    // Ready for the next frame's classify (this pass runs after it).
    counters.activeCells = 0;
}
