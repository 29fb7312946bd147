#version 460
// One thread per voxel fragment: merge it into its leaf. Colour: RGBA8
// moving average by compare-and-swap with the running count in A (seed 004,
// listing 22.2); normal: fixed-point atomic sum; count: atomic add.
#include "voxelizer/vox_compute.glsl"

vec4 unpackRGBA(uint v) { return vec4(v & 255u, (v >> 8) & 255u, (v >> 16) & 255u, v >> 24); }
uint packRGBA(vec4 v) {
    uvec4 u = uvec4(clamp(floor(v + 0.5), 0.0, 255.0));
    return u.x | (u.y << 8) | (u.z << 16) | (u.w << 24);
}

void main() {
    uint i = voxThreadIndex();
    if (i >= counters.fragmentsStored) return;
    uvec4 f = fragments[i];
    uint node;
    if (!voxFragmentNode(i, voxUnpack(f.x), params.dims.w, false, node)) return;

    atomicAdd(nodes[node].count, 1u);
    uvec3 q = uvec3(f.z & 1023u, (f.z >> 10) & 1023u, (f.z >> 20) & 1023u);
    vec3 n = vec3((ivec3(q << 22)) >> 22) / 511.0; // sign-extend 10 bits
    ivec3 fixedN = ivec3(round(n * float(VOX_NORMAL_SCALE)));
    atomicAdd(nodes[node].nx, fixedN.x);
    atomicAdd(nodes[node].ny, fixedN.y);
    atomicAdd(nodes[node].nz, fixedN.z);

    vec3 rgb = unpackRGBA(f.y).rgb;
    uint newVal = packRGBA(vec4(rgb, 1.0));
    uint prev = 0u;
    // Bounded so a pathological contention pattern cannot hang the queue.
    atomicAdd(counters.leafFragments, 1u);
    bool done = false;
    for (uint it = 0u; it < 4096u && !done; ++it) {
        uint cur = atomicCompSwap(nodes[node].color, prev, newVal);
        if (cur == prev) {
            done = true;
        } else {
            prev = cur;
            vec4 s = unpackRGBA(cur);
            float k = s.w;
            vec3 avg = (s.rgb * k + rgb) / (k + 1.0);
            newVal = packRGBA(vec4(avg, min(k + 1.0, 255.0)));
        }
    }
}
