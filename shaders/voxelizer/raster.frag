#version 460
#extension GL_EXT_control_flow_attributes : require
// One fragment = one pixel column along the triangle's dominant axis. The
// candidate voxels are the 1..3 (a few more for near-degenerate triangles)
// the triangle can reach in that column; each is decided by the exact
// triangle/voxel overlap test (voxOverlaps, vox_triangle.glsl, shared with
// the compute path for small triangles), so no voxel the triangle does not
// touch is ever emitted.
// VOX_SUBGROUP_APPEND (the raster.subgroup.frag variant, built by CMake):
// the device runs basic, ballot and arithmetic subgroup operations in
// fragment shaders. Only that variant declares those capabilities: a device
// without them must not even be handed SPIR-V that declares them.
// VOX_EXACT64 (raster.exact64.frag, raster.subgroup.exact64.frag): the
// conservative test's near-boundary pairs are decided in double precision
// (vox_triangle.glsl, vox_sat64.glsl); declares Float64, so only for devices
// with shaderFloat64.
#ifdef VOX_SUBGROUP_APPEND
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#endif
#include "voxelizer/vox_shared.h"
#include "voxelizer/vox_triangle.glsl"

// Subgroup append: one atomic per subgroup reserves the fragments of all
// its invocations (on lavapipe every atomic on the one counter word runs
// lane by lane and contends between the rasterizer's threads).

layout(push_constant) uniform Push { RasterParams params; };
// VOX_THIN_SPEC_ID (vox_shared.h); the push constant's VOX_THIN flag agrees.
layout(constant_id = 3) const bool kVoxThin = false;
layout(std430, set = 0, binding = 1) buffer Counters { VoxCounters counters; };
layout(std430, set = 0, binding = 2) writeonly buffer Fragments { uvec4 fragments[]; };

layout(location = 0) flat in vec3 fV0;
layout(location = 1) flat in vec3 fV1;
layout(location = 2) flat in vec3 fV2;
layout(location = 3) flat in vec4 fBox;
layout(location = 4) flat in uvec4 fInfo;
layout(location = 5) flat in vec3 fN; // voxNormal of the split vertices, from the geometry shader
layout(location = 6) flat in vec3 fL0; // lo parts of the split vertices
layout(location = 7) flat in vec3 fL1;
layout(location = 8) flat in vec3 fL2;

// Column candidates beyond this are counted in depthOverflow, not emitted.
const int kMaxColumn = 16;

vec3 swz(vec3 g, uint axis) { return axis == 0u ? g.yzx : (axis == 1u ? g.zxy : g.xyz); }
ivec3 unswz(ivec3 s, uint axis) { return axis == 0u ? s.zxy : (axis == 1u ? s.yzx : s.xyz); }
ivec3 swzi(ivec3 g, uint axis) { return axis == 0u ? g.yzx : (axis == 1u ? g.zxy : g.xyz); }

// Depth range of segment a->b (swizzled) inside the pixel column [lo, hi].
void clipEdge(vec3 a, vec3 b, vec2 lo, vec2 hi, inout float wlo, inout float whi) {
    float t0 = 0.0, t1 = 1.0;
    vec3 d = b - a;
    for (int k = 0; k < 2; ++k) {
        if (d[k] == 0.0) {
            if (a[k] < lo[k] || a[k] > hi[k]) return;
        } else {
            float ta = (lo[k] - a[k]) / d[k], tb = (hi[k] - a[k]) / d[k];
            t0 = max(t0, min(ta, tb));
            t1 = min(t1, max(ta, tb));
        }
    }
    if (t0 > t1) return;
    float w0 = a.z + d.z * t0, w1 = a.z + d.z * t1;
    wlo = min(wlo, min(w0, w1));
    whi = max(whi, max(w0, w1));
}

