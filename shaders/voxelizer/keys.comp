#version 460
// Bottom-up build, one thread per occupied level D - 1 cell (cell_list.comp,
// each the parent of one leaf tile): enter the tile holding the cell's
// leaves in the tile hash and, when this thread is the first to
// enter it, the tile of its parent, and so on up to level 1 (a thread that
// finds its tile already present stops: whoever entered it climbs). Each new
// tile takes the next index of its level (counted in levelTileStart until the
// args pass turns counts into ranges) and a place in the tile list that
// link.comp runs over. Work: one hash entry per tile, instead of one pass
// per level over every fragment.
#include "voxelizer/vox_compute.glsl"

void main() {
    uint i = voxThreadIndex();
    if (i >= counters.cellCount) return;
    uvec3 c = voxUnpack(cells[2u * params.cellWords + i]); // level-D coordinates
    uint slots = params.hashMask + 1u;
    for (uint l = params.dims.w; l >= 1u; --l) {
        c >>= 1u; // coordinates of the parent (level l - 1) of the level-l node
        uint key = voxTileKey(l, c);
        uint s = voxHashSlot(key);
        bool entered = false, found = false;
        for (uint probe = 0u; probe < slots; ++probe) {
            uint k = tileHash[s];
            if (k == VOX_HASH_EMPTY) {
                // Filled to 3/4 (the hash holds 2 slots per pool tile, so only
                // when the pool is far too small): stop entering, so probe
                // runs stay short and the pass bounded.
                if (counters.tileEntries >= slots - slots / 4u) break;
                k = atomicCompSwap(tileHash[s], VOX_HASH_EMPTY, key);
                if (k == VOX_HASH_EMPTY) {
                    entered = true;
                    break;
                }
            }
            if (k == key) {
                found = true;
                break;
            }
            s = (s + 1u) & params.hashMask;
        }
        if (found) return;
        if (!entered) {
            // Hash full: the tree is truncated and tileCount a lower bound.
            counters.failedAboveLeaves = 1u;
            return;
        }
        tileHash[slots + s] = atomicAdd(counters.levelTileStart[l], 1u);
        uint e = atomicAdd(counters.tileEntries, 1u);
        tileHash[2u * slots + e] = s; // e < slots: one entry per filled slot
    }
}
