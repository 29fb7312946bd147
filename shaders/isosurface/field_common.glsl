// One thread per grid sample for the field passes.
#ifndef ISO_FIELD_COMMON_GLSL
#define ISO_FIELD_COMMON_GLSL
#include "isosurface/common.glsl"

// Sample index of this thread, or false past the end of the grid.
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
