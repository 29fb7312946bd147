// Per-triangle helpers shared by the raster path (raster.geom, raster.frag)
// and the compute path for small triangles (small_triangles.comp): both
// paths must produce the same (voxel, triangle) pairs with the same
// attributes, so the overlap test, the attribute packing and the
// small/large split live here once.
#ifndef PYRAMARCH_VOX_TRIANGLE_GLSL
#define PYRAMARCH_VOX_TRIANGLE_GLSL

// A fragment record's colour word: the triangle's RGB8 and, in the top
// byte, the record's voxels in its 2^3 cell (vox_shared.h).
uint voxRecordColor(uint rgba, uint mask) { return (rgba & 0xffffffu) | (mask << 24); }
// The record of voxel v alone.
uint voxVoxelRecordColor(uint rgba, ivec3 v) {
    return voxRecordColor(rgba, 1u << (uint(v.x & 1) | (uint(v.y & 1) << 1) | (uint(v.z & 1) << 2)));
}

uint voxPackNormal(vec3 n) {
    float l = length(n);
    n = l > 0.0 ? n / l : vec3(0.0, 0.0, 1.0);
    uvec3 q = uvec3(ivec3(round(clamp(n, -1.0, 1.0) * 511.0)) & 1023);
    return q.x | (q.y << 10) | (q.z << 20);
}

uint voxMeanColor(uint a, uint b, uint c) {
    uint r = 0u;
    for (uint ch = 0u; ch < 32u; ch += 8u) {
        uint s = ((a >> ch) & 255u) + ((b >> ch) & 255u) + ((c >> ch) & 255u);
        r |= ((s + 1u) / 3u) << ch;
    }
    return r;
}

// 2D edge tests of one projection. `e` are the projected edges, `a` the
// projected vertices relative to the voxel's minimum corner, `sgn` the sign
// of the normal component along the projection axis.
bool voxEdges2D(vec2 e0, vec2 e1, vec2 e2, vec2 a0, vec2 a1, vec2 a2, float sgn, bool thin) {
    precise vec2 n0 = vec2(-e0.y, e0.x) * sgn;
    precise vec2 n1 = vec2(-e1.y, e1.x) * sgn;
    precise vec2 n2 = vec2(-e2.y, e2.x) * sgn;
    precise float d0, d1, d2;
    if (!thin) {
        // Conservative: the box corner that is furthest along the edge normal.
        d0 = dot(n0, -a0) + max(0.0, n0.x) + max(0.0, n0.y);
        d1 = dot(n1, -a1) + max(0.0, n1.x) + max(0.0, n1.y);
        d2 = dot(n2, -a2) + max(0.0, n2.x) + max(0.0, n2.y);
    } else {
        // 6-separating: the voxel's inner diamond (centre +- half along each axis).
        d0 = dot(n0, vec2(0.5) - a0) + 0.5 * max(abs(n0.x), abs(n0.y));
        d1 = dot(n1, vec2(0.5) - a1) + 0.5 * max(abs(n1.x), abs(n1.y));
        d2 = dot(n2, vec2(0.5) - a2) + 0.5 * max(abs(n2.x), abs(n2.y));
    }
    return d0 >= 0.0 && d1 >= 0.0 && d2 >= 0.0;
}

// ceil and floor of a split coordinate h + l (|l| at most half an ulp of
// h): those of h, unless h is an integer and l moves it off.
vec3 voxCeilSplit(vec3 h, vec3 l) {
    vec3 c = ceil(h);
    return c + vec3(equal(c, h)) * vec3(greaterThan(l, vec3(0.0)));
}
vec3 voxFloorSplit(vec3 h, vec3 l) {
    vec3 f = floor(h);
    return f - vec3(equal(f, h)) * vec3(lessThan(l, vec3(0.0)));
}

