// Error values for the public API. Game engines often build without
// exceptions, so every fallible call returns a Status or a Result<T> whose
// message names what failed; misuse (a programming error) asserts instead.
#pragma once

#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

#include <vulkan/vulkan_core.h>

namespace pyramarch {

class [[nodiscard]] Status {
public:
    Status() = default;
    static Status error(std::string message, VkResult vk = VK_ERROR_UNKNOWN) {
        Status s;
        s.ok_ = false;
        s.message_ = std::move(message);
        s.vkResult_ = vk;
        return s;
    }
    bool ok() const { return ok_; }
    explicit operator bool() const { return ok_; }
    const std::string& message() const { return message_; }
    // The Vulkan result behind the failure, VK_ERROR_UNKNOWN when the failure
    // was detected by the module itself (bad input, exceeded limit).
    VkResult vkResult() const { return vkResult_; }

private:
    bool ok_ = true;
    std::string message_;
    VkResult vkResult_ = VK_SUCCESS;
};

template <class T>
class [[nodiscard]] Result {
public:
    Result(T value) : value_(std::move(value)) {}
    Result(Status status) : status_(std::move(status)) { assert(!status_.ok() && "Result from an ok Status needs a value"); }
    bool ok() const { return value_.has_value(); }
    explicit operator bool() const { return ok(); }
    const Status& status() const { return status_; }
    const std::string& message() const { return status_.message(); }
    T& value() & { assert(ok() && "value() of a failed Result"); return *value_; }
    T&& value() && { assert(ok() && "value() of a failed Result"); return std::move(*value_); }
    T* operator->() { return &value(); }
    T& operator*() { return value(); }

private:
    std::optional<T> value_;
    Status status_;
};

// Misuse checks stay on in release builds of tests and samples; a host can
// route them elsewhere by defining PYRAMARCH_ASSERT before including.
#ifndef PYRAMARCH_ASSERT
#define PYRAMARCH_ASSERT(cond, msg)                                                           \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            std::fprintf(stderr, "pyramarch: misuse: %s (%s:%d)\n", msg, __FILE__, __LINE__); \
            std::abort();                                                                    \
        }                                                                                    \
    } while (0)
#endif

std::string vkResultName(VkResult r);

} // namespace pyramarch

// Propagate a failed Status from an expression.
#define PYRAMARCH_TRY(expr)                        \
    do {                                           \
        ::pyramarch::Status pyramarch_s_ = (expr); \
        if (!pyramarch_s_.ok()) return pyramarch_s_; \
    } while (0)
