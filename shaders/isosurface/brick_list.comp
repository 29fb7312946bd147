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
// Metaballs (ISO_BRICK_BALLS, SPIR-V brick_list.metaballs): mode 0 bounds a
// brick by the balls instead (the sum of the term ranges of the balls that
// reach its samples' box, widened for the rounding: no field read), and
// mode 1 with pc.numLevels != 0 flags the field tiles of kIsoFieldTile^3
// samples a listed brick's classify and extraction read (its samples and one
// further for the gradients), so that the field pass evaluates only those
// (field_tiles.comp lists them, field_metaballs.comp's tiled form).
// Bounded user fields (ISO_BRICK_LIPSCHITZ, compiled at creation around the
// snippet with the constant ISO_LIPSCHITZ): mode 0 bounds a brick by the
// Lipschitz interval of its samples' box (lipschitz_bounds.glsl, as the
// sparse domain's activate pass), and mode 1 flags the tiles the same way
// for a tiled field pass (a fused field reads none: pc.numLevels 0).
// Particles (ISO_BRICK_PARTICLES, SPIR-V brick_list.particles): mode 0
// bounds a brick from the tiles the field pass flagged (a nonzero sample,
// the gather or the resolve writes them): (-inf, inf) where a tile
// holding one of its samples is flagged or the iso value is not above 0,
// else (0, 0) (no particle reaches it: every sample exactly 0).
// The list buffer: the listed bricks at 0, the listed build groups at
// grid.sparseLimits.z (the grid's bricks), each group's mark after them.
// Counters: sparseBricks (listed bricks, reported as the stats'
// sparseBricksNeeded), sparseSupers (listed build groups).
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) buffer CountersBuf { IsoCounters counters; };
#if !defined(ISO_BRICK_LIPSCHITZ) // the user's field() instead
layout(set = 0, binding = 2, std430) readonly buffer FieldBuf { float field[]; };
#endif
layout(set = 0, binding = 3, std430) buffer BoundsBuf { vec2 bounds[]; };
layout(set = 0, binding = 4, std430) buffer ListBuf { uint list[]; };
layout(set = 0, binding = 5, std430) writeonly buffer ArgsBuf { uvec4 args[]; };
#if defined(ISO_BRICK_BALLS) || defined(ISO_BRICK_LIPSCHITZ)
#define ISO_BRICK_TILES
layout(set = 0, binding = 6, std430) buffer TileFlagsBuf { uint tileFlags[]; };
#endif
#ifdef ISO_BRICK_PARTICLES
layout(set = 0, binding = 6, std430) readonly buffer ParticleTilesBuf { uint particleTiles[]; };

// Whether the field pass flagged a tile (kIsoGatherColumn x kIsoGatherRows
// samples of one slice) holding one of the samples lo..hi.
bool particleTilesReached(uvec3 lo, uvec3 hi) {
    const uint K = kIsoGatherColumn, R = kIsoGatherRows;
    const uint cols = (grid.samples.x + K - 1u) / K, rows = (grid.samples.y + R - 1u) / R;
    bool reached = false;
    for (uint z = lo.z; z <= hi.z && !reached; ++z)
        for (uint ty = lo.y / R; ty <= hi.y / R && !reached; ++ty)
            for (uint tx = lo.x / K; tx <= hi.x / K && !reached; ++tx)
                reached = particleTiles[tx + cols * (ty + rows * z)] != 0u;
    return reached;
}
#endif
#ifdef ISO_BRICK_LIPSCHITZ
#include "isosurface/user_field.glsl"
#include "isosurface/lipschitz_bounds.glsl"
#endif
#ifdef ISO_BRICK_BALLS
#define ISO_BALLS_BINDING 7
#include "isosurface/metaballs.glsl" // storage reads (no ISO_TEXEL_READS)

