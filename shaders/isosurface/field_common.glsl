// One thread per grid sample for the field passes.
#ifndef ISO_FIELD_COMMON_GLSL
#define ISO_FIELD_COMMON_GLSL
#include "isosurface/common.glsl"

// Sample index of this thread, or false past the end of the grid.
// World position of sample s. `precise`: every pass that evaluates a field
// at a sample (the dense and the tiled user-field pass) gets the same bits.
vec3 isoSamplePosition(IsoGrid g, uvec3 s) {
    precise vec3 p = g.boundsMin.xyz + vec3(s) * g.spacing.xyz;
    return p;
}

bool sampleIndex(IsoGrid g, out uint index, out vec3 p) {
    index = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    if (index >= g.samples.w) return false;
    const uint row = divideBy(index, g.sampleDivisors.x, g.sampleDivisors.z); // y + samples.y * z
    const uint z = divideBy(row, g.sampleDivisors.y, g.sampleDivisors.w);
    const uvec3 s = uvec3(index - row * g.samples.x, row - z * g.samples.y, z);
    p = isoSamplePosition(g, s);
    return true;
}
#endif
