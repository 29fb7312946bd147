// Out of memory at every Vulkan allocation, not only at a budget: creation
// of an IsoSurface of every field source, of a SurfaceRenderer and of a
// Voxelizer, and their first frame (record()/execute() create descriptor
// pools, buffer views and graph buffers, the read-back its command pool and
// fence), each
// vkCreate*/vkAllocate* call failed in turn through a loader hook
// (alloc_failure_hook.h). Each failure must come back as
// ErrorCode::OutOfMemory with VK_ERROR_OUT_OF_DEVICE_MEMORY, release every
// object made before it (the hook counts them), and leave the instance able
// to run the next frame with the result of an undisturbed run.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "alloc_failure_hook.h"
#include "pyramarch/engine/device.h"
#include "pyramarch/engine/memory.h"
#include "pyramarch/engine/render_graph.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/isosurface/isosurface.h"
#include "pyramarch/isosurface/surface_renderer.h"
#include "support/gpu_test.h"
#if PYRAMARCH_HAVE_SHADER_COMPILER
#include "pyramarch/engine/shader_compiler.h"
#endif
#if PYRAMARCH_HAVE_VOXELIZER
#include "pyramarch/voxelizer/field.h"
#include "pyramarch/voxelizer/iso_bridge.h"
#include "pyramarch/voxelizer/shapes.h"
#include "pyramarch/voxelizer/voxelizer.h"
#endif

using namespace pyramarch;
using test::AllocFailure;

namespace {

// Something the module made (an IsoSurface, or one with its renderer and
// graph) and the frame it runs: a Status and what the frame produced.
struct Subject {
    virtual ~Subject() = default;
    virtual Status frame(std::vector<float>& result) = 0;
};

class AllocFailureTest : public test::GpuTest {
protected:
    void SetUp() override {
        GpuTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        std::string error;
        hooked_ = test::adoptWithAllocFailureHook(device(), error);
        ASSERT_TRUE(hooked_) << error;
    }
    void TearDown() override {
        AllocFailure::arm(-1);
        hooked_.reset();
        GpuTest::TearDown();
    }

    void expectOutOfMemory(const Status& s, int64_t at, const char* phase) {
        EXPECT_EQ(AllocFailure::fired.load(), 1) << phase << " call " << at << ": the hook did not fire";
        ASSERT_FALSE(s.ok()) << phase << " call " << at << ": the failure was swallowed";
        EXPECT_EQ(s.code(), ErrorCode::OutOfMemory) << phase << " call " << at << ": " << s.message();
        EXPECT_EQ(s.vkResult(), VK_ERROR_OUT_OF_DEVICE_MEMORY) << phase << " call " << at << ": " << s.message();
        EXPECT_NE(s.message().find("VK_ERROR_OUT_OF_DEVICE_MEMORY"), std::string::npos) << s.message();
    }

