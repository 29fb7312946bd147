// A host with its own loader: it links its own volk (global function
// pointers, no libvulkan prototypes), adopts its device into the module
// through its own vkGetInstanceProcAddr, runs a frame, then lets the module
// create a second device of its own. Both keep working, the host's function
// pointers are untouched, and the module's create() never goes through the
// host's entry point.
#include <gtest/gtest.h>

#include <volk.h>

#include <atomic>
#include <cstring>
#include <vector>

#include "pyramarch/engine/device.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/isosurface/isosurface.h"
#include "reference.h"
#include "support/device_policy.h"

namespace {

using namespace pyramarch;

std::atomic<uint32_t> g_hostGipaCalls{0};
PFN_vkGetInstanceProcAddr g_volkGipa = nullptr;

// The host's entry point as it hands it to the module (counted).
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL hostGipa(VkInstance instance, const char* name) {
    g_hostGipaCalls.fetch_add(1);
    return g_volkGipa(instance, name);
}

const std::vector<iso::Metaball> kBalls = {{{0.f, 0.f, 0.f}, 0.7f, 1.f, {}}};

iso::IsoSurfaceCreateInfo surfaceInfo() {
    iso::IsoSurfaceCreateInfo info;
    info.samples = {13, 13, 13};
    info.vertexCapacity = 1u << 15;
    info.isoValue = 0.5f;
    return info;
}

size_t referenceVertices() {
    ref::Grid g;
    g.n[0] = g.n[1] = g.n[2] = 13;
    const auto field = ref::metaballs(g, {{{0.f, 0.f, 0.f}, 0.7f, 1.f}});
    return ref::marchingCubes(g, field.data(), 0.5f, ref::Normals::Central).vertices.size();
}

// One frame of a metaball surface on `device`, recorded into a command
// buffer of `pool` and submitted on `queue` with the given functions (the
// host's volk globals for the host's device).
bool hostFrame(Device& device, VkDevice vkDevice, VkQueue queue, VkCommandPool pool, std::string& error) {
    auto surface = iso::IsoSurface::create(device, surfaceInfo());
    if (!surface) return error = surface.message(), false;
    if (!surface.value()->setMetaballs(kBalls)) return error = "setMetaballs", false;
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cmd;
    if (vkAllocateCommandBuffers(vkDevice, &ai, &cmd) != VK_SUCCESS) return error = "allocate", false;
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vkBeginCommandBuffer(cmd, &bi);
    Status recorded = surface.value()->record(cmd);
    vkEndCommandBuffer(cmd);
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    vkQueueSubmit(queue, 1, &si, VK_NULL_HANDLE);
    vkQueueWaitIdle(queue);
    vkFreeCommandBuffers(vkDevice, pool, 1, &cmd);
    if (!recorded) return error = recorded.message(), false;
    auto mesh = surface.value()->readMesh();
    if (!mesh) return error = mesh.message(), false;
    if (mesh.value().indices.size() != referenceVertices())
        return error = "mesh has " + std::to_string(mesh.value().indices.size()) + " vertices, the CPU reference " +
                       std::to_string(referenceVertices()),
               false;
    return true;
}

} // namespace

