#version 460
// Volume source, once per upload (after field.volume converted it): the
// value bounds (min, max) of the samples of each classify run (the 16
// consecutive cells one classify thread takes, along x, wrapping rows and
// slices exactly as classify does). NaN samples count as -infinity, as in
// classify. Independent of the iso value: classify compares the bounds with
// this frame's iso value and writes a run whose cells are all outside
// (max < iso) or all inside (min >= iso) without loading its samples, so a
// new iso value costs no re-scan.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer FieldBuf { float field[]; };
layout(set = 0, binding = 2, std430) writeonly buffer BoundsBuf { vec2 runBounds[]; };

float load(uint s) { return sanitize(field[s]); }

void main() {
    const uint cx = grid.cells.x, cy = grid.cells.y;
    const uint sx = grid.samples.x, sxy = grid.samples.x * grid.samples.y;
    const uint cells = grid.cells.w;
    const uint run = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    const uint first = run * kIsoClassifyCells;
    if (first >= cells) return;
    const uint row = first / cx;
    uint x = first - row * cx;
    const uint z0 = row / cy;
    uint y = row - z0 * cy;
    uint s = x + sx * y + sxy * z0;
    float lo = uintBitsToFloat(0x7f800000u), hi = uintBitsToFloat(0xff800000u);
    bool reload = true;
    for (uint j = 0; j < kIsoClassifyCells && first + j < cells; ++j) {
        if (reload) {
            const float a = load(s), b = load(s + sx), c = load(s + sxy), d = load(s + sx + sxy);
            lo = min(lo, min(min(a, b), min(c, d)));
            hi = max(hi, max(max(a, b), max(c, d)));
            reload = false;
        }
        const float a = load(s + 1), b = load(s + 1 + sx), c = load(s + 1 + sxy), d = load(s + 1 + sx + sxy);
        lo = min(lo, min(min(a, b), min(c, d)));
        hi = max(hi, max(max(a, b), max(c, d)));
        ++x;
        ++s;
        if (x == cx) {
            x = 0;
            ++s;
            reload = true;
            if (++y == cy) {
                y = 0;
                s += sx;
            }
        }
    }
    runBounds[run] = vec2(lo, hi);
}