    // Fails every creation call of `make` in turn, then every call of the
    // first frame of a created subject, which must then run its next frame.
    void failEveryAllocation(const std::string& what,
                             const std::function<Result<std::unique_ptr<Subject>>(Device&)>& make) {
        SCOPED_TRACE(what);
        Device& d = *hooked_;
        int64_t liveBefore = 0;
        AllocatorStats statsBefore{};
        auto released = [&](const char* phase, int64_t at) {
            EXPECT_EQ(AllocFailure::live.load(), liveBefore)
                << phase << " call " << at << ": Vulkan objects left behind";
            const AllocatorStats now = d.allocator().stats();
            EXPECT_EQ(now.liveAllocations, statsBefore.liveAllocations)
                << phase << " call " << at << ": allocations left behind";
            EXPECT_EQ(now.allocatedBytes, statsBefore.allocatedBytes) << phase << " call " << at;
        };

        // Undisturbed runs: how many calls creation and the first frame make.
        // The first also creates the allocator's shared memory blocks, which
        // stay for reuse: the counts and the baseline come from the second.
        std::vector<float> reference;
        int64_t creationCalls = 0, frameCalls = 0;
        for (int run = 0; run < 2; ++run) {
            if (run == 1) {
                liveBefore = AllocFailure::live;
                statsBefore = d.allocator().stats();
            }
            AllocFailure::arm(-1);
            auto subject = make(d);
            ASSERT_TRUE(subject.ok()) << subject.message();
            creationCalls = AllocFailure::calls;
            AllocFailure::arm(-1);
            reference.clear();
            ASSERT_OK((*subject)->frame(reference));
            frameCalls = AllocFailure::calls;
            ASSERT_FALSE(reference.empty());
        }
        released("undisturbed", -1);
        ASSERT_GT(creationCalls, 0);
        ASSERT_GT(frameCalls, 0);

        for (int64_t at = 0; at < creationCalls; ++at) {
            AllocFailure::fired = 0;
            AllocFailure::arm(at);
            {
                auto subject = make(d);
                AllocFailure::arm(-1);
                expectOutOfMemory(subject.ok() ? Status{} : subject.status(), at, "creation");
            }
            released("creation", at);
            if (HasFailure()) return;
        }
        for (int64_t at = 0; at < frameCalls; ++at) {
            AllocFailure::arm(-1);
            {
                auto subject = make(d);
                ASSERT_TRUE(subject.ok()) << subject.message();
                AllocFailure::fired = 0;
                AllocFailure::arm(at);
                std::vector<float> result;
                const Status s = (*subject)->frame(result);
                AllocFailure::arm(-1);
                expectOutOfMemory(s, at, "first frame");
                // The next frame works and gives the undisturbed result.
                result.clear();
                ASSERT_OK((*subject)->frame(result));
                EXPECT_EQ(result, reference) << "the frame after a failure at call " << at;
            }
            released("first frame", at);
            if (HasFailure()) return;
        }
        std::printf("[ alloc failure ] %-28s %lld creation + %lld first-frame calls failed in turn\n", what.c_str(),
                    (long long)creationCalls, (long long)frameCalls);
    }

