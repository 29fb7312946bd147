// pyramarch: the command-line tool. `info` lists devices and what matters of
// them, `demo` renders the metaballs and point-cloud scenes headless to PNG
// frames with a per-pass timing table, `iso` extracts a surface from an
// analytic field or a raw volume and writes PLY/OBJ, `voxelize` turns a mesh
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
#include "tool_cli.h"

using namespace pyramarch;
using sample::DemoOptions;
using sample::fail;
using sample::IsoOptions;

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
        std::printf("  [%u] %s (%s, Vulkan %u.%u.%u)\n", d.index, d.name.c_str(), typeName(d.type), VK_API_VERSION_MAJOR(d.apiVersion),
                    VK_API_VERSION_MINOR(d.apiVersion), VK_API_VERSION_PATCH(d.apiVersion));
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
    std::printf("  maxComputeWorkGroupCount      %u x %u x %u\n", l.maxComputeWorkGroupCount[0], l.maxComputeWorkGroupCount[1],
                l.maxComputeWorkGroupCount[2]);
    std::printf("  maxComputeWorkGroupSize       %u x %u x %u (%u invocations)\n", l.maxComputeWorkGroupSize[0], l.maxComputeWorkGroupSize[1],
                l.maxComputeWorkGroupSize[2], l.maxComputeWorkGroupInvocations);
    std::printf("  maxComputeSharedMemorySize    %u bytes\n", l.maxComputeSharedMemorySize);
    std::printf("  maxStorageBufferRange         %llu bytes (%.0f MiB)\n", (unsigned long long)l.maxStorageBufferRange,
                double(l.maxStorageBufferRange) / (1 << 20));
    std::printf("  maxBufferSize                 %llu bytes\n", (unsigned long long)l.maxBufferSize);
    std::printf("  subgroupSize                  %u\n", l.subgroupSize);
    std::printf("  timestamps                    %s (period %.3f ns)\n", yes(l.timestampsSupported), l.timestampPeriodNs);
    std::printf("\nFeatures:\n");
    std::printf("  geometryShader                %s (voxelizer fallback)\n", yes(l.geometryShader));
    std::printf("  conservativeRasterization     %s\n", yes(l.conservativeRasterization));
    std::printf("  fillModeNonSolid              %s (wireframe)\n", yes(l.fillModeNonSolid));
    std::printf("  fragmentStoresAndAtomics      %s\n", yes(l.fragmentStoresAndAtomics));
    std::printf("  vertexPipelineStoresAndAtomics %s\n", yes(l.vertexPipelineStoresAndAtomics));
    std::printf("  shaderInt16                   %s\n", yes(l.shaderInt16));
    std::printf("  storageBuffer8/16BitAccess    %s / %s\n", yes(l.storageBuffer8BitAccess), yes(l.storageBuffer16BitAccess));
    std::printf("  subgroupSizeControl           %s\n", yes(l.subgroupSizeControl));
    std::printf("  debugUtils                    %s\n", yes(l.debugUtils));
    return 0;
}

int runDemo(const DemoOptions& d) {
    const std::string prog = "pyramarch demo";
    sample::CommonOptions o;
    if (!sample::parseSize(d.size, o.width, o.height)) return fail(prog, "--size: expected WxH, got '" + d.size + "'");
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
    for (const std::string& name : d.scenes) {
        std::unique_ptr<sample::Scene> scene;
        if (name == "metaballs") {
            sample::MetaballSettings s;
            s.cells = d.cells;
            s.balls = d.balls;
            auto r = sample::MetaballScene::create(**device, s);
            if (!r) return fail(prog, r.message());
            scene = std::move(r).value();
        } else {
            sample::PointCloudSettings s;
            s.cells = d.cells;
            s.particles = d.particles;
            s.splat = d.splat;
            auto r = sample::PointCloudScene::create(**device, s);
            if (!r) return fail(prog, r.message());
            scene = std::move(r).value();
        }
        sample::CommonOptions so = o;
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
        const auto start = std::chrono::steady_clock::now();
        Status s = sample::runHeadless(**device, *scene, so, stats, hs, camera);
        if (!s) return fail(prog, name + ": " + s.message());
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        uint32_t tris = 0, overflows = 0;
        for (const auto& f : stats.frames()) {
            tris = std::max(tris, f.triangles);
            overflows += f.overflow;
        }
        std::printf("\n%s: %u frames %ux%u, %u^3 cells, up to %u triangles%s, %.1f s wall = %.0f ms/frame with read-back and PNG (%s)\n",
                    name.c_str(), d.frames, o.width, o.height, d.cells, tris, overflows ? " (OVERFLOW: capacity too small)" : "", secs,
                    1000.0 * secs / d.frames, so.stats.c_str());
        // The first frame includes pipeline JIT on lavapipe: leave it out of the table.
        std::printf("%s", stats.table(d.frames > 1 ? 1 : 0).c_str());
    }
    std::printf("\nframes written to %s/\n", d.outDir.c_str());
    if ((*device)->properties().deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU)
        std::printf("note: on a CPU driver (lavapipe) compute timestamps written after the first render pass lag behind the work,\n"
                    "      so compute passes read near zero and the draw pass absorbs their time; trust the totals and the\n"
                    "      wall time (`pyramarch bench --timing-check` shows it).\n");
    if (messages) return fail(prog, std::to_string(messages.load()) + " validation message(s)");
    return 0;
}

