// One thread per grid sample for the field passes.
#ifndef ISO_FIELD_COMMON_GLSL
#define ISO_FIELD_COMMON_GLSL
#include "isosurface/common.glsl"

// Sample index of this thread, or false past the end of the grid.
bool sampleIndex(IsoGrid g, out uint index, out vec3 p) {
    index = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    if (index >= g.samples.w) return false;
    const uvec3 s = uvec3(index % g.samples.x, (index / g.samples.x) % g.samples.y,
                          index / (g.samples.x * g.samples.y));
    p = g.boundsMin.xyz + vec3(s) * g.spacing.xyz;
    return true;
}
#endif
