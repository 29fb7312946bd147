#version 460
// LeafMerge::PerCell: one thread per occupied level D - 1 cell (the leaves'
// parent) merges the cell's fragments, sorted into one range by
// leaf_sort.comp, into its up to 8 leaves in registers and writes them and
// their parent without atomics: the work of leaf.comp (seven atomics per
// fragment) and of the deepest mipmap launch (which then does not run). Same
// integer sums and the same arithmetic (voxLeafColor, voxWriteInterior, the
// normal sum over the children in child order) as that pair, so the same
// bits; the order of a cell's range does not matter (integer sums).
#extension GL_EXT_control_flow_attributes : require
#include "voxelizer/vox_compute.glsl"

// The node of level D - 1 holding the cell whose first leaf is `c` (list
// index k); false when the tree was truncated above it. The same lookup as
// leaf.comp's, one level up.
bool cellParent(uint k, uvec3 c, out uint parent) {
    uint d = params.dims.w;
    if ((kVoxFlags & VOX_BOTTOM_UP) != 0u) {
        // Truncated: a tile can fit the pool while one above it did not;
        // only what is reachable from the root is in the tree (leaf.comp).
        if (counters.tilesFailed != 0u || counters.failedAboveLeaves != 0u) return voxDescend(c, d - 1u, parent);
        parent = 0u;
        if (d == 1u) return true;
        uint tile = voxHashTile(d - 1u, voxTileKey(d - 1u, c >> 2u));
        if (tile == 0u) return false;
        parent = 8u * tile + voxOctant(c, d - 2u, d);
        return true;
    }
    if ((kVoxFlags & VOX_CURSORS) != 0u) {
        // The flag passes' cursor of the cell: its node after the last one.
        parent = cursors[k];
        return parent != VOX_NO_NODE;
    }
    return voxDescend(c, d - 1u, parent);
}

void main() {
    uint k = voxThreadIndex();
    if (k >= counters.cellCount) return;
    uvec3 c = voxUnpack(cells[2u * params.cellWords + k]);
    uint parent;
    if (!cellParent(k, c, parent)) return;
    uint child = nodeChild[parent];
    if (child == 0u || child >= VOX_FLAG) return;

    uint cap = params.fragmentCapacity;
    uvec2 range = leafSort[k]; // (count, start)
    uint start = range.y, end = range.y + range.x;
    // Per child slot; constant indices only (the loops are unrolled), so
    // these stay in registers: a fragment adds to its slot by selects.
    uint cnt[8], sr[8], sg[8], sb[8];
    ivec3 sn[8];
    [[unroll]] for (uint s = 0u; s < 8u; ++s) {
        cnt[s] = 0u;
        sr[s] = 0u;
        sg[s] = 0u;
        sb[s] = 0u;
        sn[s] = ivec3(0);
    }
    for (uint j = start; j < end; ++j) {
        uvec2 p = leafSort[cap + j];
        uint a = p.x, z = p.y;
        uint o = a >> 24;
        uvec3 q = uvec3(z & 1023u, (z >> 10) & 1023u, (z >> 20) & 1023u);
        vec3 n = vec3((ivec3(q << 22)) >> 22) / 511.0; // sign-extend 10 bits, as leaf.comp
        ivec3 fixedN = ivec3(round(n * float(VOX_NORMAL_SCALE)));
        uint r = a & 255u, g = (a >> 8) & 255u, b = (a >> 16) & 255u;
        [[unroll]] for (uint s = 0u; s < 8u; ++s) {
            bool m = o == s;
            cnt[s] += m ? 1u : 0u;
            sr[s] += m ? r : 0u;
            sg[s] += m ? g : 0u;
            sb[s] += m ? b : 0u;
            sn[s] += m ? fixedN : ivec3(0);
        }
    }

    // The parent from the children in child order (mipmap.comp's order: its
    // float normal sum rounds the same way).
    uvec3 rgb = uvec3(0u);
    uint filled = 0u, count = 0u, slots = 0u;
    vec3 n = vec3(0.0);
    [[unroll]] for (uint s = 0u; s < 8u; ++s) {
        if (cnt[s] != 0u) {
            uint chColor = voxLeafColor(uvec3(sr[s], sg[s], sb[s]), cnt[s]);
            rgb += uvec3(chColor & 255u, (chColor >> 8) & 255u, (chColor >> 16) & 255u);
            slots |= s << (3u * filled);
            filled += 1u;
            count += cnt[s];
            n += vec3(sn[s]);
        }
    }
    if (filled == 0u) return;
    // The leaves: one store per value and leaf of the longest list in the
    // lane group, not one per child slot (lavapipe stores lane by lane, and
    // unrolled per slot the stores were most of this pass: about 3 of the 8
    // slots hold a leaf). The leaf's child pointer and coordinates keep
    // what init wrote.
    for (uint t = 0u; t < filled; ++t) {
        uint s = (slots >> (3u * t)) & 7u;
        uint lc = 0u, lr = 0u, lg = 0u, lb = 0u;
        ivec3 ln = ivec3(0);
        [[unroll]] for (uint u = 0u; u < 8u; ++u) {
            if (s == u) {
                lc = cnt[u];
                lr = sr[u];
                lg = sg[u];
                lb = sb[u];
                ln = sn[u];
            }
        }
        uint idx = 8u * child + s;
        nodeColor[idx] = voxLeafColor(uvec3(lr, lg, lb), lc);
        nodeCount[idx] = lc;
        nodeNx[idx] = ln.x;
        nodeNy[idx] = ln.y;
        nodeNz[idx] = ln.z;
    }
    atomicAdd(counters.leafFragments, count);
    voxWriteInterior(parent, rgb, filled, count, n);
}