    std::unique_ptr<Device> hooked_;
};

// (n)^3 samples of the distance from the centre of [-1, 1]^3.
std::vector<float> distanceField(uint32_t n) {
    std::vector<float> v(size_t(n) * n * n);
    for (uint32_t z = 0; z < n; ++z)
        for (uint32_t y = 0; y < n; ++y)
            for (uint32_t x = 0; x < n; ++x) {
                const float px = 2.f * float(x) / float(n - 1) - 1.f, py = 2.f * float(y) / float(n - 1) - 1.f,
                            pz = 2.f * float(z) / float(n - 1) - 1.f;
                v[(size_t(z) * n + y) * n + x] = std::sqrt(px * px + py * py + pz * pz);
            }
    return v;
}

constexpr uint32_t kSamples = 9;

// A mesh's triangles as 9 floats each; on a sparse domain the triangles
// come in pool order, which may differ between runs: sorted there, so the
// frame after a failure is compared as the same set of triangles.
void appendTriangles(const iso::Mesh& mesh, bool sorted, std::vector<float>& result) {
    std::vector<std::array<float, 9>> tris(mesh.indices.size() / 3);
    for (size_t t = 0; t < tris.size(); ++t)
        for (int k = 0; k < 3; ++k)
            for (int a = 0; a < 3; ++a)
                tris[t][size_t(3 * k + a)] = mesh.positions[mesh.indices[3 * t + size_t(k)]][size_t(a)];
    if (sorted) std::sort(tris.begin(), tris.end());
    for (const auto& t : tris) result.insert(result.end(), t.begin(), t.end());
}

// The frame's output is complete: under an overflow a sparse domain keeps
// the triangles the pool order reached first, which may differ run to run.
Status noOverflow(const iso::IsoSurface& surface) {
    const std::optional<iso::IsoStats> stats = surface.statsOfFrame(surface.framesRecorded() - 1);
    if (!stats) return Status::error(ErrorCode::InvalidState, "no stats of the frame just waited for");
    if (stats->overflow) return Status::error(ErrorCode::CapacityExceeded, "the test's capacities overflowed");
    return {};
}

// An IsoSurface of one source: record one frame, read the mesh back.
struct IsoSubject : Subject {
    Device* device = nullptr;
    std::unique_ptr<iso::IsoSurface> surface;
    bool sparse = false;
    Status frame(std::vector<float>& result) override {
        Status rec;
        PYRAMARCH_TRY(submitAndWait(*device, [&](VkCommandBuffer cmd) { rec = surface->record(cmd); }));
        PYRAMARCH_TRY(rec);
        PYRAMARCH_TRY_ASSIGN(const iso::Mesh mesh, surface->readMesh(false));
        appendTriangles(mesh, sparse, result);
        return noOverflow(*surface);
    }
};

iso::IsoSurfaceCreateInfo smallInfo(iso::FieldSource source) {
    iso::IsoSurfaceCreateInfo info;
    info.samples = {kSamples, kSamples, kSamples};
    info.vertexCapacity = 3 * 1024;
    info.framesInFlight = 1;
    info.source = source;
    return info;
}

Result<std::unique_ptr<Subject>> makeIso(Device& d, const iso::IsoSurfaceCreateInfo& info,
                                         const std::function<Status(iso::IsoSurface&)>& feed) {
    auto subject = std::make_unique<IsoSubject>();
    subject->device = &d;
    subject->sparse = info.sparse.enabled;
    PYRAMARCH_TRY_ASSIGN(subject->surface, iso::IsoSurface::create(d, info));
    PYRAMARCH_TRY(feed(*subject->surface));
    return std::unique_ptr<Subject>(std::move(subject));
}

constexpr uint32_t kSparseSamples = 17; // 2 x 2 x 2 bricks of 8^3 cells

#if PYRAMARCH_HAVE_SHADER_COMPILER
// The same shaders are compiled at every creation: compiled once here
// (the hook fails Vulkan calls, not the compiler).
GlslCompiler cachedCompiler() {
    auto cache = std::make_shared<std::map<std::string, std::vector<uint32_t>>>();
    return [cache](const GlslSource& source) -> Result<std::vector<uint32_t>> {
        std::string key = std::to_string(int(source.stage)) + "\n" + std::string(source.text);
        for (const auto& [name, value] : source.defines) key += "\n" + name + "=" + value;
        auto it = cache->find(key);
        if (it == cache->end()) {
            PYRAMARCH_TRY_ASSIGN(auto spirv, compileGlsl(source));
            it = cache->emplace(key, std::move(spirv)).first;
        }
        return it->second;
    };
}
#endif

// The inputs of the metaball and particle sources, dense and sparse.
Status setTwoBalls(iso::IsoSurface& s) {
    const std::vector<iso::Metaball> balls{{{-0.3f, 0.f, 0.f}, 0.5f, 1.f}, {{0.3f, 0.1f, 0.f}, 0.45f, 1.f}};
    return s.setMetaballs(balls);
}

Status setParticleSpiral(iso::IsoSurface& s) {
    std::vector<iso::Particle> particles;
    for (uint32_t i = 0; i < 40; ++i)
        particles.push_back(
            {{0.4f * std::cos(0.5f * float(i)), 0.4f * std::sin(0.5f * float(i)), 0.02f * float(i) - 0.4f}, 1.f});
    return s.setParticles(particles);
}

} // namespace

TEST_F(AllocFailureTest, VolumeSource) {
    iso::IsoSurfaceCreateInfo info = smallInfo(iso::FieldSource::Volume);
    info.isoValue = 0.7f;
    const std::vector<float> values = distanceField(kSamples);
    failEveryAllocation("volume", [&](Device& d) {
        return makeIso(d, info, [&](iso::IsoSurface& s) {
            return s.uploadVolume(values.data(), values.size() * sizeof(float), iso::VolumeFormat::F32);
        });
    });
}

TEST_F(AllocFailureTest, MetaballSource) {
    iso::IsoSurfaceCreateInfo info = smallInfo(iso::FieldSource::Metaballs);
    info.maxBalls = 4;
    failEveryAllocation("metaballs", [&](Device& d) { return makeIso(d, info, setTwoBalls); });
}

TEST_F(AllocFailureTest, ParticleSource) {
    iso::IsoSurfaceCreateInfo info = smallInfo(iso::FieldSource::Particles);
    info.maxParticles = 64;
    info.particleRadius = 0.3f;
    info.isoValue = 0.3f;
    failEveryAllocation("particles", [&](Device& d) { return makeIso(d, info, setParticleSpiral); });
}

