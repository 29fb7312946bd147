#include "pyramarch/engine/memory.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "pyramarch/engine/device.h"
#include "pyramarch/engine/vulkan_functions.h"
#include "vk_check.h"

namespace pyramarch {

namespace {

VkDeviceSize alignUp(VkDeviceSize v, VkDeviceSize a) { return (v + a - 1) / a * a; }

struct FreeRange {
    VkDeviceSize offset;
    VkDeviceSize size;
};

// One VkDeviceMemory, handed out first-fit from an offset-sorted free list.
struct Block {
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDeviceSize size = 0;
    uint32_t memoryType = 0;
    bool linear = true; // buffers and images never share a block (bufferImageGranularity)
    bool dedicated = false;
    void* mapped = nullptr;
    uint64_t hugePageBytes = 0; // of the mapping, advised to use transparent huge pages
    std::vector<FreeRange> free;
    uint32_t live = 0;

    bool tryAllocate(VkDeviceSize size, VkDeviceSize alignment, VkDeviceSize& outOffset) {
        for (size_t i = 0; i < free.size(); ++i) {
            FreeRange& r = free[i];
            VkDeviceSize start = alignUp(r.offset, alignment);
            if (start + size > r.offset + r.size) continue;
            VkDeviceSize end = start + size;
            VkDeviceSize rangeEnd = r.offset + r.size;
            FreeRange before{r.offset, start - r.offset};
            FreeRange after{end, rangeEnd - end};
            free.erase(free.begin() + static_cast<ptrdiff_t>(i));
            if (after.size) free.insert(free.begin() + static_cast<ptrdiff_t>(i), after);
            if (before.size) free.insert(free.begin() + static_cast<ptrdiff_t>(i), before);
            outOffset = start;
            ++live;
            return true;
        }
        return false;
    }

    void release(VkDeviceSize offset, VkDeviceSize size) {
        auto it = std::lower_bound(free.begin(), free.end(), offset,
                                   [](const FreeRange& r, VkDeviceSize o) { return r.offset < o; });
        it = free.insert(it, FreeRange{offset, size});
        // Coalesce with neighbours so the block does not fragment into slivers.
        if (it + 1 != free.end() && it->offset + it->size == (it + 1)->offset) {
            it->size += (it + 1)->size;
            free.erase(it + 1);
        }
        if (it != free.begin() && (it - 1)->offset + (it - 1)->size == it->offset) {
            (it - 1)->size += it->size;
            free.erase(it);
        }
        --live;
    }
};

// Bytes of [mapped, mapped + size) that the kernel was asked to back with
// transparent huge pages: the 2 MiB-aligned interior, before anything
// touched it. Only for CPU implementations (lavapipe, SwiftShader), where
// device memory is the process's own anonymous memory and every pass walks
// tens of MiB of it in scattered order. With 4 KiB pages those accesses miss
// the TLB, and a page walk under a hypervisor's nested paging costs far more
// than the access; most hosts default to huge pages only where madvise asks.
// A voxelizer frame on lavapipe in a busy VM took 135 ms with 4 KiB pages and
// 77 ms with huge pages (docs/design-notes/2026-11-30-huge-pages.md).
// PYRAMARCH_HUGE_PAGES=0 turns it off, for measuring.
uint64_t adviseHugePages(const Device& device, void* mapped, VkDeviceSize size) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (!mapped || device.properties().deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU) return 0;
    if (const char* env = std::getenv("PYRAMARCH_HUGE_PAGES"); env && std::strcmp(env, "0") == 0) return 0;
    constexpr uintptr_t kHugePage = uintptr_t(2) << 20;
    const uintptr_t first = reinterpret_cast<uintptr_t>(mapped);
    const uintptr_t begin = (first + kHugePage - 1) & ~(kHugePage - 1);
    const uintptr_t end = (first + size) & ~(kHugePage - 1);
    if (end <= begin) return 0;
    // Only advice: a kernel without THP refuses it, one in mode "never"
    // accepts and ignores it; either way the memory works as before.
    if (madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE) != 0) return 0;
    return end - begin;
#else
    (void)device;
    (void)mapped;
    (void)size;
    return 0;
#endif
}

} // namespace