// The triangle relative to the voxel's minimum corner (small numbers, small
// rounding) and its edges; false when the closed bounding boxes miss.
// Vertices are split, hi + lo (mesh.h's toGridSpaceSplit): (hi - c) + lo
// rounds once more where hi - c is not exact (far from the voxel).
bool voxRelative(ivec3 voxel, vec3 v0, vec3 v1, vec3 v2, vec3 l0, vec3 l1, vec3 l2, out vec3 a0, out vec3 a1,
                 out vec3 a2, out vec3 e0, out vec3 e1, out vec3 e2) {
    vec3 c = vec3(voxel);
    precise vec3 r0 = (v0 - c) + l0;
    precise vec3 r1 = (v1 - c) + l1;
    precise vec3 r2 = (v2 - c) + l2;
    a0 = r0;
    a1 = r1;
    a2 = r2;
    // The bounding boxes on the split values exactly (voxCandidateBox's rule:
    // both paths then test the same voxels).
    vec3 lo = min(voxCeilSplit(v0, l0), min(voxCeilSplit(v1, l1), voxCeilSplit(v2, l2))) - 1.0;
    vec3 hi = max(voxFloorSplit(v0, l0), max(voxFloorSplit(v1, l1), voxFloorSplit(v2, l2)));
    if (any(lessThan(c, lo)) || any(greaterThan(c, hi))) return false;
    precise vec3 d0 = r1 - r0;
    precise vec3 d1 = r2 - r1;
    precise vec3 d2 = r0 - r2;
    e0 = d0;
    e1 = d1;
    e2 = d2;
    return true;
}

// The exact triangle/voxel overlap test of Schwarz & Seidel (plane test +
// three 2D edge-function tests, equivalent to the 13-axis separating-axis
// test) for grid-space vertices v0..v2 with accurate normal n =
// voxNormal(v0, v1, v2) (the normal of the original vertices, not of the
// rounded relative ones). The VOX_EXACT64 variants decide conservative
// pairs with voxOverlapsFiltered (below) instead.
bool voxOverlaps(ivec3 voxel, vec3 v0, vec3 v1, vec3 v2, vec3 l0, vec3 l1, vec3 l2, vec3 n, bool thin) {
    vec3 a0, a1, a2, e0, e1, e2;
    if (!voxRelative(voxel, v0, v1, v2, l0, l1, l2, a0, a1, a2, e0, e1, e2)) return false;
    // Plane.
    if (!thin) {
        vec3 crit = vec3(greaterThan(n, vec3(0.0)));
        precise float s1 = dot(n, crit - a0);
        precise float s2 = dot(n, (vec3(1.0) - crit) - a0);
        if (!(s1 >= 0.0 && s2 <= 0.0)) return false;
    } else {
        precise float s = dot(n, vec3(0.5) - a0);
        precise float r = 0.5 * max(abs(n.x), max(abs(n.y), abs(n.z)));
        if (!(abs(s) <= r)) return false;
    }
    // Projections on xy, yz, zx.
    float sz = n.z < 0.0 ? -1.0 : 1.0, sx = n.x < 0.0 ? -1.0 : 1.0, sy = n.y < 0.0 ? -1.0 : 1.0;
    if (!voxEdges2D(e0.xy, e1.xy, e2.xy, a0.xy, a1.xy, a2.xy, sz, thin)) return false;
    if (!voxEdges2D(e0.yz, e1.yz, e2.yz, a0.yz, a1.yz, a2.yz, sx, thin)) return false;
    if (!voxEdges2D(e0.zx, e1.zx, e2.zx, a0.zx, a1.zx, a2.zx, sy, thin)) return false;
    return true;
}

#ifdef VOX_EXACT64
#include "voxelizer/vox_sat64.glsl"

