// Push constants of the surface draw pass, shared by SurfaceRenderer (C++)
// and surface.vert/.frag (std430-compatible push block). Per-frame values are
// push constants so a camera move never touches a buffer the GPU may read.
#ifndef PYRAMARCH_SURFACE_SHARED_H
#define PYRAMARCH_SURFACE_SHARED_H

#ifdef __cplusplus
#include <cstdint>
namespace pyramarch::iso::gpu {
struct SurfaceMat4 { float m[16]; };
struct SurfaceVec4 { float x, y, z, w; };
struct SurfaceUVec4 { uint32_t x, y, z, w; };
#define SURF_MAT4 SurfaceMat4
#define SURF_VEC4 SurfaceVec4
#define SURF_UVEC4 SurfaceUVec4
#define SURF_CONST inline constexpr uint32_t
#else
#define SURF_MAT4 mat4
#define SURF_VEC4 vec4
#define SURF_UVEC4 uvec4
#define SURF_CONST const uint
#endif

// SurfacePush.flags.x
SURF_CONST kSurfaceShadeLit = 0u;           // hemisphere ambient + Blinn-Phong
SURF_CONST kSurfaceShadeCellTriangles = 1u; // WebGL point-cloud MC post (docs/algorithms.md): 1 blue, 2 green, 3 red, 4 cyan, 5 magenta
SURF_CONST kSurfaceShadeNormals = 2u;       // world normal * 0.5 + 0.5
SURF_CONST kSurfaceShadeFlat = 3u;          // one colour, no lighting (masks, wireframe)

struct SurfacePush {
    SURF_MAT4 viewProj;   // world -> clip (Vulkan: y down, depth 0..1)
    SURF_VEC4 cameraPos;  // xyz world camera position
    SURF_VEC4 lightDir;   // xyz unit direction towards the light; w specular exponent
    SURF_VEC4 baseColor;  // rgb albedo (linear); w ambient strength
    SURF_UVEC4 flags;     // x shading mode; y 1: two-sided (back faces drawn, lit with the flipped normal, tinted)
};

#ifdef __cplusplus
static_assert(sizeof(SurfacePush) == 128, "push constants must fit the guaranteed 128 bytes");
} // namespace pyramarch::iso::gpu
#endif
#undef SURF_MAT4
#undef SURF_VEC4
#undef SURF_UVEC4
#undef SURF_CONST
#endif
