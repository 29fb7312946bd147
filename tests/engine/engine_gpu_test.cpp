// GPU tests of the engine on whatever device exists (lavapipe in CI), with
// validation and synchronization validation on: any message fails the test.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <numeric>
#include <sstream>

#include "pyramarch/engine/device.h"
#include "pyramarch/engine/memory.h"
#include "pyramarch/engine/pipeline.h"
#include "pyramarch/engine/render_graph.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/engine/vulkan_functions.h"
#include "support/gpu_test.h"

using namespace pyramarch;

namespace {

const uint32_t kScaleAddSpv[] =
#include "shaders/tests/scale_add.comp.spv.inc"
    ;
const uint32_t kWriteDispatchArgsSpv[] =
#include "shaders/tests/write_dispatch_args.comp.spv.inc"
    ;
const uint32_t kMarkGroupsSpv[] =
#include "shaders/tests/mark_groups.comp.spv.inc"
    ;
const uint32_t kTriangleGenSpv[] =
#include "shaders/tests/triangle_gen.comp.spv.inc"
    ;
const uint32_t kFlatVertSpv[] =
#include "shaders/tests/flat.vert.spv.inc"
    ;
const uint32_t kFlatFragSpv[] =
#include "shaders/tests/flat.frag.spv.inc"
    ;
const uint32_t kTexelWriteSpv[] =
#include "shaders/tests/texel_write.comp.spv.inc"
    ;
const uint32_t kTexelQuadsSpv[] =
#include "shaders/tests/texel_quads.comp.spv.inc"
    ;
const uint32_t kReflectMixSpv[] =
#include "shaders/tests/reflect_mix.comp.spv.inc"
    ;

constexpr VkBufferUsageFlags kStorage =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;

Buffer makeBuffer(Device& d, VkDeviceSize size, VkBufferUsageFlags usage, const char* name) {
    auto b = d.allocator().createBuffer({size, usage, MemoryUsage::DeviceLocal, name});
    EXPECT_TRUE(b.ok()) << b.message();
    return std::move(b).value();
}

struct ScaleAddParams {
    uint32_t count, scale, add;
};

class EngineGpu : public test::GpuTest {};

BufferRef rinOf(RenderGraph& g, const Buffer& in) {
    return g.importBuffer("in", in, {Access::TransferDst, PassKind::Transfer}, {Access::None}, true);
}

} // namespace

// Each pass declares its pipeline and buffers once (binding + intent); the
// graph derives the barriers and the descriptors: pushed where the layout is a
// push-descriptor layout, else from the graph's own per-slot sets.
class DeclaredBindings : public test::GpuTest, public ::testing::WithParamInterface<bool> {};

TEST_P(DeclaredBindings, ThreePassComputeChainMatchesCpu) {
    const bool push = GetParam();
    if (push && !device().limits().pushDescriptors) GTEST_SKIP() << "device has no VK_KHR_push_descriptor";
    constexpr uint32_t n = 1000;
    std::vector<uint32_t> input(n);
    std::iota(input.begin(), input.end(), 7u);
    Buffer in = makeBuffer(device(), n * 4, kStorage, "chain-in");
    Buffer out = makeBuffer(device(), n * 4, kStorage, "chain-out");
    Buffer out2 = makeBuffer(device(), n * 4, kStorage, "chain-out2");
    ASSERT_OK(uploadBuffer(device(), in, input.data(), n * 4));

    auto pipeline = ComputePipeline::create(
        device(), {.spirv = kScaleAddSpv,
                   .name = "scale-add",
                   .layout = {.bindings = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER},
                              .pushConstantBytes = sizeof(ScaleAddParams),
                              .pushDescriptors = push}});
    ASSERT_OK(pipeline);
    EXPECT_EQ(pipeline->pipelineLayout().usesPushDescriptors(), push);
    RenderGraph graph(&device());
    BufferRef rin = graph.importBuffer("in", in, {Access::TransferDst, PassKind::Transfer}, {Access::None}, true);
    BufferRef a = graph.createBuffer("a", {.size = n * 4});
    BufferRef b = graph.createBuffer("b", {.size = n * 4});
    BufferRef rout = graph.importBuffer("out", out, {Access::TransferSrc, PassKind::Transfer},
                                        {Access::TransferSrc, PassKind::Transfer});
    const ScaleAddParams params[3] = {{n, 2, 1}, {n, 3, 5}, {n, 1, 100}};
    const BufferRef links[4] = {rin, a, b, rout};
    for (int i = 0; i < 3; ++i) {
        graph.addPass("link" + std::to_string(i), PassKind::Compute)
            .pipeline(*pipeline)
            .storage(0, links[i], Access::StorageRead)
            .storage(1, links[i + 1], Access::StorageWrite)
            .record([p = params[i]](PassContext& ctx) {
                ctx.pushConstants(p);
                ctx.dispatch((n + 63) / 64);
            });
    }
    ASSERT_OK(graph.compile());
    // Frames 0-1 write `out`; then the import is rebound to `out2` (the set
    // path rewrites only the ring slot it records into).
    for (int frame = 0; frame < 4; ++frame) {
        if (frame == 2) graph.rebindImportedBuffer(rout, out2.handle(), out2.size());
        Status recorded;
        ASSERT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) { recorded = graph.execute(cmd); }));
        ASSERT_OK(recorded);
    }
    for (const Buffer* target : {&out, &out2}) {
        auto result = readBufferAs<uint32_t>(device(), *target, n);
        ASSERT_OK(result);
        for (uint32_t i = 0; i < n; ++i) {
            const uint32_t expected = ((input[i] * 2 + 1) * 3 + 5) * 1 + 100;
            ASSERT_EQ(result.value()[i], expected) << "element " << i;
        }
    }
    EXPECT_EQ(graph.frameIndex(), 4u);
}

INSTANTIATE_TEST_SUITE_P(EngineGpu, DeclaredBindings, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& i) {
                             return i.param ? "PushDescriptors" : "GraphSets";
                         });

