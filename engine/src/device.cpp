#include "pyramarch/engine/device.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string_view>

#include "pyramarch/engine/memory.h"
#include "pyramarch/engine/vulkan_functions.h"
#include "vk_check.h"

namespace pyramarch {

struct Device::Impl {
    ValidationCallback callback;
    std::atomic<uint32_t> messageCount{0};
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    bool ownsInstance = false;
};

namespace {

// volk's loader globals are private to the module but still shared by every
// Device of the process; they are only touched under this lock while loading.
// The system loader's entry point is kept apart: an adopted device's
// getInstanceProcAddr (the host's own loader) never becomes the one a later
// Device::create() or enumerate() goes through.
std::mutex g_loaderMutex;
PFN_vkGetInstanceProcAddr g_systemGipa = nullptr;

Result<PFN_vkGetInstanceProcAddr> systemLoader() {
    std::lock_guard lock(g_loaderMutex);
    if (!g_systemGipa) {
        VkResult r = volkInitialize();
        if (r != VK_SUCCESS)
            return Status::error(ErrorCode::NotFound,
                                 "Vulkan loader (libvulkan.so.1) not found: install the Vulkan loader (libvulkan1)", r);
        g_systemGipa = vkGetInstanceProcAddr;
    }
    return g_systemGipa;
}

void loadInstanceFunctions(InstanceFunctions& f, PFN_vkGetInstanceProcAddr gipa, VkInstance instance) {
    f.getInstanceProcAddr = gipa;
#define LOAD(member, name) f.member = reinterpret_cast<PFN_##name>(gipa(instance, #name))
    LOAD(getDeviceProcAddr, vkGetDeviceProcAddr);
    LOAD(destroyInstance, vkDestroyInstance);
    LOAD(enumeratePhysicalDevices, vkEnumeratePhysicalDevices);
    LOAD(getPhysicalDeviceProperties, vkGetPhysicalDeviceProperties);
    LOAD(getPhysicalDeviceProperties2, vkGetPhysicalDeviceProperties2);
    LOAD(getPhysicalDeviceFeatures, vkGetPhysicalDeviceFeatures);
    LOAD(getPhysicalDeviceFeatures2, vkGetPhysicalDeviceFeatures2);
    LOAD(getPhysicalDeviceMemoryProperties, vkGetPhysicalDeviceMemoryProperties);
    LOAD(getPhysicalDeviceQueueFamilyProperties, vkGetPhysicalDeviceQueueFamilyProperties);
    LOAD(getPhysicalDeviceFormatProperties, vkGetPhysicalDeviceFormatProperties);
    LOAD(enumerateDeviceExtensionProperties, vkEnumerateDeviceExtensionProperties);
    LOAD(createDevice, vkCreateDevice);
    LOAD(getPhysicalDeviceSurfaceSupportKHR, vkGetPhysicalDeviceSurfaceSupportKHR);
    LOAD(getPhysicalDeviceSurfaceCapabilitiesKHR, vkGetPhysicalDeviceSurfaceCapabilitiesKHR);
    LOAD(getPhysicalDeviceSurfaceFormatsKHR, vkGetPhysicalDeviceSurfaceFormatsKHR);
    LOAD(getPhysicalDeviceSurfacePresentModesKHR, vkGetPhysicalDeviceSurfacePresentModesKHR);
    LOAD(destroySurfaceKHR, vkDestroySurfaceKHR);
#undef LOAD
}

void loadDebugUtils(InstanceFunctions& f, VkInstance instance) {
#define LOAD(member, name) f.member = reinterpret_cast<PFN_##name>(f.getInstanceProcAddr(instance, #name))
    LOAD(createDebugUtilsMessenger, vkCreateDebugUtilsMessengerEXT);
    LOAD(destroyDebugUtilsMessenger, vkDestroyDebugUtilsMessengerEXT);
    LOAD(cmdBeginDebugUtilsLabel, vkCmdBeginDebugUtilsLabelEXT);
    LOAD(cmdEndDebugUtilsLabel, vkCmdEndDebugUtilsLabelEXT);
    LOAD(setDebugUtilsObjectName, vkSetDebugUtilsObjectNameEXT);
#undef LOAD
}

// Fills `table` through this instance's vkGetDeviceProcAddr. volk reads that
// entry point from its (private) global, which is set for the call and
// restored after it, so no Device leaves its loader behind for the next.
void loadDeviceTable(VolkDeviceTable& table, const InstanceFunctions& vki, VkDevice device) {
    std::lock_guard lock(g_loaderMutex);
    const PFN_vkGetDeviceProcAddr saved = vkGetDeviceProcAddr;
    vkGetDeviceProcAddr = vki.getDeviceProcAddr;
    volkLoadDeviceTable(&table, device);
    vkGetDeviceProcAddr = saved;
}

VKAPI_ATTR VkBool32 VKAPI_CALL debugCallback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                             VkDebugUtilsMessageTypeFlagsEXT,
                                             const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
    auto* impl = static_cast<Device::Impl*>(user);
    ValidationMessage m;
    m.severity = severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT     ? MessageSeverity::Error
                 : severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT ? MessageSeverity::Warning
                 : severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT    ? MessageSeverity::Info
                                                                               : MessageSeverity::Verbose;
    m.idName = data->pMessageIdName ? data->pMessageIdName : "";
    m.text = data->pMessage ? data->pMessage : "";
    if (m.severity >= MessageSeverity::Warning) impl->messageCount.fetch_add(1);
    if (impl->callback) {
        impl->callback(m);
    } else if (m.severity >= MessageSeverity::Warning) {
        std::fprintf(stderr, "pyramarch: validation %s: %s\n", m.idName.c_str(), m.text.c_str());
    }
    return VK_FALSE;
}

bool hasExtension(const std::vector<VkExtensionProperties>& exts, const char* name) {
    return std::any_of(exts.begin(), exts.end(),
                       [&](const VkExtensionProperties& e) { return std::strcmp(e.extensionName, name) == 0; });
}

int typeRank(VkPhysicalDeviceType t) {
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 4;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 3;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 1;
    default: return 0;
    }
}

