// GPU-assisted validation is live: a compute shader that writes past the end
// of its storage buffer is reported when GPU-AV is on and passes silently
// when it is off. Without this, a clean `gpuav` run (tests/README.md) could
// mean "the instrumentation never ran".
//
// What the installed layer checks (vulkan-validationlayers 1.3.239, Debian
// 12): an access is out of bounds when it passes the end of the *buffer*
// (from the descriptor's offset), not the end of the descriptor's range, so
// a write past a sub-range inside a larger buffer goes unreported. The test
// therefore overruns a whole 64-byte buffer. It stays harmless: the device is
// private to the test, the target is the first buffer sub-allocated in a
// fresh memory block and a 4 KiB guard buffer is allocated right behind it,
// so the 64 stray bytes land in the guard (checked below), in memory this
// test owns.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "pyramarch/engine/device.h"
#include "pyramarch/engine/memory.h"
#include "pyramarch/engine/pipeline.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/engine/vulkan_functions.h"
#include "support/gpu_test.h"

using namespace pyramarch;

namespace {

const uint32_t kOobWriteSpv[] =
#include "shaders/tests/oob_write.comp.spv.inc"
    ;

constexpr uint32_t kBufferWords = 16;  // the target buffer: 64 bytes
constexpr uint32_t kWrittenWords = 32; // what the shader writes: 128 bytes
constexpr uint32_t kGuardWords = 1024; // 4 KiB behind it

constexpr VkBufferUsageFlags kUsage =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;

// Runs the out-of-bounds dispatch once on `device`; returns an error text or
// "". `guardOut` receives the guard buffer's words afterwards.
std::string dispatchOutOfBounds(Device& device, std::vector<uint32_t>* guardOut = nullptr) {
    auto target = device.allocator().createBuffer({kBufferWords * 4, kUsage, MemoryUsage::DeviceLocal, "oob-target"});
    if (!target) return target.message();
    auto guard = device.allocator().createBuffer({kGuardWords * 4, kUsage, MemoryUsage::DeviceLocal, "oob-guard"});
    if (!guard) return guard.message();
    auto pipeline = ComputePipeline::create(device, {.spirv = kOobWriteSpv,
                                                     .name = "oob-write",
                                                     .layout = {.bindings = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER},
                                                                .pushConstantBytes = 4,
                                                                .pushDescriptors = false}});
    if (!pipeline) return pipeline.message();
    auto pool = DescriptorPool::create(device, 1, 1, "oob");
    if (!pool) return pool.message();
    DescriptorBinding binding[1] = {{.buffer = target->handle()}};
    auto set = pool->allocate(pipeline->pipelineLayout(), binding);
    if (!set) return set.message();
    Status s = submitAndWait(device, [&](VkCommandBuffer cmd) {
        const VolkDeviceTable& vk = device.vk();
        vk.vkCmdFillBuffer(cmd, target->handle(), 0, VK_WHOLE_SIZE, 0);
        vk.vkCmdFillBuffer(cmd, guard->handle(), 0, VK_WHOLE_SIZE, 0);
        VkMemoryBarrier2 barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
        barrier.srcStageMask = VK_PIPELINE_STAGE_2_TRANSFER_BIT;
        barrier.srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT;
        barrier.dstStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
        barrier.dstAccessMask = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT;
        VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
        dep.memoryBarrierCount = 1;
        dep.pMemoryBarriers = &barrier;
        vk.vkCmdPipelineBarrier2(cmd, &dep);
        const uint32_t count = kWrittenWords;
        vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline->pipeline());
        vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline->layout(), 0, 1, &set.value(), 0,
                                   nullptr);
        vk.vkCmdPushConstants(cmd, pipeline->layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &count);
        vk.vkCmdDispatch(cmd, 1, 1, 1);
    });
    if (!s.ok()) return s.message();
    if (guardOut) {
        auto words = readBufferAs<uint32_t>(device, guard.value(), kGuardWords);
        if (!words) return words.message();
        *guardOut = std::move(words).value();
    }
    return "";
}