struct Allocator::Impl {
    mutable std::mutex mutex;
    std::vector<Block> blocks; // index = Allocation::block; memory == null marks a freed slot
    uint32_t liveAllocations = 0;
    uint64_t allocatedBytes = 0;
    uint64_t budget = 0;
    uint64_t blockBytes() const {
        uint64_t total = 0;
        for (const Block& b : blocks)
            if (b.memory) total += b.size;
        return total;
    }
};

void Allocator::setBudget(uint64_t bytes) {
    std::lock_guard lock(impl_->mutex);
    impl_->budget = bytes;
}

uint64_t Allocator::budget() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->budget;
}

Allocator::Allocator(Device& device) : device_(device), impl_(std::make_unique<Impl>()) {}

Allocator::~Allocator() {
    const VolkDeviceTable& vk = device_.vk();
    for (Block& b : impl_->blocks)
        if (b.memory) vk.vkFreeMemory(device_.device(), b.memory, nullptr);
}

AllocatorStats Allocator::stats() const {
    std::lock_guard lock(impl_->mutex);
    AllocatorStats s;
    for (const Block& b : impl_->blocks)
        if (b.memory) {
            ++s.deviceMemoryBlocks;
            s.blockBytes += b.size;
            s.hugePageBytes += b.hugePageBytes;
        }
    s.liveAllocations = impl_->liveAllocations;
    s.allocatedBytes = impl_->allocatedBytes;
    return s;
}

uint32_t Allocator::findMemoryType(uint32_t typeBits, MemoryUsage usage) const {
    const VkPhysicalDeviceMemoryProperties& mp = device_.memoryProperties();
    VkMemoryPropertyFlags required = 0, preferred = 0, avoided = 0;
    switch (usage) {
    case MemoryUsage::DeviceLocal:
        preferred = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
        avoided = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
        break;
    case MemoryUsage::Upload:
        required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        avoided = VK_MEMORY_PROPERTY_HOST_CACHED_BIT; // write-combined is faster for streaming writes
        break;
    case MemoryUsage::Readback:
        required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
        preferred = VK_MEMORY_PROPERTY_HOST_CACHED_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        break;
    }
    uint32_t best = UINT32_MAX;
    int bestScore = -1;
    for (uint32_t i = 0; i < mp.memoryTypeCount; ++i) {
        if (!(typeBits & (1u << i))) continue;
        VkMemoryPropertyFlags flags = mp.memoryTypes[i].propertyFlags;
        if ((flags & required) != required) continue;
        if (flags & VK_MEMORY_PROPERTY_PROTECTED_BIT) continue;
        int score = __builtin_popcount(flags & preferred) * 2 + ((flags & avoided) ? 0 : 1);
        if (score > bestScore) {
            bestScore = score;
            best = i;
        }
    }
    return best;
}

