// Out-of-memory injection after creation as well as during it: the shared
// device is adopted a second time through a loader hook whose device
// functions count every vkCreate* / vkAllocate* call the module makes and
// fail the one numbered `failAt` (0-based) with VK_ERROR_OUT_OF_DEVICE_MEMORY,
// without calling the driver. The hook also counts the Vulkan objects alive
// (created minus destroyed; descriptor sets and command buffers go with their
// pools, memory blocks are the allocator's: AllocatorStats counts what is
// sub-allocated from them), so a test sees whether a failure released
// everything made before it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "pyramarch/engine/device.h"

namespace pyramarch::test {

struct AllocFailure {
    static std::atomic<int64_t> failAt; // the call to fail; -1: none
    static std::atomic<int64_t> calls;  // create/allocate calls counted so far
    static std::atomic<int64_t> fired;  // injections made
    static std::atomic<int64_t> live;   // objects created through the hook and not destroyed
    // Counts from 0 again; fails call `at` (-1: none).
    static void arm(int64_t at) {
        calls = 0;
        failAt = at;
    }
};

// `device` adopted again (same VkDevice and queue) through the hook; null and
// the reason in `error` if adoption failed.
std::unique_ptr<Device> adoptWithAllocFailureHook(Device& device, std::string& error);

} // namespace pyramarch::test
