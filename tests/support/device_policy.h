// The one rule for tests, tools and benchmarks about Vulkan devices and CI.
//
//  - Under CI a missing Vulkan device is a failure: CI always has one
//    (lavapipe), so "skipped" there would hide a broken runner.
//  - Elsewhere it is a skip that says why (and that CI would fail).
//
// "Under CI" means the environment variable CI is set to anything except
// "", "0", "false" or "no" (any case): what GitHub/GitLab runners export, and
// what scripts/test.sh users can set by hand.
//
// This header needs no GoogleTest; the PYRAMARCH_*_NO_DEVICE macros do, and
// expand only where they are used.
#pragma once

#include <string>
#include <string_view>

namespace pyramarch::test {

// True when running under CI (see above).
bool underCi();

// True when the environment asks for GPU-assisted validation
// (PYRAMARCH_GPU_AV set to anything except "", "0", "false", "off"); the
// engine's Device::create reads the same variable.
bool gpuAssistedValidationRequested();

// Whether a tool's stderr says it found no Vulkan device (the engine's
// "no Vulkan ..." errors and the loader's), so a test that runs a tool
// can apply the rule above to it.
bool isNoDeviceError(std::string_view text);

// The message for a missing device, naming the rule that applies.
std::string noDeviceMessage(std::string_view reason);

// For programs without GoogleTest (benchmarks run by CTest): prints the
// message to stderr and returns the exit code: 1 under CI, else 77 (the
// tests' CTest SKIP_RETURN_CODE).
int noDeviceExitCode(std::string_view program, std::string_view reason);

} // namespace pyramarch::test

// In a GoogleTest body or SetUp: fails under CI, skips elsewhere; returns
// from the current function either way.
#define PYRAMARCH_FAIL_OR_SKIP_NO_DEVICE(reason)                                                                       \
    do {                                                                                                               \
        const std::string pyramarch_msg_ = ::pyramarch::test::noDeviceMessage(reason);                                 \
        if (::pyramarch::test::underCi()) FAIL() << pyramarch_msg_;                                                    \
        GTEST_SKIP() << pyramarch_msg_;                                                                                \
    } while (0)
