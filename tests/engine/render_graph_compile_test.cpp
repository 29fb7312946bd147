// CPU-only: golden barrier lists of small graphs. compile() makes no Vulkan
// calls, so these run without a device.
#include <gtest/gtest.h>

#include "pyramarch/engine/pipeline.h"
#include "pyramarch/engine/render_graph.h"

using namespace pyramarch;

namespace {

constexpr auto kCompute = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
constexpr auto kWrite = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT;
constexpr auto kRead = VK_ACCESS_2_SHADER_STORAGE_READ_BIT;

const ScheduledPass& scheduled(const RenderGraph& g, const std::string& name) {
    for (const ScheduledPass& sp : g.schedule().passes)
        if (g.passName(sp.pass) == name) return sp;
    throw std::runtime_error("no pass " + name);
}

// Barriers of a pass that do not come from the previous frame.
std::vector<GraphBarrier> inFrame(const ScheduledPass& sp) {
    std::vector<GraphBarrier> out;
    for (const GraphBarrier& b : sp.barriers)
        if (!b.fromPreviousFrame) out.push_back(b);
    return out;
}

std::vector<std::string> order(const RenderGraph& g) {
    std::vector<std::string> out;
    for (const ScheduledPass& sp : g.schedule().passes) out.push_back(g.passName(sp.pass));
    return out;
}

} // namespace

TEST(RenderGraphCompile, ComputeToComputeReadAfterWrite) {
    RenderGraph g(nullptr);
    BufferRef buf = g.createBuffer("field", {.size = 256});
    g.addPass("produce", PassKind::Compute).use(buf, Access::StorageWrite);
    g.addPass("consume", PassKind::Compute).use(buf, Access::StorageRead);
    ASSERT_TRUE(g.compile().ok());
    EXPECT_TRUE(inFrame(scheduled(g, "produce")).empty());
    auto barriers = inFrame(scheduled(g, "consume"));
    ASSERT_EQ(barriers.size(), 1u);
    EXPECT_STREQ(barriers[0].reason, "RAW");
    EXPECT_FALSE(barriers[0].isImage);
    EXPECT_EQ(barriers[0].resource, buf.index);
    EXPECT_EQ(barriers[0].srcStages, kCompute);
    EXPECT_EQ(barriers[0].srcAccess, kWrite);
    EXPECT_EQ(barriers[0].dstStages, kCompute);
    EXPECT_EQ(barriers[0].dstAccess, kRead);
    // Next frame's write must wait for this frame's read (WAR across frames).
    auto wrap = scheduled(g, "produce").barriers;
    ASSERT_EQ(wrap.size(), 1u);
    EXPECT_TRUE(wrap[0].fromPreviousFrame);
    EXPECT_STREQ(wrap[0].reason, "WAR");
    EXPECT_EQ(wrap[0].srcStages, kCompute);
    EXPECT_EQ(wrap[0].srcAccess, VK_ACCESS_2_NONE);
    EXPECT_EQ(wrap[0].dstAccess, kWrite);
}

TEST(RenderGraphCompile, ComputeToIndirectDrawUsesIndirectStage) {
    RenderGraph g(nullptr);
    BufferRef args = g.createBuffer("draw-args", {.size = 16});
    BufferRef verts = g.createBuffer("vertices", {.size = 1024});
    g.addPass("generate", PassKind::Compute).use(args, Access::StorageWrite).use(verts, Access::StorageWrite);
    g.addPass("draw", PassKind::Graphics).use(args, Access::IndirectRead).use(verts, Access::VertexRead);
    ASSERT_TRUE(g.compile().ok());
    auto barriers = inFrame(scheduled(g, "draw"));
    ASSERT_EQ(barriers.size(), 2u); // one vkCmdPipelineBarrier2 carrying both
    for (const GraphBarrier& b : barriers) {
        EXPECT_STREQ(b.reason, "RAW");
        EXPECT_EQ(b.srcStages, kCompute);
        EXPECT_EQ(b.srcAccess, kWrite);
        if (b.resource == args.index) {
            EXPECT_EQ(b.dstStages, VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT);
            EXPECT_EQ(b.dstAccess, VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT);
        } else {
            EXPECT_EQ(b.dstStages, VK_PIPELINE_STAGE_2_VERTEX_ATTRIBUTE_INPUT_BIT);
            EXPECT_EQ(b.dstAccess, VK_ACCESS_2_VERTEX_ATTRIBUTE_READ_BIT);
        }
    }
}

