// Particle grid and splashsurf conventions (particle_grid.h). Pure functions.
#include "pyramarch/isosurface/particle_grid.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "isosurface/iso_shared.h"

namespace pyramarch::iso {

namespace {

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

std::string axes(const std::array<float, 3>& v) { return "(" + num(v[0]) + ", " + num(v[1]) + ", " + num(v[2]) + ")"; }

} // namespace

ParticleBounds particleBounds(std::span<const float> xyz) {
    ParticleBounds b;
    for (size_t i = 0; i + 2 < xyz.size(); i += 3) b.add(xyz[i], xyz[i + 1], xyz[i + 2]);
    return b;
}

Result<ParticleGrid> particleGrid(const ParticleBounds& bounds, float voxelSize, float padding,
                                  const ParticleGridOptions& options) {
    const char* who = "particle grid: ";
    for (int k = 0; k < 3; ++k)
        if (!std::isfinite(bounds.min[k]) || !std::isfinite(bounds.max[k])) {
            if (bounds.empty() && std::isinf(bounds.min[k]) && std::isinf(bounds.max[k]))
                return Status::error(ErrorCode::InvalidArgument,
                                     std::string(who) + "the bounds are empty (no particles)");
            return Status::error(ErrorCode::InvalidArgument, std::string(who) + "bounds " + axes(bounds.min) + " - " +
                                                                 axes(bounds.max) + " are not finite");
        }
    if (bounds.empty())
        return Status::error(ErrorCode::InvalidArgument,
                             std::string(who) + "bounds min " + axes(bounds.min) + " exceeds max " + axes(bounds.max));
    if (!std::isfinite(voxelSize) || !(voxelSize > 0.f))
        return Status::error(ErrorCode::InvalidArgument,
                             std::string(who) + "voxel size " + num(voxelSize) + " must be finite and > 0");
    if (!std::isfinite(padding) || !(padding >= 0.f))
        return Status::error(ErrorCode::InvalidArgument,
                             std::string(who) + "padding " + num(padding) + " must be finite and >= 0");

    static constexpr char kAxis[3] = {'x', 'y', 'z'};
    const double v = voxelSize;
    const uint64_t hardLimit = std::numeric_limits<uint32_t>::max();
    const uint64_t limit = std::min(options.maxSamples, hardLimit);
    ParticleGrid g;
    g.voxelSize = voxelSize;
    for (int k = 0; k < 3; ++k) {
        double lo = double(bounds.min[k]) - padding;
        const double hi = double(bounds.max[k]) + padding;
        if (options.alignToVoxel) lo = std::floor(lo / v) * v;
        // Rounded down (and the last sample up) so the grid covers
        // [min - padding, max + padding] exactly, not up to float rounding.
        float loF = float(lo);
        if (double(loF) > lo) loF = std::nextafter(loF, -std::numeric_limits<float>::infinity());
        if (!std::isfinite(loF) || !std::isfinite(float(hi)))
            return Status::error(ErrorCode::InvalidArgument, std::string(who) + kAxis[k] + " bounds padded by " +
                                                                 num(padding) + " leave float range");
        // Cells from the float origin the GPU will see, so the last sample
        // still reaches hi.
        const double cells = std::max(1.0, std::ceil((hi - double(loF)) / v));
        if (!(cells < double(hardLimit)))
            return Status::error(ErrorCode::InvalidArgument, std::string(who) + kAxis[k] + " extent " + num(hi - lo) +
                                                                 " at voxel size " + num(v) + " needs " +
                                                                 num(cells + 1) + " samples, more than 2^32 - 1");
        const double maxD = double(loF) + cells * v;
        float maxF = float(maxD);
        if (double(maxF) < hi) maxF = std::nextafter(maxF, std::numeric_limits<float>::infinity());
        if (!std::isfinite(maxF))
            return Status::error(ErrorCode::InvalidArgument, std::string(who) + kAxis[k] + " bounds padded by " +
                                                                 num(padding) + " leave float range");
        g.samples[size_t(k)] = uint32_t(cells) + 1;
        g.boundsMin[size_t(k)] = loF;
        g.boundsMax[size_t(k)] = maxF;
    }
    // At most (2^32 - 1)^3: fits in 128 bits, checked stepwise in 64.
    const uint64_t sx = g.samples[0], sy = g.samples[1], sz = g.samples[2];
    const std::string dims = std::to_string(sx) + " x " + std::to_string(sy) + " x " + std::to_string(sz);
    if (sx * sy > hardLimit || sx * sy * sz > hardLimit)
        return Status::error(ErrorCode::InvalidArgument,
                             std::string(who) + dims + " samples (voxel size " + num(v) + ") exceed 2^32 - 1 samples");
    g.totalSamples = sx * sy * sz;
    if (g.totalSamples > limit)
        return Status::error(ErrorCode::InvalidArgument, std::string(who) + dims + " = " +
                                                             std::to_string(g.totalSamples) + " samples (voxel size " +
                                                             num(v) + ") exceed the limit of " + std::to_string(limit) +
                                                             " samples (maxSamples)");
    return g;
}

Result<double> particleRestDensity(float smoothingLength, float weight) {
    const float L = smoothingLength;
    if (!std::isfinite(L) || !(L > 0.f) || L > kMaxSmoothingLength)
        return Status::error(ErrorCode::InvalidArgument, "smoothing length " + num(L) + " must be finite, > 0 and <= " +
                                                             num(kMaxSmoothingLength) + " (particle radii)");
    if (!std::isfinite(weight) || !(weight > 0.f))
        return Status::error(ErrorCode::InvalidArgument, "particle weight " + num(weight) + " must be finite and > 0");
    // Lattice points n (spacing 2r) inside the support 2Lr: |n| < L.
    const double l2 = double(L) * double(L);
    const int reach = int(std::ceil(double(L)));
    double sum = 0.0;
    for (int z = -reach; z <= reach; ++z)
        for (int y = -reach; y <= reach; ++y)
            for (int x = -reach; x <= reach; ++x) {
                const double q = double(x * x + y * y + z * z) / l2;
                if (q >= 1.0) continue;
                const double k = 1.0 - q;
                sum += k * k * k;
            }
    return sum * double(weight);
}

Result<float> particleIsoValue(float surfaceThreshold, float smoothingLength, float weight) {
    if (!std::isfinite(surfaceThreshold) || !(surfaceThreshold > 0.f))
        return Status::error(ErrorCode::InvalidArgument,
                             "surface threshold " + num(surfaceThreshold) +
                                 " must be finite and > 0 (a fraction of the rest density)");
    auto rest = particleRestDensity(smoothingLength, weight);
    if (!rest) return rest.status();
    return float(double(surfaceThreshold) * *rest);
}

double particleFieldAt(const std::array<float, 3>& p, std::span<const float> xyz, float supportRadius, float weight) {
    // As particles_splat.comp: invR2 from the host (IsoGrid.particle.y),
    // q = dot(d, d) * invR2, k = 1 - q, add = uint(min(w k^3 * one, 4e9)).
    const float invR2 = 1.f / (supportRadius * supportRadius);
    const float one = float(gpu::kIsoSplatFixedOne);
    uint64_t sum = 0;
    for (size_t i = 0; i + 2 < xyz.size(); i += 3) {
        const float dx = p[0] - xyz[i], dy = p[1] - xyz[i + 1], dz = p[2] - xyz[i + 2];
        const float q = (dx * dx + dy * dy + dz * dz) * invR2;
        if (!(q < 1.f)) continue;
        const float k = 1.f - q;
        sum += uint64_t(std::min(weight * k * k * k * one, 4.0e9f));
    }
    return double(sum) / double(gpu::kIsoSplatFixedOne);
}

} // namespace pyramarch::iso
