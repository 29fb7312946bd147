// Raw scalar volumes from files, for FieldSource::Volume
// (IsoSurface::uploadVolume): little-endian samples, x fastest, then y, then
// z, no header; u8, u16 or f32. The loader checks the file against the
// dimensions before reading it, and every failure comes back as a Status
// whose message names the file and what is wrong.
//
//     iso::VolumeFormat format;
//     if (!iso::parseVolumeFormat("u16", format)) ...;
//     auto bytes = iso::readRawVolume("ct.raw", {256, 256, 113}, format);
//     if (!bytes) return bytes.status();      // e.g. "... has 100 bytes, but ..."
//     info.samples = {256, 256, 113};
//     surface->uploadVolume(bytes->data(), bytes->size(), format);
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "pyramarch/engine/status.h"
#include "pyramarch/isosurface/isosurface.h"

namespace pyramarch::iso {

// "u8" | "u16" | "f32" -> format; false (out untouched) for anything else.
bool parseVolumeFormat(const std::string& name, VolumeFormat& out);
// The format's name as parseVolumeFormat takes it.
const char* volumeFormatName(VolumeFormat format);
// Bytes per sample: 1, 2 or 4.
size_t volumeFormatBytes(VolumeFormat format);

// Reads `path`, which must hold exactly dims[0] * dims[1] * dims[2] samples
// of `format`. Errors: a dimension of 0, a size beyond what this process can
// address, a file that cannot be opened or read, and a file of another size
// (the message gives both sizes). Returns the bytes as stored (little-endian).
Result<std::vector<uint8_t>> readRawVolume(const std::string& path, const std::array<uint32_t, 3>& dims,
                                           VolumeFormat format);

// The same file read in slabs (IsoSurface::uploadVolume(VolumeSlabs, ...),
// censusSparseVolume): checks the file as readRawVolume does, then each
// read() seeks to its slices; the file stays open while a copy of the
// returned VolumeSlabs lives. For volumes larger than host memory or any
// GPU buffer (a sparse domain keeps only the bricks near the surface).
Result<VolumeSlabs> openRawVolumeSlabs(const std::string& path, const std::array<uint32_t, 3>& dims,
                                       VolumeFormat format, float scale = 1.f, float offset = 0.f);

// Min and max of the first `count` samples at `data` (NaN and infinities
// skipped); {0, 1} when no sample is finite. Useful for a default iso value.
std::array<float, 2> volumeRange(const void* data, size_t count, VolumeFormat format);

} // namespace pyramarch::iso
