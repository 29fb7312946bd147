// pyramarch: the command-line tool. `info` lists devices and what matters of
// them, `demo` renders the metaballs, point-cloud and fluid scenes headless to PNG
// frames with a per-pass timing table, `iso` extracts a surface from an
// analytic field, a raw volume, a GLSL field function or particle files and
// writes PLY/OBJ, `voxelize` turns a mesh
// into a sparse voxel octree and writes its leaves.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "pyramarch/engine/device.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/engine/vulkan_functions.h"
#include "pyramarch/isosurface/raw_volume.h"
#include "bench.h"
#include "sample/cli.h"
#include "sample/framework.h"
#include "sample/scenes.h"
#include "fluid_sim.h"
#include "iso_command.h"
#include "tool_cli.h"

using namespace pyramarch;
static_assert(sample::kMaxDemoFluidSteps == fluid::kMaxStepsPerFrame, "the demo's --fluid-steps bound");
using sample::DemoOptions;
using sample::fail;

namespace {

const char* typeName(VkPhysicalDeviceType t) {
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
    default: return "other";
    }
}

int runInfo(const std::string& preferred) {
    auto list = Device::enumerate();
    if (!list) return fail("pyramarch info", list.message());
    std::printf("Vulkan devices:\n");
    for (const auto& d : *list)
        std::printf("  [%u] %s (%s, Vulkan %u.%u.%u)\n", d.index, d.name.c_str(), typeName(d.type),
                    VK_API_VERSION_MAJOR(d.apiVersion), VK_API_VERSION_MINOR(d.apiVersion),
                    VK_API_VERSION_PATCH(d.apiVersion));
    DeviceCreateInfo ci;
    ci.applicationName = "pyramarch-info";
    ci.preferredDevice = preferred;
    auto device = Device::create(ci);
    if (!device) return fail("pyramarch info", device.message());
    const Device& d = **device;
    const DeviceLimits& l = d.limits();
    auto yes = [](bool b) { return b ? "yes" : "no"; };
    std::printf("\nChosen: %s\n  driver: %s\n", d.name().c_str(), d.driverInfo().c_str());
    std::printf("\nLimits that matter:\n");
    std::printf("  maxComputeWorkGroupCount      %u x %u x %u\n", l.maxComputeWorkGroupCount[0],
                l.maxComputeWorkGroupCount[1], l.maxComputeWorkGroupCount[2]);
    std::printf("  maxComputeWorkGroupSize       %u x %u x %u (%u invocations)\n", l.maxComputeWorkGroupSize[0],
                l.maxComputeWorkGroupSize[1], l.maxComputeWorkGroupSize[2], l.maxComputeWorkGroupInvocations);
    std::printf("  maxComputeSharedMemorySize    %u bytes\n", l.maxComputeSharedMemorySize);
    std::printf("  maxStorageBufferRange         %llu bytes (%.0f MiB)\n", (unsigned long long)l.maxStorageBufferRange,
                double(l.maxStorageBufferRange) / (1 << 20));
    std::printf("  maxBufferSize                 %llu bytes\n", (unsigned long long)l.maxBufferSize);
    std::printf("  subgroupSize                  %u\n", l.subgroupSize);
    std::printf("  timestamps                    %s (period %.3f ns)\n", yes(l.timestampsSupported),
                l.timestampPeriodNs);
    std::printf("\nFeatures:\n");
    std::printf("  geometryShader                %s (voxelizer fallback)\n", yes(l.geometryShader));
    std::printf("  conservativeRasterization     %s\n", yes(l.conservativeRasterization));
    std::printf("  fillModeNonSolid              %s (wireframe)\n", yes(l.fillModeNonSolid));
    std::printf("  fragmentStoresAndAtomics      %s\n", yes(l.fragmentStoresAndAtomics));
    std::printf("  vertexPipelineStoresAndAtomics %s\n", yes(l.vertexPipelineStoresAndAtomics));
    std::printf("  shaderInt16                   %s\n", yes(l.shaderInt16));
    std::printf("  shaderFloat64                 %s (voxelizer exact fallback; without it the float test only)\n",
                yes(l.shaderFloat64));
    std::printf("  storageBuffer8/16BitAccess    %s / %s\n", yes(l.storageBuffer8BitAccess),
                yes(l.storageBuffer16BitAccess));
    std::printf("  subgroupSizeControl           %s\n", yes(l.subgroupSizeControl));
    std::printf("  debugUtils                    %s\n", yes(l.debugUtils));
    return 0;
}

// The channel scene's sparse domain: what it keeps against a dense grid.
void printChannelMemory(const sample::ChannelScene& channel, iso::IsoSurface& surface, const DeviceLimits& limits) {
    const sample::SparseMemory memory = sample::sparseMemoryOf(surface, channel.info().samples);
    const auto stats = surface.latestStats();
    const iso::SparseDomain& cap = channel.info().sparse;
    if (stats)
        std::printf("channel: sparse domain, last frame %u bricks listed (capacity %u), %u row pairs cut (pool %u), "
                    "%u ball references (capacity %u)\n",
                    stats->sparseBricksNeeded, cap.maxBricks, stats->sparseRowPairsNeeded, cap.maxRowPairs,
                    stats->sparseItemRefsNeeded, iso::sparseItemRefCapacity(channel.info(), limits));
    std::printf("channel: resident %.1f MiB + vertices %.1f MiB; a dense grid of the same samples: %.1f MiB "
                "(field + pyramid)\n",
                memory.resident / 1048576.0, memory.vertices / 1048576.0, memory.dense / 1048576.0);
}

