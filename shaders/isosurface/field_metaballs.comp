#version 460
// Metaballs: f(p) = sum_i s_i (1 - |p - c_i|^2 / R_i^2)^3 for |p - c_i| < R_i.
// Compact (a ball has no effect beyond R) and C2 smooth; iso ~0.5 gives the
// classic blobs. Balls come from this frame's slot of a host-visible ring.
#include "isosurface/field_common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std430) readonly buffer GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer BallsBuf { IsoBall balls[]; };
layout(set = 0, binding = 2, std430) writeonly buffer FieldBuf { float field[]; };

void main() {
    uint index;
    vec3 p;
    if (!sampleIndex(grid, index, p)) return;
    const uint first = pc.slot * grid.maxItems;
    const uint count = min(pc.itemCount, grid.maxItems);
    float sum = 0.0;
    for (uint i = 0; i < count; ++i) {
        const vec4 cr = balls[first + i].centerRadius;
        const vec3 d = p - cr.xyz;
        const float q = dot(d, d) / (cr.w * cr.w);
        if (q < 1.0) {
            const float k = 1.0 - q;
            sum += balls[first + i].strength.x * k * k * k;
        }
    }
    field[index] = sum;
}
