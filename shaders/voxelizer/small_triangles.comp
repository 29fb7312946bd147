#version 460
#extension GL_EXT_control_flow_attributes : require
#ifdef VOX_WIDE_STORES
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#endif
// Compute path for small triangles (TrianglePath::Split, launched with
// VOX_SPLIT set): one thread per triangle loops over the
// voxels of its candidate box (vox_triangle.glsl) and appends those that
// pass the exact overlap test, the same test the raster path's fragment
// shader applies, with the same vertex arithmetic (raster.vert), normal
// (voxNormal) and attributes (raster.geom) — so the (voxel, triangle) pairs
// and their attributes are the raster path's (the records group them by
// 2^3 cell: a box's here, a pixel column's there). On lavapipe rasterizing and
// shading a dilated triangle costs far more than the few dozen tests of a
// triangle spanning a handful of voxels (docs/design-notes/2026-11-21-voxelizer-octree.md).
// VOX_EXACT64 (small_triangles.exact64.comp): near-boundary pairs decided in
// double precision as in raster.exact64.frag; declares Float64. Its
// conservative loop runs over the 2^3 cells the box touches instead, 8
// voxels a trip with the filter's margins stepped from the cell's corner
// (voxCellFilteredInBox); the pairs it decides are the reference's, as the
// raster's are.
#include "voxelizer/vox_shared.h"
#include "voxelizer/vox_common.glsl"
#include "voxelizer/vox_exact.glsl"
#include "voxelizer/vox_triangle.glsl"

layout(local_size_x = VOX_GROUP_SIZE) in;

layout(push_constant) uniform Push { RasterParams params; };
// Thin mode (VOX_THIN_SPEC_ID, vox_shared.h), as in raster.frag: 1 in the
// pipeline for VoxelMode::Thin, and the push constant's VOX_THIN flag agrees.
// A branch on the flag cost every conservative triangle a masked trip of the
// thin chunk loop on lavapipe (both sides of a branch run).
layout(constant_id = 3) const bool kVoxThin = false;
#if !defined(VOX_STORAGE_READS) && !defined(VOX_WIDE_STORES)
// The mesh words through an R32UI texel view of binding 0's buffer
// (VOX_SMALL_TRIANGLES_MESH_TEXELS): lavapipe loads a storage buffer lane by
// lane (a loop over the 8 lanes, a bounds test each), a texel fetch as one
// vector gather. The `.storage` variants (and the `.wide` ones) read the
// storage buffer: devices whose maxTexelBufferElements does not cover the
// mesh buffer, testing::Knobs::texelReads off.
layout(set = 0, binding = VOX_SMALL_TRIANGLES_MESH_TEXELS) uniform usamplerBuffer meshTexels;
uint meshWord(uint i) { return texelFetch(meshTexels, int(i)).x; }
float meshFloat(uint i) { return uintBitsToFloat(texelFetch(meshTexels, int(i)).x); }
#else
layout(std430, set = 0, binding = 0) readonly buffer MeshF { float f[]; } meshF;
layout(std430, set = 0, binding = 0) readonly buffer MeshU { uint u[]; } meshU;
uint meshWord(uint i) { return meshU.u[i]; }
float meshFloat(uint i) { return meshF.f[i]; }
#endif
layout(std430, set = 0, binding = 1) buffer Counters { VoxCounters counters; };
#ifdef VOX_WIDE_STORES
// A record as two 64-bit words (the `.wide` variants, Int64: devices with
// shaderInt64; testing::Knobs::wideStores, off by default): lavapipe stores
// lane by lane and component by component, so half the components of a
// uvec4 store, but the pass measured slower in wall time with it.
layout(std430, set = 0, binding = 2) writeonly buffer Fragments { u64vec2 fragments[]; };
#else
layout(std430, set = 0, binding = 2) writeonly buffer Fragments { uvec4 fragments[]; };
#endif
#ifdef VOX_EXACT64
// The triangles with undecided pairs, for the second pass: their number in
// the w of dispatch entry VOX_DISPATCH_UNDECIDED (args.comp sizes that pass
// from it), (triangle, compute tile + 1 or 0) each.
layout(std430, set = 0, binding = 3) buffer Dispatch { uvec4 dispatchArgs[]; };
layout(std430, set = 0, binding = 4) buffer UndecidedTriangles { uvec2 undecidedTriangles[]; };
// 1 in the pipeline of the second pass (vox.small_triangles_exact).
layout(constant_id = 4) const bool kDecidePass = false;
#endif

