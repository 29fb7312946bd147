// Particle files on the CPU: PLY, .xyz, raw float32, legacy VTK, VTK XML
// (.vtu) and Houdini BGEO, read into contiguous xyz triples (3 floats per
// particle, no padding) plus the attribute arrays the caller asks for; a
// binary PLY writer; file-sequence expansion ('frames/fluid_{}.ply'). No GPU,
// no Vulkan calls. Errors are values (ErrorCode::ParseError for content,
// NotFound / Io for the file, CapacityExceeded past maxParticles or maxBytes)
// whose message names the file and the header line, data line, record or
// byte offset at fault.
//
//     ParticleReadOptions opt;
//     opt.attributes = {"velocity"};                 // read with the positions
//     auto set = readParticles("fluid.vtk", opt);    // format from extension / magic
//     if (!set) { report(set.message()); return; }
//     auto grid = particleGrid(set->bounds, voxelSize, kernelSupportRadius(r));  // particle_grid.h
//
// Formats (ParticleFormat::Auto: the extension decides; a file without a
// known extension is recognised by its first bytes):
//   - PLY (.ply): ascii, binary_little_endian, binary_big_endian. Element
//     'vertex' with scalar properties x, y, z of type float or double (also
//     float32 / float64); every other property (scalar or list) and every
//     other element (faces, ...) is read past, in any order. The vertex
//     element's other scalar properties are attributes of 1 component each
//     (nx, red, density, ...). ASCII: one record per line (blank lines are
//     skipped), exactly the values the header declares. Binary: the data must
//     end where the header's counts say.
//   - .xyz text: one particle per line, x y z separated by spaces or tabs;
//     further columns are ignored; '#' starts a comment; blank lines are
//     skipped. No attributes.
//   - .f32: raw little-endian float32 x y z triples, no header; the size must
//     be a multiple of 12 bytes. No attributes.
//   - Legacy VTK (.vtk), ASCII or BINARY (big-endian), versions 2 to 5.1:
//     DATASET POLYDATA or UNSTRUCTURED_GRID with POINTS n float|double (or an
//     integer type). Cells (VERTICES, LINES, POLYGONS, TRIANGLE_STRIPS,
//     CELLS, CELL_TYPES; 5.x OFFSETS / CONNECTIVITY), CELL_DATA, FIELD data
//     of the dataset, LOOKUP_TABLE and METADATA blocks are read past.
//     POINT_DATA attributes: SCALARS (1-4 components), VECTORS, NORMALS,
//     TEXTURE_COORDINATES, TENSORS (9) and FIELD arrays, any numeric type
//     ('bit' and strings are refused only when asked for).
//   - VTK XML (.vtu, also .vtp): UnstructuredGrid or PolyData, every Piece
//     appended in order; Points and PointData DataArrays of any numeric type
//     (Int8 ... UInt64, Float32, Float64), format ascii, binary (base64,
//     header UInt32 or UInt64) or appended (encoding raw or base64), without
//     or with compressor="vtkZLibDataCompressor" (the block header: block
//     count, block size, last block size, compressed sizes), either
//     byte_order. Other compressors (LZ4, LZMA) are refused.
//   - BGEO (.bgeo, .bgeo.gz, .bgeo.sz): Houdini's classic binary geometry,
//     version 5 ("Bgeo" 'V' 5, big-endian), plain or gzip-compressed (the
//     first bytes decide). Point attributes of type float, int and vector
//     (any size); string attributes are refused. The homogeneous w of P is
//     dropped; primitives and everything after the points are ignored. The
//     newer binary-JSON BGEO (Houdini 12+) and Blosc (.sc) files are refused.
// Attribute values are converted to float (integers exactly up to 2^24).
//
// Bounds on hostile input: at most maxParticles particles (a larger count in
// a header is an error before anything is allocated for it); a count or size
// from a header is checked against the bytes the file has left (for zlib
// data against 1032 times the compressed bytes, deflate's largest ratio)
// before memory is reserved for it; decompressed data stops at maxBytes.
//
// Particles the caller does not want are dropped after reading, with their
// attribute values, and counted in ParticleSet::dropped: non-finite
// positions (NaN, inf, doubles beyond float range; NonFinitePolicy::Error
// makes them errors naming the line or record instead) and, with a box,
// positions outside it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pyramarch/engine/status.h"
#include "pyramarch/isosurface/particle_grid.h"

