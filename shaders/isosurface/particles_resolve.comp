#version 460
// Fixed-point accumulation -> float field; clears the accumulator for the
// next frame so no separate clear pass is needed.
#include "isosurface/field_common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std430) readonly buffer GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) buffer AccumBuf { uint accum[]; };
layout(set = 0, binding = 2, std430) writeonly buffer FieldBuf { float field[]; };

void main() {
    uint index;
    vec3 p;
    if (!sampleIndex(grid, index, p)) return;
    field[index] = float(accum[index]) / float(kIsoSplatFixedOne);
    accum[index] = 0;
}
