#version 460
#extension GL_EXT_control_flow_attributes : require
// Fixed-point accumulation -> float field; clears the accumulator for the
// next frame so no separate clear pass is needed. One thread per tile of
// kIsoGatherColumn x kIsoGatherRows samples, the gather's tiles: on the
// bricks (grid.particleLayout.w) each tile records whether one of its
// samples is nonzero, as the gather does, for brick_list.comp.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) buffer AccumBuf { uint accum[]; };
layout(set = 0, binding = 2, std430) writeonly buffer FieldBuf { float field[]; };
// grid.particleLayout.w: one flag per tile; otherwise the field is bound here
// again and never written through it.
layout(set = 0, binding = 3, std430) writeonly buffer TileFlagsBuf { uint tileFlags[]; };

const uint K = kIsoGatherColumn, R = kIsoGatherRows;

void main() {
    const uint t = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    const uint cols = (grid.samples.x + K - 1) / K;
    const uint rows = (grid.samples.y + R - 1) / R;
    const uint tyz = t / cols;
    if (tyz >= rows * grid.samples.z) return;
    const uint x0 = (t - tyz * cols) * K;
    const uint y0 = (tyz % rows) * R, z = tyz / rows;
    bool nonzero = false;
    [[unroll]] for (uint r = 0; r < R; ++r) {
        if (y0 + r >= grid.samples.y) break;
        const uint base = x0 + grid.samples.x * (y0 + r + grid.samples.y * z);
        [[unroll]] for (uint k = 0; k < K; ++k)
            if (x0 + k < grid.samples.x) {
                const uint v = accum[base + k];
                field[base + k] = float(v) / float(kIsoSplatFixedOne);
                accum[base + k] = 0;
                nonzero = nonzero || v != 0u;
            }
    }
    // Every tile is written every frame: no clear needed.
    if (isoOpaque(grid.particleLayout.w) != 0u) tileFlags[t] = nonzero ? 1u : 0u;
}
