#version 460
// One thread per cell: MC case and vertex count into the pyramid base
// (count | case << 4), plus the number of active cells.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std430) readonly buffer GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer TablesBuf { IsoTables tables; };
layout(set = 0, binding = 2, std430) readonly buffer FieldBuf { float field[]; };
layout(set = 0, binding = 3, std430) writeonly buffer PyramidBuf { uint pyramid[]; };
layout(set = 0, binding = 4, std430) buffer CountersBuf { IsoCounters counters; };

shared uint groupActive;

void main() {
    if (gl_LocalInvocationIndex == 0) groupActive = 0;
    barrier();
    const uint cell = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    if (cell < grid.cells.w) {
        const uint cx = grid.cells.x, cy = grid.cells.y;
        const uvec3 c = uvec3(cell % cx, (cell / cx) % cy, cell / (cx * cy));
        const uint sx = grid.samples.x, sxy = grid.samples.x * grid.samples.y;
        uint mcCase = 0;
        for (uint k = 0; k < 8; ++k) {
            const uint o = tables.cornerOffset[k];
            const uvec3 p = c + uvec3(o & 1u, (o >> 1) & 1u, (o >> 2) & 1u);
            const float v = sanitize(field[p.x + sx * p.y + sxy * p.z]);
            if (v >= pc.iso) mcCase |= 1u << k;
        }
        const uint count = tables.caseVertexCount[mcCase];
        pyramid[grid.levelOffset[0] + cell] = count | (mcCase << kIsoCaseShift);
        if (count != 0) atomicAdd(groupActive, 1u);
    }
    barrier();
    if (gl_LocalInvocationIndex == 0 && groupActive != 0) atomicAdd(counters.activeCells, groupActive);
}