// A queue family that can do graphics and compute (and so transfer).
int findUniversalFamily(const InstanceFunctions& vki, VkPhysicalDevice pd) {
    uint32_t n = 0;
    vki.getPhysicalDeviceQueueFamilyProperties(pd, &n, nullptr);
    std::vector<VkQueueFamilyProperties> families(n);
    vki.getPhysicalDeviceQueueFamilyProperties(pd, &n, families.data());
    for (uint32_t i = 0; i < n; ++i) {
        constexpr VkQueueFlags need = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
        if ((families[i].queueFlags & need) == need) return static_cast<int>(i);
    }
    return -1;
}

struct SupportedFeatures {
    VkPhysicalDeviceFeatures2 core{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    VkPhysicalDeviceVulkan11Features v11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceVulkan13Features v13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    void chain() {
        core.pNext = &v11;
        v11.pNext = &v12;
        v12.pNext = &v13;
        v13.pNext = nullptr;
    }
};

// Reads properties and limits shared by created and adopted devices.
void fillLimits(const InstanceFunctions& vki, VkPhysicalDevice pd, uint32_t family, DeviceLimits& limits,
                VkPhysicalDeviceProperties& props, VkPhysicalDeviceMemoryProperties& mem, std::string& driverInfo) {
    VkPhysicalDeviceVulkan11Properties p11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES};
    VkPhysicalDeviceVulkan12Properties p12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES};
    VkPhysicalDeviceVulkan13Properties p13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_PROPERTIES};
    VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    p2.pNext = &p11;
    p11.pNext = &p12;
    p12.pNext = &p13;
    vki.getPhysicalDeviceProperties2(pd, &p2);
    props = p2.properties;
    vki.getPhysicalDeviceMemoryProperties(pd, &mem);
    const VkPhysicalDeviceLimits& l = props.limits;
    limits.deviceType = props.deviceType;
    for (int i = 0; i < 3; ++i) {
        limits.maxComputeWorkGroupCount[i] = l.maxComputeWorkGroupCount[i];
        limits.maxComputeWorkGroupSize[i] = l.maxComputeWorkGroupSize[i];
    }
    limits.maxComputeWorkGroupInvocations = l.maxComputeWorkGroupInvocations;
    limits.maxComputeSharedMemorySize = l.maxComputeSharedMemorySize;
    limits.maxStorageBufferRange = l.maxStorageBufferRange;
    limits.maxTexelBufferElements = l.maxTexelBufferElements;
    limits.maxBufferSize = p13.maxBufferSize ? p13.maxBufferSize : p11.maxMemoryAllocationSize;
    limits.maxMemoryAllocationSize = p11.maxMemoryAllocationSize;
    limits.minStorageBufferOffsetAlignment = l.minStorageBufferOffsetAlignment;
    limits.minUniformBufferOffsetAlignment = l.minUniformBufferOffsetAlignment;
    limits.maxUniformBufferRange = l.maxUniformBufferRange;
    limits.subgroupSize = p11.subgroupSize;
    limits.subgroupStages = p11.subgroupSupportedStages;
    limits.subgroupOperations = p11.subgroupSupportedOperations;
    limits.timestampPeriodNs = l.timestampPeriod;
    uint32_t n = 0;
    vki.getPhysicalDeviceQueueFamilyProperties(pd, &n, nullptr);
    std::vector<VkQueueFamilyProperties> families(n);
    vki.getPhysicalDeviceQueueFamilyProperties(pd, &n, families.data());
    limits.timestampsSupported = l.timestampComputeAndGraphics && family < n && families[family].timestampValidBits > 0;
    driverInfo = std::string(p12.driverName) + " " + p12.driverInfo;
}

