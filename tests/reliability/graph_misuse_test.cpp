// Host misuse the render graph can see: an imported image handed back in a
// layout other than the one the graph left it in (RenderGraphOptions::
// checkImportedLayouts, on by default) is a named error from
// execute(), before anything is recorded.
#include <gtest/gtest.h>

#include <vulkan/vulkan_core.h>

#include "pyramarch/engine/memory.h"
#include "pyramarch/engine/render_graph.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/engine/vulkan_functions.h"
#include "support/gpu_test.h"

using namespace pyramarch;

namespace {

class GraphMisuse : public test::GpuTest {
protected:
    Image makeImage(const char* name) {
        auto img = device().allocator().createImage(
            {.type = VK_IMAGE_TYPE_2D,
             .format = VK_FORMAT_R8G8B8A8_UNORM,
             .extent = {8, 8, 1},
             .usage = VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
             .name = name});
        EXPECT_TRUE(img.ok()) << img.message();
        return img ? std::move(img).value() : Image{};
    }
    // A graph that clears the imported image and leaves it ready for sampling.
    std::unique_ptr<RenderGraph> makeGraph(const Image& image, ImageRef& ref, bool check) {
        RenderGraphOptions o;
        o.checkImportedLayouts = check;
        o.timestamps = false;
        auto g = std::make_unique<RenderGraph>(&device(), o);
        ref = g->importImage("host.target", image, VK_IMAGE_LAYOUT_UNDEFINED, {Access::None},
                             {Access::SampledRead, PassKind::Graphics});
        g->addPass("clear", PassKind::Transfer).use(ref, Access::TransferDst).record([ref](PassContext& ctx) {
            VkClearColorValue c{{0.25f, 0.5f, 0.75f, 1.f}};
            VkImageSubresourceRange range{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
            ctx.vk->vkCmdClearColorImage(ctx.cmd, ctx.image(ref), VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &c, 1, &range);
        });
        EXPECT_OK(g->compile());
        return g;
    }
    Status run(RenderGraph& g, const std::function<void(VkCommandBuffer)>& before = {}) {
        Status inner;
        Status s = submitAndWait(device(), [&](VkCommandBuffer cmd) {
            if (before) before(cmd);
            inner = g.execute(cmd);
        });
        return s ? inner : s;
    }
    // The host moves the image itself (e.g. its own post-processing).
    void hostTransition(VkCommandBuffer cmd, const Image& image, VkImageLayout from, VkImageLayout to) {
        VkImageMemoryBarrier2 b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2};
        b.srcStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
        b.srcAccessMask = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT;
        b.dstStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
        b.dstAccessMask = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT;
        b.oldLayout = from;
        b.newLayout = to;
        b.image = image.handle();
        b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
        VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
        dep.imageMemoryBarrierCount = 1;
        dep.pImageMemoryBarriers = &b;
        device().vk().vkCmdPipelineBarrier2(cmd, &dep);
    }
};

} // namespace

TEST(GraphMisuseOptions, CheckIsOnInEveryBuild) {
    // One documented default, whatever NDEBUG is in the host or the library.
    EXPECT_TRUE(RenderGraphOptions{}.checkImportedLayouts);
}

TEST_F(GraphMisuse, RebindInWrongLayoutIsNamedError) {
    Image image = makeImage("misuse.a");
    ImageRef ref;
    auto g = makeGraph(image, ref, true);
    ASSERT_OK(run(*g));
    // The graph left it SHADER_READ_ONLY_OPTIMAL; the host claims GENERAL.
    g->rebindImportedImage(ref, image.handle(), image.view(), VK_IMAGE_LAYOUT_GENERAL);
    const uint64_t frame = g->frameIndex();
    Status s = run(*g);
    ASSERT_FALSE(s.ok()) << "wrong layout not detected";
    EXPECT_NE(s.message().find("host.target"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("GENERAL"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("SHADER_READ_ONLY_OPTIMAL"), std::string::npos) << s.message();
    EXPECT_EQ(g->frameIndex(), frame) << "nothing may be recorded for a refused frame";
    // Still refused until the host fixes the rebind.
    EXPECT_FALSE(run(*g).ok());
    // Correct layout, UNDEFINED (discard) and a declared host transition are fine.
    g->rebindImportedImage(ref, image.handle(), image.view(), VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    EXPECT_OK(run(*g));
    g->rebindImportedImage(ref, image.handle(), image.view(), VK_IMAGE_LAYOUT_UNDEFINED);
    EXPECT_OK(run(*g));
    g->rebindImportedImage(ref, image.handle(), image.view(), VK_IMAGE_LAYOUT_GENERAL, {0, 0, 0},
                           /*hostTransitioned=*/true);
    EXPECT_OK(run(*g, [&](VkCommandBuffer cmd) {
        hostTransition(cmd, image, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL);
    }));
}

TEST_F(GraphMisuse, AlternatingImagesAreTrackedEach) {
    // Swapchain-like: two images take turns; each is checked against the
    // layout the graph left *that* image in.
    Image a = makeImage("misuse.a"), b = makeImage("misuse.b");
    ImageRef ref;
    auto g = makeGraph(a, ref, true);
    ASSERT_OK(run(*g));
    g->rebindImportedImage(ref, b.handle(), b.view(), VK_IMAGE_LAYOUT_UNDEFINED);
    ASSERT_OK(run(*g));
    for (int i = 0; i < 4; ++i) {
        const Image& img = i % 2 ? b : a;
        g->rebindImportedImage(ref, img.handle(), img.view(), VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
        ASSERT_OK(run(*g));
    }
    g->rebindImportedImage(ref, a.handle(), a.view(), VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
    Status s = run(*g);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("TRANSFER_DST_OPTIMAL"), std::string::npos) << s.message();
    // A first-time image has no history: whatever the host says is taken.
    Image c = makeImage("misuse.c");
    g->rebindImportedImage(ref, c.handle(), c.view(), VK_IMAGE_LAYOUT_UNDEFINED);
    EXPECT_OK(run(*g));
}

TEST_F(GraphMisuse, CheckOffRecordsWhatTheHostSays) {
    // Release builds by default: no bookkeeping, the host's word is taken
    // (here it is right, so the layer stays silent).
    Image image = makeImage("misuse.off");
    ImageRef ref;
    auto g = makeGraph(image, ref, false);
    ASSERT_OK(run(*g));
    g->rebindImportedImage(ref, image.handle(), image.view(), VK_IMAGE_LAYOUT_GENERAL);
    EXPECT_OK(run(*g, [&](VkCommandBuffer cmd) {
        hostTransition(cmd, image, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL);
    }));
}