// One buffer written through several storage bindings at offsets (what a
// vertex buffer larger than maxStorageBufferRange needs): each pass's
// descriptors cover one slice of `in` and one of `out`; the whole-buffer
// barriers order them. Offsets that break the device's alignment, ranges past
// maxStorageBufferRange and a rebound import too small for a slice are
// errors naming the pass, buffer and binding.
TEST_P(DeclaredBindings, StorageSlicesAtOffsetsOfOneBuffer) {
    const bool push = GetParam();
    if (push && !device().limits().pushDescriptors) GTEST_SKIP() << "device has no VK_KHR_push_descriptor";
    const uint64_t align = std::max<uint64_t>(device().limits().minStorageBufferOffsetAlignment, 4);
    const uint32_t slice = uint32_t(std::max<uint64_t>(align, 256) / 4); // elements per slice
    const uint32_t n = 3 * slice;
    std::vector<uint32_t> input(n);
    std::iota(input.begin(), input.end(), 11u);
    Buffer in = makeBuffer(device(), n * 4, kStorage, "slices-in");
    Buffer out = makeBuffer(device(), n * 4, kStorage, "slices-out");
    Buffer small = makeBuffer(device(), slice * 4, kStorage, "slices-small");
    ASSERT_OK(uploadBuffer(device(), in, input.data(), n * 4));
    auto pipeline = ComputePipeline::create(
        device(), {.spirv = kScaleAddSpv,
                   .name = "scale-add",
                   .layout = {.bindings = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER},
                              .pushConstantBytes = sizeof(ScaleAddParams),
                              .pushDescriptors = push}});
    ASSERT_OK(pipeline);
    RenderGraph graph(&device());
    BufferRef rin = graph.importBuffer("in", in, {Access::TransferDst, PassKind::Transfer}, {Access::None}, true);
    BufferRef rout = graph.importBuffer("out", out, {Access::None}, {Access::TransferSrc, PassKind::Transfer});
    const VkDeviceSize bytes = VkDeviceSize(slice) * 4;
    for (uint32_t k = 0; k < 3; ++k) {
        // The last slice reaches the end: VK_WHOLE_SIZE from its offset.
        const VkDeviceSize range = k == 2 ? VK_WHOLE_SIZE : bytes;
        graph.addPass("slice" + std::to_string(k), PassKind::Compute)
            .pipeline(*pipeline)
            .storage(0, rin, Access::StorageRead, 0, range, k * bytes)
            .storage(1, rout, Access::StorageWrite, 0, range, k * bytes)
            .record([slice, k](PassContext& ctx) {
                ctx.pushConstants(ScaleAddParams{slice, k + 2, 100 * k});
                ctx.dispatch((slice + 63) / 64);
            });
    }
    ASSERT_OK(graph.compile());
    Status recorded;
    ASSERT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) { recorded = graph.execute(cmd); }));
    ASSERT_OK(recorded);
    auto result = readBufferAs<uint32_t>(device(), out, n);
    ASSERT_OK(result);
    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t k = i / slice;
        ASSERT_EQ(result.value()[i], input[i] * (k + 2) + 100 * k) << "element " << i;
    }
    // A rebound import smaller than the slices: execute() refuses before recording.
    graph.rebindImportedBuffer(rout, small.handle(), small.size());
    ASSERT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) { recorded = graph.execute(cmd); }));
    ASSERT_FALSE(recorded.ok());
    EXPECT_NE(recorded.message().find("pass 'slice1' binds buffer 'out' at binding 1 from offset " +
                                      std::to_string(bytes) + ": the offset is past the buffer's end"),
              std::string::npos)
        << recorded.message();

    // Device limits, from compile(): a misaligned offset, a range past maxStorageBufferRange.
    const auto compileError = [&](VkDeviceSize size, VkDeviceSize offset, VkDeviceSize range) {
        RenderGraph g(&device());
        BufferRef b = g.createBuffer("b", {.size = size});
        g.addPass("limit", PassKind::Compute)
            .pipeline(*pipeline)
            .storage(0, rinOf(g, in), Access::StorageRead)
            .storage(1, b, Access::StorageWrite, 0, range, offset)
            .record([](PassContext&) {});
        return g.compile();
    };
    if (align > 4) {
        const Status s = compileError(4 * align, 4, VK_WHOLE_SIZE);
        ASSERT_FALSE(s.ok());
        EXPECT_EQ(s.code(), ErrorCode::DeviceLimit);
        EXPECT_NE(s.message().find("not a multiple of minStorageBufferOffsetAlignment"), std::string::npos)
            << s.message();
    }
    const uint64_t most = device().limits().maxStorageBufferRange;
    if (most < (uint64_t(1) << 40)) {
        // Never allocated: compile() refuses first.
        const Status s = compileError(most + 2 * align, 0, VK_WHOLE_SIZE);
        ASSERT_FALSE(s.ok());
        EXPECT_EQ(s.code(), ErrorCode::DeviceLimit);
        EXPECT_NE(s.message().find(
                      "pass 'limit' binds buffer 'b' at binding 1 from offset 0: " + std::to_string(most + 2 * align) +
                      " bytes (to the end), over maxStorageBufferRange"),
                  std::string::npos)
            << s.message();
        const Status fits = compileError(most + 2 * align, 2 * align, VK_WHOLE_SIZE);
        EXPECT_TRUE(fits.ok()) << fits.message();
    }
}