int runDemo(const DemoOptions& d) {
    const std::string prog = "pyramarch demo";
    sample::CommonOptions o;
    if (!sample::parseSize(d.size, o.width, o.height))
        return sample::usageError(prog, "--size: expected WxH, got '" + d.size + "'");
    o.headless = true;
    o.frames = d.frames;
    o.msaa = d.msaa;
    o.validation = d.validation;
    o.device = d.device;
    o.shading = d.shading;
    std::error_code ec;
    std::filesystem::create_directories(d.outDir, ec);
    if (ec) return fail(prog, "cannot create output folder " + d.outDir + ": " + ec.message());
    std::atomic<uint32_t> messages{0};
    auto device = sample::createSampleDevice(o, &messages);
    if (!device) return fail(prog, device.message());
    std::printf("device: %s\n", (*device)->name().c_str());
    bool anyOverflow = false;
    for (const std::string& name : d.scenes) {
        std::unique_ptr<sample::Scene> scene;
        const sample::ChannelScene* channel = nullptr;
        if (name == "metaballs") {
            sample::MetaballSettings s;
            s.cells = d.cells;
            s.balls = d.balls;
            if (d.capacity) s.vertexCapacity = d.capacity;
            auto r = sample::MetaballScene::create(**device, s);
            if (!r) return fail(prog, r.message());
            scene = std::move(r).value();
        } else if (name == "channel") {
            sample::ChannelSettings s;
            s.cells = d.channelCells;
            s.balls = d.channelBalls;
            auto r = sample::ChannelScene::create(**device, s);
            if (!r) return fail(prog, r.message());
            channel = r.value().get();
            scene = std::move(r).value();
        } else if (name == "fluid") {
            fluid::FluidSettings s;
            s.particles = d.fluidParticles;
            s.stepsPerFrame = d.fluidSteps;
            if (d.fluidCollider != "none") {
                auto mesh = fluid::loadCollider(d.fluidCollider);
                if (!mesh) return sample::failWith(prog, mesh.status());
                s.collider = std::move(mesh).value();
            }
            auto r = fluid::FluidScene::create(**device, s);
            if (!r) return fail(prog, r.message());
            scene = std::move(r).value();
        } else {
            sample::PointCloudSettings s;
            s.cells = d.cells;
            s.particles = d.particles;
            if (d.capacity) s.vertexCapacity = d.capacity;
            auto r = sample::PointCloudScene::create(**device, s);
            if (!r) return fail(prog, r.message());
            scene = std::move(r).value();
        }
        sample::CommonOptions so = o;
        const uint32_t frames = name == "fluid" ? d.fluidFrames : d.frames;
        so.frames = frames;
        so.out = (std::filesystem::path(d.outDir) / (name + "_%04d.png")).string();
        so.stats = (std::filesystem::path(d.outDir) / (name + "_stats.json")).string();
        sample::StatsRecorder stats;
        stats.setInfo("scene", name);
        stats.setInfo("device", (*device)->name());
        stats.setInfo("size", d.size);
        stats.setInfo("cells", std::to_string(d.cells));
        sample::HeadlessSettings hs;
        hs.progress = true;
        hs.label = name;
        sample::OrbitCamera camera;
        if (channel) camera.distance = 2.7f * channel->viewRadius(); // the whole channel in view
        const auto start = std::chrono::steady_clock::now();
        Status s = sample::runHeadless(**device, *scene, so, stats, hs, camera);
        if (!s) return fail(prog, name + ": " + s.message());
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        uint32_t tris = 0, overflows = 0;
        for (const auto& f : stats.frames()) {
            tris = std::max(tris, f.triangles);
            overflows += f.overflow;
        }
        anyOverflow = anyOverflow || overflows > 0;
        // The fluid sizes its grids from the particle spacing, not --cells.
        std::string size = name == "fluid"
                               ? std::to_string(d.fluidParticles) + " particles, " + std::to_string(d.fluidSteps) +
                                     " steps a frame, collider " + d.fluidCollider
                               : std::to_string(d.cells) + "^3 cells";
        if (channel) {
            const auto& n = channel->info().samples;
            size = std::to_string(n[0] - 1) + "x" + std::to_string(n[1] - 1) + "x" + std::to_string(n[2] - 1) +
                   " cells, " + std::to_string(d.channelBalls) + " balls";
        }
        std::printf("\n%s: %u frames %ux%u, %s, up to %u triangles%s, %.1f s wall = %.0f ms/frame with "
                    "read-back and PNG (%s)\n",
                    name.c_str(), frames, o.width, o.height, size.c_str(), tris,
                    overflows ? " (OVERFLOW: capacity too small)" : "", secs, 1000.0 * secs / frames, so.stats.c_str());
        // The first frame includes pipeline JIT on lavapipe: leave it out of the table.
        std::printf("%s", stats.table(frames > 1 ? 1 : 0).c_str());
        if (channel) printChannelMemory(*channel, scene->surface(), (*device)->limits());
    }
    std::printf("\nframes written to %s/\n", d.outDir.c_str());
    if (messages) return fail(prog, std::to_string(messages.load()) + " validation message(s)");
    return anyOverflow ? sample::kExitOverflow : sample::kExitDone;
}

} // namespace

int main(int argc, char** argv) {
    sample::ToolOptions options;
    const int parsed = sample::parseToolCommandLine(argc, argv, options);
    if (parsed >= 0) return parsed;
    if (options.command == "info") return runInfo(options.infoDevice);
    if (options.command == "voxelize") return runVoxelize(options.voxelize);
    if (options.command == "demo") return runDemo(options.demo);
    if (options.command == "bench")
        return pyramarch::bench::runBench(options.bench, pyramarch::bench::joinCommandLine(argc, argv));
    return runIso(options.iso);
}
