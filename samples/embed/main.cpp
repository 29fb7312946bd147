// The smallest complete host: it owns the instance, device, queue, swapchain
// and command buffers (plain Vulkan loader), adopts its device into the
// module and records the module's passes between its own in its command buffer.
// By default it draws in a classic VkRenderPass on a device without dynamic
// rendering; --dynamic-rendering draws with vkCmdBeginRendering instead.
#include <vulkan/vulkan.h> // the host uses the loader; the module never does
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <vector>

#include "pyramarch/engine/device.h"
#include "pyramarch/isosurface/isosurface.h"
#include "pyramarch/isosurface/surface_renderer.h"

extern "C" VkResult glfwCreateWindowSurface(VkInstance, GLFWwindow*, const VkAllocationCallbacks*, VkSurfaceKHR*);
static int g_messages = 0;
static VKAPI_ATTR VkBool32 VKAPI_CALL onMessage(VkDebugUtilsMessageSeverityFlagBitsEXT, VkDebugUtilsMessageTypeFlagsEXT,
                                                const VkDebugUtilsMessengerCallbackDataEXT* d, void*) {
    std::fprintf(stderr, "validation: %s\n", d->pMessage);
    ++g_messages;
    return VK_FALSE;
}
#define CHECK(x)                                                                                                       \
    do {                                                                                                               \
        VkResult r_ = (x);                                                                                             \
        if (r_ != VK_SUCCESS) {                                                                                        \
            std::fprintf(stderr, "embed: error: %s failed (%d)\n", #x, r_);                                            \
            return 1;                                                                                                  \
        }                                                                                                              \
    } while (0)

int main(int argc, char** argv) {
    CLI::App cli{"pyramarch embed: a host application that owns Vulkan and records the module's passes", "embed"};
    uint32_t frames = 0;
    bool validation = false, dynamicRendering = false;
    cli.add_option("--frames", frames, "Exit after N frames (default: run until closed)");
    cli.add_flag("--validation", validation, "Enable the validation layer; any message fails the exit code");
    cli.add_flag("--dynamic-rendering", dynamicRendering,
                 "Enable dynamic rendering and draw with vkCmdBeginRendering instead of a VkRenderPass");
    CLI11_PARSE(cli, argc, argv);
    if (!glfwInit()) return std::fprintf(stderr, "embed: error: no display\n"), 1;
    glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
    GLFWwindow* window = glfwCreateWindow(640, 480, "pyramarch embed", nullptr, nullptr);
    if (!window) return std::fprintf(stderr, "embed: error: cannot create a window\n"), 1;

    // --- The host's own Vulkan objects ---
    uint32_t extCount = 0;
    const char** glfwExts = glfwGetRequiredInstanceExtensions(&extCount);
    std::vector<const char*> exts(glfwExts, glfwExts + extCount), layers;
    exts.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    if (validation) layers.push_back("VK_LAYER_KHRONOS_validation");
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO, nullptr, "embed", 1, "host", 1, VK_API_VERSION_1_3};
    VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                             nullptr,
                             0,
                             &app,
                             uint32_t(layers.size()),
                             layers.data(),
                             uint32_t(exts.size()),
                             exts.data()};
    VkInstance instance;
    CHECK(vkCreateInstance(&ici, nullptr, &instance));
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    auto createMessenger =
        (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT");
    VkDebugUtilsMessengerCreateInfoEXT mci{
        VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        nullptr,
        0,
        VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT,
        onMessage,
        nullptr};
    if (validation) CHECK(createMessenger(instance, &mci, nullptr, &messenger));
    VkSurfaceKHR surface;
    CHECK(glfwCreateWindowSurface(instance, window, nullptr, &surface));
    uint32_t n = 1;
    VkPhysicalDevice gpu;
    vkEnumeratePhysicalDevices(instance, &n, &gpu); // VK_INCOMPLETE is fine: the first device
    const uint32_t family = 0;                      // graphics + compute + present on lavapipe and desktop GPUs
    VkBool32 canPresent = VK_FALSE;
    vkGetPhysicalDeviceSurfaceSupportKHR(gpu, family, surface, &canPresent);
    if (!canPresent) return std::fprintf(stderr, "embed: error: queue family 0 cannot present\n"), 1;
    VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    f13.synchronization2 = VK_TRUE;          // what the module needs
    f13.dynamicRendering = dynamicRendering; // only for the dynamic-rendering draw
    const float priority = 1.f;
    VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, nullptr, 0, family, 1, &priority};
    const char* devExts[] = {VK_KHR_SWAPCHAIN_EXTENSION_NAME};
    VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &f13, 0, 1, &qci, 0, nullptr, 1, devExts, nullptr};
    VkDevice device;
    CHECK(vkCreateDevice(gpu, &dci, nullptr, &device));
    VkQueue queue;
    vkGetDeviceQueue(device, family, 0, &queue);
    VkSurfaceCapabilitiesKHR caps;
    vkGetPhysicalDeviceSurfaceCapabilitiesKHR(gpu, surface, &caps);
    const VkExtent2D extent = caps.currentExtent.width != UINT32_MAX ? caps.currentExtent : VkExtent2D{640, 480};
    const VkFormat format = VK_FORMAT_B8G8R8A8_SRGB; // offered by lavapipe and common desktop drivers
    VkSwapchainCreateInfoKHR sci{VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR,
                                 nullptr,
                                 0,
                                 surface,
                                 std::max(3u, caps.minImageCount),
                                 format,
                                 VK_COLOR_SPACE_SRGB_NONLINEAR_KHR,
                                 extent,
                                 1,
                                 VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT};
    sci.preTransform = caps.currentTransform;
    sci.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
    sci.presentMode = VK_PRESENT_MODE_FIFO_KHR;
    VkSwapchainKHR swapchain;
    CHECK(vkCreateSwapchainKHR(device, &sci, nullptr, &swapchain));
    vkGetSwapchainImagesKHR(device, swapchain, &n, nullptr);
    std::vector<VkImage> images(n);
    std::vector<VkImageView> views(n);
    std::vector<VkSemaphore> done(n);
    vkGetSwapchainImagesKHR(device, swapchain, &n, images.data());
    VkSemaphoreCreateInfo semInfo{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    for (uint32_t i = 0; i < n; ++i) {
        VkImageViewCreateInfo vci{
            VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, nullptr, 0, images[i], VK_IMAGE_VIEW_TYPE_2D, format, {},
            {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
        CHECK(vkCreateImageView(device, &vci, nullptr, &views[i]));
        CHECK(vkCreateSemaphore(device, &semInfo, nullptr, &done[i]));
    }
    VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, nullptr,
                                VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, family};
    VkCommandPool pool;
    CHECK(vkCreateCommandPool(device, &pci, nullptr, &pool));
    VkCommandBuffer cmds[2];
    VkCommandBufferAllocateInfo cai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, nullptr, pool,
                                    VK_COMMAND_BUFFER_LEVEL_PRIMARY, 2};
    CHECK(vkAllocateCommandBuffers(device, &cai, cmds));
    VkFence fences[2];
    VkSemaphore acquired[2];
    VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, nullptr, VK_FENCE_CREATE_SIGNALED_BIT};
    for (int i = 0; i < 2; ++i) {
        CHECK(vkCreateFence(device, &fci, nullptr, &fences[i]));
        CHECK(vkCreateSemaphore(device, &semInfo, nullptr, &acquired[i]));
    }
    // The host's classic render pass: clear, draw, present.
    VkRenderPass renderPass = VK_NULL_HANDLE;
    std::vector<VkFramebuffer> framebuffers(n, VK_NULL_HANDLE);
    if (!dynamicRendering) {
        VkAttachmentDescription color{0,
                                      format,
                                      VK_SAMPLE_COUNT_1_BIT,
                                      VK_ATTACHMENT_LOAD_OP_CLEAR,
                                      VK_ATTACHMENT_STORE_OP_STORE,
                                      VK_ATTACHMENT_LOAD_OP_DONT_CARE,
                                      VK_ATTACHMENT_STORE_OP_DONT_CARE,
                                      VK_IMAGE_LAYOUT_UNDEFINED,
                                      VK_IMAGE_LAYOUT_PRESENT_SRC_KHR};
        VkAttachmentReference colorRef{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
        VkSubpassDescription subpass{};
        subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
        subpass.colorAttachmentCount = 1;
        subpass.pColorAttachments = &colorRef;
        // The acquire semaphore waits at colour output: the layout change waits for it too.
        VkSubpassDependency acquire{VK_SUBPASS_EXTERNAL,
                                    0,
                                    VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                                    VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                                    0,
                                    VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                                    0};
        VkRenderPassCreateInfo rpci{
            VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO, nullptr, 0, 1, &color, 1, &subpass, 1, &acquire};
        CHECK(vkCreateRenderPass(device, &rpci, nullptr, &renderPass));
        for (uint32_t i = 0; i < n; ++i) {
            VkFramebufferCreateInfo fbci{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
                                         nullptr,
                                         0,
                                         renderPass,
                                         1,
                                         &views[i],
                                         extent.width,
                                         extent.height,
                                         1};
            CHECK(vkCreateFramebuffer(device, &fbci, nullptr, &framebuffers[i]));
        }
    }

    // --- The module: adopt the host's device, create a surface and its draw pass ---
    {
        pyramarch::AdoptInfo adopt;
        adopt.instance = instance;
        adopt.physicalDevice = gpu;
        adopt.device = device;
        adopt.queueFamilyIndex = family;
        adopt.apiVersion = app.apiVersion;
        adopt.getInstanceProcAddr = vkGetInstanceProcAddr;
        adopt.synchronization2Enabled = adopt.debugUtilsEnabled = true;
        adopt.dynamicRenderingEnabled = dynamicRendering;
        auto module = pyramarch::Device::adopt(adopt);
        if (!module) return std::fprintf(stderr, "embed: error: %s\n", module.message().c_str()), 1;
        // Up to 6 metaballs on 49^3 samples over [-1, 1]^3; record() sizes and grows the vertex buffer.
        pyramarch::iso::IsoSurfaceCreateInfo info = pyramarch::iso::metaballSurface({49, 49, 49}, 6, 0.35f);
        info.timestamps = false; // no query writes in the host's command buffer
        auto iso = pyramarch::iso::IsoSurface::create(**module, info);
        // Built for the host's render pass (subpass 0), or for dynamic rendering.
        auto renderer = pyramarch::iso::SurfaceRenderer::create(
            **module, {.colorFormat = format, .depthFormat = VK_FORMAT_UNDEFINED, .renderPass = renderPass});
        if (!iso || !renderer)
            return std::fprintf(stderr, "embed: error: %s%s\n", iso.message().c_str(), renderer.message().c_str()), 1;
        renderer.value()->setView(
            pyramarch::iso::makeSurfaceView({1.8f, 1.2f, 2.2f}, {0, 0, 0}, 0.8f, float(extent.width) / extent.height));

        for (uint64_t frame = 0; !glfwWindowShouldClose(window) && (!frames || frame < frames); ++frame) {
            glfwPollEvents();
            const uint32_t slot = frame % 2;
            vkWaitForFences(device, 1, &fences[slot], VK_TRUE, UINT64_MAX); // frame - 2 is done: its balls slot is free
            uint32_t image;
            if (vkAcquireNextImageKHR(device, swapchain, UINT64_MAX, acquired[slot], VK_NULL_HANDLE, &image) !=
                VK_SUCCESS)
                break;
            vkResetFences(device, 1, &fences[slot]);
            const float t = float(frame) / 30.f;
            std::vector<pyramarch::iso::Metaball> balls;
            for (int i = 0; i < 6; ++i)
                balls.push_back({{0.5f * std::sin(t * (0.7f + 0.2f * i) + i), 0.5f * std::cos(t * 0.9f + 2.f * i),
                                  0.4f * std::sin(t * 1.3f + i * i)},
                                 0.5f,
                                 1.f,
                                 {}});
            if (!iso.value()->setMetaballs(balls)) break;

            VkCommandBuffer cmd = cmds[slot];
            VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, nullptr,
                                        VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
            vkBeginCommandBuffer(cmd, &bi);
            // The module's compute passes (field, classify, pyramid, args, extract); they end with
            // the vertex and draw-args buffers ready for vertex input and indirect reads.
            if (!iso.value()->record(cmd)) break;
            VkViewport vp{0, 0, float(extent.width), float(extent.height), 0, 1};
            VkRect2D sc{{0, 0}, extent};
            if (!dynamicRendering) {
                // The host's render pass instance; the surface is one more draw in its subpass.
                VkClearValue clear{};
                clear.color = {{0.05f, 0.06f, 0.09f, 1.f}};
                VkRenderPassBeginInfo rbi{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
                                          nullptr,
                                          renderPass,
                                          framebuffers[image],
                                          {{0, 0}, extent},
                                          1,
                                          &clear};
                vkCmdBeginRenderPass(cmd, &rbi, VK_SUBPASS_CONTENTS_INLINE);
                vkCmdSetViewport(cmd, 0, 1, &vp);
                vkCmdSetScissor(cmd, 0, 1, &sc);
                renderer.value()->recordDraw(cmd, iso.value()->vertexBuffer().handle(),
                                             iso.value()->drawArgsBuffer().handle(),
                                             pyramarch::iso::IsoSurface::drawArgsOffset());
                vkCmdEndRenderPass(cmd); // leaves the image in PRESENT_SRC
            } else {
                // The host's pass: clear the swapchain image and draw the surface inside its own rendering.
                VkImageMemoryBarrier2 toColor{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
                                              nullptr,
                                              VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                                              0,
                                              VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                                              VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
                                              VK_IMAGE_LAYOUT_UNDEFINED,
                                              VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                              VK_QUEUE_FAMILY_IGNORED,
                                              VK_QUEUE_FAMILY_IGNORED,
                                              images[image],
                                              {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
                VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
                dep.imageMemoryBarrierCount = 1;
                dep.pImageMemoryBarriers = &toColor;
                vkCmdPipelineBarrier2(cmd, &dep);
                VkRenderingAttachmentInfo color{VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO, nullptr, views[image],
                                                VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
                color.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
                color.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
                color.clearValue.color = {{0.05f, 0.06f, 0.09f, 1.f}};
                VkRenderingInfo ri{
                    VK_STRUCTURE_TYPE_RENDERING_INFO, nullptr, 0, {{0, 0}, extent}, 1, 0, 1, &color, nullptr, nullptr};
                vkCmdBeginRendering(cmd, &ri);
                vkCmdSetViewport(cmd, 0, 1, &vp);
                vkCmdSetScissor(cmd, 0, 1, &sc);
                renderer.value()->recordDraw(cmd, iso.value()->vertexBuffer().handle(),
                                             iso.value()->drawArgsBuffer().handle(),
                                             pyramarch::iso::IsoSurface::drawArgsOffset());
                vkCmdEndRendering(cmd);
                VkImageMemoryBarrier2 toPresent = toColor;
                toPresent.srcAccessMask = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT;
                toPresent.dstStageMask = VK_PIPELINE_STAGE_2_NONE;
                toPresent.dstAccessMask = 0;
                toPresent.oldLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
                toPresent.newLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
                dep.pImageMemoryBarriers = &toPresent;
                vkCmdPipelineBarrier2(cmd, &dep);
            }
            vkEndCommandBuffer(cmd);
            const VkPipelineStageFlags waitStage = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
            VkSubmitInfo si{
                VK_STRUCTURE_TYPE_SUBMIT_INFO, nullptr, 1, &acquired[slot], &waitStage, 1, &cmd, 1, &done[image]};
            CHECK(vkQueueSubmit(queue, 1, &si, fences[slot]));
            VkPresentInfoKHR pi{
                VK_STRUCTURE_TYPE_PRESENT_INFO_KHR, nullptr, 1, &done[image], 1, &swapchain, &image, nullptr};
            vkQueuePresentKHR(queue, &pi);
        }
        vkDeviceWaitIdle(device); // the module's objects go before the host's device
    }
    for (int i = 0; i < 2; ++i)
        vkDestroyFence(device, fences[i], nullptr), vkDestroySemaphore(device, acquired[i], nullptr);
    for (uint32_t i = 0; i < n; ++i)
        vkDestroyImageView(device, views[i], nullptr), vkDestroySemaphore(device, done[i], nullptr);
    for (VkFramebuffer fb : framebuffers) vkDestroyFramebuffer(device, fb, nullptr);
    vkDestroyRenderPass(device, renderPass, nullptr);
    vkDestroyCommandPool(device, pool, nullptr);
    vkDestroySwapchainKHR(device, swapchain, nullptr);
    vkDestroyDevice(device, nullptr);
    vkDestroySurfaceKHR(instance, surface, nullptr);
    if (messenger)
        ((PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"))(
            instance, messenger, nullptr);
    vkDestroyInstance(instance, nullptr);
    glfwDestroyWindow(window);
    glfwTerminate();
    if (g_messages) return std::fprintf(stderr, "embed: error: %d validation message(s)\n", g_messages), 1;
    return 0;
}