namespace pyramarch::iso {

enum class ParticleFormat {
    Auto, // from the path's extension, else from the file's first bytes
    Ply,
    Xyz,
    F32,
    Vtk,  // legacy VTK (.vtk)
    Vtu,  // VTK XML (.vtu, .vtp)
    Bgeo, // Houdini BGEO V5, plain or gzip (.bgeo, .bgeo.gz, .bgeo.sz)
};

// 2^26 particles (768 MiB of xyz floats).
inline constexpr uint64_t kDefaultMaxParticles = uint64_t(1) << 26;
// 16 GiB: the most bytes a compressed file may inflate to.
inline constexpr uint64_t kDefaultMaxBytes = uint64_t(16) << 30;

// What becomes of particles whose position is NaN, inf or beyond float range.
enum class NonFinitePolicy {
    Drop,  // dropped and counted in ParticleSet::dropped.nonFinite (default)
    Error, // an error naming the line or record
};

// An axis-aligned box, bounds included.
struct ParticleBox {
    std::array<float, 3> min{0.f, 0.f, 0.f};
    std::array<float, 3> max{0.f, 0.f, 0.f};
    bool contains(float x, float y, float z) const {
        return x >= min[0] && x <= max[0] && y >= min[1] && y <= max[1] && z >= min[2] && z <= max[2];
    }
};

struct ParticleReadOptions {
    ParticleFormat format = ParticleFormat::Auto; // an explicit format overrides the extension
    uint64_t maxParticles = kDefaultMaxParticles;
    // Point attributes to read with the positions, by name as in the file
    // ("velocity", "density"); a name the file lacks is an error listing the
    // names it has. Empty (default): none.
    std::vector<std::string> attributes;
    bool allAttributes = false; // read every numeric point attribute instead
    NonFinitePolicy nonFinite = NonFinitePolicy::Drop;
    // Keep only the particles inside (bounds included); the others are
    // counted in ParticleSet::dropped.outsideBox. Default: no box.
    std::optional<ParticleBox> box;
    uint64_t maxBytes = kDefaultMaxBytes; // most bytes after decompression (gzip, zlib)
};

// One per-particle array read with the positions: particle i's values are
// values[i * components ... i * components + components - 1]. Scalars (density,
// pressure) have 1 component, vectors (velocity, normals) 3.
struct ParticleAttribute {
    std::string name;
    uint32_t components = 1;   // 1 .. 16
    std::vector<float> values; // count() * components
};

struct ParticleSet {
    std::vector<float> xyz; // x0 y0 z0 x1 y1 z1 ...
    ParticleBounds bounds;  // of the kept particles; empty() when there are none
    // In the order of ParticleReadOptions::attributes (allAttributes: the file's order).
    std::vector<ParticleAttribute> attributes;
    struct Dropped {
        uint64_t nonFinite = 0;  // NaN / inf / beyond float range (NonFinitePolicy::Drop)
        uint64_t outsideBox = 0; // outside ParticleReadOptions::box or cropParticles' box
    } dropped;
    size_t count() const { return xyz.size() / 3; }
    // The attribute called `name`, or nullptr.
    const ParticleAttribute* attribute(std::string_view name) const;
};

// Keeps the particles inside `box` (bounds included), their attribute values
// with them (attributes without count() * components values are left as
// they are); returns how many were removed (also added to
// set.dropped.outsideBox) and recomputes set.bounds.
uint64_t cropParticles(ParticleSet& set, const ParticleBox& box);

// "ply", "xyz", "f32", "vtk", "vtu", "bgeo" ("auto" for Auto).
const char* particleFormatName(ParticleFormat format);
// Format from a path's extension; an error names the path and the extensions
// known.
Result<ParticleFormat> particleFormatFromPath(std::string_view path);
// Format from a file's first bytes ("ply\n", "# vtk DataFile", "<?xml" /
// "<VTKFile", "Bgeo" or a gzip stream); Auto when none matches. .xyz and
// .f32 have no signature.
ParticleFormat particleFormatFromBytes(std::span<const uint8_t> bytes);

// Reads a whole particle file (the file is read into memory once). Errors
// also cover a missing or unreadable file, an unknown format and, for .f32,
// a file larger than maxParticles before reading it.
Result<ParticleSet> readParticles(const std::string& path, const ParticleReadOptions& options = {});

// Parses particle data already in memory; `name` stands for the file in error
// messages. With options.format Auto the bytes decide (particleFormatFromBytes).
Result<ParticleSet> parseParticles(std::span<const uint8_t> bytes, std::string_view name,
                                   const ParticleReadOptions& options);
// The same with an explicit format (not Auto) and the other options' defaults.
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
