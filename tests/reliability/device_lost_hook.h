// Device-loss injection without a real device loss: the shared device is
// adopted a second time through a loader hook whose vkGetInstanceProcAddr
// hands the engine wrappers of vkQueueSubmit and vkWaitForFences; they
// return VK_ERROR_DEVICE_LOST while an injection is set. The wait wrapper
// still waits first, so no command buffer is freed while the GPU uses it.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "pyramarch/engine/device.h"

namespace pyramarch::test {

enum class Inject { None, Submit, Wait };
extern std::atomic<Inject> g_inject;
extern std::atomic<int> g_injected; // how often an injection fired

// `device` adopted again (same VkDevice and queue) with the hook; null and
// the reason in `error` if adoption failed or the hook was not used.
std::unique_ptr<Device> adoptWithLossHook(Device& device, std::string& error);

} // namespace pyramarch::test
