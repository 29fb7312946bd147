// voxelize sample: a mesh (OBJ, PLY, glTF) or built-in shape voxelized into a sparse
// voxel octree every frame, one octree level drawn as cubes in the merged
// colours. GPU-driven end to end: the cubes of the chosen level are gathered
// from the level's node range by the voxelizer's own indirect launch and
// drawn with vkCmdDrawIndirect, whose instance count the GPU appended.
// Windowed (the framework's loop, through VoxelView) or --headless (PNG +
// stats); both record the same VoxelView.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include <imgui.h>

#include "pyramarch/engine/device.h"
#include "pyramarch/engine/pipeline.h"
#include "pyramarch/engine/render_graph.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/engine/vulkan_functions.h"
#include "pyramarch/voxelizer/shapes.h"
#include "pyramarch/voxelizer/voxelizer.h"
#include "sample/app.h"
#include "sample/cli.h"
#include "sample/framework.h"
#include "sample/mesh_files.h"
#include "sample/output.h"
#include "sample/voxelize_job.h"
#include "voxelize_sample/sample_shared.h"

using namespace pyramarch;

namespace {

static const uint32_t kGatherSpv[] =
#include "shaders/voxelize_sample/gather.comp.spv.inc"
    ;
static const uint32_t kClampSpv[] =
#include "shaders/voxelize_sample/clamp.comp.spv.inc"
    ;
static const uint32_t kCubeVertSpv[] =
#include "shaders/voxelize_sample/cube.vert.spv.inc"
    ;
static const uint32_t kCubeFragSpv[] =
#include "shaders/voxelize_sample/cube.frag.spv.inc"
    ;

constexpr VkFormat kColorFormat = VK_FORMAT_R8G8B8A8_UNORM;
constexpr VkFormat kDepthFormat = VK_FORMAT_D32_SFLOAT;
constexpr float kClear[4] = {0.08f, 0.09f, 0.11f, 1.f};
const char* const kShapes[] = {"sphere", "torus", "knot", "box", "diamond"};

// What a VoxelView is built from (the window's panel edits it).
struct VoxelSettings {
    std::string mesh;     // OBJ, PLY, glTF or GLB path; empty: `shape`
    std::string meshFile; // the --mesh given on the command line (panel choice)
    std::string shape = "knot";
    uint32_t resolution = 128;
    int level = -1; // -1: leaves
    bool thin = false;
    // Windowed: a level below a rebuilt (coarser) octree's depth shows the
    // leaves instead of failing; the command line reports it as an error.
    bool clampLevel = false;
};

// The voxelizer plus the sample's gather -> clamp -> draw passes, as two
// graphs like SceneRenderer: the compute graph (voxelizer, gather, clamp) is
// built once; the draw graph (cubes + the host's extra passes) is rebuilt for
// each target. The instance and draw-args buffers cross between them with
// the same external uses on both sides, so successive frames are ordered.
class VoxelView final : public sample::WindowView {
public:
    static Result<std::unique_ptr<VoxelView>> create(Device& device, VoxelSettings& settings,
                                                     const sample::RenderTarget& target, sample::ExtraPasses extra);
    Status setTarget(const sample::RenderTarget& target) override;
    void rebindTarget(VkImage image, VkImageView view, VkImageLayout layout) override {
        draw_->rebindImportedImage(finalRef_, image, view, layout);
    }
    Status update(double time, const sample::OrbitCamera& camera, float aspect) override;
    Status record(VkCommandBuffer cmd, uint64_t& token) override {
        token = recorded_++;
        PYRAMARCH_TRY(compute_->execute(cmd));
        return draw_->execute(cmd);
    }
    void frameFinished(uint64_t) override {
        if (auto s = vox_->latestStats()) stats_ = s;
    }
    std::vector<PassTiming> latestTimings() const override {
        std::vector<PassTiming> t = compute_->latestTimings();
        for (PassTiming& p : draw_->latestTimings()) t.push_back(std::move(p));
        return t;
    }
    void ui(bool& recreate) override;
    std::array<float, 3> viewCenter() const override { return center_; }
    float viewRadius() const override { return 0.6f * extent_; }