// The filter of the Float64 variants: the float margins below decide a
// (voxel, triangle) pair only when they are further from zero than a bound
// on their rounding error; the pairs left undecided are decided by the CPU
// reference's double-precision SAT (voxReferenceSeparates64, vox_sat64.glsl), so
// GPU and reference agree on every pair near the boundary, on any driver.
// Margin <-> reference axis: plane s1, s2 <-> cross(e0, e1); the xy, yz, zx
// projections' edge j <-> cross(e_j, Z), cross(e_j, X), cross(e_j, Y); the
// bounding box <-> X, Y, Z. (S & S test one side of each edge axis; the
// other side separates only where another of these axes does too.)
//
// Error bounds, u = 2^-24, all magnitudes in grid units (grid coordinates
// below 2^11; the bounds are relative, so they hold beyond too). A = v - c
// and the normal N are the exact values, a, e, n the float ones; E = the
// largest edge component, M = the largest |a| component of the three vertices:
// M <= E + 1 once the bounding-box test passed (each a_k lies in an interval
// of length <= E that meets [0, 1]).
// - a = fl(v - c): |a - A| <= u|A|. Edges e_j = fl(a_{j+1} - a_j):
//   |e - E_j| <= u(|e| + |a_j| + |a_{j+1}|) per component (to first order).
// - 2D edge function d = n.(-a) + max(0, n.x) + max(0, n.y), n = perp(e) * sgn:
//   the input errors give <= u((|e.x| + |e.y| + s_j + s_{j+1})(s_j + 1) + |n| s_j)
//   and four roundings, in any order or fused (dot() may be lowered to fma
//   whatever `precise` says), <= 4u|n|(s_j + 1), s_j = |a_j.x| + |a_j.y|: in
//   all <= 6u (|e.x| + |e.y| + s_j + s_{j+1})(s_j + 1) <= 6u (2E + 4M)(2M + 1).
//   Bound used: 2^-19 (6E + 4)(2E + 3) >= 2^-19 (2E + 4M)(2M + 1), 5x that.
// - Plane margins s = n.(k - a0), k = crit or 1 - crit: voxNormal is within
//   3u|N| + 32u^2 E^2, and even a plain float cross product would be within
//   2u|N| + 4u E^2; a wrong crit (sign of n_i wrong, so |N_i| is within that
//   error) costs |N_i|; the subtractions and the dot, any order, <= 5u sum
//   |n_i| |k_i - a0_i|: in all <= sum (8u|n_i| + 4u E^2)(|k_i - a0_i| + 1)
//   <= (8u |n|_1 + 12u E^2)(M + 2). Bound used: 2^-19 (|n|_1 + 3/4 E^2)(E + 3),
//   4x and 2x that.
// - The projection's orientation sgn = sign(n_axis): when n_axis is nonzero but
//   within 2^-20 E^2 (4x the error of even a plain float cross product) it
//   may be wrong: no edge margin of the triangle rejects and each of its
//   pairs the plane keeps is undecided. When it is exactly 0 (mostly a
//   triangle parallel to that axis: voxNormal's products of zero edge
//   components are exact) the projection is a segment and either orientation
//   gives the same result; were N_axis tiny but nonzero, the orientations differ only where an
//   edge margin is within about |N_axis| (the sliver's width times its edge),
//   far inside these bounds.
// - Vertices are split, V = h + l (mesh.h's toGridSpaceSplit) and A = V - c:
//   a = fl(fl(h - c) + l). h - c is exact near the voxel (Sterbenz) and
//   otherwise |A| is large against its rounding, so |a - A| <= 2u|A| + u^2:
//   the a-error terms above double, inside the bounds' factors of 5 and 4.
//   Edges (h_{j+1} - h_j) + (l_{j+1} - l_j) round twice: within 2u|E_j|.
//   voxNormal takes the lo parts into its error-free edge differences.
// - The bounding-box test needs no bound: the callers of the in-box test
//   clip to voxCandidateBox, whose ceil/floor of the split coordinates are
//   exact, so it accepts exactly the voxels the reference's X, Y, Z axes do.
// The reference itself rounds in double (2^-53), far inside these bounds, and
// on the plane and edge-function axes its margins are these same quantities.
// One bound per triangle for all edge margins and one for the plane (rather
// than one per margin and voxel): lavapipe pays for every instruction of
// every test, and a looser bound only sends a few more pairs to the double
// test (a band of about 12E / 2^19 voxels along the edges, E / 2^18 along
// the plane).
const float kVoxErr = 1.0 / 524288.0; // 2^-19

