// Sparse volumes (FieldSource::Volume on a sparse domain) on the validated
// shared device: the dense volume path's triangles and the CPU reference's
// on the same volume (u8, u16, f32 with scale and offset, NaN and infinite
// samples, grids whose cells are and are not multiples of a brick), iso
// values across the uploaded range and outside it, the census against the
// upload, capacities and bad uploads (reported, bounded, the previous
// upload kept), and a volume whose dense field exceeds one storage buffer,
// streamed slab by slab from a generator that never holds it whole.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "iso_fixture.h"
#include "iso_reference_convert.h"
#include "pyramarch/isosurface/isosurface.h"
#include "pyramarch/isosurface/mc_tables.h"
#include "pyramarch/isosurface/raw_volume.h"
#include "reference.h"
#include "reference_grid.h"

using namespace pyramarch;
using namespace pyramarch::iso;

namespace {

// Blobs in a noisy background, as a CT scan has them: value in [0, 1].
float blobs(float x, float y, float z, uint32_t seed) {
    const float c[3][4] = {{0.3f, 0.4f, 0.5f, 0.22f}, {0.7f, 0.6f, 0.4f, 0.18f}, {0.5f, 0.3f, 0.75f, 0.12f}};
    float v = 0.f;
    for (const auto& b : c) {
        const float d = std::sqrt((x - b[0]) * (x - b[0]) + (y - b[1]) * (y - b[1]) + (z - b[2]) * (z - b[2]));
        v = std::max(v, std::clamp(1.f - d / b[3], 0.f, 1.f));
    }
    const uint32_t h = (uint32_t(x * 977.f) * 73856093u) ^ (uint32_t(y * 977.f) * 19349663u) ^
                       (uint32_t(z * 977.f) * 83492791u) ^ seed;
    return std::clamp(v + float(h % 1000u) * 2e-5f, 0.f, 1.f);
}

// A volume of `n` samples in `format`, its bytes as uploads take them.
std::vector<uint8_t> makeVolume(std::array<uint32_t, 3> n, VolumeFormat format, uint32_t seed) {
    const size_t count = size_t(n[0]) * n[1] * n[2], each = volumeFormatBytes(format);
    std::vector<uint8_t> bytes(count * each);
    for (uint32_t z = 0; z < n[2]; ++z)
        for (uint32_t y = 0; y < n[1]; ++y)
            for (uint32_t x = 0; x < n[0]; ++x) {
                const size_t i = x + size_t(n[0]) * (y + size_t(n[1]) * z);
                const float v =
                    blobs(float(x) / float(n[0] - 1), float(y) / float(n[1] - 1), float(z) / float(n[2] - 1), seed);
                if (format == VolumeFormat::U8) {
                    bytes[i] = uint8_t(v * 255.f);
                } else if (format == VolumeFormat::U16) {
                    const uint16_t u = uint16_t(v * 65535.f);
                    std::memcpy(&bytes[2 * i], &u, 2);
                } else {
                    std::memcpy(&bytes[4 * i], &v, 4);
                }
            }
    return bytes;
}

IsoSurfaceCreateInfo volumeInfo(std::array<uint32_t, 3> n, VolumeFormat format, NormalMode normals) {
    IsoSurfaceCreateInfo info;
    info.samples = n;
    info.boundsMin = {-1.f, 0.f, 0.5f};
    info.boundsMax = {1.f, 1.5f, 2.f};
    info.source = FieldSource::Volume;
    info.vertexCapacity = 400000;
    info.normals = normals;
    info.sparse.volumeFormat = format;
    return info;
}

// The sparse twin of a dense volume surface: capacities from the census.
IsoSurfaceCreateInfo sparseOf(IsoSurfaceCreateInfo info, const SparseVolumeCensus& c) {
    info.sparse.enabled = true;
    info.sparse.maxBricks = std::max(c.surfaceBricks, 1u);
    info.sparse.maxRowPairs = std::max(c.surfaceBricks, 1u) * (kSparseBrickCells * kSparseBrickCells / 2);
    info.sparse.maxVolumeBricks = std::max(c.surfaceBricks, 1u);
    return info;
}

VolumeSlabs slabsOf(const std::vector<uint8_t>& bytes, std::array<uint32_t, 3> n, VolumeFormat format, float scale,
                    float offset) {
    const size_t slice = size_t(n[0]) * n[1] * volumeFormatBytes(format);
    return {format, scale, offset, [&bytes, slice](uint32_t first, uint32_t count, void* dst) {
                std::memcpy(dst, bytes.data() + slice * first, slice * count);
                return Status{};
            }};
}

class IsoSparseVolume : public IsoSurfaceTest {
protected:
    // The newest frames of `dense` and `sparse` (same volume, same iso
    // value): the same triangles as each other and as the CPU reference on
    // the dense field, the sparse stats against the reference's counts.
    void expectSameSurface(const IsoSurfaceCreateInfo& info, IsoSurface& dense, IsoSurface& sparse, float iso,
                           size_t minVertices = 200) {
        auto field = dense.readField();
        ASSERT_TRUE(field.ok()) << field.message();
        const ref::Grid g = referenceGridOf(info);
        const ref::McResult cpu = ref::marchingCubes(g, field.value().data(), iso, refNormals(info.normals));
        EXPECT_GE(cpu.vertices.size(), minVertices) << "the case should have a surface";
        auto sv = sparse.readVertices();
        auto dv = dense.readVertices();
        ASSERT_TRUE(sv.ok() && dv.ok());
        const float tol = ref::positionTolerance(g);
        EXPECT_EQ(ref::compareTriangleSets(cpu.vertices, toRef(sv.value()), tol, 1e-3f), "") << "against the CPU";
        // The same samples through the same arithmetic: equal to the bit.
        EXPECT_EQ(ref::compareTriangleSets(toRef(dv.value()), toRef(sv.value()), 0.f, 0.f), "")
            << "against the dense path";
        const auto stats = sparse.statsOfFrame(sparse.framesRecorded() - 1);
        ASSERT_TRUE(stats.has_value());
        EXPECT_FALSE(stats->overflow);
        EXPECT_FALSE(stats->isoOutsideUpload);
        EXPECT_EQ(stats->verticesWritten, cpu.vertices.size());
        EXPECT_EQ(stats->activeCells, cpu.activeCells);
    }

