#version 460
// Indexed output (shared vertices as in the WebGL point-cloud MC post, docs/algorithms.md): every sample owns its +x, +y,
// +z edges; base of the edge pyramid = number of cut owned edges (0..3) |
// their axis bits << 4. Like classify, a thread takes the 4 samples of one
// level-1 element and writes that element too. Bound as `grid` here is the
// edge pyramid's grid (same samples, level tables over samples).
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer FieldBuf { float field[]; };
layout(set = 0, binding = 2, std430) writeonly buffer PyramidBuf { uint pyramid[]; };

void main() {
    const uint sx = grid.samples.x, sy = grid.samples.y, sz = grid.samples.z, sxy = sx * sy;
    const uint samples = grid.samples.w;
    const uint base0 = grid.levels[0].z;
    const float iso = pc.iso;
    const uint element = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    const uint first = element * 4;
    uint sum = 0;
    for (uint j = 0; j < 4; ++j) {
        const uint s = first + j;
        if (s >= samples) break;
        const uint row = divideBy(s, grid.sampleDivisors.x, grid.sampleDivisors.z);
        const uint z = divideBy(row, grid.sampleDivisors.y, grid.sampleDivisors.w);
        const uvec3 p = uvec3(s - row * sx, row - z * sy, z);
        const bool inside = sanitize(field[s]) >= iso;
        uint bits = 0;
        if (p.x + 1 < sx && (sanitize(field[s + 1]) >= iso) != inside) bits |= 1u;
        if (p.y + 1 < sy && (sanitize(field[s + sx]) >= iso) != inside) bits |= 2u;
        if (p.z + 1 < sz && (sanitize(field[s + sxy]) >= iso) != inside) bits |= 4u;
        const uint count = bitCount(bits);
        pyramid[base0 + s] = count | (bits << kIsoCaseShift);
        sum += count;
    }
    if (grid.levelCount > 1 && element < grid.levels[1].y) pyramid[grid.levels[1].z + element] = sum;
}
