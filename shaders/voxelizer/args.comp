#version 460
// Single-thread bookkeeping between launches: resets the frame's counters,
// turns the fragment count into the fragment launch, and turns each level's
// allocation count into the next level's launch. The host never reads these.
#include "voxelizer/vox_compute.glsl"

const uint kReset = 0xffffffffu;
const uint kFragments = 0xfffffffeu;
const uint kBottomUp = 0xfffffffdu;
const uint kCells = 0xfffffffcu;
const uint kLeaves = 0xfffffffbu;
const uint kUndecided = 0xfffffffau;

void main() {
    uint t = gl_LocalInvocationID.x;
    if (params.level == kReset) {
        if (t < 8u) voxNodeInit(t, 0u, 0u); // root tile
        if (t != 0u) return;
        for (uint k = 0u; k < VOX_DISPATCH_ENTRIES; ++k) dispatchArgs[k] = uvec4(0u);
        for (uint k = 0u; k < 12u; ++k) {
            counters.levelTileStart[k] = 0u;
            counters.levelTileEnd[k] = 0u;
        }
        counters.fragmentCount = 0u;
        counters.fragmentsStored = 0u;
        counters.tileCount = 1u;
        counters.tilesFailed = 0u;
        counters.failedAboveLeaves = 0u;
        counters.depthOverflow = 0u;
        counters.leafFragments = 0u;
        counters.tileEntries = 0u;
        counters.cellCount = 0u;
        counters.sortedFragments = 0u;
        counters.cellsOverMergeLimit = 0u;
        counters.solidInterior = 0u;
        counters.solidOddColumns = 0u;
        counters.levelTileEnd[0] = 1u;
        dispatchArgs[1] = voxDispatchFor(8u);
        dispatchArgs[VOX_DISPATCH_QUADS] = voxDispatchFor(2u);
        return;
    }
    if (t != 0u) return;
    if (params.level == kFragments) {
        uint stored = min(counters.fragmentCount, params.fragmentCapacity);
        counters.fragmentsStored = stored;
        dispatchArgs[0] = voxDispatchFor(stored);
        return;
    }
    if (params.level == kUndecided) {
        // The triangles small_triangles.comp listed with undecided pairs.
        dispatchArgs[VOX_DISPATCH_UNDECIDED] = voxDispatchFor(dispatchArgs[VOX_DISPATCH_UNDECIDED].w);
        return;
    }
    if (params.level == kCells) {
        dispatchArgs[VOX_DISPATCH_CELLS] = voxDispatchFor(counters.cellCount);
        uint runs = (counters.cellCount + VOX_RANGE_CELLS - 1u) / VOX_RANGE_CELLS;
        dispatchArgs[VOX_DISPATCH_CELL_RUNS] = voxDispatchFor(runs); // leaf_sort.comp's ranges step
        return;
    }
    if (params.level == kLeaves) {
        // LeafMerge::PerCell, after the sort and the tree: the per-cell merge,
        // or the per-fragment one (and the deepest mipmap launch) when a
        // cell is too large for one merge thread.
        bool atomic = counters.cellsOverMergeLimit != 0u;
        uint deep = 1u + params.dims.w - 1u;
        dispatchArgs[VOX_DISPATCH_LEAF_ATOMIC] = atomic ? dispatchArgs[0] : uvec4(0u);
        dispatchArgs[VOX_DISPATCH_LEAF_MERGE] = atomic ? uvec4(0u) : dispatchArgs[VOX_DISPATCH_CELLS];
        dispatchArgs[VOX_DISPATCH_DEEP_MIPMAP] = atomic ? dispatchArgs[deep] : uvec4(0u);
        return;
    }
    if (params.level == kBottomUp) {
        // keys.comp counted the tiles of each level in levelTileStart: lay
        // the levels out one after the other below the root tile, clamp them
        // to the pool, and size the link launch and the per-level launches.
        uint depth = params.dims.w;
        uint next = 1u;
        for (uint l = 1u; l <= depth; ++l) {
            uint n = counters.levelTileStart[l];
            uint start = min(next, params.tileCapacity);
            counters.levelTileStart[l] = start;
            counters.levelTileEnd[l] = max(start, min(next + n, params.tileCapacity));
            dispatchArgs[1u + l] = voxDispatchFor(8u * (counters.levelTileEnd[l] - start));
            next += n;
        }
        counters.tileCount = next;
        counters.tilesFailed = next - min(next, params.tileCapacity);
        dispatchArgs[VOX_DISPATCH_TILES] = voxDispatchFor(min(counters.tileEntries, voxMaxTileEntries()));
        return;
    }
    voxLevelArgs(params.level);
}
