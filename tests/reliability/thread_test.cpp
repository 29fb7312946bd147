// README.md "Thread safety", row by row, on several threads at once: devices
// created and adopted concurrently, the allocator used and freed from several
// threads, IsoSurface / SurfaceRenderer / Voxelizer instances created,
// recorded and read back on threads of their own on one device, render graphs
// built and executed on threads of their own, compileGlsl concurrently, and
// the queue helpers (transfer.h, the read-backs) serializing their submits
// with Device::queueMutex() next to a host thread that submits on the same
// queue. Every result is compared with the same work done on one thread
// (and the graph's with the CPU). The validation layer's thread-safety checks
// are on (any message fails), and scripts/test.sh runs this binary again
// under ThreadSanitizer (tests/sanitizers/tsan.supp).
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cmath>
#include <functional>
#include <mutex>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "pyramarch/engine/device.h"
#include "pyramarch/engine/memory.h"
#include "pyramarch/engine/pipeline.h"
#include "pyramarch/engine/render_graph.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/engine/vulkan_functions.h"
#include "pyramarch/isosurface/isosurface.h"
#include "pyramarch/isosurface/surface_renderer.h"
#include "support/gpu_test.h"
#if PYRAMARCH_HAVE_SHADER_COMPILER
#include "pyramarch/engine/shader_compiler.h"
#endif
#if PYRAMARCH_HAVE_VOXELIZER
#include "pyramarch/voxelizer/shapes.h"
#include "pyramarch/voxelizer/voxelizer.h"
#endif

using namespace pyramarch;

