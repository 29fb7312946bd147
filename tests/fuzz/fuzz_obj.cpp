#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz_targets.h"
#include "pyramarch/voxelizer/mesh.h"

namespace pyramarch::fuzz {

namespace {

// loadObj takes a path (tinyobjloader reads the file): one scratch file per
// process, rewritten per input. Path and removal in one object, so they are
// destroyed together at exit.
struct Scratch {
    std::string path =
        (std::filesystem::temp_directory_path() / ("pyramarch-fuzz-obj-" + std::to_string(::getpid()) + ".obj"))
            .string();
    ~Scratch() {
        std::error_code ec;
        std::filesystem::remove(path, ec);
    }
};

const std::string& scratchPath() {
    static const Scratch scratch;
    return scratch.path;
}

} // namespace

int objLoader(const uint8_t* data, size_t size) {
    // Large inputs only make tinyobjloader slower, not different.
    if (size > 16384) return 0;
    {
        std::ofstream f(scratchPath(), std::ios::binary | std::ios::trunc);
        f.write(reinterpret_cast<const char*>(data), std::streamsize(size));
    }
    auto mesh = voxel::loadObj(scratchPath());
    if (!mesh) {
        FUZZ_CHECK(!mesh.message().empty(), "loadObj failed without a message");
        return 0;
    }
    const voxel::TriangleMesh& m = *mesh;
    FUZZ_CHECK(m.indices.size() % 3 == 0, "loadObj returned a partial triangle");
    FUZZ_CHECK(m.colors.empty() || m.colors.size() == m.positions.size(), "colour count differs from vertex count");
    FUZZ_CHECK(m.normals.empty() || m.normals.size() == m.positions.size(), "normal count differs from vertex count");
    // What the voxelizer does next with a loaded mesh, on the CPU.
    auto grid = voxel::defaultGrid(m, 32);
    if (!grid) return 0;
    FUZZ_CHECK(voxel::validateGrid(*grid).ok(), "defaultGrid returned a grid validateGrid refuses");
    auto check = voxel::checkMesh(m, *grid);
    if (check) {
        FUZZ_CHECK(check->triangles == m.triangleCount(), "checkMesh counted a different number of triangles");
        FUZZ_CHECK(check->skippedNonFinite <= check->triangles, "more skipped triangles than triangles");
        for (uint32_t i : m.indices) FUZZ_CHECK(i < m.positions.size(), "checkMesh accepted an index out of range");
    }
    return 0;
}

} // namespace pyramarch::fuzz
