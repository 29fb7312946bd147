#include <unistd.h>

#include <cmath>
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
    return 0;
}

} // namespace pyramarch::fuzz
