#version 460
// Particle gather, step 1 (counting sort): bin of each particle and its slot
// within the bin (atomic count). Particles outside the binned box reach no
// sample and are left out (slot ~0).
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer ParticlesBuf { float particleData[]; };
layout(set = 0, binding = 2, std430) buffer BinCountBuf { uint binCount[]; };
layout(set = 0, binding = 3, std430) writeonly buffer SlotsBuf { uint slots[]; };

#include "isosurface/particles_bins.glsl"
#include "isosurface/particles_common.glsl"

void main() {
    const uint i = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    if (i >= min(pc.itemCount, grid.maxItems)) return;
    vec4 pw;
    uint bin;
    if (!loadBinInput(i, pw) || !binOf(pw.xyz, bin)) {
        slots[i] = 0xffffffffu;
        return;
    }
    slots[i] = atomicAdd(binCount[bin], 1u);
}
