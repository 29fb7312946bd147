// Windowed path: GLFW window, VkSurfaceKHR + swapchain (resize, minimise,
// vsync toggle), two frames in flight, the scene's graphs plus an ImGui pass
// in the draw graph, orbit camera. Debian's imgui 1.86 Vulkan backend needs
// a VkRenderPass, so the UI pass begins a one-subpass render pass on the
// swapchain image that the graph already moved to COLOR_ATTACHMENT_OPTIMAL.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "pyramarch/engine/transfer.h"
#include "pyramarch/engine/vulkan_functions.h"
#include "sample/app.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_vulkan.h>

// GLFW's surface entry point, declared here because GLFW_INCLUDE_VULKAN would
// pull in the loader's prototypes, which clash with the module's volk table.
extern "C" VkResult glfwCreateWindowSurface(VkInstance, GLFWwindow*, const VkAllocationCallbacks*, VkSurfaceKHR*);

namespace sample {

using namespace pyramarch;

namespace {

constexpr uint32_t kFramesInFlight = 2;

struct Swapchain {
    VkSwapchainKHR handle = VK_NULL_HANDLE;
    VkFormat format = VK_FORMAT_UNDEFINED;
    VkExtent2D extent{};
    std::vector<VkImage> images;
    std::vector<VkImageView> views;
    std::vector<VkFramebuffer> framebuffers; // UI render pass
    std::vector<VkSemaphore> renderDone;     // per image: presentation waits on it
};

struct FrameSlot {
    VkCommandPool pool = VK_NULL_HANDLE;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    VkSemaphore acquired = VK_NULL_HANDLE;
    uint64_t token = UINT64_MAX; // the view's frame recorded in this slot
};

// The iso scenes in the window: a Scene drawn by a SceneRenderer, with the
// panel of field source, grid, normals and shading. The settings live in the
// Window (IsoSettings) so a re-created view keeps them.
struct IsoSettings {
    SceneConfig config;
    iso::SurfaceShading shading = iso::SurfaceShading::Lit;
    bool wireframe = false;
};

class IsoView final : public WindowView {
public:
    static Result<std::unique_ptr<WindowView>> create(Device& device, IsoSettings& settings, const RenderTarget& target,
                                                      ExtraPasses extra, std::function<void(Device&, Scene&)> panel,
                                                      const SampleApp& app) {
        std::unique_ptr<IsoView> v(new IsoView(device, settings));
        v->panel_ = std::move(panel);
        v->ownScene_ = bool(app.makeScene);
        auto scene = app.makeScene ? app.makeScene(device, settings.config) : makeScene(device, settings.config);
        if (!scene) return scene.status();
        v->scene_ = std::move(scene).value();
        auto r = SceneRenderer::create(device, *v->scene_, target, true, std::move(extra));
        if (!r) return r.status();
        v->renderer_ = std::move(r).value();
        return std::unique_ptr<WindowView>(std::move(v));
    }
    ~IsoView() override {
        renderer_.reset(); // reads the scene's buffers
        scene_.reset();
    }
    Status setTarget(const RenderTarget& target) override { return renderer_->setTarget(target); }
    void rebindTarget(VkImage image, VkImageView view, VkImageLayout layout) override {
        renderer_->rebindTarget(image, view, layout);
    }
    Status update(double time, const OrbitCamera& camera, float aspect) override {
        PYRAMARCH_TRY(scene_->update(time));
        iso::SurfaceView view = camera.view(aspect);
        view.shading = settings_.shading;
        view.wireframe = settings_.wireframe;
        renderer_->surfaceRenderer().setView(view);
        return {};
    }
    Status record(VkCommandBuffer cmd, uint64_t& token) override {
        token = scene_->surface().framesRecorded();
        return renderer_->record(cmd);
    }
    void frameFinished(uint64_t token) override {
        if (auto s = scene_->surface().statsOfFrame(token)) stats_ = s;
    }
    std::vector<PassTiming> latestTimings() const override { return renderer_->latestTimings(); }
    float viewRadius() const override { return scene_->viewRadius(); }
    void ui(bool& recreate) override;

private:
    IsoView(Device& d, IsoSettings& s) : device_(d), settings_(s) {}
    Device& device_;
    IsoSettings& settings_;
    std::function<void(Device&, Scene&)> panel_;
    bool ownScene_ = false; // SampleApp::makeScene: no field-source combo, no grid slider
    std::unique_ptr<Scene> scene_;
    std::optional<iso::IsoStats> stats_;
    std::unique_ptr<SceneRenderer> renderer_;
};

void IsoView::ui(bool& recreate) {
    SceneConfig& config = settings_.config;
    static const char* sources[] = {"metaballs", "pointcloud", "cayley", "sphere", "gyroid", "volume"};
    const int nSources = config.volume ? 6 : 5;
    int source = 0;
    for (int i = 0; i < nSources; ++i)
        if (config.source == sources[i]) source = i;
    if (!ownScene_ && ImGui::Combo("field source", &source, sources, nSources)) {
        config.source = sources[source];
        config.iso = NAN;
        recreate = true;
    }
    scene_->ui(config);
    // A scene's own widgets ask for a new scene through the config (its
    // ui() cannot reach the loop).
    if (config.recreate) {
        config.recreate = false;
        recreate = true;
    }
    int cells = int(config.cells);
    const bool gridSlider = !ownScene_ && config.source != "volume";
    if (gridSlider && ImGui::SliderInt("grid cells", &cells, 8, 160)) config.cells = uint32_t(cells);
    if (gridSlider && ImGui::IsItemDeactivatedAfterEdit()) recreate = true;
    int normals = int(config.normals);
    static const char* normalNames[] = {"forward", "central", "sobel", "none (face normals)"};
    if (ImGui::Combo("normals", &normals, normalNames, 4)) {
        config.normals = iso::NormalMode(normals);
        recreate = true;
    }
    if (ImGui::Checkbox("shared vertices (indexed)", &config.indexed)) recreate = true;
    int shading = int(settings_.shading);
    static const char* shadingNames[] = {"lit", "triangles per cell", "normals"};
    if (ImGui::Combo("colouring", &shading, shadingNames, 3)) settings_.shading = iso::SurfaceShading(shading);
    if (renderer_->surfaceRenderer().wireframeSupported())
        ImGui::Checkbox("wireframe", &settings_.wireframe);
    else
        ImGui::TextDisabled("wireframe: not supported by the device");
    ImGui::Separator();
    if (stats_) {
        if (scene_->indexed())
            ImGui::Text("triangles: %u   vertices: %u   active cells: %u", stats_->indicesWritten / 3,
                        stats_->verticesNeeded, stats_->activeCells);
        else
            ImGui::Text("triangles: %u   active cells: %u", stats_->verticesWritten / 3, stats_->activeCells);
        if (stats_->overflow)
            ImGui::TextColored(ImVec4(1, 0.3f, 0.3f, 1), "OVERFLOW: %u triangles / %u vertices needed",
                               stats_->indicesNeeded ? stats_->indicesNeeded / 3 : stats_->verticesNeeded / 3,
                               stats_->verticesNeeded);
    } else {
        ImGui::Text("triangles: (waiting for the GPU)");
    }
    if (panel_) panel_(device_, *scene_);
}

class Window {
public:
    Window(const CommonOptions& o, SampleApp& app) : options_(o), app_(app) { iso_.config = app.config; }
    ~Window() { destroy(); }
    int run();

private:
    Status init();
    Status createSwapchain();
    void destroySwapchain();
    Status recreateView();
    RenderTarget target() const;
    Status frame();
    void buildUi();
    void handleInput();
    void destroy();
    void exerciseResize(uint32_t frame);
    const VolkDeviceTable& vk() const { return device_->vk(); }

