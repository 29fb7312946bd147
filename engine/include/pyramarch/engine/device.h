// Device: the module's view of a Vulkan device. Either created by the module
// (instance + device, best GPU first) or adopted from a host engine, in which
// case the host keeps ownership and its own function loading is untouched:
// the module loads its functions into a per-device table, never into globals.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <vulkan/vulkan_core.h>

#include "pyramarch/engine/status.h"

struct VolkDeviceTable; // defined in <volk.h>; include pyramarch/engine/vulkan_functions.h to call through it

namespace pyramarch {

struct InstanceFunctions; // instance-level function table, see vulkan_functions.h
class Allocator;

enum class MessageSeverity { Verbose, Info, Warning, Error };

struct ValidationMessage {
    MessageSeverity severity;
    std::string idName; // e.g. "SYNC-HAZARD-READ-AFTER-WRITE"
    std::string text;
};

// Called for every message of the validation layer (any thread).
using ValidationCallback = std::function<void(const ValidationMessage&)>;

// Features the module needs; checked at creation, missing ones are named.
struct DeviceRequirements {
    bool geometryShader = false;   // require it (the voxelizer rasterizes large triangles with it, else compute tiles)
    bool fillModeNonSolid = false; // wireframe debug view (optional in samples)
};

struct DeviceCreateInfo {
    // Optional. Application name reported to the driver.
    const char* applicationName = "pyramarch";
    // Enable VK_LAYER_KHRONOS_validation with synchronization validation.
    // Creation fails (with a message) if the layer is not installed.
    bool enableValidation = false;
    // With enableValidation: GPU-assisted validation too (default false; the
    // environment's PYRAMARCH_GPU_AV=1 / 0 forces it on / off). Needs the
    // *StoresAndAtomics features and set maxBoundDescriptorSets - 1: tests/README.md.
    bool gpuAssistedValidation = false;
    // Optional. Receives validation messages; when empty, warnings and errors
    // are printed to stderr.
    ValidationCallback validationCallback;
    // Optional. Index or name substring; overrides the choice. When empty the
    // PYRAMARCH_DEVICE environment variable is read, then the best device is
    // taken: discrete GPU, then integrated, then virtual, then CPU.
    std::string preferredDevice;
    // Instance extensions the host needs too (e.g. from glfwGetRequiredInstanceExtensions).
    std::vector<const char*> instanceExtensions;
    // Device extensions the host needs too (e.g. VK_KHR_swapchain).
    std::vector<const char*> deviceExtensions;
    DeviceRequirements requirements;
    // Enable VK_KHR_push_descriptor when the device has it (render-graph
    // passes then push their declared bindings instead of using sets).
    // Default true; left off under GPU-assisted validation.
    bool pushDescriptors = true;
};

// Describes a device the host created. All handles stay owned by the host and
// must outlive the adopted Device. The instance must have been created with
// VkApplicationInfo::apiVersion 1.3 or higher (the module records the core
// 1.3 commands vkCmdPipelineBarrier2 and vkCmdWriteTimestamp2) on a 1.3
// device, with synchronization2 and the features in `requirements` enabled.
// Dynamic rendering is needed only by graphics passes built for it (a
// render graph's graphics passes, SurfaceRenderer without a renderPass, the
// voxelizer's raster pass): compute-only use (IsoSurface::record) works
// without it. adopt() checks all of this and names what is missing
// (ErrorCode::Unsupported, or InvalidArgument for bad handles/indices).
struct AdoptInfo {
    VkInstance instance = VK_NULL_HANDLE;             // required
    VkPhysicalDevice physicalDevice = VK_NULL_HANDLE; // required
    VkDevice device = VK_NULL_HANDLE;                 // required
    // Required: the family the host records the module's commands on; it must
    // support compute (and graphics where the host draws with SurfaceRenderer).
    uint32_t queueFamilyIndex = 0;
    VkQueue queue = VK_NULL_HANDLE; // optional: only test/sample helpers submit on it
    // Optional. VkApplicationInfo::apiVersion the host created the instance
    // with; below VK_API_VERSION_1_3 adopt() fails naming it. 0 = not given:
    // adopt() then checks that the 1.3 commands and properties resolve.
    uint32_t apiVersion = 0;
    // Optional. The host's loader entry point; when null the system Vulkan
    // loader (libvulkan.so.1) is opened. Used only for this device: a later
    // Device::create() never goes through it.
    PFN_vkGetInstanceProcAddr getInstanceProcAddr = nullptr;
    // Features the host enabled; used for the requirement check, since Vulkan
    // cannot query what a device was created with.
    VkPhysicalDeviceFeatures enabledFeatures{};
    bool synchronization2Enabled = false; // required true
    bool dynamicRenderingEnabled = false; // needed by dynamic-rendering graphics passes only (see above)
    // Optional: the host enabled these (the module uses them when present).
    bool debugUtilsEnabled = false;                // VK_EXT_debug_utils on the instance
    bool conservativeRasterizationEnabled = false; // VK_EXT_conservative_rasterization on the device
    bool storageBuffer8BitAccessEnabled = false;
    bool storageBuffer16BitAccessEnabled = false;
    // VK_KHR_push_descriptor enabled on the device (default false). Ignored
    // under GPU-assisted validation the module detects; a host that enables
    // GPU-AV through its own structs (the module cannot see them) leaves it false.
    bool pushDescriptorEnabled = false;
    DeviceRequirements requirements;
};

struct DeviceLimits {
    // CPU drivers and GPUs favour different algorithms (e.g. the
    // particle splat's SplatMethod::Auto).
    VkPhysicalDeviceType deviceType;
    uint32_t maxComputeWorkGroupCount[3];
    uint32_t maxComputeWorkGroupSize[3];
    uint32_t maxComputeWorkGroupInvocations;
    uint32_t maxComputeSharedMemorySize;
    uint64_t maxStorageBufferRange;
    uint32_t maxTexelBufferElements;          // texels a buffer view may cover (RenderGraph texel bindings)
    uint64_t maxBufferSize;                   // VkPhysicalDeviceMaintenance4Properties or maxMemoryAllocationSize
    uint64_t maxMemoryAllocationSize;         // VkPhysicalDeviceMaintenance3Properties (0: unknown)
    uint64_t minStorageBufferOffsetAlignment; // descriptor offsets (RenderGraph storage bindings; 0 taken as 1)
    uint64_t minUniformBufferOffsetAlignment;
    uint64_t maxUniformBufferRange;
    uint32_t subgroupSize;
    VkShaderStageFlags subgroupStages;         // VkPhysicalDeviceVulkan11Properties::subgroupSupportedStages
    VkSubgroupFeatureFlags subgroupOperations; // ... ::subgroupSupportedOperations
    float timestampPeriodNs;
    bool timestampsSupported;
    bool geometryShader;
    bool fillModeNonSolid;
    bool conservativeRasterization; // VK_EXT_conservative_rasterization enabled
    bool fragmentStoresAndAtomics;
    bool vertexPipelineStoresAndAtomics;
    bool shaderInt16;
    bool shaderInt64;   // enabled when present; adopted devices: AdoptInfo::enabledFeatures.shaderInt64
    bool shaderFloat64; // enabled when present; adopted devices: AdoptInfo::enabledFeatures.shaderFloat64
    bool storageBuffer8BitAccess;
    bool storageBuffer16BitAccess;
    bool subgroupSizeControl;
    bool debugUtils;             // debug labels and object names available
    bool dynamicRendering;       // dynamicRendering enabled (always on created devices; AdoptInfo says for adopted)
    bool pushDescriptors;        // VK_KHR_push_descriptor enabled
    uint32_t maxPushDescriptors; // VkPhysicalDevicePushDescriptorPropertiesKHR (0 without the extension)
};

class Device {
public:
    static Result<std::unique_ptr<Device>> create(const DeviceCreateInfo& info);
    static Result<std::unique_ptr<Device>> adopt(const AdoptInfo& info);
    ~Device();
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;