// The stray words went nowhere but the guard's first 64 bytes: the rest of
// the guard is untouched, and those 16 words are either untouched (the driver
// dropped the writes) or exactly the values the shader wrote past the end.
void expectStrayWritesOnlyInTheGuard(const std::vector<uint32_t>& guard) {
    ASSERT_EQ(guard.size(), kGuardWords);
    const uint32_t stray = kWrittenWords - kBufferWords;
    for (uint32_t i = stray; i < kGuardWords; ++i) ASSERT_EQ(guard[i], 0u) << "guard word " << i;
    for (uint32_t i = 0; i < stray; ++i)
        EXPECT_TRUE(guard[i] == 0u || guard[i] == kBufferWords + i + 1) << "guard word " << i << " = " << guard[i];
}

bool mentionsOutOfBounds(const std::vector<std::string>& messages) {
    for (const std::string& m : messages)
        if (m.find("out of bounds") != std::string::npos || m.find("OOB") != std::string::npos) return true;
    return false;
}

std::string joined(const std::vector<std::string>& messages) {
    std::string all;
    for (const std::string& m : messages) all += "\n  " + m;
    return all;
}

// Keeps PYRAMARCH_GPU_AV away from a private device, so its create-info decides.
class ScopedUnsetEnv {
public:
    explicit ScopedUnsetEnv(const char* name) : name_(name) {
        if (const char* v = std::getenv(name)) saved_ = v;
        ::unsetenv(name);
    }
    ~ScopedUnsetEnv() {
        if (saved_) ::setenv(name_, saved_->c_str(), 1);
    }

private:
    const char* name_;
    std::optional<std::string> saved_;
};

// One private validated device with GPU-AV explicitly on or off; the
// messages of the out-of-bounds dispatch (device destruction included).
std::vector<std::string> runOnPrivateDevice(bool gpuAv, std::string& error, bool& available, bool& instrumented) {
    test::ValidationLog log;
    DeviceCreateInfo info = test::validatedDeviceInfo(gpuAv ? "pyramarch-gpuav-on" : "pyramarch-gpuav-off", log);
    info.gpuAssistedValidation = gpuAv;
    {
        ScopedUnsetEnv noEnv("PYRAMARCH_GPU_AV");
        auto device = Device::create(info);
        available = device.ok();
        if (!device) {
            error = device.message();
            return {};
        }
        instrumented = device.value()->gpuAssistedValidation();
        std::vector<uint32_t> guard;
        error = dispatchOutOfBounds(*device.value(), &guard);
        if (error.empty()) expectStrayWritesOnlyInTheGuard(guard);
    }
    return log.take();
}

} // namespace

TEST(GpuAssistedValidation, OutOfBoundsWriteIsReportedOnlyWhenOn) {
    std::string error;
    bool available = false, instrumented = false;
    const auto on = runOnPrivateDevice(true, error, available, instrumented);
    if (!available) PYRAMARCH_FAIL_OR_SKIP_NO_DEVICE(error);
    ASSERT_EQ(error, "");
    EXPECT_TRUE(instrumented);
    EXPECT_TRUE(mentionsOutOfBounds(on)) << "GPU-assisted validation did not report the out-of-bounds write; messages:"
                                         << joined(on);

    const auto off = runOnPrivateDevice(false, error, available, instrumented);
    ASSERT_TRUE(available) << error;
    ASSERT_EQ(error, "");
    EXPECT_FALSE(instrumented);
    EXPECT_TRUE(off.empty()) << "without GPU-AV the same dispatch must be silent:" << joined(off);
}

// The shared test device follows PYRAMARCH_GPU_AV: under the `gpuav` label
// the same dispatch is caught there too, proving that pass's device is
// instrumented; in the plain `gpu` run it is silent.
class GpuAvShared : public test::GpuTest {};

TEST_F(GpuAvShared, SharedDeviceFollowsTheEnvironment) {
    EXPECT_EQ(device().gpuAssistedValidation(), test::gpuAssistedValidationRequested());
    // The only test on the shared device in this binary: its allocator's
    // block is fresh, so the guard sits right behind the target here too.
    std::vector<uint32_t> guard;
    ASSERT_EQ(dispatchOutOfBounds(device(), &guard), "");
    expectStrayWritesOnlyInTheGuard(guard);
    const auto messages = test::takeValidationMessages(); // consumed here: expected, not a failure
    if (device().gpuAssistedValidation())
        EXPECT_TRUE(mentionsOutOfBounds(messages)) << "messages:" << joined(messages);
    else
        EXPECT_TRUE(messages.empty()) << joined(messages);
}
