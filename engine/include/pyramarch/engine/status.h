// Error values for the public API. Game engines often build without
// exceptions, so every fallible call returns a Status or a Result<T> whose
// message names what failed; misuse (a programming error) asserts instead.
#pragma once

#include <cassert>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

#include <vulkan/vulkan_core.h>

namespace pyramarch {

// What kind of failure a Status reports, so hosts can branch without
// matching message text. The message says which resource/field/limit.
enum class ErrorCode : uint8_t {
    Ok = 0,
    InvalidArgument,  // a create-info field, mesh, grid or option out of its documented range
    CapacityExceeded, // more items than the capacity the object was created with
    DeviceLimit,      // over a limit of the device (maxStorageBufferRange, maxPushDescriptors, ...)
    Unsupported,      // the device or build lacks a feature (extension, shader compiler)
    InvalidState,     // a call out of order (addPasses twice, record after addPasses, ...)
    OutOfMemory,      // VK_ERROR_OUT_OF_HOST/DEVICE_MEMORY or an allocator block failed
    Vulkan,           // another Vulkan error; vkResult() has it
    NotFound,         // a device, file or resource that does not exist
    ParseError,       // a file or text that does not parse (meshes, GLSL)
    Io,               // reading or writing a file failed
    Unspecified,      // never produced by the library; left for a host's own Status values
};

const char* errorCodeName(ErrorCode code);

class [[nodiscard]] Status {
public:
    Status() = default;
    // A failure with a code; `vk` is the Vulkan result behind it, if any
    // (Status::codeOf(vk) gives the code of a Vulkan failure).
    static Status error(ErrorCode code, std::string message, VkResult vk = VK_ERROR_UNKNOWN) {
        assert(code != ErrorCode::Ok && "Status::error needs a failure code");
        Status s;
        s.ok_ = false;
        s.code_ = code == ErrorCode::Ok ? ErrorCode::Unspecified : code;
        s.message_ = std::move(message);
        s.vkResult_ = vk;
        return s;
    }
    // Every failure names its code: the form without one is gone, so a call
    // that forgets it does not compile.
    static Status error(std::string message, VkResult vk = VK_ERROR_UNKNOWN) = delete;
    bool ok() const { return ok_; }
    explicit operator bool() const { return ok_; }
    const std::string& message() const { return message_; }
    ErrorCode code() const { return code_; }
    // The Vulkan result behind the failure, VK_ERROR_UNKNOWN when the failure
    // was detected by the module itself (bad input, exceeded limit).
    VkResult vkResult() const { return vkResult_; }
    // The same failure (code, Vulkan result) with `prefix` before the message.
    Status withContext(const std::string& prefix) const {
        if (ok_) return *this;
        return error(code_, prefix + message_, vkResult_);
    }
    static ErrorCode codeOf(VkResult vk) {
        switch (vk) {
        case VK_SUCCESS: return ErrorCode::Ok;
        case VK_ERROR_OUT_OF_HOST_MEMORY:
        case VK_ERROR_OUT_OF_DEVICE_MEMORY: return ErrorCode::OutOfMemory;
        case VK_ERROR_FEATURE_NOT_PRESENT:
        case VK_ERROR_EXTENSION_NOT_PRESENT:
        case VK_ERROR_LAYER_NOT_PRESENT:
        case VK_ERROR_INCOMPATIBLE_DRIVER: return ErrorCode::Unsupported;
        default: return ErrorCode::Vulkan;
        }
    }

private:
    bool ok_ = true;
    ErrorCode code_ = ErrorCode::Ok;
    std::string message_;
    VkResult vkResult_ = VK_SUCCESS;
};

// Reports value() of a failed Result with its code and message, then aborts.
[[noreturn]] void failedResultValue(const Status& status);

template <class T>
class [[nodiscard]] Result {
public:
    Result(T value) : value_(std::move(value)) {}
    Result(Status status) : status_(std::move(status)) {
        assert(!status_.ok() && "Result from an ok Status needs a value");
    }
    bool ok() const { return value_.has_value(); }
    explicit operator bool() const { return ok(); }
    const Status& status() const { return status_; }
    const std::string& message() const { return status_.message(); }
    ErrorCode code() const { return status_.code(); }
    // The value; on a failed Result (a programming error: check ok() first)
    // prints "pyramarch: value() of a failed Result: <code>: <message>" to
    // stderr and aborts, in every build type.
    T& value() & {
        if (!ok()) failedResultValue(status_);
        return *value_;
    }
    const T& value() const& {
        if (!ok()) failedResultValue(status_);
        return *value_;
    }
    T&& value() && {
        if (!ok()) failedResultValue(status_);
        return std::move(*value_);
    }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T&& operator*() && { return std::move(*this).value(); }

private:
    std::optional<T> value_;
    Status status_;
};

// Misuse checks stay on in release builds of tests and samples; a host can
// route them elsewhere by defining PYRAMARCH_ASSERT before including.
#ifndef PYRAMARCH_ASSERT
#define PYRAMARCH_ASSERT(cond, msg)                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            std::fprintf(stderr, "pyramarch: misuse: %s (%s:%d)\n", msg, __FILE__, __LINE__);                          \
            std::abort();                                                                                              \
        }                                                                                                              \
    } while (0)
#endif

std::string vkResultName(VkResult r);

} // namespace pyramarch

// Propagate a failed Status from an expression.
#define PYRAMARCH_TRY(expr)                                                                                            \
    do {                                                                                                               \
        ::pyramarch::Status pyramarch_s_ = (expr);                                                                     \
        if (!pyramarch_s_.ok()) return pyramarch_s_;                                                                   \
    } while (0)

#define PYRAMARCH_CONCAT_INNER_(a, b) a##b
#define PYRAMARCH_CONCAT_(a, b) PYRAMARCH_CONCAT_INNER_(a, b)
// Evaluates a Result-returning `expr`; on failure returns its Status from the
// enclosing function, else moves the value into `decl` (a declaration such as
// `auto buffer` or an existing lvalue):
//     PYRAMARCH_TRY_ASSIGN(auto pipeline, ComputePipeline::create(device, desc));
#define PYRAMARCH_TRY_ASSIGN(decl, expr)                                                                               \
    PYRAMARCH_TRY_ASSIGN_IMPL_(PYRAMARCH_CONCAT_(pyramarch_r_, __LINE__), decl, expr)
#define PYRAMARCH_TRY_ASSIGN_IMPL_(tmp, decl, expr)                                                                    \
    auto tmp = (expr);                                                                                                 \
    if (!tmp.ok()) return tmp.status();                                                                                \
    decl = std::move(tmp).value()