TEST(HostLoader, OwnVolkThenModuleCreatedDevice) {
    if (volkInitialize() != VK_SUCCESS) PYRAMARCH_FAIL_OR_SKIP_NO_DEVICE("the host's volk finds no Vulkan loader");
    g_volkGipa = vkGetInstanceProcAddr;
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.apiVersion = VK_API_VERSION_1_3;
    VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ici.pApplicationInfo = &app;
    VkInstance instance = VK_NULL_HANDLE;
    ASSERT_EQ(vkCreateInstance(&ici, nullptr, &instance), VK_SUCCESS);
    volkLoadInstance(instance);
    uint32_t n = 1;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    vkEnumeratePhysicalDevices(instance, &n, &physical);
    if (n == 0) PYRAMARCH_FAIL_OR_SKIP_NO_DEVICE("no physical device");
    VkPhysicalDeviceVulkan13Features v13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    v13.synchronization2 = VK_TRUE;
    const float priority = 1.f;
    VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qci.queueFamilyIndex = 0; // universal on lavapipe and desktop GPUs
    qci.queueCount = 1;
    qci.pQueuePriorities = &priority;
    VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    dci.pNext = &v13;
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    VkDevice device = VK_NULL_HANDLE;
    ASSERT_EQ(vkCreateDevice(physical, &dci, nullptr, &device), VK_SUCCESS);
    volkLoadDevice(device); // the host's globals now call this device directly
    VkQueue queue;
    vkGetDeviceQueue(device, 0, 0, &queue);
    VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    VkCommandPool pool;
    ASSERT_EQ(vkCreateCommandPool(device, &pci, nullptr, &pool), VK_SUCCESS);

    // What the host's loader holds before the module runs.
    const PFN_vkGetInstanceProcAddr gipaBefore = vkGetInstanceProcAddr;
    const PFN_vkCmdDispatch dispatchBefore = vkCmdDispatch;
    const PFN_vkQueueSubmit submitBefore = vkQueueSubmit;
    const PFN_vkCreateDevice createDeviceBefore = vkCreateDevice;
    const VkDevice loadedBefore = volkGetLoadedDevice();
    const VkInstance instanceBefore = volkGetLoadedInstance();
    {
        AdoptInfo info;
        info.instance = instance;
        info.physicalDevice = physical;
        info.device = device;
        info.queueFamilyIndex = 0;
        info.queue = queue;
        info.apiVersion = app.apiVersion;
        info.getInstanceProcAddr = hostGipa;
        info.synchronization2Enabled = true;
        auto adopted = Device::adopt(info);
        ASSERT_TRUE(adopted.ok()) << adopted.message();
        EXPECT_GT(g_hostGipaCalls.load(), 0u) << "adopt() loads through the host's entry point";
        std::string error;
        EXPECT_TRUE(hostFrame(*adopted.value(), device, queue, pool, error)) << error;

        // The module's own device, next to the adopted one.
        const uint32_t callsBefore = g_hostGipaCalls.load();
        DeviceCreateInfo ci;
        ci.enableValidation = true;
        auto created = Device::create(ci);
        ASSERT_TRUE(created.ok()) << created.message();
        EXPECT_EQ(g_hostGipaCalls.load(), callsBefore) << "create() went through the host's vkGetInstanceProcAddr";
        {
            auto surface = iso::IsoSurface::create(*created.value(), surfaceInfo());
            ASSERT_TRUE(surface.ok()) << surface.message();
            ASSERT_TRUE(surface.value()->setMetaballs(kBalls).ok());
            Status recorded;
            ASSERT_TRUE(submitAndWait(*created.value(), [&](VkCommandBuffer cmd) {
                            recorded = surface.value()->record(cmd);
                        }).ok());
            ASSERT_TRUE(recorded.ok()) << recorded.message();
            auto mesh = surface.value()->readMesh();
            ASSERT_TRUE(mesh.ok()) << mesh.message();
            EXPECT_EQ(mesh.value().indices.size(), referenceVertices());
        }
        EXPECT_EQ(created.value()->validationMessageCount(), 0u);

        // The adopted device still works after the second device came and went.
        created.value().reset();
        EXPECT_TRUE(hostFrame(*adopted.value(), device, queue, pool, error)) << error;
    }
    EXPECT_EQ(vkGetInstanceProcAddr, gipaBefore);
    EXPECT_EQ(vkCmdDispatch, dispatchBefore);
    EXPECT_EQ(vkQueueSubmit, submitBefore);
    EXPECT_EQ(vkCreateDevice, createDeviceBefore);
    EXPECT_EQ(volkGetLoadedDevice(), loadedBefore);
    EXPECT_EQ(volkGetLoadedInstance(), instanceBefore);
    vkDestroyCommandPool(device, pool, nullptr);
    vkDestroyDevice(device, nullptr);
    vkDestroyInstance(instance, nullptr);
}
