#include "alloc_failure_hook.h"

#include <vulkan/vulkan.h>

#include <cstring>

namespace pyramarch::test {

std::atomic<int64_t> AllocFailure::failAt{-1};
std::atomic<int64_t> AllocFailure::calls{0};
std::atomic<int64_t> AllocFailure::fired{0};
std::atomic<int64_t> AllocFailure::live{0};

namespace {

PFN_vkGetDeviceProcAddr g_realGetDeviceProcAddr = nullptr;

bool inject() {
    const int64_t n = AllocFailure::calls++;
    if (n != AllocFailure::failAt.load()) return false;
    ++AllocFailure::fired;
    return true;
}

#define PM_CREATE_HOOK(Name, Info, Handle)                                                                             \
    PFN_vk##Name real##Name = nullptr;                                                                                 \
    VKAPI_ATTR VkResult VKAPI_CALL hook##Name(VkDevice d, const Info* info, const VkAllocationCallbacks* a,            \
                                              Handle* out) {                                                           \
        if (inject()) return VK_ERROR_OUT_OF_DEVICE_MEMORY;                                                            \
        const VkResult r = real##Name(d, info, a, out);                                                                \
        if (r == VK_SUCCESS) ++AllocFailure::live;                                                                     \
        return r;                                                                                                      \
    }
#define PM_DESTROY_HOOK(Name, Handle)                                                                                  \
    PFN_vk##Name real##Name = nullptr;                                                                                 \
    VKAPI_ATTR void VKAPI_CALL hook##Name(VkDevice d, Handle h, const VkAllocationCallbacks* a) {                      \
        if (h != VK_NULL_HANDLE) --AllocFailure::live;                                                                 \
        real##Name(d, h, a);                                                                                           \
    }

PM_CREATE_HOOK(CreateBuffer, VkBufferCreateInfo, VkBuffer)
PM_CREATE_HOOK(CreateImage, VkImageCreateInfo, VkImage)
PM_CREATE_HOOK(CreateBufferView, VkBufferViewCreateInfo, VkBufferView)
PM_CREATE_HOOK(CreateImageView, VkImageViewCreateInfo, VkImageView)
PM_CREATE_HOOK(CreateDescriptorPool, VkDescriptorPoolCreateInfo, VkDescriptorPool)
PM_CREATE_HOOK(CreateDescriptorSetLayout, VkDescriptorSetLayoutCreateInfo, VkDescriptorSetLayout)
PM_CREATE_HOOK(CreatePipelineLayout, VkPipelineLayoutCreateInfo, VkPipelineLayout)
PM_CREATE_HOOK(CreateShaderModule, VkShaderModuleCreateInfo, VkShaderModule)
PM_CREATE_HOOK(CreateQueryPool, VkQueryPoolCreateInfo, VkQueryPool)
PM_CREATE_HOOK(CreateCommandPool, VkCommandPoolCreateInfo, VkCommandPool)
PM_CREATE_HOOK(CreateFence, VkFenceCreateInfo, VkFence)
PM_DESTROY_HOOK(DestroyBuffer, VkBuffer)
PM_DESTROY_HOOK(DestroyImage, VkImage)
PM_DESTROY_HOOK(DestroyBufferView, VkBufferView)
PM_DESTROY_HOOK(DestroyImageView, VkImageView)
PM_DESTROY_HOOK(DestroyDescriptorPool, VkDescriptorPool)
PM_DESTROY_HOOK(DestroyDescriptorSetLayout, VkDescriptorSetLayout)
PM_DESTROY_HOOK(DestroyPipelineLayout, VkPipelineLayout)
PM_DESTROY_HOOK(DestroyShaderModule, VkShaderModule)
PM_DESTROY_HOOK(DestroyQueryPool, VkQueryPool)
PM_DESTROY_HOOK(DestroyCommandPool, VkCommandPool)
PM_DESTROY_HOOK(DestroyFence, VkFence)
PM_DESTROY_HOOK(DestroyPipeline, VkPipeline)
#undef PM_CREATE_HOOK
#undef PM_DESTROY_HOOK

// Memory: failed like the rest, not counted (the allocator keeps empty shared
// blocks for reuse; AllocatorStats says whether sub-allocations are returned).
PFN_vkAllocateMemory realAllocateMemory = nullptr;
VKAPI_ATTR VkResult VKAPI_CALL hookAllocateMemory(VkDevice d, const VkMemoryAllocateInfo* info,
                                                  const VkAllocationCallbacks* a, VkDeviceMemory* out) {
    if (inject()) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    return realAllocateMemory(d, info, a, out);
}

