#version 460
#extension GL_EXT_control_flow_attributes : require
// Particle gather, step 4: one thread per run of kIsoGatherColumn samples
// along x. The bins its kernels can reach form (pad + reach + 1)^2 rows
// (fixed y, z); each row is one contiguous range of the sorted particles, so
// a run reads each nearby particle once, drops it when its y/z distance is
// already past the radius, and adds it to all samples of the run. No
// atomics; terms are particles_kernel.glsl's 16.16 fixed point, summed as
// integers: the same bits whatever order the sort left, and as the scatter
// form.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std430) readonly buffer GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer BinStartBuf { uint binStart[]; };
layout(set = 0, binding = 2, std430) readonly buffer SortedBuf { vec4 sorted[]; };
layout(set = 0, binding = 3, std430) writeonly buffer FieldBuf { float field[]; };

#include "isosurface/particles_kernel.glsl"

const uint K = kIsoGatherColumn;

void main() {
    const uint t = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    const uint cols = (grid.samples.x + K - 1) / K;
    const uint yz = t / cols;
    if (yz >= grid.samples.y * grid.samples.z) return;
    const uint x0 = (t - yz * cols) * K;
    const uint y = yz % grid.samples.y, z = yz / grid.samples.y;
    const float ys = sampleCoord(y, grid.boundsMin.y, grid.spacing.y);
    const float zs = sampleCoord(z, grid.boundsMin.z, grid.spacing.z);
    float xs[K];
    uint sum[K];
    [[unroll]] for (uint k = 0; k < K; ++k) {
        xs[k] = sampleCoord(x0 + k, grid.boundsMin.x, grid.spacing.x);
        sum[k] = 0u;
    }
    // Bins of cells [x0 - pad, x0 + K - 1 + reach] (bin = cell + pad), the
    // same around y and z; rows past the grid's last run are clamped.
    const uint bx1 = min(x0 + K - 1 + grid.binPad.x + grid.binReach.x, grid.binDims.x - 1);
    const uint by1 = y + grid.binPad.y + grid.binReach.y, bz1 = z + grid.binPad.z + grid.binReach.z;
    for (uint bz = z; bz <= bz1; ++bz)
        for (uint by = y; by <= by1; ++by) {
            const uint row = grid.binDims.x * (by + grid.binDims.y * bz);
            const uint end = binStart[row + bx1 + 1];
            for (uint j = binStart[row + x0]; j < end; ++j) {
                const vec4 pw = sorted[j];
                const float d2 = squaredYZ(ys - pw.y, zs - pw.z);
                if (d2 * grid.particle.y >= 1.0) continue;
                [[unroll]] for (uint k = 0; k < K; ++k) sum[k] += kernelTerm(xs[k] - pw.x, d2, pw.w);
            }
        }
    const uint base = x0 + grid.samples.x * yz;
    [[unroll]] for (uint k = 0; k < K; ++k)
        if (x0 + k < grid.samples.x) field[base + k] = float(sum[k]) / float(kIsoSplatFixedOne);
}
