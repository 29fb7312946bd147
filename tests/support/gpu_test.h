// GPU test fixture. Every GPU test runs on one shared Device created with the
// Khronos validation layer and synchronization validation; a validation
// message during a test fails that test. Without any Vulkan device the test
// is skipped, except under CI (CI=true) where that is a failure.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pyramarch/engine/device.h"

namespace pyramarch::test {

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
#define ASSERT_OK(expr)                                              \
    do {                                                             \
        auto&& pyramarch_r_ = (expr);                                \
        ASSERT_TRUE(pyramarch_r_.ok()) << pyramarch_r_.message();    \
    } while (0)
#define EXPECT_OK(expr)                                              \
    do {                                                             \
        auto&& pyramarch_r_ = (expr);                                \
        EXPECT_TRUE(pyramarch_r_.ok()) << pyramarch_r_.message();    \
    } while (0)
