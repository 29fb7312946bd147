#pragma once
// The GPU iso-surface tests' fixture: a surface from a create-info (with the
// module's test knobs), and one recorded frame, submitted and waited for.
#include <gtest/gtest.h>

#include <memory>

#include "pyramarch/engine/transfer.h"
#include "pyramarch/isosurface/isosurface.h"
#include "pyramarch/isosurface/testing.h"
#include "support/gpu_test.h"

namespace pyramarch::iso {

class IsoSurfaceTest : public test::GpuTest {
protected:
    std::unique_ptr<IsoSurface> make(const IsoSurfaceCreateInfo& info, testing::Knobs knobs = {}) {
        auto r = testing::create(device(), info, knobs);
        EXPECT_TRUE(r.ok()) << r.message();
        if (!r) return nullptr;
        return std::move(r).value();
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
