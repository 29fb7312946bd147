// Helpers that submit and wait: uploads at creation time, read-back in tests
// and tools. The frame path never uses these; they need Device::queue().
#pragma once

#include <functional>
#include <vector>

#include "pyramarch/engine/memory.h"
#include "pyramarch/engine/status.h"

struct VolkDeviceTable;

namespace pyramarch {

class Device;

// Records one global memory barrier (synchronization2) into `cmd`.
void cmdMemoryBarrier(const VolkDeviceTable& vk, VkCommandBuffer cmd, VkPipelineStageFlags2 srcStage,
                      VkAccessFlags2 srcAccess, VkPipelineStageFlags2 dstStage, VkAccessFlags2 dstAccess);

// Records `record` into a fresh primary command buffer, submits it on the
// device's queue and waits for it.
Status submitAndWait(Device& device, const std::function<void(VkCommandBuffer)>& record);

// Copies host bytes into `dst` at `offset` through a staging buffer (or
// directly for host-visible buffers).
Status uploadBuffer(Device& device, const Buffer& dst, const void* data, VkDeviceSize bytes, VkDeviceSize offset = 0);

// Copies `bytes` of `src` starting at `offset` to host memory.
Status readBuffer(Device& device, const Buffer& src, void* out, VkDeviceSize bytes, VkDeviceSize offset = 0);

template <class T>
Result<std::vector<T>> readBufferAs(Device& device, const Buffer& src, size_t count, VkDeviceSize offset = 0) {
    std::vector<T> out(count);
    Status s = readBuffer(device, src, out.data(), count * sizeof(T), offset);
    if (!s) return s;
    return out;
}

// Reads mip 0 of a colour image (currently in `layout`) as tightly packed
// texels; the image is returned to `layout`.
Status readImage(Device& device, const Image& image, VkImageLayout layout, std::vector<uint8_t>& out);

} // namespace pyramarch