#if PYRAMARCH_HAVE_SHADER_COMPILER
TEST_F(AllocFailureTest, UserGlslSource) {
    iso::IsoSurfaceCreateInfo info = smallInfo(iso::FieldSource::UserGlsl);
    info.fieldGlsl = "float field(vec3 p) { return length(p) - 0.6; }";
    info.compileGlsl = cachedCompiler();
    failEveryAllocation("user GLSL",
                        [&](Device& d) { return makeIso(d, info, [](iso::IsoSurface&) { return Status{}; }); });
}
#endif

// Sparse (bricked) domains: the brick lists, pools and their pyramid are
// made at creation and the first frame, as the dense sources' buffers.
iso::IsoSurfaceCreateInfo sparseInfo(iso::FieldSource source) {
    iso::IsoSurfaceCreateInfo info = smallInfo(source);
    info.samples = {kSparseSamples, kSparseSamples, kSparseSamples};
    info.vertexCapacity = 3 * 8192;
    info.sparse.enabled = true;
    info.sparse.maxBricks = 64;
    info.sparse.maxRowPairs = 1024;
    return info;
}

TEST_F(AllocFailureTest, SparseVolumeSource) {
    iso::IsoSurfaceCreateInfo info = sparseInfo(iso::FieldSource::Volume);
    info.isoValue = 0.7f;
    const std::vector<float> values = distanceField(kSparseSamples);
    failEveryAllocation("sparse volume", [&](Device& d) {
        return makeIso(d, info, [&](iso::IsoSurface& s) {
            return s.uploadVolume(values.data(), values.size() * sizeof(float), iso::VolumeFormat::F32);
        });
    });
}

TEST_F(AllocFailureTest, SparseMetaballSource) {
    iso::IsoSurfaceCreateInfo info = sparseInfo(iso::FieldSource::Metaballs);
    info.maxBalls = 4;
    failEveryAllocation("sparse metaballs", [&](Device& d) { return makeIso(d, info, setTwoBalls); });
}

TEST_F(AllocFailureTest, SparseParticleSource) {
    iso::IsoSurfaceCreateInfo info = sparseInfo(iso::FieldSource::Particles);
    info.maxParticles = 64;
    info.particleRadius = 0.3f;
    info.isoValue = 0.3f;
    failEveryAllocation("sparse particles", [&](Device& d) { return makeIso(d, info, setParticleSpiral); });
}

#if PYRAMARCH_HAVE_SHADER_COMPILER
TEST_F(AllocFailureTest, SparseUserGlslSource) {
    iso::IsoSurfaceCreateInfo info = sparseInfo(iso::FieldSource::UserGlsl);
    info.fieldGlsl = "float field(vec3 p) { return length(p) - 0.6; }";
    info.lipschitz = 1.f; // a sparse user field needs its bound
    info.compileGlsl = cachedCompiler();
    failEveryAllocation("sparse user GLSL",
                        [&](Device& d) { return makeIso(d, info, [](iso::IsoSurface&) { return Status{}; }); });
}
#endif

