// Voxelizer reliability: determinism of the final outputs, limits named at
// creation, out-of-device-memory during creation at many budgets.
//
// Not deterministic, by design (documented in modules/voxelizer/README.md):
// the order of the voxel-fragment list (fragment-shader invocations append
// with an atomic counter) and so the tile index each octree node gets (tiles
// are allocated with an atomic counter per level). Deterministic, and tested:
// the fragment *set*, the sorted leaves with their merged colours, counts and
// normals (integer sums, order independent), and the per-level node counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <mutex>
#include <random>
#include <set>
#include <tuple>

#include "device_lost_hook.h"
#include "pyramarch/engine/device.h"
#include "pyramarch/engine/memory.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/voxelizer/shapes.h"
#include "pyramarch/voxelizer/voxelizer.h"
#include "support/gpu_test.h"
#include "voxel_reference.h"

using namespace pyramarch;
using namespace pyramarch::voxel;

namespace {

struct VoxOutput {
    VoxelStats stats;
    std::vector<VoxelFragment> fragments;
    std::vector<LeafVoxel> leaves;
};

auto fragTuple(const VoxelFragment& f) { return std::tuple(f.z, f.y, f.x, f.triangle, f.color, f.packedNormal); }
auto leafTuple(const LeafVoxel& l) {
    return std::tuple(l.z, l.y, l.x, l.color, l.count, l.normal[0], l.normal[1], l.normal[2]);
}

class VoxelReliability : public test::GpuTest {
protected:
    VoxelizerCreateInfo createInfo() {
        VoxelizerCreateInfo ci;
        ci.maxResolution = 48;
        ci.maxVertices = 1 << 14;
        ci.maxTriangles = 1 << 14;
        ci.fragmentCapacity = 1 << 18;
        ci.tileCapacity = 1 << 14;
        ci.method = ConservativeMethod::GeometryShader;
        return ci;
    }
    TriangleMesh mesh() {
        TriangleMesh m = shapes::torusKnot({0, 0, 0}, 1.f, 0.3f, 2, 3, 128, 12);
        shapes::colorByPosition(m);
        return m;
    }
    VoxOutput run(Device& d, const VoxelizerCreateInfo& ci, const TriangleMesh& m, int frames = 1) {
        VoxOutput out;
        auto v = Voxelizer::create(d, ci);
        EXPECT_TRUE(v.ok()) << v.message();
        if (!v) return out;
        auto grid = defaultGrid(m, 40);
        EXPECT_TRUE(grid.ok()) << grid.message();
        for (int f = 0; f < frames; ++f) {
            EXPECT_OK((*v)->setMesh(m, *grid));
            Status rec;
            EXPECT_OK(submitAndWait(d, [&](VkCommandBuffer cmd) { rec = (*v)->record(cmd); }));
            EXPECT_OK(rec);
        }
        auto s = (*v)->readStats();
        EXPECT_TRUE(s.ok()) << s.message();
        if (s) out.stats = *s;
        auto fr = (*v)->readFragments();
        EXPECT_TRUE(fr.ok()) << fr.message();
        if (fr) out.fragments = std::move(fr).value();
        auto t = (*v)->readOctree();
        EXPECT_TRUE(t.ok()) << t.message();
        if (t) out.leaves = extractLeaves(*t);
        return out;
    }
};

} // namespace

TEST_F(VoxelReliability, SortedLeavesAndMergedColoursAreDeterministic) {
    const TriangleMesh m = mesh();
    const VoxOutput a = run(device(), createInfo(), m);
    const VoxOutput b = run(device(), createInfo(), m);
    const VoxOutput c = run(device(), createInfo(), m, 3);
    ASSERT_GT(a.leaves.size(), 500u);
    ASSERT_FALSE(a.stats.fragmentOverflow);
    ASSERT_FALSE(a.stats.tileOverflow);
    for (const VoxOutput* o : {&b, &c}) {
        ASSERT_EQ(o->leaves.size(), a.leaves.size());
        for (size_t i = 0; i < a.leaves.size(); ++i)
            ASSERT_EQ(leafTuple(o->leaves[i]), leafTuple(a.leaves[i])) << "leaf " << i;
        EXPECT_EQ(o->stats.fragmentsNeeded, a.stats.fragmentsNeeded);
        EXPECT_EQ(o->stats.tilesNeeded, a.stats.tilesNeeded);
        for (int l = 0; l < 11; ++l) EXPECT_EQ(o->stats.levelNodes[l], a.stats.levelNodes[l]) << "level " << l;
        // The fragment list is a set: same content, order free.
        auto fa = a.fragments, fo = o->fragments;
        auto less = [](const VoxelFragment& x, const VoxelFragment& y) { return fragTuple(x) < fragTuple(y); };
        std::sort(fa.begin(), fa.end(), less);
        std::sort(fo.begin(), fo.end(), less);
        ASSERT_EQ(fa.size(), fo.size());
        for (size_t i = 0; i < fa.size(); ++i) ASSERT_EQ(fragTuple(fa[i]), fragTuple(fo[i])) << "fragment " << i;
    }
}