namespace {

const uint32_t kScaleAddSpv[] =
#include "shaders/tests/scale_add.comp.spv.inc"
    ;

// Runs `work(i)` on `n` threads released together, so their calls overlap.
void onThreads(uint32_t n, const std::function<void(uint32_t)>& work) {
    std::atomic<uint32_t> ready{0};
    std::vector<std::thread> threads;
    for (uint32_t i = 0; i < n; ++i)
        threads.emplace_back([&, i] {
            ++ready;
            while (ready.load() < n) std::this_thread::yield();
            work(i);
        });
    for (std::thread& t : threads) t.join();
}

class Threads : public test::GpuTest {};

AdoptInfo adoptInfoOf(Device& d) {
    AdoptInfo info;
    info.instance = d.instance();
    info.physicalDevice = d.physicalDevice();
    info.device = d.device();
    info.queueFamilyIndex = d.queueFamily();
    info.synchronization2Enabled = true;
    info.dynamicRenderingEnabled = true;
    info.debugUtilsEnabled = d.limits().debugUtils;
    info.enabledFeatures.geometryShader = d.limits().geometryShader;
    info.enabledFeatures.fragmentStoresAndAtomics = d.limits().fragmentStoresAndAtomics;
    return info;
}

// A buffer written and read back through the transfer helpers.
Status roundTrip(Device& d, uint32_t seed) {
    constexpr uint32_t n = 1024;
    PYRAMARCH_TRY_ASSIGN(
        auto buffer, d.allocator().createBuffer({n * 4,
                                                 VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                                     VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                                 MemoryUsage::DeviceLocal, "thread.roundtrip"}));
    std::vector<uint32_t> in(n), out(n, 0);
    std::iota(in.begin(), in.end(), seed * n);
    PYRAMARCH_TRY(uploadBuffer(d, buffer, in.data(), n * 4));
    PYRAMARCH_TRY(readBuffer(d, buffer, out.data(), n * 4));
    if (out != in) return Status::error(ErrorCode::InvalidState, "read back other data than was uploaded");
    return {};
}

// (cells + 1)^3 samples of the distance from the centre of [-1, 1]^3.
std::vector<float> distanceField(uint32_t cells) {
    const uint32_t n = cells + 1;
    std::vector<float> v(size_t(n) * n * n);
    for (uint32_t z = 0; z < n; ++z)
        for (uint32_t y = 0; y < n; ++y)
            for (uint32_t x = 0; x < n; ++x) {
                const float px = 2.f * float(x) / float(cells) - 1.f, py = 2.f * float(y) / float(cells) - 1.f,
                            pz = 2.f * float(z) / float(cells) - 1.f;
                v[(size_t(z) * n + y) * n + x] = std::sqrt(px * px + py * py + 0.8f * pz * pz);
            }
    return v;
}

iso::IsoSurfaceCreateInfo isoInfo(uint32_t variant) {
    iso::IsoSurfaceCreateInfo info;
    info.samples = {17, 17, 17};
    info.vertexCapacity = 3 * 8192;
    info.framesInFlight = 1;
    info.source = variant % 2 ? iso::FieldSource::Metaballs : iso::FieldSource::Volume;
    info.maxBalls = 8;
    info.isoValue = variant % 2 ? 0.5f : 0.55f + 0.05f * float(variant);
    return info;
}

// Creates an IsoSurface, runs two frames and reads the mesh back, all on
// the calling thread.
Result<iso::Mesh> isoOnce(Device& d, uint32_t variant) {
    PYRAMARCH_TRY_ASSIGN(auto s, iso::IsoSurface::create(d, isoInfo(variant)));
    if (variant % 2) {
        const std::vector<iso::Metaball> balls{{{-0.3f, 0.f, 0.f}, 0.5f, 1.f}, {{0.35f, 0.1f, 0.f}, 0.45f, 1.f}};
        PYRAMARCH_TRY(s->setMetaballs(balls));
    } else {
        const std::vector<float> v = distanceField(16);
        PYRAMARCH_TRY(s->uploadVolume(v.data(), v.size() * sizeof(float), iso::VolumeFormat::F32));
    }
    for (int frame = 0; frame < 2; ++frame) {
        Status rec;
        PYRAMARCH_TRY(submitAndWait(d, [&](VkCommandBuffer cmd) { rec = s->record(cmd); }));
        PYRAMARCH_TRY(rec);
    }
    return s->readMesh();
}

// An IsoSurface drawn by a SurfaceRenderer into a 48x32 image, read back.
Result<std::vector<uint8_t>> drawOnce(Device& d) {
    constexpr uint32_t w = 48, h = 32;
    PYRAMARCH_TRY_ASSIGN(auto s, iso::IsoSurface::create(d, isoInfo(0)));
    const std::vector<float> v = distanceField(16);
    PYRAMARCH_TRY(s->uploadVolume(v.data(), v.size() * sizeof(float), iso::VolumeFormat::F32));
    PYRAMARCH_TRY_ASSIGN(auto color, d.allocator().createImage({.format = VK_FORMAT_R8G8B8A8_UNORM,
                                                                .extent = {w, h, 1},
                                                                .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                                                                         VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                                                .name = "thread.color"}));
    iso::SurfaceRendererCreateInfo rci;
    rci.colorFormat = VK_FORMAT_R8G8B8A8_UNORM;
    PYRAMARCH_TRY_ASSIGN(auto renderer, iso::SurfaceRenderer::create(d, rci));
    RenderGraph graph(&d);
    PYRAMARCH_TRY_ASSIGN(auto added, s->addPasses(graph));
    iso::SurfaceRenderer::GraphInputs inputs;
    inputs.vertices = added.vertices;
    inputs.drawArgs = added.drawArgs;
    inputs.color = graph.importImage("target", color, VK_IMAGE_LAYOUT_UNDEFINED, {Access::None},
                                     {Access::TransferSrc, PassKind::Transfer});
    inputs.depth = graph.createImage("depth", {.format = VK_FORMAT_D32_SFLOAT, .extent = {w, h, 1}});
    PYRAMARCH_TRY(renderer->addPasses(graph, inputs).status());
    PYRAMARCH_TRY(graph.compile());
    renderer->setView(iso::makeSurfaceView({2.f, 1.f, 2.5f}, {0.f, 0.f, 0.f}, 0.8f, float(w) / float(h)));
    Status rec;
    PYRAMARCH_TRY(submitAndWait(d, [&](VkCommandBuffer cmd) { rec = graph.execute(cmd); }));
    PYRAMARCH_TRY(rec);
    std::vector<uint8_t> pixels;
    PYRAMARCH_TRY(readImage(d, color, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, pixels));
    return pixels;
}

#if PYRAMARCH_HAVE_VOXELIZER
struct VoxResult {
    voxel::VoxelStats stats;
    std::vector<voxel::LeafVoxel> leaves;
};

Result<VoxResult> voxelizeOnce(Device& d) {
    voxel::VoxelizerCreateInfo info;
    info.maxResolution = 16;
    info.maxTriangles = 4096;
    info.framesInFlight = 1;
    PYRAMARCH_TRY_ASSIGN(auto v, voxel::Voxelizer::create(d, info));
    const voxel::TriangleMesh mesh = voxel::shapes::torusKnot({0.f, 0.f, 0.f}, 0.7f, 0.2f, 2, 3, 64, 8);
    voxel::VoxelGrid grid;
    grid.origin = {-1.1f, -1.1f, -1.1f};
    grid.voxelSize = {2.2f / 16.f, 2.2f / 16.f, 2.2f / 16.f};
    grid.dims[0] = grid.dims[1] = grid.dims[2] = 16;
    PYRAMARCH_TRY(v->setMesh(mesh, grid));
    Status rec;
    PYRAMARCH_TRY(submitAndWait(d, [&](VkCommandBuffer cmd) { rec = v->record(cmd); }));
    PYRAMARCH_TRY(rec);
    VoxResult out;
    PYRAMARCH_TRY_ASSIGN(out.stats, v->readStats());
    PYRAMARCH_TRY_ASSIGN(auto tree, v->readOctree());
    out.leaves = voxel::extractLeaves(tree);
    return out;
}
#endif

// One compute pass (out = in * 3 + seed) in a graph built, compiled and
// executed on the calling thread; the command buffer, its pool and the
// submission are the host's, the submit under Device::queueMutex() as
// README.md asks of a host that shares the queue with the read-back helpers.
Status graphOnce(Device& d, uint32_t seed, std::vector<uint32_t>& result) {
    constexpr uint32_t n = 777;
    const VolkDeviceTable& vk = d.vk();
    constexpr VkBufferUsageFlags usage =
        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    PYRAMARCH_TRY_ASSIGN(auto in, d.allocator().createBuffer({n * 4, usage, MemoryUsage::DeviceLocal, "thread.in"}));
    PYRAMARCH_TRY_ASSIGN(auto out, d.allocator().createBuffer({n * 4, usage, MemoryUsage::DeviceLocal, "thread.out"}));
    std::vector<uint32_t> input(n);
    std::iota(input.begin(), input.end(), 1u);
    PYRAMARCH_TRY(uploadBuffer(d, in, input.data(), n * 4));
    PYRAMARCH_TRY_ASSIGN(auto pipeline,
                         ComputePipeline::create(d, {.spirv = kScaleAddSpv,
                                                     .name = "thread.scale-add",
                                                     .layout = {.bindings = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                                                             VK_DESCRIPTOR_TYPE_STORAGE_BUFFER},
                                                                .pushConstantBytes = 12,
                                                                .pushDescriptors = false}}));
    PYRAMARCH_TRY_ASSIGN(auto pool, DescriptorPool::create(d, 1, 2, "thread.pool"));
    DescriptorBinding bindings[2] = {{in.handle()}, {out.handle()}};
    PYRAMARCH_TRY_ASSIGN(VkDescriptorSet set, pool.allocate(pipeline.pipelineLayout(), bindings));
    RenderGraph graph(&d);
    auto rin = graph.importBuffer("in", in, {Access::TransferDst, PassKind::Transfer}, {}, true);
    auto rout = graph.importBuffer("out", out, {}, {Access::TransferSrc, PassKind::Transfer});
    graph.addPass("scale", PassKind::Compute)
        .use(rin, Access::StorageRead)
        .use(rout, Access::StorageWrite)
        .record([&](PassContext& ctx) {
            const uint32_t params[3] = {n, 3, seed};
            vk.vkCmdBindPipeline(ctx.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.pipeline());
            vk.vkCmdBindDescriptorSets(ctx.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout(), 0, 1, &set, 0,
                                       nullptr);
            vk.vkCmdPushConstants(ctx.cmd, pipeline.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(params), params);
            vk.vkCmdDispatch(ctx.cmd, (n + 63) / 64, 1, 1);
        });
    PYRAMARCH_TRY(graph.compile());

    VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pci.queueFamilyIndex = d.queueFamily();
    VkCommandPool cmdPool = VK_NULL_HANDLE;
    if (vk.vkCreateCommandPool(d.device(), &pci, nullptr, &cmdPool) != VK_SUCCESS)
        return Status::error(ErrorCode::Vulkan, "vkCreateCommandPool");
    VkFence fence = VK_NULL_HANDLE;
    VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    vk.vkCreateFence(d.device(), &fci, nullptr, &fence);
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = cmdPool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    vk.vkAllocateCommandBuffers(d.device(), &ai, &cmd);
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vk.vkBeginCommandBuffer(cmd, &bi);
    Status executed = graph.execute(cmd);
    vk.vkEndCommandBuffer(cmd);
    VkResult r = VK_SUCCESS;
    if (executed) {
        VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cmd;
        {
            std::lock_guard<std::mutex> lock(d.queueMutex());
            r = vk.vkQueueSubmit(d.queue(), 1, &si, fence);
        }
        if (r == VK_SUCCESS) r = vk.vkWaitForFences(d.device(), 1, &fence, VK_TRUE, UINT64_MAX);
    }
    vk.vkDestroyFence(d.device(), fence, nullptr);
    vk.vkDestroyCommandPool(d.device(), cmdPool, nullptr);
    PYRAMARCH_TRY(executed);
    if (r != VK_SUCCESS) return Status::error(Status::codeOf(r), "host submit", r);
    result.resize(n);
    PYRAMARCH_TRY(readBuffer(d, out, result.data(), n * 4));
    for (uint32_t i = 0; i < n; ++i)
        if (result[i] != input[i] * 3 + seed)
            return Status::error(ErrorCode::InvalidState, "element " + std::to_string(i) + " is " +
                                                              std::to_string(result[i]) + ", the CPU says " +
                                                              std::to_string(input[i] * 3 + seed));
    return {};
}

} // namespace