#if PYRAMARCH_HAVE_VOXELIZER
// The octree-fed surface (SparseVolumeInput::OctreeLeaves): the leaves of
// a voxelizer's octree (built once, on the unhooked device: the
// voxelizer's own allocations are the Voxelizer test's) feed the surface in
// the subject's graph, which marks and fills its bricks from them on the
// GPU every frame; the surface's creation and first frame.
TEST_F(AllocFailureTest, OctreeFedSurface) {
    struct OctreeSubject : Subject {
        Device* device = nullptr;
        std::unique_ptr<iso::IsoSurface> surface;
        std::unique_ptr<RenderGraph> graph; // last: destroyed first
        Status frame(std::vector<float>& result) override {
            Status rec;
            PYRAMARCH_TRY(submitAndWait(*device, [&](VkCommandBuffer cmd) { rec = graph->execute(cmd); }));
            PYRAMARCH_TRY(rec);
            PYRAMARCH_TRY_ASSIGN(const iso::Mesh mesh, surface->readMesh(false));
            appendTriangles(mesh, true, result);
            return noOverflow(*surface);
        }
    };
    auto grid = voxel::gridFromBox({-1.f, -1.f, -1.f}, {1.f, 1.f, 1.f}, 12, 12, 12);
    ASSERT_TRUE(grid.ok()) << grid.message();
    voxel::VoxelizerCreateInfo vci;
    vci.maxResolution = 12;
    vci.maxTriangles = 512;
    vci.maxVertices = 512;
    vci.fragmentCapacity = 1u << 12;
    vci.tileCapacity = 1u << 10;
    vci.framesInFlight = 1;
    auto vox = voxel::Voxelizer::create(device(), vci);
    ASSERT_TRUE(vox.ok()) << vox.message();
    ASSERT_OK((*vox)->setMesh(voxel::shapes::sphere({0.f, 0.f, 0.f}, 0.6f, 16, 8), *grid));
    Status recorded;
    ASSERT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) { recorded = (*vox)->record(cmd); }));
    ASSERT_OK(recorded);
    const voxel::Voxelizer& voxelizer = **vox;
    failEveryAllocation("octree-fed surface", [&](Device& d) -> Result<std::unique_ptr<Subject>> {
        auto s = std::make_unique<OctreeSubject>();
        s->device = &d;
        iso::IsoSurfaceCreateInfo info;
        info.samples = {grid->dims[0], grid->dims[1], grid->dims[2]};
        const voxel::SampleBounds b = voxel::voxelCentreBounds(*grid);
        info.boundsMin = b.min;
        info.boundsMax = b.max;
        info.source = iso::FieldSource::Volume;
        info.isoValue = 0.5f;
        info.vertexCapacity = 3 * 4096;
        info.framesInFlight = 1;
        info.sparse.enabled = true;
        info.sparse.volumeInput = iso::SparseVolumeInput::OctreeLeaves;
        info.sparse.volumeFormat = iso::VolumeFormat::U8;
        info.sparse.maxVolumeBricks = 64;
        info.sparse.maxBricks = 64;
        info.sparse.maxRowPairs = 1024;
        PYRAMARCH_TRY_ASSIGN(s->surface, iso::IsoSurface::create(d, info));
        s->graph = std::make_unique<RenderGraph>(&d);
        // The octree as the voxelizer left it (its counters, node counts and
        // coordinates: what voxel::octreeLeafInput hands a surface).
        const ExternalUse written{Access::StorageReadWrite, PassKind::Compute};
        voxel::VoxelizerGraphRefs refs;
        refs.counters = s->graph->importBuffer("octree.counters", voxelizer.counterBuffer(), written, written);
        refs.nodeCount = s->graph->importBuffer("octree.count", voxelizer.nodeArrayBuffer(voxel::NodeArray::Count),
                                                written, written);
        refs.nodeCoord = s->graph->importBuffer("octree.coord", voxelizer.nodeArrayBuffer(voxel::NodeArray::Coord),
                                                written, written);
        iso::IsoSurface::GraphInputs in;
        in.octree = voxel::octreeLeafInput(refs, voxelizer.octreeDepth());
        PYRAMARCH_TRY(s->surface->addPasses(*s->graph, in).status());
        PYRAMARCH_TRY(s->graph->compile());
        return std::unique_ptr<Subject>(std::move(s));
    });
}
#endif

