#pragma once
// The GPU iso-surface tests' fixture: a surface from a create-info (with the
// module's test knobs), and one recorded frame, submitted and waited for.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

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
    // The tests of the cell-order grid's own structures (run bounds, the
    // scan's classify) set it: the scan is the only path left in cell order,
    // so every surface they make runs the scan.
    bool cellOrder = false;
    // The measured variants (testing::Knobs) of the surfaces make() creates
    // where the knobs given keep the defaults.
    testing::ExtractionMethod extraction = testing::ExtractionMethod::HistoPyramid;
    testing::SplatMethod splat = testing::SplatMethod::Auto;
    testing::FieldEvaluation fieldEvaluation = testing::FieldEvaluation::Auto;
    // Knobs::extractMinGroups where the knobs given keep 0 (1: every surface
    // extracts in the device's longest runs).
    uint32_t extractMinGroups = 0;
    std::unique_ptr<IsoSurface> make(const IsoSurfaceCreateInfo& info, testing::Knobs knobs = {}) {
        withVariants(knobs);
        if (cellOrder) knobs.extraction = testing::ExtractionMethod::Scan;
        auto r = testing::create(device(), info, knobs);
        EXPECT_TRUE(r.ok()) << r.message();
        if (!r) return nullptr;
        return std::move(r).value();
    }
    // make() with the variants IsoSurface::create runs, whatever this test's.
    std::unique_ptr<IsoSurface> makeDefault(const IsoSurfaceCreateInfo& info, testing::Knobs knobs = {}) {
        const auto kept = std::tuple(extraction, splat, fieldEvaluation);
        extraction = testing::ExtractionMethod::HistoPyramid;
        splat = testing::SplatMethod::Auto;
        fieldEvaluation = testing::FieldEvaluation::Auto;
        auto s = make(info, knobs);
        std::tie(extraction, splat, fieldEvaluation) = kept;
        return s;
    }
    // `knobs` with this test's measured variants where they keep the defaults.
    testing::Knobs& withVariants(testing::Knobs& knobs) const {
        if (knobs.extraction == testing::ExtractionMethod::HistoPyramid) knobs.extraction = extraction;
        if (knobs.splat == testing::SplatMethod::Auto) knobs.splat = splat;
        if (knobs.fieldEvaluation == testing::FieldEvaluation::Auto) knobs.fieldEvaluation = fieldEvaluation;
        if (knobs.extractMinGroups == 0) knobs.extractMinGroups = extractMinGroups;
        return knobs;
    }
    // Records and runs one frame, waiting for it.
    void frame(IsoSurface& iso) {
        Status inner;
        Status s = submitAndWait(device(), [&](VkCommandBuffer cmd) { inner = iso.record(cmd); });
        ASSERT_TRUE(s.ok()) << s.message();
        ASSERT_TRUE(inner.ok()) << inner.message();
    }
    // Vertex and index buffers written through several storage bindings
    // (Knobs::outputSliceBytes: the slices of a buffer past one
    // maxStorageBufferRange, on a small surface): the vertices, indices,
    // draw args and stats are bit for bit those of the one-binding surface,
    // with capacities sized to the surface (so the writes reach the last
    // slices) and with capacities that run out half way. `feed` gives a
    // surface its input (balls, a volume) before its frames. Sparse domains
    // too: their pool order is fixed, so their buffers compare byte for byte.
    void expectOutputSlicesMatch(IsoSurfaceCreateInfo info, const std::function<void(IsoSurface&)>& feed,
                                 testing::Knobs knobs = {}, uint32_t frames = 1) {
        auto run = [&](const IsoSurfaceCreateInfo& ci, const testing::Knobs& k) {
            auto s = make(ci, k);
            if (s) {
                feed(*s);
                for (uint32_t f = 0; f < frames; ++f) frame(*s);
            }
            return s;
        };
        auto probe = run(info, knobs);
        ASSERT_TRUE(probe);
        const auto needed = probe->statsOfFrame(probe->framesRecorded() - 1);
        ASSERT_TRUE(needed.has_value());
        ASSERT_GT(needed->verticesNeeded, 30u) << "the surface should span several slices";
        for (const bool short_ : {false, true}) {
            SCOPED_TRACE(short_ ? "capacities run out" : "capacities fit");
            const uint32_t vertices = needed->verticesNeeded, indices = needed->indicesNeeded;
            // Indexed: the vertices fit, the indices run out (a frame whose
            // vertices overflow writes no indices).
            info.vertexCapacity = short_ && !info.indexed ? vertices / 2 : vertices + 3;
            if (info.indexed) info.indexCapacity = short_ ? indices / 2 : indices + 3;
            // About 10 bindings for the larger buffer.
            testing::Knobs sliced = knobs;
            sliced.outputSliceBytes =
                std::max<uint64_t>(std::max<uint64_t>(uint64_t(info.vertexCapacity) * 32,
                                                      info.indexed ? uint64_t(info.indexCapacity) * 4 : 0) /
                                       10,
                                   256);
            auto one = run(info, knobs);
            auto many = run(info, sliced);
            ASSERT_TRUE(one && many);
            auto bindingsOf = [](const IsoSurface& s, const std::string& name) {
                for (const IsoSurface::MemoryItem& m : s.memoryReport())
                    if (m.name == name) return m.bindings;
                return 0u;
            };
            EXPECT_EQ(bindingsOf(*one, "vertices"), 1u);
            EXPECT_GE(bindingsOf(*many, "vertices"), info.indexed ? 2u : 8u);
            if (info.indexed) {
                EXPECT_GE(bindingsOf(*many, "indices"), 2u);
            }
            const auto sa = one->statsOfFrame(one->framesRecorded() - 1);
            const auto sb = many->statsOfFrame(many->framesRecorded() - 1);
            ASSERT_TRUE(sa && sb);
            EXPECT_EQ(sa->verticesNeeded, sb->verticesNeeded);
            EXPECT_EQ(sa->verticesWritten, sb->verticesWritten);
            EXPECT_EQ(sa->indicesNeeded, sb->indicesNeeded);
            EXPECT_EQ(sa->indicesWritten, sb->indicesWritten);
            EXPECT_EQ(sa->overflow, sb->overflow);
            EXPECT_EQ(sa->overflow, short_);
            auto va = one->readVertices(), vb = many->readVertices();
            ASSERT_TRUE(va.ok() && vb.ok());
            ASSERT_EQ(va.value().size(), vb.value().size());
            EXPECT_GT(va.value().size(), 0u);
            std::vector<uint32_t> ia, ib;
            if (info.indexed) {
                auto ra = one->readIndices(), rb = many->readIndices();
                ASSERT_TRUE(ra.ok() && rb.ok());
                ia = std::move(ra).value();
                ib = std::move(rb).value();
                ASSERT_EQ(ia.size(), ib.size());
                if (!short_) {
                    EXPECT_EQ(ia.size(), indices);
                }
            }
            EXPECT_TRUE(va.value().empty() || std::memcmp(va.value().data(), vb.value().data(),
                                                          va.value().size() * sizeof(IsoVertexData)) == 0);
            EXPECT_EQ(ia, ib);
            auto aa = testing::readDrawArgs(*one), ab = testing::readDrawArgs(*many);
            ASSERT_TRUE(aa.ok() && ab.ok());
            EXPECT_EQ(aa.value(), ab.value());
        }
    }
};

} // namespace pyramarch::iso
