// User GLSL field with a Lipschitz constant (IsoSurfaceCreateInfo::lipschitz),
// every frame: pass "<name>.field.user.bounds", one thread per classify patch.
// Not a shader of its own: field_user.cpp wraps the user's snippet with this
// text (as the field pass's template), defining ISO_LIPSCHITZ (the constant's
// exact bits), after the grid, the globals iso_time / iso_params the
// snippet may read and isoBeginUserFrame() (the same prologue as the field pass).
// Its names other than the field template's (grid) start with iso / Iso,
// which the snippet should not define (a clash fails create() as a compile
// error of the bounds pass).
//
// |f(x) - f(c)| <= L |x - c| bounds every sample of a box by f(c) +- L r
// (r: the box's half diagonal), with no field read. The activate pass lists a
// patch when its interval straddles the iso value (max >= iso > min); an
// unlisted patch is then all outside (case 0, what the dense classify
// writes) or all inside (case 0 from the clear instead of the dense path's
// 255, count 0 either way, as volumes store such runs). Two steps, so that
// most patches cost one field() call: the patch's box (a conservative union
// of its 8 runs, whole rows or slices where a run wraps); if that interval
// reaches the iso value, the runs' row pieces one by one (16 cells along x:
// a much smaller half diagonal) until their hull straddles it. NaN or
// infinity at a centre lists the patch (interval -inf..+inf).

layout(set = 0, binding = 1, std430) writeonly buffer IsoPatchBoundsBuf { vec2 isoPatchBounds[]; };

#include "isosurface/lipschitz_bounds.glsl"

// Cell index -> (x, y, z) cell coordinates.
uvec3 isoCellOf(uint c) {
    const uint row = divideBy(c, grid.cellDivisors.x, grid.cellDivisors.z);
    const uint z = divideBy(row, grid.cellDivisors.y, grid.cellDivisors.w);
    return uvec3(c - row * grid.cells.x, row - z * grid.cells.y, z);
}

void main() {
    isoBeginUserFrame();
    const uint patchId = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    if (patchId >= grid.patchCount) return;
    const float inf = uintBitsToFloat(0x7f800000u);
    const uint cells = grid.cells.w, cx = grid.cells.x, cy = grid.cells.y;
    // Run 16k + b of group patch / 16: classify's lane mapping.
    const uint first = (patchId / kIsoPatchesPerGroup) * kIsoClassifyGroupSize + patchId % kIsoPatchesPerGroup;
    uvec3 lo = uvec3(0xffffffffu), hi = uvec3(0u);
    for (uint k = 0; k < kIsoPatchRuns; ++k) {
        const uint c0 = (first + kIsoPatchesPerGroup * k) * kIsoClassifyCells;
        if (c0 >= cells) break;
        const uvec3 a = isoCellOf(c0), b = isoCellOf(min(c0 + kIsoClassifyCells, cells) - 1u);
        uvec3 runLo = min(a, b), runHi = max(a, b);
        if (a.y != b.y || a.z != b.z) {
            runLo.x = 0u;
            runHi.x = cx - 1u;
        }
        if (a.z != b.z) {
            runLo.y = 0u;
            runHi.y = cy - 1u;
        }
        lo = min(lo, runLo);
        hi = max(hi, runHi);
    }
    if (lo.x > hi.x) {
        isoPatchBounds[patchId] = vec2(inf, -inf); // no runs: never listed
        return;
    }
    // Samples of those cells: corners lo .. hi + 1.
    const vec2 box = isoBoxBounds(lo, hi + 1u);
    if (!isoStraddles(box)) {
        isoPatchBounds[patchId] = box;
        return;
    }
    vec2 hull = vec2(inf, -inf);
    for (uint k = 0; k < kIsoPatchRuns; ++k) {
        const uint c0 = (first + kIsoPatchesPerGroup * k) * kIsoClassifyCells;
        if (c0 >= cells) break;
        uint left = min(kIsoClassifyCells, cells - c0);
        const uint row = c0 / cx;
        uint x = c0 - row * cx;
        uint z = row / cy;
        uint y = row - z * cy;
        while (left > 0u) {
            const uint piece = min(left, cx - x);
            const vec2 b = isoBoxBounds(uvec3(x, y, z), uvec3(x + piece, y + 1u, z + 1u));
            hull = vec2(min(hull.x, b.x), max(hull.y, b.y));
            if (isoStraddles(hull)) {
                isoPatchBounds[patchId] = hull;
                return;
            }
            left -= piece;
            x += piece;
            if (x == cx) {
                x = 0u;
                if (++y == cy) {
                    y = 0u;
                    ++z;
                }
            }
        }
    }
    isoPatchBounds[patchId] = hull;
}
