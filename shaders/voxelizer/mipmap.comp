#version 460
#extension GL_EXT_control_flow_attributes : require
// One thread per node of level `level` (bottom-up, one launch per level):
// colour = rounded mean of the non-empty children (empty children do not
// darken the parent), count = sum, normal = renormalised sum of the
// children's normals (fixed point, so sums cannot overflow near the root).
#include "voxelizer/vox_compute.glsl"

// ColorMerge::MovingAverage: leaves already hold RGBA8 averages.
layout(constant_id = 0) const bool kMovingAverage = false;
// The launch for level D - 1 (the leaves' parents) is a pipeline of its own
// (kLeafParents): the other levels' children are interior nodes holding
// final values, which that pipeline loads 4 children per access (a tile's 8
// children are 8 consecutive, 32-byte aligned words of each array; lavapipe
// loads lane by lane), with no code for the leaves' resolve below (lavapipe
// runs a branch's code whether or not a lane takes it).
layout(constant_id = 2) const bool kLeafParents = false;

#if defined(VOX_STORAGE_READS) || defined(VOX_MIPMAP_TOP)
#ifdef VOX_MIPMAP_TOP
// mipmap.top.comp reads the level its previous phase wrote.
#define VOX_MIPMAP_READS coherent readonly
#else
#define VOX_MIPMAP_READS readonly
#endif
// Bindings 7..11 of vox_compute.glsl, 4 nodes at a time.
layout(std430, set = 0, binding = 7) VOX_MIPMAP_READS buffer NodeColor4 { uvec4 nodeColor4[]; };
layout(std430, set = 0, binding = 8) VOX_MIPMAP_READS buffer NodeCount4 { uvec4 nodeCount4[]; };
layout(std430, set = 0, binding = 9) VOX_MIPMAP_READS buffer NodeNx4 { ivec4 nodeNx4[]; };
layout(std430, set = 0, binding = 10) VOX_MIPMAP_READS buffer NodeNy4 { ivec4 nodeNy4[]; };
layout(std430, set = 0, binding = 11) VOX_MIPMAP_READS buffer NodeNz4 { ivec4 nodeNz4[]; };
uint childOf(uint node) { return nodeChild[node]; }
uvec4 color4(uint q) { return nodeColor4[q]; }
uvec4 count4(uint q) { return nodeCount4[q]; }
ivec4 nx4(uint q) { return nodeNx4[q]; }
ivec4 ny4(uint q) { return nodeNy4[q]; }
ivec4 nz4(uint q) { return nodeNz4[q]; }
#else
// The same words through texel views (vector gathers on lavapipe, where
// storage-buffer loads run lane by lane): the children were written by the
// previous launch, this one writes the level above.
layout(set = 0, binding = VOX_TEXEL_BINDING_NODE_CHILD) uniform usamplerBuffer nodeChildTexels;
layout(set = 0, binding = VOX_TEXEL_BINDING_NODE_VALUES + 0) uniform usamplerBuffer nodeColorTexels;
layout(set = 0, binding = VOX_TEXEL_BINDING_NODE_VALUES + 1) uniform usamplerBuffer nodeCountTexels;
layout(set = 0, binding = VOX_TEXEL_BINDING_NODE_VALUES + 2) uniform usamplerBuffer nodeNxTexels;
layout(set = 0, binding = VOX_TEXEL_BINDING_NODE_VALUES + 3) uniform usamplerBuffer nodeNyTexels;
layout(set = 0, binding = VOX_TEXEL_BINDING_NODE_VALUES + 4) uniform usamplerBuffer nodeNzTexels;
uint childOf(uint node) { return texelFetch(nodeChildTexels, int(node)).x; }
uvec4 color4(uint q) { return texelFetch(nodeColorTexels, int(q)); }
uvec4 count4(uint q) { return texelFetch(nodeCountTexels, int(q)); }
ivec4 nx4(uint q) { return ivec4(texelFetch(nodeNxTexels, int(q))); }
ivec4 ny4(uint q) { return ivec4(texelFetch(nodeNyTexels, int(q))); }
ivec4 nz4(uint q) { return ivec4(texelFetch(nodeNzTexels, int(q))); }
#endif

// An interior node from its 8 interior children: the same sums in the same
// (child) order as the loop in main, with the children loaded 4 at a time.
void interiorFromChildren(uint node, uint child) {
    uvec3 rgb = uvec3(0u);
    uint filled = 0u, count = 0u;
    vec3 n = vec3(0.0);
    [[unroll]] for (uint h = 0u; h < 2u; ++h) {
        uint q = 2u * child + h;
        uvec4 cnt = count4(q), col = color4(q);
        ivec4 nx = nx4(q), ny = ny4(q), nz = nz4(q);
        [[unroll]] for (uint c = 0u; c < 4u; ++c) {
            bool on = cnt[c] != 0u;
            rgb += on ? uvec3(col[c] & 255u, (col[c] >> 8) & 255u, (col[c] >> 16) & 255u) : uvec3(0u);
            filled += on ? 1u : 0u;
            count += cnt[c];
            // n is never -0.0 (a sum of converted integers from +0.0), so
            // adding +0.0 for an empty child leaves it as skipping would.
            n += on ? vec3(nx[c], ny[c], nz[c]) : vec3(0.0);
        }
    }
    if (filled != 0u) voxWriteInterior(node, rgb, filled, count, n);
}

#ifdef VOX_MIPMAP_TOP
// The levels params.level .. 0 (above the leaves' parents) in one workgroup,
// bottom-up with a barrier between levels: they hold a few thousand nodes at
// most, and a launch per level cost lavapipe ~0.1 ms of fixed time each.
void main() {
    for (int l = int(params.level); l >= 0; --l) {
        uint first = counters.levelTileStart[l], last = counters.levelTileEnd[l];
        for (uint i = gl_LocalInvocationID.x; i < 8u * (last - first); i += VOX_GROUP_SIZE) {
            uint node = 8u * first + i;
            uint child = childOf(node);
            if (child != 0u && child < VOX_FLAG) interiorFromChildren(node, child);
        }
        memoryBarrierBuffer();
        barrier();
    }
}
#else
void main() {
    uint l = params.level;
    uint first = counters.levelTileStart[l], last = counters.levelTileEnd[l];
    uint i = voxThreadIndex();
    if (i >= 8u * (last - first)) return;
    uint node = 8u * first + i;
    if (!kLeafParents) {
        uint child = childOf(node);
        if (child == 0u || child >= VOX_FLAG) return;
        interiorFromChildren(node, child);
        return;
    }
    uint child = nodeChild[node];
    if (child == 0u || child >= VOX_FLAG) return;
    // Children that are leaves still hold the channel sums of leaf.comp (R in
    // nodeColor, G in nodeChild, B added to nodeCoord): this thread is their
    // only reader, so it resolves them in place into the rounded mean (round
    // half up, as the CPU reference) with A = min(count, 255), and restores
    // child = 0 and the coordinates (which it knows from its own: the sum is
    // the difference, exact modulo 2^32).
    const bool leafChildren = !kMovingAverage;
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
    voxWriteInterior(node, rgb, filled, count, n);
}
#endif
