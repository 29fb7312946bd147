// GPU test fixture. Every GPU test runs on one shared Device created with the
// Khronos validation layer and synchronization validation; a validation
// message during a test fails that test. Without any Vulkan device the test
// is skipped, except under CI where that is a failure (support/device_policy.h).
// With PYRAMARCH_GPU_AV=1 the device also runs GPU-assisted validation (the
// `gpuav` CTest label; tests/README.md).
#pragma once

#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

#include "pyramarch/engine/device.h"
#include "support/device_policy.h"

namespace pyramarch::test {

// Collects validation warnings and errors (thread safe: the layer calls
// from any thread) as "id: text" lines.
class ValidationLog {
public:
    void add(const ValidationMessage& m);
    std::vector<std::string> take();

private:
    std::mutex mutex_;
    std::vector<std::string> messages_;
};

// The create-info every test device uses: validation + synchronization
// validation on, messages of warning and error severity into `log` (which
// must outlive the device). GPU-assisted validation follows PYRAMARCH_GPU_AV
// unless the caller sets gpuAssistedValidation and clears the variable.
DeviceCreateInfo validatedDeviceInfo(const char* applicationName, ValidationLog& log);

// The process-wide validated device, or null when none could be created
// (the reason is in deviceUnavailableReason()).
Device* sharedDevice();
const std::string& deviceUnavailableReason();

// Validation messages (warnings and errors) recorded since the last call.
std::vector<std::string> takeValidationMessages();

class GpuTest : public ::testing::Test {
protected:
    void SetUp() override;
    void TearDown() override;
    Device& device() { return *device_; }
    Device* device_ = nullptr;
};

} // namespace pyramarch::test

// Fails the current test (does not skip) if `status` is not ok.
#define ASSERT_OK(expr)                                                                                                \
    do {                                                                                                               \
        auto&& pyramarch_r_ = (expr);                                                                                  \
        ASSERT_TRUE(pyramarch_r_.ok()) << pyramarch_r_.message();                                                      \
    } while (0)
#define EXPECT_OK(expr)                                                                                                \
    do {                                                                                                               \
        auto&& pyramarch_r_ = (expr);                                                                                  \
        EXPECT_TRUE(pyramarch_r_.ok()) << pyramarch_r_.message();                                                      \
    } while (0)