// The split grid-space vertex hi + lo, as raster.vert reads it.
vec3 gridVertex(uint idx) { return vec3(meshFloat(6u * idx), meshFloat(6u * idx + 1u), meshFloat(6u * idx + 2u)); }
vec3 gridVertexLo(uint idx) {
    return vec3(meshFloat(6u * idx + 3u), meshFloat(6u * idx + 4u), meshFloat(6u * idx + 5u));
}

vec3 vertexNormal(uint idx) {
    return (params.counts.w & VOX_HAS_NORMALS) != 0u
               ? vec3(meshFloat(params.offsets.z + 3u * idx), meshFloat(params.offsets.z + 3u * idx + 1u),
                      meshFloat(params.offsets.z + 3u * idx + 2u))
               : vec3(0.0);
}

uint vertexColor(uint idx) {
    return (params.counts.w & VOX_HAS_COLORS) != 0u ? meshWord(params.offsets.y + idx) : 0xffffffffu;
}

// Lavapipe executes both sides of a branch whenever any lane of the SIMD
// batch takes it (loops run while any lane has trips), so the voxel loop
// holds the overlap test and nothing else: a store there (lane by lane, one
// component at a time) cost every voxel of the box, hit or not. A triangle's
// box is tested in chunks of kChunkVoxels, the hits kept as bit masks; then
// groupCells() turns them into records per 2^3 cell, one atomic reserving
// the chunk's range (so a triangle's records are contiguous in the list).
const uint kChunkWords = 8u;
const uint kChunkVoxels = 32u * kChunkWords;

// A record of voxel v's 2^3 cell: `mask` holds bit o for each of the
// cell's voxels o (child order, vox_shared.h) the triangle overlaps.
void emit(uint slot, ivec3 v, uint mask, uint color, uint normal, uint t) {
    uvec4 r = uvec4(uint(v.x) | (uint(v.y) << 10) | (uint(v.z) << 20), voxRecordColor(color, mask), normal, t);
#ifdef VOX_WIDE_STORES
    if (slot < params.counts.z) fragments[slot] = u64vec2(packUint2x32(r.xy), packUint2x32(r.zw));
#else
    if (slot < params.counts.z) fragments[slot] = r;
#endif
}

uint cellOctant(ivec3 v) { return uint(v.x & 1) | (uint(v.y & 1) << 1) | (uint(v.z & 1) << 2); }

// floor(a / b) for a < 2^24, b >= 1: the float quotient is within 1 of it
// and one integer step each way makes it exact (lavapipe divides integers
// one lane at a time).
uint divSmall(uint a, uint b) {
    uint q = uint(float(a) / float(b));
    q -= q * b > a ? 1u : 0u;
    q += (q + 1u) * b <= a ? 1u : 0u;
    return q;
}

struct Tri {
    vec3 g0, g1, g2, l0, l1, l2, n;
    ivec3 cmin, cmax;
    uint ex, ey, box; // box extents along x and y, voxels in the box
    uint color, normal, t;
#ifdef VOX_EXACT64
    VoxBounds fb;
    VoxFilterTri ft;
    VoxCellSteps st;
    ivec3 kmin, kmax; // the 2^3 cells the box touches (cell coordinates)
    uint kx, ky, cells; // their extents along x and y, their number
#endif
};

// The box voxel with index i (x fastest).
ivec3 boxVoxel(Tri tr, uint i) {
    uint yz = divSmall(i, tr.ex), z = divSmall(yz, tr.ey);
    return tr.cmin + ivec3(int(i - yz * tr.ex), int(yz - z * tr.ey), int(z));
}

