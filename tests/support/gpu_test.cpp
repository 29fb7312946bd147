#include "support/gpu_test.h"

#include <memory>

namespace pyramarch::test {

void ValidationLog::add(const ValidationMessage& m) {
    if (m.severity != MessageSeverity::Warning && m.severity != MessageSeverity::Error) return;
    std::lock_guard lock(mutex_);
    messages_.push_back(m.idName + ": " + m.text);
}

std::vector<std::string> ValidationLog::take() {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    out.swap(messages_);
    return out;
}

DeviceCreateInfo validatedDeviceInfo(const char* applicationName, ValidationLog& log) {
    DeviceCreateInfo info;
    info.applicationName = applicationName;
    info.enableValidation = true;
    info.validationCallback = [&log](const ValidationMessage& m) { log.add(m); };
    return info;
}

namespace {

ValidationLog g_log;
std::string g_unavailable;

std::unique_ptr<Device> createDevice() {
    DeviceCreateInfo info = validatedDeviceInfo("pyramarch-tests", g_log);
    info.requirements.geometryShader = false;
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
        for (const std::string& m : takeValidationMessages())
            ADD_FAILURE() << "validation at device destruction: " << m;
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

std::vector<std::string> takeValidationMessages() { return g_log.take(); }

void GpuTest::SetUp() {
    device_ = sharedDevice();
    if (!device_) PYRAMARCH_FAIL_OR_SKIP_NO_DEVICE(deviceUnavailableReason());
    // The gpuav label must really run instrumented: a device that silently
    // came up without GPU-AV would make that pass meaningless.
    if (gpuAssistedValidationRequested()) {
        ASSERT_TRUE(device_->gpuAssistedValidation())
            << "PYRAMARCH_GPU_AV is set but the device has no GPU-assisted validation";
    }
    takeValidationMessages(); // messages before this test belong to someone else
}

void GpuTest::TearDown() {
    if (!device_) return;
    for (const std::string& m : takeValidationMessages()) ADD_FAILURE() << "validation: " << m;
}

} // namespace pyramarch::test
