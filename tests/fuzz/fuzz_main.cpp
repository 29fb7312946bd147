// libFuzzer entry of one target; PYRAMARCH_FUZZ_FN names it (CMake).
#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) { return PYRAMARCH_FUZZ_FN(data, size); }