// Device row: create() and adopt() from several threads at once (each
// created device has a validation log of its own), enumerate() next to them;
// every device works afterwards.
TEST_F(Threads, DevicesAreCreatedAndAdoptedConcurrently) {
    constexpr uint32_t kThreads = 5;
    std::array<test::ValidationLog, kThreads> logs;
    std::array<std::string, kThreads> errors;
    std::array<std::unique_ptr<Device>, kThreads> devices;
    onThreads(kThreads, [&](uint32_t i) {
        if (i == 4) {
            auto list = Device::enumerate();
            if (!list || list->empty()) errors[i] = "enumerate: " + (list ? std::string("no device") : list.message());
            return;
        }
        auto d = i < 2 ? Device::create(test::validatedDeviceInfo("pyramarch-thread", logs[i]))
                       : Device::adopt(adoptInfoOf(device()));
        if (!d) {
            errors[i] = d.message();
            return;
        }
        devices[i] = std::move(d).value();
        // Created devices have a queue of their own; adopted ones were given none.
        if (i < 2) {
            const Status s = roundTrip(*devices[i], i);
            if (!s) errors[i] = s.message();
        } else {
            auto b = devices[i]->allocator().createBuffer(
                {4096, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, MemoryUsage::DeviceLocal, "thread.adopted"});
            if (!b) errors[i] = b.message();
        }
    });
    for (uint32_t i = 0; i < kThreads; ++i) EXPECT_TRUE(errors[i].empty()) << "thread " << i << ": " << errors[i];
    for (uint32_t i = 0; i < 2; ++i) {
        devices[i].reset();
        for (const std::string& m : logs[i].take()) ADD_FAILURE() << "device " << i << ": " << m;
    }
}

// Allocator row: buffers and images created on several threads, some
// destroyed on another thread than the one that created them; stats() and
// budget() read meanwhile; every allocation is returned.
TEST_F(Threads, AllocatorIsLockedAcrossThreads) {
    Allocator& allocator = device().allocator();
    const AllocatorStats before = allocator.stats();
    std::mutex handMutex;
    std::vector<Buffer> handedOver;
    std::atomic<uint32_t> failures{0};
    onThreads(4, [&](uint32_t t) {
        std::vector<Buffer> mine;
        for (uint32_t k = 0; k < 60; ++k) {
            const VkDeviceSize size = VkDeviceSize(256)
                                      << ((k + t) % 11); // 256 B .. 256 KiB: shared blocks and dedicated
            auto b = allocator.createBuffer({size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                             k % 3 ? MemoryUsage::DeviceLocal : MemoryUsage::Upload, "thread.alloc"});
            if (!b) {
                ++failures;
                continue;
            }
            if (k % 4 == 0) {
                std::lock_guard<std::mutex> lock(handMutex);
                handedOver.push_back(std::move(b).value());
            } else {
                mine.push_back(std::move(b).value());
            }
            if (k % 5 == 0) {
                auto image = allocator.createImage({.format = VK_FORMAT_R8G8B8A8_UNORM,
                                                    .extent = {16 + k, 8, 1},
                                                    .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
                                                    .name = "thread.image"});
                if (!image) ++failures;
            }
            if (k % 7 == 0) {
                (void)allocator.stats();
                (void)allocator.budget();
                mine.erase(mine.begin(), mine.begin() + mine.size() / 2);
            }
            if (k % 9 == 0) { // destroy buffers another thread created
                std::lock_guard<std::mutex> lock(handMutex);
                if (handedOver.size() > 2) handedOver.erase(handedOver.begin(), handedOver.begin() + 2);
            }
        }
    });
    EXPECT_EQ(failures.load(), 0u);
    handedOver.clear();
    EXPECT_EQ(allocator.stats().liveAllocations, before.liveAllocations);
}