// The smallest of one projection's three conservative edge functions
// (voxEdges2D's d0..d2).
float voxEdges2DMin(vec2 e0, vec2 e1, vec2 e2, vec2 a0, vec2 a1, vec2 a2, float sgn) {
    precise vec2 n0 = vec2(-e0.y, e0.x) * sgn;
    precise vec2 n1 = vec2(-e1.y, e1.x) * sgn;
    precise vec2 n2 = vec2(-e2.y, e2.x) * sgn;
    precise float d0 = dot(n0, -a0) + max(0.0, n0.x) + max(0.0, n0.y);
    precise float d1 = dot(n1, -a1) + max(0.0, n1.x) + max(0.0, n1.y);
    precise float d2 = dot(n2, -a2) + max(0.0, n2.x) + max(0.0, n2.y);
    return min(d0, min(d1, d2));
}

// The filter's bounds, per triangle (M <= E + 1, above): be for the edge
// margins, bp for the plane margins. When a projection's orientation is
// unsure (rare) no edge margin may reject (beReject = 3e38) and every pair
// the plane keeps is undecided. The callers compute them once, outside
// their voxel loops.
struct VoxBounds {
    float be, beReject, bp;
    bool unsure;
};

VoxBounds voxFilterBounds(vec3 v0, vec3 v1, vec3 v2, vec3 n) {
    precise vec3 ve = max(abs(v1 - v0), max(abs(v2 - v1), abs(v0 - v2)));
    float emax = max(ve.x, max(ve.y, ve.z));
    precise float ee = emax * emax;
    VoxBounds b;
    precise float be = kVoxErr * (6.0 * emax + 4.0) * (2.0 * emax + 3.0);
    precise float bp = kVoxErr * (abs(n.x) + abs(n.y) + abs(n.z) + 0.75 * ee) * (emax + 3.0);
    precise float tiny = ee * (1.0 / 1048576.0); // 2^-20 E^2
    b.be = be;
    b.bp = bp;
    b.unsure = (n.x != 0.0 && abs(n.x) <= tiny) || (n.y != 0.0 && abs(n.y) <= tiny) || (n.z != 0.0 && abs(n.z) <= tiny);
    b.beReject = b.unsure ? 3.0e38 : be;
    return b;
}

// The conservative test filtered with the triangle's bounds b: false =
// certainly no overlap; true with !undecided = certainly overlaps; true with
// undecided: the reference's decision is !voxReferenceSeparates64(voxel, v0,
// v1, v2), which the callers evaluate after their voxel loops (lavapipe runs
// a branch for every lane if one lane takes it: outside the loop it costs a
// trip per triangle or pixel, not per voxel). A margin below minus its bound
// rejects for sure (that axis separates in the reference too); one within
// its bound makes the pair undecided, and the double test then redoes all
// ten axes (undecided pairs are rare: a smaller float test matters more on
// lavapipe than a per-axis double test). Conservative mode only: the callers
// run thin mode's voxOverlaps in a loop of its own (on lavapipe a loop whose
// lanes are all off costs one trip, a branch per voxel would cost both tests).
bool voxOverlapsFiltered(ivec3 voxel, vec3 v0, vec3 v1, vec3 v2, vec3 l0, vec3 l1, vec3 l2, vec3 n, VoxBounds b,
                         out bool undecided) {
    undecided = false;
    vec3 a0, a1, a2, e0, e1, e2;
    if (!voxRelative(voxel, v0, v1, v2, l0, l1, l2, a0, a1, a2, e0, e1, e2)) return false;
    vec3 crit = vec3(greaterThan(n, vec3(0.0)));
    precise float s1 = dot(n, crit - a0);
    precise float s2 = dot(n, (vec3(1.0) - crit) - a0);
    if (s1 < -b.bp || s2 > b.bp) return false;
    float sz = n.z < 0.0 ? -1.0 : 1.0, sx = n.x < 0.0 ? -1.0 : 1.0, sy = n.y < 0.0 ? -1.0 : 1.0;
    float dz = voxEdges2DMin(e0.xy, e1.xy, e2.xy, a0.xy, a1.xy, a2.xy, sz);
    float dx = voxEdges2DMin(e0.yz, e1.yz, e2.yz, a0.yz, a1.yz, a2.yz, sx);
    float dy = voxEdges2DMin(e0.zx, e1.zx, e2.zx, a0.zx, a1.zx, a2.zx, sy);
    float d = min(dx, min(dy, dz));
    if (d < -b.beReject) return false;
    undecided = b.unsure || !(s1 > b.bp && s2 < -b.bp && d > b.be);
    return true;
}