Result<Allocation> Allocator::allocate(const VkMemoryRequirements& req, MemoryUsage usage, bool linear) {
    uint32_t type = findMemoryType(req.memoryTypeBits, usage);
    if (type == UINT32_MAX) return Status::error(ErrorCode::Unsupported, "no memory type fits the request");
    const VolkDeviceTable& vk = device_.vk();
    const bool hostVisible =
        device_.memoryProperties().memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
    std::lock_guard lock(impl_->mutex);
    auto finish = [&](uint32_t blockIndex, VkDeviceSize offset) {
        Block& b = impl_->blocks[blockIndex];
        Allocation a;
        a.block = blockIndex;
        a.memoryType = type;
        a.offset = offset;
        a.size = req.size;
        a.memory = b.memory;
        a.mapped = b.mapped ? static_cast<char*>(b.mapped) + offset : nullptr;
        ++impl_->liveAllocations;
        impl_->allocatedBytes += req.size;
        return a;
    };
    const bool dedicated = req.size > kBlockSize / 2;
    if (!dedicated) {
        for (uint32_t i = 0; i < impl_->blocks.size(); ++i) {
            Block& b = impl_->blocks[i];
            if (!b.memory || b.dedicated || b.memoryType != type || b.linear != linear) continue;
            VkDeviceSize offset;
            if (b.tryAllocate(req.size, req.alignment, offset)) return finish(i, offset);
        }
    }
    Block block;
    block.size = dedicated ? req.size : kBlockSize;
    if (impl_->budget && impl_->blockBytes() + block.size > impl_->budget) {
        // A smaller block may still fit the budget for a small request.
        if (!dedicated && impl_->blockBytes() + req.size + req.alignment <= impl_->budget)
            block.size = impl_->budget - impl_->blockBytes();
        else
            return Status::error(ErrorCode::OutOfMemory,
                                 "allocating " + std::to_string(req.size) + " bytes exceeds the allocator budget of " +
                                     std::to_string(impl_->budget) + " bytes (" + std::to_string(impl_->blockBytes()) +
                                     " in use)",
                                 VK_ERROR_OUT_OF_DEVICE_MEMORY);
    }
    block.memoryType = type;
    block.linear = linear;
    block.dedicated = dedicated;
    VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    mai.allocationSize = block.size;
    mai.memoryTypeIndex = type;
    VkResult r = vk.vkAllocateMemory(device_.device(), &mai, nullptr, &block.memory);
    if (r != VK_SUCCESS)
        return Status::error(Status::codeOf(r),
                             "vkAllocateMemory of " + std::to_string(block.size) + " bytes failed: " + vkResultName(r),
                             r);
    if (hostVisible) {
        r = vk.vkMapMemory(device_.device(), block.memory, 0, VK_WHOLE_SIZE, 0, &block.mapped);
        if (r != VK_SUCCESS) {
            vk.vkFreeMemory(device_.device(), block.memory, nullptr);
            return Status::error(Status::codeOf(r), "vkMapMemory failed: " + vkResultName(r), r);
        }
        block.hugePageBytes = adviseHugePages(device_, block.mapped, block.size);
    }
    block.free.push_back({0, block.size});
    VkDeviceSize offset = 0;
    block.tryAllocate(req.size, req.alignment, offset);
    // Reuse a freed slot so Allocation::block indices stay small.
    uint32_t index = UINT32_MAX;
    for (uint32_t i = 0; i < impl_->blocks.size(); ++i)
        if (!impl_->blocks[i].memory) {
            index = i;
            break;
        }
    if (index == UINT32_MAX) {
        index = static_cast<uint32_t>(impl_->blocks.size());
        impl_->blocks.push_back(std::move(block));
    } else {
        impl_->blocks[index] = std::move(block);
    }
    return finish(index, offset);
}

void Allocator::free(Allocation& a) {
    if (a.block == UINT32_MAX) return;
    std::lock_guard lock(impl_->mutex);
    Block& b = impl_->blocks[a.block];
    b.release(a.offset, a.size);
    --impl_->liveAllocations;
    impl_->allocatedBytes -= a.size;
    // Dedicated blocks go at once; shared blocks go when empty so a
    // create/destroy loop does not keep calling vkAllocateMemory.
    if (b.live == 0 && b.dedicated) {
        device_.vk().vkFreeMemory(device_.device(), b.memory, nullptr);
        b = Block{};
    }
    a = Allocation{};
}

// Non-coherent memory needs explicit flush/invalidate of whole atoms.
static bool mappedRange(const Device& device, const Allocation& a, VkMappedMemoryRange& range) {
    if (!a.mapped) return false;
    if (device.memoryProperties().memoryTypes[a.memoryType].propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)
        return false;
    range = {VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE};
    range.memory = a.memory;
    const VkDeviceSize atom = device.properties().limits.nonCoherentAtomSize;
    range.offset = a.offset / atom * atom;
    range.size = VK_WHOLE_SIZE;
    return true;
}

