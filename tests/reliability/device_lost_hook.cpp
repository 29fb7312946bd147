#include "device_lost_hook.h"

#include <vulkan/vulkan.h>

#include <cstring>
#include <string>

namespace pyramarch::test {

std::atomic<Inject> g_inject{Inject::None};
std::atomic<int> g_injected{0};

namespace {

PFN_vkGetDeviceProcAddr g_realGetDeviceProcAddr = nullptr;
PFN_vkQueueSubmit g_realQueueSubmit = nullptr;
PFN_vkWaitForFences g_realWaitForFences = nullptr;

VKAPI_ATTR VkResult VKAPI_CALL hookQueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo* submits,
                                               VkFence fence) {
    if (g_inject == Inject::Submit) {
        ++g_injected;
        return VK_ERROR_DEVICE_LOST;
    }
    return g_realQueueSubmit(queue, count, submits, fence);
}

VKAPI_ATTR VkResult VKAPI_CALL hookWaitForFences(VkDevice device, uint32_t count, const VkFence* fences, VkBool32 all,
                                                 uint64_t timeout) {
    const VkResult r = g_realWaitForFences(device, count, fences, all, timeout);
    if (g_inject == Inject::Wait) {
        ++g_injected;
        return VK_ERROR_DEVICE_LOST;
    }
    return r;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL hookGetDeviceProcAddr(VkDevice device, const char* name) {
    if (!std::strcmp(name, "vkQueueSubmit")) {
        g_realQueueSubmit = reinterpret_cast<PFN_vkQueueSubmit>(g_realGetDeviceProcAddr(device, name));
        return reinterpret_cast<PFN_vkVoidFunction>(&hookQueueSubmit);
    }
    if (!std::strcmp(name, "vkWaitForFences")) {
        g_realWaitForFences = reinterpret_cast<PFN_vkWaitForFences>(g_realGetDeviceProcAddr(device, name));
        return reinterpret_cast<PFN_vkVoidFunction>(&hookWaitForFences);
    }
    return g_realGetDeviceProcAddr(device, name);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL hookGetInstanceProcAddr(VkInstance instance, const char* name) {
    if (!std::strcmp(name, "vkGetDeviceProcAddr")) {
        g_realGetDeviceProcAddr = reinterpret_cast<PFN_vkGetDeviceProcAddr>(vkGetInstanceProcAddr(instance, name));
        return reinterpret_cast<PFN_vkVoidFunction>(&hookGetDeviceProcAddr);
    }
    // Device functions fetched through the instance dispatch too.
    if (!std::strcmp(name, "vkQueueSubmit") || !std::strcmp(name, "vkWaitForFences")) {
        if (!g_realGetDeviceProcAddr)
            g_realGetDeviceProcAddr =
                reinterpret_cast<PFN_vkGetDeviceProcAddr>(vkGetInstanceProcAddr(instance, "vkGetDeviceProcAddr"));
    }
    return vkGetInstanceProcAddr(instance, name);
}

} // namespace

std::unique_ptr<Device> adoptWithLossHook(Device& device, std::string& error) {
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
    info.enabledFeatures.geometryShader = device.limits().geometryShader;
    info.enabledFeatures.fragmentStoresAndAtomics = device.limits().fragmentStoresAndAtomics;
    info.requirements.geometryShader = device.limits().geometryShader;
    auto adopted = Device::adopt(info);
    if (!adopted) {
        error = adopted.message();
        return nullptr;
    }
    if (!g_realQueueSubmit || !g_realWaitForFences) {
        error = "the engine did not load its queue functions through the hook";
        return nullptr;
    }
    return std::move(adopted).value();
}

} // namespace pyramarch::test
