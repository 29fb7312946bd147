// Helpers shared by the isosurface compute shaders.
#ifndef ISO_COMMON_GLSL
#define ISO_COMMON_GLSL

#include "isosurface/iso_shared.h"

layout(push_constant, std430) uniform PushBlock { IsoPush pc; };

// Dispatches are folded into x * y groups so that no dimension exceeds
// maxComputeWorkGroupCount[0]; this undoes the fold.
uint linearGroup() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }

// Bit tests rather than isnan/isinf: they survive any fast-math the driver applies.
bool isFiniteF(float v) { return (floatBitsToUint(v) & 0x7f800000u) != 0x7f800000u; }
bool isNanF(float v) { return (floatBitsToUint(v) & 0x7fffffffu) > 0x7f800000u; }
// NaN samples count as -infinity: outside, never a NaN comparison result.
float sanitize(float v) { return isNanF(v) ? uintBitsToFloat(0xff800000u) : v; }

#endif