    VkInstance instance() const { return instance_; }
    VkPhysicalDevice physicalDevice() const { return physicalDevice_; }
    VkDevice device() const { return device_; }
    VkQueue queue() const { return queue_; }
    // Held around every vkQueueSubmit the module makes on queue() (the
    // submit-and-wait helpers of transfer.h and the read-backs built on them,
    // e.g. IsoSurface::readMesh), so instances on different threads may read
    // back at once. A host that submits on the same queue from another thread
    // while such a helper may run locks it around its own submits too.
    std::mutex& queueMutex() const { return queueMutex_; }
    uint32_t queueFamily() const { return queueFamily_; }
    bool adopted() const { return adopted_; }
    const std::string& name() const { return name_; }
    const std::string& driverInfo() const { return driverInfo_; }
    const DeviceLimits& limits() const { return limits_; }
    const VkPhysicalDeviceProperties& properties() const { return properties_; }
    const VkPhysicalDeviceMemoryProperties& memoryProperties() const { return memoryProperties_; }

    // Device-level functions of this device (volk table).
    const VolkDeviceTable& vk() const { return *table_; }
    // Instance-level functions of this device's instance.
    const InstanceFunctions& vki() const { return *instanceFunctions_; }
    Allocator& allocator() { return *allocator_; }

    // Number of validation warnings/errors seen since creation (for tests).
    uint32_t validationMessageCount() const;
    // Whether GPU-assisted validation was requested and enabled
    // (DeviceCreateInfo::gpuAssistedValidation or PYRAMARCH_GPU_AV), or is
    // enabled through the layer's environment or settings file.
    bool gpuAssistedValidation() const { return gpuAssistedValidation_; }

    // Names a Vulkan object in debug tools (no-op without debug utils).
    void setObjectName(VkObjectType type, uint64_t handle, const char* name) const;

    // Lists the physical devices a created Device could choose from.
    struct PhysicalDeviceInfo {
        uint32_t index;
        std::string name;
        VkPhysicalDeviceType type;
        uint32_t apiVersion;
    };
    static Result<std::vector<PhysicalDeviceInfo>> enumerate();

    struct Impl;

private:
    Device();
    friend struct Impl;
    VkInstance instance_ = VK_NULL_HANDLE;
    VkPhysicalDevice physicalDevice_ = VK_NULL_HANDLE;
    VkDevice device_ = VK_NULL_HANDLE;
    VkQueue queue_ = VK_NULL_HANDLE;
    uint32_t queueFamily_ = 0;
    bool adopted_ = false;
    bool gpuAssistedValidation_ = false;
    std::string name_;
    std::string driverInfo_;
    DeviceLimits limits_{};
    VkPhysicalDeviceProperties properties_{};
    VkPhysicalDeviceMemoryProperties memoryProperties_{};
    std::unique_ptr<VolkDeviceTable> table_;
    std::unique_ptr<InstanceFunctions> instanceFunctions_;
    std::unique_ptr<Allocator> allocator_;
    std::unique_ptr<Impl> impl_;
    mutable std::mutex queueMutex_;
};

} // namespace pyramarch