// Texel bindings: the graph makes the views (float and 4-component views of
// the same words), gives a graph-owned buffer the texel usages, orders the
// uniform texel read after the storage texel write, and makes a view for a
// rebound import's new handle.
TEST_P(DeclaredBindings, TexelBuffersReadAndWriteThroughGraphViews) {
    const bool push = GetParam();
    if (push && !device().limits().pushDescriptors) GTEST_SKIP() << "device has no VK_KHR_push_descriptor";
    constexpr uint32_t n = 1001, quads = (n + 3) / 4; // the last quad is partly past the words written
    constexpr VkBufferUsageFlags kTexelSource = kStorage | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT;
    std::vector<float> input[2];
    Buffer in[2] = {makeBuffer(device(), n * 4, kTexelSource, "texel-in0"),
                    makeBuffer(device(), n * 4, kTexelSource, "texel-in1")};
    for (int k = 0; k < 2; ++k) {
        for (uint32_t i = 0; i < n; ++i) input[k].push_back(float(i % 97) * (k ? 1.5f : 0.5f) + float(k));
        ASSERT_OK(uploadBuffer(device(), in[k], input[k].data(), n * 4));
    }
    Buffer out = makeBuffer(device(), quads * 4, kStorage, "texel-out");
    const PipelineLayoutDesc writeLayout{
        .bindings = {VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER},
        .pushConstantBytes = 4,
        .pushDescriptors = push};
    const PipelineLayoutDesc quadsLayout{
        .bindings = {VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER},
        .pushConstantBytes = 4,
        .pushDescriptors = push};
    auto write =
        ComputePipeline::create(device(), {.spirv = kTexelWriteSpv, .name = "texel-write", .layout = writeLayout});
    auto gather =
        ComputePipeline::create(device(), {.spirv = kTexelQuadsSpv, .name = "texel-quads", .layout = quadsLayout});
    ASSERT_OK(write);
    ASSERT_OK(gather);
    RenderGraph graph(&device());
    BufferRef src = graph.importBuffer("in", in[0], {Access::TransferDst, PassKind::Transfer}, {Access::None}, true);
    // 16 bytes more than the words: the quad view covers whole quads, the
    // words past n stay zero from the fill.
    BufferRef words = graph.createBuffer("words", {.size = quads * 16});
    BufferRef dst = graph.importBuffer("out", out, {Access::None}, {Access::TransferSrc, PassKind::Transfer});
    graph.addPass("zero", PassKind::Transfer).use(words, Access::TransferDst).record([words](PassContext& ctx) {
        ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(words), 0, VK_WHOLE_SIZE, 0);
    });
    graph.addPass("write", PassKind::Compute)
        .pipeline(*write)
        .texel(0, src, VK_FORMAT_R32_SFLOAT, Access::SampledRead)
        .texel(1, words, VK_FORMAT_R32_UINT, Access::StorageWrite, 0, n * 4)
        .record([](PassContext& ctx) {
            ctx.pushConstants(uint32_t(n));
            ctx.dispatch((n + 63) / 64);
        });
    graph.addPass("quads", PassKind::Compute)
        .pipeline(*gather)
        .texel(0, words, VK_FORMAT_R32G32B32A32_UINT, Access::SampledRead)
        .storage(1, dst, Access::StorageWrite)
        .record([](PassContext& ctx) {
            ctx.pushConstants(uint32_t(quads));
            ctx.dispatch((quads + 63) / 64);
        });
    ASSERT_OK(graph.compile());
    for (int frame = 0; frame < 4; ++frame) {
        const int k = frame < 2 ? 0 : 1;
        if (frame == 2) graph.rebindImportedBuffer(src, in[1].handle(), in[1].size());
        Status recorded;
        ASSERT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) { recorded = graph.execute(cmd); }));
        ASSERT_OK(recorded);
        auto result = readBufferAs<uint32_t>(device(), out, quads);
        ASSERT_OK(result);
        for (uint32_t q = 0; q < quads; ++q) {
            uint32_t expected = 0;
            for (uint32_t j = 0; j < 4; ++j) {
                const uint32_t i = q * 4 + j;
                if (i < n) expected += (2 * j + 1) * (uint32_t(input[k][i] * 2.0f) + i);
            }
            ASSERT_EQ(result.value()[q], expected) << "frame " << frame << ", quad " << q;
        }
    }
}

// A pipeline whose layout comes from its SPIR-V (bindingsFromSpirv) runs
// through the graph with every buffer kind; the binding the optimizer
// removed keeps the type the desc gives it, or is an error without one.
TEST_F(EngineGpu, LayoutFromSpirvRunsEveryBufferKind) {
    constexpr uint32_t n = 100;
    const std::vector<VkDescriptorType> expected = {
        VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,       VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
        VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER,
        VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,       VK_DESCRIPTOR_TYPE_STORAGE_BUFFER};
    ComputePipelineDesc desc{.spirv = kReflectMixSpv, .name = "reflect-mix"};
    desc.layout.bindingsFromSpirv = true;
    auto missing = ComputePipeline::create(device(), desc);
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.message().find("binding 4 is in none of the shaders"), std::string::npos) << missing.message();
    desc.layout.bindings.assign(6, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER); // defaults; the shader's types win
    auto pipeline = ComputePipeline::create(device(), desc);
    ASSERT_OK(pipeline);
    EXPECT_EQ(pipeline->pipelineLayout().desc().bindings, expected);

    std::vector<uint32_t> input(n);
    std::vector<float> texels(n);
    for (uint32_t i = 0; i < n; ++i) {
        input[i] = 1000 * i;
        texels[i] = float(i % 7) + 0.25f;
    }
    const uint32_t params[4] = {n, 0, 0, 0};
    Buffer in = makeBuffer(device(), n * 4, kStorage, "mix-in");
    Buffer tex = makeBuffer(device(), n * 4, kStorage | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT, "mix-texels");
    Buffer uni = makeBuffer(device(), 16, kStorage | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, "mix-params");
    Buffer out = makeBuffer(device(), n * 4, kStorage, "mix-out");
    ASSERT_OK(uploadBuffer(device(), in, input.data(), n * 4));
    ASSERT_OK(uploadBuffer(device(), tex, texels.data(), n * 4));
    ASSERT_OK(uploadBuffer(device(), uni, params, 16));
    RenderGraph graph(&device());
    const ExternalUse uploaded{Access::TransferDst, PassKind::Transfer};
    BufferRef p = graph.importBuffer("params", uni, uploaded, {Access::None}, true);
    BufferRef a = graph.importBuffer("in", in, uploaded, {Access::None}, true);
    BufferRef t = graph.importBuffer("texels", tex, uploaded, {Access::None}, true);
    BufferRef counters = graph.createBuffer("counters", {.size = n * 4, .lifetime = Lifetime::Persistent});
    BufferRef o = graph.importBuffer("out", out, {Access::None}, {Access::TransferSrc, PassKind::Transfer});
    graph.addPass("zero", PassKind::Transfer).use(counters, Access::TransferDst).record([counters](PassContext& ctx) {
        if (ctx.frameIndex == 0) ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(counters), 0, VK_WHOLE_SIZE, 0);
    });
    graph.addPass("mix", PassKind::Compute)
        .pipeline(*pipeline)
        .uniform(0, p)
        .storage(1, a, Access::StorageRead)
        .texel(2, t, VK_FORMAT_R32_SFLOAT, Access::SampledRead)
        .texel(3, counters, VK_FORMAT_R32_UINT, Access::StorageReadWrite)
        .storage(4, a, Access::StorageRead) // unused by the shader
        .storage(5, o, Access::StorageWrite)
        .record([](PassContext& ctx) { ctx.dispatch((n + 7) / 8); });
    ASSERT_OK(graph.compile());
    for (uint32_t frame = 0; frame < 3; ++frame) {
        Status recorded;
        ASSERT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) { recorded = graph.execute(cmd); }));
        ASSERT_OK(recorded);
        auto result = readBufferAs<uint32_t>(device(), out, n);
        ASSERT_OK(result);
        for (uint32_t i = 0; i < n; ++i)
            ASSERT_EQ(result.value()[i], input[i] + uint32_t(texels[i]) + frame) << "frame " << frame << ", " << i;
    }
}

