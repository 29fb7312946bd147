// Device loss is reported, not swallowed, by every place the module itself
// waits (submitAndWait and what builds on it: uploadBuffer, readBuffer, the
// isosurface read-backs). A real device loss cannot be provoked on demand, so
// the shared device is adopted a second time through a loader hook: its
// vkGetInstanceProcAddr hands the engine wrappers of vkQueueSubmit and
// vkWaitForFences that return VK_ERROR_DEVICE_LOST when a test asks. The
// wait wrapper still waits first, so no command buffer is freed while the
// GPU uses it (the validation layer stays silent).
#include <gtest/gtest.h>

#include <vulkan/vulkan.h>

#include <atomic>
#include <cstring>

#include "pyramarch/engine/device.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/isosurface/isosurface.h"
#include "support/gpu_test.h"

using namespace pyramarch;

namespace {

enum class Inject { None, Submit, Wait };
std::atomic<Inject> g_inject{Inject::None};
std::atomic<int> g_injected{0};
PFN_vkGetDeviceProcAddr g_realGetDeviceProcAddr = nullptr;
PFN_vkQueueSubmit g_realQueueSubmit = nullptr;
PFN_vkWaitForFences g_realWaitForFences = nullptr;

VKAPI_ATTR VkResult VKAPI_CALL hookQueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo* submits, VkFence fence) {
    if (g_inject == Inject::Submit) {
        ++g_injected;
        return VK_ERROR_DEVICE_LOST;
    }
    return g_realQueueSubmit(queue, count, submits, fence);
}

VKAPI_ATTR VkResult VKAPI_CALL hookWaitForFences(VkDevice device, uint32_t count, const VkFence* fences, VkBool32 all, uint64_t timeout) {
    const VkResult r = g_realWaitForFences(device, count, fences, all, timeout);
    if (g_inject == Inject::Wait) {
        ++g_injected;
        return VK_ERROR_DEVICE_LOST;
    }
    return r;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL hookGetDeviceProcAddr(VkDevice device, const char* name) {
    if (!std::strcmp(name, "vkQueueSubmit")) {
        g_realQueueSubmit = reinterpret_cast<PFN_vkQueueSubmit>(g_realGetDeviceProcAddr(device, name));
        return reinterpret_cast<PFN_vkVoidFunction>(&hookQueueSubmit);
    }
    if (!std::strcmp(name, "vkWaitForFences")) {
        g_realWaitForFences = reinterpret_cast<PFN_vkWaitForFences>(g_realGetDeviceProcAddr(device, name));
        return reinterpret_cast<PFN_vkVoidFunction>(&hookWaitForFences);
    }
    return g_realGetDeviceProcAddr(device, name);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL hookGetInstanceProcAddr(VkInstance instance, const char* name) {
    if (!std::strcmp(name, "vkGetDeviceProcAddr")) {
        g_realGetDeviceProcAddr = reinterpret_cast<PFN_vkGetDeviceProcAddr>(vkGetInstanceProcAddr(instance, name));
        return reinterpret_cast<PFN_vkVoidFunction>(&hookGetDeviceProcAddr);
    }
    // Device functions fetched through the instance dispatch too.
    if (!std::strcmp(name, "vkQueueSubmit") || !std::strcmp(name, "vkWaitForFences")) {
        if (!g_realGetDeviceProcAddr)
            g_realGetDeviceProcAddr = reinterpret_cast<PFN_vkGetDeviceProcAddr>(vkGetInstanceProcAddr(instance, "vkGetDeviceProcAddr"));
    }
    return vkGetInstanceProcAddr(instance, name);
}

class DeviceLost : public test::GpuTest {
protected:
    void SetUp() override {
        GpuTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        AdoptInfo info;
        info.instance = device().instance();
        info.physicalDevice = device().physicalDevice();
        info.device = device().device();
        info.queueFamilyIndex = device().queueFamily();
        info.queue = device().queue();
        info.getInstanceProcAddr = &hookGetInstanceProcAddr;
        info.synchronization2Enabled = true;
        info.dynamicRenderingEnabled = true;
        info.debugUtilsEnabled = device().limits().debugUtils;
        auto adopted = Device::adopt(info);
        ASSERT_TRUE(adopted.ok()) << adopted.message();
        hooked_ = std::move(adopted).value();
        ASSERT_TRUE(g_realQueueSubmit && g_realWaitForFences) << "the engine did not load its queue functions through the hook";
    }
    void TearDown() override {
        g_inject = Inject::None;
        hooked_.reset();
        GpuTest::TearDown();
    }
    // Runs `op` once per injection point; each must fail with DEVICE_LOST.
    template <class Op>
    void expectLost(const char* what, Op op) {
        for (Inject where : {Inject::Submit, Inject::Wait}) {
            SCOPED_TRACE(std::string(what) + (where == Inject::Submit ? " (vkQueueSubmit)" : " (vkWaitForFences)"));
            const int before = g_injected;
            g_inject = where;
            const Status s = op();
            g_inject = Inject::None;
            EXPECT_GT(g_injected.load(), before) << "the hook was not reached";
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
    auto buffer = d.allocator().createBuffer(
        {.size = 4096, .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
         .memory = MemoryUsage::DeviceLocal, .name = "device-lost"});
    ASSERT_OK(buffer);
    std::vector<uint32_t> data(1024, 7u), back(1024, 0u);
    expectLost("submitAndWait", [&] { return submitAndWait(d, [](VkCommandBuffer) {}); });
    if (buffer->mapped()) {
        // Host-visible "device-local" memory (lavapipe, integrated GPUs): the
        // upload is a memcpy, nothing to wait for, nothing to lose.
        g_inject = Inject::Submit;
        EXPECT_OK(uploadBuffer(d, *buffer, data.data(), 4096));
        g_inject = Inject::None;
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
    expectLost("frame", [&] { return submitAndWait(*hooked_, [&](VkCommandBuffer cmd) { recorded = s.record(cmd); }); });
    EXPECT_OK(recorded);
    expectLost("readMesh", [&] { return s.readMesh().status(); });
    expectLost("readVertices", [&] { return s.readVertices().status(); });
    expectLost("readField", [&] { return s.readField().status(); });
    expectLost("readPyramid", [&] { return s.readPyramid().status(); });
    expectLost("readDrawArgs", [&] { return s.readDrawArgs().status(); });
}
