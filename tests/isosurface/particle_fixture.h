#pragma once
// Shared by the particle smoothing, anisotropy and mesh smoothing tests (on IsoSurfaceTest's
// surface and frame helpers): the check that the same
// particles give the same field and vertices, bit for bit, frame after
// frame and in a second instance (the sort's order must never reach the
// output).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "iso_fixture.h"
#include "pyramarch/isosurface/particle_grid.h"

namespace pyramarch::iso {

// Particles of spacing s on a lattice jittered by up to +-jitter s per axis
// (a fixed generator), keeping those whose lattice point is inside.
template <class Inside>
inline std::vector<std::array<float, 3>> jitteredLattice(float s, float jitter, std::array<float, 3> lo,
                                                         std::array<float, 3> hi, Inside inside) {
    std::vector<std::array<float, 3>> out;
    uint32_t state = 12345u;
    auto next = [&] {
        state = state * 1664525u + 1013904223u;
        return float(state >> 8) / float(1u << 24);
    };
    for (float z = lo[2]; z <= hi[2] + 1e-4f; z += s)
        for (float y = lo[1]; y <= hi[1] + 1e-4f; y += s)
            for (float x = lo[0]; x <= hi[0] + 1e-4f; x += s) {
                const std::array<float, 3> p{x, y, z};
                const float jx = next(), jy = next(), jz = next();
                if (!inside(p)) continue;
                out.push_back({x + (jx * 2.f - 1.f) * jitter * s, y + (jy * 2.f - 1.f) * jitter * s,
                               z + (jz * 2.f - 1.f) * jitter * s});
            }
    return out;
}

// Create-info of the surface of `xyz` as `pyramarch iso --particles` makes
// it: particle radius s/2, smoothing length 2 (support 2 s), voxel s/2,
// threshold 0.6, the grid fitted to the particles.
inline IsoSurfaceCreateInfo cliParticleSurfaceInfo(const std::vector<std::array<float, 3>>& xyz, float s) {
    const float r = s / 2.f;
    const float support = kernelSupportRadius(r, kDefaultSmoothingLength);
    ParticleBounds b;
    for (int k = 0; k < 3; ++k) {
        b.min[k] = INFINITY;
        b.max[k] = -INFINITY;
    }
    for (const auto& p : xyz)
        for (int k = 0; k < 3; ++k) {
            b.min[k] = std::min(b.min[k], p[k]);
            b.max[k] = std::max(b.max[k], p[k]);
        }
    auto grid = particleGrid(b, s / 2.f, support);
    EXPECT_TRUE(grid.ok()) << grid.message();
    IsoSurfaceCreateInfo info;
    info.source = FieldSource::Particles;
    if (grid.ok()) {
        info.samples = grid->samples;
        info.boundsMin = grid->boundsMin;
        info.boundsMax = grid->boundsMax;
    }
    info.maxParticles = uint32_t(xyz.size());
    info.particleRadius = support;
    info.isoValue = particleIsoValue(kDefaultSurfaceThreshold, kDefaultSmoothingLength).value();
    return info;
}

class IsoParticleTest : public IsoSurfaceTest {
public:
    void runFrame(IsoSurface& iso) { frame(iso); }

protected:
    void expectBitIdenticalOverFramesAndInstances(const IsoSurfaceCreateInfo& info,
                                                  const std::vector<Particle>& particles) {
        std::vector<float> firstField;
        std::vector<IsoVertexData> firstVerts;
        for (int instance = 0; instance < 2; ++instance) {
            std::unique_ptr<IsoSurface> iso = make(info);
            ASSERT_TRUE(iso);
            for (int f = 0; f < 3; ++f) {
                ASSERT_TRUE(iso->setParticles(particles).ok());
                frame(*iso);
                auto field = iso->readField();
                auto verts = iso->readVertices();
                ASSERT_TRUE(field.ok() && verts.ok());
                if (firstField.empty()) {
                    firstField = field.value();
                    firstVerts = verts.value();
                    ASSERT_FALSE(firstVerts.empty());
                    continue;
                }
                ASSERT_EQ(field.value().size(), firstField.size());
                EXPECT_EQ(std::memcmp(field.value().data(), firstField.data(), firstField.size() * 4), 0)
                    << "instance " << instance << " frame " << f;
                ASSERT_EQ(verts.value().size(), firstVerts.size());
                EXPECT_EQ(
                    std::memcmp(verts.value().data(), firstVerts.data(), firstVerts.size() * sizeof(IsoVertexData)), 0)
                    << "instance " << instance << " frame " << f;
            }
        }
    }
};

} // namespace pyramarch::iso
