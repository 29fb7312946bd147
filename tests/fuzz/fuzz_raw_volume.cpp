#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>
#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz_targets.h"
#include "pyramarch/isosurface/raw_volume.h"
#include "sample/cli.h"

namespace pyramarch::fuzz {

namespace {

// One file per process, rewritten per input: the loader's real path (open,
// size check, read) is what hosts run. Path and removal live in one object:
// two function-local statics were destroyed in the wrong order at exit
// (use-after-free in this harness, found by its first run).
struct Scratch {
    std::string path =
        (std::filesystem::temp_directory_path() / ("pyramarch-fuzz-raw-" + std::to_string(::getpid()) + ".raw"))
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

std::string takeLine(const uint8_t*& p, const uint8_t* end) {
    std::string line;
    while (p < end && *p != '\n') line.push_back(char(*p++));
    if (p < end) ++p;
    return line;
}

} // namespace

int rawVolume(const uint8_t* data, size_t size) {
    const uint8_t* p = data;
    const uint8_t* end = data + size;
    const std::string dimsText = takeLine(p, end);
    const std::string typeText = takeLine(p, end);
    uint32_t dims[3] = {0, 0, 0};
    if (!sample::parseTriple(dimsText, dims)) return 0;
    for (uint32_t d : dims) FUZZ_CHECK(d >= 1 && d <= (1u << 20), "parseTriple accepted a value out of 1..2^20");
    iso::VolumeFormat format;
    if (!iso::parseVolumeFormat(typeText, format)) return 0;
    {
        std::ofstream f(scratchPath(), std::ios::binary | std::ios::trunc);
        f.write(reinterpret_cast<const char*>(p), std::streamsize(end - p));
    }
    const uint64_t fileBytes = uint64_t(end - p);
    auto r = iso::readRawVolume(scratchPath(), {dims[0], dims[1], dims[2]}, format);
    const uint64_t expected = uint64_t(dims[0]) * dims[1] * dims[2] * iso::volumeFormatBytes(format);
    if (!r) {
        FUZZ_CHECK(!r.message().empty(), "readRawVolume failed without a message");
        FUZZ_CHECK(fileBytes != expected, "readRawVolume rejected a file of the right size");
        return 0;
    }
    FUZZ_CHECK(fileBytes == expected, "readRawVolume accepted a file whose size does not match the dims");
    FUZZ_CHECK(r->size() == expected, "readRawVolume returned the wrong byte count");
    const size_t count = size_t(expected / iso::volumeFormatBytes(format));
    const auto range = iso::volumeRange(r->data(), count, format);
    // Either no finite value (lo > hi sentinel) or a finite, ordered range.
    FUZZ_CHECK(!(range[0] <= range[1]) || (std::isfinite(range[0]) && std::isfinite(range[1])),
               "volumeRange gave a non-finite range");
    // The same file slab by slab (sparse volumes): the census against a
    // brute-force count of the bricks of 8^3 cells holding a value < iso and
    // one >= iso (NaN as -infinity), on small volumes.
    auto slabs = iso::openRawVolumeSlabs(scratchPath(), {dims[0], dims[1], dims[2]}, format);
    FUZZ_CHECK(slabs.ok(), "openRawVolumeSlabs rejected a file readRawVolume read");
    if (!slabs || dims[0] < 2 || dims[1] < 2 || dims[2] < 2 || count > (1u << 16)) return 0;
    std::vector<uint8_t> slice(size_t(dims[0]) * dims[1] * iso::volumeFormatBytes(format));
    FUZZ_CHECK(!slabs->read(dims[2], 1, slice.data()), "a slab past the last slice was read");
    const float iso = range[0] <= range[1] ? 0.5f * range[0] + 0.5f * range[1] : 0.f;
    auto census = iso::censusSparseVolume(*slabs, {dims[0], dims[1], dims[2]}, iso, iso);
    FUZZ_CHECK(census.ok(), "censusSparseVolume failed on a readable volume");
    if (!census) return 0;
    const auto value = [&](uint32_t x, uint32_t y, uint32_t z) {
        const size_t i = x + size_t(dims[0]) * (y + size_t(dims[1]) * z);
        float v;
        if (format == iso::VolumeFormat::U8)
            v = r->data()[i];
        else if (format == iso::VolumeFormat::U16)
            v = float(r->data()[2 * i] | (r->data()[2 * i + 1] << 8));
        else
            std::memcpy(&v, r->data() + 4 * i, 4);
        return std::isnan(v) ? -INFINITY : v;
    };
    uint32_t bricks = 0;
    const uint32_t bx = (dims[0] + 6) / 8, by = (dims[1] + 6) / 8, bz = (dims[2] + 6) / 8;
    for (uint32_t k = 0; k < bz; ++k)
        for (uint32_t j = 0; j < by; ++j)
            for (uint32_t i = 0; i < bx; ++i) {
                bool below = false, above = false;
                for (uint32_t z = 8 * k; z <= std::min(8 * k + 8, dims[2] - 1); ++z)
                    for (uint32_t y = 8 * j; y <= std::min(8 * j + 8, dims[1] - 1); ++y)
                        for (uint32_t x = 8 * i; x <= std::min(8 * i + 8, dims[0] - 1); ++x) {
                            const float v = value(x, y, z);
                            below = below || v < iso;
                            above = above || v >= iso;
                        }
                bricks += below && above;
            }
    FUZZ_CHECK(census->bricks == uint64_t(bx) * by * bz, "censusSparseVolume counted the wrong brick total");
    FUZZ_CHECK(census->surfaceBricks == bricks, "censusSparseVolume disagrees with a brute-force count");
    return 0;
}

} // namespace pyramarch::fuzz