int runIso(const IsoOptions& o) {
    const std::string prog = "pyramarch iso";
    if (o.field.empty() == o.raw.empty()) return fail(prog, "give exactly one of --field or --raw");
    iso::NormalMode normals = iso::NormalMode::Central;
    if (o.normals == "forward") normals = iso::NormalMode::Forward;
    else if (o.normals == "sobel") normals = iso::NormalMode::Sobel;
    float b[6];
    {
        if (!sample::parseFloatList(o.bounds, b, 6))
            return fail(prog, "--bounds: expected six finite numbers minX,minY,minZ,maxX,maxY,maxZ, got '" + o.bounds + "'");
        for (int a = 0; a < 3; ++a)
            if (!(b[a] < b[a + 3])) return fail(prog, "--bounds: min must be below max on every axis");
    }
    std::array<uint32_t, 3> samples{};
    std::vector<uint8_t> data;
    iso::VolumeFormat format = iso::VolumeFormat::F32;
    std::vector<float> fieldValues;
    bool metaballs = false;
    if (!o.raw.empty()) {
        uint32_t dims[3];
        if (o.dims.empty() || !sample::parseTriple(o.dims, dims)) return fail(prog, "--raw needs --dims X,Y,Z (samples, each >= 2)");
        if (!iso::parseVolumeFormat(o.type, format)) return fail(prog, "--type must be u8, u16 or f32");
        samples = {dims[0], dims[1], dims[2]};
        std::fprintf(stderr, "reading %s ...\n", o.raw.c_str());
        auto r = iso::readRawVolume(o.raw, samples, format);
        if (!r) return fail(prog, r.message());
        data = std::move(r).value();
    } else {
        uint32_t cells[3];
        if (!sample::parseTriple(o.cells, cells)) return fail(prog, "--cells: expected X,Y,Z positive integers, got '" + o.cells + "'");
        samples = {cells[0] + 1, cells[1] + 1, cells[2] + 1};
        if (o.field == "metaballs") metaballs = true;
        else if (!sample::isAnalyticField(o.field)) return fail(prog, "--field must be cayley, sphere, gyroid or metaballs");
        else {
            std::fprintf(stderr, "sampling %s at %ux%ux%u ...\n", o.field.c_str(), samples[0], samples[1], samples[2]);
            const uint64_t count = uint64_t(samples[0]) * samples[1] * samples[2];
            if (count > (1ull << 31)) return fail(prog, "--cells too large: " + std::to_string(count) + " samples");
            fieldValues = sample::sampleAnalyticField(o.field, samples, {b[0], b[1], b[2]}, {b[3], b[4], b[5]});
        }
    }
    sample::CommonOptions co;
    co.validation = o.validation;
    co.device = o.device;
    std::atomic<uint32_t> messages{0};
    auto device = sample::createSampleDevice(co, &messages);
    if (!device) return fail(prog, device.message());

    const float iso = o.isoGiven ? o.iso : metaballs ? 0.35f : o.field == "sphere" || o.field == "cayley" || o.field == "gyroid" ? 0.f : 0.5f;
    // A first guess from the grid; if the surface needs more, one re-run with
    // the size the stats suggest.
    uint32_t capacity = o.capacity;
    if (!capacity) {
        // About one vertex per two cells suits smooth surfaces; never more
        // than one storage buffer can hold (32-byte vertices).
        const uint64_t cells = uint64_t(samples[0] - 1) * (samples[1] - 1) * (samples[2] - 1);
        const uint64_t most = (*device)->limits().maxStorageBufferRange / iso::IsoSurface::vertexStride() / 3 * 3;
        capacity = uint32_t(std::min<uint64_t>(std::max<uint64_t>(cells / 2, 3 * 4096), most));
    }
    for (int attempt = 0; attempt < 2; ++attempt) {
        iso::IsoSurfaceCreateInfo info;
        info.samples = samples;
        info.boundsMin = {b[0], b[1], b[2]};
        info.boundsMax = {b[3], b[4], b[5]};
        info.vertexCapacity = capacity;
        info.normals = normals;
        info.isoValue = iso;
        info.source = metaballs ? iso::FieldSource::Metaballs : iso::FieldSource::Volume;
        auto surface = iso::IsoSurface::create(**device, info);
        if (!surface) return fail(prog, surface.message());
        iso::IsoSurface& s = **surface;
        Status st;
        if (metaballs) {
            sample::MetaballSettings ms;
            std::vector<iso::Metaball> balls;
            const float c[6][3] = {{-0.4f, 0, 0}, {0.4f, 0, 0}, {0, 0.45f, 0}, {0, -0.4f, 0.2f}, {0.1f, 0.1f, 0.5f}, {-0.2f, 0.2f, -0.45f}};
            for (auto& p : c) balls.push_back({{p[0], p[1], p[2]}, 0.55f, 1.f, {}});
            st = s.setMetaballs(balls);
        } else if (!fieldValues.empty()) {
            st = s.uploadVolume(fieldValues.data(), fieldValues.size() * sizeof(float), iso::VolumeFormat::F32);
        } else {
            st = s.uploadVolume(data.data(), data.size(), format);
        }
        if (!st) return fail(prog, st.message());
        std::fprintf(stderr, "extracting (%ux%ux%u samples, iso %g, capacity %u vertices) ...\n", samples[0], samples[1], samples[2], iso, capacity);
        // The first frame carries the pipelines' JIT on some drivers: time the last.
        for (uint32_t r = 0; r < std::max(1u, o.repeat); ++r) {
            Status recorded;
            st = submitAndWait(**device, [&](VkCommandBuffer cmd) { recorded = s.record(cmd); });
            if (!st) return fail(prog, st.message());
            if (!recorded) return fail(prog, recorded.message());
        }
        const uint64_t last = s.framesRecorded() - 1;
        const auto stats = s.statsOfFrame(last);
        if (!stats) return fail(prog, "no surface stats for the frame (the GPU did not finish it)");
        if (stats->overflow && attempt == 0 && !o.capacity) {
            capacity = iso::suggestCapacity(*stats);
            std::fprintf(stderr, "capacity too small (%u vertices needed): retrying with %u\n", stats->verticesNeeded, capacity);
            continue;
        }
        const auto timings = s.internalGraph()->latestTimings();
        std::printf("triangles: %u (needed %u)%s, active cells: %u\n", stats->verticesWritten / 3, stats->verticesNeeded / 3,
                    stats->overflow ? " OVERFLOW" : "", stats->activeCells);
        sample::StatsRecorder rec;
        sample::FrameStats fs;
        fs.passes = timings;
        sample::fillSurfaceStats(fs, s, last);
        rec.setInfo("device", (*device)->name());
        rec.setInfo("source", metaballs ? "metaballs" : !o.raw.empty() ? o.raw : o.field);
        rec.add(fs);
        std::printf("%s", rec.table().c_str());
        if (!o.stats.empty()) {
            st = rec.write(o.stats);
            if (!st) return fail(prog, st.message());
        }
        if (!o.out.empty()) {
            std::fprintf(stderr, "reading back the mesh ...\n");
            auto mesh = s.readMesh(o.weld);
            if (!mesh) return fail(prog, mesh.message());
            const std::string ext = std::filesystem::path(o.out).extension().string();
            st = ext == ".obj" ? iso::writeObj(*mesh, o.out) : iso::writePly(*mesh, o.out);
            if (!st) return fail(prog, st.message());
            std::printf("wrote %s (%zu vertices, %zu triangles)\n", o.out.c_str(), mesh->positions.size(), mesh->indices.size() / 3);
        }
        break;
    }
    if (messages) return fail(prog, std::to_string(messages.load()) + " validation message(s)");
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    sample::ToolOptions options;
    const int parsed = sample::parseToolCommandLine(argc, argv, options);
    if (parsed >= 0) return parsed;
    if (options.command == "info") return runInfo(options.infoDevice);
    if (options.command == "voxelize") return runVoxelize(options.voxelize);
    if (options.command == "demo") return runDemo(options.demo);
    if (options.command == "bench") return pyramarch::bench::runBench(options.bench, pyramarch::bench::joinCommandLine(argc, argv));
    return runIso(options.iso);
}
