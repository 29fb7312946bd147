// Sparse volumes (FieldSource::Volume on a sparse domain): only the bricks
// near the surface are ever resident. An upload reads the volume once, slab
// by slab, on the host: each brick of 8^3 cells gets the value range of its
// 9^3 samples (value * scale + offset, NaN as -infinity: what the GPU
// computes); a brick is a surface brick where an iso value of the upload's
// range can cut one of its cells (min < iso <= max), and its pool slot gets
// the 11^3 samples its cells and their normals read (8b - 1 .. 8b + 9 per
// axis; zeros past the volume, which the shaders' clamps never read), in
// the upload's format. Neighbouring bricks repeat their shared samples:
// no table, and one brick answers every read of its cells.
// Passes, every frame (then those of sparse.cpp):
//   "<name>.sparse.volume.upload"  on the frame after an upload: the staged
//                                  surface bricks and pool to the device
//   "<name>.sparse.activate"       the surface bricks this frame's iso value
//                                  cuts -> the brick list and each one's slot
//                                  (sparse_volume_activate.comp)
//   "<name>.sparse.args"           their count -> classify's indirect dispatch
// Classify and extraction read the listed brick's block
// (sparse_volume_field.glsl).
#include "sparse_volume.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <exception>

#include "iso_impl.h"
#include "pyramarch/isosurface/raw_volume.h"

namespace pyramarch::iso {
namespace {

constexpr uint32_t kBrick = gpu::kIsoBrickCells;
constexpr uint32_t kSide = gpu::kIsoVolumeBrickSide;

// The volume's samples, bricks of cells and slab sizes.
struct VolumeBricks {
    uint32_t samples[3]{};
    uint32_t cells[3]{}; // bricks of cells per axis
    size_t sampleBytes = 0, sliceBytes = 0;

