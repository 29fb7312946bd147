#version 460
#include "isosurface/surface_shared.h"

// IsoVertex (iso_shared.h): position.w = triangles emitted by the vertex's cell.
layout(location = 0) in vec4 inPosition;
layout(location = 1) in vec4 inNormal;

layout(push_constant) uniform Push { SurfacePush pc; };

layout(location = 0) out vec3 outWorld;
layout(location = 1) out vec3 outNormal;
layout(location = 2) flat out uint outCellTriangles;

void main() {
    outWorld = inPosition.xyz;
    outNormal = inNormal.xyz;
    // The three vertices of a triangle share a cell, so the provoking vertex's
    // count is the triangle's.
    outCellTriangles = uint(inPosition.w + 0.5);
    gl_Position = pc.viewProj * vec4(inPosition.xyz, 1.0);
}