// The chunk's hits `m` (voxel indices first.., `found` of them) as
// records of 2^3 cells: the lowest hit left leads its cell and takes its
// siblings' hits that lie in its 32-bit word of `m` or the next (lookups
// in two registers; a sibling further on, rare in a small box, gets a
// record of its own, and so does each side of a cell cut by the chunk's
// end: records of one cell have disjoint masks). Returns the number of
// records; writes them from `slot` on when `write` (the caller runs it
// twice, counting first, so that one atomic per chunk reserves them: an
// atomic per record on the shared counter cost more than the grouping).
uint groupCells(Tri tr, uint first, uint last, uint m[kChunkWords], uint found, bool write, uint slot) {
    uint w = 0u, bits = m[0], next = m[1], records = 0u;
    int ex = int(tr.ex), exy = int(tr.ex * tr.ey);
    while (found > 0u) {
        while (bits == 0u) {
            ++w;
            bits = next;
            next = 0u;
            [[unroll]] for (uint u = 2u; u < kChunkWords; ++u) next = w + 1u == u ? m[u] : next;
        }
        uint base = first + 32u * w;
        uint i = base + uint(findLSB(bits));
        bits &= bits - 1u;
        found -= 1u;
        ivec3 v = boxVoxel(tr, i);
        uint o = cellOctant(v);
        uint mask = 1u << o;
        // Per axis: the sibling's step in the box's voxel index (+1 from an
        // even coordinate, -1 from an odd one) and whether it is in the box.
        bvec3 odd = bvec3(uvec3(o, o >> 1, o >> 2) & 1u);
        bvec3 ok = bvec3(odd.x ? v.x > tr.cmin.x : v.x < tr.cmax.x, odd.y ? v.y > tr.cmin.y : v.y < tr.cmax.y,
                         odd.z ? v.z > tr.cmin.z : v.z < tr.cmax.z);
        ivec3 step = ivec3(odd.x ? -1 : 1, odd.y ? -ex : ex, odd.z ? -exy : exy);
        int at = int(i - base), end = min(int(last - base), 64);
        [[unroll]] for (uint s = 1u; s < 8u; ++s) {
            // s is a constant: the sums and conjunctions below fold.
            int d = at + ((s & 1u) != 0u ? step.x : 0) + ((s & 2u) != 0u ? step.y : 0) + ((s & 4u) != 0u ? step.z : 0);
            bool take = ((s & 1u) == 0u || ok.x) && ((s & 2u) == 0u || ok.y) && ((s & 4u) == 0u || ok.z) && d > at &&
                        d < end;
            uint bj = 1u << (uint(d) & 31u);
            bool lo = d < 32;
            take = take && ((lo ? bits : next) & bj) != 0u;
            mask |= take ? 1u << (o ^ s) : 0u;
            found -= take ? 1u : 0u;
            bits &= take && lo ? ~bj : 0xffffffffu;
            next &= take && !lo ? ~bj : 0xffffffffu;
        }
        if (write) emit(slot + records, v, mask, tr.color, tr.normal, tr.t);
        ++records;
    }
    return records;
}

// Tests the chunk of the box starting at voxel index `first` and appends its
// hits (thin mode, and the variant without Float64; VOX_EXACT64's
// conservative mode tests cells, cellChunk below). `thinMode` is the
// specialization constant kVoxThin: the loop holds one test only.
void chunk(Tri tr, uint first, bool thinMode) {
    uint m[kChunkWords];
    [[unroll]] for (uint w = 0u; w < kChunkWords; ++w) m[w] = 0u;
    uint found = 0u;
    uint last = min(tr.box, first + kChunkVoxels);
    ivec3 v = boxVoxel(tr, first);
    for (uint w = 0u, i = first; i < last; ++w) {
        uint cur = 0u;
        for (uint bit = 1u; bit != 0u && i < last; bit <<= 1u, ++i) {
            bool hit = voxOverlaps(v, tr.g0, tr.g1, tr.g2, tr.l0, tr.l1, tr.l2, tr.n, thinMode);
            cur |= hit ? bit : 0u;
            // The next voxel, x fastest; no branches (both sides would run).
            bool wx = v.x == tr.cmax.x, wy = wx && v.y == tr.cmax.y;
            v.x = wx ? tr.cmin.x : v.x + 1;
            v.y = wy ? tr.cmin.y : v.y + (wx ? 1 : 0);
            v.z += wy ? 1 : 0;
        }
        [[unroll]] for (uint u = 0u; u < kChunkWords; ++u) m[u] = u == w ? cur : m[u];
        found += bitCount(cur);
    }
    if (found == 0u) return;
    uint records = groupCells(tr, first, last, m, found, false, 0u);
    groupCells(tr, first, last, m, found, true, atomicAdd(counters.fragmentCount, records));
}

