#version 460
#include "isosurface/surface_shared.h"

layout(location = 0) in vec3 inWorld;
layout(location = 1) in vec3 inNormal;
layout(location = 2) flat in uint inCellTriangles;

layout(push_constant) uniform Push { SurfacePush pc; };

layout(location = 0) out vec4 outColor;

vec3 cellColor(uint n) {
    switch (n) {
    case 1u: return vec3(0.0, 0.0, 1.0);
    case 2u: return vec3(0.0, 1.0, 0.0);
    case 3u: return vec3(1.0, 0.0, 0.0);
    case 4u: return vec3(0.0, 1.0, 1.0);
    case 5u: return vec3(1.0, 0.0, 1.0);
    default: return vec3(1.0, 1.0, 1.0);
    }
}

void main() {
    const uint mode = pc.flags.x;
    if (mode == kSurfaceShadeFlat) {
        outColor = vec4(pc.baseColor.rgb, 1.0);
        return;
    }
    // The module writes a zero normal where the field gradient vanishes or is
    // not finite; the face normal keeps such spots shaded instead of black.
    vec3 n = inNormal;
    const vec3 face = cross(dFdx(inWorld), dFdy(inWorld));
    if (dot(n, n) < 1e-12) n = face;
    n = dot(n, n) > 0.0 ? normalize(n) : vec3(0.0, 0.0, 1.0);
    // Open surfaces (a volume cut by its bounds) show their inside: light it
    // with the normal facing the viewer.
    const bool back = pc.flags.y != 0u && !gl_FrontFacing;
    if (back) n = -n;
    if (mode == kSurfaceShadeNormals) {
        outColor = vec4(n * 0.5 + 0.5, 1.0);
        return;
    }
    vec3 albedo = mode == kSurfaceShadeCellTriangles ? cellColor(inCellTriangles) : pc.baseColor.rgb;
    if (back && mode == kSurfaceShadeLit) albedo = vec3(0.25, 0.45, 0.75);
    const vec3 l = normalize(pc.lightDir.xyz);
    const vec3 v = normalize(pc.cameraPos.xyz - inWorld);
    const vec3 h = normalize(l + v);
    // Hemisphere ambient: sky above, ground below, blended by the normal's y.
    const vec3 sky = vec3(0.60, 0.68, 0.80), ground = vec3(0.25, 0.22, 0.20);
    const vec3 ambient = mix(ground, sky, n.y * 0.5 + 0.5) * pc.baseColor.w;
    const float diffuse = max(dot(n, l), 0.0);
    const float specular = diffuse > 0.0 ? pow(max(dot(n, h), 0.0), pc.lightDir.w) : 0.0;
    outColor = vec4(albedo * (ambient + 0.8 * diffuse) + vec3(0.35 * specular), 1.0);
}
