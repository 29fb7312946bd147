// A "host" creates its instance and device by hand through the plain Vulkan
// loader (its own prototypes, no volk), then hands them to the module. The
// module must work through its own per-device table without touching the
// host's function loading.
#include <gtest/gtest.h>

#include <vulkan/vulkan.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "pyramarch/engine/device.h"
#include "pyramarch/engine/pipeline.h"
#include "pyramarch/engine/render_graph.h"
#include "pyramarch/engine/transfer.h"
#include "support/device_policy.h"

namespace {

const uint32_t kScaleAddSpv[] =
#include "shaders/tests/scale_add.comp.spv.inc"
    ;

uint32_t g_hostMessages = 0;
std::vector<std::string> g_hostMessageText;

VKAPI_ATTR VkBool32 VKAPI_CALL hostCallback(VkDebugUtilsMessageSeverityFlagBitsEXT, VkDebugUtilsMessageTypeFlagsEXT,
                                            const VkDebugUtilsMessengerCallbackDataEXT* data, void*) {
    ++g_hostMessages;
    g_hostMessageText.push_back(data->pMessage ? data->pMessage : "");
    return VK_FALSE;
}

struct HostApp {
    VkInstance instance = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    uint32_t family = 0;
    std::string error;

    bool create() {
        uint32_t layerCount = 0;
        vkEnumerateInstanceLayerProperties(&layerCount, nullptr);
        std::vector<VkLayerProperties> layers(layerCount);
        vkEnumerateInstanceLayerProperties(&layerCount, layers.data());
        bool haveValidation = false;
        for (auto& l : layers) haveValidation |= std::strcmp(l.layerName, "VK_LAYER_KHRONOS_validation") == 0;
        if (!haveValidation) {
            error = "VK_LAYER_KHRONOS_validation missing";
            return false;
        }
        const char* layerName = "VK_LAYER_KHRONOS_validation";
        const char* ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
        VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
        VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
        features.enabledValidationFeatureCount = 1;
        features.pEnabledValidationFeatures = enables;
        VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
        app.apiVersion = VK_API_VERSION_1_3;
        VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
        ici.pNext = &features;
        ici.pApplicationInfo = &app;
        ici.enabledLayerCount = 1;
        ici.ppEnabledLayerNames = &layerName;
        ici.enabledExtensionCount = 1;
        ici.ppEnabledExtensionNames = &ext;
        if (vkCreateInstance(&ici, nullptr, &instance) != VK_SUCCESS) {
            error = "vkCreateInstance";
            return false;
        }
        auto createMessenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
        VkDebugUtilsMessengerCreateInfoEXT mci{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
        mci.messageSeverity =
            VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
        mci.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT;
        mci.pfnUserCallback = hostCallback;
        createMessenger(instance, &mci, nullptr, &messenger);
        uint32_t n = 0;
        vkEnumeratePhysicalDevices(instance, &n, nullptr);
        if (n == 0) {
            error = "no physical device";
            return false;
        }
        std::vector<VkPhysicalDevice> pds(n);
        vkEnumeratePhysicalDevices(instance, &n, pds.data());
        physical = pds[0];
        uint32_t qn = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(physical, &qn, nullptr);
        std::vector<VkQueueFamilyProperties> qf(qn);
        vkGetPhysicalDeviceQueueFamilyProperties(physical, &qn, qf.data());
        for (uint32_t i = 0; i < qn; ++i)
            if ((qf[i].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)) ==
                (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)) {
                family = i;
                break;
            }
        VkPhysicalDeviceVulkan13Features v13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
        v13.synchronization2 = VK_TRUE;
        v13.dynamicRendering = VK_TRUE;
        float priority = 1.0f;
        VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
        qci.queueFamilyIndex = family;
        qci.queueCount = 1;
        qci.pQueuePriorities = &priority;
        VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
        dci.pNext = &v13;
        dci.queueCreateInfoCount = 1;
        dci.pQueueCreateInfos = &qci;
        if (vkCreateDevice(physical, &dci, nullptr, &device) != VK_SUCCESS) {
            error = "vkCreateDevice";
            return false;
        }
        vkGetDeviceQueue(device, family, 0, &queue);
        return true;
    }

    ~HostApp() {
        if (device) vkDestroyDevice(device, nullptr);
        if (messenger) {
            auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
                vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
            destroy(instance, messenger, nullptr);
        }
        if (instance) vkDestroyInstance(instance, nullptr);
    }

    pyramarch::AdoptInfo adoptInfo() const {
        pyramarch::AdoptInfo info;
        info.instance = instance;
        info.physicalDevice = physical;
        info.device = device;
        info.queueFamilyIndex = family;
        info.queue = queue;
        info.getInstanceProcAddr = vkGetInstanceProcAddr;
        info.synchronization2Enabled = true;
        info.dynamicRenderingEnabled = true;
        info.debugUtilsEnabled = true;
        return info;
    }
};

} // namespace

