// The sample framework: a Scene owns an IsoSurface and whatever feeds it;
// SceneRenderer records a frame as two render graphs in one command buffer:
// the scene's compute graph (field + isosurface passes) and the draw graph
// (SurfaceRenderer's draw pass + optional host passes such as the UI) that
// imports the surface's vertex and draw-args buffers read-only.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "pyramarch/engine/device.h"
#include "pyramarch/engine/memory.h"
#include "pyramarch/engine/render_graph.h"
#include "pyramarch/isosurface/isosurface.h"
#include "pyramarch/isosurface/surface_renderer.h"
#include "sample/cli.h"
#include "sample/output.h"

namespace sample {

using pyramarch::ErrorCode;
using pyramarch::Result;
using pyramarch::Status;

struct SceneConfig; // scenes.h

class Scene {
public:
    virtual ~Scene() = default;
    virtual const char* name() const = 0;
    virtual pyramarch::iso::IsoSurface& surface() = 0;
    // Host-side writes for the next frame (balls, particles, iso value). Only
    // called once the frame framesInFlight back has finished on the GPU.
    virtual Status update(double timeSeconds) = 0;
    // Adds the scene's passes (its own compute passes, then the surface's).
    virtual pyramarch::Status addPasses(pyramarch::RenderGraph& graph) { return surface().addPasses(graph).status(); }
    // Windowed: ImGui widgets of the scene's own parameters; changes are also
    // written to `config` so a re-created scene (new grid, normals) keeps them.
    virtual void ui(SceneConfig& config) { (void)config; }
    // Radius of the region worth looking at (camera distance).
    virtual float viewRadius() const { return 1.2f; }
    // Draw back faces too (open surfaces cut by the grid bounds).
    virtual bool twoSided() const { return false; }
    // The surface writes shared vertices + indices (IsoSurfaceCreateInfo::indexed).
    virtual bool indexed() const { return false; }
};

struct OrbitCamera {
    // Radians. The default looks at the Cayley surface from its outside
    // (the (-x, +y, +z) octant, where 16xyz + 4(x+y+z) - 1 < 0).
    float yaw = -0.7f, pitch = 0.45f;
    float distance = 3.2f;
    std::array<float, 3> target{0.f, 0.f, 0.f};
    float fovY = 0.8f;
    std::array<float, 3> eye() const;
    pyramarch::iso::SurfaceView view(float aspect) const;
    void orbit(float dYaw, float dPitch);
    void zoom(float factor);
};

pyramarch::iso::SurfaceShading shadingFromName(const std::string& name);

// Where the draw graph renders: the final single-sample image (offscreen or
// swapchain), imported with the given last use before / use after a frame.
struct RenderTarget {
    VkFormat colorFormat = VK_FORMAT_R8G8B8A8_SRGB;
    VkExtent2D extent{0, 0};
    VkSampleCountFlagBits samples = VK_SAMPLE_COUNT_1_BIT;
    pyramarch::ImportedImage image; // may be re-pointed each frame (swapchain)
    pyramarch::ExternalUse before{pyramarch::Access::None};
    pyramarch::ExternalUse after{pyramarch::Access::TransferSrc, pyramarch::PassKind::Transfer};
};

// Host passes after the surface draw (e.g. the UI): gets the graph and the
// final colour image.
using ExtraPasses = std::function<void(pyramarch::RenderGraph&, pyramarch::ImageRef finalColor)>;

class SceneRenderer {
public:
    static Result<std::unique_ptr<SceneRenderer>>
    create(pyramarch::Device& device, Scene& scene, const RenderTarget& target, bool wireframe, ExtraPasses extra = {});
    // Rebuilds the draw graph for a new target (resize, new swapchain).
    Status setTarget(const RenderTarget& target);
    void rebindTarget(VkImage image, VkImageView view, VkImageLayout currentLayout);
    // Records one frame: compute graph then draw graph.
    Status record(VkCommandBuffer cmd);
    // Per-pass GPU times of the newest finished frame (both graphs).
    std::vector<pyramarch::PassTiming> latestTimings() const;
    pyramarch::iso::SurfaceRenderer& surfaceRenderer() { return *renderer_; }
    pyramarch::RenderGraph& drawGraph() { return *draw_; }
    pyramarch::RenderGraph& computeGraph() { return *compute_; }
    const RenderTarget& target() const { return target_; }

private:
    SceneRenderer(pyramarch::Device& d, Scene& s) : device_(d), scene_(s) {}
    pyramarch::Device& device_;
    Scene& scene_;
    bool wireframe_ = false;
    ExtraPasses extra_;
    RenderTarget target_;
    std::unique_ptr<pyramarch::RenderGraph> compute_;
    std::unique_ptr<pyramarch::RenderGraph> draw_;
    std::unique_ptr<pyramarch::iso::SurfaceRenderer> renderer_;
    pyramarch::ImageRef finalRef_;
};

// What the windowed loop shows. The loop owns the window, swapchain, frame
// slots, camera and the UI pass; a view owns its GPU work and draws into the
// loop's target, calling the loop's ExtraPasses after its own draw. The iso
// scenes (Scene + SceneRenderer) and the voxelize sample implement it.
class WindowView {
public:
    virtual ~WindowView() = default;
    // A new target (resize, new swapchain format); the GPU is idle.
    virtual Status setTarget(const RenderTarget& target) = 0;
    // The frame's swapchain image.
    virtual void rebindTarget(VkImage image, VkImageView view, VkImageLayout currentLayout) = 0;
    // Host writes for the next frame: only called once the frame
    // framesInFlight back has finished on the GPU.
    virtual Status update(double timeSeconds, const OrbitCamera& camera, float aspect) = 0;
    // Records the frame; `token` is handed back to frameFinished() once the
    // GPU finished it (stats of that frame are final then).
    virtual Status record(VkCommandBuffer cmd, uint64_t& token) = 0;
    virtual void frameFinished(uint64_t token) = 0;
    // Per-pass GPU times of the newest finished frame.
    virtual std::vector<pyramarch::PassTiming> latestTimings() const = 0;
    // Panel widgets of the view (its settings and result counts); sets
    // `recreate` when a change needs a new view from the factory.
    virtual void ui(bool& recreate) = 0;
    // Where the camera looks and how far out the content reaches.
    virtual std::array<float, 3> viewCenter() const { return {0.f, 0.f, 0.f}; }
    virtual float viewRadius() const = 0;
};

// Device for a sample; counts validation warnings/errors in `messages`.
Result<std::unique_ptr<pyramarch::Device>> createSampleDevice(const CommonOptions& options,
                                                              std::atomic<uint32_t>* messages,
                                                              std::vector<const char*> instanceExtensions = {},
                                                              std::vector<const char*> deviceExtensions = {});

// Fills a FrameStats from the surface's stats of `isoFrame` (already finished).
void fillSurfaceStats(FrameStats& out, const pyramarch::iso::IsoSurface& surface, uint64_t isoFrame);

struct HeadlessSettings {
    float fps = 30.f; // animation time step = 1 / fps
    double startTime = 0.0;
    bool progress = false; // print progress on stderr
    std::string label;     // progress prefix
};

// Renders options.frames (default 1) frames offscreen, writes options.out
// (last frame, or every frame for a %d pattern) and records stats.
Status runHeadless(pyramarch::Device& device, Scene& scene, const CommonOptions& options, StatsRecorder& stats,
                   const HeadlessSettings& settings = {}, OrbitCamera camera = {});

// Reads back an RGBA8 image rendered by runHeadless-style targets.
struct Rgba8Image {
    uint32_t width = 0, height = 0;
    std::vector<uint8_t> pixels;
};

// Renders the scene's current state once offscreen and returns the pixels
// (tests, thumbnails).
Result<Rgba8Image> renderOnce(pyramarch::Device& device, Scene& scene, const CommonOptions& options,
                              const OrbitCamera& camera, double time = 0.0);

} // namespace sample
