// Engine-internal helpers for turning VkResult into Status.
#pragma once

#include <string>

#include "pyramarch/engine/status.h"

namespace pyramarch {

inline Status vkStatus(VkResult r, const std::string& what) {
    if (r == VK_SUCCESS) return {};
    return Status::error(Status::codeOf(r), what + " failed: " + vkResultName(r), r);
}

#define PYRAMARCH_VK_TRY(call, what)                                                                                   \
    do {                                                                                                               \
        VkResult pyramarch_vr_ = (call);                                                                               \
        if (pyramarch_vr_ != VK_SUCCESS) return ::pyramarch::vkStatus(pyramarch_vr_, what);                            \
    } while (0)

} // namespace pyramarch
