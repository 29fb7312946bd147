#pragma once
// The GPU iso-surface tests' fixture: a surface from a create-info (with the
// module's test knobs), and one recorded frame, submitted and waited for.
#include <gtest/gtest.h>

#include <cstddef>
#include <memory>

#include "pyramarch/engine/transfer.h"
#include "pyramarch/isosurface/isosurface.h"
#include "pyramarch/isosurface/testing.h"
#include "support/gpu_test.h"

namespace pyramarch::iso {

// Particles read from a host GPU buffer of `Record`s (ParticleInput::GpuBuffer):
// x/y/z at its `position` member, the weight its `mass`.
template <class Record>
void useParticleRecords(IsoSurfaceCreateInfo& info, const Buffer& records) {
    info.particleInput = ParticleInput::GpuBuffer;
    info.particleBuffer = &records;
    info.particleStride = sizeof(Record);
    info.particlePositionOffset = offsetof(Record, position);
    info.particleWeightOffset = offsetof(Record, mass);
}

class IsoSurfaceTest : public test::GpuTest {
protected:
    std::unique_ptr<IsoSurface> make(const IsoSurfaceCreateInfo& info, testing::Knobs knobs = {}) {
        auto r = testing::create(device(), info, knobs);
        EXPECT_TRUE(r.ok()) << r.message();
        if (!r) return nullptr;
        return std::move(r).value();
    }
    // The dense twin of a patch-list surface (Knobs::denseClassify): the
    // reference the empty-space-skipping tests compare bit for bit; it has
    // no list.
    std::unique_ptr<IsoSurface> makeDense(const IsoSurfaceCreateInfo& info) {
        testing::Knobs dense;
        dense.denseClassify = true;
        auto s = make(info, dense);
        if (s) {
            EXPECT_FALSE(testing::readPatchList(*s).ok()) << "the dense path has no list";
        }
        return s;
    }
    // Records and runs one frame, waiting for it.
    void frame(IsoSurface& iso) {
        Status inner;
        Status s = submitAndWait(device(), [&](VkCommandBuffer cmd) { inner = iso.record(cmd); });
        ASSERT_TRUE(s.ok()) << s.message();
        ASSERT_TRUE(inner.ok()) << inner.message();
    }
};

} // namespace pyramarch::iso
