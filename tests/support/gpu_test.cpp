#include "support/gpu_test.h"


#include <cstdlib>
#include <memory>
#include <mutex>
#include <string_view>

namespace pyramarch::test {
namespace {

std::mutex g_mutex;
std::vector<std::string> g_messages;
std::string g_unavailable;

bool underCi() {
    const char* ci = std::getenv("CI");
    return ci && std::string_view(ci) != "" && std::string_view(ci) != "false" && std::string_view(ci) != "0";
}

std::unique_ptr<Device> createDevice() {
    DeviceCreateInfo info;
    info.applicationName = "pyramarch-tests";
    info.enableValidation = true;
    info.requirements.geometryShader = false;
    info.validationCallback = [](const ValidationMessage& m) {
        if (m.severity != MessageSeverity::Warning && m.severity != MessageSeverity::Error) return;
        std::lock_guard lock(g_mutex);
        g_messages.push_back(m.idName + ": " + m.text);
    };
    auto device = Device::create(info);
    if (!device) {
        g_unavailable = device.message();
        return nullptr;
    }
    return std::move(device).value();
}

std::unique_ptr<Device> g_device;
bool g_deviceTried = false;

// Destroys the shared device before the process exits, so objects leaked by
// any test are reported by the validation layer and fail the run.
class DeviceEnvironment : public ::testing::Environment {
public:
    void TearDown() override {
        if (!g_device) return;
        takeValidationMessages();
        g_device.reset();
        for (const std::string& m : takeValidationMessages()) ADD_FAILURE() << "validation at device destruction: " << m;
    }
};
const auto* g_environment = ::testing::AddGlobalTestEnvironment(new DeviceEnvironment);

} // namespace

Device* sharedDevice() {
    if (!g_deviceTried) {
        g_deviceTried = true;
        g_device = createDevice();
    }
    return g_device.get();
}


const std::string& deviceUnavailableReason() { return g_unavailable; }

std::vector<std::string> takeValidationMessages() {
    std::lock_guard lock(g_mutex);
    std::vector<std::string> out;
    out.swap(g_messages);
    return out;
}

void GpuTest::SetUp() {
    device_ = sharedDevice();
    if (!device_) {
        if (underCi()) FAIL() << "no Vulkan device under CI: " << deviceUnavailableReason();
        GTEST_SKIP() << "no Vulkan device: " << deviceUnavailableReason();
    }
    takeValidationMessages(); // messages before this test belong to someone else
}

void GpuTest::TearDown() {
    if (!device_) return;
    for (const std::string& m : takeValidationMessages()) ADD_FAILURE() << "validation: " << m;
}

} // namespace pyramarch::test