    // One upload of `bytes` to a dense and a sparse surface at `iso`, a frame each, compared.
    void expectVolumeMatches(const IsoSurfaceCreateInfo& info, const std::vector<uint8_t>& bytes, float scale,
                             float offset, float iso) {
        const VolumeSlabs slabs = slabsOf(bytes, info.samples, info.sparse.volumeFormat, scale, offset);
        auto census = censusSparseVolume(slabs, info.samples, iso, iso);
        ASSERT_TRUE(census.ok()) << census.message();
        EXPECT_GT(census->surfaceBricks, 0u);
        EXPECT_LT(census->surfaceBricks, census->bricks);
        EXPECT_EQ(census->poolBytes,
                  uint64_t(census->surfaceBricks) * 1331 * volumeFormatBytes(info.sparse.volumeFormat));
        const IsoSurfaceCreateInfo sparseInfo = sparseOf(info, census.value());
        auto dense = make(info);
        auto sparse = make(sparseInfo);
        ASSERT_TRUE(dense && sparse);
        ASSERT_OK(dense->uploadVolume(bytes.data(), bytes.size(), info.sparse.volumeFormat, scale, offset));
        sparse->setIsoValue(iso);
        // The in-memory upload keeps the current iso value's bricks: the census's.
        ASSERT_OK(sparse->uploadVolume(bytes.data(), bytes.size(), info.sparse.volumeFormat, scale, offset));
        dense->setIsoValue(iso);
        frame(*dense);
        frame(*sparse);
        expectSameSurface(info, *dense, *sparse, iso);
        EXPECT_FALSE(sparse->readField().ok()) << "a sparse volume has no field buffer";
        // A second frame without an upload keeps the bricks.
        frame(*sparse);
        expectSameSurface(info, *dense, *sparse, iso);
        const auto stats = sparse->statsOfFrame(sparse->framesRecorded() - 1);
        ASSERT_TRUE(stats.has_value());
        EXPECT_GT(stats->sparseBricksNeeded, 0u);
        EXPECT_LE(stats->sparseBricksNeeded, census->surfaceBricks);
    }
};

TEST_F(IsoSparseVolume, MatchesTheDenseVolumePathAndTheReference) {
    {
        SCOPED_TRACE("u8 70x45x53, Sobel normals, scale 1/255");
        const IsoSurfaceCreateInfo info = volumeInfo({70, 45, 53}, VolumeFormat::U8, NormalMode::Sobel);
        expectVolumeMatches(info, makeVolume(info.samples, VolumeFormat::U8, 1), 1.f / 255.f, 0.f, 0.5f);
    }
    {
        // Cells a multiple of 8 on every axis: the last sample starts a brick of its own.
        SCOPED_TRACE("u16 33x17x25, central normals, scale and offset");
        const IsoSurfaceCreateInfo info = volumeInfo({33, 17, 25}, VolumeFormat::U16, NormalMode::Central);
        expectVolumeMatches(info, makeVolume(info.samples, VolumeFormat::U16, 2), 2.f / 65535.f, -0.5f, 0.3f);
    }
    {
        SCOPED_TRACE("f32 61x38x47, forward normals");
        const IsoSurfaceCreateInfo info = volumeInfo({61, 38, 47}, VolumeFormat::F32, NormalMode::Forward);
        expectVolumeMatches(info, makeVolume(info.samples, VolumeFormat::F32, 3), 1.f, 0.f, 0.45f);
    }
    {
        SCOPED_TRACE("f32 with NaN and infinite samples near the surface, no normals");
        const IsoSurfaceCreateInfo info = volumeInfo({40, 36, 29}, VolumeFormat::F32, NormalMode::None);
        std::vector<uint8_t> bytes = makeVolume(info.samples, VolumeFormat::F32, 4);
        const float bad[3] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity()};
        for (size_t i = 0; i < bytes.size() / 4; i += 97) std::memcpy(&bytes[4 * i], &bad[(i / 97) % 3], 4);
        expectVolumeMatches(info, bytes, 1.f, 0.f, 0.5f);
    }
    {
        SCOPED_TRACE("one brick: 9x3x2");
        const IsoSurfaceCreateInfo info = volumeInfo({9, 3, 2}, VolumeFormat::F32, NormalMode::Central);
        std::vector<uint8_t> bytes(9 * 3 * 2 * 4);
        for (size_t i = 0; i < bytes.size() / 4; ++i) {
            const float v = float(i % 9) / 8.f;
            std::memcpy(&bytes[4 * i], &v, 4);
        }
        auto census =
            censusSparseVolume(slabsOf(bytes, info.samples, VolumeFormat::F32, 1.f, 0.f), info.samples, 0.4f, 0.4f);
        ASSERT_TRUE(census.ok());
        EXPECT_EQ(census->surfaceBricks, 1u);
        EXPECT_EQ(census->bricks, 1u);
        auto dense = make(info);
        auto sparse = make(sparseOf(info, census.value()));
        ASSERT_TRUE(dense && sparse);
        ASSERT_OK(dense->uploadVolume(bytes.data(), bytes.size(), VolumeFormat::F32));
        ASSERT_OK(sparse->uploadVolume(slabsOf(bytes, info.samples, VolumeFormat::F32, 1.f, 0.f), 0.4f, 0.4f));
        for (IsoSurface* s : {dense.get(), sparse.get()}) {
            s->setIsoValue(0.4f);
            frame(*s);
        }
        expectSameSurface(info, *dense, *sparse, 0.4f, 8);
    }
}

