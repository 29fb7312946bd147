// Structs shared by the voxelize sample's C++ and GLSL.
#ifndef PYRAMARCH_VOXELIZE_SAMPLE_SHARED_H
#define PYRAMARCH_VOXELIZE_SAMPLE_SHARED_H

#ifdef __cplusplus
#include <cstdint>
namespace voxsample {
using uint = uint32_t;
struct vec4 { float x, y, z, w; };
struct uvec4 { uint32_t x, y, z, w; };
struct mat4 { float m[16]; };
#endif

// Instance gathering: one thread per node of `level`.
struct GatherParams {
    uint level;
    uint capacity;  // instances the buffer holds
    uint pad0, pad1;
};

// Cube drawing (vertex + fragment push constants).
struct CubeParams {
    mat4 viewProj;  // column-major, Vulkan clip space
    vec4 origin;    // xyz grid origin (world)
    vec4 cellSize;  // xyz world size of one node of the drawn level
    vec4 lightDir;  // xyz towards the light
};

#ifdef __cplusplus
static_assert(sizeof(CubeParams) == 112);
} // namespace voxsample
#endif
#endif
