// Pure helpers for particle surfaces (no GPU, no Vulkan calls): the grid
// around a particle set, and splashsurf's parameter conventions mapped onto
// the kernel the module evaluates.
//
// The kernel (shaders/isosurface/particles_splat.comp and particles_gather.comp,
// the scatter and the gather alike): every particle of weight w adds
//
//     w (1 - d^2/h^2)^3        for d < h, 0 beyond,
//
// to each grid sample at distance d, where h is
// IsoSurfaceCreateInfo::particleRadius (the kernel's support radius, not
// splashsurf's particle radius). The kernel is not normalised: the field is a
// weighted neighbour count, summed in 16.16 fixed point (each term truncated
// to a multiple of 1/65536; the 32-bit sum holds at most 65536 in total).
//
// splashsurf's conventions, as the CLI takes them:
//   - particle radius r (world units): about half the particle spacing, so a
//     fluid at rest is a lattice of spacing 2r;
//   - smoothing length L (in particle radii, default 2): the kernel support is
//     h = 2 L r, i.e. about L particle spacings;
//   - surface threshold T: a fraction of the rest density, the field a
//     particle inside a fluid at rest sees; iso = T * rest density. With this
//     kernel the rest density depends on L (and w) only, not on r, so a
//     default T works for any particle spacing.
//
//     const float h = kernelSupportRadius(r, L);          // info.particleRadius
//     auto grid = particleGrid(set.bounds, voxelSize, h);  // pad by the support: the surface closes
//     auto iso = particleIsoValue(0.6f, L);                // info.isoValue
//
// With ParticleKernel::SphCubicSpline (splashsurf's own field, the CLI's
// default) the field is the fluid's volume fraction, ~1 at rest for any L:
// the iso value is T itself, and particleRestDensity / particleIsoValue /
// particleFieldAt describe the NeighbourCount kernel only.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <span>

#include "pyramarch/engine/status.h"

namespace pyramarch::iso {

// Axis-aligned bounds of a particle set. Default: empty (min > max).
struct ParticleBounds {
    std::array<float, 3> min{std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity(),
                             std::numeric_limits<float>::infinity()};
    std::array<float, 3> max{-std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                             -std::numeric_limits<float>::infinity()};
    bool empty() const { return !(min[0] <= max[0] && min[1] <= max[1] && min[2] <= max[2]); }
    void add(float x, float y, float z) {
        const float p[3] = {x, y, z};
        for (int k = 0; k < 3; ++k) {
            if (p[k] < min[k]) min[k] = p[k];
            if (p[k] > max[k]) max[k] = p[k];
        }
    }
};

// Bounds of xyz triples (xyz.size() / 3 particles; a trailing partial triple
// is ignored). Non-finite coordinates are not skipped: check them first (the
// particle readers reject them).
ParticleBounds particleBounds(std::span<const float> xyz);

struct ParticleGridOptions {
    // Snap the first sample to the world lattice k * V (every frame of a
    // sequence samples the same points: no shimmer). Default on; off: the
    // first sample is exactly bounds.min - padding.
    bool alignToVoxel = true;
    // Most samples in total the caller accepts (a memory budget). Grids of
    // more than 2^32 - 1 samples are refused whatever this says (the GPU
    // indexes samples with 32 bits).
    uint64_t maxSamples = std::numeric_limits<uint32_t>::max();
};

// A grid in IsoSurfaceCreateInfo's convention: N samples per axis span the
// bounds inclusively, sample i at boundsMin + i * voxelSize (so
// (boundsMax - boundsMin) / (N - 1) == voxelSize up to float rounding of the
// bounds), cells = N - 1.
struct ParticleGrid {
    std::array<uint32_t, 3> samples{0, 0, 0}; // >= 2 per axis
    std::array<float, 3> boundsMin{0.f, 0.f, 0.f};
    std::array<float, 3> boundsMax{0.f, 0.f, 0.f};
    float voxelSize = 0.f;     // sample spacing
    uint64_t totalSamples = 0; // samples[0] * samples[1] * samples[2] (< 2^32)
};

// The grid that covers [bounds.min - padding, bounds.max + padding] with
// samples spaced exactly voxelSize apart (boundsMin <= min - padding,
// boundsMax >= max + padding; at least 2 samples per axis). Pass the kernel
// support as padding so no particle's kernel is cut by the border and the
// surface closes. Errors (messages name the value): empty bounds (no
// particles), non-finite bounds, voxelSize not finite or <= 0, padding not
// finite or < 0, bounds that leave float range, more than 2^32 - 1 samples
// per axis or in total, more than options.maxSamples.
Result<ParticleGrid> particleGrid(const ParticleBounds& bounds, float voxelSize, float padding,
                                  const ParticleGridOptions& options = {});

// splashsurf's default smoothing length (particle radii).
inline constexpr float kDefaultSmoothingLength = 2.f;
// splashsurf's default surface threshold (fraction of the rest density).
inline constexpr float kDefaultSurfaceThreshold = 0.6f;
// Largest smoothing length particleRestDensity sums (about 4/3 pi L^3 terms).
inline constexpr float kMaxSmoothingLength = 64.f;

// Kernel support radius h = 2 L r in world units for particle radius r and
// smoothing length L (radii): the value for IsoSurfaceCreateInfo::particleRadius
// and the padding for particleGrid. No checks (use particleRestDensity or
// particleIsoValue to validate L).
inline float kernelSupportRadius(float particleRadius, float smoothingLength = kDefaultSmoothingLength) {
    return 2.f * smoothingLength * particleRadius;
}

// Rest density: the field the module's kernel gives at a particle of an
// infinite cubic lattice of spacing 2r (a fluid at rest) when every particle
// has weight `weight`, i.e. weight * sum over integer n with |n| < L of
// (1 - |n|^2 / L^2)^3 (the lattice point n sits at distance 2r|n| and
// h = 2Lr, so r cancels). Exact sum in double; the GPU's fixed point gives
// at most (terms / 65536) less. L = 2: 5.15625 (1 + 6 (3/4)^3 + 12 (1/2)^3 +
// 8 (1/4)^3); L <= 1: 1 (only the particle itself). Errors: L not finite,
// <= 0 or > kMaxSmoothingLength; weight not finite or <= 0.
Result<double> particleRestDensity(float smoothingLength = kDefaultSmoothingLength, float weight = 1.f);

// Iso value for IsoSurfaceCreateInfo::isoValue from splashsurf's surface
// threshold T (fraction of the rest density; 0.6 by default there):
// T * particleRestDensity(L, weight). Errors: those of particleRestDensity,
// T not finite or <= 0.
Result<float> particleIsoValue(float surfaceThreshold = kDefaultSurfaceThreshold,
                               float smoothingLength = kDefaultSmoothingLength, float weight = 1.f);

// CPU evaluation of the field the GPU computes at point p for particles xyz
// (triples), all of weight `weight`, kernel support supportRadius: the same
// float formula and 16.16 truncation per term as particles_splat.comp (the
// GPU's 32-bit sum wraps past 65536; this one does not). For tests and
// checks on small sets: O(particles).
double particleFieldAt(const std::array<float, 3>& p, std::span<const float> xyz, float supportRadius,
                       float weight = 1.f);

} // namespace pyramarch::iso
