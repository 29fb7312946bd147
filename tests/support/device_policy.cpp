#include "support/device_policy.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

namespace pyramarch::test {
namespace {

std::string lower(std::string_view v) {
    std::string s(v);
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

bool envTrue(const char* name, std::initializer_list<const char*> falseWords) {
    const char* v = std::getenv(name);
    if (!v) return false;
    const std::string s = lower(v);
    if (s.empty()) return false;
    for (const char* w : falseWords)
        if (s == w) return false;
    return true;
}

} // namespace

bool underCi() { return envTrue("CI", {"0", "false", "no"}); }

bool gpuAssistedValidationRequested() { return envTrue("PYRAMARCH_GPU_AV", {"0", "false", "off"}); }

bool isNoDeviceError(std::string_view text) {
    // The engine's errors: "no Vulkan physical device", "no Vulkan 1.3 device ...",
    // "Vulkan loader ... not found", and vkCreateInstance failing without a
    // driver (VK_ERROR_INCOMPATIBLE_DRIVER).
    for (std::string_view s : {"no Vulkan", "Vulkan loader", "VK_ERROR_INCOMPATIBLE_DRIVER"})
        if (text.find(s) != std::string_view::npos) return true;
    return false;
}

std::string noDeviceMessage(std::string_view reason) {
    if (underCi()) return "no Vulkan device under CI (a failure there; CI is set): " + std::string(reason);
    return "no Vulkan device, skipped (under CI=1 this fails): " + std::string(reason);
}

int noDeviceExitCode(std::string_view program, std::string_view reason) {
    std::fprintf(stderr, "%.*s: %s\n", int(program.size()), program.data(), noDeviceMessage(reason).c_str());
    return underCi() ? 1 : 77;
}

} // namespace pyramarch::test