PFN_vkCreateComputePipelines realCreateComputePipelines = nullptr;
VKAPI_ATTR VkResult VKAPI_CALL hookCreateComputePipelines(VkDevice d, VkPipelineCache cache, uint32_t n,
                                                          const VkComputePipelineCreateInfo* infos,
                                                          const VkAllocationCallbacks* a, VkPipeline* out) {
    if (inject()) {
        for (uint32_t i = 0; i < n; ++i) out[i] = VK_NULL_HANDLE;
        return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    }
    const VkResult r = realCreateComputePipelines(d, cache, n, infos, a, out);
    for (uint32_t i = 0; i < n; ++i) AllocFailure::live += out[i] != VK_NULL_HANDLE;
    return r;
}
PFN_vkCreateGraphicsPipelines realCreateGraphicsPipelines = nullptr;
VKAPI_ATTR VkResult VKAPI_CALL hookCreateGraphicsPipelines(VkDevice d, VkPipelineCache cache, uint32_t n,
                                                           const VkGraphicsPipelineCreateInfo* infos,
                                                           const VkAllocationCallbacks* a, VkPipeline* out) {
    if (inject()) {
        for (uint32_t i = 0; i < n; ++i) out[i] = VK_NULL_HANDLE;
        return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    }
    const VkResult r = realCreateGraphicsPipelines(d, cache, n, infos, a, out);
    for (uint32_t i = 0; i < n; ++i) AllocFailure::live += out[i] != VK_NULL_HANDLE;
    return r;
}
PFN_vkAllocateDescriptorSets realAllocateDescriptorSets = nullptr;
VKAPI_ATTR VkResult VKAPI_CALL hookAllocateDescriptorSets(VkDevice d, const VkDescriptorSetAllocateInfo* info,
                                                          VkDescriptorSet* out) {
    if (inject()) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    return realAllocateDescriptorSets(d, info, out);
}
PFN_vkAllocateCommandBuffers realAllocateCommandBuffers = nullptr;
VKAPI_ATTR VkResult VKAPI_CALL hookAllocateCommandBuffers(VkDevice d, const VkCommandBufferAllocateInfo* info,
                                                          VkCommandBuffer* out) {
    if (inject()) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    return realAllocateCommandBuffers(d, info, out);
}

struct Hooked {
    const char* name;
    PFN_vkVoidFunction hook;
    PFN_vkVoidFunction* real;
};

#define PM_HOOK(Name)                                                                                                  \
    Hooked {                                                                                                           \
        "vk" #Name, reinterpret_cast<PFN_vkVoidFunction>(&hook##Name),                                                 \
            reinterpret_cast<PFN_vkVoidFunction*>(&real##Name)                                                         \
    }
const Hooked kHooked[] = {
    PM_HOOK(CreateBuffer),
    PM_HOOK(CreateImage),
    PM_HOOK(CreateBufferView),
    PM_HOOK(CreateImageView),
    PM_HOOK(CreateDescriptorPool),
    PM_HOOK(CreateDescriptorSetLayout),
    PM_HOOK(CreatePipelineLayout),
    PM_HOOK(CreateShaderModule),
    PM_HOOK(CreateQueryPool),
    PM_HOOK(CreateCommandPool),
    PM_HOOK(CreateFence),
    PM_HOOK(AllocateMemory),
    PM_HOOK(DestroyBuffer),
    PM_HOOK(DestroyImage),
    PM_HOOK(DestroyBufferView),
    PM_HOOK(DestroyImageView),
    PM_HOOK(DestroyDescriptorPool),
    PM_HOOK(DestroyDescriptorSetLayout),
    PM_HOOK(DestroyPipelineLayout),
    PM_HOOK(DestroyShaderModule),
    PM_HOOK(DestroyQueryPool),
    PM_HOOK(DestroyCommandPool),
    PM_HOOK(DestroyFence),
    PM_HOOK(DestroyPipeline),
    PM_HOOK(CreateComputePipelines),
    PM_HOOK(CreateGraphicsPipelines),
    PM_HOOK(AllocateDescriptorSets),
    PM_HOOK(AllocateCommandBuffers),
};
#undef PM_HOOK

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL hookGetDeviceProcAddr(VkDevice device, const char* name) {
    for (const Hooked& h : kHooked)
        if (!std::strcmp(name, h.name)) {
            *h.real = g_realGetDeviceProcAddr(device, name);
            return *h.real ? h.hook : nullptr;
        }
    return g_realGetDeviceProcAddr(device, name);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL hookGetInstanceProcAddr(VkInstance instance, const char* name) {
    if (!g_realGetDeviceProcAddr)
        g_realGetDeviceProcAddr =
            reinterpret_cast<PFN_vkGetDeviceProcAddr>(vkGetInstanceProcAddr(instance, "vkGetDeviceProcAddr"));
    if (!std::strcmp(name, "vkGetDeviceProcAddr")) return reinterpret_cast<PFN_vkVoidFunction>(&hookGetDeviceProcAddr);
    return vkGetInstanceProcAddr(instance, name);
}

} // namespace

std::unique_ptr<Device> adoptWithAllocFailureHook(Device& device, std::string& error) {
    AdoptInfo info;
    info.instance = device.instance();
    info.physicalDevice = device.physicalDevice();
    info.device = device.device();
    info.queueFamilyIndex = device.queueFamily();
    info.queue = device.queue();
    info.getInstanceProcAddr = &hookGetInstanceProcAddr;
    info.synchronization2Enabled = true;
    info.dynamicRenderingEnabled = true;
    info.debugUtilsEnabled = device.limits().debugUtils;
    info.pushDescriptorEnabled = device.limits().pushDescriptors;
    info.enabledFeatures.geometryShader = device.limits().geometryShader;
    info.enabledFeatures.fragmentStoresAndAtomics = device.limits().fragmentStoresAndAtomics;
    info.requirements.geometryShader = device.limits().geometryShader;
    AllocFailure::arm(-1);
    auto adopted = Device::adopt(info);
    if (!adopted) {
        error = adopted.message();
        return nullptr;
    }
    if (!realCreateBuffer || !realAllocateMemory) {
        error = "the engine did not load its functions through the hook";
        return nullptr;
    }
    return std::move(adopted).value();
}

} // namespace pyramarch::test
