#pragma once
// Shared by the particle smoothing and anisotropy tests (on IsoSurfaceTest's
// surface and frame helpers): the check that the same
// particles give the same field and vertices, bit for bit, frame after
// frame and in a second instance (the sort's order must never reach the
// output).
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "iso_fixture.h"

namespace pyramarch::iso {

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
