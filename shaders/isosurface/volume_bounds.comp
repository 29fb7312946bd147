#version 460
// Volume source, once per upload (after field.volume converted it): the
// value bounds (min, max) of the samples of each classify run (the 16
// consecutive cells one classify thread takes, along x, wrapping rows and
// slices exactly as classify does). NaN samples count as -infinity, as in
// classify. Independent of the iso value: classify compares the bounds with
// this frame's iso value and writes a run whose cells are all outside
// (max < iso) or all inside (min >= iso) without loading its samples, so a
// new iso value costs no re-scan. A run that goes on past the end of its
// first row (one per row where the row length is not a multiple of 16)
// gets two intervals: its cells in the first row (runBounds) and the rest
// (wrapBounds, indexed by that first row). One interval over both would
// span the two ends of a row, whose values have nothing to do with each
// other, and would straddle the iso value without a cut cell in either
// part (Cayley 255^3: 45 % of the runs classify took).
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer FieldBuf { float field[]; };
layout(set = 0, binding = 2, std430) writeonly buffer BoundsBuf { vec2 runBounds[]; };
// The second interval of the run that starts in row r and goes on past it (by r).
layout(set = 0, binding = 3, std430) writeonly buffer WrapBoundsBuf { vec2 wrapBounds[]; };

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
    const float inf = uintBitsToFloat(0x7f800000u);
    // (lo, hi) of the cells in the first row, then (lo, hi) of the rest.
    vec4 bounds = vec4(inf, -inf, inf, -inf);
    bool reload = true, wrapped = false;
    for (uint j = 0; j < kIsoClassifyCells && first + j < cells; ++j) {
        float lo = inf, hi = -inf;
        if (reload) {
            const float a = load(s), b = load(s + sx), c = load(s + sxy), d = load(s + sx + sxy);
            lo = min(min(a, b), min(c, d));
            hi = max(max(a, b), max(c, d));
            reload = false;
        }
        const float a = load(s + 1), b = load(s + 1 + sx), c = load(s + 1 + sxy), d = load(s + 1 + sx + sxy);
        lo = min(lo, min(min(a, b), min(c, d)));
        hi = max(hi, max(max(a, b), max(c, d)));
        if (wrapped)
            bounds.zw = vec2(min(bounds.z, lo), max(bounds.w, hi));
        else
            bounds.xy = vec2(min(bounds.x, lo), max(bounds.y, hi));
        ++x;
        ++s;
        if (x == cx) {
            x = 0;
            ++s;
            reload = true;
            wrapped = true;
            if (++y == cy) {
                y = 0;
                s += sx;
            }
        }
    }
    runBounds[run] = bounds.xy;
    // Only a run with cells past its first row owns that row's entry (every
    // min <= max, -infinity included: an empty part keeps (inf, -inf)).
    if (bounds.z <= bounds.w) wrapBounds[row] = bounds.zw;
}