    CommonOptions options_;
    SampleApp& app_;
    IsoSettings iso_; // the default (iso scene) view's settings
    std::atomic<uint32_t> messages_{0};
    GLFWwindow* window_ = nullptr;
    std::unique_ptr<Device> device_;
    VkSurfaceKHR surface_ = VK_NULL_HANDLE;
    Swapchain swap_;
    VkRenderPass uiPass_ = VK_NULL_HANDLE;
    VkDescriptorPool uiPool_ = VK_NULL_HANDLE;
    bool imguiVulkan_ = false, imguiGlfw_ = false;
    std::unique_ptr<WindowView> view_;
    FrameSlot slots_[kFramesInFlight];
    uint64_t frameCount_ = 0;
    uint32_t currentImage_ = 0;
    bool vsync_ = true;
    bool swapchainDirty_ = false;
    bool sceneDirty_ = false;
    OrbitCamera camera_;
    double time_ = 0.0;
    bool paused_ = false;
    double lastClock_ = 0.0;
    double lastX_ = 0, lastY_ = 0;
    std::vector<PassTiming> timings_;
    std::string error_;
    // --out in windowed mode: the last frame (--frames) is copied from the
    // swapchain image before presentation (the UI included).
    Buffer capture_;
    bool captureThisFrame_ = false;
    bool captured_ = false;
};

void checkVk(VkResult r) {
    if (r != VK_SUCCESS) std::fprintf(stderr, "imgui vulkan backend: %s\n", vkResultName(r).c_str());
}

Status Window::init() {
    vsync_ = options_.vsync;
    iso_.wireframe = options_.wireframe;
    iso_.shading = shadingFromName(options_.shading);
    if (!glfwInit())
        return Status::error(ErrorCode::Unsupported, "GLFW could not initialise (no display? use --headless)");
    if (!glfwVulkanSupported()) return Status::error(ErrorCode::NotFound, "GLFW found no Vulkan loader");
    glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
    window_ = glfwCreateWindow(int(options_.width), int(options_.height), app_.title.c_str(), nullptr, nullptr);
    if (!window_) return Status::error(ErrorCode::Unsupported, "cannot create a window (no display? use --headless)");
    uint32_t count = 0;
    const char** exts = glfwGetRequiredInstanceExtensions(&count);
    if (!exts)
        return Status::error(ErrorCode::Unsupported, "GLFW: no Vulkan surface extensions for this window system");
    std::vector<const char*> instanceExtensions(exts, exts + count);
    auto device = createSampleDevice(options_, &messages_, instanceExtensions, {VK_KHR_SWAPCHAIN_EXTENSION_NAME});
    if (!device) return device.status();
    device_ = std::move(device).value();
    VkResult r = glfwCreateWindowSurface(device_->instance(), window_, nullptr, &surface_);
    if (r != VK_SUCCESS)
        return Status::error(Status::codeOf(r), "glfwCreateWindowSurface failed: " + vkResultName(r), r);
    VkBool32 present = VK_FALSE;
    device_->vki().getPhysicalDeviceSurfaceSupportKHR(device_->physicalDevice(), device_->queueFamily(), surface_,
                                                      &present);
    if (!present)
        return Status::error(ErrorCode::Unsupported, "the device's queue family cannot present to this window");

    for (FrameSlot& s : slots_) {
        VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        pci.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
        pci.queueFamilyIndex = device_->queueFamily();
        if ((r = vk().vkCreateCommandPool(device_->device(), &pci, nullptr, &s.pool)) != VK_SUCCESS)
            return Status::error(Status::codeOf(r), "vkCreateCommandPool: " + vkResultName(r), r);
        VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        ai.commandPool = s.pool;
        ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        ai.commandBufferCount = 1;
        if ((r = vk().vkAllocateCommandBuffers(device_->device(), &ai, &s.cmd)) != VK_SUCCESS)
            return Status::error(Status::codeOf(r), "vkAllocateCommandBuffers: " + vkResultName(r), r);
        VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        fci.flags = VK_FENCE_CREATE_SIGNALED_BIT;
        if ((r = vk().vkCreateFence(device_->device(), &fci, nullptr, &s.fence)) != VK_SUCCESS)
            return Status::error(Status::codeOf(r), "vkCreateFence", r);
        VkSemaphoreCreateInfo sci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
        if ((r = vk().vkCreateSemaphore(device_->device(), &sci, nullptr, &s.acquired)) != VK_SUCCESS)
            return Status::error(Status::codeOf(r), "vkCreateSemaphore", r);
    }
    PYRAMARCH_TRY(createSwapchain());

    // ImGui: the GLFW backend chains our callbacks; the Vulkan backend renders
    // inside uiPass_.
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;
    ImGui::StyleColorsDark();
    imguiGlfw_ = ImGui_ImplGlfw_InitForVulkan(window_, true);
    VkDescriptorPoolSize poolSize{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 4};
    VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dpci.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT;
    dpci.maxSets = 4;
    dpci.poolSizeCount = 1;
    dpci.pPoolSizes = &poolSize;
    if ((r = vk().vkCreateDescriptorPool(device_->device(), &dpci, nullptr, &uiPool_)) != VK_SUCCESS)
        return Status::error(Status::codeOf(r), "vkCreateDescriptorPool (ui): " + vkResultName(r), r);
    ImGui_ImplVulkan_InitInfo ii{};
    ii.Instance = device_->instance();
    ii.PhysicalDevice = device_->physicalDevice();
    ii.Device = device_->device();
    ii.QueueFamily = device_->queueFamily();
    ii.Queue = device_->queue();
    ii.DescriptorPool = uiPool_;
    // The backend rotates its vertex buffers over ImageCount frames: keep it
    // above the frames in flight.
    ii.MinImageCount = 2;
    ii.ImageCount = std::max<uint32_t>(uint32_t(swap_.images.size()), kFramesInFlight + 1);
    ii.MSAASamples = VK_SAMPLE_COUNT_1_BIT;
    ii.CheckVkResultFn = checkVk;
    if (!ImGui_ImplVulkan_Init(&ii, uiPass_)) return Status::error(ErrorCode::Vulkan, "ImGui_ImplVulkan_Init failed");
    imguiVulkan_ = true;
    PYRAMARCH_TRY(submitAndWait(*device_, [](VkCommandBuffer cmd) { ImGui_ImplVulkan_CreateFontsTexture(cmd); }));
    ImGui_ImplVulkan_DestroyFontUploadObjects();

    PYRAMARCH_TRY(recreateView());
    lastClock_ = glfwGetTime();
    return {};
}

Status Window::createSwapchain() {
    const InstanceFunctions& vki = device_->vki();
    VkSurfaceCapabilitiesKHR caps;
    VkResult r = vki.getPhysicalDeviceSurfaceCapabilitiesKHR(device_->physicalDevice(), surface_, &caps);
    if (r != VK_SUCCESS)
        return Status::error(Status::codeOf(r), "vkGetPhysicalDeviceSurfaceCapabilitiesKHR: " + vkResultName(r), r);
    VkExtent2D extent = caps.currentExtent;
    if (extent.width == UINT32_MAX) {
        int w = 0, h = 0;
        glfwGetFramebufferSize(window_, &w, &h);
        extent = {std::clamp(uint32_t(w), caps.minImageExtent.width, caps.maxImageExtent.width),
                  std::clamp(uint32_t(h), caps.minImageExtent.height, caps.maxImageExtent.height)};
    }
    if (extent.width == 0 || extent.height == 0) return {}; // minimised: try again later
    uint32_t n = 0;
    vki.getPhysicalDeviceSurfaceFormatsKHR(device_->physicalDevice(), surface_, &n, nullptr);
    std::vector<VkSurfaceFormatKHR> formats(n);
    vki.getPhysicalDeviceSurfaceFormatsKHR(device_->physicalDevice(), surface_, &n, formats.data());
    if (formats.empty()) return Status::error(ErrorCode::Unsupported, "the surface offers no formats");
    VkSurfaceFormatKHR chosen = formats[0];
    for (const VkSurfaceFormatKHR& f : formats)
        if ((f.format == VK_FORMAT_B8G8R8A8_SRGB || f.format == VK_FORMAT_R8G8B8A8_SRGB) &&
            f.colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR)
            chosen = f;
    vki.getPhysicalDeviceSurfacePresentModesKHR(device_->physicalDevice(), surface_, &n, nullptr);
    std::vector<VkPresentModeKHR> modes(n);
    vki.getPhysicalDeviceSurfacePresentModesKHR(device_->physicalDevice(), surface_, &n, modes.data());
    VkPresentModeKHR mode = VK_PRESENT_MODE_FIFO_KHR; // always available: vsync
    if (!vsync_)
        for (VkPresentModeKHR m : modes)
            if (m == VK_PRESENT_MODE_MAILBOX_KHR ||
                (m == VK_PRESENT_MODE_IMMEDIATE_KHR && mode == VK_PRESENT_MODE_FIFO_KHR))
                mode = m;

    VkSwapchainKHR old = swap_.handle;
    VkSwapchainCreateInfoKHR sci{VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
    sci.surface = surface_;
    sci.minImageCount = std::max(caps.minImageCount, kFramesInFlight + 1);
    if (caps.maxImageCount) sci.minImageCount = std::min(sci.minImageCount, caps.maxImageCount);
    sci.imageFormat = chosen.format;
    sci.imageColorSpace = chosen.colorSpace;
    sci.imageExtent = extent;
    sci.imageArrayLayers = 1;
    sci.imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
    if (!options_.out.empty()) {
        if (!(caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_SRC_BIT))
            return Status::error(ErrorCode::Unsupported, "--out: the swapchain cannot be copied from on this device");
        sci.imageUsage |= VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    }
    sci.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
    sci.preTransform = caps.currentTransform;
    sci.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
    if (!(caps.supportedCompositeAlpha & sci.compositeAlpha)) sci.compositeAlpha = VK_COMPOSITE_ALPHA_INHERIT_BIT_KHR;
    sci.presentMode = mode;
    sci.clipped = VK_TRUE;
    sci.oldSwapchain = old;
    VkSwapchainKHR handle = VK_NULL_HANDLE;
    r = vk().vkCreateSwapchainKHR(device_->device(), &sci, nullptr, &handle);
    if (r != VK_SUCCESS) return Status::error(Status::codeOf(r), "vkCreateSwapchainKHR: " + vkResultName(r), r);
    destroySwapchain(); // the old one (the GPU is idle: callers wait first)
    swap_.handle = handle;
    swap_.format = chosen.format;
    swap_.extent = extent;
    vk().vkGetSwapchainImagesKHR(device_->device(), handle, &n, nullptr);
    swap_.images.resize(n);
    vk().vkGetSwapchainImagesKHR(device_->device(), handle, &n, swap_.images.data());

    if (!uiPass_) {
        VkAttachmentDescription att{};
        att.format = chosen.format;
        att.samples = VK_SAMPLE_COUNT_1_BIT;
        att.loadOp = VK_ATTACHMENT_LOAD_OP_LOAD;
        att.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
        att.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
        att.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
        // The graph has the image in this layout and takes it on to present.
        att.initialLayout = att.finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
        VkAttachmentReference ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
        VkSubpassDescription sub{};
        sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
        sub.colorAttachmentCount = 1;
        sub.pColorAttachments = &ref;
        VkRenderPassCreateInfo rpci{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
        rpci.attachmentCount = 1;
        rpci.pAttachments = &att;
        rpci.subpassCount = 1;
        rpci.pSubpasses = &sub;
        r = vk().vkCreateRenderPass(device_->device(), &rpci, nullptr, &uiPass_);
        if (r != VK_SUCCESS) return Status::error(Status::codeOf(r), "vkCreateRenderPass (ui): " + vkResultName(r), r);
    }
    for (VkImage img : swap_.images) {
        VkImageViewCreateInfo vci{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
        vci.image = img;
        vci.viewType = VK_IMAGE_VIEW_TYPE_2D;
        vci.format = chosen.format;
        vci.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
        VkImageView view = VK_NULL_HANDLE;
        if ((r = vk().vkCreateImageView(device_->device(), &vci, nullptr, &view)) != VK_SUCCESS)
            return Status::error(Status::codeOf(r), "vkCreateImageView", r);
        swap_.views.push_back(view);
        VkFramebufferCreateInfo fci{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
        fci.renderPass = uiPass_;
        fci.attachmentCount = 1;
        fci.pAttachments = &view;
        fci.width = extent.width;
        fci.height = extent.height;
        fci.layers = 1;
        VkFramebuffer fb = VK_NULL_HANDLE;
        if ((r = vk().vkCreateFramebuffer(device_->device(), &fci, nullptr, &fb)) != VK_SUCCESS)
            return Status::error(Status::codeOf(r), "vkCreateFramebuffer", r);
        swap_.framebuffers.push_back(fb);
        VkSemaphoreCreateInfo semci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
        VkSemaphore sem = VK_NULL_HANDLE;
        if ((r = vk().vkCreateSemaphore(device_->device(), &semci, nullptr, &sem)) != VK_SUCCESS)
            return Status::error(Status::codeOf(r), "vkCreateSemaphore", r);
        swap_.renderDone.push_back(sem);
    }
    if (imguiVulkan_) ImGui_ImplVulkan_SetMinImageCount(2);
    if (!options_.out.empty()) {
        auto b =
            device_->allocator().createBuffer({VkDeviceSize(extent.width) * extent.height * 4,
                                               VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUsage::Readback, "screenshot"});
        if (!b) return b.status();
        capture_ = std::move(b).value();
    }
    if (view_) PYRAMARCH_TRY(view_->setTarget(target()));
    swapchainDirty_ = false;
    return {};
}

void Window::destroySwapchain() {
    if (!device_) return;
    VkDevice d = device_->device();
    for (VkFramebuffer f : swap_.framebuffers) vk().vkDestroyFramebuffer(d, f, nullptr);
    for (VkImageView v : swap_.views) vk().vkDestroyImageView(d, v, nullptr);
    for (VkSemaphore s : swap_.renderDone) vk().vkDestroySemaphore(d, s, nullptr);
    if (swap_.handle) vk().vkDestroySwapchainKHR(d, swap_.handle, nullptr);
    swap_ = Swapchain{};
}

RenderTarget Window::target() const {
    RenderTarget t;
    t.colorFormat = swap_.format;
    t.extent = swap_.extent;
    t.samples = static_cast<VkSampleCountFlagBits>(options_.msaa);
    t.image.format = swap_.format;
    t.image.extent = {swap_.extent.width, swap_.extent.height, 1};
    t.image.image = swap_.images.empty() ? VK_NULL_HANDLE : swap_.images[0];
    t.image.view = swap_.views.empty() ? VK_NULL_HANDLE : swap_.views[0];
    // The acquire semaphore is waited at colour-attachment output, so the
    // layout transition must come after that stage (not after "none").
    t.before = {Access::ColorAttachment, PassKind::Graphics};
    t.after = {Access::Present, PassKind::Graphics};
    return t;
}

Status Window::recreateView() {
    vk().vkDeviceWaitIdle(device_->device());
    view_.reset();
    auto uiPass = [this](RenderGraph& graph, ImageRef color) {
        graph.addPass("ui", PassKind::Graphics).use(color, Access::ColorAttachment).record([this](PassContext& ctx) {
            VkRenderPassBeginInfo bi{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
            bi.renderPass = uiPass_;
            bi.framebuffer = swap_.framebuffers[currentImage_];
            bi.renderArea = {{0, 0}, swap_.extent};
            ctx.vk->vkCmdBeginRenderPass(ctx.cmd, &bi, VK_SUBPASS_CONTENTS_INLINE);
            ImGui_ImplVulkan_RenderDrawData(ImGui::GetDrawData(), ctx.cmd);
            ctx.vk->vkCmdEndRenderPass(ctx.cmd);
        });
        if (options_.out.empty()) return;
        const BufferRef shot = graph.importBuffer("screenshot", capture_, {Access::HostRead, PassKind::Transfer},
                                                  {Access::HostRead, PassKind::Transfer});
        graph.addPass("screenshot", PassKind::Transfer)
            .use(color, Access::TransferSrc)
            .use(shot, Access::TransferDst)
            .record([this, color, shot](PassContext& ctx) {
                if (!captureThisFrame_) return;
                VkBufferImageCopy region{};
                region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
                region.imageExtent = {swap_.extent.width, swap_.extent.height, 1};
                ctx.vk->vkCmdCopyImageToBuffer(ctx.cmd, ctx.image(color), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                               ctx.buffer(shot), 1, &region);
                captured_ = true;
            });
    };
    auto r = app_.makeView ? app_.makeView(*device_, target(), uiPass)
                           : IsoView::create(*device_, iso_, target(), uiPass, app_.panel, app_);
    if (!r) return r.status();
    view_ = std::move(r).value();
    camera_.target = view_->viewCenter();
    camera_.distance = std::max(camera_.distance, 2.7f * view_->viewRadius());
    for (FrameSlot& s : slots_) s.token = UINT64_MAX;
    sceneDirty_ = false;
    return {};
}

void Window::handleInput() {
    ImGuiIO& io = ImGui::GetIO();
    double x, y;
    glfwGetCursorPos(window_, &x, &y);
    if (!io.WantCaptureMouse && glfwGetMouseButton(window_, GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS)
        camera_.orbit(float(lastX_ - x) * 0.008f, float(y - lastY_) * 0.008f);
    lastX_ = x;
    lastY_ = y;
    if (!io.WantCaptureMouse && io.MouseWheel != 0.f) camera_.zoom(std::pow(0.9f, io.MouseWheel));
    if (!io.WantCaptureKeyboard) {
        const float step = 0.03f;
        if (glfwGetKey(window_, GLFW_KEY_LEFT) == GLFW_PRESS || glfwGetKey(window_, GLFW_KEY_A) == GLFW_PRESS)
            camera_.orbit(-step, 0);
        if (glfwGetKey(window_, GLFW_KEY_RIGHT) == GLFW_PRESS || glfwGetKey(window_, GLFW_KEY_D) == GLFW_PRESS)
            camera_.orbit(step, 0);
        if (glfwGetKey(window_, GLFW_KEY_UP) == GLFW_PRESS) camera_.orbit(0, step);
        if (glfwGetKey(window_, GLFW_KEY_DOWN) == GLFW_PRESS) camera_.orbit(0, -step);
        if (glfwGetKey(window_, GLFW_KEY_W) == GLFW_PRESS) camera_.zoom(0.97f);
        if (glfwGetKey(window_, GLFW_KEY_S) == GLFW_PRESS) camera_.zoom(1.03f);
        if (glfwGetKey(window_, GLFW_KEY_ESCAPE) == GLFW_PRESS) glfwSetWindowShouldClose(window_, GLFW_TRUE);
    }
}

void Window::buildUi() {
    ImGui::SetNextWindowPos(ImVec2(8, 8), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowBgAlpha(0.85f);
    ImGui::Begin(app_.name.c_str(), nullptr, ImGuiWindowFlags_AlwaysAutoResize);
    ImGui::Text("%s", device_->name().c_str());
    view_->ui(sceneDirty_);
    if (ImGui::Checkbox("vsync", &vsync_)) swapchainDirty_ = true;
    ImGui::SameLine();
    ImGui::Checkbox("pause", &paused_);
    ImGui::Separator();
    ImGui::TextDisabled("GPU time per pass (newest finished frame)");
    if (ImGui::BeginTable("timings", 2, ImGuiTableFlags_SizingFixedFit)) {
        double total = 0;
        for (const PassTiming& t : timings_) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(t.name.c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%8.3f ms", t.milliseconds);
            total += t.milliseconds;
        }
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted("GPU total");
        ImGui::TableNextColumn();
        ImGui::Text("%8.3f ms", total);
        ImGui::EndTable();
    }
    ImGui::Text("%.1f fps", ImGui::GetIO().Framerate);
    if (!error_.empty()) ImGui::TextColored(ImVec4(1, 0.3f, 0.3f, 1), "%s", error_.c_str());
    ImGui::TextDisabled("drag: orbit, wheel/W/S: zoom, Esc: quit");
    ImGui::End();
}

Status Window::frame() {
    FrameSlot& slot = slots_[frameCount_ % kFramesInFlight];
    VkDevice d = device_->device();
    // A lost device shows up here first: report it instead of recording on.
    if (VkResult r = vk().vkWaitForFences(d, 1, &slot.fence, VK_TRUE, UINT64_MAX); r != VK_SUCCESS)
        return Status::error(Status::codeOf(r),
                             "waiting for frame " + std::to_string(frameCount_) + ": " + vkResultName(r), r);
    // That frame is done: its stats and timings are final.
    if (slot.token != UINT64_MAX) view_->frameFinished(slot.token);
    timings_ = view_->latestTimings();

    uint32_t image = 0;
    VkResult r = vk().vkAcquireNextImageKHR(d, swap_.handle, UINT64_MAX, slot.acquired, VK_NULL_HANDLE, &image);
    if (r == VK_ERROR_OUT_OF_DATE_KHR) {
        swapchainDirty_ = true;
        return {};
    }
    if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR)
        return Status::error(Status::codeOf(r), "vkAcquireNextImageKHR: " + vkResultName(r), r);
    currentImage_ = image;
    vk().vkResetFences(d, 1, &slot.fence);

    const double now = glfwGetTime();
    if (!paused_) time_ += std::min(now - lastClock_, 0.1);
    lastClock_ = now;
    ImGui_ImplVulkan_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    handleInput();
    buildUi();
    ImGui::Render();
    PYRAMARCH_TRY(view_->update(time_, camera_, float(swap_.extent.width) / float(swap_.extent.height)));

    vk().vkResetCommandPool(d, slot.pool, 0);
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    vk().vkBeginCommandBuffer(slot.cmd, &bi);
    view_->rebindTarget(swap_.images[image], swap_.views[image], VK_IMAGE_LAYOUT_UNDEFINED);
    Status recorded = view_->record(slot.cmd, slot.token);
    vk().vkEndCommandBuffer(slot.cmd);
    if (!recorded) return recorded;

    VkSemaphoreSubmitInfo wait{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
    wait.semaphore = slot.acquired;
    wait.stageMask = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT;
    VkSemaphoreSubmitInfo signal{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
    signal.semaphore = swap_.renderDone[image];
    signal.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    VkCommandBufferSubmitInfo cbi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO};
    cbi.commandBuffer = slot.cmd;
    VkSubmitInfo2 si{VK_STRUCTURE_TYPE_SUBMIT_INFO_2};
    si.waitSemaphoreInfoCount = 1;
    si.pWaitSemaphoreInfos = &wait;
    si.commandBufferInfoCount = 1;
    si.pCommandBufferInfos = &cbi;
    si.signalSemaphoreInfoCount = 1;
    si.pSignalSemaphoreInfos = &signal;
    r = vk().vkQueueSubmit2(device_->queue(), 1, &si, slot.fence);
    if (r != VK_SUCCESS) return Status::error(Status::codeOf(r), "vkQueueSubmit2: " + vkResultName(r), r);

    VkPresentInfoKHR pi{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
    pi.waitSemaphoreCount = 1;
    pi.pWaitSemaphores = &swap_.renderDone[image];
    pi.swapchainCount = 1;
    pi.pSwapchains = &swap_.handle;
    pi.pImageIndices = &image;
    r = vk().vkQueuePresentKHR(device_->queue(), &pi);
    if (r == VK_ERROR_OUT_OF_DATE_KHR || r == VK_SUBOPTIMAL_KHR)
        swapchainDirty_ = true;
    else if (r != VK_SUCCESS)
        return Status::error(Status::codeOf(r), "vkQueuePresentKHR: " + vkResultName(r), r);
    ++frameCount_;
    return {};
}

void Window::exerciseResize(uint32_t frame) {
    // Grow, shrink, minimise, restore; each step re-creates the swapchain
    // (and the draw graph) while frames are in flight.
    switch (frame % 8) {
    case 2: glfwSetWindowSize(window_, int(options_.width) + 96, int(options_.height) + 40); break;
    case 4:
        glfwSetWindowSize(window_, std::max(64, int(options_.width) / 2), std::max(64, int(options_.height) / 2));
        break;
    case 5: glfwIconifyWindow(window_); break;
    case 6: glfwRestoreWindow(window_); break;
    case 7: glfwSetWindowSize(window_, int(options_.width), int(options_.height)); break;
    default: break;
    }
    glfwPollEvents();
}

int Window::run() {
    Status s = init();
    if (!s) return fail(app_.name, s.message());
    uint32_t rendered = 0;
    while (!glfwWindowShouldClose(window_)) {
        glfwPollEvents();
        int w = 0, h = 0;
        glfwGetFramebufferSize(window_, &w, &h);
        if (w == 0 || h == 0) { // minimised: no swapchain images to render into
            if (options_.exerciseResize) glfwRestoreWindow(window_);
            glfwWaitEventsTimeout(0.1);
            continue;
        }
        if (swapchainDirty_ || swap_.handle == VK_NULL_HANDLE || uint32_t(w) != swap_.extent.width ||
            uint32_t(h) != swap_.extent.height) {
            vk().vkDeviceWaitIdle(device_->device());
            s = createSwapchain();
            if (!s) return fail(app_.name, s.message());
            if (swap_.handle == VK_NULL_HANDLE) continue;
        }
        if (sceneDirty_) {
            s = recreateView();
            if (!s) {
                // Bad settings (e.g. grid too large): report in the panel, keep going.
                error_ = s.message();
                iso_.config = app_.config;
                s = recreateView();
                if (!s) return fail(app_.name, s.message());
            } else {
                error_.clear();
            }
        }
        if (options_.exerciseResize) exerciseResize(rendered);
        captureThisFrame_ = options_.frames && rendered + 1 >= options_.frames;
        s = frame();
        if (!s) return fail(app_.name, s.message());
        if (options_.frames && ++rendered >= options_.frames) break;
    }
    vk().vkDeviceWaitIdle(device_->device());
    if (!options_.out.empty()) {
        if (!captured_) return fail(app_.name, "--out: no frame was captured (windowed --out needs --frames N)");
        capture_.invalidate();
        std::vector<uint8_t> rgba(capture_.size());
        std::memcpy(rgba.data(), capture_.mapped(), rgba.size());
        if (swap_.format == VK_FORMAT_B8G8R8A8_SRGB || swap_.format == VK_FORMAT_B8G8R8A8_UNORM)
            for (size_t i = 0; i < rgba.size(); i += 4) std::swap(rgba[i], rgba[i + 2]);
        for (size_t i = 3; i < rgba.size(); i += 4) rgba[i] = 255;
        s = writePng(options_.out, swap_.extent.width, swap_.extent.height, rgba);
        if (!s) return fail(app_.name, s.message());
    }
    destroy();
    if (messages_) return fail(app_.name, std::to_string(messages_.load()) + " validation message(s)");
    return 0;
}

void Window::destroy() {
    if (device_) {
        vk().vkDeviceWaitIdle(device_->device());
        view_.reset();
        if (imguiVulkan_) ImGui_ImplVulkan_Shutdown();
        imguiVulkan_ = false;
        if (imguiGlfw_) ImGui_ImplGlfw_Shutdown();
        imguiGlfw_ = false;
        if (ImGui::GetCurrentContext()) ImGui::DestroyContext();
        VkDevice d = device_->device();
        for (FrameSlot& s : slots_) {
            if (s.fence) vk().vkDestroyFence(d, s.fence, nullptr);
            if (s.acquired) vk().vkDestroySemaphore(d, s.acquired, nullptr);
            if (s.pool) vk().vkDestroyCommandPool(d, s.pool, nullptr);
            s = FrameSlot{};
        }
        destroySwapchain();
        capture_.reset();
        if (uiPass_) vk().vkDestroyRenderPass(d, uiPass_, nullptr);
        if (uiPool_) vk().vkDestroyDescriptorPool(d, uiPool_, nullptr);
        uiPass_ = VK_NULL_HANDLE;
        uiPool_ = VK_NULL_HANDLE;
        if (surface_) device_->vki().destroySurfaceKHR(device_->instance(), surface_, nullptr);
        surface_ = VK_NULL_HANDLE;
        device_.reset();
    }
    if (window_) glfwDestroyWindow(window_);
    window_ = nullptr;
    glfwTerminate();
}

} // namespace

int runWindowed(const CommonOptions& options, SampleApp& app) {
    Window w(options, app);
    return w.run();
}

} // namespace sample