TEST(AdoptedDevice, RunsAGraphOnTheHostsDevice) {
    HostApp host;
    if (!host.create()) PYRAMARCH_FAIL_OR_SKIP_NO_DEVICE("host device: " + host.error);
    {
        auto adopted = pyramarch::Device::adopt(host.adoptInfo());
        ASSERT_TRUE(adopted.ok()) << adopted.message();
        pyramarch::Device& device = *adopted.value();
        EXPECT_TRUE(device.adopted());
        EXPECT_EQ(device.device(), host.device);

        constexpr uint32_t n = 500;
        std::vector<uint32_t> input(n);
        std::iota(input.begin(), input.end(), 1u);
        constexpr VkBufferUsageFlags usage =
            VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
        auto in = device.allocator().createBuffer({n * 4, usage, pyramarch::MemoryUsage::DeviceLocal, "in"});
        auto out = device.allocator().createBuffer({n * 4, usage, pyramarch::MemoryUsage::DeviceLocal, "out"});
        ASSERT_TRUE(in.ok() && out.ok());
        ASSERT_TRUE(pyramarch::uploadBuffer(device, in.value(), input.data(), n * 4).ok());
        auto pipeline = pyramarch::ComputePipeline::create(
            device, {.spirv = kScaleAddSpv,
                     .name = "scale-add",
                     .layout = {.bindings = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER},
                                .pushConstantBytes = 12}});
        ASSERT_TRUE(pipeline.ok()) << pipeline.message();
        auto pool = pyramarch::DescriptorPool::create(device, 1, 2, "adopted");
        ASSERT_TRUE(pool.ok());
        pyramarch::DescriptorBinding bindings[2] = {{in->handle()}, {out->handle()}};
        auto set = pool->allocate(pipeline->pipelineLayout(), bindings);
        ASSERT_TRUE(set.ok());

        pyramarch::RenderGraph graph(&device);
        auto rin = graph.importBuffer("in", in.value(), {pyramarch::Access::TransferDst, pyramarch::PassKind::Transfer},
                                      {}, true);
        auto rout =
            graph.importBuffer("out", out.value(), {}, {pyramarch::Access::TransferSrc, pyramarch::PassKind::Transfer});
        graph.addPass("scale", pyramarch::PassKind::Compute)
            .use(rin, pyramarch::Access::StorageRead)
            .use(rout, pyramarch::Access::StorageWrite)
            .record([&](pyramarch::PassContext& ctx) {
                // The host records through its own loader; the module through its table.
                const uint32_t params[3] = {n, 3, 4};
                vkCmdBindPipeline(ctx.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline->pipeline());
                vkCmdBindDescriptorSets(ctx.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline->layout(), 0, 1, &set.value(),
                                        0, nullptr);
                vkCmdPushConstants(ctx.cmd, pipeline->layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(params), params);
                vkCmdDispatch(ctx.cmd, (n + 63) / 64, 1, 1);
            });
        ASSERT_TRUE(graph.compile().ok());

        // The host owns the command buffer and the submission.
        VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        pci.queueFamilyIndex = host.family;
        VkCommandPool cmdPool;
        ASSERT_EQ(vkCreateCommandPool(host.device, &pci, nullptr, &cmdPool), VK_SUCCESS);
        VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        ai.commandPool = cmdPool;
        ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        ai.commandBufferCount = 1;
        VkCommandBuffer cmd;
        vkAllocateCommandBuffers(host.device, &ai, &cmd);
        VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        vkBeginCommandBuffer(cmd, &bi);
        ASSERT_TRUE(graph.execute(cmd).ok());
        vkEndCommandBuffer(cmd);
        VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cmd;
        vkQueueSubmit(host.queue, 1, &si, VK_NULL_HANDLE);
        vkQueueWaitIdle(host.queue);
        vkDestroyCommandPool(host.device, cmdPool, nullptr);

        std::vector<uint32_t> result(n);
        ASSERT_TRUE(pyramarch::readBuffer(device, out.value(), result.data(), n * 4).ok());
        for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(result[i], input[i] * 3 + 4);
    }
    for (const auto& m : g_hostMessageText) ADD_FAILURE() << "validation: " << m;
}

TEST(AdoptedDevice, MissingFeaturesAreNamed) {
    HostApp host;
    if (!host.create()) PYRAMARCH_FAIL_OR_SKIP_NO_DEVICE("host device: " + host.error);
    g_hostMessages = 0;
    pyramarch::AdoptInfo info = host.adoptInfo();
    info.synchronization2Enabled = false;
    info.requirements.geometryShader = true; // the host did not enable it
    auto adopted = pyramarch::Device::adopt(info);
    ASSERT_FALSE(adopted.ok());
    EXPECT_NE(adopted.message().find("synchronization2"), std::string::npos) << adopted.message();
    EXPECT_NE(adopted.message().find("geometryShader"), std::string::npos) << adopted.message();

    info = host.adoptInfo();
    info.queueFamilyIndex = 99;
    adopted = pyramarch::Device::adopt(info);
    ASSERT_FALSE(adopted.ok());
    EXPECT_NE(adopted.message().find("queueFamilyIndex"), std::string::npos) << adopted.message();
    EXPECT_EQ(g_hostMessages, 0u);
}
