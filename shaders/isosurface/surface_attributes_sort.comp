#version 460
// Surface attributes (surface_attributes.cpp) on a dense grid: after a
// binning's sort (<name>.particles.sort, or .particles.rebin.sort with
// position smoothing), "<name>.attributes.sort" / ".attributes.rebin.sort"
// move each binned particle's attribute values to the place the sort gave
// its position (bin start + slot, particles_sort.comp), so that the
// interpolation reads them in the order of the binned particles and their
// volumes. pc.numLevels: floats per particle. pc.srcLevel 0: from this
// frame's ring slot of the host's values (attributes[] in the particles'
// own order); kIsoRebinSmoothed: from the first sort's order.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer ParticlesBuf { float particleData[]; };
layout(set = 0, binding = 2, std430) readonly buffer SlotsBuf { uint slots[]; };
layout(set = 0, binding = 3, std430) readonly buffer BinStartBuf { uint binStart[]; };
layout(set = 0, binding = 4, std430) readonly buffer AttributesInBuf { float attributesIn[]; };
layout(set = 0, binding = 5, std430) writeonly buffer AttributesOutBuf { float attributesOut[]; };

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
    const uint components = pc.numLevels;
    const uint dst = (binStart[bin] + slot) * components;
    const uint src = (isoOpaque(pc.srcLevel) == kIsoRebinSmoothed ? i : pc.slot * grid.maxItems + i) * components;
    for (uint c = 0u; c < components; ++c) attributesOut[dst + c] = attributesIn[src + c];
}
