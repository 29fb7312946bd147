// Linked into every test executable directly (a static library member
// nobody references would be dropped by the linker).
#include <dlfcn.h>

#include <initializer_list>

// Sanitizer builds only. The Vulkan loader dlcloses the driver (lavapipe) and
// the validation layer before LeakSanitizer runs (and ThreadSanitizer would
// see a library mapped later at the same addresses), so their own allocations
// would be reported from "<unknown module>" and could not be suppressed by
// name. Keeping them loaded (RTLD_NODELETE) lets tests/sanitizers/lsan.supp
// name exactly those libraries, and nothing of ours.
// GCC defines __SANITIZE_*__; clang answers through __has_feature; test code
// compiled without ASan in an ASan build gets PYRAMARCH_ASAN_RUNTIME.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(PYRAMARCH_ASAN_RUNTIME)
#define PYRAMARCH_PIN_VULKAN_LIBRARIES 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define PYRAMARCH_PIN_VULKAN_LIBRARIES 1
#endif
#endif
#ifdef PYRAMARCH_PIN_VULKAN_LIBRARIES

namespace {
struct PinVulkanLibraries {
    PinVulkanLibraries() {
        for (const char* lib : {"libvulkan.so.1", "libvulkan_lvp.so", "libVkLayer_khronos_validation.so"})
            dlopen(lib, RTLD_NOW | RTLD_NODELETE | RTLD_GLOBAL);
    }
} g_pin;
} // namespace
#endif
