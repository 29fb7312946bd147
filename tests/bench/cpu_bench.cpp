// Google Benchmark for the CPU side of an iso-surface frame:
//  - FrameRecord: host time to record one frame of the isosurface module's
//    graph into a command buffer (never submitted: recording is all a host
//    pays per frame on the CPU), for the HistoPyramid and scan strategies;
//  - CpuMarchingCubes: the CPU reference marching cubes of tests/reference,
//    i.e. the baseline a user would otherwise write, on the Cayley field;
//  - VoxelizerTriangleOrder: the order of a mesh's triangles that the
//    voxelizer's setMesh computes on each upload, for a file in spatial
//    order (kept) and the same triangles shuffled (sorted in Morton order).
//
//   build/tests/bench/cpu_bench [--benchmark_format=json]
#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>
#include <vector>

#include "pyramarch/engine/device.h"
#include "pyramarch/engine/shader_compiler.h"
#include "pyramarch/engine/vulkan_functions.h"
#include "pyramarch/isosurface/isosurface.h"
#include "pyramarch/isosurface/testing.h"
#include "pyramarch/voxelizer/shapes.h"
#include "pyramarch/voxelizer/testing.h"
#include "reference.h"
#include "voxel_reference.h"

using namespace pyramarch;

namespace {

Device* sharedDevice() {
    static std::unique_ptr<Device> device = [] {
        DeviceCreateInfo ci;
        ci.applicationName = "cpu_bench";
        auto d = Device::create(ci);
        if (!d) {
            std::fprintf(stderr, "cpu_bench: no Vulkan device: %s\n", d.message().c_str());
            return std::unique_ptr<Device>();
        }
        return std::move(d).value();
    }();
    return device.get();
}

void FrameRecord(benchmark::State& state) {
    Device* dev = sharedDevice();
    if (!dev) {
        state.SkipWithError("no Vulkan device");
        return;
    }
    const uint32_t n = uint32_t(state.range(0));
    iso::IsoSurfaceCreateInfo info;
    info.samples = {n + 1, n + 1, n + 1};
    info.vertexCapacity = 3u << 16;
    info.source = iso::FieldSource::UserGlsl;
    info.fieldGlsl = "float field(vec3 p) { return 16.0 * p.x * p.y * p.z + 4.0 * (p.x + p.y + p.z) - 1.0; }\n";
#ifdef PYRAMARCH_HAVE_SHADER_COMPILER
    info.compileGlsl = pyramarch::compileGlsl;
#endif
    info.isoValue = 0.f;
    iso::testing::Knobs knobs;
    knobs.extraction =
        state.range(1) ? iso::testing::ExtractionMethod::Scan : iso::testing::ExtractionMethod::HistoPyramid;
    auto surface = iso::testing::create(*dev, info, knobs);
    if (!surface) {
        state.SkipWithError(surface.message().c_str());
        return;
    }
    const VolkDeviceTable& vk = dev->vk();
    VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pci.queueFamilyIndex = dev->queueFamily();
    VkCommandPool pool = VK_NULL_HANDLE;
    if (vk.vkCreateCommandPool(dev->device(), &pci, nullptr, &pool) != VK_SUCCESS) {
        state.SkipWithError("vkCreateCommandPool failed");
        return;
    }
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    vk.vkAllocateCommandBuffers(dev->device(), &ai, &cmd);
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    for (auto _ : state) {
        vk.vkBeginCommandBuffer(cmd, &bi);
        Status s = (*surface)->record(cmd);
        vk.vkEndCommandBuffer(cmd);
        if (!s) {
            state.SkipWithError(s.message().c_str());
            break;
        }
        state.PauseTiming();
        vk.vkResetCommandBuffer(cmd, 0);
        state.ResumeTiming();
    }
    vk.vkDestroyCommandPool(dev->device(), pool, nullptr);
    state.SetLabel(state.range(1) ? "scan" : "histopyramid");
}
BENCHMARK(FrameRecord)->ArgsProduct({{31, 127, 255}, {0, 1}})->Unit(benchmark::kMicrosecond);

void CpuMarchingCubes(benchmark::State& state) {
    const uint32_t n = uint32_t(state.range(0));
    ref::Grid g;
    for (int a = 0; a < 3; ++a) g.n[a] = n + 1;
    std::vector<float> field(g.samples());
    for (uint32_t z = 0; z < g.n[2]; ++z)
        for (uint32_t y = 0; y < g.n[1]; ++y)
            for (uint32_t x = 0; x < g.n[0]; ++x) {
                const float px = g.coord(0, x), py = g.coord(1, y), pz = g.coord(2, z);
                field[g.index(x, y, z)] = 16.f * px * py * pz + 4.f * (px + py + pz) - 1.f;
            }
    size_t vertices = 0;
    for (auto _ : state) {
        ref::McResult r = ref::marchingCubes(g, field.data(), 0.f, ref::Normals::Central);
        vertices = r.vertices.size();
        benchmark::DoNotOptimize(r);
    }
    state.counters["cells/s"] =
        benchmark::Counter(double(g.cells()) * double(state.iterations()), benchmark::Counter::kIsRate);
    state.counters["triangles"] = double(vertices / 3);
}
BENCHMARK(CpuMarchingCubes)->Arg(31)->Arg(63)->Arg(127)->Unit(benchmark::kMillisecond);

// Arguments: about that many triangles (a dense torus knot, R = 512); 0 the
// knot's own ring order, 1 its triangles shuffled.
void VoxelizerTriangleOrder(benchmark::State& state) {
    using namespace pyramarch::voxel;
    TriangleMesh mesh = shapes::denseKnot({0, 0, 0}, 1.0f, uint32_t(state.range(0)));
    if (state.range(1) != 0) mesh = pyramarch::voxel::ref::shuffledTriangles(mesh, 1);
    auto grid = defaultGrid(mesh, 512);
    if (!grid.ok()) {
        state.SkipWithError(grid.message().c_str());
        return;
    }
    for (auto _ : state) {
        testing::TriangleOrder order = testing::smallTriangleOrder(mesh, grid.value(), 512, true);
        benchmark::DoNotOptimize(order);
    }
    state.counters["triangles"] = double(mesh.triangleCount());
}
BENCHMARK(VoxelizerTriangleOrder)->ArgsProduct({{100000, 1000000}, {0, 1}})->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
