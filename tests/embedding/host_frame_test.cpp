// A host that keeps its own frame: it creates its instance and device through
// the plain loader, with or without dynamic rendering, draws in its own
// classic VkRenderPass, and hands the device to the module. The module's
// compute surface is checked against the CPU reference, the render-pass draw
// against the dynamic-rendering draw, and adopt()'s checks against hosts
// that lack what the module needs.
#include <gtest/gtest.h>

#include <vulkan/vulkan.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "pyramarch/engine/device.h"
#include "pyramarch/isosurface/isosurface.h"
#include "pyramarch/isosurface/surface_renderer.h"
#include "pyramarch/voxelizer/shapes.h"
#include "pyramarch/voxelizer/voxelizer.h"
#include "reference.h"
#include "support/device_policy.h"
#include "voxel_reference.h"

namespace {

using namespace pyramarch;

std::vector<std::string> g_messages;

VKAPI_ATTR VkBool32 VKAPI_CALL onMessage(VkDebugUtilsMessageSeverityFlagBitsEXT, VkDebugUtilsMessageTypeFlagsEXT,
                                         const VkDebugUtilsMessengerCallbackDataEXT* data, void*) {
    g_messages.push_back(data->pMessage ? data->pMessage : "");
    return VK_FALSE;
}

struct HostOptions {
    uint32_t apiVersion = VK_API_VERSION_1_3;
    bool dynamicRendering = false;
    bool validation = true;
};

// The host's instance, device and one-shot command submission.
struct Host {
    VkInstance instance = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    VkCommandPool pool = VK_NULL_HANDLE;
    uint32_t family = 0;
    HostOptions options;
    std::string error;