// Records what the device runs with; the same for created and adopted devices.
void fillEnabledFeatures(DeviceLimits& L, const VkPhysicalDeviceFeatures& f, bool conservative, bool storage8,
                         bool storage16, bool subgroupSizeControl, bool debugUtils) {
    L.geometryShader = f.geometryShader;
    L.fillModeNonSolid = f.fillModeNonSolid;
    L.conservativeRasterization = conservative;
    L.fragmentStoresAndAtomics = f.fragmentStoresAndAtomics;
    L.vertexPipelineStoresAndAtomics = f.vertexPipelineStoresAndAtomics;
    L.shaderInt16 = f.shaderInt16;
    L.shaderInt64 = f.shaderInt64;
    L.shaderFloat64 = f.shaderFloat64;
    L.storageBuffer8BitAccess = storage8;
    L.storageBuffer16BitAccess = storage16;
    L.subgroupSizeControl = subgroupSizeControl;
    L.debugUtils = debugUtils;
}

// Push descriptors: enabled (created: present and wanted; adopted: the host
// says so) and how many bindings a pushed set may have.
void setPushDescriptors(const InstanceFunctions& vki, VkPhysicalDevice pd, DeviceLimits& L, bool enabled) {
    L.pushDescriptors = enabled;
    L.maxPushDescriptors = 0;
    if (!enabled) return;
    VkPhysicalDevicePushDescriptorPropertiesKHR push{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PUSH_DESCRIPTOR_PROPERTIES_KHR};
    VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    p2.pNext = &push;
    vki.getPhysicalDeviceProperties2(pd, &p2);
    L.maxPushDescriptors = push.maxPushDescriptors;
}

std::string requirementErrors(const VkPhysicalDeviceFeatures& f, bool sync2, const DeviceRequirements& req) {
    std::string missing;
    auto need = [&](bool have, const char* name) {
        if (!have) missing += std::string(missing.empty() ? "" : ", ") + name;
    };
    need(sync2, "synchronization2 (Vulkan 1.3)");
    if (req.geometryShader) need(f.geometryShader, "geometryShader");
    if (req.fillModeNonSolid) need(f.fillModeNonSolid, "fillModeNonSolid");
    return missing;
}

// PYRAMARCH_GPU_AV: unset keeps the create-info's choice; "", "0", "false",
// "off" force GPU-assisted validation off; anything else turns it on.
bool gpuAssistedRequested(bool fromInfo) {
    const char* env = std::getenv("PYRAMARCH_GPU_AV");
    if (!env) return fromInfo;
    const std::string_view v(env);
    return !(v.empty() || v == "0" || v == "false" || v == "off" || v == "OFF" || v == "FALSE");
}

bool namesGpuAv(std::string_view enables) {
    return enables.find("VK_VALIDATION_FEATURE_ENABLE_GPU_ASSISTED_EXT") != std::string_view::npos;
}

// The settings file the validation layer reads, resolved as the 1.3.239
// layer does: VK_LAYER_SETTINGS_PATH (a file, or a folder holding
// vk_layer_settings.txt), else vkconfig's override in
// $XDG_DATA_HOME (or ~/.local/share)/vulkan/settings.d, else the working folder.
std::string layerSettingsFile() {
    auto exists = [](const std::string& path) { return std::ifstream(path).good(); };
    if (const char* env = std::getenv("VK_LAYER_SETTINGS_PATH"); env && *env) {
        std::string path = env;
        if (exists(path + "/vk_layer_settings.txt")) return path + "/vk_layer_settings.txt";
        return path;
    }
    std::string data;
    if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg)
        data = xdg;
    else if (const char* home = std::getenv("HOME"); home && *home)
        data = std::string(home) + "/.local/share";
    if (!data.empty() && exists(data + "/vulkan/settings.d/vk_layer_settings.txt"))
        return data + "/vulkan/settings.d/vk_layer_settings.txt";
    return "vk_layer_settings.txt";
}

