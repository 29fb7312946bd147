// A host that uses the shader_compiler component: compiles a user field the
// way IsoSurface::create does (FieldSource::UserGlsl), then, when a device
// exists, creates a surface from it.
#include <cstdio>

#include "pyramarch/engine/device.h"
#include "pyramarch/engine/shader_compiler.h"
#include "pyramarch/isosurface/isosurface.h"

int main() {
    const char* field = "float field(vec3 p) { return 0.8 - length(p); }\n";
    auto spv = pyramarch::iso::compileUserField(field, pyramarch::compileGlsl, "host");
    if (!spv || spv->empty() || (*spv)[0] != 0x07230203u) {
        std::fprintf(stderr, "compileUserField failed: %s\n", spv ? "not SPIR-V" : spv.message().c_str());
        return 1;
    }
    std::printf("user field compiled: %zu SPIR-V words\n", spv->size());
    auto device = pyramarch::Device::create({});
    if (!device) {
        std::printf("device: %s (surface not created)\n", device.message().c_str());
        return 0;
    }
    pyramarch::iso::IsoSurfaceCreateInfo info;
    info.samples = {17, 17, 17};
    info.vertexCapacity = 3 * 4096;
    info.source = pyramarch::iso::FieldSource::UserGlsl;
    info.fieldGlsl = field;
    info.compileGlsl = pyramarch::compileGlsl;
    auto surface = pyramarch::iso::IsoSurface::create(*device.value(), info);
    if (!surface) {
        std::fprintf(stderr, "IsoSurface::create failed: %s\n", surface.message().c_str());
        return 1;
    }
    std::printf("device: %s, user-field surface created\n", device.value()->name().c_str());
    return 0;
}