void main() {
    uint axis = fInfo.x & 3u;
    bool quad = (fInfo.x & 4u) != 0u;
    bool degenerate = (fInfo.x & 8u) != 0u;
    const bool thin = kVoxThin;
    ivec2 pix = ivec2(floor(gl_FragCoord.xy));
    vec2 plo = vec2(pix), phi = plo + 1.0;
    // Bounding-box kill (the dilated triangle overshoots at its corners).
    if (phi.x < fBox.x || plo.x > fBox.z || phi.y < fBox.y || plo.y > fBox.w) discard;
    ivec3 sdims = ivec3(swz(vec3(params.dims.xyz), axis));
    if (pix.x >= sdims.x || pix.y >= sdims.y) discard;

    vec3 s0 = swz(fV0, axis), s1 = swz(fV1, axis), s2 = swz(fV2, axis);
    // The pixel square must meet the projected triangle (a voxel the
    // triangle touches projects onto a square the projection touches); this
    // culls the corners of dilated triangles and most of a needle's box
    // before any per-voxel work. A small margin keeps it conservative under
    // rounding; the exact test decides.
    vec3 sn = swz(fN, axis);
    if (sn.z != 0.0) {
        float o = sn.z > 0.0 ? 1.0 : -1.0;
        vec2 q[3] = vec2[3](s0.xy, s1.xy, s2.xy);
        for (int k = 0; k < 3; ++k) {
            vec2 e = q[(k + 1) % 3] - q[k];
            vec2 en = vec2(-e.y, e.x) * o; // inward normal
            vec2 rel = plo - q[k];
            float d = dot(en, rel) + max(en.x, 0.0) + max(en.y, 0.0);
            if (d < -1e-3 * (abs(en.x) + abs(en.y))) discard;
        }
    }
    float tlo = min(s0.z, min(s1.z, s2.z)), thi = max(s0.z, max(s1.z, s2.z));
    float wlo = 1e30, whi = -1e30;
    vec3 n = swz(fN, axis); // the swizzles are rotations, so they commute with the cross product
    if (n.z != 0.0 && !degenerate) {
        // The plane over the pixel's four corners, clamped to the triangle's depth extent.
        vec2 c0 = plo - s0.xy, c1 = phi - s0.xy;
        float gu = -n.x / n.z, gv = -n.y / n.z;
        float wa = s0.z + gu * c0.x + gv * c0.y, wb = s0.z + gu * c1.x + gv * c0.y;
        float wc = s0.z + gu * c0.x + gv * c1.y, wd = s0.z + gu * c1.x + gv * c1.y;
        // n is accurate to about an ulp, so the slopes are too; the rounding of
        // the evaluation grows with the distance from s0. Widen by a bound on
        // it (extra candidates are rejected by the exact test, a missing one
        // would be a hole).
        float slack = 1e-3 + 1e-6 * (1.0 + abs(gu) + abs(gv)) *
                                 (max(abs(c0.x), abs(c1.x)) + max(abs(c0.y), abs(c1.y)) + abs(s0.z) + 1.0);
        wlo = max(tlo, min(min(wa, wb), min(wc, wd)) - slack);
        whi = min(thi, max(max(wa, wb), max(wc, wd)) + slack);
    }
    if (quad) {
        // Near-degenerate: the plane may be unreliable; the edges are not.
        // With no area (or a spiky one) the edges clipped to the column
        // bound the depth where the plane cannot.
        float grow = 1e-3;
        vec2 elo = plo - grow, ehi = phi + grow;
        float elo3 = 1e30, ehi3 = -1e30;
        clipEdge(s0, s1, elo, ehi, elo3, ehi3);
        clipEdge(s1, s2, elo, ehi, elo3, ehi3);
        clipEdge(s2, s0, elo, ehi, elo3, ehi3);
        wlo = min(wlo, elo3 - grow);
        whi = max(whi, ehi3 + grow);
    }
    if (!(wlo <= whi)) discard;
    int z0 = max(int(floor(wlo - 1e-3)), 0);
    int z1 = min(int(floor(whi + 1e-3)), sdims.z - 1);
    if (z1 - z0 + 1 > kMaxColumn) {
        atomicAdd(counters.depthOverflow, 1u);
        z1 = z0 + kMaxColumn - 1;
    }
#ifdef VOX_EXACT64
    // Decide the column: certain pairs in the loop, the pairs the float
    // margins left undecided after it in double (vox_sat64.glsl). lavapipe
    // runs the double code for all lanes when one lane needs it: outside the
    // loop that is one trip per pixel when no lane does, not one per voxel.
    uint hits = 0u;
    if (thin) {
        for (int z = z0; z <= z1; ++z)
            if (voxOverlaps(unswz(ivec3(pix, z), axis), fV0, fV1, fV2, fL0, fL1, fL2, fN, true)) hits |= 1u << uint(z - z0);
    } else {
        // lavapipe runs the loop body for all 8 lanes to the longest column:
        // the bounding-box test and the per-triangle edge setup move out of
        // it. The column is clipped to the voxels the box test accepts
        // (voxCandidateBox: exactly those), so the loop can use the in-box
        // filter, whose edges and corner terms are computed once per pixel.
        VoxBounds fb = voxFilterBounds(fV0, fV1, fV2, fN);
        VoxFilterTri ft = voxFilterTri(fV0, fV1, fV2, fL0, fL1, fL2, fN);
        ivec3 cmin, cmax;
        bool inGrid = voxCandidateBox(fV0, fV1, fV2, fL0, fL1, fL2, ivec3(params.dims.xyz), cmin, cmax);
        ivec3 smin = swzi(cmin, axis), smax = swzi(cmax, axis);
        int zb = max(z0, smin.z), ze = min(z1, smax.z);
        if (!inGrid || any(lessThan(pix, smin.xy)) || any(greaterThan(pix, smax.xy))) ze = zb - 1;
        uint pending = 0u;
        for (int z = zb; z <= ze; ++z) {
            bool undecided;
            if (!voxOverlapsFilteredInBox(unswz(ivec3(pix, z), axis), fV0, fV1, fV2, fL0, fL1, fL2, fN, ft, fb, undecided)) continue;
            if (undecided) pending |= 1u << uint(z - z0);
            else hits |= 1u << uint(z - z0);
        }
        for (; pending != 0u; pending &= pending - 1u) {
            int k = findLSB(pending);
            if (!voxReferenceSeparates64(unswz(ivec3(pix, z0 + k), axis), fV0, fV1, fV2, fL0, fL1, fL2)) hits |= 1u << uint(k);
        }
    }
#endif
#ifndef VOX_SUBGROUP_APPEND
#ifndef VOX_EXACT64
    for (int z = z0; z <= z1; ++z) {
        ivec3 voxel = unswz(ivec3(pix, z), axis);
        if (!voxOverlaps(voxel, fV0, fV1, fV2, fL0, fL1, fL2, fN, thin)) continue;
        uint slot = atomicAdd(counters.fragmentCount, 1u);
        if (slot < params.counts.z) fragments[slot] = uvec4(uint(voxel.x) | (uint(voxel.y) << 10) | (uint(voxel.z) << 20), voxVoxelRecordColor(fInfo.y, voxel), fInfo.z, fInfo.w);
    }
#else
    // One record per cell of the column: hits at depths 2k and 2k + 1 (the
    // depth axis is `axis`, octant bit 1 << axis) share one.
    uint evenDepths = (z0 & 1) == 0 ? 0x55555555u : 0xaaaaaaaau;
    uint pairs = hits & evenDepths & (hits >> 1);
    for (hits &= ~(pairs << 1); hits != 0u; hits &= hits - 1u) {
        int k = findLSB(hits);
        ivec3 voxel = unswz(ivec3(pix, z0 + k), axis);
        uint m = 1u << (uint(voxel.x & 1) | (uint(voxel.y & 1) << 1) | (uint(voxel.z & 1) << 2));
        uint color = voxRecordColor(fInfo.y, m | (((pairs >> uint(k)) & 1u) != 0u ? m << (1u << axis) : 0u));
        uint slot = atomicAdd(counters.fragmentCount, 1u);
        if (slot < params.counts.z) fragments[slot] = uvec4(uint(voxel.x) | (uint(voxel.y) << 10) | (uint(voxel.z) << 20), color, fInfo.z, fInfo.w);
    }
#endif
#else
    // Decide the column first (at most kMaxColumn candidates: one bit each),
    // then reserve every invocation's fragments with one atomic per subgroup.
#ifndef VOX_EXACT64
    uint hits = 0u;
    for (int z = z0; z <= z1; ++z)
        if (voxOverlaps(unswz(ivec3(pix, z), axis), fV0, fV1, fV2, fL0, fL1, fL2, fN, thin)) hits |= 1u << uint(z - z0);
#endif
    // Helper invocations may take part in subgroup operations but their
    // atomics and stores have no effect: they contribute nothing and never lead.
    uint mine = gl_HelperInvocation ? 0u : uint(bitCount(hits));
    uint total = subgroupAdd(mine);
    if (total == 0u) return;
    uint leader = subgroupBallotFindLSB(subgroupBallot(!gl_HelperInvocation));
    uint base = 0u;
    if (gl_SubgroupInvocationID == leader) base = atomicAdd(counters.fragmentCount, total);
    uint slot = subgroupMax(base) + subgroupExclusiveAdd(mine);
    for (; mine > 0u; --mine) {
        int z = z0 + findLSB(hits);
        hits &= hits - 1u;
        ivec3 voxel = unswz(ivec3(pix, z), axis);
        if (slot < params.counts.z) fragments[slot] = uvec4(uint(voxel.x) | (uint(voxel.y) << 10) | (uint(voxel.z) << 20), voxVoxelRecordColor(fInfo.y, voxel), fInfo.z, fInfo.w);
        ++slot;
    }
#endif
}
