// Runs a tool or sample as a child process (through the shell) and captures
// its exit code, stdout and stderr. Shared by the tests of the pyramarch
// tool, the samples and the voxelize sample.
#pragma once

#include <string>

namespace pyramarch::test {

struct CommandResult {
    int code = -1; // exit status, -1 when killed by a signal
    std::string out, err;
};

// `program` followed by `args` (shell words, already quoted as needed).
CommandResult runCommand(const std::string& program, const std::string& args);

} // namespace pyramarch::test

// In a GoogleTest body: a tool that failed because there is no Vulkan device
// fails under CI and is skipped elsewhere (support/device_policy.h).
#define PYRAMARCH_FAIL_OR_SKIP_IF_TOOL_HAS_NO_DEVICE(result)                                                           \
    do {                                                                                                               \
        if ((result).code != 0 && ::pyramarch::test::isNoDeviceError((result).err))                                    \
            PYRAMARCH_FAIL_OR_SKIP_NO_DEVICE((result).err);                                                            \
    } while (0)
