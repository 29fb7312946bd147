// Field source: particles (field_particles.h): the sizing and checks, the
// buffers, the imports, and the tiles the dense field pass (the gather, or
// the scatter's resolve) flags where they hold a nonzero value, which on the
// direct brick table the bricks' list reads (brick_list.comp's particle
// build, brick_list.cpp). The passes: field_particles_gather.cpp,
// field_particles_splat.cpp, field_particles_sparse.cpp.
#include "field_particles.h"

#include <algorithm>
#include <cmath>

#include "iso_impl.h"
#include "pyramarch/isosurface/testing.h"

namespace pyramarch::iso {

Status ParticleProvider::plan(Impl& m, gpu::IsoGrid& g, const DeviceLimits& lim, const std::string& dev) {
    const IsoSurfaceCreateInfo& info = m.info;
    const uint64_t range = lim.maxStorageBufferRange;
    const testing::SplatMethod splatForced = m.splatForced;
    if (info.maxParticles == 0)
        return Status::error(ErrorCode::InvalidArgument,
                             "isosurface '" + info.name + "': maxParticles must be > 0 for particles");
    if (!std::isfinite(info.particleRadius) || !(info.particleRadius > 0.f))
        return Status::error(ErrorCode::InvalidArgument,
                             "isosurface '" + info.name + "': particleRadius must be finite and > 0");
    m.maxItems = info.maxParticles;
    m.external = info.particleInput == ParticleInput::GpuBuffer;
    // Host input: the ring holds Particle records (setParticles packs them).
    g.particleLayout = {4, 0, 3, 0};
    if (m.external) {
        const Buffer* pb = info.particleBuffer;
        const uint32_t stride = info.particleStride, posOff = info.particlePositionOffset,
                       wOff = info.particleWeightOffset;
        const bool weighted = wOff != kNoParticleWeight;
        if (stride < 12 || stride % 4 != 0)
            return Status::error(ErrorCode::InvalidArgument,
                                 "isosurface '" + info.name + "': particleStride " + std::to_string(stride) +
                                     " bytes, need a multiple of 4 that is at least 12 (x, y, z floats)");
        if (posOff % 4 != 0 || uint64_t(posOff) + 12 > stride)
            return Status::error(ErrorCode::InvalidArgument,
                                 "isosurface '" + info.name + "': particlePositionOffset " + std::to_string(posOff) +
                                     " must be a multiple of 4 with offset + 12 <= " + "particleStride (" +
                                     std::to_string(stride) + ")");
        if (weighted && (wOff % 4 != 0 || uint64_t(wOff) + 4 > stride))
            return Status::error(ErrorCode::InvalidArgument,
                                 "isosurface '" + info.name + "': particleWeightOffset " + std::to_string(wOff) +
                                     " must be a multiple of 4 with offset + 4 <= particleStride (" +
                                     std::to_string(stride) + "), or kNoParticleWeight");
        const uint64_t recordEnd = std::max<uint64_t>(uint64_t(posOff) + 12, weighted ? uint64_t(wOff) + 4 : 0);
        const uint64_t need = uint64_t(info.maxParticles - 1) * stride + recordEnd;
        m.externalParticleBytes = need;
        g.particleLayout = {stride / 4, posOff / 4, weighted ? wOff / 4 : gpu::kIsoNoWeight, 0};
        if (!pb || !pb->valid())
            return Status::error(ErrorCode::InvalidArgument,
                                 "isosurface '" + info.name + "': particleInput GpuBuffer needs particleBuffer");
        if (pb->size() < need)
            return Status::error(ErrorCode::InvalidArgument,
                                 "isosurface '" + info.name + "': particleBuffer holds " + fmtBytes(pb->size()) +
                                     ", maxParticles " + std::to_string(info.maxParticles) + " need " + fmtBytes(need));
        if (need > range)
            return Status::error(ErrorCode::DeviceLimit, "isosurface '" + info.name + "': maxParticles " +
                                                             std::to_string(info.maxParticles) + " need " +
                                                             fmtBytes(need) + ", over maxStorageBufferRange (" +
                                                             fmtBytes(range) + ")" + dev);
    } else if (info.particleBuffer) {
        return Status::error(ErrorCode::InvalidArgument,
                             "isosurface '" + info.name + "': particleBuffer is set but particleInput is Host");
    }
    // The field pass flags its nonzero tiles where bounds read them.
    g.particleLayout.w = m.direct ? 1u : 0u;
    if (!std::isfinite(info.particleSmoothing) || info.particleSmoothing < 0.f || info.particleSmoothing > 1.f)
        return Status::error(ErrorCode::InvalidArgument, "isosurface '" + info.name + "': particleSmoothing " +
                                                             std::to_string(info.particleSmoothing) +
                                                             " must be finite and in [0, 1] (0: off)");
    // SplatMethod::Auto (see isosurface.h for the measurements): the
    // passes that need the sorted particles, and CPU drivers, gather;
    // GPUs scatter. A gather whose bins do not fit falls back below.
    if (info.particleKernel != ParticleKernel::NeighbourCount && info.particleKernel != ParticleKernel::SphCubicSpline)
        return Status::error(ErrorCode::InvalidArgument, "isosurface '" + info.name + "': particleKernel " +
                                                             std::to_string(int(info.particleKernel)) +
                                                             " is not a ParticleKernel");
    const bool sphKernel = info.particleKernel == ParticleKernel::SphCubicSpline;
    const bool needsGather = info.particleSmoothing > 0.f || info.anisotropic.enabled || sphKernel;
    const bool cpuLike =
        lim.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU || lim.deviceType == VK_PHYSICAL_DEVICE_TYPE_OTHER;
    // A sparse domain sums each brick's particles itself: no bins, no accumulator.
    using testing::SplatMethod;
    const SplatMethod splat = m.sparse                           ? SplatMethod::Scatter
                              : splatForced != SplatMethod::Auto ? splatForced
                              : needsGather || cpuLike           ? SplatMethod::Gather
                                                                 : SplatMethod::Scatter;
    if (info.particleSmoothing > 0.f && splat != SplatMethod::Gather && !m.sparse)
        return Status::error(ErrorCode::InvalidArgument,
                             "isosurface '" + info.name +
                                 "': particleSmoothing needs SplatMethod::Gather (it smooths the sorted particles)");
    if (sphKernel && splat != SplatMethod::Gather && !m.sparse)
        return Status::error(ErrorCode::InvalidArgument,
                             "isosurface '" + info.name +
                                 "': ParticleKernel::SphCubicSpline needs SplatMethod::Gather (the density pass "
                                 "reads the sorted particles' neighbours)");
    const AnisotropicKernels& an = info.anisotropic;
    if (an.enabled) {
        const std::string at = "isosurface '" + info.name + "': anisotropic.";
        const auto bad = [&](const char* field, float v, const char* range) {
            return Status::error(ErrorCode::InvalidArgument,
                                 at + field + " " + std::to_string(v) + " must be finite and in " + range);
        };
        if (!std::isfinite(an.neighbourhood) || !(an.neighbourhood > 0.f) || an.neighbourhood > 4.f)
            return bad("neighbourhood", an.neighbourhood, "(0, 4] (particle radii)");
        if (!std::isfinite(an.maxRatio) || !(an.maxRatio >= 1.f) || an.maxRatio > 64.f)
            return bad("maxRatio", an.maxRatio, "[1, 64]");
        if (!std::isfinite(an.maxStretch) || !(an.maxStretch >= 1.f) || an.maxStretch > 4.f)
            return bad("maxStretch", an.maxStretch, "[1, 4] (particle radii)");
        if (!std::isfinite(an.isotropicRatio) || !(an.isotropicRatio > 0.f) || an.isotropicRatio > 1.f)
            return bad("isotropicRatio", an.isotropicRatio, "(0, 1]");
        if (!std::isfinite(an.isolatedScale) || !(an.isolatedScale > 0.f) || an.isolatedScale > an.maxStretch)
            return bad("isolatedScale", an.isolatedScale, "(0, maxStretch] (particle radii)");
        if (an.minNeighbours < 1)
            return Status::error(ErrorCode::InvalidArgument, at + "minNeighbours must be >= 1 (itself counts)");
        if (splat != SplatMethod::Gather && !m.sparse)
            return Status::error(ErrorCode::InvalidArgument,
                                 "isosurface '" + info.name +
                                     "': anisotropic kernels need SplatMethod::Gather (they are computed from "
                                     "the sorted particles' neighbours)");
        const uint64_t kernelBytes = uint64_t(info.maxParticles) * 16 * gpu::kIsoAnisoRecordVec4s;
        if (kernelBytes > range)
            return Status::error(ErrorCode::DeviceLimit,
                                 "isosurface '" + info.name + "': maxParticles " + std::to_string(info.maxParticles) +
                                     " anisotropic kernels need " + fmtBytes(kernelBytes) +
                                     ", over maxStorageBufferRange (" + fmtBytes(range) + ")" + dev);
    }
    g.particle = {info.particleRadius, 1.f / (info.particleRadius * info.particleRadius), info.particleSmoothing,
                  an.enabled ? an.isotropicRatio : 0.f};
    gather = splat == SplatMethod::Gather;
    aniso = an.enabled;
    sph = sphKernel && (gather || m.sparse);
    // With anisotropic kernels the aniso pass moves the kernel centres
    // itself (same neighbourhood mean): no separate smooth pass.
    smooth = info.particleSmoothing > 0.f && !aniso;
    if (m.sparse && (smooth || aniso)) {
        // Each particle is listed in the bricks within `list` of it and
        // its smoothing, density or kernel shape summed over its home
        // brick's list (sparse_particles_neighbours.comp): the list
        // reaches past the field's reach (where the moved or stretched
        // kernel adds to a sample) and every neighbourhood read; a
        // particle past `filter` of the grid is not listed (neither it
        // nor anything it is a neighbour of reaches a sample).
        const double r = info.particleRadius, lambda = info.particleSmoothing;
        double reach, list, chain;
        if (aniso) {
            const double hood = r * double(an.neighbourhood);
            reach = r * double(an.maxStretch) + lambda * hood;
            list = std::max({reach, hood, sph ? r : 0.0});
            chain = std::max(hood, sph ? r : 0.0);
        } else {
            // SPH: the density of the smoothed particles, whose
            // neighbours within r were within (1 + 2 lambda) r before
            // moving, each moved by its own neighbours within r.
            reach = (1.0 + lambda) * r;
            list = sph ? (1.0 + 2.0 * lambda) * r : reach;
            chain = sph ? (2.0 + 2.0 * lambda) * r : r;
        }
        g.sparseParticleReach = {float(list), float(reach + chain), float(reach), 0.f};
    }
    if (sph && m.sparse && !(smooth || aniso)) {
        // Every neighbour of a particle then reaches a sample of its
        // cell, so its home brick lists them all (sparse_particles_density.comp).
        const float sp[3] = {g.spacing.x, g.spacing.y, g.spacing.z};
        for (int a = 0; a < 3; ++a)
            if (!(info.particleRadius >= sp[a]))
                return Status::error(ErrorCode::InvalidArgument,
                                     "isosurface '" + info.name + "': particleRadius " +
                                         std::to_string(info.particleRadius) + " under the sample spacing " +
                                         std::to_string(sp[a]) + " along " + "xyz"[a] +
                                         ": a sparse domain's SphCubicSpline needs a support of at "
                                         "least one sample");
    }
    g.anisotropic = aniso ? 1u : 0u;
    if (aniso) {
        g.aniso = {an.neighbourhood * info.particleRadius, an.maxRatio, an.maxStretch, an.isolatedScale};
        g.anisoReach.w = an.minNeighbours;
    }
    if (gather) {
        // Bins = cells of the sample lattice, grown by the cells whose
        // particles reach a sample: a particle in cell c reaches samples
        // in [c - floor(r/h), c + ceil(r/h)] (h the spacing), so the bins
        // cover cells [-ceil(r/h), N - 1 + floor(r/h)] per axis.
        // With position smoothing (lambda) a particle moves at most
        // lambda r, so the bins reach (2 + lambda) r: the neighbours
        // (within r) of every particle that can reach a sample after
        // moving are binned. The moved particles are binned again (same
        // bins), so the gather reads the cells within r.
        uint64_t dims[3], pad[3], reach[3];
        uint32_t below[3], above[3], near[3], anisoNear[3] = {0, 0, 0};
        const float sp[3] = {g.spacing.x, g.spacing.y, g.spacing.z};
        const double lambda = smooth || aniso ? double(info.particleSmoothing) : 0.0;
        for (int a = 0; a < 3; ++a) {
            const double cellsPerRadius = double(info.particleRadius) / sp[a];
            if (cellsPerRadius > 65536.0)
                return Status::error(ErrorCode::InvalidArgument, "isosurface '" + info.name + "': particleRadius " +
                                                                     std::to_string(info.particleRadius) +
                                                                     " spans more than 65536 samples");
            // The smoothed particles are binned again: the gather reads
            // the cells within r, as without smoothing.
            double gatherCells = cellsPerRadius;
            double binCells = smooth ? cellsPerRadius * (2.0 + lambda) : cellsPerRadius;
            if (aniso) {
                // Not re-binned: the gather reads the sorted particles'
                // kernels, centres up to lambda x neighbourhood from
                // their particle, reaching maxStretch radii; the bins
                // also hold those particles' neighbours.
                const double hood = cellsPerRadius * double(an.neighbourhood);
                gatherCells = cellsPerRadius * double(an.maxStretch) + lambda * hood;
                binCells = gatherCells + hood;
                anisoNear[a] = uint32_t(std::ceil(hood));
            }
            // SPH: every particle the gather (or the aniso pass) reads
            // has its neighbours within r binned for its density.
            if (sph) binCells = std::max(binCells, gatherCells + cellsPerRadius);
            pad[a] = uint64_t(std::ceil(binCells));
            reach[a] = uint64_t(std::floor(binCells));
            below[a] = uint32_t(std::ceil(gatherCells));
            above[a] = uint32_t(std::floor(gatherCells));
            near[a] = uint32_t(std::ceil(cellsPerRadius));
            dims[a] = uint64_t(info.samples[a]) + pad[a] + reach[a];
        }
        g.gatherBelow = {below[0], below[1], below[2], 0};
        g.gatherAbove = {above[0], above[1], above[2], 0};
        g.smoothReach = {near[0], near[1], near[2], 0};
        g.anisoReach = {anisoNear[0], anisoNear[1], anisoNear[2], g.anisoReach.w};
        const uint64_t total = dims[0] * dims[1] * dims[2];
        const bool binsFit = (total + 1) * 4 <= range && total + 1 <= 0xFFFFFFFFull;
        if (!binsFit && splatForced == testing::SplatMethod::Auto && !needsGather) {
            gather = false; // Auto: the scatter needs no bins
            g.gatherBelow = {0, 0, 0, 0};
            g.gatherAbove = {0, 0, 0, 0};
        } else if (!binsFit) {
            // The bins grow with the grid: a sparse domain has none
            // (Auto only: an explicit gather stays an error).
            return m.gridTooLarge = splatForced == testing::SplatMethod::Auto,
                   Status::error(ErrorCode::DeviceLimit, "isosurface '" + info.name + "': particle gather needs " +
                                                             std::to_string(total) +
                                                             " bins (one per sample cell, grown by particleRadius " +
                                                             std::to_string(info.particleRadius) +
                                                             "), their starts exceed maxStorageBufferRange (" +
                                                             fmtBytes(range) + ")" + dev + "; use fewer samples");
        } else {
            g.binDims = {uint32_t(dims[0]), uint32_t(dims[1]), uint32_t(dims[2]), uint32_t(total)};
            g.binPad = {uint32_t(pad[0]), uint32_t(pad[1]), uint32_t(pad[2]), 0};
            g.binReach = {uint32_t(reach[0]), uint32_t(reach[1]), uint32_t(reach[2]), 0};
        }
    }
    return {};
}

Status ParticleProvider::planSparse(Impl& m, const gpu::IsoGrid& g, const DeviceLimits& lim, uint64_t range,
                                    const std::string& dev) {
    const IsoSurfaceCreateInfo& info = m.info;
    // The blocks pass splits each brick's slices over kIsoBlockSplit threads
    // (lavapipe's per-invocation loop limit), so its workgroup is larger than
    // the 128 invocations Vulkan guarantees.
    const uint32_t blockGroup = gpu::kIsoBricksPerGroup * gpu::kIsoBlockThreads;
    if (lim.maxComputeWorkGroupInvocations < blockGroup || lim.maxComputeWorkGroupSize[0] < blockGroup)
        return Status::error(
            ErrorCode::DeviceLimit,
            "isosurface '" + info.name + "': sparse particles need compute workgroups of " +
                std::to_string(blockGroup) + " invocations; the device allows " +
                std::to_string(std::min(lim.maxComputeWorkGroupInvocations, lim.maxComputeWorkGroupSize[0])) + dev);
    const uint32_t bx = g.sparse.x, by = g.sparse.y, bz = g.sparse.z;
    // Particles count into a table of every brick of the virtual grid (4
    // bytes a brick: 64 MiB at 2047^3) and mark their super-bricks.
    const uint64_t table = uint64_t(g.sparseLimits.z) * 4;
    if (table > range)
        return Status::error(ErrorCode::DeviceLimit,
                             "isosurface '" + info.name + "': sparse domain: the brick table of " +
                                 std::to_string(g.sparseLimits.z) + " bricks (" + std::to_string(bx) + "x" +
                                 std::to_string(by) + "x" + std::to_string(bz) + ") needs " + fmtBytes(table) +
                                 ", over maxStorageBufferRange (" + fmtBytes(range) + ")" + dev +
                                 "; particles need a smaller virtual grid");
    tableBytes = table;
    // Each listed brick's sub-cells and a place per home particle
    // (sparse_particles_cells.glsl).
    const uint64_t cells =
        (gpu::kIsoCellHeader + uint64_t(gpu::kIsoCellWords) * info.sparse.maxBricks + 2 * uint64_t(info.maxParticles)) *
        4;
    if (cells > range)
        return Status::error(ErrorCode::DeviceLimit,
                             "isosurface '" + info.name + "': sparse domain: the sub-cells of maxBricks " +
                                 std::to_string(info.sparse.maxBricks) + " and maxParticles " +
                                 std::to_string(info.maxParticles) + " need " + fmtBytes(cells) +
                                 ", over maxStorageBufferRange (" + fmtBytes(range) + ")" + dev);
    cellBytes = cells;
    return {};
}

void ParticleProvider::planReads(Impl& m, const DeviceLimits& lim) {
    const IsoSurfaceCreateInfo& info = m.info;
    const uint64_t recordTexels = uint64_t(m.maxItems) * (aniso ? gpu::kIsoAnisoRecordVec4s : 1u);
    texelReads = !m.storageReadsForced && gather && recordTexels <= lim.maxTexelBufferElements &&
                 uint64_t(m.grid.binDims.w) + 1 <= lim.maxTexelBufferElements;
    const uint64_t texelLimit = uint64_t(lim.maxTexelBufferElements) * 4;
    sparseTexelReads = !m.storageReadsForced && m.sparse && info.source == FieldSource::Particles && !m.external &&
                       uint64_t(m.maxItems) * m.itemBytes() * m.ring <= texelLimit &&
                       m.sizes.sparseItemBytes <= texelLimit && cellBytes <= texelLimit &&
                       uint64_t(m.maxItems) * 4 <= lim.maxTexelBufferElements;
}

Status ParticleProvider::createBuffers(Impl& m, const MakeBuffer& make) {
    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    const VkBufferUsageFlags readable = storage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    const VkBufferUsageFlags texels = VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT;
    const uint64_t items = m.maxItems;
    if (sph && m.sparse)
        PYRAMARCH_TRY(make(volumes, items * 4, readable | VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUsage::DeviceLocal,
                           "particle volumes"));
    // Sparse particles: the smoothed particles or the kernel records by
    // particle index, cleared every frame (sparse_particles_neighbours.comp).
    if (m.sparse && smooth)
        PYRAMARCH_TRY(make(smoothed, items * 16, readable | texels | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                           MemoryUsage::DeviceLocal, "smoothed particles"));
    if (m.sparse && aniso)
        PYRAMARCH_TRY(make(kernels, items * 16 * gpu::kIsoAnisoRecordVec4s, readable | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                           MemoryUsage::DeviceLocal, "anisotropic kernels"));
    if (!gather && !m.sparse)
        PYRAMARCH_TRY(make(accum, m.sizes.samples * 4, storage | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                           MemoryUsage::DeviceLocal, "accum"));
    if (gather) {
        const uint64_t bins = m.grid.binDims.w;
        PYRAMARCH_TRY(make(binCount, bins * 4, storage | VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUsage::DeviceLocal,
                           "bin counts"));
        PYRAMARCH_TRY(make(binChunks, groupsOf(bins, gpu::kIsoBinScanChunk) * 4, storage, MemoryUsage::DeviceLocal,
                           "bin chunk sums"));
        // Readable: testing::readAnisotropicKernels reads the binned count.
        // Texel usage: the passes after the sort read them as texels (texelReads).
        PYRAMARCH_TRY(make(binStart, (bins + 1) * 4, readable | texels, MemoryUsage::DeviceLocal, "bin starts"));
        PYRAMARCH_TRY(make(slots, items * 4, storage, MemoryUsage::DeviceLocal, "particle slots"));
        PYRAMARCH_TRY(make(sorted, items * 16, readable | texels, MemoryUsage::DeviceLocal, "sorted particles"));
        if (smooth) PYRAMARCH_TRY(make(smoothed, items * 16, readable, MemoryUsage::DeviceLocal, "smoothed particles"));
        if (smooth)
            PYRAMARCH_TRY(make(rebinned, items * 16, readable | texels, MemoryUsage::DeviceLocal,
                               "re-binned smoothed particles"));
        if (sph)
            PYRAMARCH_TRY(make(volumes, items * 16, readable | texels, MemoryUsage::DeviceLocal, "particle volumes"));
        if (aniso)
            PYRAMARCH_TRY(make(kernels, items * 16 * gpu::kIsoAnisoRecordVec4s, readable | texels,
                               MemoryUsage::DeviceLocal, "anisotropic kernels"));
    }
    if (!m.sparse && m.grid.particleLayout.w != 0)
        PYRAMARCH_TRY(make(tileFlags, tiles(m.grid) * 4, storage, MemoryUsage::DeviceLocal, "tile flags"));
    return {};
}

Status ParticleProvider::createSparseBuffers(Impl& m, const MakeBuffer& make) {
    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    const VkBufferUsageFlags texels = VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT;
    const VkBufferUsageFlags cleared = storage | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    const uint64_t maxBricks = m.info.sparse.maxBricks;
    PYRAMARCH_TRY(make(brickTable, tableBytes, cleared, MemoryUsage::DeviceLocal, "sparse brick table"));
    PYRAMARCH_TRY(
        make(superMarks, m.brickListing.superBytes, cleared, MemoryUsage::DeviceLocal, "sparse super-brick marks"));
    PYRAMARCH_TRY(make(cellTable, cellBytes, cleared | texels, MemoryUsage::DeviceLocal, "sparse brick sub-cells"));
    // The block slots, kept from frame to frame.
    PYRAMARCH_TRY(make(slotOfBrick, tableBytes, storage, MemoryUsage::DeviceLocal, "sparse block slot of each brick"));
    PYRAMARCH_TRY(make(slotState, maxBricks * 8, cleared, MemoryUsage::DeviceLocal, "sparse block slot owners"));
    return make(freeSlots, maxBricks * 4, storage, MemoryUsage::DeviceLocal, "sparse free block slots");
}

void ParticleProvider::importBuffers(Impl& m, RenderGraph& graph, IsoRefs& refs) {
    const ExternalUse computeRead{Access::StorageRead, PassKind::Compute};
    const std::string& n = m.info.name;
    if (tileFlags.valid())
        refs.particleTiles = graph.importBuffer(n + ".tileFlags", tileFlags, computeRead, computeRead);
    if (!m.sparse) return;
    refs.brickTable = graph.importBuffer(n + ".sparse.brickTable", brickTable, computeRead, computeRead);
    refs.superMarks = graph.importBuffer(n + ".sparse.superMarks", superMarks, computeRead, computeRead);
    refs.cellTable = graph.importBuffer(n + ".sparse.cells", cellTable, computeRead, computeRead);
    refs.slotOfBrick = graph.importBuffer(n + ".sparse.slotOfBrick", slotOfBrick, computeRead, computeRead);
    refs.slotState = graph.importBuffer(n + ".sparse.slotState", slotState, computeRead, computeRead);
    refs.freeSlots = graph.importBuffer(n + ".sparse.freeSlots", freeSlots, computeRead, computeRead);
}

Status ParticleProvider::createPipelines(Impl& m) {
    return gather ? createGatherPipelines(m) : createSplatPipelines(m);
}

void ParticleProvider::addPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs) {
    if (gather)
        addGatherPasses(m, graph, refs);
    else
        addSplatPasses(m, graph, refs);
}

uint64_t ParticleProvider::tiles(const gpu::IsoGrid& g) {
    return groupsOf(g.samples.x, gpu::kIsoGatherColumn) * groupsOf(g.samples.y, gpu::kIsoGatherRows) * g.samples.z;
}

BufferRef ParticleProvider::tileFlagsRef(const IsoRefs& refs) {
    // Imported with the other buffers (importBuffers); the bricks' list reads it.
    return refs.particleTiles.valid() ? refs.particleTiles : refs.field;
}

} // namespace pyramarch::iso