// The balls' bound of the samples lo..hi (inclusive): as the sparse domain's
// (sparse_activate.glsl isoBoxBounds), the sum of the term ranges of the
// balls that reach the box (a ball that misses it adds exactly 0 to each of
// its samples in the field pass), widened by the rounding of the field's
// float sum and of the ranges' ends; (-inf, inf) where a term is not finite,
// and past kIsoRowBalls balls (the loop would cost more than it saves; every brick is listed, every tile evaluated).
vec2 ballBounds(uvec3 lo, uvec3 hi) {
    const vec3 a = isoSamplePosition(grid, lo), b = isoSamplePosition(grid, hi);
    const uint first = pc.slot * grid.maxItems, count = isoOpaque(min(pc.itemCount, grid.maxItems));
    const float inf = uintBitsToFloat(0x7f800000u);
    if (count > kIsoRowBalls) return vec2(-inf, inf);
    vec2 sum = vec2(0.0);
    float magnitude = 0.0;
    uint reaching = 0u;
    for (uint i = 0u; i < count; ++i) {
        const vec4 cr = ballCentreRadius(first + i);
        if (!ballReaches(cr, a, b)) continue;
        ++reaching;
        const float strength = ballStrength(first + i);
        sum += ballTermRange(cr, strength, a, b);
        magnitude += isFiniteF(strength) ? abs(strength) : 0.0;
    }
    const float margin = (1e-5 + 1.2e-7 * float(reaching)) * magnitude;
    return vec2(sum.x - margin, sum.y + margin);
}
#endif

#ifdef ISO_BRICK_TILES
// The tiles holding the samples lo - 1 .. lo + 9 of a listed brick (its 9^3
// and the gradients' one further), clamped to the grid.
void markTiles(uvec3 lo) {
    const uvec3 n = (grid.samples.xyz + kIsoFieldTile - 1u) / kIsoFieldTile;
    const uvec3 t0 = uvec3(max(ivec3(lo) - 1, ivec3(0))) / kIsoFieldTile;
    const uvec3 t1 = min(lo + kIsoBrickCells + 1u, grid.samples.xyz - 1u) / kIsoFieldTile;
    for (uint z = t0.z; z <= t1.z; ++z)
        for (uint y = t0.y; y <= t1.y; ++y)
            for (uint x = t0.x; x <= t1.x; ++x) {
                const uint i = x + n.x * (y + n.y * z);
                if (tileFlags[i] == 0u) tileFlags[i] = 1u;
            }
}
#endif

uvec4 foldedGroups(uint groups) {
    const uint gx = min(groups, grid.maxGroupsX);
    return uvec4(gx, gx == 0u ? 1u : (groups + gx - 1u) / gx, 1u, 0u);
}

void main() {
    const uint brick = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    const uint bricks = grid.sparseLimits.z;
    const uint mode = isoOpaque(pc.srcLevel);
#ifdef ISO_BRICK_LIPSCHITZ
    isoBeginUserFrame();
#endif
    // One structured if/else (no early returns inside branches: see sparse_activate.glsl).
    if (mode == 0u) {
        if (brick < bricks) {
            const uvec3 lo = isoBrickOf(brick, grid.sparse, grid.brickDivisors) * kIsoBrickCells;
            const uvec3 n = min(uvec3(kIsoBrickCells + 1u), grid.samples.xyz - lo);
#if defined(ISO_BRICK_BALLS)
            bounds[brick] = ballBounds(lo, lo + n - 1u);
#elif defined(ISO_BRICK_LIPSCHITZ)
            bounds[brick] = isoBoxBounds(lo, lo + n - 1u);
#elif defined(ISO_BRICK_PARTICLES)
            const float inf = uintBitsToFloat(0x7f800000u);
            bounds[brick] = !(pc.iso > 0.0) || particleTilesReached(lo, lo + n - 1u) ? vec2(-inf, inf) : vec2(0.0);
#else
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
#endif
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
#ifdef ISO_BRICK_TILES
                if (pc.numLevels != 0u) markTiles(isoBrickOf(brick, grid.sparse, grid.brickDivisors) * kIsoBrickCells);
#endif
            }
        }
    } else if (brick == 0u) {
        args[0] = foldedGroups((counters.sparseBricks + kIsoBricksPerGroup - 1u) / kIsoBricksPerGroup);
        args[1] = foldedGroups(counters.sparseSupers);
    }
}