// A pool spread over several buffers (Knobs::volumePoolBricks: a few
// bricks each, as a large volume's pool is past one binding's range): the
// same triangles, in both read paths (texel views, storage words), and a
// pool too large for every buffer named at creation.
TEST_F(IsoSparseVolume, PoolAcrossSeveralBuffers) {
    const IsoSurfaceCreateInfo info = volumeInfo({45, 50, 41}, VolumeFormat::U16, NormalMode::Sobel);
    const std::vector<uint8_t> bytes = makeVolume(info.samples, VolumeFormat::U16, 8);
    const float scale = 1.f / 65535.f;
    const VolumeSlabs slabs = slabsOf(bytes, info.samples, VolumeFormat::U16, scale, 0.f);
    auto census = censusSparseVolume(slabs, info.samples, 0.5f, 0.5f);
    ASSERT_TRUE(census.ok());
    ASSERT_GT(census->surfaceBricks, 12u) << "enough bricks for four buffers";
    const IsoSurfaceCreateInfo sparseInfo = sparseOf(info, census.value());
    auto dense = make(info);
    ASSERT_TRUE(dense);
    ASSERT_OK(dense->uploadVolume(bytes.data(), bytes.size(), VolumeFormat::U16, scale, 0.f));
    dense->setIsoValue(0.5f);
    frame(*dense);
    for (bool storage : {false, true}) {
        SCOPED_TRACE(storage ? "storage reads" : "texel reads");
        iso::testing::Knobs knobs;
        knobs.volumePoolBricks = (census->surfaceBricks + 3) / 4; // four buffers, the last one short
        knobs.storageReads = storage;
        auto sparse = make(sparseInfo, knobs);
        ASSERT_TRUE(sparse);
        EXPECT_EQ(iso::testing::texelReads(*sparse), !storage);
        size_t pools = 0;
        for (const auto& item : sparse->memoryReport()) pools += item.name.rfind("sparse volume pool", 0) == 0;
        EXPECT_EQ(pools, 4u);
        sparse->setIsoValue(0.5f);
        ASSERT_OK(sparse->uploadVolume(slabs, 0.5f, 0.5f));
        frame(*sparse);
        expectSameSurface(info, *dense, *sparse, 0.5f);
    }
    iso::testing::Knobs tiny;
    tiny.volumePoolBricks = 1;
    auto r = iso::testing::create(device(), sparseInfo, tiny);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.code(), ErrorCode::DeviceLimit);
    EXPECT_NE(r.message().find("at most 4 bricks"), std::string::npos) << r.message();
}