    bool create(const HostOptions& o) {
        options = o;
        std::vector<const char*> layers, exts;
        if (o.validation) {
            uint32_t n = 0;
            vkEnumerateInstanceLayerProperties(&n, nullptr);
            std::vector<VkLayerProperties> available(n);
            vkEnumerateInstanceLayerProperties(&n, available.data());
            bool found = false;
            for (auto& l : available) found |= std::strcmp(l.layerName, "VK_LAYER_KHRONOS_validation") == 0;
            if (!found) return error = "VK_LAYER_KHRONOS_validation missing", false;
            layers.push_back("VK_LAYER_KHRONOS_validation");
            exts.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
        }
        VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
        VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
        features.enabledValidationFeatureCount = 1;
        features.pEnabledValidationFeatures = enables;
        VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
        app.apiVersion = o.apiVersion;
        VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
        ici.pNext = o.validation ? &features : nullptr;
        ici.pApplicationInfo = &app;
        ici.enabledLayerCount = uint32_t(layers.size());
        ici.ppEnabledLayerNames = layers.data();
        ici.enabledExtensionCount = uint32_t(exts.size());
        ici.ppEnabledExtensionNames = exts.data();
        if (vkCreateInstance(&ici, nullptr, &instance) != VK_SUCCESS) return error = "vkCreateInstance", false;
        if (o.validation) {
            auto createMessenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
                vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
            VkDebugUtilsMessengerCreateInfoEXT mci{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
            mci.messageSeverity =
                VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
            mci.messageType =
                VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT;
            mci.pfnUserCallback = onMessage;
            createMessenger(instance, &mci, nullptr, &messenger);
        }
        uint32_t n = 1;
        vkEnumeratePhysicalDevices(instance, &n, &physical);
        if (n == 0) return error = "no physical device", false;
        uint32_t qn = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(physical, &qn, nullptr);
        std::vector<VkQueueFamilyProperties> qf(qn);
        vkGetPhysicalDeviceQueueFamilyProperties(physical, &qn, qf.data());
        constexpr VkQueueFlags need = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
        for (uint32_t i = qn; i-- > 0;)
            if ((qf[i].queueFlags & need) == need) family = i;
        // Only what the module needs for compute; dynamic rendering on request.
        VkPhysicalDeviceVulkan13Features v13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
        v13.synchronization2 = VK_TRUE;
        v13.dynamicRendering = o.dynamicRendering;
        const float priority = 1.f;
        VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
        qci.queueFamilyIndex = family;
        qci.queueCount = 1;
        qci.pQueuePriorities = &priority;
        VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
        dci.pNext = o.apiVersion >= VK_API_VERSION_1_3 ? &v13 : nullptr;
        dci.queueCreateInfoCount = 1;
        dci.pQueueCreateInfos = &qci;
        if (vkCreateDevice(physical, &dci, nullptr, &device) != VK_SUCCESS) return error = "vkCreateDevice", false;
        vkGetDeviceQueue(device, family, 0, &queue);
        VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        pci.queueFamilyIndex = family;
        vkCreateCommandPool(device, &pci, nullptr, &pool);
        return true;
    }

    ~Host() {
        if (pool) vkDestroyCommandPool(device, pool, nullptr);
        if (device) vkDestroyDevice(device, nullptr);
        if (messenger)
            reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
                vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"))(instance, messenger, nullptr);
        if (instance) vkDestroyInstance(instance, nullptr);
    }

    AdoptInfo adoptInfo() const {
        AdoptInfo info;
        info.instance = instance;
        info.physicalDevice = physical;
        info.device = device;
        info.queueFamilyIndex = family;
        info.queue = queue;
        info.getInstanceProcAddr = vkGetInstanceProcAddr;
        info.synchronization2Enabled = true;
        info.dynamicRenderingEnabled = options.dynamicRendering;
        info.debugUtilsEnabled = options.validation;
        return info;
    }

    // Records with `body` into a fresh command buffer, submits and waits.
    template <class F>
    bool submit(F&& body) {
        VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        ai.commandPool = pool;
        ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        ai.commandBufferCount = 1;
        VkCommandBuffer cmd;
        if (vkAllocateCommandBuffers(device, &ai, &cmd) != VK_SUCCESS) return false;
        VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        vkBeginCommandBuffer(cmd, &bi);
        const bool ok = body(cmd);
        vkEndCommandBuffer(cmd);
        VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cmd;
        vkQueueSubmit(queue, 1, &si, VK_NULL_HANDLE);
        vkQueueWaitIdle(queue);
        vkFreeCommandBuffers(device, pool, 1, &cmd);
        return ok;
    }

    int32_t memoryType(uint32_t bits, VkMemoryPropertyFlags want) const {
        VkPhysicalDeviceMemoryProperties mp;
        vkGetPhysicalDeviceMemoryProperties(physical, &mp);
        for (uint32_t i = 0; i < mp.memoryTypeCount; ++i)
            if ((bits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want) return int32_t(i);
        return -1;
    }
};

constexpr uint32_t kSize = 64;
constexpr VkFormat kColor = VK_FORMAT_R8G8B8A8_UNORM;
constexpr VkFormat kDepth = VK_FORMAT_D32_SFLOAT;

const std::vector<iso::Metaball> kBalls = {{{-0.3f, 0.f, 0.f}, 0.6f, 1.f, {}}, {{0.3f, 0.1f, 0.f}, 0.55f, 1.f, {}}};

iso::IsoSurfaceCreateInfo surfaceInfo() {
    iso::IsoSurfaceCreateInfo info;
    info.samples = {17, 17, 17};
    info.vertexCapacity = 1u << 16;
    info.isoValue = 0.5f;
    info.timestamps = false; // the host's command buffer gets no query writes
    return info;
}

// The host's render target: colour + depth images, read back to the CPU.
struct Target {
    Host* host = nullptr;
    VkImage color = VK_NULL_HANDLE, depth = VK_NULL_HANDLE;
    VkImageView colorView = VK_NULL_HANDLE, depthView = VK_NULL_HANDLE;
    VkDeviceMemory memory[3] = {};
    VkBuffer readback = VK_NULL_HANDLE;

    bool create(Host& h) {
        host = &h;
        auto image = [&](VkFormat format, VkImageUsageFlags usage, VkImageAspectFlags aspect, VkImage& img,
                         VkImageView& view, VkDeviceMemory& mem) {
            VkImageCreateInfo ci{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
            ci.imageType = VK_IMAGE_TYPE_2D;
            ci.format = format;
            ci.extent = {kSize, kSize, 1};
            ci.mipLevels = ci.arrayLayers = 1;
            ci.samples = VK_SAMPLE_COUNT_1_BIT;
            ci.usage = usage;
            if (vkCreateImage(h.device, &ci, nullptr, &img) != VK_SUCCESS) return false;
            VkMemoryRequirements req;
            vkGetImageMemoryRequirements(h.device, img, &req);
            VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
            ai.allocationSize = req.size;
            ai.memoryTypeIndex = uint32_t(h.memoryType(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT));
            if (vkAllocateMemory(h.device, &ai, nullptr, &mem) != VK_SUCCESS) return false;
            vkBindImageMemory(h.device, img, mem, 0);
            VkImageViewCreateInfo vi{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
            vi.image = img;
            vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
            vi.format = format;
            vi.subresourceRange = {aspect, 0, 1, 0, 1};
            return vkCreateImageView(h.device, &vi, nullptr, &view) == VK_SUCCESS;
        };
        if (!image(kColor, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                   VK_IMAGE_ASPECT_COLOR_BIT, color, colorView, memory[0]) ||
            !image(kDepth, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, VK_IMAGE_ASPECT_DEPTH_BIT, depth, depthView,
                   memory[1]))
            return false;
        VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
        bi.size = kSize * kSize * 4;
        bi.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
        if (vkCreateBuffer(h.device, &bi, nullptr, &readback) != VK_SUCCESS) return false;
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(h.device, readback, &req);
        VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        ai.allocationSize = req.size;
        ai.memoryTypeIndex = uint32_t(h.memoryType(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                                           VK_MEMORY_PROPERTY_HOST_COHERENT_BIT));
        if (vkAllocateMemory(h.device, &ai, nullptr, &memory[2]) != VK_SUCCESS) return false;
        vkBindBufferMemory(h.device, readback, memory[2], 0);
        return true;
    }
    ~Target() {
        if (!host) return;
        VkDevice d = host->device;
        vkDestroyImageView(d, colorView, nullptr);
        vkDestroyImageView(d, depthView, nullptr);
        vkDestroyImage(d, color, nullptr);
        vkDestroyImage(d, depth, nullptr);
        vkDestroyBuffer(d, readback, nullptr);
        for (VkDeviceMemory m : memory) vkFreeMemory(d, m, nullptr);
    }
    // The colour image (TRANSFER_SRC_OPTIMAL) into the read-back buffer.
    void recordCopy(VkCommandBuffer cmd) const {
        VkBufferImageCopy region{};
        region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        region.imageExtent = {kSize, kSize, 1};
        vkCmdCopyImageToBuffer(cmd, color, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback, 1, &region);
    }
    std::vector<uint32_t> pixels() const {
        std::vector<uint32_t> out(kSize * kSize);
        void* p = nullptr;
        vkMapMemory(host->device, memory[2], 0, VK_WHOLE_SIZE, 0, &p);
        std::memcpy(out.data(), p, out.size() * 4);
        vkUnmapMemory(host->device, memory[2]);
        return out;
    }
};

void setViewport(VkCommandBuffer cmd) {
    VkViewport vp{0, 0, float(kSize), float(kSize), 0, 1};
    VkRect2D sc{{0, 0}, {kSize, kSize}};
    vkCmdSetViewport(cmd, 0, 1, &vp);
    vkCmdSetScissor(cmd, 0, 1, &sc);
}

iso::SurfaceView view(bool flipY) {
    iso::SurfaceView v = iso::makeSurfaceView({0.9f, 0.7f, 1.2f}, {0, 0, 0}, 0.9f, 1.f);
    if (!flipY)
        for (int c = 0; c < 4; ++c) v.viewProj[c * 4 + 1] = -v.viewProj[c * 4 + 1]; // keep y up in clip space
    return v;
}

// The host's classic render pass: one colour and one depth attachment,
// cleared, colour left for a transfer.
VkRenderPass createRenderPass(VkDevice device) {
    VkAttachmentDescription att[2]{};
    att[0].format = kColor;
    att[0].samples = VK_SAMPLE_COUNT_1_BIT;
    att[0].loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    att[0].storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    att[0].stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    att[0].stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    att[0].initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    att[0].finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    att[1] = att[0];
    att[1].format = kDepth;
    att[1].storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    att[1].finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
    VkAttachmentReference colorRef{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkAttachmentReference depthRef{1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
    VkSubpassDescription sub{};
    sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    sub.colorAttachmentCount = 1;
    sub.pColorAttachments = &colorRef;
    sub.pDepthStencilAttachment = &depthRef;
    // The colour goes to a copy after the pass.
    VkSubpassDependency dep{};
    dep.srcSubpass = 0;
    dep.dstSubpass = VK_SUBPASS_EXTERNAL;
    dep.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    dep.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    dep.dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
    dep.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    VkSubpassDependency deps[2] = {dep, {}};
    // The attachments' layout transitions (and earlier uses) before the clears.
    deps[1].srcSubpass = VK_SUBPASS_EXTERNAL;
    deps[1].dstSubpass = 0;
    deps[1].srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
    deps[1].srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
    deps[1].dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT;
    deps[1].dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT |
                            VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT;
    VkRenderPassCreateInfo ci{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
    ci.attachmentCount = 2;
    ci.pAttachments = att;
    ci.subpassCount = 1;
    ci.pSubpasses = &sub;
    ci.dependencyCount = 2;
    ci.pDependencies = deps;
    VkRenderPass rp = VK_NULL_HANDLE;
    vkCreateRenderPass(device, &ci, nullptr, &rp);
    return rp;
}

// One frame in the host's classic render pass: the module's compute, then
// the surface drawn in the host's subpass. Returns the pixels.
std::vector<uint32_t> drawInRenderPass(Host& host, bool flipY, std::string& error) {
    auto adopted = Device::adopt(host.adoptInfo());
    if (!adopted) return error = adopted.message(), std::vector<uint32_t>{};
    Device& device = *adopted.value();
    Target target;
    if (!target.create(host)) return error = "host target", std::vector<uint32_t>{};
    VkRenderPass renderPass = createRenderPass(host.device);
    VkImageView views[2] = {target.colorView, target.depthView};
    VkFramebufferCreateInfo fci{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
    fci.renderPass = renderPass;
    fci.attachmentCount = 2;
    fci.pAttachments = views;
    fci.width = fci.height = kSize;
    fci.layers = 1;
    VkFramebuffer framebuffer = VK_NULL_HANDLE;
    vkCreateFramebuffer(host.device, &fci, nullptr, &framebuffer);
    std::vector<uint32_t> pixels;
    {
        auto surface = iso::IsoSurface::create(device, surfaceInfo());
        iso::SurfaceRendererCreateInfo ri;
        ri.colorFormat = kColor;
        ri.depthFormat = kDepth;
        ri.renderPass = renderPass;
        ri.subpass = 0;
        ri.frontFace = flipY ? VK_FRONT_FACE_COUNTER_CLOCKWISE : VK_FRONT_FACE_CLOCKWISE;
        auto renderer = iso::SurfaceRenderer::create(device, ri);
        if (!surface || !renderer) {
            error = surface.message() + renderer.message();
        } else if (!surface.value()->setMetaballs(kBalls)) {
            error = "setMetaballs";
        } else {
            iso::IsoSurface& s = *surface.value();
            renderer.value()->setView(view(flipY));
            Status recorded;
            host.submit([&](VkCommandBuffer cmd) {
                recorded = s.record(cmd); // leaves vertices and args ready for the draw
                VkClearValue clears[2];
                clears[0].color = {{0.1f, 0.2f, 0.3f, 1.f}};
                clears[1].depthStencil = {1.f, 0};
                VkRenderPassBeginInfo bi{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
                bi.renderPass = renderPass;
                bi.framebuffer = framebuffer;
                bi.renderArea = {{0, 0}, {kSize, kSize}};
                bi.clearValueCount = 2;
                bi.pClearValues = clears;
                vkCmdBeginRenderPass(cmd, &bi, VK_SUBPASS_CONTENTS_INLINE);
                setViewport(cmd);
                renderer.value()->recordDraw(cmd, s.vertexBuffer().handle(), s.drawArgsBuffer().handle(),
                                             iso::IsoSurface::drawArgsOffset());
                vkCmdEndRenderPass(cmd);
                target.recordCopy(cmd);
                return true;
            });
            if (!recorded) error = recorded.message();
            pixels = target.pixels();
        }
    }
    vkDestroyFramebuffer(host.device, framebuffer, nullptr);
    vkDestroyRenderPass(host.device, renderPass, nullptr);
    return pixels;
}

// The same frame drawn with dynamic rendering begun by the host.
std::vector<uint32_t> drawWithDynamicRendering(Host& host, std::string& error) {
    auto adopted = Device::adopt(host.adoptInfo());
    if (!adopted) return error = adopted.message(), std::vector<uint32_t>{};
    Device& device = *adopted.value();
    Target target;
    if (!target.create(host)) return error = "host target", std::vector<uint32_t>{};
    auto surface = iso::IsoSurface::create(device, surfaceInfo());
    auto renderer = iso::SurfaceRenderer::create(device, {.colorFormat = kColor, .depthFormat = kDepth});
    if (!surface || !renderer) return error = surface.message() + renderer.message(), std::vector<uint32_t>{};
    if (!surface.value()->setMetaballs(kBalls)) return error = "setMetaballs", std::vector<uint32_t>{};
    iso::IsoSurface& s = *surface.value();
    renderer.value()->setView(view(true));
    Status recorded;
    host.submit([&](VkCommandBuffer cmd) {
        recorded = s.record(cmd);
        VkImageMemoryBarrier2 b[2]{};
        for (VkImageMemoryBarrier2& x : b) {
            x.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2;
            x.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
            x.srcQueueFamilyIndex = x.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
        }
        b[0].dstStageMask = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT;
        b[0].dstAccessMask = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT;
        b[0].newLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
        b[0].image = target.color;
        b[0].subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
        b[1].dstStageMask = VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT;
        b[1].dstAccessMask =
            VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT;
        b[1].newLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL;
        b[1].image = target.depth;
        b[1].subresourceRange = {VK_IMAGE_ASPECT_DEPTH_BIT, 0, 1, 0, 1};
        VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
        dep.imageMemoryBarrierCount = 2;
        dep.pImageMemoryBarriers = b;
        vkCmdPipelineBarrier2(cmd, &dep);
        VkRenderingAttachmentInfo color{VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
        color.imageView = target.colorView;
        color.imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
        color.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
        color.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
        color.clearValue.color = {{0.1f, 0.2f, 0.3f, 1.f}};
        VkRenderingAttachmentInfo depth{VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
        depth.imageView = target.depthView;
        depth.imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL;
        depth.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
        depth.storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
        depth.clearValue.depthStencil = {1.f, 0};
        VkRenderingInfo ri{VK_STRUCTURE_TYPE_RENDERING_INFO};
        ri.renderArea = {{0, 0}, {kSize, kSize}};
        ri.layerCount = 1;
        ri.colorAttachmentCount = 1;
        ri.pColorAttachments = &color;
        ri.pDepthAttachment = &depth;
        vkCmdBeginRendering(cmd, &ri);
        setViewport(cmd);
        renderer.value()->recordDraw(cmd, s.vertexBuffer().handle(), s.drawArgsBuffer().handle(),
                                     iso::IsoSurface::drawArgsOffset());
        vkCmdEndRendering(cmd);
        VkImageMemoryBarrier2 toCopy = b[0];
        toCopy.srcStageMask = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT;
        toCopy.srcAccessMask = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT;
        toCopy.dstStageMask = VK_PIPELINE_STAGE_2_COPY_BIT;
        toCopy.dstAccessMask = VK_ACCESS_2_TRANSFER_READ_BIT;
        toCopy.oldLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
        toCopy.newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
        dep.imageMemoryBarrierCount = 1;
        dep.pImageMemoryBarriers = &toCopy;
        vkCmdPipelineBarrier2(cmd, &dep);
        target.recordCopy(cmd);
        return true;
    });
    if (!recorded) error = recorded.message();
    return target.pixels();
}

void expectNoMessages() {
    for (const std::string& m : g_messages) ADD_FAILURE() << "validation: " << m;
    g_messages.clear();
}

} // namespace

// A compute-only host: no dynamic rendering. The surface is complete and
// matches the CPU marching cubes; graphics built for dynamic rendering is a
// named error.
TEST(HostFrame, ComputeSurfaceWithoutDynamicRendering) {
    Host host;
    if (!host.create({})) PYRAMARCH_FAIL_OR_SKIP_NO_DEVICE("host device: " + host.error);
    {
        auto adopted = Device::adopt(host.adoptInfo());
        ASSERT_TRUE(adopted.ok()) << adopted.message();
        Device& device = *adopted.value();
        EXPECT_FALSE(device.limits().dynamicRendering);
        auto surface = iso::IsoSurface::create(device, surfaceInfo());
        ASSERT_TRUE(surface.ok()) << surface.message();
        ASSERT_TRUE(surface.value()->setMetaballs(kBalls).ok());
        Status recorded;
        ASSERT_TRUE(host.submit([&](VkCommandBuffer cmd) {
            recorded = surface.value()->record(cmd);
            return true;
        }));
        ASSERT_TRUE(recorded.ok()) << recorded.message();
        EXPECT_FALSE(surface.value()->latestTimings().has_value()) << "timestamps were switched off";
        auto mesh = surface.value()->readMesh();
        ASSERT_TRUE(mesh.ok()) << mesh.message();

        ref::Grid g;
        g.n[0] = g.n[1] = g.n[2] = 17;
        std::vector<ref::Ball> balls;
        for (const iso::Metaball& b : kBalls) balls.push_back({{b.center[0], b.center[1], b.center[2]}, b.radius, 1.f});
        const auto field = ref::metaballs(g, balls);
        const auto expected = ref::marchingCubes(g, field.data(), 0.5f, ref::Normals::Central);
        ASSERT_GT(expected.vertices.size(), 0u);
        EXPECT_EQ(mesh.value().indices.size(), expected.vertices.size());

        auto dynamicRenderer = iso::SurfaceRenderer::create(device, {.colorFormat = kColor, .depthFormat = kDepth});
        ASSERT_FALSE(dynamicRenderer.ok());
        EXPECT_EQ(dynamicRenderer.code(), ErrorCode::Unsupported);
        EXPECT_NE(dynamicRenderer.message().find("dynamicRendering"), std::string::npos) << dynamicRenderer.message();
        EXPECT_NE(dynamicRenderer.message().find("VkRenderPass"), std::string::npos) << dynamicRenderer.message();
    }
    expectNoMessages();
}

// A compute-only host (no dynamic rendering, geometry shaders, fragment
// stores or Float64) voxelizes too: ConservativeMethod::Auto takes the
// compute tiles for the large triangles, so the voxelizer records no
// graphics work; its voxels lie between the open and closed references
// (the float test alone decides without Float64).
TEST(HostFrame, VoxelizerWithoutARasterizer) {
    Host host;
    if (!host.create({})) PYRAMARCH_FAIL_OR_SKIP_NO_DEVICE("host device: " + host.error);
    {
        auto adopted = Device::adopt(host.adoptInfo());
        ASSERT_TRUE(adopted.ok()) << adopted.message();
        Device& device = *adopted.value();
        ASSERT_FALSE(device.limits().geometryShader);
        using namespace pyramarch::voxel;
        namespace vref = pyramarch::voxel::ref;
        TriangleMesh mesh = shapes::box({2.3f, 3.1f, 4.7f}, {40.2f, 37.9f, 30.3f});
        shapes::append(mesh, shapes::triangle({-3, 1.5f, 2}, {45, 7, 40}, {4, 47, 11.3f}));
        shapes::append(mesh, shapes::slivers({1, 1, 1}, {47, 47, 47}, 1e-4f, 20, 3));
        auto grid = gridFromBox({0, 0, 0}, {48, 48, 48}, 48, 48, 48);
        ASSERT_TRUE(grid.ok());
        auto gs = Voxelizer::create(device, {.maxResolution = 64, .method = ConservativeMethod::GeometryShader});
        ASSERT_FALSE(gs.ok());
        EXPECT_EQ(gs.code(), ErrorCode::Unsupported);
        EXPECT_NE(gs.message().find("geometry shaders"), std::string::npos) << gs.message();
        EXPECT_NE(gs.message().find("ConservativeMethod::Compute"), std::string::npos) << gs.message();
        auto vox = Voxelizer::create(device, {.maxResolution = 64});
        ASSERT_TRUE(vox.ok()) << vox.message();
        ASSERT_TRUE(vox.value()->setMesh(mesh, *grid).ok());
        Status recorded;
        ASSERT_TRUE(host.submit([&](VkCommandBuffer cmd) {
            recorded = vox.value()->record(cmd);
            return true;
        }));
        ASSERT_TRUE(recorded.ok()) << recorded.message();
        auto fragments = vox.value()->readFragments();
        ASSERT_TRUE(fragments.ok()) << fragments.message();
        std::vector<uint32_t> keys;
        for (const VoxelFragment& f : *fragments) keys.push_back(vref::key(f.x, f.y, f.z));
        std::sort(keys.begin(), keys.end());
        keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
        // Without Float64 a pair within the float test's rounding of the
        // voxel's boundary may go either way (an edge grazing a voxel edge
        // here): a voxel missing from the open set must be one whose
        // interior shrunk by 1e-4 the mesh misses, an extra one must be
        // touched by the voxel grown by 1e-4.
        const auto open = vref::voxelize(mesh, *grid, vref::Overlap::Open);
        const auto closed = vref::voxelize(mesh, *grid, vref::Overlap::Closed);
        ASSERT_GT(open.size(), 1000u);
        auto touchedScaled = [&](uint32_t key, double scale, vref::Overlap mode) {
            const auto u = vref::unkey(key);
            for (size_t t = 0; t < mesh.triangleCount(); ++t) {
                vref::Vec3d v[3];
                if (!vref::gridTriangle(mesh, *grid, t, v)) continue;
                for (auto& p : v)
                    for (int a = 0; a < 3; ++a) p[a] = (p[a] - (u[a] + 0.5)) * scale + (u[a] + 0.5);
                if (vref::triangleOverlapsVoxel(v, int(u[0]), int(u[1]), int(u[2]), mode)) return true;
            }
            return false;
        };
        size_t missing = 0, extra = 0, grazed = 0;
        for (uint32_t k : open)
            if (!std::binary_search(keys.begin(), keys.end(), k)) {
                ++grazed;
                missing += touchedScaled(k, 1.0 / (1.0 - 2e-4), vref::Overlap::Open) ? 1 : 0;
            }
        for (uint32_t k : keys)
            if (!std::binary_search(closed.begin(), closed.end(), k))
                extra += touchedScaled(k, 1.0 / (1.0 + 2e-4), vref::Overlap::Closed) ? 0 : 1;
        EXPECT_EQ(missing, 0u) << "voxels the mesh crosses are missing (" << grazed << " grazed)";
        EXPECT_EQ(extra, 0u) << "voxels the mesh does not touch";
    }
    expectNoMessages();
}

// The surface drawn inside the host's classic render pass (no dynamic
// rendering on that device) gives the pixels of the dynamic-rendering draw
// on a second host device; a projection that keeps y with a clockwise front
// face gives the same picture upside down.
TEST(HostFrame, DrawsInsideTheHostsRenderPass) {
    std::vector<uint32_t> classic, mirrored, dynamic;
    {
        Host host;
        if (!host.create({})) PYRAMARCH_FAIL_OR_SKIP_NO_DEVICE("host device: " + host.error);
        std::string error;
        classic = drawInRenderPass(host, true, error);
        ASSERT_EQ(error, "");
        mirrored = drawInRenderPass(host, false, error);
        ASSERT_EQ(error, "");
    }
    expectNoMessages();
    {
        Host host;
        ASSERT_TRUE(host.create({.dynamicRendering = true})) << host.error;
        std::string error;
        dynamic = drawWithDynamicRendering(host, error);
        ASSERT_EQ(error, "");
    }
    expectNoMessages();
    ASSERT_EQ(classic.size(), size_t(kSize) * kSize);
    ASSERT_EQ(dynamic.size(), classic.size());
    const uint32_t background = classic[0];
    size_t covered = 0, differing = 0, mirrorMismatch = 0;
    for (uint32_t y = 0; y < kSize; ++y)
        for (uint32_t x = 0; x < kSize; ++x) {
            const uint32_t c = classic[y * kSize + x];
            covered += c != background;
            differing += c != dynamic[y * kSize + x];
            mirrorMismatch += c != mirrored[(kSize - 1 - y) * kSize + x];
        }
    std::printf("covered %zu of %u pixels, %zu differ from dynamic rendering, %zu from the mirrored draw\n", covered,
                kSize * kSize, differing, mirrorMismatch);
    EXPECT_GT(covered, size_t(kSize) * kSize / 20) << "the surface covers part of the image";
    EXPECT_LT(covered, size_t(kSize) * kSize * 9 / 10);
    EXPECT_EQ(differing, 0u) << "render pass and dynamic rendering draw the same pixels";
    // Rasterization ties on edges may fall differently upside down.
    EXPECT_LT(mirrorMismatch, size_t(kSize) * kSize / 100) << "front face of a y-keeping projection";
}

// A renderer built for a render pass refuses graph use (the graph begins
// dynamic rendering).
TEST(HostFrame, RenderPassRendererRefusesAGraph) {
    Host host;
    if (!host.create({})) PYRAMARCH_FAIL_OR_SKIP_NO_DEVICE("host device: " + host.error);
    {
        auto adopted = Device::adopt(host.adoptInfo());
        ASSERT_TRUE(adopted.ok()) << adopted.message();
        VkRenderPass rp = createRenderPass(host.device);
        {
            iso::SurfaceRendererCreateInfo ri;
            ri.colorFormat = kColor;
            ri.depthFormat = kDepth;
            ri.renderPass = rp;
            auto renderer = iso::SurfaceRenderer::create(*adopted.value(), ri);
            ASSERT_TRUE(renderer.ok()) << renderer.message();
            RenderGraph graph(adopted.value().get());
            auto added = renderer.value()->addPasses(graph, {});
            ASSERT_FALSE(added.ok());
            EXPECT_EQ(added.code(), ErrorCode::InvalidState);
            EXPECT_NE(added.message().find("recordDraw"), std::string::npos) << added.message();
        }
        vkDestroyRenderPass(host.device, rp, nullptr);
    }
    expectNoMessages();
}

// An instance created for Vulkan 1.0 cannot run the module: adopt() says so
// instead of a later "over maxBufferSize (0 bytes)".
TEST(HostFrame, OldInstanceApiVersionIsNamed) {
    Host host;
    // No layer: the host's own 1.0 device is not what is tested here.
    if (!host.create({.apiVersion = VK_API_VERSION_1_0, .validation = false}))
        PYRAMARCH_FAIL_OR_SKIP_NO_DEVICE("host device: " + host.error);
    AdoptInfo info = host.adoptInfo();
    auto adopted = Device::adopt(info);
    ASSERT_FALSE(adopted.ok());
    EXPECT_EQ(adopted.code(), ErrorCode::Unsupported);
    EXPECT_NE(adopted.message().find("apiVersion"), std::string::npos) << adopted.message();
    EXPECT_NE(adopted.message().find("1.3"), std::string::npos) << adopted.message();

    info.apiVersion = VK_API_VERSION_1_0;
    adopted = Device::adopt(info);
    ASSERT_FALSE(adopted.ok());
    EXPECT_EQ(adopted.code(), ErrorCode::Unsupported);
    EXPECT_NE(adopted.message().find("AdoptInfo::apiVersion is 1.0"), std::string::npos) << adopted.message();
}

namespace {
// The host's own entry point, reporting its queue family as transfer-only
// (lavapipe has one universal family, so the host's loader plays the device
// that has a transfer-only family).
PFN_vkGetInstanceProcAddr g_realGipa = nullptr;
VkInstance g_instance = VK_NULL_HANDLE;
VKAPI_ATTR void VKAPI_CALL transferOnlyFamilies(VkPhysicalDevice pd, uint32_t* count,
                                                VkQueueFamilyProperties* families) {
    auto real = reinterpret_cast<PFN_vkGetPhysicalDeviceQueueFamilyProperties>(
        g_realGipa(g_instance, "vkGetPhysicalDeviceQueueFamilyProperties"));
    real(pd, count, families);
    if (families)
        for (uint32_t i = 0; i < *count; ++i) families[i].queueFlags = VK_QUEUE_TRANSFER_BIT;
}
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL transferOnlyGipa(VkInstance instance, const char* name) {
    if (std::strcmp(name, "vkGetPhysicalDeviceQueueFamilyProperties") == 0)
        return reinterpret_cast<PFN_vkVoidFunction>(transferOnlyFamilies);
    return g_realGipa(instance, name);
}
} // namespace

TEST(HostFrame, QueueFamilyWithoutComputeIsNamed) {
    Host host;
    if (!host.create({})) PYRAMARCH_FAIL_OR_SKIP_NO_DEVICE("host device: " + host.error);
    g_realGipa = vkGetInstanceProcAddr;
    g_instance = host.instance;
    AdoptInfo info = host.adoptInfo();
    info.getInstanceProcAddr = transferOnlyGipa;
    auto adopted = Device::adopt(info);
    ASSERT_FALSE(adopted.ok());
    EXPECT_EQ(adopted.code(), ErrorCode::Unsupported);
    EXPECT_NE(adopted.message().find("has no compute"), std::string::npos) << adopted.message();
    EXPECT_NE(adopted.message().find("transfer"), std::string::npos) << adopted.message();
    expectNoMessages();
}