TEST(RenderGraphCompile, WriteAfterReadOnCounterResetByTransfer) {
    RenderGraph g(nullptr);
    BufferRef counter = g.createBuffer("counter", {.size = 4, .lifetime = Lifetime::Persistent});
    g.addPass("read-last-count", PassKind::Compute).use(counter, Access::StorageRead);
    g.addPass("reset", PassKind::Transfer).use(counter, Access::TransferDst);
    g.addPass("count", PassKind::Compute).use(counter, Access::StorageReadWrite);
    ASSERT_TRUE(g.compile().ok());
    EXPECT_EQ(order(g), (std::vector<std::string>{"read-last-count", "reset", "count"}));
    auto reset = inFrame(scheduled(g, "reset"));
    ASSERT_EQ(reset.size(), 1u);
    EXPECT_STREQ(reset[0].reason, "WAR");
    EXPECT_EQ(reset[0].srcStages, kCompute);
    EXPECT_EQ(reset[0].srcAccess, VK_ACCESS_2_NONE); // reads need no availability
    EXPECT_EQ(reset[0].dstStages, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT);
    EXPECT_EQ(reset[0].dstAccess, VK_ACCESS_2_TRANSFER_WRITE_BIT);
    auto count = inFrame(scheduled(g, "count"));
    ASSERT_EQ(count.size(), 1u);
    EXPECT_STREQ(count[0].reason, "WAW");
    EXPECT_EQ(count[0].srcStages, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT);
    EXPECT_EQ(count[0].srcAccess, VK_ACCESS_2_TRANSFER_WRITE_BIT);
    EXPECT_EQ(count[0].dstAccess, kRead | kWrite);
    // The persistent counter carries into the next frame: the first reader
    // waits for last frame's read-modify-write.
    auto first = scheduled(g, "read-last-count").barriers;
    ASSERT_EQ(first.size(), 1u);
    EXPECT_TRUE(first[0].fromPreviousFrame);
    EXPECT_STREQ(first[0].reason, "RAW");
    EXPECT_EQ(first[0].srcAccess, kWrite);
}

