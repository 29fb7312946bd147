#version 460
// A grid that fits, as bricks (ISO_DIRECT_BRICKS over the field buffer): the
// list of bricks the surface can cross, so that classify and the pool
// pyramid's first build pass run over those only. Three passes (pc.srcLevel):
//   0 "<name>.bricks.bounds": a thread per brick, the value bounds of its
//     samples (8 + 1 per axis, fewer for a short last brick; NaN as -inf, as
//     classify reads them) from the field buffer. Volumes: on the frames
//     that converted an upload only; the other sources every frame.
//   1 "<name>.bricks.list": a thread per brick, listed when its bounds
//     straddle the iso value (max >= iso > min: a brick without a sample on
//     either side has no cut cell). It appends the brick's index (the list's
//     order is free: classify writes brick i's pairs at pool slots 32 i + p
//     whatever its place in the list) and, the first time one of a build
//     group's kIsoBuildBricks bricks is listed, the group (the first build
//     pass, from level 3, reduces only those; the levels classify and it
//     would have written for the others are cleared before).
//   2 "<name>.bricks.args": one thread, the two counts -> classify's and the
//     listed build's indirect dispatches.
// The list buffer: the listed bricks at 0, the listed build groups at
// grid.sparseLimits.z (the grid's bricks), each group's mark after them.
// Counters: sparseBricks (listed bricks, reported as the stats'
// sparseBricksNeeded), sparseSupers (listed build groups).
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) buffer CountersBuf { IsoCounters counters; };
layout(set = 0, binding = 2, std430) readonly buffer FieldBuf { float field[]; };
layout(set = 0, binding = 3, std430) buffer BoundsBuf { vec2 bounds[]; };
layout(set = 0, binding = 4, std430) buffer ListBuf { uint list[]; };
layout(set = 0, binding = 5, std430) writeonly buffer ArgsBuf { uvec4 args[]; };

uvec4 foldedGroups(uint groups) {
    const uint gx = min(groups, grid.maxGroupsX);
    return uvec4(gx, gx == 0u ? 1u : (groups + gx - 1u) / gx, 1u, 0u);
}

void main() {
    const uint brick = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    const uint bricks = grid.sparseLimits.z;
    const uint mode = isoOpaque(pc.srcLevel);
    // One structured if/else (no early returns inside branches: see sparse_activate.glsl).
    if (mode == 0u) {
        if (brick < bricks) {
            const uvec3 lo = isoBrickOf(brick, grid.sparse, grid.brickDivisors) * kIsoBrickCells;
            const uvec3 n = min(uvec3(kIsoBrickCells + 1u), grid.samples.xyz - lo);
            float minV = uintBitsToFloat(0x7f800000u), maxV = uintBitsToFloat(0xff800000u);
            for (uint z = 0u; z < n.z; ++z)
                for (uint y = 0u; y < n.y; ++y) {
                    const uint row = lo.x + grid.samples.x * (lo.y + y + grid.samples.y * (lo.z + z));
                    for (uint x = 0u; x < n.x; ++x) {
                        const float v = sanitize(field[row + x]);
                        minV = min(minV, v);
                        maxV = max(maxV, v);
                    }
                }
            bounds[brick] = vec2(minV, maxV);
        }
    } else if (mode == 1u) {
        if (brick < bricks) {
            const vec2 b = bounds[brick];
            // NaN iso: no sample is inside, no brick is listed.
            if (b.y >= pc.iso && b.x < pc.iso) {
                list[atomicAdd(counters.sparseBricks, 1u)] = brick;
                const uint group = brick / kIsoBuildBricks;
                const uint groups = (bricks + kIsoBuildBricks - 1u) / kIsoBuildBricks;
                if (atomicExchange(list[bricks + groups + group], 1u) == 0u)
                    list[bricks + atomicAdd(counters.sparseSupers, 1u)] = group;
            }
        }
    } else if (brick == 0u) {
        args[0] = foldedGroups((counters.sparseBricks + kIsoBricksPerGroup - 1u) / kIsoBricksPerGroup);
        args[1] = foldedGroups(counters.sparseSupers);
    }
}