// voxOverlapsFiltered for many voxels of one triangle, all inside its
// candidate box (voxCandidateBox), with the per-triangle parts computed once
// (voxFilterTri) rather than per voxel: small_triangles.comp, where lavapipe
// runs the whole test for every voxel of the box. The same margins and
// decisions, except that
// - the bounding-box test is left out: every voxel of the candidate box
//   passes it (voxCandidateBox), and exactly so (see its comment above);
// - the edges are fl(v_{j+1} - v_j), not differences of the voxel-relative
//   vertices: one rounding, within the error the bounds above allow for them;
// - each edge's max(0, n.x) + max(0, n.y) is one per-triangle sum (one more
//   rounding, of at most u|n|_1, inside the bounds' margin of 5x).
struct VoxFilterTri {
    vec3 crit, notCrit;        // the plane margins' box corners
    vec2 nz0, nz1, nz2;        // edge normals of the xy projection (times its orientation)
    vec2 nx0, nx1, nx2;        // yz
    vec2 ny0, ny1, ny2;        // zx
    vec3 kz, kx, ky;           // per edge j: max(0, n.x) + max(0, n.y) of that projection
};

vec2 voxEdgeNormal(vec2 e, float sgn) { return vec2(-e.y, e.x) * sgn; }
float voxEdgeCorner(vec2 n) {
    precise float k = max(0.0, n.x) + max(0.0, n.y);
    return k;
}

VoxFilterTri voxFilterTri(vec3 v0, vec3 v1, vec3 v2, vec3 l0, vec3 l1, vec3 l2, vec3 n) {
    VoxFilterTri f;
    f.crit = vec3(greaterThan(n, vec3(0.0)));
    f.notCrit = vec3(1.0) - f.crit;
    precise vec3 e0 = (v1 - v0) + (l1 - l0);
    precise vec3 e1 = (v2 - v1) + (l2 - l1);
    precise vec3 e2 = (v0 - v2) + (l0 - l2);
    float sz = n.z < 0.0 ? -1.0 : 1.0, sx = n.x < 0.0 ? -1.0 : 1.0, sy = n.y < 0.0 ? -1.0 : 1.0;
    f.nz0 = voxEdgeNormal(e0.xy, sz);
    f.nz1 = voxEdgeNormal(e1.xy, sz);
    f.nz2 = voxEdgeNormal(e2.xy, sz);
    f.nx0 = voxEdgeNormal(e0.yz, sx);
    f.nx1 = voxEdgeNormal(e1.yz, sx);
    f.nx2 = voxEdgeNormal(e2.yz, sx);
    f.ny0 = voxEdgeNormal(e0.zx, sy);
    f.ny1 = voxEdgeNormal(e1.zx, sy);
    f.ny2 = voxEdgeNormal(e2.zx, sy);
    f.kz = vec3(voxEdgeCorner(f.nz0), voxEdgeCorner(f.nz1), voxEdgeCorner(f.nz2));
    f.kx = vec3(voxEdgeCorner(f.nx0), voxEdgeCorner(f.nx1), voxEdgeCorner(f.nx2));
    f.ky = vec3(voxEdgeCorner(f.ny0), voxEdgeCorner(f.ny1), voxEdgeCorner(f.ny2));
    return f;
}

