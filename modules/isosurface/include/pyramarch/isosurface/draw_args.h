// Where the isosurface module's draw commands sit in its args buffer and how
// large one vertex is: the one definition used by IsoSurface, SurfaceRenderer
// and hosts. The library checks them against the GPU layout (IsoArgs and
// IsoVertex in shaders/isosurface/iso_shared.h) with static_asserts.
#pragma once

#include <cstdint>

#include <vulkan/vulkan_core.h>

namespace pyramarch::iso {

inline constexpr VkDeviceSize kDrawArgsOffset = 16;        // VkDrawIndirectCommand (non-indexed draw)
inline constexpr VkDeviceSize kDrawIndexedArgsOffset = 48; // VkDrawIndexedIndirectCommand (indexed output)
inline constexpr uint32_t kVertexStride = 32;              // IsoVertexData: vec4 position, vec4 normal

} // namespace pyramarch::iso