// GPU-assisted validation switched on the layer's own way: VK_LAYER_ENABLES,
// or khronos_validation.enables in the layer's settings file. The module
// cannot see a host's VkValidationFeaturesEXT; those hosts say so through
// AdoptInfo::pushDescriptorEnabled = false.
bool gpuAssistedValidationFromLayerSettings() {
    if (const char* env = std::getenv("VK_LAYER_ENABLES"); env && namesGpuAv(env)) return true;
    std::ifstream file(layerSettingsFile());
    std::string line;
    while (std::getline(file, line)) {
        const std::string_view v(line);
        const size_t start = v.find_first_not_of(" \t");
        if (start == std::string_view::npos || v[start] == '#') continue;
        const size_t eq = v.find('=');
        if (eq == std::string_view::npos) continue;
        std::string_view key = v.substr(start, eq - start);
        while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.remove_suffix(1);
        if (key == "khronos_validation.enables" && namesGpuAv(v.substr(eq + 1))) return true;
    }
    return false;
}

} // namespace

Device::Device()
    : table_(std::make_unique<VolkDeviceTable>()), instanceFunctions_(std::make_unique<InstanceFunctions>()),
      impl_(std::make_unique<Impl>()) {}

Device::~Device() {
    if (device_ && table_->vkDeviceWaitIdle && !adopted_) table_->vkDeviceWaitIdle(device_);
    allocator_.reset(); // frees every block before the device goes
    if (!adopted_) {
        if (device_) table_->vkDestroyDevice(device_, nullptr);
        if (impl_->messenger) instanceFunctions_->destroyDebugUtilsMessenger(instance_, impl_->messenger, nullptr);
        if (instance_ && impl_->ownsInstance) instanceFunctions_->destroyInstance(instance_, nullptr);
    }
}

uint32_t Device::validationMessageCount() const { return impl_->messageCount.load(); }

void Device::setObjectName(VkObjectType type, uint64_t handle, const char* name) const {
    if (!name || !limits_.debugUtils || !instanceFunctions_->setDebugUtilsObjectName) return;
    VkDebugUtilsObjectNameInfoEXT info{VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT};
    info.objectType = type;
    info.objectHandle = handle;
    info.pObjectName = name;
    instanceFunctions_->setDebugUtilsObjectName(device_, &info);
}

Result<std::vector<Device::PhysicalDeviceInfo>> Device::enumerate() {
    auto gipa = systemLoader();
    if (!gipa) return gipa.status();
    auto createInstance = reinterpret_cast<PFN_vkCreateInstance>(gipa.value()(nullptr, "vkCreateInstance"));
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.apiVersion = VK_API_VERSION_1_3;
    VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ci.pApplicationInfo = &app;
    VkInstance instance = VK_NULL_HANDLE;
    PYRAMARCH_VK_TRY(createInstance(&ci, nullptr, &instance), "vkCreateInstance");
    InstanceFunctions f;
    loadInstanceFunctions(f, gipa.value(), instance);
    uint32_t n = 0;
    f.enumeratePhysicalDevices(instance, &n, nullptr);
    std::vector<VkPhysicalDevice> pds(n);
    f.enumeratePhysicalDevices(instance, &n, pds.data());
    std::vector<PhysicalDeviceInfo> out;
    for (uint32_t i = 0; i < n; ++i) {
        VkPhysicalDeviceProperties p;
        f.getPhysicalDeviceProperties(pds[i], &p);
        out.push_back({i, p.deviceName, p.deviceType, p.apiVersion});
    }
    f.destroyInstance(instance, nullptr);
    return out;
}

