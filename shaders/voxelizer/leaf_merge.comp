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
#ifdef VOX_WIDE_STORES
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#endif
#define VOX_TEXEL_READS
#include "voxelizer/vox_compute.glsl"

#ifdef VOX_WIDE_STORES
// The leaf arrays seen 8 nodes at a time (the same buffers as bindings 7..11
// of vox_compute.glsl): a tile's 8 leaves are 8 consecutive, 32-byte aligned
// words of each array, one 64-bit 4-vector (Int64: the `.wide` variants, for
// devices with shaderInt64; testing::Knobs::wideStores, off by default).
// Lavapipe stores lane by lane, one loop per store, so this is half the
// loops of the uvec4 stores below and fewer instructions, yet it measured
// 10-20 % slower in wall time there.
layout(std430, set = 0, binding = 3) writeonly buffer LeafChild8 { u64vec4 leafChild8[]; };
layout(std430, set = 0, binding = 7) writeonly buffer LeafColor8 { u64vec4 leafColor8[]; };
layout(std430, set = 0, binding = 8) writeonly buffer LeafCount8 { u64vec4 leafCount8[]; };
layout(std430, set = 0, binding = 9) writeonly buffer LeafNx8 { u64vec4 leafNx8[]; };
layout(std430, set = 0, binding = 10) writeonly buffer LeafNy8 { u64vec4 leafNy8[]; };
layout(std430, set = 0, binding = 11) writeonly buffer LeafNz8 { u64vec4 leafNz8[]; };
layout(std430, set = 0, binding = 12) writeonly buffer LeafCoord8 { u64vec4 leafCoord8[]; };

// Words a..h in memory order (packUint2x32: x is the low word, at the lower address).
u64vec4 words8(uint a, uint b, uint c, uint d, uint e, uint f, uint g, uint h) {
    return u64vec4(packUint2x32(uvec2(a, b)), packUint2x32(uvec2(c, d)), packUint2x32(uvec2(e, f)),
                   packUint2x32(uvec2(g, h)));
}
u64vec4 words8(ivec4 lo, ivec4 hi) {
    return words8(uint(lo.x), uint(lo.y), uint(lo.z), uint(lo.w), uint(hi.x), uint(hi.y), uint(hi.z), uint(hi.w));
}
#else
// The leaf arrays seen 4 nodes at a time (the same buffers as bindings 7..11
// of vox_compute.glsl): a tile's 8 leaves are 8 consecutive, 32-byte aligned
// words of each array, so two wide stores per array write all of them.
layout(std430, set = 0, binding = 3) writeonly buffer LeafChild4 { uvec4 leafChild4[]; };
layout(std430, set = 0, binding = 7) writeonly buffer LeafColor4 { uvec4 leafColor4[]; };
layout(std430, set = 0, binding = 8) writeonly buffer LeafCount4 { uvec4 leafCount4[]; };
layout(std430, set = 0, binding = 9) writeonly buffer LeafNx4 { ivec4 leafNx4[]; };
layout(std430, set = 0, binding = 10) writeonly buffer LeafNy4 { ivec4 leafNy4[]; };
layout(std430, set = 0, binding = 11) writeonly buffer LeafNz4 { ivec4 leafNz4[]; };
layout(std430, set = 0, binding = 12) writeonly buffer LeafCoord4 { uvec4 leafCoord4[]; };
#endif

// The node of level D - 1 holding the cell whose first leaf is `c` (list
// index k); false when the tree was truncated above it. The same lookup as
// leaf.comp's, one level up.
bool cellParent(uint k, uvec3 c, out uint parent) {
    uint d = params.dims.w;
    if ((kVoxFlags & VOX_TILE_HASH) != 0u) {
        // Truncated: a tile can fit the pool while one above it did not;
        // only what is reachable from the root is in the tree (leaf.comp).
        if (voxTilesFailed() != 0u || voxFailedAboveLeaves() != 0u) return voxDescend(c, d - 1u, parent);
        parent = 0u;
        if (d == 1u) return true;
        uint tile = voxHashTile(d - 1u, voxTileKey(d - 1u, c >> 2u));
        if (tile == 0u) return false;
        parent = 8u * tile + voxOctant(c, d - 2u, d);
        return true;
    }
    if ((kVoxFlags & VOX_CURSORS) != 0u) {
        // The cell's node of level D - 1, stored by alloc.comp; stale when a
        // level above ran out of tiles, so then the root descent.
        if (voxFailedAboveLeaves() != 0u) return voxDescend(c, d - 1u, parent);
        parent = voxCursor(k);
        return parent != VOX_NO_NODE;
    }
    return voxDescend(c, d - 1u, parent);
}

