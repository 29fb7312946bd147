#include "pyramarch/engine/transfer.h"

#include <cstring>
#include <mutex>

#include "pyramarch/engine/device.h"
#include "pyramarch/engine/vulkan_functions.h"
#include "vk_check.h"

namespace pyramarch {

void cmdMemoryBarrier(const VolkDeviceTable& vk, VkCommandBuffer cmd, VkPipelineStageFlags2 srcStage,
                      VkAccessFlags2 srcAccess, VkPipelineStageFlags2 dstStage, VkAccessFlags2 dstAccess) {
    VkMemoryBarrier2 mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
    mb.srcStageMask = srcStage;
    mb.srcAccessMask = srcAccess;
    mb.dstStageMask = dstStage;
    mb.dstAccessMask = dstAccess;
    VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dep.memoryBarrierCount = 1;
    dep.pMemoryBarriers = &mb;
    vk.vkCmdPipelineBarrier2(cmd, &dep);
}

Status submitAndWait(Device& device, const std::function<void(VkCommandBuffer)>& record) {
    if (!device.queue())
        return Status::error(ErrorCode::InvalidState, "submitAndWait needs a queue (AdoptInfo::queue was not given)");
    const VolkDeviceTable& vk = device.vk();
    VkDevice d = device.device();
    VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pci.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    pci.queueFamilyIndex = device.queueFamily();
    VkCommandPool pool = VK_NULL_HANDLE;
    PYRAMARCH_VK_TRY(vk.vkCreateCommandPool(d, &pci, nullptr, &pool), "vkCreateCommandPool");
    VkFence fence = VK_NULL_HANDLE;
    auto cleanup = [&] {
        if (fence) vk.vkDestroyFence(d, fence, nullptr);
        vk.vkDestroyCommandPool(d, pool, nullptr);
    };
    // Everything the submission needs exists before `record` runs: what it
    // records (a render graph's layout tracking) is then also submitted.
    VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkResult r = vk.vkCreateFence(d, &fci, nullptr, &fence);
    if (r != VK_SUCCESS) {
        fence = VK_NULL_HANDLE;
        cleanup();
        return vkStatus(r, "vkCreateFence");
    }
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    r = vk.vkAllocateCommandBuffers(d, &ai, &cmd);
    if (r != VK_SUCCESS) {
        cleanup();
        return vkStatus(r, "vkAllocateCommandBuffers");
    }
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    vk.vkBeginCommandBuffer(cmd, &bi);
    record(cmd);
    // Whatever this submission wrote is visible to everything submitted later.
    cmdMemoryBarrier(vk, cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_WRITE_BIT,
                     VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT);
    r = vk.vkEndCommandBuffer(cmd);
    if (r != VK_SUCCESS) {
        cleanup();
        return vkStatus(r, "vkEndCommandBuffer");
    }
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    {
        // Vulkan requires queue submissions to be externally synchronized.
        std::lock_guard<std::mutex> lock(device.queueMutex());
        r = vk.vkQueueSubmit(device.queue(), 1, &si, fence);
    }
    if (r == VK_SUCCESS) r = vk.vkWaitForFences(d, 1, &fence, VK_TRUE, UINT64_MAX);
    cleanup();
    return vkStatus(r, "submitAndWait");
}

Status uploadBuffer(Device& device, const Buffer& dst, const void* data, VkDeviceSize bytes, VkDeviceSize offset) {
    if (bytes == 0) return {};
    if (offset + bytes > dst.size())
        return Status::error(ErrorCode::InvalidArgument, "uploadBuffer: " + std::to_string(bytes) +
                                                             " bytes at offset " + std::to_string(offset) +
                                                             " exceed the buffer's " + std::to_string(dst.size()));
    if (dst.mapped()) {
        std::memcpy(static_cast<char*>(dst.mapped()) + offset, data, bytes);
        dst.flush();
        return {};
    }
    auto staging =
        device.allocator().createBuffer({bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, MemoryUsage::Upload, "staging"});
    if (!staging) return staging.status();
    std::memcpy(staging->mapped(), data, bytes);
    staging->flush();
    const VolkDeviceTable& vk = device.vk();
    return submitAndWait(device, [&](VkCommandBuffer cmd) {
        cmdMemoryBarrier(vk, cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                         VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_2_COPY_BIT,
                         VK_ACCESS_2_TRANSFER_WRITE_BIT);
        VkBufferCopy region{0, offset, bytes};
        vk.vkCmdCopyBuffer(cmd, staging->handle(), dst.handle(), 1, &region);
    });
}

Status readBuffer(Device& device, const Buffer& src, void* out, VkDeviceSize bytes, VkDeviceSize offset) {
    if (bytes == 0) return {};
    if (offset + bytes > src.size())
        return Status::error(ErrorCode::InvalidArgument, "readBuffer: " + std::to_string(bytes) + " bytes at offset " +
                                                             std::to_string(offset) + " exceed the buffer's " +
                                                             std::to_string(src.size()));
    auto staging =
        device.allocator().createBuffer({bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUsage::Readback, "readback"});
    if (!staging) return staging.status();
    const VolkDeviceTable& vk = device.vk();
    PYRAMARCH_TRY(submitAndWait(device, [&](VkCommandBuffer cmd) {
        cmdMemoryBarrier(vk, cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_WRITE_BIT,
                         VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
        VkBufferCopy region{offset, 0, bytes};
        vk.vkCmdCopyBuffer(cmd, src.handle(), staging->handle(), 1, &region);
        cmdMemoryBarrier(vk, cmd, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                         VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
    }));
    staging->invalidate();
    std::memcpy(out, staging->mapped(), bytes);
    return {};
}

static uint32_t texelBytes(VkFormat f) {
    switch (f) {
    case VK_FORMAT_R8_UNORM:
    case VK_FORMAT_R8_UINT: return 1;
    case VK_FORMAT_R16_SFLOAT:
    case VK_FORMAT_R16_UINT: return 2;
    case VK_FORMAT_R8G8B8A8_UNORM:
    case VK_FORMAT_R8G8B8A8_SRGB:
    case VK_FORMAT_B8G8R8A8_UNORM:
    case VK_FORMAT_B8G8R8A8_SRGB:
    case VK_FORMAT_R32_SFLOAT:
    case VK_FORMAT_R32_UINT:
    case VK_FORMAT_D32_SFLOAT: return 4;
    case VK_FORMAT_R16G16B16A16_SFLOAT: return 8;
    case VK_FORMAT_R32G32B32A32_SFLOAT: return 16;
    default: return 0;
    }
}

Status readImage(Device& device, const Image& image, VkImageLayout layout, std::vector<uint8_t>& out) {
    const uint32_t bpp = texelBytes(image.format());
    if (!bpp)
        return Status::error(ErrorCode::Unsupported, "readImage: unsupported format " + std::to_string(image.format()));
    if (image.samples() != VK_SAMPLE_COUNT_1_BIT)
        return Status::error(ErrorCode::InvalidArgument, "readImage: multisampled images must be resolved first");
    const VkExtent3D e = image.extent();
    const VkDeviceSize bytes = VkDeviceSize(e.width) * e.height * e.depth * bpp;
    auto staging = device.allocator().createBuffer(
        {bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUsage::Readback, "image readback"});
    if (!staging) return staging.status();
    const VolkDeviceTable& vk = device.vk();
    auto transition = [&](VkCommandBuffer cmd, VkImageLayout from, VkImageLayout to, VkPipelineStageFlags2 srcStage,
                          VkAccessFlags2 srcAccess, VkPipelineStageFlags2 dstStage, VkAccessFlags2 dstAccess) {
        VkImageMemoryBarrier2 b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2};
        b.srcStageMask = srcStage;
        b.srcAccessMask = srcAccess;
        b.dstStageMask = dstStage;
        b.dstAccessMask = dstAccess;
        b.oldLayout = from;
        b.newLayout = to;
        b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
        b.image = image.handle();
        b.subresourceRange = {image.aspect(), 0, 1, 0, 1};
        VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
        dep.imageMemoryBarrierCount = 1;
        dep.pImageMemoryBarriers = &b;
        vk.vkCmdPipelineBarrier2(cmd, &dep);
    };
    PYRAMARCH_TRY(submitAndWait(device, [&](VkCommandBuffer cmd) {
        transition(cmd, layout, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                   VK_ACCESS_2_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
        VkBufferImageCopy region{};
        region.imageSubresource = {image.aspect(), 0, 0, 1};
        region.imageExtent = e;
        vk.vkCmdCopyImageToBuffer(cmd, image.handle(), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, staging->handle(), 1,
                                  &region);
        transition(cmd, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                   layout == VK_IMAGE_LAYOUT_UNDEFINED ? VK_IMAGE_LAYOUT_GENERAL : layout, VK_PIPELINE_STAGE_2_COPY_BIT,
                   0, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT);
        VkMemoryBarrier2 mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
        mb.srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT;
        mb.srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT;
        mb.dstStageMask = VK_PIPELINE_STAGE_2_HOST_BIT;
        mb.dstAccessMask = VK_ACCESS_2_HOST_READ_BIT;
        VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
        dep.memoryBarrierCount = 1;
        dep.pMemoryBarriers = &mb;
        vk.vkCmdPipelineBarrier2(cmd, &dep);
    }));
    staging->invalidate();
    out.resize(bytes);
    std::memcpy(out.data(), staging->mapped(), bytes);
    return {};
}

} // namespace pyramarch