Result<std::unique_ptr<Device>> Device::create(const DeviceCreateInfo& info) {
    auto gipaResult = systemLoader();
    if (!gipaResult) return gipaResult.status();
    PFN_vkGetInstanceProcAddr gipa = gipaResult.value();
    std::unique_ptr<Device> dev(new Device());
    dev->impl_->callback = info.validationCallback;
    InstanceFunctions& vki = *dev->instanceFunctions_;

    // Instance.
    auto enumerateInstanceExtensions = reinterpret_cast<PFN_vkEnumerateInstanceExtensionProperties>(
        gipa(nullptr, "vkEnumerateInstanceExtensionProperties"));
    auto enumerateLayers =
        reinterpret_cast<PFN_vkEnumerateInstanceLayerProperties>(gipa(nullptr, "vkEnumerateInstanceLayerProperties"));
    auto createInstance = reinterpret_cast<PFN_vkCreateInstance>(gipa(nullptr, "vkCreateInstance"));
    uint32_t n = 0;
    enumerateInstanceExtensions(nullptr, &n, nullptr);
    std::vector<VkExtensionProperties> instanceExts(n);
    enumerateInstanceExtensions(nullptr, &n, instanceExts.data());

    std::vector<const char*> extensions = info.instanceExtensions;
    for (const char* e : extensions)
        if (!hasExtension(instanceExts, e))
            return Status::error(ErrorCode::Unsupported, std::string("instance extension ") + e + " is not available");
    const bool debugUtils = hasExtension(instanceExts, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    if (debugUtils) extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);

    std::vector<const char*> layers;
    if (info.enableValidation) {
        enumerateLayers(&n, nullptr);
        std::vector<VkLayerProperties> available(n);
        enumerateLayers(&n, available.data());
        bool found = std::any_of(available.begin(), available.end(), [](const VkLayerProperties& l) {
            return std::strcmp(l.layerName, "VK_LAYER_KHRONOS_validation") == 0;
        });
        if (!found)
            return Status::error(ErrorCode::Unsupported,
                                 "validation requested but VK_LAYER_KHRONOS_validation is not installed (Debian: "
                                 "vulkan-validationlayers)",
                                 VK_ERROR_LAYER_NOT_PRESENT);
        if (!debugUtils)
            return Status::error(ErrorCode::Unsupported,
                                 "validation requested but VK_EXT_debug_utils is not available");
        layers.push_back("VK_LAYER_KHRONOS_validation");
    }

    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = info.applicationName;
    app.pEngineName = "pyramarch";
    app.apiVersion = VK_API_VERSION_1_3;
    // Synchronization validation always; GPU-assisted validation on request.
    // The 1.3.239 layer (Debian 12) runs both together; only GPU-AV with
    // debug printf is refused, and the module never asks for printf.
    const bool gpuAv = info.enableValidation && gpuAssistedRequested(info.gpuAssistedValidation);
    // GPU-AV the layer turns on by itself (its environment or settings file)
    // gets the same treatment below, whoever loaded the layer.
    const bool gpuAvByLayer = gpuAssistedValidationFromLayerSettings();
    VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT,
                                              VK_VALIDATION_FEATURE_ENABLE_GPU_ASSISTED_EXT};
    VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
    features.enabledValidationFeatureCount = gpuAv ? 2 : 1;
    features.pEnabledValidationFeatures = enables;
    VkDebugUtilsMessengerCreateInfoEXT messengerInfo{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    messengerInfo.messageSeverity =
        VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    messengerInfo.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                                VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                                VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    messengerInfo.pfnUserCallback = debugCallback;
    messengerInfo.pUserData = dev->impl_.get();
    if (info.enableValidation) {
        features.pNext = &messengerInfo; // also catches messages of instance creation/destruction
    }
    VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ici.pNext = info.enableValidation ? &features : nullptr;
    ici.pApplicationInfo = &app;
    ici.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    ici.ppEnabledExtensionNames = extensions.data();
    ici.enabledLayerCount = static_cast<uint32_t>(layers.size());
    ici.ppEnabledLayerNames = layers.data();
    PYRAMARCH_VK_TRY(createInstance(&ici, nullptr, &dev->instance_), "vkCreateInstance (Vulkan 1.3)");
    dev->impl_->ownsInstance = true;
    loadInstanceFunctions(vki, gipa, dev->instance_);
    if (debugUtils) loadDebugUtils(vki, dev->instance_);
    if (info.enableValidation)
        PYRAMARCH_VK_TRY(vki.createDebugUtilsMessenger(dev->instance_, &messengerInfo, nullptr, &dev->impl_->messenger),
                         "vkCreateDebugUtilsMessengerEXT");

    // Physical device: explicit choice, else the best type.
    vki.enumeratePhysicalDevices(dev->instance_, &n, nullptr);
    std::vector<VkPhysicalDevice> pds(n);
    vki.enumeratePhysicalDevices(dev->instance_, &n, pds.data());
    if (pds.empty())
        return Status::error(ErrorCode::NotFound,
                             "no Vulkan physical device found (install mesa-vulkan-drivers for lavapipe)");
    std::string preferred = info.preferredDevice;
    if (preferred.empty())
        if (const char* env = std::getenv("PYRAMARCH_DEVICE")) preferred = env;
    int chosen = -1;
    std::string candidates;
    if (!preferred.empty()) {
        char* end = nullptr;
        long index = std::strtol(preferred.c_str(), &end, 10);
        bool numeric = end && *end == '\0';
        for (uint32_t i = 0; i < n; ++i) {
            VkPhysicalDeviceProperties p;
            vki.getPhysicalDeviceProperties(pds[i], &p);
            candidates += "\n  " + std::to_string(i) + ": " + p.deviceName;
            if (chosen < 0 &&
                (numeric ? index == static_cast<long>(i) : std::strstr(p.deviceName, preferred.c_str()) != nullptr))
                chosen = static_cast<int>(i);
        }
        if (chosen < 0)
            return Status::error(ErrorCode::NotFound, "PYRAMARCH_DEVICE / preferredDevice '" + preferred +
                                                          "' matches no device; devices:" + candidates);
    } else {
        int bestRank = -1;
        for (uint32_t i = 0; i < n; ++i) {
            VkPhysicalDeviceProperties p;
            vki.getPhysicalDeviceProperties(pds[i], &p);
            if (p.apiVersion < VK_API_VERSION_1_3 || findUniversalFamily(vki, pds[i]) < 0) continue;
            if (typeRank(p.deviceType) > bestRank) {
                bestRank = typeRank(p.deviceType);
                chosen = static_cast<int>(i);
            }
        }
        if (chosen < 0)
            return Status::error(ErrorCode::NotFound, "no Vulkan 1.3 device with a graphics+compute queue found");
    }
    VkPhysicalDevice pd = pds[chosen];
    dev->physicalDevice_ = pd;
    {
        VkPhysicalDeviceProperties p;
        vki.getPhysicalDeviceProperties(pd, &p);
        if (p.apiVersion < VK_API_VERSION_1_3)
            return Status::error(ErrorCode::Unsupported,
                                 std::string("device ") + p.deviceName + " supports only Vulkan " +
                                     std::to_string(VK_API_VERSION_MAJOR(p.apiVersion)) + "." +
                                     std::to_string(VK_API_VERSION_MINOR(p.apiVersion)) + "; pyramarch needs 1.3");
    }
    int family = findUniversalFamily(vki, pd);
    if (family < 0)
        return Status::error(ErrorCode::Unsupported, "chosen device has no queue family with graphics and compute");
    dev->queueFamily_ = static_cast<uint32_t>(family);

    // Features: required ones checked by name, useful ones enabled when present.
    SupportedFeatures have;
    have.chain();
    vki.getPhysicalDeviceFeatures2(pd, &have.core);
    std::string missing = requirementErrors(have.core.features, have.v13.synchronization2, info.requirements);
    if (!have.v13.dynamicRendering)
        missing += std::string(missing.empty() ? "" : ", ") + "dynamicRendering (Vulkan 1.3)";
    if (!missing.empty())
        return Status::error(ErrorCode::Unsupported, "device lacks required features: " + missing,
                             VK_ERROR_FEATURE_NOT_PRESENT);
    if (gpuAv && !(have.core.features.fragmentStoresAndAtomics && have.core.features.vertexPipelineStoresAndAtomics))
        return Status::error(
            ErrorCode::Unsupported,
            "GPU-assisted validation (PYRAMARCH_GPU_AV / gpuAssistedValidation) needs fragmentStoresAndAtomics and "
            "vertexPipelineStoresAndAtomics, which this device lacks",
            VK_ERROR_FEATURE_NOT_PRESENT);

    SupportedFeatures enable;
    enable.chain();
    VkPhysicalDeviceFeatures& f = enable.core.features;
    const VkPhysicalDeviceFeatures& h = have.core.features;
    f.geometryShader = h.geometryShader;
    f.fillModeNonSolid = h.fillModeNonSolid;
    f.fragmentStoresAndAtomics = h.fragmentStoresAndAtomics;
    f.vertexPipelineStoresAndAtomics = h.vertexPipelineStoresAndAtomics;
    f.shaderInt16 = h.shaderInt16;
    f.shaderInt64 = h.shaderInt64;
    f.shaderFloat64 = h.shaderFloat64; // the voxelizer's exact fallback (its Float64 SPIR-V variants)
    f.multiDrawIndirect = h.multiDrawIndirect;
    f.sampleRateShading = h.sampleRateShading;
    f.wideLines = h.wideLines;
    enable.v11.storageBuffer16BitAccess = have.v11.storageBuffer16BitAccess;
    enable.v12.storageBuffer8BitAccess = have.v12.storageBuffer8BitAccess;
    enable.v12.shaderInt8 = have.v12.shaderInt8;
    enable.v12.timelineSemaphore = have.v12.timelineSemaphore;
    enable.v12.hostQueryReset = have.v12.hostQueryReset;
    enable.v12.scalarBlockLayout = have.v12.scalarBlockLayout;
    enable.v13.synchronization2 = VK_TRUE;
    enable.v13.dynamicRendering = VK_TRUE;
    enable.v13.maintenance4 = have.v13.maintenance4;
    enable.v13.subgroupSizeControl = have.v13.subgroupSizeControl;
    enable.v13.computeFullSubgroups = have.v13.computeFullSubgroups;

    vki.enumerateDeviceExtensionProperties(pd, nullptr, &n, nullptr);
    std::vector<VkExtensionProperties> deviceExts(n);
    vki.enumerateDeviceExtensionProperties(pd, nullptr, &n, deviceExts.data());
    std::vector<const char*> devExtensions = info.deviceExtensions;
    for (const char* e : devExtensions)
        if (!hasExtension(deviceExts, e))
            return Status::error(ErrorCode::Unsupported, std::string("device extension ") + e + " is not available");
    const bool conservative = hasExtension(deviceExts, VK_EXT_CONSERVATIVE_RASTERIZATION_EXTENSION_NAME);
    if (conservative) devExtensions.push_back(VK_EXT_CONSERVATIVE_RASTERIZATION_EXTENSION_NAME);
    // GPU-assisted validation in the layer Debian 12 ships (1.3.239) does not
    // track vkCmdPushDescriptorSetKHR: every pushed descriptor reads as
    // "uninitialized" and the instrumented shaders see no buffer
    // (a layer bug, fixed in the layer's 1.3.250). Under
    // GPU-AV, however it was turned on, the graph binds its own descriptor sets.
    const bool pushDescriptors = info.pushDescriptors && !gpuAv && !gpuAvByLayer &&
                                 hasExtension(deviceExts, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
    if (pushDescriptors && std::none_of(devExtensions.begin(), devExtensions.end(), [](const char* e) {
            return std::strcmp(e, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME) == 0;
        }))
        devExtensions.push_back(VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);

    float priority = 1.0f;
    VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qci.queueFamilyIndex = dev->queueFamily_;
    qci.queueCount = 1;
    qci.pQueuePriorities = &priority;
    VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    dci.pNext = &enable.core;
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    dci.enabledExtensionCount = static_cast<uint32_t>(devExtensions.size());
    dci.ppEnabledExtensionNames = devExtensions.data();
    PYRAMARCH_VK_TRY(vki.createDevice(pd, &dci, nullptr, &dev->device_), "vkCreateDevice");
    loadDeviceTable(*dev->table_, vki, dev->device_);
    dev->table_->vkGetDeviceQueue(dev->device_, dev->queueFamily_, 0, &dev->queue_);

    fillLimits(vki, pd, dev->queueFamily_, dev->limits_, dev->properties_, dev->memoryProperties_, dev->driverInfo_);
    dev->name_ = dev->properties_.deviceName;
    dev->gpuAssistedValidation_ = gpuAv || (gpuAvByLayer && info.enableValidation);
    fillEnabledFeatures(dev->limits_, f, conservative, enable.v12.storageBuffer8BitAccess,
                        enable.v11.storageBuffer16BitAccess, enable.v13.subgroupSizeControl, debugUtils);
    dev->limits_.dynamicRendering = true;
    setPushDescriptors(vki, pd, dev->limits_, pushDescriptors);
    dev->allocator_ = std::make_unique<Allocator>(*dev);
    return dev;
}

namespace {
std::string versionText(uint32_t v) {
    return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v));
}

