#version 460
// One thread per fragment record: merge it into its leaves. Colour: per-channel
// integer sums (R in nodeColor, G in nodeChild, B added to nodeCoord: a
// leaf has no children, nothing reads a leaf's child pointer or coordinates
// before the mipmap launch above it, which knows the coordinates, turns the
// sums into the rounded mean and restores both; no scratch array per node), so the result does not depend on the order
// fragments arrive in (Crassin & Green 2012's compare-and-swap moving average rounds at
// every merge and does); normal: fixed-point atomic sum; count: atomic add.
#include "voxelizer/vox_compute.glsl"

// ColorMerge::MovingAverage: Crassin & Green's compare-and-swap RGBA8 average (docs/algorithms.md) instead.
layout(constant_id = 0) const bool kMovingAverage = false;

vec4 unpackRGBA(uint v) { return vec4(v & 255u, (v >> 8) & 255u, (v >> 16) & 255u, v >> 24); }
uint packRGBA(vec4 v) {
    uvec4 u = uvec4(clamp(floor(v + 0.5), 0.0, 255.0));
    return u.x | (u.y << 8) | (u.z << 16) | (u.w << 24);
}

// Running average with the merged count in A (saturating at 255).
void mergeMovingAverage(uint node, uint rgba8) {
    vec3 rgb = unpackRGBA(rgba8).rgb;
    uint newVal = packRGBA(vec4(rgb, 1.0));
    uint prev = 0u;
    // Bounded so a pathological contention pattern cannot hang the queue.
    for (uint it = 0u; it < 4096u; ++it) {
        uint cur = atomicCompSwap(nodeColor[node], prev, newVal);
        if (cur == prev) break;
        prev = cur;
        vec4 s = unpackRGBA(cur);
        newVal = packRGBA(vec4((s.rgb * s.w + rgb) / (s.w + 1.0), min(s.w + 1.0, 255.0)));
    }
}

void main() {
    uint i = voxThreadIndex();
    if (i >= counters.fragmentsStored) return;
    uvec4 f = fragments[i];
    // The record's leaves are siblings: find the first one's node (its
    // octant cleared), then merge into node base + o for each voxel o.
    uint node;
    uvec3 c = voxUnpack(f.x) & ~1u;
    if ((kVoxFlags & VOX_TILE_HASH) != 0u) {
        uint d = params.dims.w;
        if (counters.tilesFailed != 0u || counters.failedAboveLeaves != 0u) {
            // Truncated: a leaf tile can fit the pool while a tile above it
            // did not (the order tiles are entered in is the GPU's), and
            // only leaves reachable from the root are in the tree; the
            // mipmap above restores the sums a leaf holds in its child
            // pointer only for those.
            if (!voxDescend(c, d, node)) return;
        } else {
            uint tile = voxHashTile(d, voxTileKey(d, c >> 1u));
            if (tile == 0u) return;
            node = 8u * tile;
        }
    } else if ((kVoxFlags & VOX_CURSORS) != 0u && counters.failedAboveLeaves == 0u) {
        // alloc.comp keeps the cursor of each occupied cell: the leaf's
        // parent node (stale when a level above ran out of tiles: then the
        // root descent below).
        uint parent = cursors[voxCellIndex(c)];
        uint child = parent == VOX_NO_NODE ? 0u : nodeChild[parent];
        if (child == 0u || child >= VOX_FLAG) return;
        node = 8u * child;
    } else if (!voxDescend(c, params.dims.w, node)) {
        return;
    }

    uvec3 q = uvec3(f.z & 1023u, (f.z >> 10) & 1023u, (f.z >> 20) & 1023u);
    vec3 n = vec3((ivec3(q << 22)) >> 22) / 511.0; // sign-extend 10 bits
    ivec3 fixedN = ivec3(round(n * float(VOX_NORMAL_SCALE)));
    for (uint m = voxRecordMask(f); m != 0u; m &= m - 1u) {
        uint leaf = node + uint(findLSB(m));
        atomicAdd(nodeCount[leaf], 1u);
        atomicAdd(nodeNx[leaf], fixedN.x);
        atomicAdd(nodeNy[leaf], fixedN.y);
        atomicAdd(nodeNz[leaf], fixedN.z);
        if (kMovingAverage) {
            mergeMovingAverage(leaf, f.y);
        } else {
            // 255 x fragmentsStored fits 32 bits up to 16 Mi fragments in one leaf.
            atomicAdd(nodeColor[leaf], f.y & 255u);
            atomicAdd(nodeChild[leaf], (f.y >> 8) & 255u);
            atomicAdd(nodeCoord[leaf], (f.y >> 16) & 255u);
        }
    }
    // counters.leafFragments is the root's count (voxWriteInterior), not an
    // atomic per fragment on one contended word.
}
