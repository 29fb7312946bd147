#version 460
#include "isosurface/surface_shared.h"

// IsoVertex (iso_shared.h): position.w = triangles emitted by the vertex's cell.
layout(location = 0) in vec4 inPosition;
layout(location = 1) in vec4 inNormal;

layout(push_constant) uniform Push { SurfacePush pc; };

layout(location = 0) out vec3 outWorld;
layout(location = 1) out vec3 outNormal;
layout(location = 2) flat out uint outCellTriangles;
// The shading mode and two-sidedness, for the fragment shader: as a push constant there it
// would decide its branches from a uniform alone, which Mesa 22.3's lavapipe
// inlines into a variant compiled again at every bind (see isoOpaque in
// common.glsl); a flat varying is opaque to it and costs nothing per pixel.
layout(location = 3) flat out uvec2 outShading;

void main() {
    outWorld = inPosition.xyz;
    outNormal = inNormal.xyz;
    // The three vertices of a triangle share a cell, so the provoking vertex's
    // count is the triangle's.
    outCellTriangles = uint(inPosition.w + 0.5);
    outShading = pc.flags.xy;
    gl_Position = pc.viewProj * vec4(inPosition.xyz, 1.0);
}