TEST_F(VoxelReliability, LeavesDoNotDependOnTriangleOrder) {
    // The same triangles in another order reach the leaves in another
    // fragment order: a merge that rounds per step (a moving average) would
    // give other colours. Leaves must come out identical, colours included.
    // Strongly coloured, overlapping geometry so leaves merge many colours.
    TriangleMesh m = mesh();
    shapes::append(m, shapes::torus({0.1f, 0.f, 0.f}, 0.9f, 0.35f, 96, 32));
    std::mt19937 rng(5);
    m.colors.resize(m.positions.size());
    for (uint32_t& c : m.colors) c = packRGBA8(rng() & 255u, rng() & 255u, rng() & 255u);
    const TriangleMesh shuffled = ref::shuffledTriangles(m, rng());
    const VoxOutput a = run(device(), createInfo(), m);
    const VoxOutput b = run(device(), createInfo(), shuffled);
    ASSERT_GT(a.leaves.size(), 500u);
    ASSERT_FALSE(a.stats.fragmentOverflow);
    size_t multi = 0;
    for (const LeafVoxel& l : a.leaves) multi += l.count > 2;
    ASSERT_GT(multi, 100u) << "the test needs leaves that merge several fragments";
    ASSERT_EQ(a.leaves.size(), b.leaves.size());
    size_t differ = 0;
    for (size_t i = 0; i < a.leaves.size(); ++i) {
        if (leafTuple(a.leaves[i]) == leafTuple(b.leaves[i]) || ++differ > 5) continue;
        ADD_FAILURE() << "leaf (" << a.leaves[i].x << "," << a.leaves[i].y << "," << a.leaves[i].z << ") colour "
                      << std::hex << a.leaves[i].color << " vs " << b.leaves[i].color << std::dec << ", count "
                      << a.leaves[i].count << " vs " << b.leaves[i].count;
    }
    EXPECT_EQ(differ, 0u) << "of " << a.leaves.size() << " leaves";
}

TEST_F(VoxelReliability, RequestsBeyondDeviceLimitsNameTheLimit) {
    const AllocatorStats before = device().allocator().stats();
    auto expectNamed = [&](const VoxelizerCreateInfo& ci, const char* field, const char* limit) {
        auto r = Voxelizer::create(device(), ci);
        ASSERT_FALSE(r.ok()) << field;
        EXPECT_NE(r.message().find(field), std::string::npos) << r.message();
        if (limit) {
            EXPECT_NE(r.message().find(limit), std::string::npos) << r.message();
        }
    };
    VoxelizerCreateInfo ci = createInfo();
    ci.maxResolution = 4096;
    expectNamed(ci, "maxResolution", nullptr);
    ci = createInfo();
    ci.fragmentCapacity = 0xFFFFFFFFu;
    expectNamed(ci, "fragmentCapacity", "maxStorageBufferRange");
    ci = createInfo();
    ci.tileCapacity = 0xFFFFFFFFu;
    expectNamed(ci, "tileCapacity", "maxStorageBufferRange");
    ci = createInfo();
    ci.denseMaxVoxels = ~0ull;
    expectNamed(ci, "denseMaxVoxels", "maxStorageBufferRange");
    ci = createInfo();
    ci.maxVertices = 0xFFFFFFFFu;
    ci.maxTriangles = 0xFFFFFFFFu;
    auto r = Voxelizer::create(device(), ci);
    EXPECT_FALSE(r.ok()) << "4 Gi vertices accepted";
    const AllocatorStats after = device().allocator().stats();
    EXPECT_EQ(after.liveAllocations, before.liveAllocations);
    EXPECT_EQ(after.allocatedBytes, before.allocatedBytes);
}

