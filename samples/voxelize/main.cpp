// voxelize sample: a mesh (OBJ) or built-in shape voxelized into a sparse
// voxel octree every frame, one octree level drawn as cubes in the merged
// colours. GPU-driven end to end: the cubes of the chosen level are gathered
// from the level's node range by the voxelizer's own indirect launch and
// drawn with vkCmdDrawIndirect, whose instance count the GPU appended.
// Headless only (PNG + stats), like the other samples' headless mode.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "pyramarch/engine/device.h"
#include "pyramarch/engine/pipeline.h"
#include "pyramarch/engine/render_graph.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/engine/vulkan_functions.h"
#include "pyramarch/voxelizer/job.h"
#include "pyramarch/voxelizer/shapes.h"
#include "pyramarch/voxelizer/voxelizer.h"
#include "sample/cli.h"
#include "sample/framework.h"
#include "sample/output.h"
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

struct Options {
    std::string mesh, shape = "knot";
    uint32_t resolution = 128;
    int level = -1; // -1: leaves
    bool thin = false;
    bool headless = false;
    uint32_t frames = 1;
    std::string size = "640x480";
    std::string out = "voxelize.png";
    std::string stats;
    bool validation = false;
    std::string device;
};

int run(const Options& o) {
    const std::string prog = "voxelize";
    if (!o.headless) return sample::fail(prog, "only the headless mode exists; pass --headless");
    uint32_t width = 0, height = 0;
    if (!sample::parseSize(o.size, width, height)) return sample::fail(prog, "--size: expected WxH, got '" + o.size + "'");

    voxel::TriangleMesh mesh;
    if (!o.mesh.empty()) {
        auto m = voxel::loadObj(o.mesh);
        if (!m) return sample::fail(prog, m.message());
        mesh = std::move(m).value();
    } else {
        mesh = voxel::shapes::byName(o.shape);
        if (mesh.indices.empty()) return sample::fail(prog, "unknown --shape '" + o.shape + "'");
    }
    if (mesh.colors.empty()) voxel::shapes::colorByPosition(mesh);
    auto grid = voxel::defaultGrid(mesh, o.resolution);
    if (!grid) return sample::fail(prog, grid.message());

    sample::CommonOptions co;
    co.validation = o.validation;
    co.device = o.device;
    std::atomic<uint32_t> messages{0};
    auto devResult = sample::createSampleDevice(co, &messages);
    if (!devResult) return sample::fail(prog, devResult.message());
    Device& device = **devResult;

    // A sizing run finds the capacities this mesh needs (it grows them from
    // the overflow counters); the frame loop below then never truncates.
    voxel::VoxelizeJob sizing;
    sizing.meshPath = o.mesh;
    sizing.shape = o.mesh.empty() ? o.shape : "";
    sizing.resolution = o.resolution;
    sizing.mode = o.thin ? voxel::VoxelMode::Thin : voxel::VoxelMode::Conservative;
    sizing.timedFrames = 1;
    auto sized = voxel::runVoxelizeJob(device, sizing);
    if (!sized) return sample::fail(prog, sized.message());
    voxel::VoxelizerCreateInfo vi;
    vi.maxResolution = std::max(1u, grid->maxDim());
    vi.maxVertices = uint32_t(mesh.vertexCount());
    vi.maxTriangles = uint32_t(mesh.triangleCount());
    vi.fragmentCapacity = std::max(1u, sized->stats.fragmentsNeeded);
    vi.tileCapacity = std::max(1u, sized->stats.tilesNeeded);
    auto vox = voxel::Voxelizer::create(device, vi);
    if (!vox) return sample::fail(prog, vox.message());
    voxel::Voxelizer& v = **vox;
    const uint32_t depth = v.octreeDepth();
    const uint32_t level = o.level < 0 ? depth : uint32_t(o.level);
    if (level > depth) return sample::fail(prog, "--level " + std::to_string(level) + " exceeds the octree depth " + std::to_string(depth));
    Status st = v.setMesh(mesh, *grid, o.thin ? voxel::VoxelMode::Thin : voxel::VoxelMode::Conservative);
    if (!st) return sample::fail(prog, st.message());

    // Buffers and images of the sample.
    const uint32_t capacity = vi.tileCapacity * 8;
    auto instances = device.allocator().createBuffer({VkDeviceSize(capacity) * 8, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                                      MemoryUsage::DeviceLocal, "sample.instances"});
    auto drawArgs = device.allocator().createBuffer(
        {16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                 VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
         MemoryUsage::DeviceLocal, "sample.draw_args"});
    ImageCreateInfo ici;
    ici.format = kColorFormat;
    ici.extent = {width, height, 1};
    ici.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    ici.name = "sample.color";
    auto color = device.allocator().createImage(ici);
    if (!instances || !drawArgs || !color) return sample::fail(prog, "creating the sample's buffers/images failed");

    // Pipelines: one descriptor layout for all (counters, nodes, instances, draw args).
    PipelineLayoutDesc layout;
    layout.bindings.assign(4, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
    layout.pushConstantBytes = sizeof(voxsample::GatherParams);
    ComputePipelineDesc gd;
    gd.spirv = kGatherSpv;
    gd.name = "sample.gather";
    gd.layout = layout;
    auto gather = ComputePipeline::create(device, gd);
    gd.spirv = kClampSpv;
    gd.name = "sample.clamp";
    auto clampPipe = ComputePipeline::create(device, gd);
    PipelineLayoutDesc cubeLayout = layout;
    cubeLayout.pushConstantBytes = sizeof(voxsample::CubeParams);
    cubeLayout.stages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
    GraphicsPipelineDesc cd;
    cd.vertexSpirv = kCubeVertSpv;
    cd.fragmentSpirv = kCubeFragSpv;
    cd.name = "sample.cubes";
    cd.layout = cubeLayout;
    cd.depthTest = true;
    cd.depthWrite = true;
    cd.colorFormats = {kColorFormat};
    cd.depthFormat = kDepthFormat;
    auto cubes = GraphicsPipeline::create(device, cd);
    if (!gather || !clampPipe || !cubes) return sample::fail(prog, "creating the sample's pipelines failed");
    auto cubeSetLayout = PipelineLayout::create(device, cubeLayout, "sample.cubes.set");
    auto pool = DescriptorPool::create(device, 3, 12, "sample.descriptors");
    if (!cubeSetLayout || !pool) return sample::fail(prog, "creating descriptors failed");
    const DescriptorBinding bindings[4] = {{.buffer = v.counterBuffer().handle()}, {.buffer = v.nodeBuffer().handle()},
                                           {.buffer = instances->handle()}, {.buffer = drawArgs->handle()}};
    auto gatherSet = pool->allocate(gather->pipelineLayout(), bindings);
    auto clampSet = pool->allocate(clampPipe->pipelineLayout(), bindings);
    auto cubeSet = pool->allocate(*cubeSetLayout, bindings);
    if (!gatherSet || !clampSet || !cubeSet) return sample::fail(prog, "allocating descriptor sets failed");

    // Camera on the grid's box.
    sample::OrbitCamera camera;
    float extent = 0.f;
    for (int a = 0; a < 3; ++a) {
        const float e = float(grid->dims[a]) * grid->voxelSize[a];
        camera.target[a] = grid->origin[a] + 0.5f * e;
        extent = std::max(extent, e);
    }
    camera.distance = 1.6f * extent;
    const iso::SurfaceView view = camera.view(float(width) / float(height));
    voxsample::CubeParams cp{};
    std::memcpy(cp.viewProj.m, view.viewProj.data(), sizeof(cp.viewProj.m));
    cp.origin = {grid->origin.x, grid->origin.y, grid->origin.z, 0.f};
    const float cell = float(1u << (depth - level));
    cp.cellSize = {grid->voxelSize.x * cell, grid->voxelSize.y * cell, grid->voxelSize.z * cell, 0.f};
    cp.lightDir = {0.4f, 0.8f, 0.45f, 0.f};
    const voxsample::GatherParams gp{level, capacity, 0, 0};

    // One graph: the voxelizer's passes, then gather -> clamp -> draw.
    RenderGraph graph(&device);
    voxel::VoxelizerGraphRefs refs;
    st = v.addPasses(graph, &refs);
    if (!st) return sample::fail(prog, st.message());
    const ExternalUse vertexRead{Access::StorageRead, PassKind::Graphics, VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT};
    const ExternalUse indirect{Access::IndirectRead, PassKind::Graphics};
    BufferRef instRef = graph.importBuffer("sample.instances", *instances, vertexRead, vertexRead);
    BufferRef argsRef = graph.importBuffer("sample.draw_args", *drawArgs, indirect, indirect);
    ImageRef colorRef = graph.importImage("sample.color", *color, VK_IMAGE_LAYOUT_UNDEFINED, {Access::None},
                                          {Access::TransferSrc, PassKind::Transfer});
    ImageRef depthRef = graph.createImage("sample.depth", {.format = kDepthFormat, .extent = {width, height, 1}});
    const VkBuffer voxDispatch = v.dispatchBuffer().handle();
    graph.addPass("sample.reset_draw", PassKind::Transfer).use(argsRef, Access::TransferDst).record([&](PassContext& ctx) {
        const uint32_t init[4] = {36, 0, 0, 0};
        ctx.vk->vkCmdUpdateBuffer(ctx.cmd, drawArgs->handle(), 0, sizeof(init), init);
    });
    graph.addPass("sample.gather", PassKind::Compute)
        .use(refs.dispatch, Access::IndirectRead)
        .use(refs.counters, Access::StorageRead)
        .use(refs.nodes, Access::StorageRead)
        .use(instRef, Access::StorageWrite)
        .use(argsRef, Access::StorageReadWrite)
        .record([&](PassContext& ctx) {
            ctx.vk->vkCmdBindPipeline(ctx.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, gather->pipeline());
            ctx.vk->vkCmdBindDescriptorSets(ctx.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, gather->layout(), 0, 1, &gatherSet.value(), 0, nullptr);
            ctx.vk->vkCmdPushConstants(ctx.cmd, gather->layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(gp), &gp);
            ctx.vk->vkCmdDispatchIndirect(ctx.cmd, voxDispatch, 16 * VkDeviceSize(1 + level));
        });
    graph.addPass("sample.clamp", PassKind::Compute).use(argsRef, Access::StorageReadWrite).record([&](PassContext& ctx) {
        ctx.vk->vkCmdBindPipeline(ctx.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, clampPipe->pipeline());
        ctx.vk->vkCmdBindDescriptorSets(ctx.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, clampPipe->layout(), 0, 1, &clampSet.value(), 0, nullptr);
        ctx.vk->vkCmdPushConstants(ctx.cmd, clampPipe->layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(gp), &gp);
        ctx.vk->vkCmdDispatch(ctx.cmd, 1, 1, 1);
    });
    AttachmentDesc colorDesc;
    colorDesc.clear.color = {{kClear[0], kClear[1], kClear[2], kClear[3]}};
    AttachmentDesc depthDesc;
    depthDesc.clear.depthStencil = {1.f, 0};
    depthDesc.store = false;
    graph.addPass("sample.draw", PassKind::Graphics)
        .colorAttachment(colorRef, colorDesc)
        .depthAttachment(depthRef, depthDesc)
        .use(instRef, Access::StorageRead, VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT)
        .use(argsRef, Access::IndirectRead)
        .record([&](PassContext& ctx) {
            const VkViewport vp{0.f, 0.f, float(width), float(height), 0.f, 1.f};
            const VkRect2D sc{{0, 0}, {width, height}};
            ctx.vk->vkCmdSetViewport(ctx.cmd, 0, 1, &vp);
            ctx.vk->vkCmdSetScissor(ctx.cmd, 0, 1, &sc);
            ctx.vk->vkCmdBindPipeline(ctx.cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, cubes->pipeline());
            ctx.vk->vkCmdBindDescriptorSets(ctx.cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, cubes->layout(), 0, 1, &cubeSet.value(), 0, nullptr);
            ctx.vk->vkCmdPushConstants(ctx.cmd, cubes->layout(), VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                                       sizeof(cp), &cp);
            ctx.vk->vkCmdDrawIndirect(ctx.cmd, drawArgs->handle(), 0, 1, 16);
        });
    st = graph.compile();
    if (!st) return sample::fail(prog, st.message());

    sample::StatsRecorder recorder;
    recorder.setInfo("device", device.name());
    recorder.setInfo("source", o.mesh.empty() ? o.shape : o.mesh);
    for (uint32_t f = 0; f < std::max(1u, o.frames); ++f) {
        // Static mesh, staged again so every frame is a full re-voxelization.
        st = v.setMesh(mesh, *grid, o.thin ? voxel::VoxelMode::Thin : voxel::VoxelMode::Conservative);
        Status rec;
        if (st) st = submitAndWait(device, [&](VkCommandBuffer cmd) { rec = graph.execute(cmd); });
        if (!st) return sample::fail(prog, st.message());
        if (!rec) return sample::fail(prog, rec.message());
        sample::FrameStats fs;
        fs.frame = f;
        fs.passes = graph.latestTimings();
        recorder.add(fs);
    }
    auto stats = v.readStats();
    auto args = readBufferAs<uint32_t>(device, *drawArgs, 4);
    std::vector<uint8_t> pixels;
    st = readImage(device, *color, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, pixels);
    if (!stats || !args || !st) return sample::fail(prog, "reading the results back failed");
    size_t covered = 0;
    const uint8_t clear8[3] = {uint8_t(std::lround(kClear[0] * 255)), uint8_t(std::lround(kClear[1] * 255)),
                               uint8_t(std::lround(kClear[2] * 255))};
    for (size_t i = 0; i + 3 < pixels.size(); i += 4)
        covered += pixels[i] != clear8[0] || pixels[i + 1] != clear8[1] || pixels[i + 2] != clear8[2];
    st = sample::writePng(o.out, width, height, pixels);
    if (!st) return sample::fail(prog, st.message());
    std::printf("grid %ux%ux%u, depth %u, level %u: %u cubes drawn, %u voxel fragments, %u tiles%s\n", grid->dims[0],
                grid->dims[1], grid->dims[2], depth, level, (*args)[1], stats->fragmentsNeeded, stats->tilesNeeded,
                stats->fragmentOverflow || stats->tileOverflow ? " (OVERFLOW: truncated)" : "");
    std::printf("covered pixels: %zu of %u\nwrote %s\n", covered, width * height, o.out.c_str());
    std::printf("%s", recorder.table(o.frames > 1 ? 1 : 0).c_str());
    if (!o.stats.empty()) {
        st = recorder.write(o.stats);
        if (!st) return sample::fail(prog, st.message());
    }
    if (messages) return sample::fail(prog, std::to_string(messages.load()) + " validation message(s)");
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    Options o;
    CLI::App app{"voxelize: a mesh voxelized into a sparse voxel octree on the GPU, one level drawn as cubes", "voxelize"};
    auto* mesh = app.add_option("--mesh", o.mesh, "Wavefront OBJ file");
    auto* shape = app.add_option("--shape", o.shape, "Built-in shape: sphere | torus | knot | box | diamond (default knot)")
                      ->check(CLI::IsMember({"sphere", "torus", "knot", "box", "diamond"}));
    mesh->excludes(shape);
    app.add_option("--res", o.resolution, "Voxels along the longest axis (1..1024, default 128)")->check(CLI::Range(1u, 1024u));
    app.add_option("--level", o.level, "Octree level to draw (0 = root .. depth = leaves; default leaves)")->check(CLI::Range(0, 10));
    app.add_flag("--thin", o.thin, "6-separating (thin) voxelization");
    app.add_flag("--headless", o.headless, "Render offscreen to --out (the only mode of this sample)");
    app.add_option("--frames", o.frames, "Frames to voxelize and draw (default 1)")->check(CLI::Range(1u, 100000u));
    app.add_option("--size", o.size, "Image size WxH (default 640x480)");
    app.add_option("--out", o.out, "PNG of the last frame (default voxelize.png)");
    app.add_option("--stats", o.stats, "Per-pass GPU times as JSON");
    app.add_flag("--validation", o.validation, "Enable the validation layer (any message fails the exit code)");
    app.add_option("--device", o.device, "Device index or name substring");
    const int parsed = sample::parseCommandLine(app, argc, argv);
    if (parsed >= 0) return parsed;
    return run(o);
}
