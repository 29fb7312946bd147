#include <string>

#include "fuzz_targets.h"
#include "pyramarch/engine/shader_compiler.h"
#include "pyramarch/isosurface/isosurface.h"

namespace pyramarch::fuzz {

int userGlsl(const uint8_t* data, size_t size) {
    // glslang's preprocessor and parser are the outside-data path here; cap
    // the size so one input stays a compile, not a stress test.
    if (size > 4096) return 0;
    const std::string text(reinterpret_cast<const char*>(data), size);
    auto spv = iso::compileUserField(text, pyramarch::compileGlsl, "fuzz");
    if (!spv) {
        FUZZ_CHECK(!spv.message().empty(), "compileUserField failed without a message");
        FUZZ_CHECK(spv.message().find("isosurface 'fuzz'") != std::string::npos,
                   "compile error does not name the surface");
        return 0;
    }
    FUZZ_CHECK(spv->size() >= 5 && (*spv)[0] == 0x07230203u, "compileUserField returned something that is not SPIR-V");
    return 0;
}

} // namespace pyramarch::fuzz
