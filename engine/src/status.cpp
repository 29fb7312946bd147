#include "pyramarch/engine/status.h"

namespace pyramarch {

void failedResultValue(const Status& status) {
    std::fprintf(stderr, "pyramarch: value() of a failed Result: %s: %s\n", errorCodeName(status.code()),
                 status.message().c_str());
    std::fflush(stderr);
    std::abort();
}

std::string vkResultName(VkResult r) {
    switch (r) {
#define CASE(x)                                                                                                        \
    case x: return #x;
        CASE(VK_SUCCESS)
        CASE(VK_NOT_READY)
        CASE(VK_TIMEOUT)
        CASE(VK_EVENT_SET)
        CASE(VK_EVENT_RESET)
        CASE(VK_INCOMPLETE)
        CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
        CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
        CASE(VK_ERROR_INITIALIZATION_FAILED)
        CASE(VK_ERROR_DEVICE_LOST)
        CASE(VK_ERROR_MEMORY_MAP_FAILED)
        CASE(VK_ERROR_LAYER_NOT_PRESENT)
        CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
        CASE(VK_ERROR_FEATURE_NOT_PRESENT)
        CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
        CASE(VK_ERROR_TOO_MANY_OBJECTS)
        CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
        CASE(VK_ERROR_FRAGMENTED_POOL)
        CASE(VK_ERROR_UNKNOWN)
        CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
        CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE)
        CASE(VK_ERROR_FRAGMENTATION)
        CASE(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
        CASE(VK_PIPELINE_COMPILE_REQUIRED)
        CASE(VK_ERROR_SURFACE_LOST_KHR)
        CASE(VK_ERROR_NATIVE_WINDOW_IN_USE_KHR)
        CASE(VK_SUBOPTIMAL_KHR)
        CASE(VK_ERROR_OUT_OF_DATE_KHR)
        CASE(VK_ERROR_VALIDATION_FAILED_EXT)
#undef CASE
    default: return "VkResult(" + std::to_string(static_cast<int>(r)) + ")";
    }
}

} // namespace pyramarch

namespace pyramarch {

const char* errorCodeName(ErrorCode code) {
    switch (code) {
    case ErrorCode::Ok: return "Ok";
    case ErrorCode::InvalidArgument: return "InvalidArgument";
    case ErrorCode::CapacityExceeded: return "CapacityExceeded";
    case ErrorCode::DeviceLimit: return "DeviceLimit";
    case ErrorCode::Unsupported: return "Unsupported";
    case ErrorCode::InvalidState: return "InvalidState";
    case ErrorCode::OutOfMemory: return "OutOfMemory";
    case ErrorCode::Vulkan: return "Vulkan";
    case ErrorCode::NotFound: return "NotFound";
    case ErrorCode::ParseError: return "ParseError";
    case ErrorCode::Io: return "Io";
    case ErrorCode::Unspecified: return "Unspecified";
    }
    return "?";
}

} // namespace pyramarch
