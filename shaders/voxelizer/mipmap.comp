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
    uint child = nodeChild[node];
    if (child == 0u || child >= VOX_FLAG) return;
    // Children that are leaves still hold the channel sums of leaf.comp (R in
    // nodeColor, G in nodeChild, B added to nodeCoord): this thread is their
    // only reader, so it resolves them in place into the rounded mean (round
    // half up, as the CPU reference) with A = min(count, 255), and restores
    // child = 0 and the coordinates (which it knows from its own: the sum is
    // the difference, exact modulo 2^32).
    const bool leafChildren = !kMovingAverage && l + 1u == params.dims.w;
    uvec3 rgb = uvec3(0u);
    uint filled = 0u, count = 0u;
    vec3 n = vec3(0.0);
    // The node's own coordinates, loaded once: the loop stores to the same
    // (coherent) array, so the compiler would reload them for every child.
    uvec3 firstChild = voxUnpack(nodeCoord[node]) * 2u;
    for (uint c = 0u; c < 8u; ++c) {
        // Count first: about half the children are empty, and on a device
        // that loads lane by lane (lavapipe) skipping their other 7 words
        // is most of this pass's memory traffic.
        uint idx = 8u * child + c;
        uint chCount = nodeCount[idx];
        if (chCount == 0u) continue;
        uint chColor;
        if (leafChildren) {
            uint coord = voxPack(firstChild + uvec3(c & 1u, (c >> 1) & 1u, (c >> 2) & 1u));
            uvec3 sum = uvec3(nodeColor[idx], nodeChild[idx], nodeCoord[idx] - coord);
            chColor = voxLeafColor(sum, chCount);
            nodeColor[idx] = chColor;
            nodeChild[idx] = 0u;
            nodeCoord[idx] = coord;
        } else {
            chColor = nodeColor[idx];
        }
        rgb += uvec3(chColor & 255u, (chColor >> 8) & 255u, (chColor >> 16) & 255u);
        filled += 1u;
        count += chCount;
        n += vec3(nodeNx[idx], nodeNy[idx], nodeNz[idx]);
    }
    if (filled == 0u) return;
    // Fragments merged into leaves, one atomic per parent of leaves (leaf.comp
    // does not count per fragment).
    if (l + 1u == params.dims.w) atomicAdd(counters.leafFragments, count);
    voxWriteInterior(node, rgb, filled, count, n);
}
