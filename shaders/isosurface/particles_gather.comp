#version 460
// Particle gather, step 4: one thread per sample sums the kernel of the
// particles in the (up to) 3x3x3 bins its radius reaches. No atomics. The
// order within a bin follows the counting sort's slots, which depends on
// thread timing, so the sum is taken in the scatter form's fixed point
// (integer adds are order independent): same bits every frame, and the same
// field as SplatMethod::Scatter.
#include "isosurface/field_common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std430) readonly buffer GridBuf { IsoGrid grid; }; // bin grid
layout(set = 0, binding = 1, std430) readonly buffer BinsBuf { uint bins[]; };
layout(set = 0, binding = 2, std430) readonly buffer BinOffsetsBuf { uint binOffsets[]; };
layout(set = 0, binding = 3, std430) readonly buffer SortedBuf { vec4 sorted[]; };
layout(set = 0, binding = 4, std430) writeonly buffer FieldBuf { float field[]; };

#include "isosurface/bin_prefix.glsl"

void main() {
    uint index;
    vec3 p;
    if (!sampleIndex(grid, index, p)) return;
    const float r = grid.particle.x;
    const float invR2 = grid.particle.y;
    const ivec3 lo = max(ivec3(floor((p - r - grid.binOrigin.xyz) / grid.binOrigin.w)), ivec3(0));
    const ivec3 hi = min(ivec3(floor((p + r - grid.binOrigin.xyz) / grid.binOrigin.w)), ivec3(grid.binDims.xyz) - 1);
    uint sum = 0u;
    for (int z = lo.z; z <= hi.z; ++z)
        for (int y = lo.y; y <= hi.y; ++y)
            for (int x = lo.x; x <= hi.x; ++x) {
                const uint bin = uint(x) + grid.binDims.x * (uint(y) + grid.binDims.y * uint(z));
                const uint count = bins[grid.levelOffset[0] + bin];
                if (count == 0) continue;
                const uint start = binPrefix(bin);
                for (uint j = 0; j < count; ++j) {
                    const vec4 pw = sorted[start + j];
                    const vec3 d = p - pw.xyz;
                    const float q = dot(d, d) * invR2;
                    if (q < 1.0) {
                        const float k = 1.0 - q;
                        sum += uint(min(pw.w * k * k * k * float(kIsoSplatFixedOne), 4.0e9));
                    }
                }
            }
    field[index] = float(sum) / float(kIsoSplatFixedOne);
}
