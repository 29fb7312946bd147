#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "fuzz_targets.h"
#include "pyramarch/isosurface/particle_grid.h"
#include "pyramarch/isosurface/particle_io.h"

namespace pyramarch::fuzz {

int particleReaders(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    // Byte 0: format (% 3) and the particle limit (bits 2..7; 0 means 4096).
    static constexpr iso::ParticleFormat kFormats[3] = {iso::ParticleFormat::Ply, iso::ParticleFormat::Xyz,
                                                        iso::ParticleFormat::F32};
    const iso::ParticleFormat format = kFormats[data[0] % 3];
    const uint64_t limit = (data[0] >> 2) == 0 ? 4096 : uint64_t(data[0] >> 2) * 4;
    const std::span<const uint8_t> bytes(data + 1, size - 1);

    auto r = iso::parseParticles(bytes, format, "fuzz.input", limit);
    if (format == iso::ParticleFormat::F32) {
        const bool sizeOk = bytes.size() % 12 == 0 && bytes.size() / 12 <= limit;
        bool finite = true;
        for (size_t i = 0; sizeOk && i < bytes.size(); i += 4) {
            float f;
            std::memcpy(&f, bytes.data() + i, 4); // the fuzz machines are little-endian
            finite = finite && std::isfinite(f);
        }
        FUZZ_CHECK(r.ok() == (sizeOk && finite), "the .f32 reader's verdict differs from the file's size and values");
    }
    if (!r) {
        FUZZ_CHECK(r.message().find("'fuzz.input'") != std::string::npos, "a particle error does not name the file");
        return 0;
    }
    const iso::ParticleSet& set = *r;
    FUZZ_CHECK(set.xyz.size() % 3 == 0, "the reader returned a partial particle");
    FUZZ_CHECK(set.count() <= limit, "the reader returned more than maxParticles particles");
    for (float f : set.xyz) FUZZ_CHECK(std::isfinite(f), "the reader returned a non-finite coordinate");
    const iso::ParticleBounds bounds = iso::particleBounds(set.xyz);
    FUZZ_CHECK(bounds.min == set.bounds.min && bounds.max == set.bounds.max,
               "the returned bounds are not the particles' bounds");
    FUZZ_CHECK(set.bounds.empty() == (set.count() == 0), "bounds empty although there are particles (or the reverse)");

    // What the writer produces reads back bit for bit.
    const std::vector<uint8_t> ply = iso::encodeParticlesPly(set.xyz);
    auto back = iso::parseParticles(ply, iso::ParticleFormat::Ply, "roundtrip.ply", limit);
    FUZZ_CHECK(back.ok(), "the reader refused what the writer wrote");
    // Bits compared (memcmp of two empty vectors' null data is undefined).
    FUZZ_CHECK(back->xyz.size() == set.xyz.size() &&
                   std::equal(set.xyz.begin(), set.xyz.end(), back->xyz.begin(),
                              [](float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }),
               "the PLY round trip changed the particles");

    // The grid around them, as the CLI will build it.
    if (set.count() == 0) return 0;
    float extent = 0.f;
    for (int k = 0; k < 3; ++k) extent = std::fmax(extent, set.bounds.max[size_t(k)] - set.bounds.min[size_t(k)]);
    const float voxel = std::isfinite(extent) && extent > 0.f ? extent / 16.f : 1.f;
    auto grid = iso::particleGrid(set.bounds, voxel, 2.f * voxel, {.maxSamples = uint64_t(1) << 20});
    if (!grid) {
        FUZZ_CHECK(!grid.message().empty(), "particleGrid failed without a message");
        return 0;
    }
    FUZZ_CHECK(grid->totalSamples <= (uint64_t(1) << 20), "particleGrid exceeded maxSamples");
    for (int k = 0; k < 3; ++k) {
        FUZZ_CHECK(grid->samples[size_t(k)] >= 2, "particleGrid made an axis of fewer than 2 samples");
        FUZZ_CHECK(grid->boundsMin[size_t(k)] <= set.bounds.min[size_t(k)] &&
                       grid->boundsMax[size_t(k)] >= set.bounds.max[size_t(k)],
                   "the particle grid does not cover the particles");
    }
    return 0;
}

} // namespace pyramarch::fuzz
