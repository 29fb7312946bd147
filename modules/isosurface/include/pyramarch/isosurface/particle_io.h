// Particle files on the CPU: PLY point sets, .xyz text and raw float32 xyz,
// read into contiguous xyz triples (3 floats per particle, no padding), plus
// a binary PLY writer and file-sequence expansion ('frames/fluid_{}.ply').
// No GPU, no Vulkan calls. Errors are values whose message names the file
// and the header line, data line, element record or byte offset at fault.
//
//     auto set = readParticles("fluid.ply");       // format from the extension
//     if (!set) { report(set.message()); return; }
//     auto grid = particleGrid(set->bounds, voxelSize, kernelSupportRadius(r));  // particle_grid.h
//
// Formats:
//   - PLY (.ply): ascii, binary_little_endian, binary_big_endian. Element
//     'vertex' with scalar properties x, y, z of type float or double (also
//     float32 / float64); every other property (scalar or list) and every
//     other element (faces, ...) is read past and ignored, in any order.
//     ASCII: one record per line (blank lines are skipped), exactly the
//     values the header declares. Binary: the data must end where the
//     header's counts say.
//   - .xyz text: one particle per line, x y z separated by spaces or tabs;
//     further columns are ignored; '#' starts a comment; blank lines are
//     skipped.
//   - .f32: raw little-endian float32 x y z triples, no header; the size must
//     be a multiple of 12 bytes.
// Every coordinate must be finite as a float (NaN, inf and doubles beyond
// float range are errors naming the line or particle). At most maxParticles
// particles: a larger count (in a header or in the data) is an error before
// anything is allocated for it, so a hostile header cannot make the reader
// allocate more than the file's own size in memory.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pyramarch/engine/status.h"
#include "pyramarch/isosurface/particle_grid.h"

namespace pyramarch::iso {

enum class ParticleFormat {
    Auto, // from the path's extension (.ply, .xyz, .f32; case-insensitive)
    Ply,
    Xyz,
    F32,
};

// 2^26 particles (768 MiB of xyz floats).
inline constexpr uint64_t kDefaultMaxParticles = uint64_t(1) << 26;

struct ParticleReadOptions {
    ParticleFormat format = ParticleFormat::Auto; // an explicit format overrides the extension
    uint64_t maxParticles = kDefaultMaxParticles;
};

struct ParticleSet {
    std::vector<float> xyz; // x0 y0 z0 x1 y1 z1 ...
    ParticleBounds bounds;  // of all particles; empty() when there are none
    size_t count() const { return xyz.size() / 3; }
};

// "ply", "xyz", "f32" ("auto" for Auto).
const char* particleFormatName(ParticleFormat format);
// Format from a path's extension; an error names the path and the extensions
// known.
Result<ParticleFormat> particleFormatFromPath(std::string_view path);

// Reads a whole particle file (the file is read into memory once). Errors
// also cover a missing or unreadable file and, for .f32, a file larger than
// maxParticles before reading it.
Result<ParticleSet> readParticles(const std::string& path, const ParticleReadOptions& options = {});

// Parses particle data already in memory (format must not be Auto); `name`
// stands for the file in error messages.
Result<ParticleSet> parseParticles(std::span<const uint8_t> bytes, ParticleFormat format, std::string_view name,
                                   uint64_t maxParticles = kDefaultMaxParticles);

// Binary little-endian PLY point set: element vertex with float x, y, z
// (xyz.size() / 3 particles; a trailing partial triple is ignored).
std::vector<uint8_t> encodeParticlesPly(std::span<const float> xyz);
Status writeParticlesPly(const std::string& path, std::span<const float> xyz);

// File sequences. A pattern has exactly one "{}" in its file name (not in its
// directory), e.g. "frames/fluid_{}.ply"; it stands for a frame index written
// in decimal digits, zero-padded or not ("fluid_7.ply", "fluid_0007.ply").
struct SequenceFrame {
    uint64_t index = 0;    // the number
    std::string indexText; // the digits as on disk ("0007"): pass to sequencePath for outputs
    std::string path;      // the pattern with "{}" replaced by indexText
};

// True when `pattern` contains "{}".
bool isSequencePattern(std::string_view pattern);
// The existing regular files matching the pattern, sorted by index (gaps
// allowed). Errors: no or several "{}", "{}" in the directory part, a missing
// or unreadable directory, no matching file, two files with the same index
// ("fluid_7.ply" and "fluid_07.ply"), an index beyond 64 bits.
Result<std::vector<SequenceFrame>> expandSequence(const std::string& pattern);
// `pattern` with its first "{}" replaced by indexText ("meshes/fluid_{}.ply",
// "0007" -> "meshes/fluid_0007.ply"); a pattern without "{}" is returned as is.
std::string sequencePath(std::string_view pattern, std::string_view indexText);

} // namespace pyramarch::iso
