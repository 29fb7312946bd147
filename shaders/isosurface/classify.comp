#version 460
// MC case and vertex count of each cell into the pyramid base
// (count | case << 4), plus the number of active cells. Each thread takes
// the 4 consecutive cells of one level-1 element and writes that element
// too, so the build passes start at level 1 without re-reading the base.
// (Reducing further in shared memory was measured 3x slower on lavapipe,
// where barriers are expensive; see modules/isosurface/README.md.)
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std430) readonly buffer GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer TablesBuf { IsoTables tables; };
layout(set = 0, binding = 2, std430) readonly buffer FieldBuf { float field[]; };
layout(set = 0, binding = 3, std430) writeonly buffer PyramidBuf { uint pyramid[]; };
layout(set = 0, binding = 4, std430) buffer CountersBuf { IsoCounters counters; };
// Scan only (grid.scanOccupancy): level 1 of the occupancy tree, active cells
// per 4 cells, laid out from element 0 (the tree has no level 0 of its own).
// Otherwise the pyramid is bound here again and never written through it.
layout(set = 0, binding = 5, std430) writeonly buffer OccupancyBuf { uint occupancy[]; };

// Grid values and corner offsets read once per thread: the compiler cannot
// keep them in registers across the pyramid stores itself (the buffers
// might alias).
uint cornerIndex[8];
uint cx, cy, sx, sxy, base0;
float iso;

uint classifyCell(uint cell) {
    const uvec3 c = uvec3(cell % cx, (cell / cx) % cy, cell / (cx * cy));
    uint mcCase = 0;
    const uint base = c.x + sx * c.y + sxy * c.z;
    for (uint k = 0; k < 8; ++k)
        if (sanitize(field[base + cornerIndex[k]]) >= iso) mcCase |= 1u << k;
    const uint count = tables.caseVertexCount[mcCase];
    pyramid[base0 + cell] = count | (mcCase << kIsoCaseShift);
    return count;
}

void main() {
    cx = grid.cells.x;
    cy = grid.cells.y;
    sx = grid.samples.x;
    sxy = grid.samples.x * grid.samples.y;
    base0 = grid.levelOffset[0];
    iso = pc.iso;
    const uint cells = grid.cells.w;
    for (uint k = 0; k < 8; ++k) {
        const uint o = tables.cornerOffset[k];
        cornerIndex[k] = (o & 1u) + sx * ((o >> 1) & 1u) + sxy * ((o >> 2) & 1u);
    }
    const uint element = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    const uint first = element * 4;
    uint sum = 0, activeCells = 0;
    for (uint j = 0; j < 4; ++j) {
        if (first + j >= cells) break;
        const uint count = classifyCell(first + j);
        sum += count;
        activeCells += count != 0 ? 1u : 0u;
    }
    if (grid.levelCount > 1 && element < grid.levelSize[1]) {
        pyramid[grid.levelOffset[1] + element] = sum;
        if (grid.scanOccupancy != 0) occupancy[element] = activeCells;
    }
    // Few threads have active cells (surfaces are sparse): a global atomic
    // is cheaper than a barrier-based group reduction on lavapipe.
    if (activeCells != 0) atomicAdd(counters.activeCells, activeCells);
}