    VolumeBricks(const std::array<uint32_t, 3>& s, VolumeFormat format) {
        for (int a = 0; a < 3; ++a) {
            samples[a] = s[a];
            cells[a] = (s[a] - 1 + kBrick - 1) / kBrick;
        }
        sampleBytes = volumeFormatBytes(format);
        sliceBytes = size_t(s[0]) * s[1] * sampleBytes;
    }
    uint64_t brickCount() const { return uint64_t(cells[0]) * cells[1] * cells[2]; }
};

// A brick of cells whose range an iso value of the upload's can cut.
struct SurfaceBrick {
    uint32_t x, y, z;
    float lo, hi;
};

// value * scale + offset in two rounded steps (the module builds with
// -ffp-contract=off), NaN as -infinity: field_volume.comp's and
// sparse_volume_field.glsl's value, bit for bit.
float convertValue(float v, float scale, float offset) {
    const float scaled = v * scale;
    const float result = scaled + offset;
    return std::isnan(result) ? -std::numeric_limits<float>::infinity() : result;
}

// One row of samples, converted (u8 and u16 through a table of every value).
class RowConverter {
public:
    explicit RowConverter(const VolumeSlabs& v) : format_(v.format), scale_(v.scale), offset_(v.offset) {
        const uint32_t values = format_ == VolumeFormat::U8 ? 256u : format_ == VolumeFormat::U16 ? 65536u : 0u;
        table_.resize(values);
        for (uint32_t i = 0; i < values; ++i) table_[i] = convertValue(float(i), scale_, offset_);
    }
    void convert(const uint8_t* row, uint32_t count, float* out) const {
        if (format_ == VolumeFormat::U8) {
            for (uint32_t i = 0; i < count; ++i) out[i] = table_[row[i]];
        } else if (format_ == VolumeFormat::U16) {
            for (uint32_t i = 0; i < count; ++i) {
                uint16_t u;
                std::memcpy(&u, row + 2 * i, 2);
                out[i] = table_[u];
            }
        } else {
            for (uint32_t i = 0; i < count; ++i) {
                float f;
                std::memcpy(&f, row + 4 * i, 4);
                out[i] = convertValue(f, scale_, offset_);
            }
        }
    }

private:
    VolumeFormat format_;
    float scale_, offset_;
    std::vector<float> table_;
};

Status checkUpload(const VolumeSlabs& volume, float isoMin, float isoMax, const std::string& who) {
    if (!volume.read) return Status::error(ErrorCode::InvalidArgument, who + "VolumeSlabs::read is empty");
    if (!std::isfinite(volume.scale) || !std::isfinite(volume.offset))
        return Status::error(ErrorCode::InvalidArgument, who + "volume scale/offset must be finite");
    if (!std::isfinite(isoMin) || !std::isfinite(isoMax) || isoMin > isoMax)
        return Status::error(ErrorCode::InvalidArgument, who + "iso range [" + std::to_string(isoMin) + ", " +
                                                             std::to_string(isoMax) +
                                                             "] must be finite with min <= max");
    return {};
}

// The slab of a layer of bricks: the slices its bricks' blocks read.
struct Slab {
    const uint8_t* data;
    uint32_t first; // slice of data[0]
};
using SurfaceFn = std::function<void(const SurfaceBrick&, const Slab&)>;

// Every surface brick of the iso range, in brick order (z, then y, then x),
// with the slab of its layer: slices 8 z - 1 .. 8 z + 9 (those in the volume).
Status forEachSurfaceBrick(const VolumeSlabs& volume, const VolumeBricks& g, float isoMin, float isoMax,
                           const SurfaceFn& found, const std::string& who) {
    const uint32_t sx = g.samples[0], sy = g.samples[1], sz = g.samples[2];
    const uint32_t bx = g.cells[0], by = g.cells[1];
    const RowConverter converter(volume);
    // One layer's slices and per-brick ranges are all an upload holds: a
    // volume whose slices alone exceed memory is an error, not a crash
    // (8192^2 f32 slices: 2.75 GiB a slab).
    constexpr uint64_t kMaxSlabBytes = 4ull << 30;
    if (uint64_t(g.sliceBytes) > kMaxSlabBytes / kSide)
        return Status::error(ErrorCode::OutOfMemory, who + "a slab of " + std::to_string(kSide) + " slices of " +
                                                         fmtBytes(g.sliceBytes) + " each is over the " +
                                                         fmtBytes(kMaxSlabBytes) + " an upload holds");
    std::vector<uint8_t> slab;
    std::vector<float> row, lo, hi, rowLo, rowHi;
    try {
        slab.resize(g.sliceBytes * kSide);
        row.resize(sx);
        lo.resize(size_t(bx) * by);
        hi.resize(size_t(bx) * by);
        rowLo.resize(bx);
        rowHi.resize(bx);
    } catch (const std::exception&) { // bad_alloc, or length_error past max_size()
        return Status::error(ErrorCode::OutOfMemory, who + "cannot hold a slab of " + std::to_string(kSide) +
                                                         " slices (" + fmtBytes(g.sliceBytes * kSide) + ")");
    }
    constexpr float inf = std::numeric_limits<float>::infinity();
    for (uint32_t layer = 0; layer < g.cells[2]; ++layer) {
        // The layer's cells read slices z0 .. z1; their blocks first .. last.
        const uint32_t z0 = layer * kBrick, z1 = std::min(z0 + kBrick, sz - 1);
        const uint32_t first = z0 ? z0 - 1 : 0, last = std::min(z0 + kBrick + 1, sz - 1);
        Status s = volume.read(first, last - first + 1, slab.data());
        if (!s)
            return s.withContext(who + "reading slices " + std::to_string(first) + ".." + std::to_string(last) + ": ");
        std::fill(lo.begin(), lo.end(), inf);
        std::fill(hi.begin(), hi.end(), -inf);
        for (uint32_t z = z0; z <= z1; ++z)
            for (uint32_t y = 0; y < sy; ++y) {
                converter.convert(slab.data() + (z - first) * g.sliceBytes + size_t(y) * sx * g.sampleBytes, sx,
                                  row.data());
                // Brick bx's cells read samples 8 bx .. 8 bx + 8.
                for (uint32_t b = 0; b < bx; ++b) {
                    float l = inf, h = -inf;
                    const uint32_t xEnd = std::min(b * kBrick + kBrick, sx - 1);
                    for (uint32_t x = b * kBrick; x <= xEnd; ++x) {
                        l = std::min(l, row[x]);
                        h = std::max(h, row[x]);
                    }
                    rowLo[b] = l;
                    rowHi[b] = h;
                }
                // Row y belongs to brick y / 8 and, on a brick border, to the one below.
                const uint32_t rowBricks[2] = {y / kBrick, y % kBrick == 0 && y > 0 ? y / kBrick - 1 : by};
                for (uint32_t brickY : rowBricks) {
                    if (brickY >= by) continue;
                    float* l = lo.data() + size_t(brickY) * bx;
                    float* h = hi.data() + size_t(brickY) * bx;
                    for (uint32_t b = 0; b < bx; ++b) {
                        l[b] = std::min(l[b], rowLo[b]);
                        h[b] = std::max(h[b], rowHi[b]);
                    }
                }
            }
        // A cut cell needs a sample >= iso and one below it: min < iso <= max.
        const Slab layerSlab{slab.data(), first};
        for (uint32_t y = 0; y < by; ++y)
            for (uint32_t x = 0; x < bx; ++x) {
                const float l = lo[size_t(y) * bx + x], h = hi[size_t(y) * bx + x];
                if (l < h && l < isoMax && h >= isoMin) found({x, y, layer, l, h}, layerSlab);
            }
    }
    return {};
}

// Brick b's block (samples 8b - 1 .. 8b + 9 per axis, those in the volume;
// zeros elsewhere) from its layer's slab into `out` (kIsoVolumeBrickSamples samples).
void copyBlock(const VolumeBricks& g, const SurfaceBrick& b, const Slab& slab, uint8_t* out) {
    const size_t each = g.sampleBytes;
    std::memset(out, 0, size_t(gpu::kIsoVolumeBrickSamples) * each);
    const int64_t lo[3] = {int64_t(b.x) * kBrick - 1, int64_t(b.y) * kBrick - 1, int64_t(b.z) * kBrick - 1};
    const int64_t xFirst = std::max<int64_t>(lo[0], 0), xLast = std::min<int64_t>(lo[0] + kSide - 1, g.samples[0] - 1);
    for (uint32_t k = 0; k < kSide; ++k) {
        const int64_t z = lo[2] + k;
        if (z < 0 || z >= int64_t(g.samples[2])) continue;
        for (uint32_t j = 0; j < kSide; ++j) {
            const int64_t y = lo[1] + j;
            if (y < 0 || y >= int64_t(g.samples[1])) continue;
            const uint8_t* src =
                slab.data + size_t(z - slab.first) * g.sliceBytes + (size_t(y) * g.samples[0] + size_t(xFirst)) * each;
            std::memcpy(out + ((size_t(k) * kSide + j) * kSide + size_t(xFirst - lo[0])) * each, src,
                        size_t(xLast - xFirst + 1) * each);
        }
    }
}

} // namespace

Result<SparseVolumeCensus> censusSparseVolume(const VolumeSlabs& volume, const std::array<uint32_t, 3>& samples,
                                              float isoMin, float isoMax) {
    const std::string who = "censusSparseVolume: ";
    PYRAMARCH_TRY(checkUpload(volume, isoMin, isoMax, who));
    for (uint32_t s : samples)
        if (s < 2) return Status::error(ErrorCode::InvalidArgument, who + "need at least 2 samples per axis");
    const VolumeBricks g(samples, volume.format);
    SparseVolumeCensus c;
    c.bricks = g.brickCount();
    PYRAMARCH_TRY(forEachSurfaceBrick(
        volume, g, isoMin, isoMax, [&c](const SurfaceBrick&, const Slab&) { ++c.surfaceBricks; }, who));
    c.poolBytes = uint64_t(c.surfaceBricks) * gpu::kIsoVolumeBrickSamples * g.sampleBytes;
    return c;
}

// Sparse volumes: the surface bricks, the pool, the slots and the staging.
// Sparse particles: the pool of the listed bricks' blocks (written every
// frame by <name>.sparse.blocks) and the slots only.
Status SparseVolumeStage::createBuffers(Impl& m, const MakeBuffer& make) {
    const IsoSurfaceCreateInfo& info = m.info;
    const IsoSizes& sizes = m.sizes;
    const bool particles = info.source == FieldSource::Particles;
    const VkBufferUsageFlags dst = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    if (!particles)
        PYRAMARCH_TRY(
            make(surface, sizes.volumeSurfaceBytes, dst, MemoryUsage::DeviceLocal, "sparse volume surface bricks"));
    // The pool: slots [i * volumePoolBricks, (i + 1) * volumePoolBricks) in buffer i.
    const uint64_t brickBytes = uint64_t(gpu::kIsoVolumeBrickSamples) * volumeFormatBytes(m.blockPoolFormat());
    const uint64_t capacity = particles ? info.sparse.maxBricks : info.sparse.maxVolumeBricks;
    const std::string poolName = particles ? "sparse particle blocks" : "sparse volume pool";
    for (uint32_t i = 0; i < sizes.volumePoolCount; ++i) {
        const uint64_t bricks =
            std::min<uint64_t>(sizes.volumePoolBricks, capacity - uint64_t(i) * sizes.volumePoolBricks);
        PYRAMARCH_TRY(make(pools[i], (bricks * brickBytes + 3) / 4 * 4,
                           dst | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                           MemoryUsage::DeviceLocal, i == 0 ? poolName : poolName + " " + std::to_string(i)));
    }
    // Read back by testing::readBlockSlots (the pool by testing::readParticleBlock).
    PYRAMARCH_TRY(make(brickSlots, sizes.volumeSlotBytes,
                       VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT, MemoryUsage::DeviceLocal,
                       particles ? "sparse particle block slots" : "sparse volume brick slots"));
    if (particles) return {};
    // The host-visible staging of the surface bricks, then the pool, comes
    // with each upload (VolumeProvider::stage); this stands in for it.
    if (m.octreeInput) return {}; // the octree's passes write both on the GPU
    return make(m.volumeSource.rawIdle, 16, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, MemoryUsage::Upload,
                "sparse volume staging");
}

Status SparseVolumeStage::upload(Impl& m, const VolumeSlabs& volume, float isoMin, float isoMax) {
    const IsoSurfaceCreateInfo& info = m.info;
    const IsoSizes& sizes = m.sizes;
    const std::string who = "isosurface '" + info.name + "': uploadVolume: ";
    if (m.octreeInput)
        return Status::error(ErrorCode::InvalidState, who + "the surface bricks come from an octree every frame "
                                                            "(SparseVolumeInput::OctreeLeaves), not from uploads");
    PYRAMARCH_TRY(checkUpload(volume, isoMin, isoMax, who));
    if (volume.format != info.sparse.volumeFormat)
        return Status::error(ErrorCode::InvalidArgument,
                             who + "a " + volumeFormatName(volume.format) + " volume, but the sparse pool holds " +
                                 volumeFormatName(info.sparse.volumeFormat) + " samples (SparseDomain::volumeFormat)");
    const VolumeBricks g({m.grid.samples.x, m.grid.samples.y, m.grid.samples.z}, volume.format);
    // Staging: the surface bricks (uvec4: list entry, min and max bits), then
    // the pool; bricks past the capacity are only counted.
    PYRAMARCH_TRY(m.volumeSource.stage(m, sizes.volumeSurfaceBytes + sizes.volumePoolBytes));
    uint8_t* staging = static_cast<uint8_t*>(m.volumeSource.raw.mapped());
    uint8_t* pool = staging + sizes.volumeSurfaceBytes;
    const size_t brickBytes = size_t(gpu::kIsoVolumeBrickSamples) * g.sampleBytes;
    const uint32_t capacity = info.sparse.maxVolumeBricks;
    // The staging is rewritten from here: a pending upload's copy no longer matches it.
    uploadPending = false;
    uint64_t found = 0;
    Status s = forEachSurfaceBrick(
        volume, g, isoMin, isoMax,
        [&](const SurfaceBrick& b, const Slab& slab) {
            const uint64_t slot = found++;
            if (slot >= capacity) return;
            uint32_t entry[4] = {b.x | (b.y << gpu::kIsoBrickAxisBits) | (b.z << (2 * gpu::kIsoBrickAxisBits)), 0, 0,
                                 0};
            std::memcpy(&entry[1], &b.lo, 4);
            std::memcpy(&entry[2], &b.hi, 4);
            std::memcpy(staging + slot * 16, entry, sizeof(entry));
            copyBlock(g, b, slab, pool + slot * brickBytes);
        },
        who);
    if (!s) return s;
    if (found > capacity)
        return Status::error(ErrorCode::CapacityExceeded,
                             who + "the iso values [" + std::to_string(isoMin) + ", " + std::to_string(isoMax) +
                                 "] cut " + std::to_string(found) + " surface bricks, over sparse.maxVolumeBricks " +
                                 std::to_string(capacity) + " (censusSparseVolume() counts them)");
    m.volumeSource.raw.flush();
    pendingSurfaceBricks = uint32_t(found);
    pendingIsoMin = isoMin;
    pendingIsoMax = isoMax;
    m.volumeSource.format = volumeFormatOf(volume.format);
    m.volumeSource.scale = volume.scale;
    m.volumeSource.offset = volume.offset;
    uploadPending = true;
    return {};
}

void SparseVolumeStage::importBuffers(Impl& m, RenderGraph& graph, IsoRefs& refs) {
    const IsoSurfaceCreateInfo& info = m.info;
    const ExternalUse computeRead{Access::StorageRead, PassKind::Compute};
    const ExternalUse copyRead{Access::TransferSrc, PassKind::Transfer};
    const bool particles = info.source == FieldSource::Particles;
    const std::string n = info.name + (particles ? ".sparse.blocks" : ".sparse.volume");
    if (!particles) {
        if (!m.octreeInput) refs.volumeStaging = m.volumeSource.importStaging(m, graph, n + ".staging", copyRead);
        refs.volumeSurface = graph.importBuffer(n + ".surface", surface, computeRead, computeRead);
    }
    for (uint32_t i = 0; i < gpu::kIsoVolumePools; ++i)
        refs.volumePools[i] = i < m.sizes.volumePoolCount ? graph.importBuffer(n + ".pool" + std::to_string(i),
                                                                               pools[i], computeRead, computeRead)
                                                          : refs.volumePools[0];
    refs.volumeBrickSlots = graph.importBuffer(n + ".slots", brickSlots, computeRead, computeRead);
}

void SparseVolumeStage::addUploadPass(Impl& m, RenderGraph& graph, const IsoRefs& refs) {
    PassBuilder pass = graph.addPass(m.info.name + ".sparse.volume.upload", PassKind::Transfer);
    pass.use(refs.volumeStaging, Access::TransferSrc).use(refs.volumeSurface, Access::TransferDst);
    for (uint32_t i = 0; i < m.sizes.volumePoolCount; ++i) pass.use(refs.volumePools[i], Access::TransferDst);
    pass.record([this, &m, refs](PassContext& ctx) {
        const IsoSizes& sizes = m.sizes;
        if (!uploadPending) return;
        uploadPending = false;
        m.volumeSource.rawConvertedAt = m.recording();
        const VkBuffer src = ctx.buffer(refs.volumeStaging);
        const auto copy = [&](BufferRef dst, VkDeviceSize from, VkDeviceSize bytes) {
            if (bytes == 0) return;
            const VkBufferCopy region{from, 0, bytes};
            ctx.vk->vkCmdCopyBuffer(ctx.cmd, src, ctx.buffer(dst), 1, &region);
        };
        const VkDeviceSize brickBytes =
            VkDeviceSize(gpu::kIsoVolumeBrickSamples) * volumeFormatBytes(m.info.sparse.volumeFormat);
        copy(refs.volumeSurface, 0, VkDeviceSize(pendingSurfaceBricks) * 16);
        for (uint32_t i = 0; i < sizes.volumePoolCount; ++i) {
            const uint64_t first = uint64_t(i) * sizes.volumePoolBricks;
            if (first >= pendingSurfaceBricks) break;
            const uint64_t bricks = std::min<uint64_t>(sizes.volumePoolBricks, pendingSurfaceBricks - first);
            copy(refs.volumePools[i], sizes.volumeSurfaceBytes + first * brickBytes, bricks * brickBytes);
        }
        m.volumeSurfaceBricks = pendingSurfaceBricks;
        m.volumeIsoMin = pendingIsoMin;
        m.volumeIsoMax = pendingIsoMax;
    });
}

} // namespace pyramarch::iso
