// Sparse domain (IsoSurfaceCreateInfo::sparse), every frame: which bricks of
// kIsoBrickCells^3 cells the surface can cross. Not a shader of its own:
// sparse.cpp wraps the user's snippet with this text (as user_bounds.glsl),
// defining ISO_LIPSCHITZ. Two passes of it (pc.srcLevel):
// 0, <name>.sparse.activate: one thread per brick of the virtual grid (the
//    bricks per axis in grid.sparse; the last brick of an axis may be
//    shorter) appends the brick to the list when the Lipschitz interval of
//    its samples (lipschitz_bounds.glsl, one field() call at its centre)
//    straddles the iso value; past the list's capacity it only counts (the
//    stats report the bricks needed, the frame as an overflow). A brick the
//    bound leaves out has no cut cell, so the list holds every brick the
//    dense path would find triangles in.
// 1, <name>.sparse.args: one invocation turns the count into classify's
//    indirect dispatch (kIsoBricksPerGroup bricks per group, folded).
// The list order follows the atomics; it reaches the output only as the
// order of the triangles (the pool's slots), never their values.

layout(set = 0, binding = 1, std430) buffer IsoCountersBuf { IsoCounters isoCounters; };
layout(set = 0, binding = 2, std430) writeonly buffer IsoBrickListBuf { uint isoBricks[]; };
layout(set = 0, binding = 3, std430) writeonly buffer IsoDispatchBuf { uvec4 isoDispatch; };

#include "isosurface/lipschitz_bounds.glsl"

void main() {
    isoBeginUserFrame();
    // One structured if/else (see the field pass): GPU-assisted validation's
    // instrumented copy of early returns inside branches failed Mesa's parser.
    if (isoOpaque(pc.srcLevel) == 0u) {
        const uint brick = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
        if (brick < grid.sparseLimits.z) {
            const uint row = divideBy(brick, grid.brickDivisors.x, grid.brickDivisors.z); // by + bricks.y * bz
            const uint bz = divideBy(row, grid.brickDivisors.y, grid.brickDivisors.w);
            const uvec3 b = uvec3(brick - row * grid.sparse.x, row - bz * grid.sparse.y, bz);
            const uvec3 lo = b * kIsoBrickCells;
            // Samples lo .. lo + 8, within the grid's last sample.
            const uvec3 hi = min(lo + kIsoBrickCells, grid.cells.xyz);
            if (isoStraddles(isoBoxBounds(lo, hi))) {
                const uint at = atomicAdd(isoCounters.sparseBricks, 1u);
                if (at < grid.sparseLimits.x)
                    isoBricks[at] = b.x | (b.y << kIsoBrickAxisBits) | (b.z << (2 * kIsoBrickAxisBits));
            }
        }
    } else {
        const uint listed = min(isoCounters.sparseBricks, grid.sparseLimits.x);
        const uint groups = (listed + kIsoBricksPerGroup - 1u) / kIsoBricksPerGroup;
        const uint gx = min(groups, grid.maxGroupsX);
        isoDispatch = uvec4(gx, gx == 0u ? 1u : (groups + gx - 1u) / gx, 1u, 0u);
    }
}