// One upload for a range of iso values: every iso value of the range gives
// the dense path's surface; one outside it gives a part and says so.
TEST_F(IsoSparseVolume, IsoValuesAcrossTheUploadedRange) {
    const IsoSurfaceCreateInfo info = volumeInfo({57, 49, 41}, VolumeFormat::U8, NormalMode::Central);
    const std::vector<uint8_t> bytes = makeVolume(info.samples, VolumeFormat::U8, 5);
    const VolumeSlabs slabs = slabsOf(bytes, info.samples, VolumeFormat::U8, 1.f, 0.f);
    auto wide = censusSparseVolume(slabs, info.samples, 60.f, 200.f);
    auto narrow = censusSparseVolume(slabs, info.samples, 120.f, 120.f);
    ASSERT_TRUE(wide.ok() && narrow.ok());
    EXPECT_GT(wide->surfaceBricks, narrow->surfaceBricks);
    auto dense = make(info);
    auto sparse = make(sparseOf(info, wide.value()));
    ASSERT_TRUE(dense && sparse);
    ASSERT_OK(dense->uploadVolume(bytes.data(), bytes.size(), VolumeFormat::U8));
    ASSERT_OK(sparse->uploadVolume(slabs, 60.f, 200.f));
    // Resident memory follows the census, not the volume.
    const auto bytesOf = [&](const char* name) {
        for (const auto& item : sparse->memoryReport())
            if (item.name == name) return item.bytes;
        return uint64_t(0);
    };
    const uint64_t pool = bytesOf("sparse volume pool");
    EXPECT_EQ(pool, (uint64_t(wide->surfaceBricks) * 1331 + 3) / 4 * 4);
    EXPECT_GE(bytesOf("sparse volume staging"), pool) << "the upload's staging: surface bricks, then the pool";
    for (float iso : {60.f, 95.5f, 120.f, 200.f}) {
        SCOPED_TRACE("iso " + std::to_string(iso));
        dense->setIsoValue(iso);
        sparse->setIsoValue(iso);
        frame(*dense);
        frame(*sparse);
        expectSameSurface(info, *dense, *sparse, iso, 50);
    }
    // The staging goes framesInFlight + 8 frames after the copy; the bricks stay.
    for (uint32_t f = 0; f < info.framesInFlight + 8; ++f) frame(*sparse);
    EXPECT_EQ(bytesOf("sparse volume staging"), 16u);
    frame(*sparse);
    expectSameSurface(info, *dense, *sparse, 200.f, 50);
    // Outside: the uploaded bricks' triangles only, reported.
    dense->setIsoValue(30.f);
    sparse->setIsoValue(30.f);
    frame(*dense);
    frame(*sparse);
    const auto stats = sparse->statsOfFrame(sparse->framesRecorded() - 1);
    ASSERT_TRUE(stats.has_value());
    EXPECT_TRUE(stats->isoOutsideUpload);
    EXPECT_TRUE(stats->overflow);
    const auto denseStats = dense->statsOfFrame(dense->framesRecorded() - 1);
    ASSERT_TRUE(denseStats.has_value());
    EXPECT_LE(stats->verticesWritten, denseStats->verticesWritten);
}

