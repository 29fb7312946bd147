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
    // Byte 0: format (% 7: PLY, xyz, f32, legacy VTK, VTK XML, BGEO, by the
    // first bytes) and the particle limit (bits 3..7; 0 means 4096).
    static constexpr iso::ParticleFormat kFormats[7] = {
        iso::ParticleFormat::Ply, iso::ParticleFormat::Xyz,  iso::ParticleFormat::F32, iso::ParticleFormat::Vtk,
        iso::ParticleFormat::Vtu, iso::ParticleFormat::Bgeo, iso::ParticleFormat::Auto};
    const iso::ParticleFormat format = kFormats[data[0] % 7];
    const uint64_t limit = (data[0] >> 3) == 0 ? 4096 : uint64_t(data[0] >> 3) * 4;
    const std::span<const uint8_t> bytes(data + 1, size - 1);

    // Every attribute read, inflated data bounded (libFuzzer's memory limit).
    iso::ParticleReadOptions options;
    options.format = format;
    options.maxParticles = limit;
    options.allAttributes = true;
    options.maxBytes = uint64_t(1) << 24;
    auto r = iso::parseParticles(bytes, "fuzz.input", options);
    uint64_t nonFinite = 0;
    if (format == iso::ParticleFormat::F32) {
        const bool sizeOk = bytes.size() % 12 == 0 && bytes.size() / 12 <= limit;
        for (size_t i = 0; sizeOk && i < bytes.size(); i += 12) {
            bool finite = true;
            for (size_t k = 0; k < 12; k += 4) {
                float f;
                std::memcpy(&f, bytes.data() + i + k, 4); // the fuzz machines are little-endian
                finite = finite && std::isfinite(f);
            }
            nonFinite += finite ? 0 : 1;
        }
        FUZZ_CHECK(r.ok() == sizeOk, "the .f32 reader's verdict differs from the file's size");
        FUZZ_CHECK(!r.ok() || r->dropped.nonFinite == nonFinite, "the .f32 reader miscounted non-finite particles");
    }
    // Non-finite positions as errors: the same verdict when there are none.
    options.nonFinite = iso::NonFinitePolicy::Error;
    auto strict = iso::parseParticles(bytes, "fuzz.input", options);
    FUZZ_CHECK(strict.ok() == (r.ok() && r->dropped.nonFinite == 0),
               "NonFinitePolicy::Error fails where nothing was dropped (or succeeds where something was)");
    FUZZ_CHECK(!strict.ok() || strict->xyz == r->xyz, "NonFinitePolicy::Error read other particles");
    if (!r) {
        FUZZ_CHECK(r.message().find("'fuzz.input'") != std::string::npos, "a particle error does not name the file");
        FUZZ_CHECK(r.code() != ErrorCode::Ok && r.code() != ErrorCode::Unspecified, "a particle error has no code");
        return 0;
    }
    const iso::ParticleSet& set = *r;
    FUZZ_CHECK(set.xyz.size() % 3 == 0, "the reader returned a partial particle");
    FUZZ_CHECK(set.count() <= limit, "the reader returned more than maxParticles particles");
    FUZZ_CHECK(set.count() + set.dropped.nonFinite <= limit, "the reader read more than maxParticles particles");
    for (float f : set.xyz) FUZZ_CHECK(std::isfinite(f), "the reader returned a non-finite coordinate");
    for (const iso::ParticleAttribute& a : set.attributes) {
        FUZZ_CHECK(a.components >= 1 && a.components <= 16, "an attribute with 0 or more than 16 components");
        FUZZ_CHECK(a.values.size() == set.count() * a.components, "an attribute out of step with the positions");
    }
    // A box around the lower half keeps what cropParticles keeps.
    if (set.count() > 0) {
        iso::ParticleBox box{set.bounds.min, set.bounds.max};
        box.max[1] = set.bounds.min[1] + (set.bounds.max[1] - set.bounds.min[1]) / 2.f;
        iso::ParticleSet cropped = set;
        const uint64_t removed = iso::cropParticles(cropped, box);
        FUZZ_CHECK(cropped.count() + removed == set.count(), "cropParticles lost count of the particles");
        for (size_t i = 0; i < cropped.count(); ++i)
            FUZZ_CHECK(box.contains(cropped.xyz[i * 3], cropped.xyz[i * 3 + 1], cropped.xyz[i * 3 + 2]),
                       "cropParticles kept a particle outside the box");
        for (const iso::ParticleAttribute& a : cropped.attributes)
            FUZZ_CHECK(a.values.size() == cropped.count() * a.components,
                       "cropParticles left an attribute out of step");
    }
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