// A texel binding whose range holds no whole texel, or more texels than the
// device allows, is an error from execute() naming the pass; nothing is recorded.
TEST_F(EngineGpu, TexelBindingOutsideTheDeviceLimitIsAnError) {
    auto gather = ComputePipeline::create(
        device(), {.spirv = kTexelQuadsSpv,
                   .name = "texel-quads",
                   .layout = {.bindings = {VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER},
                              .pushConstantBytes = 4}});
    ASSERT_OK(gather);
    RenderGraph graph(&device());
    BufferRef words = graph.createBuffer("words", {.size = 64, .lifetime = Lifetime::Persistent});
    BufferRef out = graph.createBuffer("out", {.size = 64});
    graph.addPass("quads", PassKind::Compute)
        .pipeline(*gather)
        .texel(0, words, VK_FORMAT_R32G32B32A32_UINT, Access::SampledRead, 0, 12) // 12 bytes: no whole texel
        .storage(1, out, Access::StorageWrite)
        .record([](PassContext& ctx) { ctx.dispatch(1); });
    ASSERT_OK(graph.compile());
    Status recorded;
    ASSERT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) { recorded = graph.execute(cmd); }));
    ASSERT_FALSE(recorded.ok());
    EXPECT_EQ(recorded.code(), ErrorCode::DeviceLimit);
    EXPECT_NE(recorded.message().find("pass 'quads'"), std::string::npos) << recorded.message();
    EXPECT_NE(recorded.message().find("maxTexelBufferElements"), std::string::npos) << recorded.message();
}

TEST_F(EngineGpu, PushDescriptorLayoutRefusesPoolSets) {
    if (!device().limits().pushDescriptors) GTEST_SKIP() << "device has no VK_KHR_push_descriptor";
    auto pipeline = ComputePipeline::create(
        device(), {.spirv = kScaleAddSpv,
                   .name = "push-only",
                   .layout = {.bindings = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER},
                              .pushConstantBytes = sizeof(ScaleAddParams),
                              .pushDescriptors = true}});
    ASSERT_OK(pipeline);
    auto pool = DescriptorPool::create(device(), 1, 2, "push-only");
    ASSERT_OK(pool);
    Buffer x = makeBuffer(device(), 64, kStorage, "push-only");
    DescriptorBinding bindings[2] = {{x.handle()}, {x.handle()}};
    auto set = pool->allocate(pipeline->pipelineLayout(), bindings);
    ASSERT_FALSE(set.ok());
    EXPECT_EQ(set.code(), ErrorCode::InvalidArgument);
}

TEST_F(EngineGpu, IndirectDispatchSizedByPreviousPass) {
    constexpr uint32_t capacity = 64 * 40;
    for (uint32_t count : {1u, 64u, 65u, 1000u}) {
        Buffer countBuf = makeBuffer(device(), 4, kStorage, "count");
        Buffer marks = makeBuffer(device(), capacity * 4, kStorage, "marks");
        std::vector<uint32_t> zeros(capacity, 0);
        ASSERT_OK(uploadBuffer(device(), countBuf, &count, 4));
        ASSERT_OK(uploadBuffer(device(), marks, zeros.data(), capacity * 4));
        auto argsPipeline = ComputePipeline::create(
            device(), {.spirv = kWriteDispatchArgsSpv,
                       .name = "write-args",
                       .layout = {.bindings = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER},
                                  .pushDescriptors = false}});
        auto markPipeline = ComputePipeline::create(
            device(), {.spirv = kMarkGroupsSpv,
                       .name = "mark",
                       .layout = {.bindings = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER}, .pushDescriptors = false}});
        ASSERT_OK(argsPipeline);
        ASSERT_OK(markPipeline);
        RenderGraph graph(&device());
        BufferRef rcount =
            graph.importBuffer("count", countBuf, {Access::TransferDst, PassKind::Transfer}, {Access::None}, true);
        BufferRef args = graph.createBuffer("dispatch-args", {.size = 12});
        BufferRef rmarks =
            graph.importBuffer("marks", marks, {Access::TransferDst, PassKind::Transfer}, {Access::None});
        auto pool = DescriptorPool::create(device(), 2, 4, "indirect");
        ASSERT_OK(pool);
        graph.addPass("write-args", PassKind::Compute)
            .use(rcount, Access::StorageRead)
            .use(args, Access::StorageWrite)
            .record([&](PassContext& ctx) {
                DescriptorBinding bindings[2] = {{ctx.buffer(rcount)}, {ctx.buffer(args)}};
                VkDescriptorSet set = pool->allocate(argsPipeline->pipelineLayout(), bindings).value();
                ctx.vk->vkCmdBindPipeline(ctx.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, argsPipeline->pipeline());
                ctx.vk->vkCmdBindDescriptorSets(ctx.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, argsPipeline->layout(), 0, 1,
                                                &set, 0, nullptr);
                ctx.vk->vkCmdDispatch(ctx.cmd, 1, 1, 1);
            });
        graph.addPass("mark", PassKind::Compute)
            .use(args, Access::IndirectRead)
            .use(rmarks, Access::StorageWrite)
            .record([&](PassContext& ctx) {
                DescriptorBinding bindings[1] = {{ctx.buffer(rmarks)}};
                VkDescriptorSet set = pool->allocate(markPipeline->pipelineLayout(), bindings).value();
                ctx.vk->vkCmdBindPipeline(ctx.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, markPipeline->pipeline());
                ctx.vk->vkCmdBindDescriptorSets(ctx.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, markPipeline->layout(), 0, 1,
                                                &set, 0, nullptr);
                ctx.vk->vkCmdDispatchIndirect(ctx.cmd, ctx.buffer(args), 0);
            });
        ASSERT_OK(graph.compile());
        // The barrier into the indirect read must use the indirect stage.
        const GraphBarrier& b = graph.schedule().passes[1].barriers.at(0);
        EXPECT_EQ(b.dstStages, VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT);
        Status recorded;
        ASSERT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) { recorded = graph.execute(cmd); }));
        ASSERT_OK(recorded);
        auto result = readBufferAs<uint32_t>(device(), marks, capacity);
        ASSERT_OK(result);
        const uint32_t launched = (count + 63) / 64 * 64;
        for (uint32_t i = 0; i < capacity; ++i)
            ASSERT_EQ(result.value()[i], i < launched ? i + 1 : 0u) << "count " << count << " slot " << i;
    }
}