// IsoSurface, SurfaceRenderer and Voxelizer rows: instances created,
// recorded and read back on threads of their own, all on one device and its
// one queue, give what the same work gives on one thread.
TEST_F(Threads, InstancesCreateRecordAndReadBackOnTheirOwnThreads) {
    Device& d = device();
    constexpr uint32_t kIso = 4;
    std::array<iso::Mesh, kIso> serial;
    for (uint32_t i = 0; i < kIso; ++i) {
        auto m = isoOnce(d, i);
        ASSERT_TRUE(m.ok()) << m.message();
        ASSERT_GT(m->indices.size(), 300u) << "variant " << i;
        serial[i] = std::move(m).value();
    }
    auto image = drawOnce(d);
    ASSERT_TRUE(image.ok()) << image.message();
    size_t lit = 0;
    for (size_t p = 0; p < image->size(); p += 4) lit += (*image)[p] | (*image)[p + 1] | (*image)[p + 2];
    ASSERT_GT(lit, 0u) << "the serial draw drew nothing";
#if PYRAMARCH_HAVE_VOXELIZER
    auto vox = voxelizeOnce(d);
    ASSERT_TRUE(vox.ok()) << vox.message();
    ASSERT_GT(vox->leaves.size(), 50u);
#endif

    constexpr uint32_t kThreads = kIso + 2;
    std::array<std::string, kThreads> errors;
    for (int round = 0; round < 2; ++round)
        onThreads(kThreads, [&](uint32_t t) {
            if (t < kIso) {
                auto m = isoOnce(d, t);
                if (!m)
                    errors[t] = m.message();
                else if (m->positions != serial[t].positions || m->indices != serial[t].indices ||
                         m->normals != serial[t].normals)
                    errors[t] = "iso variant " + std::to_string(t) + ": another mesh than on one thread";
            } else if (t == kIso) {
                auto img = drawOnce(d);
                if (!img)
                    errors[t] = img.message();
                else if (*img != *image)
                    errors[t] = "the draw differs from the one on one thread";
            } else {
#if PYRAMARCH_HAVE_VOXELIZER
                auto v = voxelizeOnce(d);
                if (!v) {
                    errors[t] = v.message();
                    return;
                }
                if (v->stats.fragmentsNeeded != vox->stats.fragmentsNeeded ||
                    v->stats.tilesNeeded != vox->stats.tilesNeeded || v->leaves.size() != vox->leaves.size())
                    errors[t] = "the voxelizer's counts differ from the ones on one thread";
                for (size_t i = 0; errors[t].empty() && i < v->leaves.size(); ++i) {
                    const voxel::LeafVoxel &a = v->leaves[i], &b = vox->leaves[i];
                    if (a.x != b.x || a.y != b.y || a.z != b.z || a.count != b.count || a.color != b.color)
                        errors[t] = "leaf " + std::to_string(i) + " differs from the one on one thread";
                }
#endif
            }
        });
    for (uint32_t t = 0; t < kThreads; ++t) EXPECT_TRUE(errors[t].empty()) << "thread " << t << ": " << errors[t];
}