// The draw: an IsoSurface's passes and a SurfaceRenderer's in one graph,
// executed into a 32x24 image that is read back.
TEST_F(AllocFailureTest, SurfaceRenderer) {
    struct DrawSubject : Subject {
        Device* device = nullptr;
        Image color; // members go in reverse: the graph first, the image it drew into last
        std::unique_ptr<iso::IsoSurface> surface;
        std::unique_ptr<iso::SurfaceRenderer> renderer;
        std::unique_ptr<RenderGraph> graph;
        Status frame(std::vector<float>& result) override {
            Status rec;
            PYRAMARCH_TRY(submitAndWait(*device, [&](VkCommandBuffer cmd) { rec = graph->execute(cmd); }));
            PYRAMARCH_TRY(rec);
            std::vector<uint8_t> pixels;
            PYRAMARCH_TRY(readImage(*device, color, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, pixels));
            result.assign(pixels.begin(), pixels.end());
            return {};
        }
    };
    iso::IsoSurfaceCreateInfo info = smallInfo(iso::FieldSource::Volume);
    info.isoValue = 0.7f;
    const std::vector<float> values = distanceField(kSamples);
    failEveryAllocation("surface renderer", [&](Device& d) -> Result<std::unique_ptr<Subject>> {
        constexpr uint32_t w = 32, h = 24;
        auto s = std::make_unique<DrawSubject>();
        s->device = &d;
        PYRAMARCH_TRY_ASSIGN(s->surface, iso::IsoSurface::create(d, info));
        PYRAMARCH_TRY(s->surface->uploadVolume(values.data(), values.size() * sizeof(float), iso::VolumeFormat::F32));
        PYRAMARCH_TRY_ASSIGN(s->color, d.allocator().createImage({.format = VK_FORMAT_R8G8B8A8_UNORM,
                                                                  .extent = {w, h, 1},
                                                                  .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                                                                           VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                                                  .name = "alloc_failure.color"}));
        iso::SurfaceRendererCreateInfo rci;
        rci.colorFormat = VK_FORMAT_R8G8B8A8_UNORM;
        PYRAMARCH_TRY_ASSIGN(s->renderer, iso::SurfaceRenderer::create(d, rci));
        s->graph = std::make_unique<RenderGraph>(&d);
        PYRAMARCH_TRY_ASSIGN(auto added, s->surface->addPasses(*s->graph));
        iso::SurfaceRenderer::GraphInputs inputs;
        inputs.vertices = added.vertices;
        inputs.drawArgs = added.drawArgs;
        inputs.color = s->graph->importImage("target", s->color, VK_IMAGE_LAYOUT_UNDEFINED, {Access::None},
                                             {Access::TransferSrc, PassKind::Transfer});
        inputs.depth = s->graph->createImage("depth", {.format = VK_FORMAT_D32_SFLOAT, .extent = {w, h, 1}});
        PYRAMARCH_TRY(s->renderer->addPasses(*s->graph, inputs).status());
        PYRAMARCH_TRY(s->graph->compile());
        s->renderer->setView(iso::makeSurfaceView({2.f, 1.f, 2.5f}, {0.f, 0.f, 0.f}, 0.8f, float(w) / float(h)));
        return std::unique_ptr<Subject>(std::move(s));
    });
}

#if PYRAMARCH_HAVE_VOXELIZER
// The voxelizer: creation, then a frame (mesh upload, record) and its
// counts read back, at R = 8.
TEST_F(AllocFailureTest, Voxelizer) {
    struct VoxSubject : Subject {
        Device* device = nullptr;
        std::unique_ptr<voxel::Voxelizer> voxelizer;
        voxel::TriangleMesh mesh;
        voxel::VoxelGrid grid;
        Status frame(std::vector<float>& result) override {
            PYRAMARCH_TRY(voxelizer->setMesh(mesh, grid));
            Status rec;
            PYRAMARCH_TRY(submitAndWait(*device, [&](VkCommandBuffer cmd) { rec = voxelizer->record(cmd); }));
            PYRAMARCH_TRY(rec);
            // The counts, not the whole octree: each read-back adds calls to fail.
            PYRAMARCH_TRY_ASSIGN(const voxel::VoxelStats stats, voxelizer->readStats());
            result = {float(stats.triangles), float(stats.fragmentsNeeded), float(stats.tilesNeeded),
                      float(stats.occupiedCells)};
            for (uint32_t n : stats.levelNodes) result.push_back(float(n));
            return {};
        }
    };
    failEveryAllocation("voxelizer", [&](Device& d) -> Result<std::unique_ptr<Subject>> {
        auto s = std::make_unique<VoxSubject>();
        s->device = &d;
        voxel::VoxelizerCreateInfo info;
        info.maxResolution = 8;
        info.maxTriangles = 256;
        info.maxVertices = 256;
        info.framesInFlight = 1;
        PYRAMARCH_TRY_ASSIGN(s->voxelizer, voxel::Voxelizer::create(d, info));
        s->mesh = voxel::shapes::torusKnot({0.f, 0.f, 0.f}, 0.7f, 0.2f, 2, 3, 24, 4);
        s->grid.origin = {-1.1f, -1.1f, -1.1f};
        s->grid.voxelSize = {2.2f / 8.f, 2.2f / 8.f, 2.2f / 8.f};
        s->grid.dims[0] = s->grid.dims[1] = s->grid.dims[2] = 8;
        return std::unique_ptr<Subject>(std::move(s));
    });
}
#endif