#ifdef VOX_EXACT64
// Conservative mode with the filter: the loop runs over the 2^3 cells that
// the candidate box touches, one trip per cell testing its 8 voxels
// (voxCellFilteredInBox: the corner's margins plus per-triangle steps), and
// a trip's result is already a record's voxel mask, so no grouping. A
// chunk of kChunkCells cells keeps its masks in kChunkWords registers
// (a byte per cell), then one atomic reserves its records (nonzero bytes).
const uint kChunkCells = 4u * kChunkWords;

// The cell with index i of the triangle's cells (x fastest).
ivec3 boxCell(Tri tr, uint i) {
    uint yz = divSmall(i, tr.kx), z = divSmall(yz, tr.ky);
    return tr.kmin + ivec3(int(i - yz * tr.kx), int(yz - z * tr.ky), int(z));
}

// Bit 8j of the result is set when byte j of w is nonzero.
uint nonzeroBytes(uint w) {
    w |= w >> 4;
    w |= w >> 2;
    w |= w >> 1;
    return w & 0x01010101u;
}

// The voxels of cell k inside the candidate box, as a child-order mask.
uint cellInBox(Tri tr, ivec3 k) {
    ivec3 c = 2 * k;
    uint mx = (c.x >= tr.cmin.x ? 0x55u : 0u) | (c.x < tr.cmax.x ? 0xaau : 0u);
    uint my = (c.y >= tr.cmin.y ? 0x33u : 0u) | (c.y < tr.cmax.y ? 0xccu : 0u);
    uint mz = (c.z >= tr.cmin.z ? 0x0fu : 0u) | (c.z < tr.cmax.z ? 0xf0u : 0u);
    return mx & my & mz;
}

// The certain hits of cell k's voxels; `undecided` the pairs the margins
// left to the double test.
uint cellHits(Tri tr, ivec3 k, out uint undecided) {
    return voxCellFilteredInBox(2 * k, tr.g0, tr.g1, tr.g2, tr.l0, tr.l1, tr.l2, tr.n, tr.ft, tr.st, tr.fb,
                                cellInBox(tr, k), undecided);
}

// Tests the chunk of cells starting at cell index `first`: a byte per cell in
// `m`, its certain hits or (`undecidedOnly`) its undecided pairs; returns the
// number of cells with a bit; `pending` is nonzero when a pair is undecided.
uint cellMasks(Tri tr, uint first, bool undecidedOnly, out uint m[kChunkWords], out uint pending) {
    [[unroll]] for (uint w = 0u; w < kChunkWords; ++w) m[w] = 0u;
    pending = 0u;
    uint n = min(tr.cells - first, kChunkCells);
    ivec3 k = boxCell(tr, first);
    // One loop over the chunk's cells, each trip ORing its byte into its
    // word: lavapipe runs a loop's body once more, masked, when its lanes
    // leave it, so a loop per word (4 cells) cost a fifth more trips.
    for (uint j = 0u; j < n; ++j) {
        uint und;
        uint hit = cellHits(tr, k, und);
        pending |= und;
        uint byte = (undecidedOnly ? und : hit & ~und) << (8u * (j & 3u));
        uint w = j >> 2u;
        [[unroll]] for (uint u = 0u; u < kChunkWords; ++u) m[u] |= u == w ? byte : 0u;
        // The next cell, x fastest; no branches (both sides would run).
        bool wx = k.x == tr.kmax.x, wy = wx && k.y == tr.kmax.y;
        k.x = wx ? tr.kmin.x : k.x + 1;
        k.y = wy ? tr.kmin.y : k.y + (wx ? 1 : 0);
        k.z += wy ? 1 : 0;
    }
    uint records = 0u;
    [[unroll]] for (uint u = 0u; u < kChunkWords; ++u) records += bitCount(nonzeroBytes(m[u]));
    return records;
}

