// Buffers and images with RAII ownership. Memory comes from an Allocator that
// sub-allocates large blocks per memory type, so hundreds of small buffers do
// not become hundreds of vkAllocateMemory calls.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <vulkan/vulkan_core.h>

#include "pyramarch/engine/status.h"

namespace pyramarch {

class Device;
class Allocator;

enum class MemoryUsage {
    DeviceLocal, // GPU only; fastest for passes
    Upload,      // host-visible, host-coherent, written by the host (staging, per-frame parameters)
    Readback,    // host-visible, preferably cached, read by the host (stats, test read-back)
};

struct BufferCreateInfo {
    VkDeviceSize size = 0;        // required, > 0
    VkBufferUsageFlags usage = 0; // required
    MemoryUsage memory = MemoryUsage::DeviceLocal;
    const char* name = nullptr; // optional, debug name (copied)
};

// A sub-allocated range of a VkDeviceMemory block.
struct Allocation {
    uint32_t block = UINT32_MAX;
    uint32_t memoryType = 0;
    VkDeviceSize offset = 0;
    VkDeviceSize size = 0;
    void* mapped = nullptr; // non-null for host-visible memory
    VkDeviceMemory memory = VK_NULL_HANDLE;
};

class Buffer {
public:
    Buffer() = default;
    ~Buffer();
    Buffer(Buffer&& other) noexcept;
    Buffer& operator=(Buffer&& other) noexcept;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;

    VkBuffer handle() const { return buffer_; }
    VkDeviceSize size() const { return size_; }
    // Host pointer for Upload/Readback buffers, null for DeviceLocal.
    void* mapped() const { return allocation_.mapped; }
    bool valid() const { return buffer_ != VK_NULL_HANDLE; }
    // Makes host writes visible / device writes visible to the host for
    // non-coherent memory (no-op on coherent memory).
    void flush() const;
    void invalidate() const;
    void reset();

private:
    friend class Allocator;
    Allocator* allocator_ = nullptr;
    VkBuffer buffer_ = VK_NULL_HANDLE;
    VkDeviceSize size_ = 0;
    Allocation allocation_;
};

struct ImageCreateInfo {
    VkImageType type = VK_IMAGE_TYPE_2D;
    VkFormat format = VK_FORMAT_R8G8B8A8_UNORM; // required
    VkExtent3D extent{1, 1, 1};                 // required
    VkImageUsageFlags usage = 0;                // required
    VkSampleCountFlagBits samples = VK_SAMPLE_COUNT_1_BIT;
    uint32_t mipLevels = 1;
    const char* name = nullptr;
};

class Image {
public:
    Image() = default;
    ~Image();
    Image(Image&& other) noexcept;
    Image& operator=(Image&& other) noexcept;
    Image(const Image&) = delete;
    Image& operator=(const Image&) = delete;

    VkImage handle() const { return image_; }
    // A view of the whole image (all mips, aspect derived from the format).
    VkImageView view() const { return view_; }
    VkFormat format() const { return format_; }
    VkExtent3D extent() const { return extent_; }
    VkImageAspectFlags aspect() const { return aspect_; }
    uint32_t mipLevels() const { return mipLevels_; }
    VkSampleCountFlagBits samples() const { return samples_; }
    bool valid() const { return image_ != VK_NULL_HANDLE; }
    void reset();

private:
    friend class Allocator;
    Allocator* allocator_ = nullptr;
    VkImage image_ = VK_NULL_HANDLE;
    VkImageView view_ = VK_NULL_HANDLE;
    VkFormat format_ = VK_FORMAT_UNDEFINED;
    VkExtent3D extent_{};
    VkImageAspectFlags aspect_ = 0;
    uint32_t mipLevels_ = 1;
    VkSampleCountFlagBits samples_ = VK_SAMPLE_COUNT_1_BIT;
    Allocation allocation_;
};

struct AllocatorStats {
    uint32_t deviceMemoryBlocks = 0; // live vkAllocateMemory allocations
    uint64_t blockBytes = 0;         // bytes in those blocks
    uint32_t liveAllocations = 0;    // live sub-allocations
    uint64_t allocatedBytes = 0;     // bytes in live sub-allocations
    // Bytes of those blocks the kernel was asked to back with transparent
    // huge pages (Linux, CPU implementations such as lavapipe: their device
    // memory is the process's own; 0 elsewhere, or with PYRAMARCH_HUGE_PAGES=0).
    uint64_t hugePageBytes = 0;
};

// Owned by Device (Device::allocator()).
class Allocator {
public:
    explicit Allocator(Device& device);
    ~Allocator();
    Allocator(const Allocator&) = delete;
    Allocator& operator=(const Allocator&) = delete;

    Result<Buffer> createBuffer(const BufferCreateInfo& info);
    // Caps the device memory this allocator may hold (bytes of live
    // VkDeviceMemory blocks; 0 = no cap). Beyond it, creation fails with
    // VK_ERROR_OUT_OF_DEVICE_MEMORY as the driver would: hosts use it to keep
    // the module inside a memory budget, tests to exercise exhaustion.
    void setBudget(uint64_t bytes);
    uint64_t budget() const;
    Result<Image> createImage(const ImageCreateInfo& info);
    AllocatorStats stats() const;
    Device& device() const { return device_; }

    // Index of the memory type for `typeBits` and `usage`, or UINT32_MAX.
    uint32_t findMemoryType(uint32_t typeBits, MemoryUsage usage) const;

    // Requests at most this size get their own VkDeviceMemory.
    static constexpr VkDeviceSize kBlockSize = 64ull << 20;

private:
    // Buffer and Image free, flush and invalidate their allocation through these.
    friend class Buffer;
    friend class Image;
    void free(Allocation& allocation);
    void flush(const Allocation& allocation) const;
    void invalidate(const Allocation& allocation) const;

    Result<Allocation> allocate(const VkMemoryRequirements& req, MemoryUsage usage, bool dedicatedPreferred);
    struct Impl;
    Device& device_;
    std::unique_ptr<Impl> impl_;
};

} // namespace pyramarch
