// Shared by the fluid passes: push constants, thread index, grid cells and
// the PBF kernels. Mirrored by samples/fluid/fluid_sim.cpp (the CPU
// reference) operation for operation, so the tests can compare the two.
#include "fluid/fluid_shared.h"

layout(push_constant) uniform Push { FluidPush pc; };

// 2D-folded dispatch: the flat thread index.
uint threadIndex(uint groupSize) {
    return (gl_WorkGroupID.y * pc.groupsX + gl_WorkGroupID.x) * groupSize + gl_LocalInvocationIndex;
}

vec3 boxMin() { return vec3(pc.boxMinX, pc.boxMinY, pc.boxMinZ); }
vec3 boxMax() { return vec3(pc.boxMaxX, pc.boxMaxY, pc.boxMaxZ); }
uvec3 gridDims() { return uvec3(pc.gridX, pc.gridY, pc.gridZ); }

// Integer cell of a position, clamped into the grid: a position outside the
// box (or NaN, whose float-to-int conversion is undefined) still lands in a
// real cell, so no count or slot is ever written out of bounds.
ivec3 cellCoord(vec3 p) {
    const ivec3 c = ivec3(floor((p - boxMin()) / pc.h));
    return clamp(c, ivec3(0), ivec3(gridDims()) - 1);
}
uint cellIndex(ivec3 c) { return (uint(c.z) * pc.gridY + uint(c.y)) * pc.gridX + uint(c.x); }

// Box boundary: positions are clamped into the box (the simplest collision
// response; the velocity update turns the clamp into a stop at the wall).
// NaN stays NaN through clamp; such a particle is not created by the sim.
vec3 clampToBox(vec3 p) { return clamp(p, boxMin(), boxMax()); }

// Poly6 kernel W(r) for r^2 = r2 (0 beyond h).
float poly6(float r2) {
    const float h2 = pc.h * pc.h;
    if (r2 >= h2) return 0.0;
    const float d = h2 - r2;
    return pc.poly6 * d * d * d;
}
// Spiky kernel gradient at offset d = pi - pj: -45/(pi h^6) (h - r)^2 d/r
// (0 at r = 0 and beyond h).
vec3 spikyGrad(vec3 d, float r2) {
    if (r2 >= pc.h * pc.h || r2 <= 0.0) return vec3(0.0);
    const float r = sqrt(r2);
    const float k = pc.h - r;
    return (-pc.spiky * k * k / r) * d;
}
