// Sparse domain (IsoSurfaceCreateInfo::sparse), every frame: which bricks of
// kIsoBrickCells^3 cells the surface can cross, coarse to fine. Not a shader
// of its own: field_user.cpp wraps the user's snippet with this text (as
// user_bounds.glsl), defining ISO_LIPSCHITZ. Four passes of it (pc.srcLevel):
// 0, <name>.sparse.supers: one thread per super-brick (kIsoSuperBricks^3
//    bricks; grid.superBricks) lists it when the Lipschitz interval of its
//    centre with radius r_super + r_brick reaches the iso value. That
//    interval holds every one of its bricks' intervals (a brick centre lies
//    within r_super of the super-brick's, so |f(c_b) - f(c_s)| <= L r_super),
//    so no brick the fine test lists is lost.
// 1, <name>.sparse.supers.args: the listed count -> the fine pass's
//    indirect dispatch (kIsoSuperBrickCount threads per super-brick).
// 2, <name>.sparse.activate: one thread per brick of a listed super-brick
//    appends the brick to the list when its own interval (one field() call
//    at its centre, lipschitz_bounds.glsl) straddles the iso value; past the
//    list's capacity it only counts (the stats report the bricks needed,
//    the frame as an overflow). A brick the bound leaves out has no cut
//    cell, so the list holds every brick the dense path finds triangles in.
// 3, <name>.sparse.args: the brick count -> classify's indirect dispatch
//    (kIsoBricksPerGroup bricks per group).
// Every brick of the grid is tested by the fine pass only where its
// super-brick is listed: at 2047^3 the sphere lists ~4 K of 32 K
// super-bricks, so ~2 M brick tests instead of 16.8 M.
// The list orders follow the atomics; they reach the output only as the
// order of the triangles (the pool's slots), never their values.

// Two builds (sparse.cpp): ISO_SPARSE_COARSE for modes 0 and 1, the other
// for modes 2 and 3, so that the fine pass's pipeline never writes the
// buffer its own indirect dispatch reads (a shader's bindings count as
// accessed by every dispatch of it, whatever the mode).
layout(set = 0, binding = 1, std430) buffer IsoCountersBuf { IsoCounters isoCounters; };
// The next pass's indirect dispatch: coarse, the fine pass's; fine, classify's.
layout(set = 0, binding = 3, std430) writeonly buffer IsoDispatchBuf { uvec4 isoDispatch; };
#ifdef ISO_SPARSE_COARSE
layout(set = 0, binding = 4, std430) writeonly buffer IsoSuperListBuf { uint isoSupers[]; };
#else
layout(set = 0, binding = 2, std430) writeonly buffer IsoBrickListBuf { uint isoBricks[]; };
layout(set = 0, binding = 4, std430) readonly buffer IsoSuperListBuf { uint isoSupers[]; };
#endif

#include "isosurface/lipschitz_bounds.glsl"

uvec4 isoFoldedGroups(uint groups) {
    const uint gx = min(groups, grid.maxGroupsX);
    return uvec4(gx, gx == 0u ? 1u : (groups + gx - 1u) / gx, 1u, 0u);
}

// Sample box of brick b (the grid's last brick of an axis may be shorter).
void isoBrickBox(uvec3 b, out uvec3 lo, out uvec3 hi) {
    lo = b * kIsoBrickCells;
    hi = min(lo + kIsoBrickCells, grid.cells.xyz);
}

void main() {
    isoBeginUserFrame();
    const uint thread = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    // One structured if/else (see the field pass): GPU-assisted validation's
    // instrumented copy of early returns inside branches failed Mesa's parser.
#ifdef ISO_SPARSE_COARSE
    if (isoOpaque(pc.srcLevel) == 0u) {
        if (thread < grid.superBricks.w) {
            const uint row = divideBy(thread, grid.superDivisors.x, grid.superDivisors.z);
            const uint sz = divideBy(row, grid.superDivisors.y, grid.superDivisors.w);
            const uvec3 s = uvec3(thread - row * grid.superBricks.x, row - sz * grid.superBricks.y, sz);
            const uvec3 lo = s * (kIsoSuperBricks * kIsoBrickCells);
            const uvec3 hi = min(lo + kIsoSuperBricks * kIsoBrickCells, grid.cells.xyz);
            // The interval over the box grown by a brick's half diagonal on
            // every side holds every brick's own interval.
            const vec2 box = isoBoxBounds(lo, hi);
            const vec3 brickDiagonal = vec3(kIsoBrickCells) * grid.spacing.xyz;
            const float grow = ISO_LIPSCHITZ * 0.5 * length(brickDiagonal) * 1.001;
            if (isoStraddles(vec2(box.x - grow, box.y + grow)))
                isoSupers[atomicAdd(isoCounters.sparseSupers, 1u)] = thread;
        }
    } else {
        isoDispatch = isoFoldedGroups(isoCounters.sparseSupers * (kIsoSuperBrickCount / kIsoGroupSize));
    }
#else
    if (isoOpaque(pc.srcLevel) == 2u) {
        const uint listedSuper = thread / kIsoSuperBrickCount;
        if (listedSuper < isoCounters.sparseSupers) {
            const uint super = isoSupers[listedSuper];
            const uint row = divideBy(super, grid.superDivisors.x, grid.superDivisors.z);
            const uint sz = divideBy(row, grid.superDivisors.y, grid.superDivisors.w);
            const uvec3 s = uvec3(super - row * grid.superBricks.x, row - sz * grid.superBricks.y, sz);
            const uint local = thread % kIsoSuperBrickCount;
            const uvec3 b = s * kIsoSuperBricks + uvec3(local & 7u, (local >> 3) & 7u, local >> 6);
            if (all(lessThan(b, grid.sparse.xyz))) {
                uvec3 lo, hi;
                isoBrickBox(b, lo, hi);
                if (isoStraddles(isoBoxBounds(lo, hi))) {
                    const uint at = atomicAdd(isoCounters.sparseBricks, 1u);
                    if (at < grid.sparseLimits.x)
                        isoBricks[at] = b.x | (b.y << kIsoBrickAxisBits) | (b.z << (2 * kIsoBrickAxisBits));
                }
            }
        }
    } else {
        const uint listed = min(isoCounters.sparseBricks, grid.sparseLimits.x);
        isoDispatch = isoFoldedGroups((listed + kIsoBricksPerGroup - 1u) / kIsoBricksPerGroup);
    }
#endif
}
