#include "sample/framework.h"

#include <chrono>
#include <cmath>
#include <cstdio>

#include "pyramarch/engine/transfer.h"
#include "pyramarch/engine/vulkan_functions.h"

namespace sample {

using namespace pyramarch;

std::array<float, 3> OrbitCamera::eye() const {
    return {target[0] + distance * std::cos(pitch) * std::sin(yaw), target[1] + distance * std::sin(pitch),
            target[2] + distance * std::cos(pitch) * std::cos(yaw)};
}

iso::SurfaceView OrbitCamera::view(float aspect) const {
    return iso::makeSurfaceView(eye(), target, fovY, aspect, distance * 0.02f, distance * 10.f);
}

void OrbitCamera::orbit(float dYaw, float dPitch) {
    yaw += dYaw;
    pitch = std::fmax(-1.5f, std::fmin(1.5f, pitch + dPitch));
}

void OrbitCamera::zoom(float factor) { distance = std::fmax(0.05f, std::fmin(100.f, distance * factor)); }

iso::SurfaceShading shadingFromName(const std::string& name) {
    if (name == "cells") return iso::SurfaceShading::CellTriangles;
    if (name == "normals") return iso::SurfaceShading::Normals;
    if (name == "flat") return iso::SurfaceShading::Flat;
    return iso::SurfaceShading::Lit;
}

Result<std::unique_ptr<SceneRenderer>> SceneRenderer::create(Device& device, Scene& scene, const RenderTarget& target,
                                                             bool wireframe, ExtraPasses extra) {
    std::unique_ptr<SceneRenderer> r(new SceneRenderer(device, scene));
    r->wireframe_ = wireframe;
    r->extra_ = std::move(extra);
    r->compute_ = std::make_unique<RenderGraph>(&device);
    PYRAMARCH_TRY(scene.addPasses(*r->compute_).withContext(std::string("scene '") + scene.name() + "': "));
    Status s = r->compute_->compile();
    if (!s) return Status::error(s.code(), std::string("scene '") + scene.name() + "': compute graph: " + s.message());
    PYRAMARCH_TRY(r->setTarget(target));
    return r;
}

Status SceneRenderer::setTarget(const RenderTarget& target) {
    const bool newPipelines =
        !renderer_ || target.colorFormat != target_.colorFormat || target.samples != target_.samples;
    target_ = target;
    if (newPipelines) {
        iso::SurfaceRendererCreateInfo ci;
        ci.colorFormat = target.colorFormat;
        ci.depthFormat = VK_FORMAT_D32_SFLOAT;
        ci.samples = target.samples;
        ci.wireframe = wireframe_;
        ci.cullBackFaces = !scene_.twoSided();
        auto r = iso::SurfaceRenderer::create(device_, ci);
        if (!r) return r.status();
        if (renderer_) r.value()->setView(renderer_->view());
        renderer_ = std::move(r).value();
    }
    // The surface's buffers are written by the compute graph, which leaves
    // them ready for vertex input / indirect reads; this graph only reads.
    auto g = std::make_unique<RenderGraph>(&device_);
    iso::IsoSurface& surface = scene_.surface();
    const ExternalUse vertexRead{Access::VertexRead, PassKind::Graphics};
    const ExternalUse indirectRead{Access::IndirectRead, PassKind::Graphics};
    const BufferRef vertices =
        g->importBuffer("surface.vertices", surface.vertexBuffer(), vertexRead, vertexRead, true);
    const BufferRef args = g->importBuffer("surface.args", surface.drawArgsBuffer(), indirectRead, indirectRead, true);
    finalRef_ = g->importImage("target", target.image, target.before, target.after);
    const VkExtent3D extent{target.extent.width, target.extent.height, 1};
    iso::SurfaceRenderer::GraphInputs desc;
    desc.vertices = vertices;
    desc.drawArgs = args;
    desc.drawArgsOffset = iso::IsoSurface::drawArgsOffset();
    if (scene_.indexed()) {
        const ExternalUse indexRead{Access::IndexRead, PassKind::Graphics};
        desc.indices = g->importBuffer("surface.indices", surface.indexBuffer(), indexRead, indexRead, true);
        desc.drawIndexedArgsOffset = iso::IsoSurface::drawIndexedArgsOffset();
    }
    desc.depth = g->createImage("depth", {.format = VK_FORMAT_D32_SFLOAT, .extent = extent, .samples = target.samples});
    if (target.samples != VK_SAMPLE_COUNT_1_BIT) {
        desc.color =
            g->createImage("color.msaa", {.format = target.colorFormat, .extent = extent, .samples = target.samples});
        desc.resolve = finalRef_;
    } else {
        desc.color = finalRef_;
    }
    PYRAMARCH_TRY(renderer_->addPasses(*g, desc).status());
    if (extra_) extra_(*g, finalRef_);
    Status s = g->compile();
    if (!s) return Status::error(s.code(), "draw graph: " + s.message());
    draw_ = std::move(g);
    return {};
}

void SceneRenderer::rebindTarget(VkImage image, VkImageView view, VkImageLayout currentLayout) {
    draw_->rebindImportedImage(finalRef_, image, view, currentLayout);
}

Status SceneRenderer::record(VkCommandBuffer cmd) {
    PYRAMARCH_TRY(compute_->execute(cmd));
    return draw_->execute(cmd);
}

std::vector<PassTiming> SceneRenderer::latestTimings() const {
    std::vector<PassTiming> t = compute_->latestTimings();
    for (PassTiming& p : draw_->latestTimings()) t.push_back(std::move(p));
    return t;
}

Result<std::unique_ptr<Device>> createSampleDevice(const CommonOptions& options, std::atomic<uint32_t>* messages,
                                                   std::vector<const char*> instanceExtensions,
                                                   std::vector<const char*> deviceExtensions) {
    DeviceCreateInfo info;
    info.applicationName = "pyramarch-sample";
    info.enableValidation = options.validation;
    info.preferredDevice = options.device;
    info.instanceExtensions = std::move(instanceExtensions);
    info.deviceExtensions = std::move(deviceExtensions);
    info.validationCallback = [messages](const ValidationMessage& m) {
        if (m.severity != MessageSeverity::Warning && m.severity != MessageSeverity::Error) return;
        if (messages) ++*messages;
        std::fprintf(stderr, "validation %s: %s: %s\n", m.severity == MessageSeverity::Error ? "error" : "warning",
                     m.idName.c_str(), m.text.c_str());
    };
    // fillModeNonSolid is enabled whenever the device has it; without it the
    // wireframe request is ignored (SurfaceRenderer::wireframeSupported()).
    auto d = Device::create(info);
    if (d && options.wireframe && !(*d)->limits().fillModeNonSolid)
        std::fprintf(stderr, "note: no wireframe on this device\n");
    return d;
}

void fillSurfaceStats(FrameStats& out, const iso::IsoSurface& surface, uint64_t isoFrame) {
    const auto st = surface.statsOfFrame(isoFrame);
    if (!st) return;
    out.haveSurfaceStats = true;
    // Indexed output draws indices; the vertex counts are unique vertices then.
    const bool indexed = st->indicesNeeded > 0 || st->indicesWritten > 0;
    out.triangles = (indexed ? st->indicesWritten : st->verticesWritten) / 3;
    out.trianglesNeeded = (indexed ? st->indicesNeeded : st->verticesNeeded) / 3;
    out.activeCells = st->activeCells;
    out.overflow = st->overflow;
}

namespace {

// Offscreen single-sample colour image that frames resolve into and the host reads back.
struct Offscreen {
    Image color;
    RenderTarget target;
};

Result<Offscreen> makeOffscreen(Device& device, const CommonOptions& options) {
    Offscreen o;
    ImageCreateInfo ci;
    ci.format = VK_FORMAT_R8G8B8A8_SRGB;
    ci.extent = {options.width, options.height, 1};
    ci.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    ci.name = "offscreen.color";
    auto img = device.allocator().createImage(ci);
    if (!img) return img.status();
    o.color = std::move(img).value();
    o.target.colorFormat = ci.format;
    o.target.extent = {options.width, options.height};
    o.target.samples = static_cast<VkSampleCountFlagBits>(options.msaa);
    o.target.image.image = o.color.handle();
    o.target.image.view = o.color.view();
    o.target.image.format = ci.format;
    o.target.image.extent = ci.extent;
    o.target.image.currentLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    // Read back between frames: each frame starts after the previous copy.
    o.target.before = {Access::TransferSrc, PassKind::Transfer};
    o.target.after = {Access::TransferSrc, PassKind::Transfer};
    return o;
}

class Headless {
public:
    Headless(Device& device, Scene& scene) : device_(device), scene_(scene) {}
    Status init(const CommonOptions& options) {
        options_ = options;
        auto off = makeOffscreen(device_, options);
        if (!off) return off.status();
        off_ = std::move(off).value();
        auto r = SceneRenderer::create(device_, scene_, off_.target, options.wireframe);
        if (!r) return r.status();
        renderer_ = std::move(r).value();
        return {};
    }
    Status frame(double time, const OrbitCamera& camera) {
        PYRAMARCH_TRY(scene_.update(time));
        iso::SurfaceView view = camera.view(float(options_.width) / float(options_.height));
        view.shading = shadingFromName(options_.shading);
        view.wireframe = options_.wireframe;
        renderer_->surfaceRenderer().setView(view);
        Status recorded;
        PYRAMARCH_TRY(submitAndWait(device_, [&](VkCommandBuffer cmd) { recorded = renderer_->record(cmd); }));
        return recorded;
    }
    Result<Rgba8Image> read() {
        Rgba8Image img;
        img.width = options_.width;
        img.height = options_.height;
        Status s = readImage(device_, off_.color, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, img.pixels);
        if (!s) return s;
        return img;
    }
    SceneRenderer& renderer() { return *renderer_; }

private:
    Device& device_;
    Scene& scene_;
    CommonOptions options_;
    Offscreen off_;
    std::unique_ptr<SceneRenderer> renderer_;
};

} // namespace

Status runHeadless(Device& device, Scene& scene, const CommonOptions& options, StatsRecorder& stats,
                   const HeadlessSettings& settings, OrbitCamera camera) {
    Headless h(device, scene);
    PYRAMARCH_TRY(h.init(options));
    const uint32_t frames = options.frames ? options.frames : 1;
    const bool everyFrame = isFramePattern(options.out);
    const auto start = std::chrono::steady_clock::now();
    for (uint32_t f = 0; f < frames; ++f) {
        const double time = settings.startTime + f / double(settings.fps);
        PYRAMARCH_TRY(h.frame(time, camera));
        // submitAndWait finished the frame: its timings and stats are final.
        FrameStats fs;
        fs.frame = f;
        fs.time = time;
        fs.passes = h.renderer().latestTimings();
        fillSurfaceStats(fs, scene.surface(), scene.surface().framesRecorded() - 1);
        if (fs.overflow)
            std::fprintf(stderr, "%s: frame %u: surface overflow: %u triangles needed, %u drawn (raise the capacity)\n",
                         scene.name(), f, fs.trianglesNeeded, fs.triangles);
        stats.add(std::move(fs));
        if (!options.out.empty() && (everyFrame || f + 1 == frames)) {
            auto img = h.read();
            if (!img) return img.status();
            PYRAMARCH_TRY(writePng(framePath(options.out, f), img->width, img->height, img->pixels));
        }
        if (settings.progress) {
            const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            std::fprintf(stderr, "\r%s frame %u/%u  %.1f s", settings.label.c_str(), f + 1, frames, s);
            if (f + 1 == frames) std::fprintf(stderr, "\n");
        }
    }
    if (!options.stats.empty()) PYRAMARCH_TRY(stats.write(options.stats));
    return {};
}

Result<Rgba8Image> renderOnce(Device& device, Scene& scene, const CommonOptions& options, const OrbitCamera& camera,
                              double time) {
    Headless h(device, scene);
    Status s = h.init(options);
    if (!s) return s;
    s = h.frame(time, camera);
    if (!s) return s;
    return h.read();
}

} // namespace sample