void Allocator::flush(const Allocation& a) const {
    VkMappedMemoryRange range;
    if (mappedRange(device_, a, range)) device_.vk().vkFlushMappedMemoryRanges(device_.device(), 1, &range);
}

void Allocator::invalidate(const Allocation& a) const {
    VkMappedMemoryRange range;
    if (mappedRange(device_, a, range)) device_.vk().vkInvalidateMappedMemoryRanges(device_.device(), 1, &range);
}

Result<Buffer> Allocator::createBuffer(const BufferCreateInfo& info) {
    if (info.size == 0)
        return Status::error(ErrorCode::InvalidArgument,
                             std::string("buffer '") + (info.name ? info.name : "") + "' has size 0");
    if (info.size > device_.limits().maxBufferSize)
        return Status::error(ErrorCode::DeviceLimit,
                             std::string("buffer '") + (info.name ? info.name : "") + "' of " +
                                 std::to_string(info.size) + " bytes exceeds the device's maxBufferSize " +
                                 std::to_string(device_.limits().maxBufferSize),
                             VK_ERROR_OUT_OF_DEVICE_MEMORY);
    const VolkDeviceTable& vk = device_.vk();
    VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bci.size = info.size;
    bci.usage = info.usage;
    bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    Buffer b;
    b.allocator_ = this;
    b.size_ = info.size;
    PYRAMARCH_VK_TRY(vk.vkCreateBuffer(device_.device(), &bci, nullptr, &b.buffer_),
                     std::string("vkCreateBuffer ") + (info.name ? info.name : ""));
    VkMemoryRequirements req;
    vk.vkGetBufferMemoryRequirements(device_.device(), b.buffer_, &req);
    auto a = allocate(req, info.memory, true);
    if (!a) return a.status().withContext(std::string("memory for buffer '") + (info.name ? info.name : "") + "': ");
    b.allocation_ = a.value();
    PYRAMARCH_VK_TRY(vk.vkBindBufferMemory(device_.device(), b.buffer_, b.allocation_.memory, b.allocation_.offset),
                     "vkBindBufferMemory");
    device_.setObjectName(VK_OBJECT_TYPE_BUFFER, reinterpret_cast<uint64_t>(b.buffer_), info.name);
    return b;
}

static VkImageAspectFlags aspectOf(VkFormat f) {
    switch (f) {
    case VK_FORMAT_D16_UNORM:
    case VK_FORMAT_X8_D24_UNORM_PACK32:
    case VK_FORMAT_D32_SFLOAT: return VK_IMAGE_ASPECT_DEPTH_BIT;
    case VK_FORMAT_D16_UNORM_S8_UINT:
    case VK_FORMAT_D24_UNORM_S8_UINT:
    case VK_FORMAT_D32_SFLOAT_S8_UINT: return VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT;
    case VK_FORMAT_S8_UINT: return VK_IMAGE_ASPECT_STENCIL_BIT;
    default: return VK_IMAGE_ASPECT_COLOR_BIT;
    }
}

