#version 460
// One thread per node of level `level` (bottom-up, one launch per level):
// colour = rounded mean of the non-empty children (empty children do not
// darken the parent), count = sum, normal = renormalised sum of the
// children's normals (fixed point, so sums cannot overflow near the root).
#include "voxelizer/vox_compute.glsl"

// ColorMerge::MovingAverage: leaves already hold RGBA8 averages.
layout(constant_id = 0) const bool kMovingAverage = false;

void main() {
    uint l = params.level;
    uint first = counters.levelTileStart[l], last = counters.levelTileEnd[l];
    uint i = voxThreadIndex();
    if (i >= 8u * (last - first)) return;
    uint node = 8u * first + i;
    uint child = nodes[node].child;
    if (child == 0u || child >= VOX_FLAG) return;
    // Children that are leaves still hold the channel sums of leaf.comp (R in
    // color, G in child, B in pad1): this thread is their only reader, so it
    // resolves them in place into the rounded mean (round half up, as the CPU
    // reference) with A = min(count, 255), and restores child = 0.
    const bool leafChildren = !kMovingAverage && l + 1u == params.dims.w;
    uvec3 rgb = uvec3(0u);
    uint filled = 0u, count = 0u;
    vec3 n = vec3(0.0);
    for (uint c = 0u; c < 8u; ++c) {
        VoxNode ch = nodes[8u * child + c];
        if (ch.count == 0u) continue;
        if (leafChildren) {
            uvec3 sum = uvec3(ch.color, ch.child, ch.pad1);
            uvec3 q = sum / ch.count, r = sum % ch.count;
            uvec3 mean = q + uvec3(greaterThanEqual(2u * r, uvec3(ch.count)));
            ch.color = mean.x | (mean.y << 8) | (mean.z << 16) | (min(ch.count, 255u) << 24);
            nodes[8u * child + c].color = ch.color;
            nodes[8u * child + c].child = 0u;
            nodes[8u * child + c].pad1 = 0u;
        }
        rgb += uvec3(ch.color & 255u, (ch.color >> 8) & 255u, (ch.color >> 16) & 255u);
        filled += 1u;
        count += ch.count;
        n += vec3(ch.nx, ch.ny, ch.nz);
    }
    if (filled == 0u) return;
    uvec3 avg = (2u * rgb + filled) / (2u * filled); // round half up
    nodes[node].color = avg.x | (avg.y << 8) | (avg.z << 16) | (min(count, 255u) << 24);
    nodes[node].count = count;
    float len = length(n);
    ivec3 fn = len > 0.0 ? ivec3(round(n / len * float(VOX_NORMAL_SCALE))) : ivec3(0);
    nodes[node].nx = fn.x;
    nodes[node].ny = fn.y;
    nodes[node].nz = fn.z;
}
