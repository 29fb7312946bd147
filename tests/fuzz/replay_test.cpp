// Replays every checked-in fuzz input (seeds and crash reproducers under
// tests/fuzz/corpus/<target>/) through the fuzz targets in the normal build,
// so a fixed crash stays fixed without clang or libFuzzer.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_targets.h"

namespace {

using Target = int (*)(const uint8_t*, size_t);

size_t replay(const std::string& name, Target target) {
    const std::filesystem::path dir = std::filesystem::path(PYRAMARCH_FUZZ_CORPUS) / name;
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.is_regular_file()) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        SCOPED_TRACE(f.string());
        std::ifstream in(f, std::ios::binary);
        const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        EXPECT_EQ(target(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), 0);
    }
    return files.size();
}

} // namespace

#ifdef PYRAMARCH_FUZZ_HAVE_SAMPLES
TEST(FuzzReplay, RawVolume) { EXPECT_GT(replay("raw_volume", pyramarch::fuzz::rawVolume), 5u); }
TEST(FuzzReplay, CommandLine) { EXPECT_GT(replay("cli", pyramarch::fuzz::commandLine), 5u); }
#endif
#ifdef PYRAMARCH_FUZZ_HAVE_GLSL
TEST(FuzzReplay, UserGlsl) { EXPECT_GT(replay("user_glsl", pyramarch::fuzz::userGlsl), 5u); }
#endif
#ifdef PYRAMARCH_FUZZ_HAVE_PARTICLES
TEST(FuzzReplay, ParticleReaders) { EXPECT_GT(replay("particles", pyramarch::fuzz::particleReaders), 5u); }
#endif
#ifdef PYRAMARCH_FUZZ_HAVE_VOXELIZER
TEST(FuzzReplay, ObjLoader) { EXPECT_GT(replay("obj", pyramarch::fuzz::objLoader), 5u); }
#endif
#ifdef PYRAMARCH_FUZZ_HAVE_MESH_FILES
TEST(FuzzReplay, MeshFiles) { EXPECT_GT(replay("meshes", pyramarch::fuzz::meshFiles), 5u); }
#endif