TEST_F(EngineGpu, ComputeWrittenDrawIsRasterized) {
    constexpr uint32_t size = 64;
    auto gen = ComputePipeline::create(
        device(), {.spirv = kTriangleGenSpv,
                   .name = "triangle-gen",
                   .layout = {.bindings = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER},
                              .pushDescriptors = false}});
    ASSERT_OK(gen);
    auto draw = GraphicsPipeline::create(device(), {.vertexSpirv = kFlatVertSpv,
                                                    .fragmentSpirv = kFlatFragSpv,
                                                    .name = "flat",
                                                    .vertexStride = 16,
                                                    .attributes = {{0, VK_FORMAT_R32G32B32A32_SFLOAT, 0}},
                                                    .colorFormats = {VK_FORMAT_R8G8B8A8_UNORM}});
    ASSERT_OK(draw);
    auto target = device().allocator().createImage(
        {.format = VK_FORMAT_R8G8B8A8_UNORM,
         .extent = {size, size, 1},
         .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
         .name = "offscreen"});
    ASSERT_OK(target);
    auto pool = DescriptorPool::create(device(), 1, 2, "draw");
    ASSERT_OK(pool);
    RenderGraph graph(&device());
    BufferRef verts = graph.createBuffer("vertices", {.size = 3 * 16});
    BufferRef args = graph.createBuffer("draw-args", {.size = 16});
    ImageRef color = graph.importImage("offscreen", target.value(), VK_IMAGE_LAYOUT_UNDEFINED, {Access::None},
                                       {Access::TransferSrc, PassKind::Transfer});
    VkDescriptorSet set = VK_NULL_HANDLE;
    graph.addPass("generate", PassKind::Compute)
        .use(verts, Access::StorageWrite)
        .use(args, Access::StorageWrite)
        .record([&](PassContext& ctx) {
            if (!set) {
                DescriptorBinding bindings[2] = {{ctx.buffer(verts)}, {ctx.buffer(args)}};
                set = pool->allocate(gen->pipelineLayout(), bindings).value();
            }
            ctx.vk->vkCmdBindPipeline(ctx.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, gen->pipeline());
            ctx.vk->vkCmdBindDescriptorSets(ctx.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, gen->layout(), 0, 1, &set, 0,
                                            nullptr);
            ctx.vk->vkCmdDispatch(ctx.cmd, 1, 1, 1);
        });
    AttachmentDesc clear;
    clear.clear.color = {{0.0f, 0.0f, 1.0f, 1.0f}};
    graph.addPass("draw", PassKind::Graphics)
        .use(verts, Access::VertexRead)
        .use(args, Access::IndirectRead)
        .colorAttachment(color, clear)
        .record([&](PassContext& ctx) {
            VkDeviceSize offset = 0;
            VkBuffer vb = ctx.buffer(verts);
            ctx.vk->vkCmdBindPipeline(ctx.cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, draw->pipeline());
            ctx.vk->vkCmdBindVertexBuffers(ctx.cmd, 0, 1, &vb, &offset);
            ctx.vk->vkCmdDrawIndirect(ctx.cmd, ctx.buffer(args), 0, 1, sizeof(VkDrawIndirectCommand));
        });
    ASSERT_OK(graph.compile());
    Status recorded;
    ASSERT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) { recorded = graph.execute(cmd); }));
    ASSERT_OK(recorded);
    std::vector<uint8_t> pixels;
    ASSERT_OK(readImage(device(), target.value(), VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, pixels));
    // Triangle (-0.5,-0.5) (0.5,-0.5) (0,0.5) in NDC; y points down in Vulkan.
    uint32_t red = 0, blue = 0, mismatches = 0;
    for (uint32_t y = 0; y < size; ++y)
        for (uint32_t x = 0; x < size; ++x) {
            const uint8_t* p = &pixels[(y * size + x) * 4];
            const float nx = (x + 0.5f) / size * 2 - 1, ny = (y + 0.5f) / size * 2 - 1;
            const bool inside = ny >= -0.5f && ny <= 0.5f && std::abs(nx) <= (0.5f - ny) * 0.5f;
            const bool nearEdge = ny < -0.45f || ny > 0.45f || std::abs(std::abs(nx) - (0.5f - ny) * 0.5f) < 0.05f;
            const bool isRed = p[0] == 255 && p[2] == 0, isBlue = p[0] == 0 && p[2] == 255;
            red += isRed;
            blue += isBlue;
            if (!nearEdge && ((inside && !isRed) || (!inside && !isBlue))) ++mismatches;
        }
    EXPECT_EQ(mismatches, 0u);
    // Area of the triangle: half of a quarter of the image.
    EXPECT_NEAR(double(red), size * size / 8.0, size * 2.0);
    EXPECT_EQ(red + blue, size * size);
}