std::string queueFlagsText(VkQueueFlags flags) {
    std::string out;
    auto add = [&](VkQueueFlags bit, const char* name) {
        if (flags & bit) out += std::string(out.empty() ? "" : "|") + name;
    };
    add(VK_QUEUE_GRAPHICS_BIT, "graphics");
    add(VK_QUEUE_COMPUTE_BIT, "compute");
    add(VK_QUEUE_TRANSFER_BIT, "transfer");
    add(VK_QUEUE_SPARSE_BINDING_BIT, "sparse");
    return out.empty() ? "none" : out;
}
} // namespace

Result<std::unique_ptr<Device>> Device::adopt(const AdoptInfo& info) {
    if (!info.instance || !info.physicalDevice || !info.device)
        return Status::error(ErrorCode::InvalidArgument, "AdoptInfo needs instance, physicalDevice and device");
    if (info.apiVersion != 0 && info.apiVersion < VK_API_VERSION_1_3)
        return Status::error(ErrorCode::Unsupported,
                             "AdoptInfo::apiVersion is " + versionText(info.apiVersion) +
                                 ": the module records Vulkan 1.3 commands (vkCmdPipelineBarrier2); create the "
                                 "instance with VkApplicationInfo::apiVersion = VK_API_VERSION_1_3 or higher");
    PFN_vkGetInstanceProcAddr gipa = info.getInstanceProcAddr;
    if (!gipa) {
        auto loader = systemLoader();
        if (!loader) return loader.status();
        gipa = loader.value();
    }
    std::unique_ptr<Device> dev(new Device());
    dev->adopted_ = true;
    dev->instance_ = info.instance;
    dev->physicalDevice_ = info.physicalDevice;
    dev->device_ = info.device;
    dev->queueFamily_ = info.queueFamilyIndex;
    dev->queue_ = info.queue;
    InstanceFunctions& vki = *dev->instanceFunctions_;
    loadInstanceFunctions(vki, gipa, info.instance);
    if (!vki.getPhysicalDeviceProperties2 || !vki.getDeviceProcAddr)
        return Status::error(ErrorCode::Unsupported,
                             "adopted instance does not provide vkGetPhysicalDeviceProperties2: "
                             "create it with VkApplicationInfo::apiVersion = "
                             "VK_API_VERSION_1_3 or higher");
    if (info.debugUtilsEnabled) loadDebugUtils(vki, info.instance);

    VkPhysicalDeviceProperties p;
    vki.getPhysicalDeviceProperties(info.physicalDevice, &p);
    if (p.apiVersion < VK_API_VERSION_1_3)
        return Status::error(ErrorCode::Unsupported, std::string("adopted device ") + p.deviceName +
                                                         " supports Vulkan " + versionText(p.apiVersion) +
                                                         "; the module needs 1.3");
    uint32_t n = 0;
    vki.getPhysicalDeviceQueueFamilyProperties(info.physicalDevice, &n, nullptr);
    if (info.queueFamilyIndex >= n)
        return Status::error(ErrorCode::InvalidArgument,
                             "AdoptInfo::queueFamilyIndex " + std::to_string(info.queueFamilyIndex) +
                                 " is out of range (device has " + std::to_string(n) + " families)");
    std::vector<VkQueueFamilyProperties> families(n);
    vki.getPhysicalDeviceQueueFamilyProperties(info.physicalDevice, &n, families.data());
    if (!(families[info.queueFamilyIndex].queueFlags & VK_QUEUE_COMPUTE_BIT))
        return Status::error(
            ErrorCode::Unsupported,
            "AdoptInfo::queueFamilyIndex " + std::to_string(info.queueFamilyIndex) +
                " has no compute (its queues: " + queueFlagsText(families[info.queueFamilyIndex].queueFlags) +
                "); the module records compute dispatches: pass a family with compute");
    std::string missing = requirementErrors(info.enabledFeatures, info.synchronization2Enabled, info.requirements);
    if (!missing.empty())
        return Status::error(ErrorCode::Unsupported, "adopted device was created without required features: " + missing,
                             VK_ERROR_FEATURE_NOT_PRESENT);

    loadDeviceTable(*dev->table_, vki, info.device);
    // An instance created for Vulkan 1.0-1.2 resolves no 1.3 command and
    // fills no 1.3 property, whatever the device supports.
    const VolkDeviceTable& vk = *dev->table_;
    if (!vk.vkCmdPipelineBarrier2 || !vk.vkCmdWriteTimestamp2 ||
        (info.dynamicRenderingEnabled && !vk.vkCmdBeginRendering))
        return Status::error(ErrorCode::Unsupported,
                             "adopted device does not resolve the Vulkan 1.3 commands the module records "
                             "(vkCmdPipelineBarrier2): the instance API version is below 1.3; create the instance "
                             "with VkApplicationInfo::apiVersion = VK_API_VERSION_1_3 or higher");
    fillLimits(vki, info.physicalDevice, info.queueFamilyIndex, dev->limits_, dev->properties_, dev->memoryProperties_,
               dev->driverInfo_);
    if (dev->limits_.maxBufferSize == 0)
        return Status::error(ErrorCode::Unsupported,
                             "adopted instance reports no Vulkan 1.1-1.3 properties (maxBufferSize 0): the instance "
                             "API version is below 1.3; create it with VkApplicationInfo::apiVersion = "
                             "VK_API_VERSION_1_3 or higher");
    dev->name_ = dev->properties_.deviceName;
    fillEnabledFeatures(dev->limits_, info.enabledFeatures, info.conservativeRasterizationEnabled,
                        info.storageBuffer8BitAccessEnabled, info.storageBuffer16BitAccessEnabled, false,
                        info.debugUtilsEnabled && vki.cmdBeginDebugUtilsLabel);
    dev->limits_.dynamicRendering = info.dynamicRenderingEnabled;
    // Under GPU-AV switched on by the layer's settings, pushed descriptors read
    // as uninitialized in the 1.3.239 layer (see create()).
    const bool gpuAvByLayer = gpuAssistedValidationFromLayerSettings();
    dev->gpuAssistedValidation_ = gpuAvByLayer;
    setPushDescriptors(vki, info.physicalDevice, dev->limits_,
                       info.pushDescriptorEnabled && !gpuAvByLayer &&
                           dev->table_->vkCmdPushDescriptorSetKHR != nullptr);
    dev->allocator_ = std::make_unique<Allocator>(*dev);
    return dev;
}

} // namespace pyramarch