// One edge margin: n . (-a) + k.
float voxEdgeMargin(vec2 n, vec2 a, float k) {
    precise float d = dot(n, -a) + k;
    return d;
}

bool voxOverlapsFilteredInBox(ivec3 voxel, vec3 v0, vec3 v1, vec3 v2, vec3 l0, vec3 l1, vec3 l2, vec3 n,
                              VoxFilterTri f, VoxBounds b, out bool undecided) {
    vec3 c = vec3(voxel);
    precise vec3 a0 = (v0 - c) + l0;
    precise vec3 a1 = (v1 - c) + l1;
    precise vec3 a2 = (v2 - c) + l2;
    precise float s1 = dot(n, f.crit - a0);
    precise float s2 = dot(n, f.notCrit - a0);
    float dz = min(voxEdgeMargin(f.nz0, a0.xy, f.kz.x),
                   min(voxEdgeMargin(f.nz1, a1.xy, f.kz.y), voxEdgeMargin(f.nz2, a2.xy, f.kz.z)));
    float dx = min(voxEdgeMargin(f.nx0, a0.yz, f.kx.x),
                   min(voxEdgeMargin(f.nx1, a1.yz, f.kx.y), voxEdgeMargin(f.nx2, a2.yz, f.kx.z)));
    float dy = min(voxEdgeMargin(f.ny0, a0.zx, f.ky.x),
                   min(voxEdgeMargin(f.ny1, a1.zx, f.ky.y), voxEdgeMargin(f.ny2, a2.zx, f.ky.z)));
    float d = min(dx, min(dy, dz));
    bool hit = !(s1 < -b.bp || s2 > b.bp) && !(d < -b.beReject);
    undecided = hit && (b.unsure || !(s1 > b.bp && s2 < -b.bp && d > b.be));
    return hit;
}

// voxOverlapsFilteredInBox for the 8 voxels of a 2^3 cell at once
// (small_triangles.comp's loop over the cells of the candidate box): every
// margin is affine in the voxel, so the margins of the cell's minimum
// corner c are computed as there and those of voxel c + o (o in {0, 1}^3)
// are the corner's plus a per-triangle step, g . o (one add per margin
// instead of a whole test per voxel). Error against the exact margin of
// voxel c + o, u = 2^-24, E, M, n as above: the corner's margin as bounded
// above but with M <= E + 2 (the corner may be one voxel outside the
// candidate box: the cell straddles its edge); the step's sum rounds at
// most twice (<= 2u |n|_1), the float normal's error moves it by <= 3u
// |n|_1 (edges: 4u E), and the add rounds once (<= u |n|_1 (E + 3); for
// the plane the step moves the bound instead, -+bp - n . o, rounding by
// <= u (bp + |n|_1), less). Edge
// margins: <= 6u (6E + 8)(2E + 5) + u (2E^2 + 12E), below be = 32u (6E +
// 4)(2E + 3) for every E >= 0 (1.6x at E = 0, 4.8x for large E); plane
// margins: <= u |n|_1 (9E + 40) + 12u E^2 (E + 4), below bp = 32u |n|_1 (E
// + 3) + 24u E^2 (E + 3) (1.5x at E = 0). So a pair these margins decide
// is decided as the reference decides it, as with the per-voxel margins;
// both passes of small_triangles.comp call this one function, so its second
// pass sees exactly the undecided pairs its first one counted.
struct VoxCellSteps {
    vec3 zx, zy, zxy; // xy projection, per edge: the margin's step for x + 1, y + 1, both
    vec3 xy, xz, xyz; // yz projection: y + 1, z + 1, both
    vec3 yz, yx, yzx; // zx projection: z + 1, x + 1, both
    // Plane: margin + n . o against +-bp is margin against +-bp - n . o,
    // per child offset o = 0..3, 4..7: lo = -bp - n . o, hi = bp - n . o.
    vec4 lo0, lo1, hi0, hi1;
};

