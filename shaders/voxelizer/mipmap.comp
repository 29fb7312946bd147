#version 460
// One thread per node of level `level` (bottom-up, one launch per level):
// colour = rounded mean of the non-empty children (empty children do not
// darken the parent), count = sum, normal = renormalised sum of the
// children's normals (fixed point, so sums cannot overflow near the root).
#include "voxelizer/vox_compute.glsl"

void main() {
    uint l = params.level;
    uint first = counters.levelTileStart[l], last = counters.levelTileEnd[l];
    uint i = voxThreadIndex();
    if (i >= 8u * (last - first)) return;
    uint node = 8u * first + i;
    uint child = nodes[node].child;
    if (child == 0u || child >= VOX_FLAG) return;
    uvec3 rgb = uvec3(0u);
    uint filled = 0u, count = 0u;
    vec3 n = vec3(0.0);
    for (uint c = 0u; c < 8u; ++c) {
        VoxNode ch = nodes[8u * child + c];
        if (ch.count == 0u) continue;
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
