// Per-triangle helpers shared by the raster path (raster.geom, raster.frag)
// and the compute path for small triangles (small_triangles.comp): both
// paths must produce the same (voxel, triangle) pairs with the same
// attributes, so the overlap test, the attribute packing and the
// small/large split live here once.
#ifndef PYRAMARCH_VOX_TRIANGLE_GLSL
#define PYRAMARCH_VOX_TRIANGLE_GLSL

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

// The exact triangle/voxel overlap test of Schwarz & Seidel (plane test +
// three 2D edge-function tests, equivalent to the 13-axis separating-axis
// test) for grid-space vertices v0..v2 with accurate normal n =
// voxNormal(v0, v1, v2) (the normal of the original vertices, not of the
// rounded relative ones).
bool voxOverlaps(ivec3 voxel, vec3 v0, vec3 v1, vec3 v2, vec3 n, bool thin) {
    vec3 c = vec3(voxel);
    // Relative to the voxel's minimum corner: small numbers, small rounding.
    precise vec3 a0 = v0 - c;
    precise vec3 a1 = v1 - c;
    precise vec3 a2 = v2 - c;
    // Bounding boxes (closed).
    vec3 lo = min(a0, min(a1, a2)), hi = max(a0, max(a1, a2));
    if (any(greaterThan(lo, vec3(1.0))) || any(lessThan(hi, vec3(0.0)))) return false;
    precise vec3 e0 = a1 - a0;
    precise vec3 e1 = a2 - a1;
    precise vec3 e2 = a0 - a2;
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

// The voxels of the grid (dims) that voxOverlaps' bounding-box test can
// accept: voxel c passes it iff lo <= c + 1 and c <= hi per axis (the
// subtractions v - c are exact inside the grid, or round monotonically), so
// c runs over [ceil(lo) - 1, floor(hi)], clamped to the grid. The clamp to
// [-2, dims + 1] in float first keeps far-away vertices out of int overflow.
// Returns false when the range is empty.
bool voxCandidateBox(vec3 v0, vec3 v1, vec3 v2, ivec3 dims, out ivec3 cmin, out ivec3 cmax) {
    vec3 lo = clamp(min(v0, min(v1, v2)), vec3(-2.0), vec3(dims) + 2.0);
    vec3 hi = clamp(max(v0, max(v1, v2)), vec3(-2.0), vec3(dims) + 2.0);
    cmin = max(ivec3(ceil(lo)) - 1, ivec3(0));
    cmax = min(ivec3(floor(hi)), dims - 1);
    return all(lessThanEqual(cmin, cmax));
}

// Small/large split (RasterParams.offsets.w = the largest candidate box, in
// voxels, that the compute path takes): both paths evaluate this on the same
// vertices, so every triangle is voxelized by exactly one of them. An empty
// candidate box counts as small (no path emits anything for it).
bool voxComputeTakes(vec3 v0, vec3 v1, vec3 v2, ivec3 dims, uint maxVoxels) {
    ivec3 cmin, cmax;
    if (!voxCandidateBox(v0, v1, v2, dims, cmin, cmax)) return true;
    uvec3 ext = uvec3(cmax - cmin + 1);
    // Each extent is at most 1024, so the product fits in 32 bits.
    return ext.x * ext.y * ext.z <= maxVoxels;
}

#endif