// Tests the chunk of cells starting at `first` and appends a record per cell
// with certain hits; returns nonzero when a pair is undecided. The write
// loop runs over the records (as long as the batch's lane with the most),
// each taking the next nonzero byte of `m`: a walk over all the chunk's cells with a
// masked store per cell (coordinates stepped, no division) executed 5 %
// more instructions on the knot at R = 512.
uint cellChunk(Tri tr, uint first) {
    uint m[kChunkWords];
    uint pending;
    uint records = cellMasks(tr, first, false, m, pending);
    if (records == 0u) return pending;
    uint slot = atomicAdd(counters.fragmentCount, records);
    // Bit c of `left`: cell first + c has a record (byte c & 3 of word
    // c >> 2 is nonzero); the record loop takes them lowest first, with no
    // inner loop (lavapipe runs an inner loop's body once more, masked,
    // every time its lanes leave it).
    uint left = 0u;
    [[unroll]] for (uint u = 0u; u < kChunkWords; ++u) {
        uint nz = nonzeroBytes(m[u]);
        left |= ((nz | (nz >> 7) | (nz >> 14) | (nz >> 21)) & 15u) << (4u * u);
    }
    for (uint r = 0u; r < records; ++r) {
        uint c = uint(findLSB(left));
        left &= left - 1u;
        uint w = c >> 2u, mw = m[0];
        [[unroll]] for (uint u = 1u; u < kChunkWords; ++u) mw = w == u ? m[u] : mw;
        emit(slot + r, 2 * boxCell(tr, first + c), (mw >> (8u * (c & 3u))) & 255u, tr.color, tr.normal, tr.t);
    }
    return pending;
}
#endif

// The triangle t as both passes see it, over its whole candidate box
// (tile 0) or over compute tile `tile` - 1 of the large triangles
// (ConservativeMethod::Compute: the host cut the triangles the raster would
// take into tiles, triangle_tiles.h); false when no voxel of this path can
// overlap it (bad index, non-finite vertex, the other path's, or outside
// the grid).
bool setupTriangle(uint t, uint tile, out Tri tr) {
    uint i0 = meshWord(params.offsets.x + 3u * t);
    uint i1 = meshWord(params.offsets.x + 3u * t + 1u);
    uint i2 = meshWord(params.offsets.x + 3u * t + 2u);
    // A bad index: the raster's geometry shader drops the triangle too.
    if (i0 >= params.counts.y || i1 >= params.counts.y || i2 >= params.counts.y) return false;
    vec3 g0 = gridVertex(i0), g1 = gridVertex(i1), g2 = gridVertex(i2);
    vec3 l0 = gridVertexLo(i0), l1 = gridVertexLo(i1), l2 = gridVertexLo(i2);
    if (any(isnan(g0)) || any(isnan(g1)) || any(isnan(g2)) || any(isinf(g0)) || any(isinf(g1)) || any(isinf(g2)))
        return false;
    ivec3 dims = ivec3(params.dims.xyz);
    // Large triangles are the raster's (raster.geom skips the small ones) or
    // their tiles': one thread's loop stays short (kMaxSmallTriangleVoxels,
    // voxelizer.h). The same test on the same vertices in both launches, so
    // each triangle is voxelized once.
    if (voxComputeTakes(g0, g1, g2, l0, l1, l2, dims, params.offsets.w) != (tile == 0u)) return false;
    if (!voxCandidateBox(g0, g1, g2, l0, l1, l2, dims, tr.cmin, tr.cmax)) return false;
    if (tile != 0u) {
        // The tile's box holds every voxel of its columns the triangle
        // touches; the candidate box is a superset of those too.
        uint lo = meshWord(params.order.z + 3u * tile - 2u), hi = meshWord(params.order.z + 3u * tile - 1u);
        tr.cmin = max(tr.cmin, ivec3(int(lo & 1023u), int((lo >> 10) & 1023u), int(lo >> 20)));
        tr.cmax = min(tr.cmax, ivec3(int(hi & 1023u), int((hi >> 10) & 1023u), int(hi >> 20)));
        if (any(greaterThan(tr.cmin, tr.cmax))) return false;
    }
    tr.g0 = g0;
    tr.g1 = g1;
    tr.g2 = g2;
    tr.l0 = l0;
    tr.l1 = l1;
    tr.l2 = l2;
    tr.n = voxNormal(g0, l0, g1, l1, g2, l2);
    tr.t = t;
    // Attributes exactly as raster.geom computes them.
    vec3 nn = vertexNormal(i0) + vertexNormal(i1) + vertexNormal(i2);
    if (dot(nn, nn) == 0.0) nn = tr.n * params.invSize.xyz;
    tr.color = voxMeanColor(vertexColor(i0), vertexColor(i1), vertexColor(i2));
    tr.normal = voxPackNormal(nn);
    ivec3 ext = tr.cmax - tr.cmin + 1;
    tr.ex = uint(ext.x);
    tr.ey = uint(ext.y);
    tr.box = tr.ex * tr.ey * uint(ext.z);
#ifdef VOX_EXACT64
    tr.fb = voxFilterBounds(g0, g1, g2, tr.n);
    tr.ft = voxFilterTri(g0, g1, g2, l0, l1, l2, tr.n);
    tr.st = voxCellSteps(tr.n, tr.ft, tr.fb);
    tr.kmin = tr.cmin >> 1;
    tr.kmax = tr.cmax >> 1;
    ivec3 kext = tr.kmax - tr.kmin + 1;
    tr.kx = uint(kext.x);
    tr.ky = uint(kext.y);
    tr.cells = tr.kx * tr.ky * uint(kext.z);
#endif
    return true;
}