VoxCellSteps voxCellSteps(vec3 n, VoxFilterTri f, VoxBounds b) {
    VoxCellSteps st;
    // Margin n_j . (-(a - o)) + k = the corner's + n_j . o.
    st.zx = vec3(f.nz0.x, f.nz1.x, f.nz2.x);
    st.zy = vec3(f.nz0.y, f.nz1.y, f.nz2.y);
    precise vec3 zxy = st.zx + st.zy;
    st.zxy = zxy;
    st.xy = vec3(f.nx0.x, f.nx1.x, f.nx2.x);
    st.xz = vec3(f.nx0.y, f.nx1.y, f.nx2.y);
    precise vec3 xyz = st.xy + st.xz;
    st.xyz = xyz;
    st.yz = vec3(f.ny0.x, f.ny1.x, f.ny2.x);
    st.yx = vec3(f.ny0.y, f.ny1.y, f.ny2.y);
    precise vec3 yzx = st.yz + st.yx;
    st.yzx = yzx;
    // Plane margins n . (k - (a - o)) = the corner's + n . o.
    precise float pxy = n.x + n.y, pxz = n.x + n.z, pyz = n.y + n.z, pxyz = pxy + n.z;
    vec4 p0 = vec4(0.0, n.x, n.y, pxy), p1 = vec4(n.z, pxz, pyz, pxyz);
    precise vec4 lo0 = -b.bp - p0, lo1 = -b.bp - p1, hi0 = b.bp - p0, hi1 = b.bp - p1;
    st.lo0 = lo0;
    st.lo1 = lo1;
    st.hi0 = hi0;
    st.hi1 = hi1;
    return st;
}

float voxMin3(vec3 v) { return min(v.x, min(v.y, v.z)); }

// Bit o (child order, vox_shared.h) set for each voxel c + o of the cell
// with minimum corner c (even coordinates) that is in `inBox` (the voxels
// of the cell inside the candidate box, as a mask) and that
// voxOverlapsFilteredInBox's test keeps with these margins; `undecidedMask`
// the kept ones whose margins do not decide them.
uint voxCellFilteredInBox(ivec3 c, vec3 v0, vec3 v1, vec3 v2, vec3 l0, vec3 l1, vec3 l2, vec3 n, VoxFilterTri f,
                          VoxCellSteps st, VoxBounds b, uint inBox, out uint undecidedMask) {
    vec3 cf = vec3(c);
    precise vec3 a0 = (v0 - cf) + l0;
    precise vec3 a1 = (v1 - cf) + l1;
    precise vec3 a2 = (v2 - cf) + l2;
    precise float s1 = dot(n, f.crit - a0);
    precise float s2 = dot(n, f.notCrit - a0);
    precise vec3 ez = vec3(voxEdgeMargin(f.nz0, a0.xy, f.kz.x), voxEdgeMargin(f.nz1, a1.xy, f.kz.y),
                           voxEdgeMargin(f.nz2, a2.xy, f.kz.z));
    precise vec3 ex = vec3(voxEdgeMargin(f.nx0, a0.yz, f.kx.x), voxEdgeMargin(f.nx1, a1.yz, f.kx.y),
                           voxEdgeMargin(f.nx2, a2.yz, f.kx.z));
    precise vec3 ey = vec3(voxEdgeMargin(f.ny0, a0.zx, f.ky.x), voxEdgeMargin(f.ny1, a1.zx, f.ky.y),
                           voxEdgeMargin(f.ny2, a2.zx, f.ky.z));
    // Each projection's smallest edge margin at its 4 offsets, [first
    // axis step][second axis step] of the projection's (x, y), (y, z), (z, x).
    precise vec3 ez10 = ez + st.zx, ez01 = ez + st.zy, ez11 = ez + st.zxy;
    precise vec3 ex10 = ex + st.xy, ex01 = ex + st.xz, ex11 = ex + st.xyz;
    precise vec3 ey10 = ey + st.yz, ey01 = ey + st.yx, ey11 = ey + st.yzx;
    float dz[4] = float[4](voxMin3(ez), voxMin3(ez10), voxMin3(ez01), voxMin3(ez11));
    float dx[4] = float[4](voxMin3(ex), voxMin3(ex10), voxMin3(ex01), voxMin3(ex11));
    float dy[4] = float[4](voxMin3(ey), voxMin3(ey10), voxMin3(ey01), voxMin3(ey11));
    uint hit = 0u, sure = 0u;
    [[unroll]] for (uint o = 0u; o < 8u; ++o) {
        // o is a constant: the indices and the selects fold.
        uint ox = o & 1u, oy = (o >> 1) & 1u, oz = o >> 2;
        float lo = o < 4u ? st.lo0[o & 3u] : st.lo1[o & 3u];
        float hi = o < 4u ? st.hi0[o & 3u] : st.hi1[o & 3u];
        float d = min(dx[oy | (oz << 1)], min(dy[oz | (ox << 1)], dz[ox | (oy << 1)]));
        // Kept, and certainly (a certain pair is kept: bp, be >= 0).
        hit |= !(s1 < lo || s2 > hi) && !(d < -b.beReject) ? 1u << o : 0u;
        sure |= s1 > hi && s2 < lo && d > b.be ? 1u << o : 0u;
    }
    hit &= inBox;
    undecidedMask = b.unsure ? hit : hit & ~sure;
    return hit;
}
#endif

