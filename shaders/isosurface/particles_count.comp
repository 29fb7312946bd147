#version 460
// Particle gather, step 1 (counting sort): bin of each particle (bins of the
// kernel radius over the bounds grown by the radius; particles outside can
// reach no sample) and its slot within the bin.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std430) readonly buffer GridBuf { IsoGrid grid; }; // bin grid
layout(set = 0, binding = 1, std430) readonly buffer ParticlesBuf { float particleData[]; };

#include "isosurface/particle_load.glsl"
layout(set = 0, binding = 2, std430) buffer BinsBuf { uint bins[]; };
layout(set = 0, binding = 3, std430) writeonly buffer SlotsBuf { uint slots[]; };
layout(set = 0, binding = 4, std430) readonly buffer BinOffsetsBuf { uint binOffsets[]; };

#include "isosurface/bin_prefix.glsl"

void main() {
    const uint i = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    if (i >= min(pc.itemCount, grid.maxItems)) return;
    vec4 pw;
    uint bin;
    if (!loadParticle(i, pw) || !binOf(pw.xyz, bin)) {
        slots[i] = 0xffffffffu;
        return;
    }
    slots[i] = atomicAdd(bins[grid.levelOffset[0] + bin], 1u);
}