#ifdef VOX_EXACT64
// The pairs of triangle tr the float margins left undecided (rare), decided
// in double (vox_sat64.glsl), a chunk of its cells at a time: the float
// margins mark the chunk's undecided voxels, then the double test runs on
// those only (in the loop over the cells, lavapipe would run the double
// test, masked, on every cell).
void decideUndecided(Tri tr) {
    for (uint first = 0u; first < tr.cells; first += kChunkCells) {
        uint m[kChunkWords];
        uint pending;
        cellMasks(tr, first, true, m, pending);
        uint found = 0u;
        [[unroll]] for (uint u = 0u; u < kChunkWords; ++u) found += bitCount(m[u]);
        uint w = 0u, bits = m[0];
        for (uint k = 0u; k < found; ++k) {
            while (bits == 0u) {
                ++w;
                [[unroll]] for (uint u = 1u; u < kChunkWords; ++u) bits = w == u ? m[u] : bits;
            }
            uint b = uint(findLSB(bits));
            bits &= bits - 1u;
            uint o = b & 7u;
            ivec3 u = 2 * boxCell(tr, first + 4u * w + (b >> 3)) + ivec3(o & 1u, (o >> 1) & 1u, o >> 2);
            if (!voxReferenceSeparates64(u, tr.g0, tr.g1, tr.g2, tr.l0, tr.l1, tr.l2))
                emit(atomicAdd(counters.fragmentCount, 1u), u, 1u << o, tr.color, tr.normal, tr.t);
        }
    }
}
#endif

void main() {
    uint t = voxThreadIndex();
#ifdef VOX_EXACT64
    if (kDecidePass) {
        // One thread per triangle that the first pass listed.
        if (t >= dispatchArgs[VOX_DISPATCH_UNDECIDED].w) return;
        uvec2 listed = undecidedTriangles[t]; // (triangle, tile + 1 or 0)
        Tri tr;
        if (setupTriangle(listed.x, listed.y, tr)) decideUndecided(tr);
        return;
    }
#endif
    if (t >= params.counts.x) return;
    // The host's order (RasterParams.order): within blocks, triangles of
    // similar candidate boxes run in the same batch of lanes, whose voxel
    // loops last as long as the largest box among them. The launch over
    // compute tiles (order.w) takes tile t + 1's triangle instead.
    // One load with a selected address: lavapipe would run both loads of a
    // selection between two.
    uint tile = params.order.w != 0u ? t + 1u : 0u;
    t = meshWord(params.order.w != 0u ? params.order.z + 3u * t : params.order.x + t);
    Tri tr;
    if (!setupTriangle(t, tile, tr)) return;
#ifdef VOX_EXACT64
    if (!kVoxThin) {
        uint pending = 0u;
        for (uint first = 0u; first < tr.cells; first += kChunkCells) pending |= cellChunk(tr, first);
        // Undecided pairs are decided by the second pass (vox.small_triangles_exact),
        // over the triangles that have some: in this pass the double test would
        // cost every batch of 8 triangles a trip (lavapipe runs a loop's body at
        // least once), and as many as its slowest lane's box wherever one lane
        // has an undecided pair (most batches of a UV sphere).
        if (pending > 0u)
            undecidedTriangles[atomicAdd(dispatchArgs[VOX_DISPATCH_UNDECIDED].w, 1u)] = uvec2(t, tile);
        return;
    }
#endif
    for (uint first = 0u; first < tr.box; first += kChunkVoxels) chunk(tr, first, kVoxThin);
}
