// Device loss is reported, not swallowed, by every place the module itself
// waits (submitAndWait and what builds on it: uploadBuffer, readBuffer, the
// isosurface read-backs), injected through a loader hook (device_lost_hook.h).
#include <gtest/gtest.h>

#include "device_lost_hook.h"
#include "pyramarch/engine/device.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/isosurface/isosurface.h"
#include "pyramarch/isosurface/testing.h"
#include "support/gpu_test.h"

using namespace pyramarch;

namespace {

class DeviceLost : public test::GpuTest {
protected:
    void SetUp() override {
        GpuTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        std::string error;
        hooked_ = test::adoptWithLossHook(device(), error);
        ASSERT_TRUE(hooked_) << error;
    }
    void TearDown() override {
        test::g_inject = test::Inject::None;
        hooked_.reset();
        GpuTest::TearDown();
    }
    // Runs `op` once per injection point; each must fail with DEVICE_LOST.
    template <class Op>
    void expectLost(const char* what, Op op) {
        for (test::Inject where : {test::Inject::Submit, test::Inject::Wait}) {
            SCOPED_TRACE(std::string(what) +
                         (where == test::Inject::Submit ? " (vkQueueSubmit)" : " (vkWaitForFences)"));
            const int before = test::g_injected;
            test::g_inject = where;
            const Status s = op();
            test::g_inject = test::Inject::None;
            EXPECT_GT(test::g_injected.load(), before) << "the hook was not reached";
            ASSERT_FALSE(s.ok()) << "device loss swallowed";
            EXPECT_EQ(s.vkResult(), VK_ERROR_DEVICE_LOST) << s.message();
            EXPECT_NE(s.message().find("VK_ERROR_DEVICE_LOST"), std::string::npos) << s.message();
        }
        // And the same call works again once the "device" is back.
        EXPECT_OK(op());
    }
    std::unique_ptr<Device> hooked_;
};

} // namespace

TEST_F(DeviceLost, TransferHelpersReportIt) {
    Device& d = *hooked_;
    auto buffer =
        d.allocator().createBuffer({.size = 4096,
                                    .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                             VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                    .memory = MemoryUsage::DeviceLocal,
                                    .name = "device-lost"});
    ASSERT_OK(buffer);
    std::vector<uint32_t> data(1024, 7u), back(1024, 0u);
    expectLost("submitAndWait", [&] { return submitAndWait(d, [](VkCommandBuffer) {}); });
    if (buffer->mapped()) {
        // Host-visible "device-local" memory (lavapipe, integrated GPUs): the
        // upload is a memcpy, nothing to wait for, nothing to lose.
        test::g_inject = test::Inject::Submit;
        EXPECT_OK(uploadBuffer(d, *buffer, data.data(), 4096));
        test::g_inject = test::Inject::None;
    } else {
        expectLost("uploadBuffer", [&] { return uploadBuffer(d, *buffer, data.data(), 4096); });
    }
    expectLost("readBuffer", [&] { return readBuffer(d, *buffer, back.data(), 4096); });
    EXPECT_EQ(back, data);
}

TEST_F(DeviceLost, IsoSurfaceReadBacksReportIt) {
    iso::IsoSurfaceCreateInfo info;
    info.samples = {12, 12, 12};
    info.vertexCapacity = 3000;
    info.source = iso::FieldSource::Metaballs;
    auto surface = iso::IsoSurface::create(*hooked_, info);
    ASSERT_OK(surface);
    iso::IsoSurface& s = **surface;
    const iso::Metaball ball{{0.f, 0.f, 0.f}, 0.8f, 1.f, {}};
    ASSERT_OK(s.setMetaballs({&ball, 1}));
    // A frame the host submits: the host sees the loss from its own submit/wait.
    Status recorded;
    expectLost("frame",
               [&] { return submitAndWait(*hooked_, [&](VkCommandBuffer cmd) { recorded = s.record(cmd); }); });
    EXPECT_OK(recorded);
    expectLost("readMesh", [&] { return s.readMesh().status(); });
    expectLost("readVertices", [&] { return s.readVertices().status(); });
    expectLost("readField", [&] { return s.readField().status(); });
    expectLost("readPyramid", [&] { return iso::testing::readPyramid(s).status(); });
    expectLost("readDrawArgs", [&] { return iso::testing::readDrawArgs(s).status(); });
}
