#version 460
// Compute path for small triangles (TrianglePath::Split, launched with
// VOX_SPLIT set): one thread per triangle loops over the
// voxels of its candidate box (vox_triangle.glsl) and appends those that
// pass the exact overlap test, the same test the raster path's fragment
// shader applies, with the same vertex arithmetic (raster.vert), normal
// (voxNormal) and attributes (raster.geom) — so the (voxel, triangle) pairs
// and fragment records are the raster path's. On lavapipe rasterizing and
// shading a dilated triangle costs far more than the few dozen tests of a
// triangle spanning a handful of voxels (README, issue 14).
// VOX_EXACT64 (small_triangles.exact64.comp): near-boundary pairs decided in
// double precision as in raster.exact64.frag; declares Float64.
#include "voxelizer/vox_shared.h"
#include "voxelizer/vox_common.glsl"
#include "voxelizer/vox_exact.glsl"
#include "voxelizer/vox_triangle.glsl"

layout(local_size_x = VOX_GROUP_SIZE) in;

layout(push_constant) uniform Push { RasterParams params; };
layout(std430, set = 0, binding = 0) readonly buffer MeshF { float f[]; } meshF;
layout(std430, set = 0, binding = 0) readonly buffer MeshU { uint u[]; } meshU;
layout(std430, set = 0, binding = 1) buffer Counters { VoxCounters counters; };
layout(std430, set = 0, binding = 2) writeonly buffer Fragments { uvec4 fragments[]; };

vec3 gridVertex(uint idx) {
    vec3 p = vec3(meshF.f[3u * idx], meshF.f[3u * idx + 1u], meshF.f[3u * idx + 2u]);
    // As raster.vert (and pyramarch::voxel::toGridSpace): no contraction.
    precise vec3 d = p - params.origin.xyz;
    precise vec3 g = d * params.invSize.xyz;
    return g;
}

vec3 vertexNormal(uint idx) {
    return (params.counts.w & VOX_HAS_NORMALS) != 0u
               ? vec3(meshF.f[params.offsets.z + 3u * idx], meshF.f[params.offsets.z + 3u * idx + 1u],
                      meshF.f[params.offsets.z + 3u * idx + 2u])
               : vec3(0.0);
}

uint vertexColor(uint idx) {
    return (params.counts.w & VOX_HAS_COLORS) != 0u ? meshU.u[params.offsets.y + idx] : 0xffffffffu;
}

void main() {
    uint t = voxThreadIndex();
    if (t >= params.counts.x) return;
    uint i0 = meshU.u[params.offsets.x + 3u * t];
    uint i1 = meshU.u[params.offsets.x + 3u * t + 1u];
    uint i2 = meshU.u[params.offsets.x + 3u * t + 2u];
    // A bad index: the raster's geometry shader drops the triangle too.
    if (i0 >= params.counts.y || i1 >= params.counts.y || i2 >= params.counts.y) return;
    vec3 g0 = gridVertex(i0), g1 = gridVertex(i1), g2 = gridVertex(i2);
    if (any(isnan(g0)) || any(isnan(g1)) || any(isnan(g2)) || any(isinf(g0)) || any(isinf(g1)) || any(isinf(g2)))
        return;
    ivec3 dims = ivec3(params.dims.xyz);
    // Large triangles are the raster's (raster.geom skips the small ones):
    // one thread's loop stays short (kMaxSmallTriangleVoxels, voxelizer.h).
    if (!voxComputeTakes(g0, g1, g2, dims, params.offsets.w)) return;
    ivec3 cmin, cmax;
    if (!voxCandidateBox(g0, g1, g2, dims, cmin, cmax)) return;

    vec3 n = voxNormal(g0, g1, g2);
    bool thin = (params.counts.w & VOX_THIN) != 0u;
    // Attributes exactly as raster.geom computes them.
    vec3 nn = vertexNormal(i0) + vertexNormal(i1) + vertexNormal(i2);
    if (dot(nn, nn) == 0.0) nn = n * params.invSize.xyz;
    uint color = voxMeanColor(vertexColor(i0), vertexColor(i1), vertexColor(i2));
    uint normal = voxPackNormal(nn);

    // The whole box, one atomic per voxel found. Measured slower on lavapipe
    // (README): batching a thread's voxels in a local array before one
    // atomic, and walking only the plane's ~3 voxels per column along the
    // dominant axis (more per-column work, diverging lanes).
#ifndef VOX_EXACT64
    for (int z = cmin.z; z <= cmax.z; ++z)
        for (int y = cmin.y; y <= cmax.y; ++y)
            for (int x = cmin.x; x <= cmax.x; ++x) {
                if (!voxOverlaps(ivec3(x, y, z), g0, g1, g2, n, thin)) continue;
                uint slot = atomicAdd(counters.fragmentCount, 1u);
                if (slot < params.counts.z)
                    fragments[slot] = uvec4(uint(x) | (uint(y) << 10) | (uint(z) << 20), color, normal, t);
            }
#else
    // Thin mode: the float test. Conservative: certain pairs first; the ones
    // the float margins left undecided are counted and decided in double
    // (vox_sat64.glsl) by a second walk that stops at the last of them.
    // lavapipe runs code for all lanes when one lane needs it: after the loop
    // that costs one trip per triangle, not one per voxel, unless a lane of
    // the group has undecided pairs (likewise the loop of the other mode).
    if (thin) {
        for (int z = cmin.z; z <= cmax.z; ++z)
            for (int y = cmin.y; y <= cmax.y; ++y)
                for (int x = cmin.x; x <= cmax.x; ++x) {
                    if (!voxOverlaps(ivec3(x, y, z), g0, g1, g2, n, true)) continue;
                    uint slot = atomicAdd(counters.fragmentCount, 1u);
                    if (slot < params.counts.z)
                        fragments[slot] = uvec4(uint(x) | (uint(y) << 10) | (uint(z) << 20), color, normal, t);
                }
        return;
    }
    VoxBounds fb = voxFilterBounds(g0, g1, g2, n);
    uint pending = 0u;
    for (int z = cmin.z; z <= cmax.z; ++z)
        for (int y = cmin.y; y <= cmax.y; ++y)
            for (int x = cmin.x; x <= cmax.x; ++x) {
                bool undecided;
                if (!voxOverlapsFiltered(ivec3(x, y, z), g0, g1, g2, n, fb, undecided)) continue;
                if (undecided) {
                    ++pending;
                    continue;
                }
                uint slot = atomicAdd(counters.fragmentCount, 1u);
                if (slot < params.counts.z)
                    fragments[slot] = uvec4(uint(x) | (uint(y) << 10) | (uint(z) << 20), color, normal, t);
            }
    for (int z = cmin.z; z <= cmax.z && pending > 0u; ++z)
        for (int y = cmin.y; y <= cmax.y && pending > 0u; ++y)
            for (int x = cmin.x; x <= cmax.x && pending > 0u; ++x) {
                bool undecided;
                if (!voxOverlapsFiltered(ivec3(x, y, z), g0, g1, g2, n, fb, undecided) || !undecided) continue;
                --pending;
                if (voxReferenceSeparates64(ivec3(x, y, z), g0, g1, g2)) continue;
                uint slot = atomicAdd(counters.fragmentCount, 1u);
                if (slot < params.counts.z)
                    fragments[slot] = uvec4(uint(x) | (uint(y) << 10) | (uint(z) << 20), color, normal, t);
            }
#endif
}