    voxel::Voxelizer& voxelizer() { return *vox_; }
    const Buffer& drawArgs() const { return drawArgs_; }
    const voxel::VoxelGrid& grid() const { return grid_; }
    uint32_t level() const { return level_; }
    // A camera framing the grid's box (headless).
    sample::OrbitCamera camera() const {
        sample::OrbitCamera c;
        c.target = center_;
        c.distance = 1.6f * extent_;
        return c;
    }

private:
    VoxelView(Device& d, VoxelSettings& s) : device_(d), settings_(s) {}
    Status build(const sample::RenderTarget& target);

    Device& device_;
    VoxelSettings& settings_;
    sample::ExtraPasses extra_;
    voxel::TriangleMesh mesh_;
    voxel::VoxelGrid grid_;
    voxel::VoxelMode mode_ = voxel::VoxelMode::Conservative;
    std::unique_ptr<voxel::Voxelizer> vox_;
    uint32_t depth_ = 0, level_ = 0, capacity_ = 0;
    std::array<float, 3> center_{0.f, 0.f, 0.f};
    float extent_ = 1.f;
    Buffer instances_, drawArgs_;
    ComputePipeline gather_, clamp_;
    GraphicsPipeline cubes_;
    PipelineLayoutDesc cubeLayoutDesc_;
    voxsample::CubeParams cubeParams_{};
    voxsample::GatherParams gatherParams_{};
    sample::RenderTarget target_;
    std::unique_ptr<RenderGraph> compute_, draw_;
    ImageRef finalRef_;
    uint64_t recorded_ = 0;
    std::optional<voxel::VoxelStats> stats_;
};

Result<std::unique_ptr<VoxelView>> VoxelView::create(Device& device, VoxelSettings& settings,
                                                     const sample::RenderTarget& target, sample::ExtraPasses extra) {
    std::unique_ptr<VoxelView> v(new VoxelView(device, settings));
    v->extra_ = std::move(extra);
    PYRAMARCH_TRY(v->build(target));
    return v;
}

Status VoxelView::build(const sample::RenderTarget& target) {
    const VoxelSettings& s = settings_;
    if (!s.mesh.empty()) {
        auto m = sample::loadMeshFile(s.mesh);
        if (!m) return m.status();
        mesh_ = std::move(m).value();
    } else {
        mesh_ = voxel::shapes::byName(s.shape);
        if (mesh_.indices.empty()) return Status::error(ErrorCode::InvalidArgument, "unknown shape '" + s.shape + "'");
    }
    if (mesh_.colors.empty()) voxel::shapes::colorByPosition(mesh_);
    auto grid = voxel::defaultGrid(mesh_, s.resolution);
    if (!grid) return grid.status();
    grid_ = *grid;
    mode_ = s.thin ? voxel::VoxelMode::Thin : voxel::VoxelMode::Conservative;

    // A one-shot voxelization (the job, whose voxelizer grows by itself)
    // finds the sizes this mesh needs; the view's voxelizer gets them as
    // fixed capacities, since its instance buffer below is sized from the
    // node pool. The frames then never truncate.
    sample::VoxelizeJob sizing;
    sizing.meshPath = s.mesh;
    sizing.shape = s.mesh.empty() ? s.shape : "";
    sizing.resolution = s.resolution;
    sizing.mode = mode_;
    sizing.timedFrames = 1;
    auto sized = sample::runVoxelizeJob(device_, sizing);
    if (!sized) return sized.status();
    voxel::VoxelizerCreateInfo vi;
    vi.maxResolution = std::max(1u, grid_.maxDim());
    vi.maxVertices = uint32_t(mesh_.vertexCount());
    vi.maxTriangles = uint32_t(mesh_.triangleCount());
    vi.fragmentCapacity = std::max(1u, sized->stats.fragmentsNeeded);
    vi.tileCapacity = std::max(1u, sized->stats.tilesNeeded);
    auto vox = voxel::Voxelizer::create(device_, vi);
    if (!vox) return vox.status();
    vox_ = std::move(vox).value();
    depth_ = vox_->octreeDepth();
    if (s.level > int(depth_) && !s.clampLevel)
        return Status::error(ErrorCode::InvalidArgument, "level " + std::to_string(s.level) +
                                                             " exceeds the octree depth " + std::to_string(depth_));
    level_ = s.level < 0 ? depth_ : std::min(depth_, uint32_t(s.level));
    PYRAMARCH_TRY(vox_->setMesh(mesh_, grid_, mode_));

    capacity_ = vi.tileCapacity * 8; // nodes of any one level
    auto instances = device_.allocator().createBuffer({VkDeviceSize(capacity_) * 8, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                                       MemoryUsage::DeviceLocal, "sample.instances"});
    if (!instances) return instances.status();
    instances_ = std::move(instances).value();
    auto drawArgs =
        device_.allocator().createBuffer({16,
                                          VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT |
                                              VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                          MemoryUsage::DeviceLocal, "sample.draw_args"});
    if (!drawArgs) return drawArgs.status();
    drawArgs_ = std::move(drawArgs).value();

    // One descriptor layout for all (counters, nodes, instances, draw args);
    // each pass declares the bindings its shader uses.
    PipelineLayoutDesc layout;
    layout.bindings.assign(6, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
    layout.pushConstantBytes = sizeof(voxsample::GatherParams);
    ComputePipelineDesc gd;
    gd.spirv = kGatherSpv;
    gd.name = "sample.gather";
    gd.layout = layout;
    auto gather = ComputePipeline::create(device_, gd);
    if (!gather) return gather.status();
    gather_ = std::move(gather).value();
    gd.spirv = kClampSpv;
    gd.name = "sample.clamp";
    auto clampPipe = ComputePipeline::create(device_, gd);
    if (!clampPipe) return clampPipe.status();
    clamp_ = std::move(clampPipe).value();
    cubeLayoutDesc_ = layout;
    cubeLayoutDesc_.pushConstantBytes = sizeof(voxsample::CubeParams);
    cubeLayoutDesc_.stages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;

    extent_ = 0.f;
    for (int a = 0; a < 3; ++a) {
        const float e = float(grid_.dims[a]) * grid_.voxelSize[a];
        center_[a] = grid_.origin[a] + 0.5f * e;
        extent_ = std::max(extent_, e);
    }

    // The compute graph: the voxelizer's passes, then gather -> clamp.
    compute_ = std::make_unique<RenderGraph>(&device_);
    RenderGraph& graph = *compute_;
    PYRAMARCH_TRY_ASSIGN(const voxel::VoxelizerGraphRefs refs, vox_->addPasses(graph));
    const ExternalUse vertexRead{Access::StorageRead, PassKind::Graphics, VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT};
    const ExternalUse indirect{Access::IndirectRead, PassKind::Graphics};
    const BufferRef instRef = graph.importBuffer("sample.instances", instances_, vertexRead, vertexRead);
    const BufferRef argsRef = graph.importBuffer("sample.draw_args", drawArgs_, indirect, indirect);
    graph.addPass("sample.reset_draw", PassKind::Transfer)
        .use(argsRef, Access::TransferDst)
        .record([argsRef](PassContext& ctx) {
            const uint32_t init[4] = {36, 0, 0, 0};
            ctx.vk->vkCmdUpdateBuffer(ctx.cmd, ctx.buffer(argsRef), 0, sizeof(init), init);
        });
    graph.addPass("sample.gather", PassKind::Compute)
        .pipeline(gather_)
        .use(refs.dispatch, Access::IndirectRead)
        .storage(0, refs.counters, Access::StorageRead)
        .storage(1, refs.nodeCount, Access::StorageRead)
        .storage(2, instRef, Access::StorageWrite)
        .storage(3, argsRef, Access::StorageReadWrite)
        .storage(4, refs.nodeCoord, Access::StorageRead)
        .storage(5, refs.nodeColor, Access::StorageRead)
        .record([this, dispatch = refs.dispatch](PassContext& ctx) {
            ctx.pushConstants(gatherParams_);
            // The voxelizer's dispatch buffer holds one indirect launch per level.
            ctx.dispatchIndirect(dispatch, 16 * VkDeviceSize(1 + gatherParams_.level));
        });
    graph.addPass("sample.clamp", PassKind::Compute)
        .pipeline(clamp_)
        .storage(3, argsRef, Access::StorageReadWrite)
        .record([this](PassContext& ctx) {
            ctx.pushConstants(gatherParams_);
            ctx.dispatch(1);
        });
    Status st = graph.compile();
    if (!st) return Status::error(st.code(), "voxelize compute graph: " + st.message());
    return setTarget(target);
}

Status VoxelView::setTarget(const sample::RenderTarget& target) {
    const bool newPipeline =
        !cubes_.pipeline() || target.colorFormat != target_.colorFormat || target.samples != target_.samples;
    target_ = target;
    if (newPipeline) {
        GraphicsPipelineDesc cd;
        cd.vertexSpirv = kCubeVertSpv;
        cd.fragmentSpirv = kCubeFragSpv;
        cd.name = "sample.cubes";
        cd.layout = cubeLayoutDesc_;
        cd.depthTest = true;
        cd.depthWrite = true;
        cd.colorFormats = {target.colorFormat};
        cd.depthFormat = kDepthFormat;
        cd.samples = target.samples;
        auto cubes = GraphicsPipeline::create(device_, cd);
        if (!cubes) return cubes.status();
        cubes_ = std::move(cubes).value();
    }
    // Read-only here: the compute graph writes them and leaves them in these uses.
    auto g = std::make_unique<RenderGraph>(&device_);
    const ExternalUse vertexRead{Access::StorageRead, PassKind::Graphics, VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT};
    const ExternalUse indirect{Access::IndirectRead, PassKind::Graphics};
    const BufferRef instRef = g->importBuffer("sample.instances", instances_, vertexRead, vertexRead, true);
    const BufferRef argsRef = g->importBuffer("sample.draw_args", drawArgs_, indirect, indirect, true);
    finalRef_ = g->importImage("target", target.image, target.before, target.after);
    const VkExtent3D extent{target.extent.width, target.extent.height, 1};
    const ImageRef depthRef =
        g->createImage("sample.depth", {.format = kDepthFormat, .extent = extent, .samples = target.samples});
    AttachmentDesc colorDesc;
    colorDesc.clear.color = {{kClear[0], kClear[1], kClear[2], kClear[3]}};
    ImageRef colorRef = finalRef_;
    if (target.samples != VK_SAMPLE_COUNT_1_BIT) {
        colorRef = g->createImage("sample.color.msaa",
                                  {.format = target.colorFormat, .extent = extent, .samples = target.samples});
        colorDesc.store = false;
        colorDesc.resolveTarget = finalRef_;
    }
    AttachmentDesc depthDesc;
    depthDesc.clear.depthStencil = {1.f, 0};
    depthDesc.store = false;
    g->addPass("sample.draw", PassKind::Graphics)
        .colorAttachment(colorRef, colorDesc)
        .depthAttachment(depthRef, depthDesc)
        .pipeline(cubes_)
        .storage(2, instRef, Access::StorageRead, VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT)
        .use(argsRef, Access::IndirectRead)
        .record([this, argsRef](PassContext& ctx) {
            ctx.pushConstants(cubeParams_);
            ctx.vk->vkCmdDrawIndirect(ctx.cmd, ctx.buffer(argsRef), 0, 1, 16);
        });
    if (extra_) extra_(*g, finalRef_);
    Status st = g->compile();
    if (!st) return Status::error(st.code(), "voxelize draw graph: " + st.message());
    draw_ = std::move(g);
    return {};
}

Status VoxelView::update(double, const sample::OrbitCamera& camera, float aspect) {
    // Static mesh, staged again so every frame is a full re-voxelization
    // (the voxelizer's staging ring covers the frames in flight).
    PYRAMARCH_TRY(vox_->setMesh(mesh_, grid_, mode_));
    const iso::SurfaceView view = camera.view(aspect);
    std::memcpy(cubeParams_.viewProj.m, view.viewProj.data(), sizeof(cubeParams_.viewProj.m));
    cubeParams_.origin = {grid_.origin[0], grid_.origin[1], grid_.origin[2], 0.f};
    const float cell = float(1u << (depth_ - level_));
    cubeParams_.cellSize = {grid_.voxelSize[0] * cell, grid_.voxelSize[1] * cell, grid_.voxelSize[2] * cell, 0.f};
    cubeParams_.lightDir = {0.4f, 0.8f, 0.45f, 0.f};
    gatherParams_ = {level_, capacity_, 0, 0};
    return {};
}

void VoxelView::ui(bool& recreate) {
    int shape = 0;
    const int nShapes = settings_.meshFile.empty() ? 5 : 6;
    const char* names[6] = {kShapes[0], kShapes[1], kShapes[2], kShapes[3], kShapes[4], settings_.meshFile.c_str()};
    for (int i = 0; i < 5; ++i)
        if (settings_.mesh.empty() && settings_.shape == kShapes[i]) shape = i;
    if (!settings_.mesh.empty()) shape = 5;
    if (ImGui::Combo("mesh", &shape, names, nShapes)) {
        settings_.mesh = shape == 5 ? settings_.meshFile : "";
        if (shape < 5) settings_.shape = kShapes[shape];
        recreate = true;
    }
    int res = int(settings_.resolution);
    if (ImGui::SliderInt("resolution", &res, 8, 512)) settings_.resolution = uint32_t(res);
    if (ImGui::IsItemDeactivatedAfterEdit()) recreate = true;
    if (ImGui::Checkbox("thin (6-separating)", &settings_.thin)) recreate = true;
    // The level only changes push constants and the indirect offset: no rebuild.
    int level = int(level_);
    if (ImGui::SliderInt("octree level", &level, 0, int(depth_))) {
        level_ = uint32_t(std::clamp(level, 0, int(depth_)));
        settings_.level = level_ == depth_ ? -1 : int(level_);
    }
    ImGui::Separator();
    ImGui::Text("grid %ux%ux%u, depth %u", grid_.dims[0], grid_.dims[1], grid_.dims[2], depth_);
    if (stats_) {
        ImGui::Text("leaf-level nodes: %u   level %u nodes: %u (allocated, 8 per tile)", stats_->levelNodes[depth_],
                    level_, stats_->levelNodes[level_]);
        ImGui::Text("fragments: %u   tiles: %u", stats_->fragmentsNeeded, stats_->tilesNeeded);
        if (stats_->fragmentOverflow || stats_->tileOverflow)
            ImGui::TextColored(ImVec4(1, 0.3f, 0.3f, 1), "OVERFLOW: %u fragments / %u tiles needed, octree truncated",
                               stats_->fragmentsNeeded, stats_->tilesNeeded);
        if (stats_->skippedTriangles)
            ImGui::TextColored(ImVec4(1, 0.8f, 0.3f, 1), "%u triangles skipped (not finite)", stats_->skippedTriangles);
    } else {
        ImGui::Text("leaf nodes: (waiting for the GPU)");
    }
}

struct Options {
    VoxelSettings voxel;
    sample::CommonOptions common;
    std::string size = "640x480";
};

int runHeadless(Options& o) {
    const std::string prog = "voxelize";
    sample::CommonOptions& co = o.common;
    const uint32_t width = co.width, height = co.height;
    if (co.out.empty()) co.out = "voxelize.png";
    std::atomic<uint32_t> messages{0};
    auto devResult = sample::createSampleDevice(co, &messages);
    if (!devResult) return sample::fail(prog, devResult.message());
    Device& device = **devResult;

    ImageCreateInfo ici;
    ici.format = kColorFormat;
    ici.extent = {width, height, 1};
    ici.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    ici.name = "sample.color";
    auto color = device.allocator().createImage(ici);
    if (!color) return sample::fail(prog, color.message());
    sample::RenderTarget target;
    target.colorFormat = kColorFormat;
    target.extent = {width, height};
    target.samples = static_cast<VkSampleCountFlagBits>(co.msaa);
    target.image.image = color->handle();
    target.image.view = color->view();
    target.image.format = kColorFormat;
    target.image.extent = {width, height, 1};
    target.before = {Access::None};
    target.after = {Access::TransferSrc, PassKind::Transfer};
    auto viewResult = VoxelView::create(device, o.voxel, target, {});
    if (!viewResult) return sample::fail(prog, viewResult.message());
    VoxelView& view = **viewResult;
    const sample::OrbitCamera camera = view.camera();

    sample::StatsRecorder recorder;
    recorder.setInfo("device", device.name());
    recorder.setInfo("source", o.voxel.mesh.empty() ? o.voxel.shape : o.voxel.mesh);
    const uint32_t frames = std::max(1u, co.frames);
    for (uint32_t f = 0; f < frames; ++f) {
        Status st = view.update(0.0, camera, float(width) / float(height));
        Status rec;
        uint64_t token = 0;
        if (st) st = submitAndWait(device, [&](VkCommandBuffer cmd) { rec = view.record(cmd, token); });
        if (!st) return sample::fail(prog, st.message());
        if (!rec) return sample::fail(prog, rec.message());
        sample::FrameStats fs;
        fs.frame = f;
        fs.passes = view.latestTimings();
        recorder.add(fs);
    }
    auto stats = view.voxelizer().readStats();
    auto args = readBufferAs<uint32_t>(device, view.drawArgs(), 4);
    std::vector<uint8_t> pixels;
    Status st = readImage(device, *color, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, pixels);
    if (!stats || !args || !st) return sample::fail(prog, "reading the results back failed");
    size_t covered = 0;
    const uint8_t clear8[3] = {uint8_t(std::lround(kClear[0] * 255)), uint8_t(std::lround(kClear[1] * 255)),
                               uint8_t(std::lround(kClear[2] * 255))};
    for (size_t i = 0; i + 3 < pixels.size(); i += 4)
        covered += pixels[i] != clear8[0] || pixels[i + 1] != clear8[1] || pixels[i + 2] != clear8[2];
    st = sample::writePng(co.out, width, height, pixels);
    if (!st) return sample::fail(prog, st.message());
    const voxel::VoxelGrid& grid = view.grid();
    std::printf("grid %ux%ux%u, depth %u, level %u: %u cubes drawn, %u fragment records, %u tiles%s\n", grid.dims[0],
                grid.dims[1], grid.dims[2], view.voxelizer().octreeDepth(), view.level(), (*args)[1],
                stats->fragmentsNeeded, stats->tilesNeeded,
                stats->fragmentOverflow || stats->tileOverflow ? " (OVERFLOW: truncated)" : "");
    std::printf("covered pixels: %zu of %u\nwrote %s\n", covered, width * height, co.out.c_str());
    std::printf("%s", recorder.table(frames > 1 ? 1 : 0).c_str());
    if (!co.stats.empty()) {
        st = recorder.write(co.stats);
        if (!st) return sample::fail(prog, st.message());
    }
    if (messages) return sample::fail(prog, std::to_string(messages.load()) + " validation message(s)");
    return 0;
}

int runWindowed(Options& o) {
    const std::string prog = "voxelize";
    sample::CommonOptions& co = o.common;
    if (!co.out.empty() && !co.frames)
        return sample::fail(prog, "windowed --out needs --frames N (the frame to capture)");
    sample::SampleApp app;
    app.name = prog;
    app.title = "pyramarch voxelize";
    // The panel edits `current`; a failed re-creation falls back to `good`.
    o.voxel.clampLevel = true;
    VoxelSettings current = o.voxel, good = o.voxel;
    app.makeView = [&](Device& device, const sample::RenderTarget& target,
                       sample::ExtraPasses extra) -> Result<std::unique_ptr<sample::WindowView>> {
        auto v = VoxelView::create(device, current, target, std::move(extra));
        if (!v) {
            current = good;
            return v.status();
        }
        good = current;
        return std::unique_ptr<sample::WindowView>(std::move(v).value());
    };
    return sample::runWindowed(co, app);
}

} // namespace

int main(int argc, char** argv) {
    Options o;
    sample::CommonOptions& co = o.common;
    CLI::App app{"voxelize: a mesh voxelized into a sparse voxel octree on the GPU, one level drawn as cubes",
                 "voxelize"};
    auto* mesh = app.add_option("--mesh", o.voxel.mesh, "Mesh file: .obj, .ply (ascii or binary), .gltf or .glb");
    auto* shape =
        app.add_option("--shape", o.voxel.shape, "Built-in shape: sphere | torus | knot | box | diamond (default knot)")
            ->check(CLI::IsMember({"sphere", "torus", "knot", "box", "diamond"}));
    mesh->excludes(shape);
    app.add_option("--res", o.voxel.resolution, "Voxels along the longest axis (1..1024, default 128)")
        ->check(CLI::Range(1u, 1024u));
    app.add_option("--level", o.voxel.level, "Octree level to draw (0 = root .. depth = leaves; default leaves)")
        ->check(CLI::Range(0, 10));
    app.add_flag("--thin", o.voxel.thin, "6-separating (thin) voxelization");
    app.add_flag("--headless", co.headless, "Render offscreen to --out (default voxelize.png) instead of a window");
    app.add_option("--frames", co.frames,
                   "Frames to voxelize and draw, then exit (headless default 1; windowed: until closed)")
        ->check(CLI::Range(1u, 100000u));
    app.add_option("--size", o.size, "Image / window size WxH (default 640x480)");
    app.add_option("--out", co.out, "PNG of the last frame (headless default voxelize.png; windowed needs --frames)");
    app.add_option("--stats", co.stats, "Per-pass GPU times as JSON (headless)");
    app.add_flag("--validation", co.validation, "Enable the validation layer (any message fails the exit code)");
    app.add_option("--msaa", co.msaa, "Samples per pixel (1, 2, 4, 8)")->check(CLI::IsMember({1u, 2u, 4u, 8u}));
    app.add_option("--device", co.device, "Device index or name substring");
    app.add_flag("!--no-vsync", co.vsync, "Windowed: present without waiting for vertical blank");
    app.add_flag("--exercise-resize", co.exerciseResize,
                 "Windowed: resize, minimise and restore the window while running (tests)");
    const int parsed = sample::parseCommandLine(app, argc, argv);
    if (parsed >= 0) return parsed;
    if (!sample::parseSize(o.size, co.width, co.height))
        return sample::fail("voxelize", "--size: expected WxH, got '" + o.size + "'");
    o.voxel.meshFile = o.voxel.mesh;
    return co.headless ? runHeadless(o) : runWindowed(o);
}