TEST_F(EngineGpu, PassTimingsArriveWithoutWaiting) {
    if (!device().limits().timestampsSupported) GTEST_SKIP() << "device has no timestamps";
    auto pipeline = ComputePipeline::create(
        device(), {.spirv = kMarkGroupsSpv,
                   .name = "mark",
                   .layout = {.bindings = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER}, .pushDescriptors = false}});
    ASSERT_OK(pipeline);
    auto pool = DescriptorPool::create(device(), 1, 1, "timing");
    ASSERT_OK(pool);
    RenderGraph graph(&device());
    BufferRef marks = graph.createBuffer("marks", {.size = 64 * 64 * 4});
    VkDescriptorSet set = VK_NULL_HANDLE;
    graph.addPass("busy", PassKind::Compute).use(marks, Access::StorageWrite).record([&](PassContext& ctx) {
        if (!set) {
            DescriptorBinding bindings[1] = {{ctx.buffer(marks)}};
            set = pool->allocate(pipeline->pipelineLayout(), bindings).value();
        }
        ctx.vk->vkCmdBindPipeline(ctx.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline->pipeline());
        ctx.vk->vkCmdBindDescriptorSets(ctx.cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline->layout(), 0, 1, &set, 0,
                                        nullptr);
        ctx.vk->vkCmdDispatch(ctx.cmd, 64, 1, 1);
    });
    ASSERT_OK(graph.compile());
    EXPECT_TRUE(graph.latestTimings().empty());
    for (int frame = 0; frame < 3; ++frame) {
        Status recorded;
        ASSERT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) { recorded = graph.execute(cmd); }));
        ASSERT_OK(recorded);
    }
    auto timings = graph.latestTimings();
    ASSERT_EQ(timings.size(), 1u);
    EXPECT_EQ(timings[0].name, "busy");
    EXPECT_GT(timings[0].milliseconds, 0.0);
    EXPECT_EQ(graph.latestTimingsFrame(), 2u);
}

// A heavy compute pass and a small draw in one frame: the compute pass's time
// must be the bulk of the frame's, in either order. Broke on lavapipe, where
// once a framebuffer was bound the begin timestamp of a compute pass took its
// value after the pass's dispatches (every compute pass read ~0 ms). Frames
// after the first are the ones checked: the first runs before any draw.
class PassTimingsWithDraw : public test::GpuTest, public ::testing::WithParamInterface<bool> {};

TEST_P(PassTimingsWithDraw, ComputePassKeepsItsTime) {
    if (!device().limits().timestampsSupported) GTEST_SKIP() << "device has no timestamps";
    const bool drawFirst = GetParam();
    constexpr uint32_t groups = 65535; // the most one dispatch may have on every device
    // No push constants: on lavapipe their upload can flush by chance, which
    // hid the breakage in some runs.
    auto pipeline = ComputePipeline::create(
        device(),
        {.spirv = kMarkGroupsSpv, .name = "timed-mark", .layout = {.bindings = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER}}});
    ASSERT_OK(pipeline);
    auto image = device().allocator().createImage({.format = VK_FORMAT_R8G8B8A8_UNORM,
                                                   .extent = {16, 16, 1},
                                                   .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
                                                   .name = "timed-target"});
    ASSERT_OK(image);
    RenderGraph graph(&device());
    BufferRef marks = graph.createBuffer("marks", {.size = groups * 64 * 4});
    ImageRef target = graph.importImage("target", image.value(), VK_IMAGE_LAYOUT_UNDEFINED, {Access::None},
                                        {Access::ColorAttachment, PassKind::Graphics});
    auto addDraw = [&] {
        AttachmentDesc clear;
        clear.clear.color = {{0.0f, 0.0f, 1.0f, 1.0f}};
        graph.addPass("draw", PassKind::Graphics).colorAttachment(target, clear);
    };
    if (drawFirst) addDraw();
    graph.addPass("heavy", PassKind::Compute)
        .pipeline(*pipeline)
        .storage(0, marks, Access::StorageWrite)
        .record([](PassContext& ctx) { ctx.dispatch(groups); });
    if (!drawFirst) addDraw();
    ASSERT_OK(graph.compile());
    constexpr uint64_t kFrames = 4;
    for (uint64_t frame = 0; frame < kFrames; ++frame) {
        Status recorded;
        ASSERT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) { recorded = graph.execute(cmd); }));
        ASSERT_OK(recorded);
    }
    uint64_t frame = 0;
    auto timings = graph.latestTimings(&frame);
    ASSERT_EQ(frame, kFrames - 1);
    ASSERT_EQ(timings.size(), 2u);
    const bool heavyFirst = timings[0].name == "heavy";
    const PassTiming& heavy = timings[heavyFirst ? 0 : 1];
    const PassTiming& draw = timings[heavyFirst ? 1 : 0];
    ASSERT_EQ(heavy.name, "heavy");
    ASSERT_EQ(draw.name, "draw");
    EXPECT_GT(heavy.milliseconds, 0.0);
    // 16 MiB written against a 16x16 clear.
    EXPECT_GT(heavy.milliseconds, 0.6 * (heavy.milliseconds + draw.milliseconds))
        << "heavy " << heavy.milliseconds << " ms, draw " << draw.milliseconds << " ms";
}

INSTANTIATE_TEST_SUITE_P(EngineGpu, PassTimingsWithDraw, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& i) {
                             return i.param ? "DrawThenCompute" : "ComputeThenDraw";
                         });