TEST(RenderGraphCompile, ImageLayoutTransitions) {
    RenderGraph g(nullptr);
    ImageRef color = g.createImage("color", {.format = VK_FORMAT_R8G8B8A8_UNORM, .extent = {64, 64, 1}});
    BufferRef out = g.createBuffer("histogram", {.size = 1024});
    g.addPass("render", PassKind::Graphics).colorAttachment(color);
    g.addPass("analyse", PassKind::Compute).use(color, Access::SampledRead).use(out, Access::StorageWrite);
    g.addPass("copy-out", PassKind::Transfer).use(color, Access::TransferSrc).use(out, Access::TransferSrc);
    ASSERT_TRUE(g.compile().ok());
    auto render = scheduled(g, "render").barriers;
    ASSERT_EQ(render.size(), 1u); // transient image: contents discarded every frame
    EXPECT_EQ(render[0].oldLayout, VK_IMAGE_LAYOUT_UNDEFINED);
    EXPECT_EQ(render[0].newLayout, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
    auto analyse = inFrame(scheduled(g, "analyse"));
    ASSERT_EQ(analyse.size(), 1u);
    EXPECT_STREQ(analyse[0].reason, "layout");
    EXPECT_EQ(analyse[0].oldLayout, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
    EXPECT_EQ(analyse[0].newLayout, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    EXPECT_EQ(analyse[0].srcStages, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT);
    EXPECT_EQ(analyse[0].srcAccess, VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT);
    EXPECT_EQ(analyse[0].dstStages, kCompute);
    EXPECT_EQ(analyse[0].dstAccess, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT);
    auto copy = inFrame(scheduled(g, "copy-out"));
    ASSERT_EQ(copy.size(), 2u);
    for (const GraphBarrier& b : copy) {
        if (b.isImage) {
            EXPECT_EQ(b.oldLayout, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
            EXPECT_EQ(b.newLayout, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
            EXPECT_EQ(b.srcStages, kCompute); // chained after the transition's reader
        } else {
            EXPECT_STREQ(b.reason, "RAW");
            EXPECT_EQ(b.dstAccess, VK_ACCESS_2_TRANSFER_READ_BIT);
        }
    }
}

TEST(RenderGraphCompile, ReadAfterReadNeedsNoBarrier) {
    RenderGraph g(nullptr);
    BufferRef buf = g.createBuffer("field", {.size = 64});
    g.addPass("write", PassKind::Compute).use(buf, Access::StorageWrite);
    g.addPass("read-a", PassKind::Compute).use(buf, Access::StorageRead);
    g.addPass("read-b", PassKind::Compute).use(buf, Access::StorageRead);
    ASSERT_TRUE(g.compile().ok());
    EXPECT_EQ(inFrame(scheduled(g, "read-a")).size(), 1u);
    EXPECT_TRUE(scheduled(g, "read-b").barriers.empty());
}

TEST(RenderGraphCompile, ImportedResourceEntryAndExit) {
    RenderGraph g(nullptr);
    // The host drew from this vertex buffer last frame and will draw from it
    // again after the graph.
    BufferRef verts = g.importBuffer("host-vertices", VK_NULL_HANDLE, 4096, {Access::VertexRead, PassKind::Graphics},
                                     {Access::VertexRead, PassKind::Graphics});
    BufferRef stats = g.importBuffer("stats", VK_NULL_HANDLE, 64, {Access::None}, {Access::HostRead});
    g.addPass("extract", PassKind::Compute).use(verts, Access::StorageWrite).use(stats, Access::StorageWrite);
    ASSERT_TRUE(g.compile().ok());
    auto entry = scheduled(g, "extract").barriers;
    ASSERT_EQ(entry.size(), 1u); // the stats buffer had no previous use
    EXPECT_TRUE(entry[0].fromImport);
    EXPECT_EQ(entry[0].resource, verts.index);
    EXPECT_STREQ(entry[0].reason, "WAR");
    EXPECT_EQ(entry[0].srcStages, VK_PIPELINE_STAGE_2_VERTEX_ATTRIBUTE_INPUT_BIT);
    EXPECT_EQ(entry[0].dstStages, kCompute);
    const auto& exit = g.schedule().exitBarriers;
    ASSERT_EQ(exit.size(), 2u);
    for (const GraphBarrier& b : exit) {
        EXPECT_STREQ(b.reason, "exit");
        EXPECT_EQ(b.srcStages, kCompute);
        EXPECT_EQ(b.srcAccess, kWrite);
        if (b.resource == verts.index) {
            EXPECT_EQ(b.dstStages, VK_PIPELINE_STAGE_2_VERTEX_ATTRIBUTE_INPUT_BIT);
            EXPECT_EQ(b.dstAccess, VK_ACCESS_2_VERTEX_ATTRIBUTE_READ_BIT);
        } else {
            EXPECT_EQ(b.dstStages, VK_PIPELINE_STAGE_2_HOST_BIT);
            EXPECT_EQ(b.dstAccess, VK_ACCESS_2_HOST_READ_BIT);
        }
    }
}

TEST(RenderGraphCompile, ImportedImageAlwaysTransitionsOnEntryAndExit) {
    RenderGraph g(nullptr);
    ImportedImage swap;
    swap.format = VK_FORMAT_B8G8R8A8_UNORM;
    swap.extent = {32, 32, 1};
    ImageRef img = g.importImage("swapchain", swap, {Access::None}, {Access::Present});
    g.addPass("draw", PassKind::Graphics).colorAttachment(img);
    ASSERT_TRUE(g.compile().ok());
    auto entry = scheduled(g, "draw").barriers;
    ASSERT_EQ(entry.size(), 1u);
    EXPECT_TRUE(entry[0].fromImport);
    EXPECT_EQ(entry[0].newLayout, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
    ASSERT_EQ(g.schedule().exitBarriers.size(), 1u);
    EXPECT_EQ(g.schedule().exitBarriers[0].newLayout, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR);
    EXPECT_EQ(g.schedule().exitBarriers[0].srcAccess, VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT);
}

TEST(RenderGraphCompile, OrdersProducersBeforeConsumersDeclaredEarlier) {
    RenderGraph g(nullptr);
    BufferRef a = g.createBuffer("a", {.size = 16});
    BufferRef b = g.createBuffer("b", {.size = 16});
    g.addPass("last", PassKind::Compute).use(b, Access::StorageRead);
    g.addPass("middle", PassKind::Compute).use(a, Access::StorageRead).use(b, Access::StorageWrite);
    g.addPass("first", PassKind::Compute).use(a, Access::StorageWrite);
    ASSERT_TRUE(g.compile().ok());
    EXPECT_EQ(order(g), (std::vector<std::string>{"first", "middle", "last"}));
}

TEST(RenderGraphCompile, ReadOfUnwrittenResourceNamesPassAndResource) {
    RenderGraph g(nullptr);
    BufferRef a = g.createBuffer("orphan", {.size = 16});
    g.addPass("reader", PassKind::Compute).use(a, Access::StorageRead);
    Status s = g.compile();
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("'reader'"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("'orphan'"), std::string::npos) << s.message();
    EXPECT_FALSE(g.compiled());
}

TEST(RenderGraphCompile, CycleNamesPassesAndResources) {
    RenderGraph g(nullptr);
    BufferRef x = g.createBuffer("x", {.size = 16});
    BufferRef y = g.createBuffer("y", {.size = 16});
    g.addPass("ping", PassKind::Compute).use(x, Access::StorageRead).use(y, Access::StorageWrite);
    g.addPass("pong", PassKind::Compute).use(y, Access::StorageRead).use(x, Access::StorageWrite);
    Status s = g.compile();
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("cycle"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("'ping'"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("'pong'"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("'x'"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("'y'"), std::string::npos) << s.message();
}

TEST(RenderGraphCompile, WriteToReadOnlyImportIsAnError) {
    RenderGraph g(nullptr);
    BufferRef in =
        g.importBuffer("host-input", VK_NULL_HANDLE, 64, {Access::HostWrite}, {Access::None}, /*readOnly=*/true);
    g.addPass("scribble", PassKind::Compute).use(in, Access::StorageReadWrite);
    Status s = g.compile();
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("'scribble'"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("'host-input'"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("read-only"), std::string::npos) << s.message();
}

TEST(RenderGraphCompile, NamesUsedTwiceAreErrors) {
    RenderGraph g(nullptr);
    BufferRef a = g.createBuffer("same", {.size = 16});
    g.createBuffer("same", {.size = 16});
    g.addPass("p", PassKind::Compute).use(a, Access::StorageWrite);
    g.addPass("p", PassKind::Compute).use(a, Access::StorageRead);
    Status s = g.compile();
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("resource name 'same'"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("pass name 'p'"), std::string::npos) << s.message();
}

TEST(RenderGraphCompile, AccessNotAllowedInPassKind) {
    RenderGraph g(nullptr);
    BufferRef a = g.createBuffer("a", {.size = 16});
    g.addPass("copy", PassKind::Transfer).use(a, Access::StorageWrite);
    Status s = g.compile();
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("'copy'"), std::string::npos) << s.message();
}

TEST(RenderGraphCompile, DescribeAndDotNameEverything) {
    RenderGraph g(nullptr);
    BufferRef buf = g.createBuffer("field", {.size = 256});
    g.addPass("produce", PassKind::Compute).use(buf, Access::StorageWrite);
    g.addPass("consume", PassKind::Compute).use(buf, Access::StorageRead);
    ASSERT_TRUE(g.compile().ok());
    const std::string text = g.describe();
    EXPECT_NE(text.find("0: produce (compute)"), std::string::npos) << text;
    EXPECT_NE(
        text.find(
            "barrier RAW buffer 'field': COMPUTE_SHADER/SHADER_STORAGE_WRITE -> COMPUTE_SHADER/SHADER_STORAGE_READ"),
        std::string::npos)
        << text;
    const std::string dot = g.toDot();
    EXPECT_EQ(dot.rfind("digraph", 0), 0u);
    EXPECT_NE(dot.find("produce"), std::string::npos);
    EXPECT_NE(dot.find("barrier RAW"), std::string::npos) << dot;
}

TEST(RenderGraphCompile, AccessTableCoversEveryIntent) {
    for (int a = 0; a <= static_cast<int>(Access::Present); ++a) {
        const Access access = static_cast<Access>(a);
        AccessInfo info = accessInfo(access, PassKind::Compute);
        if (access == Access::None) {
            EXPECT_EQ(info.stages, VK_PIPELINE_STAGE_2_NONE);
            continue;
        }
        EXPECT_TRUE(info.reads || info.writes) << accessName(access);
        if (access != Access::Present) {
            EXPECT_NE(info.stages, VK_PIPELINE_STAGE_2_NONE) << accessName(access);
        }
    }
    EXPECT_EQ(accessInfo(Access::StorageRead, PassKind::Graphics, VK_PIPELINE_STAGE_2_GEOMETRY_SHADER_BIT).stages,
              VK_PIPELINE_STAGE_2_GEOMETRY_SHADER_BIT);
}

// ---- Declared bindings: one declaration gives the barrier and the descriptor ----

namespace {
PipelineLayoutDesc storageLayout(uint32_t n) {
    PipelineLayoutDesc d;
    d.bindings.assign(n, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
    return d;
}
} // namespace

TEST(RenderGraphBindings, DeclaredBindingAlsoDerivesTheBarrier) {
    RenderGraph g(nullptr);
    BufferRef field = g.createBuffer("field", {.size = 256});
    BufferRef out = g.createBuffer("out", {.size = 256});
    g.addPass("produce", PassKind::Compute).pipelineLayout(storageLayout(1)).storage(0, field, Access::StorageWrite);
    g.addPass("consume", PassKind::Compute)
        .pipelineLayout(storageLayout(2))
        .storage(0, field, Access::StorageRead)
        .storage(1, out, Access::StorageWrite);
    Status s = g.compile();
    ASSERT_TRUE(s.ok()) << s.message();
    const auto barriers = inFrame(scheduled(g, "consume"));
    ASSERT_EQ(barriers.size(), 1u);
    EXPECT_EQ(barriers[0].resource, field.index);
    EXPECT_EQ(barriers[0].srcAccess, kWrite);
    EXPECT_EQ(barriers[0].dstAccess, kRead);
}

TEST(RenderGraphBindings, BindingDeclaredTwiceIsNamedError) {
    RenderGraph g(nullptr);
    BufferRef a = g.createBuffer("a", {.size = 64});
    BufferRef b = g.createBuffer("b", {.size = 64});
    g.addPass("twice", PassKind::Compute)
        .pipelineLayout(storageLayout(2))
        .storage(1, a, Access::StorageRead)
        .storage(1, b, Access::StorageWrite);
    Status s = g.compile();
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(s.message().find("pass 'twice' declares binding 1 twice (buffer 'a' and buffer 'b')"), std::string::npos)
        << s.message();
}

TEST(RenderGraphBindings, BindingTheLayoutLacksIsNamedError) {
    RenderGraph g(nullptr);
    BufferRef a = g.createBuffer("a", {.size = 64});
    g.addPass("outside", PassKind::Compute).pipelineLayout(storageLayout(2)).storage(5, a, Access::StorageWrite);
    Status s = g.compile();
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find(
                  "pass 'outside' binds buffer 'a' at binding 5, which its pipeline layout lacks (bindings 0..1)"),
              std::string::npos)
        << s.message();
}

TEST(RenderGraphBindings, IntentAndDescriptorTypeMismatchIsNamedError) {
    {
        RenderGraph g(nullptr);
        BufferRef a = g.createBuffer("a", {.size = 64});
        PipelineLayoutDesc layout;
        layout.bindings = {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER};
        g.addPass("mismatch", PassKind::Compute).pipelineLayout(layout).storage(0, a, Access::StorageRead);
        Status s = g.compile();
        ASSERT_FALSE(s.ok());
        EXPECT_NE(s.message().find(
                      "binds buffer 'a' at binding 0 as a storage buffer (storage-read), but its pipeline layout has "
                      "a uniform buffer there"),
                  std::string::npos)
            << s.message();
    }
    {
        RenderGraph g(nullptr);
        BufferRef a = g.createBuffer("a", {.size = 64});
        g.addPass("indirect", PassKind::Compute).pipelineLayout(storageLayout(1)).storage(0, a, Access::IndirectRead);
        Status s = g.compile();
        ASSERT_FALSE(s.ok());
        EXPECT_NE(s.message().find("as a storage buffer with access indirect-read"), std::string::npos) << s.message();
    }
    {
        RenderGraph g(nullptr);
        BufferRef a = g.createBuffer("a", {.size = 64});
        g.addPass("uniform", PassKind::Compute).pipelineLayout(storageLayout(1)).uniform(0, a);
        Status s = g.compile();
        ASSERT_FALSE(s.ok());
        EXPECT_NE(
            s.message().find("as a uniform buffer (uniform-read), but its pipeline layout has a storage buffer there"),
            std::string::npos)
            << s.message();
    }
    // Texel bindings: the layout's type, the access and the format are checked.
    const PipelineLayoutDesc texelLayout{
        .bindings = {VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER}};
    {
        RenderGraph g(nullptr);
        BufferRef a = g.createBuffer("a", {.size = 64, .lifetime = Lifetime::Persistent});
        BufferRef b = g.createBuffer("b", {.size = 64});
        g.addPass("texels", PassKind::Compute)
            .pipelineLayout(texelLayout)
            .texel(0, a, VK_FORMAT_R32_SFLOAT, Access::SampledRead)
            .texel(1, b, VK_FORMAT_R32G32B32A32_UINT, Access::StorageWrite);
        const Status s = g.compile();
        EXPECT_TRUE(s.ok()) << s.message();
    }
    // A texel binding the graph refuses, with the part of the message that names why.
    const auto expectTexelError = [&](const char* pass, uint32_t binding, VkFormat format, Access access,
                                      const std::string& why) {
        RenderGraph g(nullptr);
        BufferRef a = g.createBuffer("a", {.size = 64});
        g.addPass(pass, PassKind::Compute).pipelineLayout(texelLayout).texel(binding, a, format, access);
        Status s = g.compile();
        ASSERT_FALSE(s.ok()) << pass;
        EXPECT_NE(s.message().find(why), std::string::npos) << s.message();
    };
    expectTexelError(
        "swapped", 0, VK_FORMAT_R32_UINT, Access::StorageRead,
        "as a storage texel buffer (storage-read), but its pipeline layout has a uniform texel buffer there");
    expectTexelError("indirect", 1, VK_FORMAT_R32_UINT, Access::IndirectRead, "with access indirect-read");
    expectTexelError("format", 0, VK_FORMAT_B8G8R8A8_SRGB, Access::SampledRead, "as a texel buffer of format");
}

TEST(RenderGraphBindings, BindingWithoutPipelineIsNamedError) {
    RenderGraph g(nullptr);
    BufferRef a = g.createBuffer("a", {.size = 64});
    g.addPass("nopipe", PassKind::Compute).storage(0, a, Access::StorageWrite);
    Status s = g.compile();
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("but declares no pipeline"), std::string::npos) << s.message();
}

// Slices of one buffer through several storage bindings at offsets (a
// buffer larger than maxStorageBufferRange written in pieces): the barriers
// still cover the buffer as a whole; a slice past the end is a named error.
TEST(RenderGraphBindings, StorageSlicesAtOffsetsShareOneBufferBarrier) {
    RenderGraph g(nullptr);
    BufferRef big = g.createBuffer("big", {.size = 1024});
    g.addPass("write", PassKind::Compute)
        .pipelineLayout(storageLayout(2))
        .storage(0, big, Access::StorageWrite, 0, 512)
        .storage(1, big, Access::StorageWrite, 0, VK_WHOLE_SIZE, 512);
    g.addPass("read", PassKind::Compute)
        .pipelineLayout(storageLayout(1))
        .storage(0, big, Access::StorageRead, 0, 256, 768);
    Status s = g.compile();
    ASSERT_TRUE(s.ok()) << s.message();
    const auto barriers = inFrame(scheduled(g, "read"));
    ASSERT_EQ(barriers.size(), 1u);
    EXPECT_EQ(barriers[0].resource, big.index);
    EXPECT_EQ(barriers[0].srcAccess, kWrite);
    EXPECT_EQ(barriers[0].dstAccess, kRead);
}

TEST(RenderGraphBindings, StorageRangePastTheBufferIsNamedError) {
    const auto expectError = [](VkDeviceSize offset, VkDeviceSize range, const std::string& why) {
        RenderGraph g(nullptr);
        BufferRef a = g.createBuffer("a", {.size = 1024});
        g.addPass("slice", PassKind::Compute)
            .pipelineLayout(storageLayout(1))
            .storage(0, a, Access::StorageWrite, 0, range, offset);
        const Status s = g.compile();
        ASSERT_FALSE(s.ok()) << offset << " " << range;
        EXPECT_EQ(s.code(), ErrorCode::InvalidArgument);
        EXPECT_NE(s.message().find("pass 'slice' binds buffer 'a' at binding 0 from offset " + std::to_string(offset)),
                  std::string::npos)
            << s.message();
        EXPECT_NE(s.message().find(why), std::string::npos) << s.message();
    };
    expectError(1024, VK_WHOLE_SIZE, "the offset is past the buffer's end (1024 bytes)");
    expectError(512, 768, "range 768 ends past the buffer's 1024 bytes");
    expectError(0, 2048, "range 2048 ends past the buffer's 1024 bytes");
    expectError(0, 0, "a range of 0 bytes");
}