// Capacities and uploads that cannot be kept: clear errors, the previous
// upload still drawn; a short brick list reported and bounded.
TEST_F(IsoSparseVolume, CapacitiesAndBadUploadsAreReported) {
    const IsoSurfaceCreateInfo info = volumeInfo({49, 40, 44}, VolumeFormat::U8, NormalMode::Central);
    const std::vector<uint8_t> bytes = makeVolume(info.samples, VolumeFormat::U8, 6);
    const VolumeSlabs slabs = slabsOf(bytes, info.samples, VolumeFormat::U8, 1.f, 0.f);
    auto census = censusSparseVolume(slabs, info.samples, 128.f, 128.f);
    ASSERT_TRUE(census.ok());
    IsoSurfaceCreateInfo good = sparseOf(info, census.value());

    {
        SCOPED_TRACE("a census whose slices alone exceed memory");
        VolumeSlabs huge = slabs;
        huge.read = [](uint32_t, uint32_t, void*) { return Status{}; };
        auto c = censusSparseVolume(huge, {1u << 20, 1u << 20, 9}, 128.f, 128.f); // 11 TiB a slab
        ASSERT_FALSE(c.ok());
        EXPECT_EQ(c.code(), ErrorCode::OutOfMemory) << c.message();
    }
    {
        SCOPED_TRACE("creation");
        IsoSurfaceCreateInfo bad = good;
        bad.sparse.maxVolumeBricks = 0; // sized by the module
        auto r = IsoSurface::create(device(), bad);
        ASSERT_TRUE(r.ok()) << r.message();
        EXPECT_GT(r.value()->sparseDomain().maxVolumeBricks, 0u);
        bad.sparse.maxVolumeBricks = 1u << 30; // 1.3 TiB of u8 bricks
        r = IsoSurface::create(device(), bad);
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.code(), ErrorCode::DeviceLimit);
        EXPECT_NE(r.message().find("pool"), std::string::npos) << r.message();
    }

    auto sparse = make(good);
    auto dense = make(info);
    ASSERT_TRUE(sparse && dense);
    sparse->setIsoValue(128.f);
    dense->setIsoValue(128.f);
    {
        SCOPED_TRACE("a frame before any upload: nothing, reported");
        frame(*sparse);
        const auto stats = sparse->statsOfFrame(0);
        ASSERT_TRUE(stats.has_value());
        EXPECT_EQ(stats->verticesWritten, 0u);
        EXPECT_TRUE(stats->isoOutsideUpload);
    }
    ASSERT_OK(sparse->uploadVolume(slabs, 128.f, 128.f));
    ASSERT_OK(dense->uploadVolume(bytes.data(), bytes.size(), VolumeFormat::U8));
    frame(*sparse);
    frame(*dense);
    expectSameSurface(info, *dense, *sparse, 128.f);
    {
        SCOPED_TRACE("bad uploads leave the last one");
        Status s = sparse->uploadVolume(slabs, 20.f, 240.f); // far more surface bricks
        EXPECT_EQ(s.code(), ErrorCode::CapacityExceeded) << s.message();
        EXPECT_NE(s.message().find("surface bricks"), std::string::npos) << s.message();
        s = sparse->uploadVolume(slabsOf(bytes, info.samples, VolumeFormat::U16, 1.f, 0.f), 128.f, 128.f);
        EXPECT_EQ(s.code(), ErrorCode::InvalidArgument) << s.message();
        EXPECT_NE(s.message().find("volumeFormat"), std::string::npos) << s.message();
        s = sparse->uploadVolume(slabs, 130.f, 120.f);
        EXPECT_FALSE(s.ok());
        VolumeSlabs failing = slabs;
        failing.read = [](uint32_t first, uint32_t, void*) {
            return first >= 16 ? Status::error(ErrorCode::Io, "disk gone") : Status{};
        };
        s = sparse->uploadVolume(failing, 128.f, 128.f);
        EXPECT_FALSE(s.ok());
        EXPECT_NE(s.message().find("disk gone"), std::string::npos) << s.message();
        s = sparse->uploadVolume(bytes.data(), bytes.size() - 1, VolumeFormat::U8);
        EXPECT_FALSE(s.ok());
        frame(*sparse);
        expectSameSurface(info, *dense, *sparse, 128.f);
    }
    {
        SCOPED_TRACE("a short brick list and pool: reported, bounded");
        IsoSurfaceCreateInfo shortInfo = good;
        shortInfo.sparse.maxBricks = 3;
        shortInfo.sparse.maxRowPairs = 20;
        auto s = make(shortInfo);
        ASSERT_TRUE(s);
        s->setIsoValue(128.f);
        ASSERT_OK(s->uploadVolume(slabs, 128.f, 128.f));
        frame(*s);
        const auto stats = s->statsOfFrame(0);
        ASSERT_TRUE(stats.has_value());
        EXPECT_TRUE(stats->overflow);
        EXPECT_FALSE(stats->isoOutsideUpload);
        const auto full = sparse->statsOfFrame(sparse->framesRecorded() - 1);
        ASSERT_TRUE(full.has_value());
        EXPECT_EQ(stats->sparseBricksNeeded, full->sparseBricksNeeded);
        EXPECT_LT(stats->verticesWritten, full->verticesWritten);
        const SparseDomain more = suggestSparseCapacity(stats.value(), 1.f);
        EXPECT_GE(more.maxBricks, full->sparseBricksNeeded);
    }
}