// The voxels of the grid (dims) that the reference's box axes accept for
// the split vertices v + l: voxel c iff min(v + l) <= c + 1 and
// c <= max(v + l) per axis, so c runs over [ceil(min) - 1, floor(max)],
// clamped to the grid; ceil and floor of the split values are exact
// (voxCeilSplit), so the box is exactly the reference's. The clamp to
// [-2, dims + 2] in float first keeps far-away vertices out of int overflow
// (a clamped coordinate is outside the grid either way). Returns false when
// the range is empty.
bool voxCandidateBox(vec3 v0, vec3 v1, vec3 v2, vec3 l0, vec3 l1, vec3 l2, ivec3 dims, out ivec3 cmin,
                     out ivec3 cmax) {
    vec3 lim = vec3(dims) + 2.0;
    vec3 h0 = clamp(v0, vec3(-2.0), lim), h1 = clamp(v1, vec3(-2.0), lim), h2 = clamp(v2, vec3(-2.0), lim);
    vec3 c0 = voxCeilSplit(h0, l0), c1 = voxCeilSplit(h1, l1), c2 = voxCeilSplit(h2, l2);
    vec3 f0 = voxFloorSplit(h0, l0), f1 = voxFloorSplit(h1, l1), f2 = voxFloorSplit(h2, l2);
    cmin = max(ivec3(min(c0, min(c1, c2))) - 1, ivec3(0));
    cmax = min(ivec3(max(f0, max(f1, f2))), dims - 1);
    return all(lessThanEqual(cmin, cmax));
}

// Small/large split (RasterParams.offsets.w = the largest candidate box, in
// voxels, that the compute path takes): both paths evaluate this on the same
// vertices, so every triangle is voxelized by exactly one of them. An empty
// candidate box counts as small (no path emits anything for it).
bool voxComputeTakes(vec3 v0, vec3 v1, vec3 v2, vec3 l0, vec3 l1, vec3 l2, ivec3 dims, uint maxVoxels) {
    ivec3 cmin, cmax;
    if (!voxCandidateBox(v0, v1, v2, l0, l1, l2, dims, cmin, cmax)) return true;
    uvec3 ext = uvec3(cmax - cmin + 1);
    // Each extent is at most 1024, so the product fits in 32 bits.
    return ext.x * ext.y * ext.z <= maxVoxels;
}

#endif