TEST_F(VoxelReliability, OutOfDeviceMemoryDuringCreationAtEveryBudget) {
    test::ValidationLog log;
    DeviceCreateInfo dci = test::validatedDeviceInfo("pyramarch-vox-exhaustion", log);
    dci.requirements.geometryShader = true;
    {
        auto created = Device::create(dci);
        ASSERT_OK(created);
        Device& d = **created;
        Allocator& alloc = d.allocator();
        const VoxelizerCreateInfo big = createInfo();
        uint32_t failures = 0;
        bool fit = false;
        uint64_t budget = 512;
        for (int step = 0; step < 120 && !fit; ++step, budget = budget * 6 / 5 + 64) {
            SCOPED_TRACE("budget " + std::to_string(budget));
            alloc.setBudget(budget);
            auto r = Voxelizer::create(d, big);
            if (r.ok()) {
                fit = true;
                break;
            }
            ++failures;
            EXPECT_EQ(r.status().vkResult(), VK_ERROR_OUT_OF_DEVICE_MEMORY) << r.message();
            const AllocatorStats s = alloc.stats();
            EXPECT_EQ(s.liveAllocations, 0u);
            EXPECT_EQ(s.allocatedBytes, 0u);
        }
        EXPECT_TRUE(fit) << "never fit, last budget " << budget;
        EXPECT_GE(failures, 3u);
        // Smaller settings fit where the big one did not.
        alloc.setBudget(budget * 5 / 6 / 2);
        VoxelizerCreateInfo small = big;
        small.maxResolution = 16;
        small.fragmentCapacity = 1 << 12;
        small.tileCapacity = 1 << 8;
        small.maxVertices = small.maxTriangles = 1 << 10;
        auto s = Voxelizer::create(d, small);
        EXPECT_OK(s);
        s = Status::error(ErrorCode::InvalidState, "released");
        alloc.setBudget(0);
    }
    for (const auto& m : log.take()) ADD_FAILURE() << "validation: " << m;
}

TEST_F(VoxelReliability, ReadBacksReportDeviceLoss) {
    std::string error;
    auto hooked = test::adoptWithLossHook(device(), error);
    ASSERT_TRUE(hooked) << error;
    VoxelizerCreateInfo ci = createInfo();
    ci.denseMaxVoxels = 48 * 48 * 48;
    auto v = Voxelizer::create(*hooked, ci);
    ASSERT_OK(v);
    const TriangleMesh m = mesh();
    auto grid = defaultGrid(m, 40);
    ASSERT_OK(grid);
    ASSERT_OK((*v)->setMesh(m, *grid));
    Status rec;
    ASSERT_OK(submitAndWait(*hooked, [&](VkCommandBuffer cmd) { rec = (*v)->record(cmd); }));
    ASSERT_OK(rec);
    const std::pair<const char*, std::function<Status()>> ops[] = {
        {"readStats", [&] { return (*v)->readStats().status(); }},
        {"readFragments", [&] { return (*v)->readFragments().status(); }},
        {"readOctree", [&] { return (*v)->readOctree().status(); }},
        {"readDenseGrid", [&] { return (*v)->readDenseGrid().status(); }},
    };
    for (const auto& [what, op] : ops) {
        for (test::Inject where : {test::Inject::Submit, test::Inject::Wait}) {
            SCOPED_TRACE(std::string(what) +
                         (where == test::Inject::Submit ? " (vkQueueSubmit)" : " (vkWaitForFences)"));
            const int before = test::g_injected;
            test::g_inject = where;
            const Status s = op();
            test::g_inject = test::Inject::None;
            EXPECT_GT(test::g_injected.load(), before) << "the hook was not reached";
            ASSERT_FALSE(s.ok()) << "device loss swallowed";
            EXPECT_EQ(s.vkResult(), VK_ERROR_DEVICE_LOST) << s.message();
        }
        EXPECT_OK(op());
    }
    v = Status::error(ErrorCode::InvalidState, "released");
}
