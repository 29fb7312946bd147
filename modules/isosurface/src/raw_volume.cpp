#include "pyramarch/isosurface/raw_volume.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>

namespace pyramarch::iso {

bool parseVolumeFormat(const std::string& name, VolumeFormat& out) {
    if (name == "u8")
        out = VolumeFormat::U8;
    else if (name == "u16")
        out = VolumeFormat::U16;
    else if (name == "f32")
        out = VolumeFormat::F32;
    else
        return false;
    return true;
}

const char* volumeFormatName(VolumeFormat format) {
    switch (format) {
    case VolumeFormat::U8: return "u8";
    case VolumeFormat::U16: return "u16";
    case VolumeFormat::F32: return "f32";
    }
    return "?";
}

size_t volumeFormatBytes(VolumeFormat format) {
    return format == VolumeFormat::U8 ? 1 : format == VolumeFormat::U16 ? 2 : 4;
}

namespace {
// The checks of both readers: dimensions, size in memory, the file's size.
// Returns the opened file, positioned anywhere.
Result<std::unique_ptr<std::ifstream>> openChecked(const std::string& path, const std::array<uint32_t, 3>& dims,
                                                   VolumeFormat format) {
    const std::string what = "raw volume '" + path + "'";
    const std::string dimsText =
        std::to_string(dims[0]) + "x" + std::to_string(dims[1]) + "x" + std::to_string(dims[2]);
    if (dims[0] == 0 || dims[1] == 0 || dims[2] == 0)
        return Status::error(ErrorCode::InvalidArgument, what + ": dimensions " + dimsText + " have a zero axis");
    // Three 32-bit factors and 4 bytes per sample fit in 98 bits, not 64:
    // multiply in long double to decide, then in 64 bits.
    const long double want = (long double)dims[0] * dims[1] * dims[2] * volumeFormatBytes(format);
    if (want > (long double)std::numeric_limits<size_t>::max() / 2)
        return Status::error(ErrorCode::InvalidArgument,
                             what + ": " + dimsText + " " + volumeFormatName(format) + " samples do not fit in memory");
    const uint64_t expected = uint64_t(dims[0]) * dims[1] * dims[2] * volumeFormatBytes(format);
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        return Status::error(ErrorCode::Io, what + " is a directory, not a file");
    std::ifstream f(path, std::ios::binary | std::ios::ate);
    if (!f) return Status::error(ErrorCode::NotFound, "cannot open " + what);
    const std::streamoff end = f.tellg();
    if (end < 0) return Status::error(ErrorCode::Io, "cannot read " + what + " (not a regular file?)");
    const uint64_t size = uint64_t(end);
    if (size != expected)
        return Status::error(ErrorCode::InvalidArgument, what + " has " + std::to_string(size) + " bytes, but " +
                                                             dimsText + " " + volumeFormatName(format) +
                                                             " samples need " + std::to_string(expected));
    return std::make_unique<std::ifstream>(std::move(f));
}
} // namespace

Result<std::vector<uint8_t>> readRawVolume(const std::string& path, const std::array<uint32_t, 3>& dims,
                                           VolumeFormat format) {
    PYRAMARCH_TRY_ASSIGN(std::unique_ptr<std::ifstream> f, openChecked(path, dims, format));
    const uint64_t size = uint64_t(dims[0]) * dims[1] * dims[2] * volumeFormatBytes(format);
    std::vector<uint8_t> data(size);
    f->seekg(0);
    f->read(reinterpret_cast<char*>(data.data()), std::streamsize(size));
    if (!*f) return Status::error(ErrorCode::Io, "cannot read raw volume '" + path + "'");
    return data;
}

Result<VolumeSlabs> openRawVolumeSlabs(const std::string& path, const std::array<uint32_t, 3>& dims,
                                       VolumeFormat format, float scale, float offset) {
    PYRAMARCH_TRY_ASSIGN(std::unique_ptr<std::ifstream> opened, openChecked(path, dims, format));
    std::shared_ptr<std::ifstream> f = std::move(opened);
    const uint64_t sliceBytes = uint64_t(dims[0]) * dims[1] * volumeFormatBytes(format);
    VolumeSlabs slabs;
    slabs.format = format;
    slabs.scale = scale;
    slabs.offset = offset;
    slabs.read = [f, path, sliceBytes, slices = dims[2]](uint32_t first, uint32_t count, void* dst) -> Status {
        if (uint64_t(first) + count > slices)
            return Status::error(ErrorCode::InvalidArgument, "raw volume '" + path + "': slices " +
                                                                 std::to_string(first) + "+" + std::to_string(count) +
                                                                 " past its " + std::to_string(slices));
        f->clear();
        f->seekg(std::streamoff(sliceBytes * first));
        f->read(static_cast<char*>(dst), std::streamsize(sliceBytes * count));
        if (!*f)
            return Status::error(ErrorCode::Io, "cannot read raw volume '" + path + "' (slices " +
                                                    std::to_string(first) + "+" + std::to_string(count) + ")");
        return {};
    };
    return slabs;
}

std::array<float, 2> volumeRange(const void* data, size_t count, VolumeFormat format) {
    float lo = std::numeric_limits<float>::max(), hi = std::numeric_limits<float>::lowest();
    const uint8_t* bytes = static_cast<const uint8_t*>(data);
    for (size_t i = 0; i < count; ++i) {
        float v;
        if (format == VolumeFormat::U8)
            v = bytes[i];
        else if (format == VolumeFormat::U16) {
            uint16_t u;
            std::memcpy(&u, bytes + 2 * i, 2);
            v = u;
        } else
            std::memcpy(&v, bytes + 4 * i, 4);
        if (!std::isfinite(v)) continue;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    if (lo > hi) return {0.f, 1.f};
    return {lo, hi};
}

} // namespace pyramarch::iso