// RenderGraph row: different graphs built, compiled and executed on
// different threads (each with its own command pool, submitted under the
// device's queue lock), checked against the CPU.
TEST_F(Threads, GraphsBuildAndExecuteOnTheirOwnThreads) {
    constexpr uint32_t kThreads = 4;
    std::array<std::string, kThreads> errors;
    onThreads(kThreads, [&](uint32_t t) {
        for (uint32_t k = 0; k < 3 && errors[t].empty(); ++k) {
            std::vector<uint32_t> result;
            const Status s = graphOnce(device(), 10 * t + k, result);
            if (!s) errors[t] = s.message();
        }
    });
    for (uint32_t t = 0; t < kThreads; ++t) EXPECT_TRUE(errors[t].empty()) << "thread " << t << ": " << errors[t];
}

// Device row, queue(): the transfer helpers on several threads at once,
// next to a host thread submitting on the same queue under queueMutex().
// Without the lock the validation layer reports the queue used from two
// threads at once (and ThreadSanitizer a race).
TEST_F(Threads, QueueHelpersSerializeTheirSubmits) {
    Device& d = device();
    constexpr uint32_t kThreads = 5;
    std::array<std::string, kThreads> errors;
    onThreads(kThreads, [&](uint32_t t) {
        for (uint32_t k = 0; k < 30 && errors[t].empty(); ++k) {
            if (t == 0) { // the host: an empty submission of its own
                const VolkDeviceTable& vk = d.vk();
                VkFence fence = VK_NULL_HANDLE;
                VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
                vk.vkCreateFence(d.device(), &fci, nullptr, &fence);
                VkResult r;
                {
                    std::lock_guard<std::mutex> lock(d.queueMutex());
                    r = vk.vkQueueSubmit(d.queue(), 0, nullptr, fence);
                }
                if (r == VK_SUCCESS) r = vk.vkWaitForFences(d.device(), 1, &fence, VK_TRUE, UINT64_MAX);
                vk.vkDestroyFence(d.device(), fence, nullptr);
                if (r != VK_SUCCESS) errors[t] = "host submit: " + vkResultName(r);
            } else {
                const Status s = roundTrip(d, 100 * t + k);
                if (!s) errors[t] = s.message();
            }
        }
    });
    for (uint32_t t = 0; t < kThreads; ++t) EXPECT_TRUE(errors[t].empty()) << "thread " << t << ": " << errors[t];
}

#if PYRAMARCH_HAVE_SHADER_COMPILER
// compileGlsl row: several threads compile at once (each call its own
// shaderc compiler) and get the SPIR-V one thread gets; a broken source
// fails with ParseError on every thread.
TEST(ThreadsCpu, CompileGlslRunsConcurrently) {
    // GlslSource holds a view: the texts live here.
    std::array<std::string, 4> texts, broken;
    for (uint32_t i = 0; i < 4; ++i) {
        texts[i] = "#version 460\nlayout(local_size_x = " + std::to_string(32 * (i % 4 + 1)) +
                   ") in;\nlayout(std430, binding = 0) buffer B { float v[]; } b;\n"
                   "void main() { b.v[gl_GlobalInvocationID.x] *= " +
                   std::to_string(i + 2) + ".0; }\n";
        broken[i] = texts[i] + "this is not GLSL\n";
    }
    auto source = [](const std::string& text, uint32_t i) {
        GlslSource s;
        s.name = "thread" + std::to_string(i) + ".comp";
        s.stage = ShaderStage::Compute;
        s.text = text;
        return s;
    };
    constexpr uint32_t kThreads = 4;
    std::array<std::vector<uint32_t>, kThreads> serial;
    for (uint32_t i = 0; i < kThreads; ++i) {
        auto spv = compileGlsl(source(texts[i], i));
        ASSERT_TRUE(spv.ok()) << spv.message();
        serial[i] = std::move(spv).value();
    }
    std::array<std::string, kThreads> errors;
    onThreads(kThreads, [&](uint32_t t) {
        for (uint32_t k = 0; k < 3; ++k) {
            auto spv = compileGlsl(source(texts[t], t));
            if (!spv || *spv != serial[t]) errors[t] = spv ? "other SPIR-V than on one thread" : spv.message();
            auto bad = compileGlsl(source(broken[t], t));
            if (bad.ok() || bad.code() != ErrorCode::ParseError)
                errors[t] = "a broken source did not fail as ParseError";
        }
    });
    for (uint32_t t = 0; t < kThreads; ++t) EXPECT_TRUE(errors[t].empty()) << "thread " << t << ": " << errors[t];
}
#endif