void main() {
    uint k = voxThreadIndex();
    if (k >= voxCellCount()) return;
    uvec3 c = voxUnpack(voxCellWord(2u * params.cellWords + k));
    uint parent;
    if (!cellParent(k, c, parent)) return;
    uint child;
    if ((kVoxFlags & (VOX_CURSORS | VOX_TILE_HASH)) == VOX_CURSORS) {
        // OccupancyLevels: alloc.comp gave cell k the leaf tile
        // levelTileStart[D] + k (none past the pool), so no pointer load.
        child = voxLevelTileStart(params.dims.w) + k;
        if (child >= params.tileCapacity) return;
    } else {
        child = nodeChild[parent];
        if (child == 0u || child >= VOX_FLAG) return;
    }

    uint cap = params.fragmentCapacity;
    uvec2 range = voxSortPair(k); // (count, start)
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
        uvec2 p = voxSortPair(cap + j);
        uint a = p.x, z = p.y;
        uint o = a >> 24;
        uvec3 q = uvec3(z & 1023u, (z >> 10) & 1023u, (z >> 20) & 1023u);
        vec3 n = vec3((ivec3(q << 22)) >> 22) / 511.0; // sign-extend 10 bits, as leaf.comp
        ivec3 fixedN = ivec3(round(n * float(VOX_NORMAL_SCALE)));
        uint r = a & 255u, g = (a >> 8) & 255u, b = (a >> 16) & 255u;
        [[unroll]] for (uint s = 0u; s < 8u; ++s) {
            bool m = (o & (1u << s)) != 0u; // the record's voxel mask
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
    uint filled = 0u, count = 0u;
    vec3 n = vec3(0.0);
    uint col[8];
    [[unroll]] for (uint s = 0u; s < 8u; ++s) {
        col[s] = cnt[s] != 0u ? voxLeafColor(uvec3(sr[s], sg[s], sb[s]), max(cnt[s], 1u)) : 0u;
        if (cnt[s] != 0u) {
            rgb += uvec3(col[s] & 255u, (col[s] >> 8) & 255u, (col[s] >> 16) & 255u);
            filled += 1u;
            count += cnt[s];
            n += vec3(sn[s]);
        }
    }
    // All 8 leaves with wide stores (lavapipe stores lane by lane: one store
    // per 8 or 4 leaves, where a store per leaf and value were most of this
    // pass). Empty slots get zeros and every child pointer is null: the
    // init launch of the leaf level does not run before this merge
    // (args.comp); the coordinates are written here with OccupancyLevels, by
    // alloc.comp otherwise.
#ifdef VOX_WIDE_STORES
    if ((kVoxFlags & (VOX_CURSORS | VOX_TILE_HASH)) == VOX_CURSORS) {
        // The leaves' coordinates (alloc.comp leaves them to this pass).
        uint cc = voxPack(c);
        leafCoord8[child] = words8(cc, cc + 1u, cc + 1024u, cc + 1025u, cc + 1048576u, cc + 1048577u, cc + 1049600u,
                                   cc + 1049601u);
    }
    leafChild8[child] = u64vec4(0ul);
    leafColor8[child] = words8(col[0], col[1], col[2], col[3], col[4], col[5], col[6], col[7]);
    leafCount8[child] = words8(cnt[0], cnt[1], cnt[2], cnt[3], cnt[4], cnt[5], cnt[6], cnt[7]);
    leafNx8[child] = words8(ivec4(sn[0].x, sn[1].x, sn[2].x, sn[3].x), ivec4(sn[4].x, sn[5].x, sn[6].x, sn[7].x));
    leafNy8[child] = words8(ivec4(sn[0].y, sn[1].y, sn[2].y, sn[3].y), ivec4(sn[4].y, sn[5].y, sn[6].y, sn[7].y));
    leafNz8[child] = words8(ivec4(sn[0].z, sn[1].z, sn[2].z, sn[3].z), ivec4(sn[4].z, sn[5].z, sn[6].z, sn[7].z));
#else
    uint w = 2u * child;
    if ((kVoxFlags & (VOX_CURSORS | VOX_TILE_HASH)) == VOX_CURSORS) {
        // The leaves' coordinates (alloc.comp leaves them to this pass).
        uint cc = voxPack(c);
        leafCoord4[w] = uvec4(cc, cc + 1u, cc + 1024u, cc + 1025u);
        leafCoord4[w + 1u] = uvec4(cc + 1048576u, cc + 1048577u, cc + 1049600u, cc + 1049601u);
    }
    leafChild4[w] = uvec4(0u);
    leafChild4[w + 1u] = uvec4(0u);
    leafColor4[w] = uvec4(col[0], col[1], col[2], col[3]);
    leafColor4[w + 1u] = uvec4(col[4], col[5], col[6], col[7]);
    leafCount4[w] = uvec4(cnt[0], cnt[1], cnt[2], cnt[3]);
    leafCount4[w + 1u] = uvec4(cnt[4], cnt[5], cnt[6], cnt[7]);
    leafNx4[w] = ivec4(sn[0].x, sn[1].x, sn[2].x, sn[3].x);
    leafNx4[w + 1u] = ivec4(sn[4].x, sn[5].x, sn[6].x, sn[7].x);
    leafNy4[w] = ivec4(sn[0].y, sn[1].y, sn[2].y, sn[3].y);
    leafNy4[w + 1u] = ivec4(sn[4].y, sn[5].y, sn[6].y, sn[7].y);
    leafNz4[w] = ivec4(sn[0].z, sn[1].z, sn[2].z, sn[3].z);
    leafNz4[w + 1u] = ivec4(sn[4].z, sn[5].z, sn[6].z, sn[7].z);
#endif
    if (filled == 0u) return;
    voxWriteInterior(parent, rgb, filled, count, n);
}
