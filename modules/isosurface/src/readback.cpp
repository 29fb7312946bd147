// Read-back: the stats ring (never waits) and the tool/test read-backs
// (submit and wait on the device queue).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "iso_impl.h"
#include "pyramarch/isosurface/mc_tables.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/isosurface/testing.h"

namespace pyramarch::iso {

namespace {
uint32_t withHeadroom(uint32_t needed, float headroom) {
    // Whole triangles, rounded up so that the suggestion always holds `needed`.
    const double want =
        std::ceil(double(needed) * std::max(1.0f, std::isfinite(headroom) ? headroom : 1.0f) / 3.0) * 3.0;
    return uint32_t(std::min(want, double(0xFFFFFFFFu / 3u * 3u)));
}
} // namespace

uint32_t suggestCapacity(const IsoStats& stats, float headroom) { return withHeadroom(stats.verticesNeeded, headroom); }
uint32_t suggestIndexCapacity(const IsoStats& stats, float headroom) {
    return withHeadroom(stats.indicesNeeded, headroom);
}

SparseDomain suggestSparseCapacity(const IsoStats& stats, float headroom) {
    const double h = std::max(1.0f, std::isfinite(headroom) ? headroom : 1.0f);
    const auto scaled = [h](uint32_t needed, double limit) {
        return uint32_t(std::clamp(std::ceil(double(needed) * h), 1.0, limit));
    };
    SparseDomain d;
    d.enabled = true;
    d.maxBricks = scaled(stats.sparseBricksNeeded, double(kMaxSparseBricks));
    d.maxRowPairs = scaled(stats.sparseRowPairsNeeded, double(0xFFFFFFFFu));
    // User fields list no balls: 0 keeps the default.
    d.maxItemRefs = stats.sparseItemRefsNeeded ? scaled(stats.sparseItemRefsNeeded, double(0xFFFFFFFFu)) : 0u;
    // Volumes from an octree: the surface bricks its leaves marked (uploads: censusSparseVolume()).
    d.maxVolumeBricks =
        stats.sparseVolumeBricksNeeded ? scaled(stats.sparseVolumeBricksNeeded, double(0xFFFFFFFFu)) : 0u;
    return d;
}

std::optional<IsoTimings> IsoSurface::latestTimings() const {
    const Impl& m = *impl_;
    if (!m.timingGraph || !m.graphFrameKnown) return std::nullopt;
    std::optional<IsoTimings> t = m.timingGraph->latestTimingsOf(m.info.name + ".");
    if (!t) return std::nullopt;
    // Graph frames -> the surface's frames (modulo 2^64: a graph built
    // after a growth starts at 0 while the surface is at frame F).
    t->frame -= m.graphFrameOffset;
    if (t->frame >= frame_) return std::nullopt;
    return t;
}

std::optional<IsoStats> IsoSurface::latestStats() const {
    const Impl& m = *impl_;
    if (frame_ < uint64_t(m.info.framesInFlight) + 1) return std::nullopt;
    return statsOfFrame(frame_ - 1 - m.info.framesInFlight);
}

std::optional<IsoStats> IsoSurface::statsOfFrame(uint64_t frame) const {
    if (frame >= frame_) return std::nullopt;
    // A frame before a sparse domain's growth: the surface that recorded it
    // (held until released).
    const Impl* recorder = impl_.get();
    if (frame < recorder->firstFrame) {
        recorder = nullptr;
        for (const Impl::Replaced& r : impl_->replaced)
            if (r.impl && r.impl->firstFrame <= frame && (!recorder || r.impl->firstFrame > recorder->firstFrame))
                recorder = r.impl.get();
        if (!recorder) return std::nullopt;
    }
    return recorder->statsOf(frame);
}

std::optional<IsoStats> IsoSurface::Impl::statsOf(uint64_t frame) const {
    const Impl& m = *this;
    m.stats.invalidate();
    gpu::IsoStatsGpu s;
    std::memcpy(&s, static_cast<const uint8_t*>(m.stats.mapped()) + sizeof(s) * (frame % m.ring), sizeof(s));
    if (!s.valid || s.frame != uint32_t(frame)) return std::nullopt;
    IsoStats out;
    out.frame = frame;
    out.verticesNeeded = s.verticesNeeded;
    out.verticesWritten = s.verticesWritten;
    out.activeCells = s.activeCells;
    out.overflow = s.overflow != 0;
    out.indicesNeeded = s.indicesNeeded;
    out.indicesWritten = s.indicesWritten;
    out.sparseBricksNeeded = s.sparseBricks;
    out.sparseRowPairsNeeded = s.sparseSlots;
    out.sparseItemRefsNeeded = s.sparseItemRefs;
    out.sparseCrowdedBricks = s.sparseCrowdedBricks;
    out.sparseVolumeBricksNeeded = s.sparseVolumeBricks;
    const Impl::CapacityEpoch& epoch = m.epochOf(frame);
    out.vertexCapacity = epoch.vertices;
    out.indexCapacity = epoch.indices;
    out.sparseBrickCapacity = epoch.bricks;
    out.sparseRowPairCapacity = epoch.rowPairs;
    const bool items = m.info.source == FieldSource::Metaballs || m.info.source == FieldSource::Particles;
    if (m.sparse && items) out.sparseItemRefCapacity = m.info.sparse.maxItemRefs;
    uint32_t& bits = out.overflowed;
    if (out.verticesNeeded > out.vertexCapacity) bits |= kOverflowVertices;
    if (m.indexed && out.indicesNeeded > out.indexCapacity) bits |= kOverflowIndices;
    if (m.sparse) {
        if (out.sparseBricksNeeded > out.sparseBrickCapacity) bits |= kOverflowSparseBricks;
        if (out.sparseRowPairsNeeded > out.sparseRowPairCapacity) bits |= kOverflowSparseRowPairs;
        if (items && out.sparseItemRefsNeeded > out.sparseItemRefCapacity) bits |= kOverflowSparseItemRefs;
        if (out.sparseVolumeBricksNeeded > m.info.sparse.maxVolumeBricks) bits |= kOverflowSparseVolumeBricks;
    }
    if (epoch.grown && epoch.firstFrame == frame) {
        out.grown = true;
        out.grownAfterFrame = epoch.grownAfter;
        out.previousVertexCapacity = epoch.previousVertices;
        out.previousIndexCapacity = epoch.previousIndices;
        out.previousSparseBrickCapacity = epoch.previousBricks;
        out.previousSparseRowPairCapacity = epoch.previousRowPairs;
    }
    if (m.sparse && m.info.source == FieldSource::Volume) {
        // Recorded on the host: a later frame may have taken the slot since.
        const Impl::IsoOutside& o = m.isoOutsideBySlot[frame % m.ring];
        if (o.frame != frame) return std::nullopt;
        out.isoOutsideUpload = o.outside;
        out.overflow = out.overflow || o.outside;
    }
    return out;
}

Result<Mesh> IsoSurface::readMesh(bool weld) {
    auto verts = readVertices();
    if (!verts) return verts.status();
    Mesh mesh;
    const std::vector<IsoVertexData>& v = verts.value();
    mesh.positions.resize(v.size());
    mesh.normals.resize(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
        mesh.positions[i] = {v[i].position[0], v[i].position[1], v[i].position[2]};
        mesh.normals[i] = {v[i].normal[0], v[i].normal[1], v[i].normal[2]};
    }
    if (impl_->indexed) {
        PYRAMARCH_TRY_ASSIGN(mesh.indices, readIndices());
    } else {
        mesh.indices.resize(v.size() / 3 * 3);
        for (uint32_t i = 0; i < mesh.indices.size(); ++i) mesh.indices[i] = i;
    }
    if (impl_->attributes.components) {
        // surfaceAttributes: interleaved per vertex, split per attribute.
        PYRAMARCH_TRY_ASSIGN(const std::vector<float> values, readAttributes());
        const uint32_t stride = impl_->attributes.components;
        const size_t count = std::min(v.size(), values.size() / stride);
        for (size_t a = 0; a < impl_->info.surfaceAttributes.size(); ++a) {
            const SurfaceAttribute& sa = impl_->info.surfaceAttributes[a];
            MeshAttribute out{sa.name, sa.components, std::vector<float>(v.size() * sa.components, 0.f)};
            for (size_t i = 0; i < count; ++i)
                for (uint32_t c = 0; c < sa.components; ++c)
                    out.values[i * sa.components + c] = values[i * stride + impl_->attributes.offsets[a] + c];
            mesh.attributes.push_back(std::move(out));
        }
    }
    if (weld) return weldMesh(mesh);
    return mesh;
}

namespace {
// Vertex and index buffers may hold gigabytes (several storage bindings):
// read them through a staging buffer of at most 64 MiB at a time.
Status readInChunks(Device& device, const Buffer& src, void* out, VkDeviceSize bytes) {
    constexpr VkDeviceSize kChunk = VkDeviceSize(64) << 20;
    for (VkDeviceSize at = 0; at < bytes; at += kChunk)
        PYRAMARCH_TRY(readBuffer(device, src, static_cast<char*>(out) + at, std::min(kChunk, bytes - at), at));
    return {};
}
} // namespace

Result<std::vector<IsoVertexData>> IsoSurface::readVertices() {
    Impl& m = *impl_;
    auto args = readBufferAs<gpu::IsoArgs>(*m.device, m.args, 1);
    if (!args) return args.status().withContext("isosurface '" + m.info.name + "': reading draw args: ");
    const uint32_t count = std::min(args.value()[0].verticesWritten, m.grid.vertexCapacity);
    std::vector<IsoVertexData> out(count);
    if (count) {
        Status s = readInChunks(*m.device, m.vertices, out.data(), VkDeviceSize(count) * sizeof(IsoVertexData));
        if (!s) return s.withContext("isosurface '" + m.info.name + "': reading vertices: ");
    }
    return out;
}

Result<std::vector<uint32_t>> IsoSurface::readIndices() {
    Impl& m = *impl_;
    PYRAMARCH_ASSERT(m.indexed, "readIndices on a surface without indexed output");
    auto args = readBufferAs<gpu::IsoArgs>(*m.device, m.args, 1);
    if (!args) return args.status().withContext("isosurface '" + m.info.name + "': reading draw args: ");
    const uint32_t count = std::min(args.value()[0].indexCount, m.grid.indexCapacity);
    std::vector<uint32_t> out(count);
    if (count) {
        Status s = readInChunks(*m.device, m.indexedOutput.indices, out.data(), VkDeviceSize(count) * 4);
        if (!s) return s.withContext("isosurface '" + m.info.name + "': reading indices: ");
    }
    return out;
}

Result<std::vector<float>> IsoSurface::readField() {
    Impl& m = *impl_;
    if (m.fusedField)
        return Status::error(ErrorCode::InvalidState,
                             "isosurface '" + m.info.name +
                                 "': readField: no field buffer (a sparse domain, or a user field without loops: "
                                 "field() runs where it is read)");
    auto f = readBufferAs<float>(*m.device, m.field, m.grid.samples.w);
    if (!f) return f.status().withContext("isosurface '" + m.info.name + "': reading field: ");
    return f;
}

Result<std::vector<std::vector<uint32_t>>> IsoSurface::readPyramid() {
    Impl& m = *impl_;
    const uint32_t top = m.grid.levelCount - 1;
    const uint64_t total = uint64_t(m.grid.levels[top].x) + 1;
    auto all = readBufferAs<uint32_t>(*m.device, m.pyramid, total);
    if (!all) return all.status().withContext("isosurface '" + m.info.name + "': reading pyramid: ");
    // Decoded to the logical view: u8 levels unpacked, level 0 as count | case << 4.
    const std::vector<uint32_t>& w = all.value();
    std::vector<std::vector<uint32_t>> levels(m.grid.levelCount);
    for (uint32_t l = 0; l < m.grid.levelCount; ++l) {
        const uint32_t base = m.grid.levels[l].x;
        levels[l].resize(m.grid.levels[l].y);
        for (uint32_t i = 0; i < m.grid.levels[l].y; ++i) {
            if (l >= m.grid.packedLevels) {
                levels[l][i] = w[base + i];
                continue;
            }
            const uint32_t v = (w[base + i / 4] >> (8 * (i & 3))) & 0xffu;
            levels[l][i] = l == 0 ? uint32_t(mc::vertexCount(v)) | v << gpu::kIsoCaseShift : v;
        }
        // Bytes past a packed level's end are 0 (the walk reads whole words).
        if (l < m.grid.packedLevels && (m.grid.levels[l].y & 3) != 0) {
            const uint32_t last = w[base + m.grid.levels[l].y / 4];
            if ((last >> (8 * (m.grid.levels[l].y & 3))) != 0)
                return Status::error(ErrorCode::InvalidState, "isosurface '" + m.info.name + "': pyramid level " +
                                                                  std::to_string(l) + " has bytes past its end");
        }
    }
    return levels;
}

Result<std::vector<uint32_t>> IsoSurface::readActiveCells() {
    Impl& m = *impl_;
    PYRAMARCH_ASSERT(m.scanBaseline.enabled, "IsoSurface::readActiveCells needs testing::ExtractionMethod::Scan");
    // The list's length is the occupancy total; the stats ring may lag, so
    // read it from the tree's top (or the single cell when there is no tree).
    const uint32_t top = m.grid.levelCount - 1;
    uint32_t count = 0;
    if (top == 0) {
        auto base = readBufferAs<uint32_t>(*m.device, m.pyramid, 1);
        if (!base) return base.status().withContext("isosurface '" + m.info.name + "': reading pyramid: ");
        count = mc::vertexCount(base.value()[0] & 0xffu) != 0 ? 1u : 0u; // level 0: u8 MC case
    } else {
        const ScanStage& scan = m.scanBaseline;
        auto occ = readBufferAs<uint32_t>(*m.device, scan.occupancy, uint64_t(scan.occGrid.levels[top].z) + 1);
        if (!occ) return occ.status().withContext("isosurface '" + m.info.name + "': reading occupancy: ");
        count = occ.value()[scan.occGrid.levels[top].z];
    }
    count = std::min(count, m.grid.cells.w);
    std::vector<uint32_t> out(count);
    if (count) {
        Status s = readBuffer(*m.device, m.scanBaseline.active, out.data(), VkDeviceSize(count) * 4);
        if (!s) return s.withContext("isosurface '" + m.info.name + "': reading active cells: ");
    }
    return out;
}

Result<std::vector<uint32_t>> IsoSurface::readDrawArgs() {
    Impl& m = *impl_;
    auto a = readBufferAs<uint32_t>(*m.device, m.args, sizeof(gpu::IsoArgs) / 4);
    if (!a) return a.status().withContext("isosurface '" + m.info.name + "': reading args: ");
    return a;
}

struct TestingAccess {
    static Result<std::unique_ptr<IsoSurface>> create(Device& device, const IsoSurfaceCreateInfo& info,
                                                      const testing::Knobs& knobs) {
        return IsoSurface::create(device, info, knobs);
    }
    static uint32_t maxGroupsX(const IsoSurface& s) { return s.impl_->grid.maxGroupsX; }
    static uint32_t extractTriangles(const IsoSurface& s, uint32_t triangles) {
        return gpu::isoExtractTrianglesFor(triangles, s.impl_->extractTriangles(), s.impl_->extractMinGroups());
    }
    static bool subgroupAtomics(const IsoSurface& s) { return s.impl_->subgroupAtomics; }
    static bool texelReads(const IsoSurface& s) { return s.impl_->texelReads; }
    static bool particleTexelReads(const IsoSurface& s) { return s.impl_->particles.texelReads; }
    static bool sparseTexelReads(const IsoSurface& s) { return s.impl_->particles.sparseTexelReads; }
    static testing::SplatMethod splatMethod(const IsoSurface& s) {
        if (s.impl_->info.source != FieldSource::Particles) return testing::SplatMethod::Auto;
        return s.impl_->particles.gather ? testing::SplatMethod::Gather : testing::SplatMethod::Scatter;
    }
    static Result<std::vector<std::vector<uint32_t>>> readPyramid(IsoSurface& s) { return s.readPyramid(); }
    static Result<std::vector<uint32_t>> readDrawArgs(IsoSurface& s) { return s.readDrawArgs(); }
    static Result<std::vector<uint32_t>> readActiveCells(IsoSurface& s) { return s.readActiveCells(); }
    static Result<std::vector<float>> readRunBounds(IsoSurface& s) {
        const IsoSurface::Impl& m = *s.impl_;
        PYRAMARCH_ASSERT(m.info.source == FieldSource::Volume, "readRunBounds needs FieldSource::Volume");
        const uint64_t runs = groupsOf(m.grid.cells.w, gpu::kIsoClassifyCells);
        const uint32_t cx = m.grid.cells.x;
        PYRAMARCH_TRY_ASSIGN(const std::vector<float> first,
                             readBufferAs<float>(*m.device, m.volumeSource.runBounds, runs * 2));
        PYRAMARCH_TRY_ASSIGN(
            const std::vector<float> wrap,
            readBufferAs<float>(*m.device, m.volumeSource.wrapBounds, uint64_t(m.grid.cells.y) * m.grid.cells.z * 2));
        // (first row's min, max, the rest's min, max) per run; no rest: (inf, -inf).
        std::vector<float> out(runs * 4);
        for (uint64_t r = 0; r < runs; ++r) {
            const uint64_t cell = r * gpu::kIsoClassifyCells, row = cell / cx;
            const uint64_t n = std::min<uint64_t>(gpu::kIsoClassifyCells, m.grid.cells.w - cell);
            const bool past = cell - row * cx + n > cx;
            out[4 * r] = first[2 * r];
            out[4 * r + 1] = first[2 * r + 1];
            out[4 * r + 2] = past ? wrap[2 * row] : std::numeric_limits<float>::infinity();
            out[4 * r + 3] = past ? wrap[2 * row + 1] : -std::numeric_limits<float>::infinity();
        }
        return out;
    }
    static bool directBricks(const IsoSurface& s) { return s.impl_->direct; }
    static Result<std::vector<testing::BlockSlot>> readBlockSlots(IsoSurface& s) {
        const IsoSurface::Impl& m = *s.impl_;
        if (!m.sparse || m.info.source != FieldSource::Particles || s.framesRecorded() == 0)
            return Status::error(ErrorCode::InvalidState,
                                 "isosurface '" + m.info.name +
                                     "': readBlockSlots: needs a recorded sparse particle frame");
        const std::optional<IsoStats> stats = s.statsOfFrame(s.framesRecorded() - 1);
        if (!stats) return Status::error(ErrorCode::InvalidState, "isosurface '" + m.info.name + "': no stats yet");
        const uint32_t listed = std::min(stats->sparseBricksNeeded, m.info.sparse.maxBricks);
        std::vector<testing::BlockSlot> out(listed);
        if (listed == 0) return out;
        auto bricks = readBufferAs<uint32_t>(*m.device, m.brickListing.brickList, listed);
        if (!bricks) return bricks.status();
        auto slots = readBufferAs<uint32_t>(*m.device, m.sparseVolume.brickSlots, listed);
        if (!slots) return slots.status();
        for (uint32_t i = 0; i < listed; ++i) out[i] = {bricks.value()[i], slots.value()[i]};
        std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.brick < b.brick; });
        return out;
    }
    static Result<std::vector<float>> readParticleBlock(IsoSurface& s, uint32_t slot) {
        const IsoSurface::Impl& m = *s.impl_;
        if (!m.sparse || m.info.source != FieldSource::Particles || slot >= m.info.sparse.maxBricks)
            return Status::error(
                ErrorCode::InvalidState,
                "isosurface '" + m.info.name +
                    "': readParticleBlock: needs a sparse particle surface and a slot below maxBricks");
        const uint32_t perBuffer = m.sizes.volumePoolBricks;
        return readBufferAs<float>(*m.device, m.sparseVolume.pools[slot / perBuffer], gpu::kIsoVolumeBrickSamples,
                                   uint64_t(slot % perBuffer) * gpu::kIsoVolumeBrickSamples * sizeof(float));
    }
    static Status poisonField(IsoSurface& s, uint32_t bits) {
        const IsoSurface::Impl& m = *s.impl_;
        if (m.fusedField) return {}; // no buffer: nothing a pass could read stale
        return submitAndWait(*m.device, [&](VkCommandBuffer cmd) {
            m.device->vk().vkCmdFillBuffer(cmd, m.field.handle(), 0, VK_WHOLE_SIZE, bits);
        });
    }
    static Result<std::vector<uint32_t>> readFieldTiles(IsoSurface& s) {
        const IsoSurface::Impl& m = *s.impl_;
        if (!m.fieldTiles.list.valid())
            return Status::error(ErrorCode::InvalidState, "isosurface '" + m.info.name +
                                                              "': readFieldTiles: the field is not evaluated by tiles");
        auto words = readBufferAs<uint32_t>(*m.device, m.fieldTiles.list, 4 + FieldTileStage::tiles(m.grid));
        if (!words) return words.status().withContext("isosurface '" + m.info.name + "': reading field tiles: ");
        const uint32_t listed = std::min<uint32_t>(words.value()[1], uint32_t(FieldTileStage::tiles(m.grid)));
        std::vector<uint32_t> out(words.value().begin() + 4, words.value().begin() + 4 + listed);
        std::sort(out.begin(), out.end());
        return out;
    }
    static Result<testing::SmoothedParticles> readSmoothedParticles(IsoSurface& s) {
        const IsoSurface::Impl& m = *s.impl_;
        PYRAMARCH_ASSERT(m.particles.smooth, "readSmoothedParticles needs particleSmoothing > 0");
        testing::SmoothedParticles out;
        if (m.sparse) {
            // By particle index, no sort.
            PYRAMARCH_TRY_ASSIGN(out.smoothed,
                                 readBufferAs<float>(*m.device, m.particles.smoothed, uint64_t(m.maxItems) * 4));
            return out;
        }
        PYRAMARCH_TRY_ASSIGN(out.sorted, readBufferAs<float>(*m.device, m.particles.sorted, uint64_t(m.maxItems) * 4));
        PYRAMARCH_TRY_ASSIGN(out.smoothed,
                             readBufferAs<float>(*m.device, m.particles.smoothed, uint64_t(m.maxItems) * 4));
        return out;
    }
    static Result<testing::ParticleVolumes> readParticleVolumes(IsoSurface& s) {
        const IsoSurface::Impl& m = *s.impl_;
        if (!m.particles.sph)
            return Status::error(ErrorCode::InvalidState,
                                 "isosurface '" + m.info.name + "': no particle volumes (needs SphCubicSpline)");
        testing::ParticleVolumes out;
        if (m.sparse) {
            // A volume per particle of the frame, by its index.
            PYRAMARCH_TRY_ASSIGN(out.volumes,
                                 readBufferAs<float>(*m.device, m.particles.volumes, uint64_t(m.maxItems)));
            out.binned = m.maxItems;
            return out;
        }
        PYRAMARCH_TRY_ASSIGN(out.volumes,
                             readBufferAs<float>(*m.device, m.particles.volumes, uint64_t(m.maxItems) * 4));
        auto starts = readBufferAs<uint32_t>(*m.device, m.particles.binStart, uint64_t(m.grid.binDims.w) + 1);
        if (!starts) return starts.status();
        out.binned = starts.value().back();
        return out;
    }
    static Result<testing::AnisotropicKernelRecords> readAnisotropicKernels(IsoSurface& s) {
        const IsoSurface::Impl& m = *s.impl_;
        PYRAMARCH_ASSERT(m.particles.aniso, "readAnisotropicKernels needs anisotropic.enabled");
        testing::AnisotropicKernelRecords out;
        if (m.sparse) {
            // By particle index, no sort.
            PYRAMARCH_TRY_ASSIGN(out.kernels,
                                 readBufferAs<float>(*m.device, m.particles.kernels,
                                                     uint64_t(m.maxItems) * 4 * gpu::kIsoAnisoRecordVec4s));
            out.binned = m.maxItems;
            return out;
        }
        PYRAMARCH_TRY_ASSIGN(out.sorted, readBufferAs<float>(*m.device, m.particles.sorted, uint64_t(m.maxItems) * 4));
        PYRAMARCH_TRY_ASSIGN(out.kernels, readBufferAs<float>(*m.device, m.particles.kernels,
                                                              uint64_t(m.maxItems) * 4 * gpu::kIsoAnisoRecordVec4s));
        auto starts = readBufferAs<uint32_t>(*m.device, m.particles.binStart, uint64_t(m.grid.binDims.w) + 1);
        if (!starts) return starts.status();
        out.binned = starts.value().back();
        return out;
    }
    static Result<testing::GatherBins> readGatherBins(IsoSurface& s) {
        const IsoSurface::Impl& m = *s.impl_;
        if (!m.particles.gather)
            return Status::error(ErrorCode::InvalidState,
                                 "isosurface '" + m.info.name + "': readGatherBins: this surface has no gather bins");
        testing::GatherBins out;
        out.dims = {m.grid.binDims.x, m.grid.binDims.y, m.grid.binDims.z};
        out.pad = {m.grid.binPad.x, m.grid.binPad.y, m.grid.binPad.z};
        PYRAMARCH_TRY_ASSIGN(out.starts,
                             readBufferAs<uint32_t>(*m.device, m.particles.binStart, uint64_t(m.grid.binDims.w) + 1));
        return out;
    }
};