TEST_F(EngineGpu, SmallBuffersShareMemoryBlocksAndAreFreed) {
    const AllocatorStats before = device().allocator().stats();
    {
        std::vector<Buffer> buffers;
        for (int i = 0; i < 300; ++i) {
            auto b = device().allocator().createBuffer(
                {VkDeviceSize(256 + i * 16), kStorage, MemoryUsage::DeviceLocal, "small"});
            ASSERT_OK(b);
            buffers.push_back(std::move(b).value());
        }
        const AllocatorStats during = device().allocator().stats();
        EXPECT_EQ(during.liveAllocations, before.liveAllocations + 300);
        EXPECT_LE(during.deviceMemoryBlocks, before.deviceMemoryBlocks + 2)
            << "sub-allocation should pack small buffers";
        // Host-visible kinds get mapped memory.
        auto upload =
            device().allocator().createBuffer({1024, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, MemoryUsage::Upload, "up"});
        ASSERT_OK(upload);
        EXPECT_NE(upload->mapped(), nullptr);
    }
    const AllocatorStats after = device().allocator().stats();
    EXPECT_EQ(after.liveAllocations, before.liveAllocations);
    EXPECT_EQ(after.allocatedBytes, before.allocatedBytes);
}

// The kernel's view of the mapping that holds `address` (/proc/self/smaps):
// whether it may use transparent huge pages, and how much of it does.
struct MappingPages {
    bool found = false;
    bool thpEligible = false;
    uint64_t anonHugeKiB = 0;
};
MappingPages mappingPages(const void* address) {
    MappingPages out;
    std::ifstream smaps("/proc/self/smaps");
    const uintptr_t a = reinterpret_cast<uintptr_t>(address);
    bool inside = false;
    for (std::string line; std::getline(smaps, line);) {
        uintptr_t lo = 0, hi = 0;
        char dash = 0;
        std::istringstream head(line);
        if (head >> std::hex >> lo >> dash >> hi && dash == '-' && line.find(':') > line.find(' ')) {
            if (inside) break; // the next mapping
            inside = a >= lo && a < hi;
            out.found = out.found || inside;
            continue;
        }
        if (!inside) continue;
        if (line.rfind("THPeligible:", 0) == 0) out.thpEligible = line.find('1') != std::string::npos;
        if (line.rfind("AnonHugePages:", 0) == 0) out.anonHugeKiB = std::strtoull(line.c_str() + 14, nullptr, 10);
    }
    return out;
}

// Whether the kernel hands out transparent huge pages at all ("always" or
// "madvise" in /sys/kernel/mm/transparent_hugepage/enabled).
bool transparentHugePagesOn() {
    std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string mode;
    std::getline(f, mode);
    return mode.find("[always]") != std::string::npos || mode.find("[madvise]") != std::string::npos;
}

TEST_F(EngineGpu, CpuDeviceMemoryAsksForHugePages) {
    if (device().properties().deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU)
        GTEST_SKIP() << "device memory of a GPU is not the process's own";
#if !defined(__linux__)
    GTEST_SKIP() << "transparent huge pages are a Linux feature";
#endif
    if (!transparentHugePagesOn()) GTEST_SKIP() << "transparent huge pages are off on this kernel";
    // Larger than half a block: its own VkDeviceMemory, allocated now.
    constexpr VkDeviceSize kBytes = 40ull << 20;
    const uint64_t before = device().allocator().stats().hugePageBytes;
    auto buffer = device().allocator().createBuffer(
        {kBytes, kStorage | VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUsage::DeviceLocal, "huge pages"});
    ASSERT_OK(buffer);
    ASSERT_NE(buffer->mapped(), nullptr) << "a CPU implementation's memory is host-visible";
    // All of it but the partial 2 MiB pages at its ends.
    EXPECT_GE(device().allocator().stats().hugePageBytes, before + kBytes - (4ull << 20));
    const char* middle = static_cast<const char*>(buffer->mapped()) + kBytes / 2;
    const MappingPages advised = mappingPages(middle);
    ASSERT_TRUE(advised.found) << "no mapping in /proc/self/smaps holds the buffer";
    EXPECT_TRUE(advised.thpEligible) << "the buffer's mapping is not eligible for huge pages";
    // The driver's threads touch it first; whether the kernel finds free
    // 2 MiB pages then depends on the machine, so this is only reported.
    ASSERT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) {
        device().vk().vkCmdFillBuffer(cmd, buffer->handle(), 0, VK_WHOLE_SIZE, 7u);
    }));
    std::cout << "[ info ] 40 MiB buffer after a fill: " << mappingPages(middle).anonHugeKiB << " KiB in huge pages\n";

    // PYRAMARCH_HUGE_PAGES=0 (for measuring) leaves new blocks as they are.
    ::setenv("PYRAMARCH_HUGE_PAGES", "0", 1);
    const uint64_t beforeOff = device().allocator().stats().hugePageBytes;
    auto plain = device().allocator().createBuffer({kBytes, kStorage, MemoryUsage::DeviceLocal, "plain pages"});
    ::unsetenv("PYRAMARCH_HUGE_PAGES");
    ASSERT_OK(plain);
    EXPECT_EQ(device().allocator().stats().hugePageBytes, beforeOff);
    const MappingPages notAdvised = mappingPages(static_cast<const char*>(plain->mapped()) + kBytes / 2);
    ASSERT_TRUE(notAdvised.found);
    if (transparentHugePagesOn() && notAdvised.thpEligible)
        std::cout << "[ info ] the kernel makes every mapping eligible (mode \"always\")\n";
    // Freed blocks take their advice with them.
    buffer->reset();
    EXPECT_EQ(device().allocator().stats().hugePageBytes, before);
}

TEST_F(EngineGpu, BadRequestsAreErrorsNotCrashes) {
    auto zero = device().allocator().createBuffer({0, kStorage, MemoryUsage::DeviceLocal, "empty"});
    EXPECT_FALSE(zero.ok());
    EXPECT_NE(zero.message().find("size 0"), std::string::npos);
    auto huge = device().allocator().createBuffer(
        {device().limits().maxBufferSize + 1, kStorage, MemoryUsage::DeviceLocal, "huge"});
    EXPECT_FALSE(huge.ok());
    EXPECT_NE(huge.message().find("maxBufferSize"), std::string::npos) << huge.message();
    auto noCode = ComputePipeline::create(device(), {.spirv = {}, .name = "nothing"});
    EXPECT_FALSE(noCode.ok());
}

