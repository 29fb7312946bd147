#version 460
// User GLSL fields with a Lipschitz bound, and metaballs: the field pass evaluates only the
// tiles of 8 x 8 x 8 samples some reader may read this frame, not every
// sample. Classify reads the corners of the cells of the listed patches,
// extraction the corners of active cells (which lie in listed patches) and,
// for normals, their neighbours one sample further: so a tile is needed
// when it meets the samples [lo - 1, hi + 2] of a listed run's cells
// [lo, hi]. Three passes of this shader (pc.srcLevel):
// 0, <name>.field.tiles.mark: classify's threads (its indirect dispatch
//    over the listed patches, a lane per 16-cell run) flag the tiles of
//    their run's box (plain stores of 1: the same value from any lane);
// 1, <name>.field.tiles.list: one thread per tile appends the flagged;
// 2, <name>.field.tiles.args: one invocation sizes the field pass's
//    indirect dispatch (a group per listed tile, folded).
// The list order follows the atomics; each tile's samples get the same
// values in any order, and nothing reads a sample of an unlisted tile.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoClassifyGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer PatchListBuf {
    IsoPatchList patchHead;
    uint patchIds[];
};
layout(set = 0, binding = 2, std430) buffer TileFlagsBuf { uint tileFlags[]; };
layout(set = 0, binding = 3, std430) buffer TileListBuf {
    uvec4 tileHead; // x: appended, y: listed (the field pass's bound)
    uint tiles[];
};
layout(set = 0, binding = 4, std430) writeonly buffer TileArgsBuf { uvec4 tileArgs; };

uvec3 tilesPerAxis() { return (grid.samples.xyz + kIsoFieldTile - 1u) / kIsoFieldTile; }

void markSamples(uvec3 lo, uvec3 hi) {
    const uvec3 n = tilesPerAxis();
    const uvec3 t0 = lo / kIsoFieldTile, t1 = hi / kIsoFieldTile;
    for (uint z = t0.z; z <= t1.z; ++z)
        for (uint y = t0.y; y <= t1.y; ++y)
            for (uint x = t0.x; x <= t1.x; ++x) {
                // A load first: most tiles are flagged already, and a store
                // to a line another core reads would move it between caches.
                const uint i = x + n.x * (y + n.y * z);
                if (tileFlags[i] == 0u) tileFlags[i] = 1u;
            }
}

uvec3 cellOf(uint cell) {
    const uint row = divideBy(cell, grid.cellDivisors.x, grid.cellDivisors.z);
    const uint z = divideBy(row, grid.cellDivisors.y, grid.cellDivisors.w);
    return uvec3(cell - row * grid.cells.x, row - z * grid.cells.y, z);
}

void main() {
    const uint mode = pc.srcLevel;
    if (mode == 0u) {
        // classify's mapping: batch b of group g takes listed patch 16 g + b, lane k its run k.
        const uint l = gl_LocalInvocationIndex;
        const uint listedIndex = linearGroup() * kIsoPatchesPerGroup + (l >> 3);
        if (listedIndex >= patchHead.listed) return;
        const uint patchId = patchIds[listedIndex];
        const uint run = (patchId / kIsoPatchesPerGroup) * kIsoClassifyGroupSize + 16u * (l & 7u) +
                         patchId % kIsoPatchesPerGroup;
        const uint first = run * kIsoClassifyCells;
        if (first >= grid.cells.w) return;
        const uvec3 a = cellOf(first), b = cellOf(min(first + kIsoClassifyCells, grid.cells.w) - 1u);
        uvec3 lo = min(a, b), hi = max(a, b);
        // A run that wraps to the next row (or slice) covers the whole row (slice) between.
        if (a.y != b.y || a.z != b.z) {
            lo.x = 0u;
            hi.x = grid.cells.x - 1u;
        }
        if (a.z != b.z) {
            lo.y = 0u;
            hi.y = grid.cells.y - 1u;
        }
        // Cell corners [lo, hi + 1], and one sample further for the gradients.
        const uvec3 last = grid.samples.xyz - 1u;
        markSamples(uvec3(max(ivec3(lo) - 1, ivec3(0))), min(hi + 2u, last));
        return;
    }
    const uvec3 n = tilesPerAxis();
    const uint tileCount = n.x * n.y * n.z;
    if (mode == 1u) {
        const uint tile = linearGroup() * kIsoClassifyGroupSize + gl_LocalInvocationIndex;
        if (tile < tileCount && tileFlags[tile] != 0u) tiles[atomicAdd(tileHead.x, 1u)] = tile;
        return;
    }
    if (gl_LocalInvocationIndex != 0u) return;
    const uint listed = min(tileHead.x, tileCount);
    const uint gx = min(listed, grid.maxGroupsX);
    tileHead.y = listed;
    tileArgs = uvec4(gx, gx == 0u ? 1u : (listed + gx - 1u) / gx, 1u, 0u);
}
