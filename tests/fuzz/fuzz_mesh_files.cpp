#include <string>
#include <string_view>

#include "fuzz_targets.h"
#include "pyramarch/voxelizer/mesh.h"
#include "sample/mesh_files.h"

namespace pyramarch::fuzz {

namespace {

// What the tool does next with a loaded mesh, on the CPU.
void checkLoaded(const Result<voxel::TriangleMesh>& mesh) {
    if (!mesh) {
        FUZZ_CHECK(!mesh.message().empty(), "a mesh loader failed without a message");
        FUZZ_CHECK(mesh.message().find("'fuzz") != std::string::npos, "a mesh loader error does not name the file");
        return;
    }
    const voxel::TriangleMesh& m = *mesh;
    FUZZ_CHECK(!m.indices.empty() && m.indices.size() % 3 == 0, "a loader returned no or a partial triangle");
    FUZZ_CHECK(m.colors.empty() || m.colors.size() == m.positions.size(), "colour count differs from vertex count");
    FUZZ_CHECK(m.normals.empty() || m.normals.size() == m.positions.size(), "normal count differs from vertex count");
    for (uint32_t i : m.indices) FUZZ_CHECK(i < m.positions.size(), "a loader returned an index out of range");
    auto grid = voxel::defaultGrid(m, 32);
    if (!grid) return;
    auto check = voxel::checkMesh(m, *grid);
    FUZZ_CHECK(check.ok(), "checkMesh refused a mesh the loader accepted");
}

} // namespace

int meshFiles(const uint8_t* data, size_t size) {
    if (size < 1 || size > 65536) return 0;
    // Byte 0 picks the parser (% 3: PLY, glTF JSON, glTF binary); no
    // external files (glTF: only data URIs and the GLB chunk).
    const std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
    switch (data[0] % 3) {
    case 0: checkLoaded(sample::parsePly(bytes, "fuzz.ply")); break;
    case 1: checkLoaded(sample::parseGltf(bytes, "fuzz.gltf", false, "")); break;
    default: checkLoaded(sample::parseGltf(bytes, "fuzz.glb", true, "")); break;
    }
    return 0;
}

} // namespace pyramarch::fuzz