TEST_F(EngineGpu, ValidationLayerReportsMistakes) {
    // A deliberate invalid call proves messages reach the tests' callback
    // (otherwise "no validation message" would mean nothing).
    VkBufferCreateInfo ci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    ci.size = 0; // VUID-VkBufferCreateInfo-size-00912
    ci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    VkBuffer buffer = VK_NULL_HANDLE;
    VkResult r = device().vk().vkCreateBuffer(device().device(), &ci, nullptr, &buffer);
    if (r == VK_SUCCESS && buffer) device().vk().vkDestroyBuffer(device().device(), buffer, nullptr);
    auto messages = test::takeValidationMessages();
    ASSERT_FALSE(messages.empty()) << "validation layer is not active";
    EXPECT_NE(messages[0].find("00912"), std::string::npos) << messages[0];
    EXPECT_GT(device().validationMessageCount(), 0u);
}

TEST_F(EngineGpu, DeviceReportsItsChoice) {
    EXPECT_FALSE(device().name().empty());
    EXPECT_GE(device().properties().apiVersion, VK_API_VERSION_1_3);
    EXPECT_GT(device().limits().maxComputeWorkGroupCount[0], 0u);
    EXPECT_GT(device().limits().maxStorageBufferRange, 0u);
    std::printf("device: %s (%s)\n", device().name().c_str(), device().driverInfo().c_str());
}

TEST_F(EngineGpu, SynchronizationValidationIsOn) {
    // A dispatch and a fill writing one buffer with no barrier between them:
    // a write-after-write hazard only synchronization validation reports.
    auto pipeline = ComputePipeline::create(
        device(), {.spirv = kMarkGroupsSpv,
                   .name = "mark",
                   .layout = {.bindings = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER}, .pushDescriptors = false}});
    ASSERT_OK(pipeline);
    auto pool = DescriptorPool::create(device(), 1, 1, "hazard");
    ASSERT_OK(pool);
    Buffer marks = makeBuffer(device(), 64 * 4, kStorage, "hazard");
    DescriptorBinding bindings[1] = {{marks.handle()}};
    auto set = pool->allocate(pipeline->pipelineLayout(), bindings);
    ASSERT_OK(set);
    ASSERT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) {
        const VolkDeviceTable& vk = device().vk();
        vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline->pipeline());
        vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline->layout(), 0, 1, &set.value(), 0,
                                   nullptr);
        vk.vkCmdDispatch(cmd, 1, 1, 1);
        vk.vkCmdFillBuffer(cmd, marks.handle(), 0, VK_WHOLE_SIZE, 0);
    }));
    auto messages = test::takeValidationMessages();
    ASSERT_FALSE(messages.empty()) << "synchronization validation is not active";
    EXPECT_NE(messages[0].find("SYNC-HAZARD-WRITE-AFTER-WRITE"), std::string::npos) << messages[0];
}

TEST_F(EngineGpu, BudgetExhaustionFailsCleanlyAndRecovers) {
    Allocator& allocator = device().allocator();
    const AllocatorStats before = allocator.stats();
    allocator.setBudget(before.blockBytes + (8u << 20));
    std::vector<Buffer> held;
    Status failure;
    // Free space in blocks that already exist is usable too: allocate until refused.
    for (int i = 0; i < 1024 && failure.ok(); ++i) {
        auto b = allocator.createBuffer({1u << 20, kStorage, MemoryUsage::DeviceLocal, "budgeted"});
        if (b)
            held.push_back(std::move(b).value());
        else
            failure = b.status();
    }
    ASSERT_FALSE(failure.ok()) << "budget never reached";
    EXPECT_EQ(failure.vkResult(), VK_ERROR_OUT_OF_DEVICE_MEMORY);
    EXPECT_NE(failure.message().find("budget"), std::string::npos) << failure.message();
    EXPECT_GE(held.size(), 4u);
    held.clear();
    allocator.setBudget(0);
    auto again = allocator.createBuffer({16u << 20, kStorage, MemoryUsage::DeviceLocal, "after"});
    EXPECT_OK(again);
    again = Status::error(ErrorCode::InvalidState, "released");
    EXPECT_EQ(allocator.stats().liveAllocations, before.liveAllocations);
}

TEST_F(EngineGpu, RebindingAnImportWithANewExtentResizesTheRenderArea) {
    // A window resize: the same compiled graph renders into a bigger image.
    auto makeTarget = [&](uint32_t w, uint32_t h) {
        return device().allocator().createImage(
            {.format = VK_FORMAT_R8G8B8A8_UNORM,
             .extent = {w, h, 1},
             .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
             .name = "resizable"});
    };
    auto small = makeTarget(16, 16);
    auto large = makeTarget(64, 40);
    ASSERT_OK(small);
    ASSERT_OK(large);
    RenderGraph graph(&device());
    ImageRef target = graph.importImage("target", small.value(), VK_IMAGE_LAYOUT_UNDEFINED, {Access::None},
                                        {Access::TransferSrc, PassKind::Transfer});
    AttachmentDesc clear;
    clear.clear.color = {{0.0f, 1.0f, 0.0f, 1.0f}};
    graph.addPass("clear", PassKind::Graphics).colorAttachment(target, clear);
    ASSERT_OK(graph.compile());
    for (Image* image : {&small.value(), &large.value()}) {
        graph.rebindImportedImage(target, image->handle(), image->view(), VK_IMAGE_LAYOUT_UNDEFINED, image->extent());
        Status recorded;
        ASSERT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) { recorded = graph.execute(cmd); }));
        ASSERT_OK(recorded);
        std::vector<uint8_t> pixels;
        ASSERT_OK(readImage(device(), *image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, pixels));
        ASSERT_EQ(pixels.size(), size_t(image->extent().width) * image->extent().height * 4);
        for (size_t i = 0; i < pixels.size(); i += 4)
            ASSERT_EQ(pixels[i + 1], 255) << "pixel " << i / 4 << " not cleared";
    }
}
