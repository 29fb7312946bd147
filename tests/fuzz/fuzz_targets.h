// Fuzz targets for every parser of outside data. Each is a plain function so
// the same code runs under libFuzzer (fuzz_main.cpp, PYRAMARCH_FUZZ build) and
// in the normal build's replay test (replay_test.cpp), which feeds it every
// checked-in corpus file, crash reproducers included.
//
// A target returns 0; it aborts (FUZZ_CHECK) when a parser breaks its own
// contract, so libFuzzer reports that like a crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond, what)                                                                                         \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            std::fprintf(stderr, "fuzz contract violated: %s (%s:%d)\n", what, __FILE__, __LINE__);                    \
            std::abort();                                                                                              \
        }                                                                                                              \
    } while (0)

namespace pyramarch::fuzz {

// Raw volume loader: "<dims>\n<type>\n<file bytes>" -> parseTriple,
// iso::parseVolumeFormat, iso::readRawVolume, iso::volumeRange.
int rawVolume(const uint8_t* data, size_t size);
// User GLSL field snippets: the bytes are IsoSurfaceCreateInfo::fieldGlsl,
// composed and compiled like IsoSurface::create does (compileUserField).
int userGlsl(const uint8_t* data, size_t size);
// Command lines: first byte picks the pyramarch tool (even) or a sample
// (odd); the rest, split at '\n', are the arguments.
int commandLine(const uint8_t* data, size_t size);
#ifdef PYRAMARCH_FUZZ_HAVE_PARTICLES
// Particle readers (iso::parseParticles, in memory): byte 0 picks the format
// (% 7: PLY, .xyz, .f32, legacy VTK, VTK XML, BGEO, by the first bytes) and
// maxParticles (bits 3..7 times 4; 0: 4096), the rest is the file; every
// attribute read, NaN dropped and as an error. Then cropParticles, the PLY
// writer round trip and particleGrid.
int particleReaders(const uint8_t* data, size_t size);
#endif
#ifdef PYRAMARCH_FUZZ_HAVE_VOXELIZER
// Wavefront OBJ loader of the voxelizer (loadObj), then checkMesh and defaultGrid.
int objLoader(const uint8_t* data, size_t size);
#endif
#ifdef PYRAMARCH_FUZZ_HAVE_MESH_FILES
// Mesh files of the tool (samples/common): byte 0 picks sample::parsePly,
// sample::parseGltf JSON or binary (% 3) for the rest of the bytes; then
// defaultGrid and checkMesh.
int meshFiles(const uint8_t* data, size_t size);
#endif

} // namespace pyramarch::fuzz
