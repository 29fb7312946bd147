#version 460
// OctreeBuild::TileHash, one thread per occupied level D - 1 cell (cell_list.comp,
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
    uint maxEntries = voxMaxTileEntries();
    for (uint l = params.dims.w; l >= 1u; --l) {
        c >>= 1u; // coordinates of the parent (level l - 1) of the level-l node
        uint key = voxTileKey(l, c);
        uint s = voxHashSlot(key);
        bool entered = false, found = false;
        // The tile-list entry this thread may fill, reserved before its first
        // attempt to enter the key: entries stay below maxEntries exactly
        // (3/4 of the slots; the hash holds 2 slots per pool tile, so only a
        // far too small pool fills it), which keeps probe runs short and the
        // tile count bounded however many threads race for the last slots.
        // Reading the entry counter instead raced on a GPU: thousands of
        // threads passed the check together and filled every slot.
        uint e = VOX_NO_NODE;
        for (uint probe = 0u; probe < slots; ++probe) {
            uint k = tileHash[s];
            if (k == VOX_HASH_EMPTY) {
                if (e == VOX_NO_NODE) e = atomicAdd(counters.tileEntries, 1u);
                if (e >= maxEntries) break; // full: stop entering
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
        // A reserved entry that entered nothing stays in the list as a hole.
        if (!entered && e < maxEntries) tileHash[2u * slots + e] = VOX_NO_NODE;
        if (found) return;
        if (!entered) {
            // Hash full: the tree is truncated and tileCount a lower bound.
            counters.failedAboveLeaves = 1u;
            return;
        }
        tileHash[slots + s] = atomicAdd(counters.levelTileStart[l], 1u);
        tileHash[2u * slots + e] = s;
    }
}