// A volume whose dense field exceeds one storage buffer (lavapipe: 128 MiB,
// ~33 M float samples): 20 M-sample slabs generated on the fly, never whole.
// The dense path refuses it; the sparse one keeps a few MiB and finds every
// cut cell and vertex the CPU counts on the same samples.
TEST_F(IsoSparseVolume, LargerThanOneBufferStreamsSlabBySlab) {
    const std::array<uint32_t, 3> n = {330, 330, 330}; // 35.9 M samples: 144 MiB as floats
    const auto value = [](uint32_t x, uint32_t y, uint32_t z) -> uint8_t {
        const float dx = float(x) - 150.f, dy = float(y) - 170.f, dz = float(z) - 160.f;
        const float r = std::sqrt(dx * dx + dy * dy + dz * dz);
        return uint8_t(std::clamp(255.f - 2.f * r, 0.f, 255.f)); // a ball of radius ~64 at 128
    };
    VolumeSlabs slabs;
    slabs.format = VolumeFormat::U8;
    slabs.read = [&](uint32_t first, uint32_t count, void* dst) {
        auto* out = static_cast<uint8_t*>(dst);
        for (uint32_t z = first; z < first + count; ++z)
            for (uint32_t y = 0; y < n[1]; ++y)
                for (uint32_t x = 0; x < n[0]; ++x) *out++ = value(x, y, z);
        return Status{};
    };
    IsoSurfaceCreateInfo info = volumeInfo(n, VolumeFormat::U8, NormalMode::Central);
    info.vertexCapacity = 600000;
    // Without sparse.enabled the module lays the grid out in bricks where its dense field does not fit.
    auto chosen = IsoSurface::create(device(), info);
    ASSERT_TRUE(chosen.ok()) << chosen.message();
    if (device().limits().maxStorageBufferRange < uint64_t(n[0]) * n[1] * n[2] * 4) {
        EXPECT_TRUE(chosen.value()->sparseDomain().enabled);
    }
    const float iso = 128.5f;
    auto census = censusSparseVolume(slabs, n, iso, iso);
    ASSERT_TRUE(census.ok()) << census.message();
    auto sparse = make(sparseOf(info, census.value()));
    ASSERT_TRUE(sparse);
    sparse->setIsoValue(iso);
    ASSERT_OK(sparse->uploadVolume(slabs, iso, iso));
    frame(*sparse);
    // The CPU's cut cells and vertices on the same samples.
    uint64_t active = 0, vertices = 0;
    for (uint32_t z = 0; z + 1 < n[2]; ++z)
        for (uint32_t y = 0; y + 1 < n[1]; ++y)
            for (uint32_t x = 0; x + 1 < n[0]; ++x) {
                uint32_t mcCase = 0;
                for (int k = 0; k < 8; ++k)
                    if (float(value(x + mc::kCornerOffset[k][0], y + mc::kCornerOffset[k][1],
                                    z + mc::kCornerOffset[k][2])) >= iso)
                        mcCase |= 1u << k;
                const int count = mc::vertexCount(mcCase);
                active += count != 0;
                vertices += uint64_t(count);
            }
    const auto stats = sparse->statsOfFrame(0);
    ASSERT_TRUE(stats.has_value());
    EXPECT_FALSE(stats->overflow);
    EXPECT_EQ(stats->activeCells, active);
    EXPECT_EQ(stats->verticesWritten, vertices);
    EXPECT_GT(vertices, 100000u);
    uint64_t resident = 0;
    for (const auto& item : sparse->memoryReport())
        if (item.name.rfind("sparse volume", 0) == 0 && item.name != "sparse volume staging") resident += item.bytes;
    EXPECT_LT(resident, uint64_t(n[0]) * n[1] * n[2] / 8) << "resident bricks, not the volume";
}

} // namespace