Result<Image> Allocator::createImage(const ImageCreateInfo& info) {
    if (info.extent.width == 0 || info.extent.height == 0 || info.extent.depth == 0)
        return Status::error(ErrorCode::InvalidArgument,
                             std::string("image '") + (info.name ? info.name : "") + "' has a zero extent");
    const VolkDeviceTable& vk = device_.vk();
    VkImageCreateInfo ici{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    ici.imageType = info.type;
    ici.format = info.format;
    ici.extent = info.extent;
    ici.mipLevels = info.mipLevels;
    ici.arrayLayers = 1;
    ici.samples = info.samples;
    ici.tiling = VK_IMAGE_TILING_OPTIMAL;
    ici.usage = info.usage;
    ici.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    Image img;
    img.allocator_ = this;
    img.format_ = info.format;
    img.extent_ = info.extent;
    img.aspect_ = aspectOf(info.format);
    img.mipLevels_ = info.mipLevels;
    img.samples_ = info.samples;
    PYRAMARCH_VK_TRY(vk.vkCreateImage(device_.device(), &ici, nullptr, &img.image_),
                     std::string("vkCreateImage ") + (info.name ? info.name : ""));
    VkMemoryRequirements req;
    vk.vkGetImageMemoryRequirements(device_.device(), img.image_, &req);
    auto a = allocate(req, MemoryUsage::DeviceLocal, false);
    if (!a) return a.status().withContext(std::string("memory for image '") + (info.name ? info.name : "") + "': ");
    img.allocation_ = a.value();
    PYRAMARCH_VK_TRY(vk.vkBindImageMemory(device_.device(), img.image_, img.allocation_.memory, img.allocation_.offset),
                     "vkBindImageMemory");
    VkImageViewCreateInfo vci{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    vci.image = img.image_;
    vci.viewType = info.type == VK_IMAGE_TYPE_3D   ? VK_IMAGE_VIEW_TYPE_3D
                   : info.type == VK_IMAGE_TYPE_1D ? VK_IMAGE_VIEW_TYPE_1D
                                                   : VK_IMAGE_VIEW_TYPE_2D;
    vci.format = info.format;
    vci.subresourceRange = {img.aspect_, 0, info.mipLevels, 0, 1};
    PYRAMARCH_VK_TRY(vk.vkCreateImageView(device_.device(), &vci, nullptr, &img.view_), "vkCreateImageView");
    device_.setObjectName(VK_OBJECT_TYPE_IMAGE, reinterpret_cast<uint64_t>(img.image_), info.name);
    return img;
}

// ---- Buffer / Image RAII ----

Buffer::~Buffer() { reset(); }
Buffer::Buffer(Buffer&& o) noexcept { *this = std::move(o); }
Buffer& Buffer::operator=(Buffer&& o) noexcept {
    if (this != &o) {
        reset();
        allocator_ = o.allocator_;
        buffer_ = o.buffer_;
        size_ = o.size_;
        allocation_ = o.allocation_;
        o.buffer_ = VK_NULL_HANDLE;
        o.allocation_ = Allocation{};
        o.size_ = 0;
    }
    return *this;
}
void Buffer::reset() {
    if (!allocator_) return;
    if (buffer_) allocator_->device().vk().vkDestroyBuffer(allocator_->device().device(), buffer_, nullptr);
    allocator_->free(allocation_);
    buffer_ = VK_NULL_HANDLE;
    size_ = 0;
}
void Buffer::flush() const {
    if (allocator_) allocator_->flush(allocation_);
}
void Buffer::invalidate() const {
    if (allocator_) allocator_->invalidate(allocation_);
}

Image::~Image() { reset(); }
Image::Image(Image&& o) noexcept { *this = std::move(o); }
Image& Image::operator=(Image&& o) noexcept {
    if (this != &o) {
        reset();
        allocator_ = o.allocator_;
        image_ = o.image_;
        view_ = o.view_;
        format_ = o.format_;
        extent_ = o.extent_;
        aspect_ = o.aspect_;
        mipLevels_ = o.mipLevels_;
        samples_ = o.samples_;
        allocation_ = o.allocation_;
        o.image_ = VK_NULL_HANDLE;
        o.view_ = VK_NULL_HANDLE;
        o.allocation_ = Allocation{};
    }
    return *this;
}
void Image::reset() {
    if (!allocator_) return;
    const VolkDeviceTable& vk = allocator_->device().vk();
    VkDevice d = allocator_->device().device();
    if (view_) vk.vkDestroyImageView(d, view_, nullptr);
    if (image_) vk.vkDestroyImage(d, image_, nullptr);
    allocator_->free(allocation_);
    view_ = VK_NULL_HANDLE;
    image_ = VK_NULL_HANDLE;
}

} // namespace pyramarch
