#version 460
// Particle gather, step 3: each binned particle to its sorted place
// (bin start + slot) as vec4 (xyz, weight).
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer ParticlesBuf { float particleData[]; };
layout(set = 0, binding = 2, std430) readonly buffer SlotsBuf { uint slots[]; };
layout(set = 0, binding = 3, std430) readonly buffer BinStartBuf { uint binStart[]; };
layout(set = 0, binding = 4, std430) writeonly buffer SortedBuf { vec4 sorted[]; };

#include "isosurface/particles_bins.glsl"
#include "isosurface/particles_common.glsl"

void main() {
    const uint i = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    if (i >= min(pc.itemCount, grid.maxItems)) return;
    const uint slot = slots[i];
    if (slot == 0xffffffffu) return;
    vec4 pw;
    loadBinInput(i, pw); // a particle the count pass binned is one it loaded
    uint bin;
    binOf(pw.xyz, bin);
    sorted[binStart[bin] + slot] = pw;
}