namespace testing {
Result<std::unique_ptr<IsoSurface>> create(Device& device, const IsoSurfaceCreateInfo& info, const Knobs& knobs) {
    return TestingAccess::create(device, info, knobs);
}
uint32_t maxGroupsX(const IsoSurface& surface) { return TestingAccess::maxGroupsX(surface); }
uint32_t extractTriangles(const IsoSurface& surface, uint32_t triangles) {
    return TestingAccess::extractTriangles(surface, triangles);
}
bool subgroupAtomics(const IsoSurface& surface) { return TestingAccess::subgroupAtomics(surface); }
bool texelReads(const IsoSurface& surface) { return TestingAccess::texelReads(surface); }
bool particleTexelReads(const IsoSurface& surface) { return TestingAccess::particleTexelReads(surface); }
bool sparseTexelReads(const IsoSurface& surface) { return TestingAccess::sparseTexelReads(surface); }
SplatMethod splatMethod(const IsoSurface& surface) { return TestingAccess::splatMethod(surface); }
Result<std::vector<std::vector<uint32_t>>> readPyramid(IsoSurface& surface) {
    return TestingAccess::readPyramid(surface);
}
Result<std::vector<uint32_t>> readDrawArgs(IsoSurface& surface) { return TestingAccess::readDrawArgs(surface); }
Result<std::vector<uint32_t>> readActiveCells(IsoSurface& surface) { return TestingAccess::readActiveCells(surface); }
Result<std::vector<float>> readRunBounds(IsoSurface& surface) { return TestingAccess::readRunBounds(surface); }
bool directBricks(const IsoSurface& surface) { return TestingAccess::directBricks(surface); }
Result<std::vector<BlockSlot>> readBlockSlots(IsoSurface& surface) { return TestingAccess::readBlockSlots(surface); }
Result<std::vector<float>> readParticleBlock(IsoSurface& surface, uint32_t slot) {
    return TestingAccess::readParticleBlock(surface, slot);
}
Status poisonField(IsoSurface& surface, uint32_t bits) { return TestingAccess::poisonField(surface, bits); }
Result<std::vector<uint32_t>> readFieldTiles(IsoSurface& surface) { return TestingAccess::readFieldTiles(surface); }
Result<ParticleVolumes> readParticleVolumes(IsoSurface& surface) { return TestingAccess::readParticleVolumes(surface); }
Result<SmoothedParticles> readSmoothedParticles(IsoSurface& surface) {
    return TestingAccess::readSmoothedParticles(surface);
}
Result<AnisotropicKernelRecords> readAnisotropicKernels(IsoSurface& surface) {
    return TestingAccess::readAnisotropicKernels(surface);
}
Result<GatherBins> readGatherBins(IsoSurface& surface) { return TestingAccess::readGatherBins(surface); }
} // namespace testing

} // namespace pyramarch::iso
