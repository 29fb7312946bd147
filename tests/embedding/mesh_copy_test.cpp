// The asynchronous CPU copy for colliders: requested in a frame, picked up
// by poll() once the GPU finished it (never waiting), holding that frame's
// surface even when the next frame already rewrote the buffers.
#include <gtest/gtest.h>

#include "pyramarch/engine/device.h"
#include "pyramarch/engine/vulkan_functions.h"
#include "pyramarch/isosurface/mesh_copy.h"
#include "reference.h"
#include "support/gpu_test.h"

using namespace pyramarch;
using namespace pyramarch::iso;

namespace {

class MeshCopyTest : public test::GpuTest {
protected:
    // Records `body` into a command buffer and submits it with a fence the
    // test waits on only when it says so.
    template <class F>
    void submit(F&& body) {
        const VolkDeviceTable& vk = device().vk();
        VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        pci.queueFamilyIndex = device().queueFamily();
        ASSERT_EQ(vk.vkCreateCommandPool(device().device(), &pci, nullptr, &pool_), VK_SUCCESS);
        VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        ai.commandPool = pool_;
        ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        ai.commandBufferCount = 1;
        VkCommandBuffer cmd;
        ASSERT_EQ(vk.vkAllocateCommandBuffers(device().device(), &ai, &cmd), VK_SUCCESS);
        VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        vk.vkBeginCommandBuffer(cmd, &bi);
        body(cmd);
        vk.vkEndCommandBuffer(cmd);
        VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        ASSERT_EQ(vk.vkCreateFence(device().device(), &fci, nullptr, &fence_), VK_SUCCESS);
        VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cmd;
        ASSERT_EQ(vk.vkQueueSubmit(device().queue(), 1, &si, fence_), VK_SUCCESS);
    }
    void wait() { device().vk().vkWaitForFences(device().device(), 1, &fence_, VK_TRUE, UINT64_MAX); }
    void TearDown() override {
        if (fence_) {
            wait();
            device().vk().vkDestroyFence(device().device(), fence_, nullptr);
        }
        if (pool_) device().vk().vkDestroyCommandPool(device().device(), pool_, nullptr);
        test::GpuTest::TearDown();
    }
    VkCommandPool pool_ = VK_NULL_HANDLE;
    VkFence fence_ = VK_NULL_HANDLE;
};

std::vector<Metaball> balls(float x) { return {{{x, 0.f, 0.f}, 0.6f, 1.f, {}}, {{0.3f, 0.2f, 0.f}, 0.5f, 1.f, {}}}; }

size_t referenceVertices(const std::vector<Metaball>& bs) {
    ref::Grid g;
    g.n[0] = g.n[1] = g.n[2] = 17;
    std::vector<ref::Ball> rb;
    for (const Metaball& b : bs) rb.push_back({{b.center[0], b.center[1], b.center[2]}, b.radius, b.strength});
    const auto field = ref::metaballs(g, rb);
    return ref::marchingCubes(g, field.data(), 0.5f, ref::Normals::Central).vertices.size();
}

IsoSurfaceCreateInfo info(bool indexed) {
    IsoSurfaceCreateInfo i;
    i.samples = {17, 17, 17};
    i.vertexCapacity = 1u << 14;
    i.indexed = indexed;
    i.indexCapacity = indexed ? 1u << 15 : 0u;
    i.isoValue = 0.5f;
    i.timestamps = false;
    return i;
}

} // namespace

// Frame 0 requests the copy, frame 1 (same command buffer) rewrites the
// surface: the copy holds frame 0, readMesh() frame 1.
TEST_F(MeshCopyTest, HoldsTheRequestedFrame) {
    auto surface = IsoSurface::create(device(), info(false));
    ASSERT_OK(surface);
    auto copy = MeshCopy::create(device(), *surface.value());
    ASSERT_OK(copy);
    auto nothing = copy.value()->poll();
    ASSERT_OK(nothing);
    EXPECT_FALSE(nothing.value().has_value()) << "no request yet";
    const auto frame0 = balls(-0.3f), frame1 = balls(-0.1f);
    ASSERT_NE(referenceVertices(frame0), referenceVertices(frame1)) << "the frames must differ to tell them apart";
    Status s0, s1, second;
    submit([&](VkCommandBuffer cmd) {
        if (!surface.value()->setMetaballs(frame0)) return;
        s0 = surface.value()->record(cmd);
        ASSERT_OK(copy.value()->request(cmd));
        second = copy.value()->request(cmd);
        if (!surface.value()->setMetaballs(frame1)) return;
        s1 = surface.value()->record(cmd);
    });
    ASSERT_OK(s0);
    ASSERT_OK(s1);
    EXPECT_EQ(second.code(), ErrorCode::InvalidState) << second.message();
    EXPECT_TRUE(copy.value()->pending());
    auto early = copy.value()->poll(); // never waits: ready or not
    ASSERT_OK(early);
    std::optional<Mesh> mesh = std::move(early).value();
    if (!mesh) {
        wait();
        auto late = copy.value()->poll();
        ASSERT_OK(late);
        mesh = std::move(late).value();
    }
    ASSERT_TRUE(mesh.has_value());
    EXPECT_FALSE(copy.value()->pending());
    EXPECT_EQ(mesh->positions.size(), referenceVertices(frame0));
    EXPECT_EQ(mesh->indices.size(), mesh->positions.size());
    wait();
    auto current = surface.value()->readMesh();
    ASSERT_OK(current);
    EXPECT_EQ(current.value().positions.size(), referenceVertices(frame1));
    auto again = copy.value()->poll();
    ASSERT_OK(again);
    EXPECT_FALSE(again.value().has_value()) << "the copy was picked up";
}

// Indexed output: the copied indices and the vertices they reach equal
// readMesh() of the same frame.
TEST_F(MeshCopyTest, IndexedOutput) {
    auto surface = IsoSurface::create(device(), info(true));
    ASSERT_OK(surface);
    auto copy = MeshCopy::create(device(), *surface.value());
    ASSERT_OK(copy);
    Status s;
    submit([&](VkCommandBuffer cmd) {
        if (!surface.value()->setMetaballs(balls(-0.3f))) return;
        s = surface.value()->record(cmd);
        ASSERT_OK(copy.value()->request(cmd));
    });
    ASSERT_OK(s);
    wait();
    auto mesh = copy.value()->poll();
    ASSERT_OK(mesh);
    ASSERT_TRUE(mesh.value().has_value());
    auto expected = surface.value()->readMesh();
    ASSERT_OK(expected);
    const Mesh& m = *mesh.value();
    ASSERT_GT(m.indices.size(), 0u);
    EXPECT_EQ(m.indices, expected.value().indices);
    EXPECT_EQ(m.indices.size(), referenceVertices(balls(-0.3f)));
    ASSERT_LE(m.positions.size(), expected.value().positions.size());
    for (size_t i = 0; i < m.positions.size(); ++i) ASSERT_EQ(m.positions[i], expected.value().positions[i]) << i;
}
