// IsoSurface: creation (layout.cpp plans, this file creates the buffers and
// asks each stage for its pipelines), the per-frame setters, addPasses() (the
// module's buffers imported once, then each stage adds its passes: see
// iso_impl.h for which file holds which pass) and record().
#include "pyramarch/isosurface/isosurface.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>

#include "iso_impl.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/isosurface/raw_volume.h"
#include "pyramarch/isosurface/testing.h"

namespace pyramarch::iso {

// The public layout constants and structs against the GPU's (iso_shared.h).
static_assert(kDrawArgsOffset == offsetof(gpu::IsoArgs, vertexCount), "draw command of the args buffer");
static_assert(kDrawIndexedArgsOffset == offsetof(gpu::IsoArgs, indexCount), "indexed draw command of the args buffer");
static_assert(kVertexStride == sizeof(gpu::IsoVertex) && sizeof(IsoVertexData) == sizeof(gpu::IsoVertex),
              "vertex layout");
static_assert(sizeof(Particle) == 16, "particles are copied as vec4 per particle");
static_assert(offsetof(Particle, position) == 0 && offsetof(Particle, weight) == 12,
              "Particle is read as vec4(xyz position, w weight) by the splat shaders");
static_assert(sizeof(Metaball) == 32 && offsetof(Metaball, center) == 0 && offsetof(Metaball, radius) == 12 &&
                  offsetof(Metaball, strength) == 16,
              "Metaball keeps the layout of gpu::IsoBall (xyz centre, w radius, then strength)");
static_assert(sizeof(Metaball) == sizeof(gpu::IsoBall), "Metaball and gpu::IsoBall are the same size");

IsoSurface::IsoSurface() : impl_(std::make_unique<Impl>()) { impl_->self = this; }
IsoSurface::~IsoSurface() = default;

Result<std::unique_ptr<IsoSurface>> IsoSurface::create(Device& device, const IsoSurfaceCreateInfo& info) {
    return create(device, info, testing::Knobs{});
}

Result<std::unique_ptr<IsoSurface>> IsoSurface::create(Device& device, const IsoSurfaceCreateInfo& info,
                                                       const testing::Knobs& knobs) {
    const DeviceLimits& lim = device.limits();
    // The largest device-local heap: a sparse domain's default memory budget is a quarter of it.
    uint64_t heap = knobs.deviceLocalHeapBytes;
    if (!heap) {
        const VkPhysicalDeviceMemoryProperties& mp = device.memoryProperties();
        for (uint32_t h = 0; h < mp.memoryHeapCount; ++h)
            if (mp.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
                heap = std::max<uint64_t>(heap, mp.memoryHeaps[h].size);
    }
    bool userFieldLoops = false;
    if (info.source == FieldSource::UserGlsl && knobs.fieldEvaluation == testing::FieldEvaluation::Auto &&
        knobs.extraction != testing::ExtractionMethod::Scan && !info.fieldGlsl.empty() && info.compileGlsl) {
        // A snippet that does not compile fails below with its own message.
        auto loops = UserFieldProvider::hasLoop(info);
        userFieldLoops = loops.ok() && loops.value();
    }
    const auto setUp = [&](const IsoSurfaceCreateInfo& ci) {
        auto surface = std::unique_ptr<IsoSurface>(new IsoSurface());
        Impl& m = *surface->impl_;
        m.device = &device;
        m.info = ci;
        m.foldGroupsX = knobs.maxGroupsX;
        m.extractMinGroupsForced = knobs.extractMinGroups;
        m.storageReadsForced = knobs.storageReads;
        m.denseFieldForced = knobs.denseField;
        m.volumePoolBricksForced = knobs.volumePoolBricks;
        m.outputSliceBytesForced = knobs.outputSliceBytes;
        m.extractionForced = knobs.extraction;
        m.splatForced = knobs.splat;
        m.fieldEvaluationForced = knobs.fieldEvaluation;
        m.heapBytes = heap;
        m.userField.loops = userFieldLoops;
        // Counters and list appends aggregated per subgroup: one atomic per
        // subgroup instead of one per thread, where the device runs ballot and
        // arithmetic in compute (their own SPIR-V variants: see extract_scan.cpp).
        constexpr VkSubgroupFeatureFlags kOps =
            VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
        m.subgroupAtomics = !knobs.perThreadAtomics && (lim.subgroupStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0 &&
                            (lim.subgroupOperations & kOps) == kOps;
        return surface;
    };
    // Output capacities left 0 start small and grow (growOutputs).
    IsoSurfaceCreateInfo started = info;
    const uint32_t startVertices = knobs.startOutputCapacity ? knobs.startOutputCapacity : kStartVertexCapacity;
    const uint32_t startIndices = knobs.startOutputCapacity ? knobs.startOutputCapacity : kStartIndexCapacity;
    if (started.vertexCapacity == 0) started.vertexCapacity = std::min(startVertices, maxVertexCapacity(lim));
    if (started.indexCapacity == 0 && info.indexed)
        started.indexCapacity = std::min(startIndices, maxIndexCapacity(lim));
    // The dense grid where it fits the device, else a sparse domain (layout.cpp).
    auto surface = setUp(started);
    const Status planned = surface->impl_->planLayout(
        started.sparse.enabled ? lim : denseLimits(lim, knobs.denseRangeBytes), device.name());
    if (!planned) {
        if (!mayFallBackToSparse(*surface->impl_, planned)) return planned;
        IsoSurfaceCreateInfo sparseInfo = started;
        sparseInfo.sparse.enabled = true;
        surface = setUp(sparseInfo);
        const Status fallback = surface->impl_->planLayout(lim, device.name());
        if (!fallback) return neitherDomainFits(planned, fallback);
    }
    // Sparse capacities left 0: the sizes just planned bound the growth; the
    // surface starts at a fraction of them (growSparseDomain).
    if (surface->impl_->sparse) {
        const IsoSurfaceCreateInfo& planned = surface->impl_->info;
        const SparseDomain most = planned.sparse;
        const bool byItems = info.source == FieldSource::Metaballs || info.source == FieldSource::Particles;
        // Volumes from an octree mark their bricks on the GPU every frame
        // (counted past the pool): they grow as the lists do. Uploaded
        // volumes keep the sizes their upload needs.
        const bool octree = surface->impl_->octreeInput;
        const bool growable = ((byItems || (info.source == FieldSource::UserGlsl && info.lipschitz > 0.f)) &&
                               info.sparse.volumeInput == SparseVolumeInput::Upload) ||
                              octree;
        const bool bricks = growable && info.sparse.maxBricks == 0, pairs = growable && info.sparse.maxRowPairs == 0;
        const bool refs = growable && byItems && info.sparse.maxItemRefs == 0;
        const bool volumeBricks = octree && info.sparse.maxVolumeBricks == 0;
        if (bricks || pairs || refs || volumeBricks) {
            IsoSurfaceCreateInfo small = planned;
            const uint32_t b = knobs.startSparseBricks;
            if (volumeBricks) small.sparse.maxVolumeBricks = std::min(most.maxVolumeBricks, b ? b : kStartSparseBricks);
            if (bricks) small.sparse.maxBricks = std::min(most.maxBricks, b ? b : kStartSparseBricks);
            if (pairs) small.sparse.maxRowPairs = std::min(most.maxRowPairs, b ? 8 * b : kStartSparseRowPairs);
            // Particles start at the references a brick lists by default,
            // balls at a few a brick (at most all of them).
            const uint64_t startRefsPerBrick = info.source == FieldSource::Particles
                                                   ? kDefaultSparseParticleRefsPerBrick
                                                   : std::min(info.maxBalls, b ? 4 : kStartSparseRefsPerBrick);
            if (refs)
                small.sparse.maxItemRefs = uint32_t(
                    std::min<uint64_t>(most.maxItemRefs, uint64_t(small.sparse.maxBricks) * startRefsPerBrick));
            auto smaller = setUp(small);
            // Where the smaller plan fails (it should not), the full sizes stay, fixed.
            if (smaller->impl_->planLayout(lim, device.name())) {
                surface = std::move(smaller);
                Impl& g = *surface->impl_;
                g.growBricks = bricks;
                g.growRowPairs = pairs;
                g.growItemRefs = refs;
                g.growVolumeBricks = volumeBricks;
                g.growBrickLimit = most.maxBricks;
                g.growRowPairLimit = most.maxRowPairs;
                g.growItemRefLimit = most.maxItemRefs;
                g.growVolumeBrickLimit = most.maxVolumeBricks;
            }
        }
    }
    Impl& m = *surface->impl_;
    surface->iso_ = info.isoValue;
    m.growVertices = info.vertexCapacity == 0;
    m.growIndices = info.indexed && info.indexCapacity == 0;
    m.memoryBudget = info.memoryBudget ? info.memoryBudget : (heap ? heap : (4ull << 30)) / 4;
    PYRAMARCH_TRY(m.planGrowth(lim));
    PYRAMARCH_TRY(m.createBuffers());
    if (info.memoryBudget) {
        uint64_t total = 0;
        for (const MemoryItem& item : m.memory) total += item.bytes;
        if (total > info.memoryBudget)
            return Status::error(ErrorCode::CapacityExceeded,
                                 "isosurface '" + info.name + "': the starting buffers take " + fmtBytes(total) +
                                     ", over memoryBudget (" + fmtBytes(info.memoryBudget) + ")");
    }
    m.epochs = {{.vertices = m.grid.vertexCapacity,
                 .indices = m.grid.indexCapacity,
                 .bricks = m.sparse ? m.info.sparse.maxBricks : 0,
                 .rowPairs = m.sparse ? m.info.sparse.maxRowPairs : 0}};
    PYRAMARCH_TRY(m.createPipelines());
    return surface;
}

// The largest output buffers growth may reach: the device's buffers and
// bindings, the dispatch fold, mesh smoothing's and the attributes' single
// bindings, and the budget; the pipelines' slice counts follow from them.
Status IsoSurface::Impl::planGrowth(const DeviceLimits& lim) {
    specVertexSlices = sizes.vertexSlices;
    specIndexSlices = sizes.indexSlices;
    if (!growVertices && !growIndices) return {};
    const uint64_t threads = uint64_t(grid.maxGroupsX) * lim.maxComputeWorkGroupCount[1] * uint64_t(gpu::kIsoGroupSize);
    uint64_t vertices =
        std::min<uint64_t>(maxOutputElements(lim, sizeof(gpu::IsoVertex), outputSliceBytesForced), 0xFFFFFFFFu);
    uint64_t indices = std::min<uint64_t>(maxOutputElements(lim, 4, outputSliceBytesForced), 0xFFFFFFFFu);
    vertices = std::min({vertices, threads, memoryBudget / sizeof(gpu::IsoVertex)});
    indices = std::min({indices, threads, memoryBudget / 4});
    meshSmoothing.limitGrowth(lim, vertices, indices);
    SurfaceAttributeStage::limitGrowth(info, lim, vertices);
    growVertexLimit = growVertices ? uint32_t(vertices / 3 * 3) : grid.vertexCapacity;
    growIndexLimit = growIndices ? uint32_t(indices / 3 * 3) : grid.indexCapacity;
    // The pipelines keep the slices the buffers have now: a slice count the
    // shaders must switch over at run time costs every vertex write (twice
    // the extract pass on lavapipe); a growth past them plans the surface
    // again (growOutputs).
    return {};
}

const IsoSurface::Impl::CapacityEpoch& IsoSurface::Impl::epochOf(uint64_t frame) const {
    for (size_t i = epochs.size(); i-- > 1;)
        if (epochs[i].firstFrame <= frame) return epochs[i];
    return epochs.front();
}

namespace {
// The buffers whose size follows the output capacities (re-created by growth).
struct OutputBuffers {
    Buffer grid, vertexGrid, vertices, indices, attributes;
    Buffer meshSmoothing[std::size(MeshSmoothStage::kBufferNames)];
};
constexpr const char* kOutputBufferNames[] = {"grid",    "vertex grid",        "vertices",
                                              "indices", "surface attributes", "replaced"};
bool isOutputBuffer(const std::string& name) {
    for (const char* n : kOutputBufferNames)
        if (name == n) return true;
    for (const char* n : MeshSmoothStage::kBufferNames)
        if (name == n) return true;
    return false;
}
} // namespace

void IsoSurface::Impl::noteReplaced() {
    std::erase_if(memory, [](const MemoryItem& item) { return item.name == "replaced"; });
    uint64_t bytes = 0;
    for (const Replaced& r : replaced) {
        for (const Buffer& b : r.buffers) bytes += b.size();
        if (r.impl)
            for (const MemoryItem& item : r.impl->memory)
                if (item.name != "replaced") bytes += item.bytes;
    }
    if (bytes) memory.push_back({"replaced", bytes, 1});
}

namespace {
// Over 90% used or overflowed: twice the size, at least the need and a
// quarter, at most `limit` (never below `capacity`).
uint32_t grownCapacity(uint32_t needed, uint32_t capacity, uint32_t limit) {
    if (uint64_t(needed) * 10 <= uint64_t(capacity) * 9) return capacity;
    const uint64_t w = std::max<uint64_t>(uint64_t(capacity) * 2, uint64_t(needed) + needed / 4 + 2);
    return uint32_t(std::max<uint64_t>(std::min<uint64_t>(w, limit), capacity));
}
} // namespace

// A sparse domain whose counters passed (or neared) its capacities: the
// surface planned again, larger, as a new Impl (buffers and pipelines),
// the host's items and attributes carried over; this Impl and record()'s
// graph retired until the frames in flight are done.
// This surface planned again with `ci` (other capacities) as a new Impl:
// its settings, growth limits and the host's inputs carried over (the ring
// slots are uploaded again: slotVersion 0).
Status IsoSurface::Impl::replan(const IsoSurfaceCreateInfo& ci, std::unique_ptr<Impl>& out) const {
    auto fresh = std::make_unique<Impl>();
    Impl& f = *fresh;
    f.self = self;
    f.device = device;
    f.info = ci;
    f.foldGroupsX = foldGroupsX;
    f.extractMinGroupsForced = extractMinGroupsForced;
    f.storageReadsForced = storageReadsForced;
    f.denseFieldForced = denseFieldForced;
    f.volumePoolBricksForced = volumePoolBricksForced;
    f.outputSliceBytesForced = outputSliceBytesForced;
    f.extractionForced = extractionForced;
    f.splatForced = splatForced;
    f.fieldEvaluationForced = fieldEvaluationForced;
    f.heapBytes = heapBytes;
    f.userField.loops = userField.loops;
    f.subgroupAtomics = subgroupAtomics;
    const DeviceLimits& lim = device->limits();
    PYRAMARCH_TRY(f.planLayout(lim, device->name()));
    f.growVertices = growVertices;
    f.growIndices = growIndices;
    f.memoryBudget = memoryBudget;
    f.growBricks = growBricks;
    f.growRowPairs = growRowPairs;
    f.growItemRefs = growItemRefs;
    f.growVolumeBricks = growVolumeBricks;
    f.growBrickLimit = growBrickLimit;
    f.growRowPairLimit = growRowPairLimit;
    f.growItemRefLimit = growItemRefLimit;
    f.growVolumeBrickLimit = growVolumeBrickLimit;
    f.budgetReached = budgetReached;
    PYRAMARCH_TRY(f.planGrowth(lim));
    PYRAMARCH_TRY(f.createBuffers());
    PYRAMARCH_TRY(f.createPipelines());
    f.hostItems = hostItems;
    f.itemCount = itemCount;
    f.itemsVersion = itemsVersion;
    f.attributes.hostValues = attributes.hostValues;
    f.attributes.version = attributes.version;
    f.epochs = epochs;
    out = std::move(fresh);
    return {};
}

// addPasses() on a surface that has recorded nothing: a sparse domain
// takes the sizes the module planned at creation (the growth limits)
// instead of its start. Volumes from an octree (only ever in a host graph)
// keep their start and grow when the host calls grow().
Status IsoSurface::Impl::settleForHostGraph() {
    if (octreeInput || (!growBricks && !growRowPairs && !growItemRefs)) return {};
    IsoSurfaceCreateInfo ci = info;
    ci.sparse.maxBricks = growBrickLimit;
    ci.sparse.maxRowPairs = growRowPairLimit;
    if (growItemRefs) ci.sparse.maxItemRefs = growItemRefLimit;
    std::unique_ptr<Impl> fresh;
    PYRAMARCH_TRY(replan(ci, fresh));
    fresh->growBricks = fresh->growRowPairs = fresh->growItemRefs = false;
    CapacityEpoch& e = fresh->epochs.front();
    e.bricks = ci.sparse.maxBricks;
    e.rowPairs = ci.sparse.maxRowPairs;
    self->impl_ = std::move(fresh); // nothing recorded used this one: released now
    return {};
}

// A surface planned again (replan) takes this one's place: this Impl (still
// alive, owned by the new one's list) and record()'s graph are released
// after the frames in flight. `this` must not be used after the call.
void IsoSurface::Impl::installReplanned(std::unique_ptr<Impl> fresh, std::unique_ptr<RenderGraph>& graph,
                                        uint64_t now) {
    Impl& f = *fresh;
    IsoSurface* surface = self;
    f.replaced = std::move(replaced);
    Replaced r;
    r.releaseAt = now + info.framesInFlight + 8;
    r.graph = std::move(graph);
    r.impl = std::move(surface->impl_);
    f.replaced.push_back(std::move(r));
    f.noteReplaced();
    surface->impl_ = std::move(fresh);
}

Status IsoSurface::Impl::growSparseDomain(std::unique_ptr<RenderGraph>& graph, const std::optional<IsoStats>& st) {
    if (!growBricks && !growRowPairs && !growItemRefs && !growVolumeBricks) return {};
    // A growth the budget held back says so at the next frame boundary,
    // once; from then on the surface keeps the sizes the budget holds.
    if (!heldBack.ok()) return std::exchange(heldBack, Status{});
    if (budgetReached) return {};
    const uint64_t now = self->frame_;
    if (!st || st->frame < firstFrame) return {};
    const uint32_t bricks = info.sparse.maxBricks, pairs = info.sparse.maxRowPairs, refs = info.sparse.maxItemRefs;
    const uint32_t volumeBricks = info.sparse.maxVolumeBricks;
    // The counts a short capacity hid: an octree's bricks past the pool were
    // never listed (as many of them as of the marked bricks with a slot),
    // and the row pairs of bricks past a short list never counted (as many
    // a brick as the listed ones had).
    uint64_t bricksNeeded = st->sparseBricksNeeded;
    if (octreeInput && st->sparseVolumeBricksNeeded > volumeBricks)
        bricksNeeded = bricksNeeded * st->sparseVolumeBricksNeeded / std::max(volumeBricks, 1u) + 1;
    // Only the bricks the lists may reach have row pairs to count.
    bricksNeeded = std::min<uint64_t>(bricksNeeded, growBricks ? std::max(growBrickLimit, bricks) : bricks);
    const uint64_t listed = std::min<uint64_t>(st->sparseBricksNeeded, bricks);
    uint64_t pairsNeeded = st->sparseRowPairsNeeded;
    if (bricksNeeded > listed)
        pairsNeeded = std::max<uint64_t>(pairsNeeded, bricksNeeded * std::max<uint64_t>(pairsNeeded, 1) /
                                                          std::max<uint64_t>(listed, 1));
    // The capacities for these needs: with headroom (twice, or a quarter
    // above the need) and the hidden counts guessed as above, or (where
    // that does not fit the budget) the counted needs themselves, the next
    // frame counting the rest; a need past a limit goes straight to the limit.
    const auto domainFor = [&](bool headroom) {
        const auto size = [headroom](uint64_t needed, uint32_t capacity, uint32_t limit) {
            if (!headroom) return uint32_t(std::max<uint64_t>(std::min<uint64_t>(needed, limit), capacity));
            return grownCapacity(uint32_t(std::min<uint64_t>(needed, 0xFFFFFFFFu)), capacity, limit);
        };
        SparseDomain d = info.sparse;
        if (growVolumeBricks)
            d.maxVolumeBricks = size(st->sparseVolumeBricksNeeded, volumeBricks, growVolumeBrickLimit);
        if (growBricks) {
            d.maxBricks = size(bricksNeeded, bricks, growBrickLimit);
            // The list never holds more than the pool's bricks.
            if (octreeInput) d.maxBricks = std::max(bricks, std::min(d.maxBricks, d.maxVolumeBricks));
        }
        if (growRowPairs)
            d.maxRowPairs = size(headroom ? pairsNeeded : st->sparseRowPairsNeeded, pairs, growRowPairLimit);
        if (growItemRefs) d.maxItemRefs = size(st->sparseItemRefsNeeded, refs, growItemRefLimit);
        return d;
    };
    SparseDomain d = domainFor(true);
    const std::string who =
        "isosurface '" + info.name + "': growing the sparse domain after frame " + std::to_string(st->frame) + " (" +
        std::to_string(st->sparseBricksNeeded) + " bricks, " + std::to_string(st->sparseRowPairsNeeded) +
        " row pairs, " + std::to_string(st->sparseItemRefsNeeded) + " item references" +
        (octreeInput ? ", " + std::to_string(st->sparseVolumeBricksNeeded) + " volume bricks" : std::string()) +
        " needed): ";
    const auto same = [&](const SparseDomain& x) {
        return x.maxBricks == bricks && x.maxRowPairs == pairs && x.maxItemRefs == refs &&
               x.maxVolumeBricks == volumeBricks;
    };
    // A refusal is said once per set of capacities asked for.
    const auto refusedBefore = [&](const SparseDomain& x) {
        return refusedBricks == x.maxBricks && refusedRowPairs == x.maxRowPairs &&
               refusedVolumeBricks == x.maxVolumeBricks;
    };
    const auto noteRefused = [&](const SparseDomain& x) {
        refusedBricks = x.maxBricks;
        refusedRowPairs = x.maxRowPairs;
        refusedVolumeBricks = x.maxVolumeBricks;
    };
    // A capacity that overflowed (not merely over 90% used).
    const bool short_ = (growBricks && st->sparseBricksNeeded > bricks) ||
                        (growRowPairs && st->sparseRowPairsNeeded > pairs) ||
                        (growItemRefs && st->sparseItemRefsNeeded > refs) ||
                        (growVolumeBricks && st->sparseVolumeBricksNeeded > volumeBricks);
    if (same(d)) {
        if (!short_ || refusedBefore(d)) return {};
        noteRefused(d);
        return Status::error(
            ErrorCode::CapacityExceeded,
            who + "at the most memoryBudget and the device allow (" + std::to_string(bricks) + " bricks, " +
                std::to_string(pairs) + " row pairs" +
                (octreeInput ? ", " + std::to_string(volumeBricks) + " volume bricks" : std::string()) +
                "); the frames are truncated and report it");
    }
    // The output buffers from the same stats; the vertices of row pairs
    // past the pool were never counted: as many a row pair as the pooled ones had.
    const uint64_t pooled = std::min<uint64_t>(st->sparseRowPairsNeeded, pairs);
    const auto unseen = [&](uint32_t needed) {
        if (pairsNeeded <= pooled || pooled == 0) return needed;
        return uint32_t(std::min<uint64_t>(uint64_t(needed) * pairsNeeded / pooled, 0xFFFFFFFFu));
    };
    const auto wantTriangles = [](uint32_t needed, uint32_t capacity, uint32_t limit) {
        return std::max(capacity, grownCapacity(needed, capacity, limit) / 3 * 3);
    };
    const auto refuse = [&](const SparseDomain& x, const Status& why) -> Status {
        if (refusedBefore(x)) return {};
        noteRefused(x);
        return why.withContext(who);
    };
    // The surface planned with `x`, its output buffers grown by `share` of
    // the way to what the stats ask (with headroom or not).
    uint32_t askedVertices = 0, askedIndices = 0; // the output capacities planFor asked for
    const auto planFor = [&](const SparseDomain& x, bool headroom, double share, std::unique_ptr<Impl>& fresh,
                             uint64_t& total) -> Status {
        const auto want = [&](uint32_t needed, uint32_t capacity, uint32_t limit) {
            const uint32_t full =
                headroom ? wantTriangles(unseen(needed), capacity, limit)
                         : std::max(capacity, uint32_t(std::min<uint64_t>(uint64_t(needed) + 2, limit)) / 3 * 3);
            return std::max(capacity, uint32_t(capacity + double(full - capacity) * share) / 3 * 3);
        };
        IsoSurfaceCreateInfo ci = info;
        ci.sparse = x;
        ci.vertexCapacity =
            growVertices ? want(st->verticesNeeded, grid.vertexCapacity, growVertexLimit) : grid.vertexCapacity;
        if (indexed)
            ci.indexCapacity =
                growIndices ? want(st->indicesNeeded, grid.indexCapacity, growIndexLimit) : grid.indexCapacity;
        askedVertices = ci.vertexCapacity;
        askedIndices = ci.indexCapacity;
        PYRAMARCH_TRY(replan(ci, fresh));
        total = 0;
        for (const MemoryItem& item : fresh->memory) total += item.bytes;
        return {};
    };
    // The needs themselves: refused before (the budget), nothing to plan.
    const SparseDomain exact = domainFor(false);
    if (short_ && refusedBefore(exact)) return {};
    std::unique_ptr<Impl> fresh;
    uint64_t total = 0;
    if (Status made = planFor(d, true, 1.0, fresh, total); !made) return refuse(exact, made);
    if (total > memoryBudget) {
        // Over the budget with headroom: the needs themselves, if they fit;
        // else as far of the way to them as the budget holds.
        std::unique_ptr<Impl> tight;
        uint64_t tightTotal = 0;
        const bool exactPlanned = !same(exact) && planFor(exact, false, 1.0, tight, tightTotal);
        const std::string asked =
            std::to_string(exact.maxBricks) + " bricks and " + std::to_string(exact.maxRowPairs) + " row pairs" +
            (octreeInput ? " (" + std::to_string(exact.maxVolumeBricks) + " volume bricks)" : std::string()) +
            " with " + std::to_string(askedVertices) + " vertices" +
            (indexed ? " and " + std::to_string(askedIndices) + " indices" : std::string()) +
            " would take the surface's buffers to " + fmtBytes(exactPlanned ? tightTotal : total) +
            ", over memoryBudget (" + fmtBytes(memoryBudget) + ")";
        uint64_t held = 0;
        for (const MemoryItem& item : memory)
            if (item.name != "replaced") held += item.bytes;
        if (exactPlanned && tightTotal <= memoryBudget) {
            d = exact;
            fresh = std::move(tight);
            total = tightTotal;
        } else if (!short_) {
            return {}; // nearly full, not short: the sizes stay, nothing to say
        } else if (exactPlanned && memoryBudget > held && tightTotal > held &&
                   double(memoryBudget - held) / double(tightTotal - held) >= 0.1) {
            // Part of the way (a tenth at least): the capacities and output
            // buffers grown by the share of the growth the budget holds
            // (bytes grow about linearly with them), planned once more.
            const double share = double(memoryBudget - held) / double(tightTotal - held) * 0.95;
            const auto part = [share](uint32_t from, uint32_t to) {
                return std::max(from, uint32_t(from + double(to - std::min(to, from)) * share));
            };
            SparseDomain p = info.sparse;
            p.maxBricks = part(bricks, exact.maxBricks);
            p.maxRowPairs = part(pairs, exact.maxRowPairs);
            p.maxItemRefs = part(refs, exact.maxItemRefs);
            p.maxVolumeBricks = part(volumeBricks, exact.maxVolumeBricks);
            std::unique_ptr<Impl> partial;
            uint64_t partTotal = 0;
            budgetReached = true;
            if (same(p) || !planFor(p, false, share, partial, partTotal) || partTotal > memoryBudget)
                return refuse(exact, Status::error(ErrorCode::CapacityExceeded,
                                                   asked + "; the buffers stay as they were, the frames are "
                                                           "truncated and report it"));
            partial->heldBack = Status::error(
                ErrorCode::CapacityExceeded,
                who + asked + "; grown to " + std::to_string(p.maxBricks) + " bricks and " +
                    std::to_string(p.maxRowPairs) + " row pairs" +
                    (octreeInput ? " (" + std::to_string(p.maxVolumeBricks) + " volume bricks)" : std::string()) +
                    ", the most it holds: the frames are truncated and report it");
            d = p;
            fresh = std::move(partial);
            total = partTotal;
            fresh->budgetReached = true;
        } else {
            budgetReached = true;
            return refuse(exact, Status::error(ErrorCode::CapacityExceeded,
                                               asked + "; the buffers stay as they were, the frames are truncated "
                                                       "and report it"));
        }
    }
    Impl& f = *fresh;
    f.firstFrame = f.outputsFromFrame = now;
    f.epochs = {{.firstFrame = now,
                 .vertices = f.grid.vertexCapacity,
                 .indices = f.grid.indexCapacity,
                 .bricks = d.maxBricks,
                 .rowPairs = d.maxRowPairs,
                 .grown = true,
                 .grownAfter = st->frame,
                 .previousVertices = grid.vertexCapacity,
                 .previousIndices = grid.indexCapacity,
                 .previousBricks = bricks,
                 .previousRowPairs = pairs}};
    installReplanned(std::move(fresh), graph, now);
    return {};
}

Status IsoSurface::Impl::growOutputs(std::unique_ptr<RenderGraph>& graph, const std::optional<IsoStats>& st) {
    const uint64_t now = self->frame_; // the frame about to be recorded
    const size_t before = replaced.size();
    std::erase_if(replaced, [now](const Replaced& r) { return r.releaseAt <= now; });
    if (replaced.size() != before) noteReplaced();
    if (!growVertices && !growIndices) return {};
    if (!st || st->frame < outputsFromFrame) return {};
    const auto want = [](uint32_t needed, uint32_t capacity, uint32_t limit) {
        return std::max(capacity, grownCapacity(needed, capacity, limit) / 3 * 3);
    };
    const uint32_t vCap = grid.vertexCapacity, iCap = grid.indexCapacity;
    uint32_t newV = growVertices ? want(st->verticesNeeded, vCap, growVertexLimit) : vCap;
    uint32_t newI = growIndices ? want(st->indicesNeeded, iCap, growIndexLimit) : iCap;
    const std::string who = "isosurface '" + info.name + "': growing the output buffers after frame " +
                            std::to_string(st->frame) + " (" + std::to_string(st->verticesNeeded) + " vertices" +
                            (indexed ? ", " + std::to_string(st->indicesNeeded) + " indices" : std::string()) +
                            " needed): ";
    if (newV == vCap && newI == iCap) {
        // Nothing can grow: past the limits only an overflow is worth an error (once).
        const bool stuckV = growVertices && st->verticesNeeded > vCap, stuckI = growIndices && st->indicesNeeded > iCap;
        if ((!stuckV && !stuckI) || (refusedVertices == vCap && refusedIndices == iCap)) return {};
        refusedVertices = vCap;
        refusedIndices = iCap;
        return Status::error(ErrorCode::DeviceLimit,
                             who + "at the most this device and memoryBudget allow (" + std::to_string(vCap) +
                                 " vertices" + (indexed ? ", " + std::to_string(iCap) + " indices" : std::string()) +
                                 "); the frames are truncated and report it");
    }
    const DeviceLimits& lim = device->limits();
    const auto outputBytes = [this](const gpu::IsoGrid& g, const IsoSizes& sz) {
        uint64_t bytes = sz.vertexBytes + (indexed ? sz.indexBytes : 0);
        bytes += meshSmoothing.outputBytes(g);
        bytes += attributes.outputBytes(g);
        return bytes;
    };
    uint64_t held = 0;
    for (const MemoryItem& item : memory)
        if (item.name != "replaced") held += item.bytes;
    held -= outputBytes(grid, sizes);
    gpu::IsoGrid g = grid;
    IsoSizes sz = sizes;
    Status budgetHeldBack; // grown, but less than asked: returned once growth is done
    PYRAMARCH_TRY(planOutputs(lim, device->name(), newV, newI, g, sz).withContext(who));
    if (held + outputBytes(g, sz) > memoryBudget) {
        if (budgetReached) return {}; // said when it was reached; the sizes stay
        // The need itself, without headroom, where the doubled size does not fit.
        newV = growVertices ? std::max(vCap, std::min(st->verticesNeeded + 2, growVertexLimit) / 3 * 3) : vCap;
        newI = growIndices ? std::max(iCap, std::min(st->indicesNeeded + 2, growIndexLimit) / 3 * 3) : iCap;
        PYRAMARCH_TRY(planOutputs(lim, device->name(), newV, newI, g, sz).withContext(who));
        if ((newV == vCap && newI == iCap) || held + outputBytes(g, sz) > memoryBudget) {
            if (refusedVertices == newV && refusedIndices == newI) return {};
            refusedVertices = newV;
            refusedIndices = newI;
            const std::string asked = std::to_string(newV) + " vertices" +
                                      (indexed ? ", " + std::to_string(newI) + " indices" : std::string()) +
                                      " would take the surface's buffers to " + fmtBytes(held + outputBytes(g, sz)) +
                                      ", over memoryBudget (" + fmtBytes(memoryBudget) + ")";
            // The most the budget holds, on the way from the sizes there are
            // to those asked for (in 1/1024 steps).
            const auto sizesAt = [&](uint64_t k, uint32_t& v, uint32_t& i) {
                v = uint32_t((vCap + (uint64_t(newV) - vCap) * k / 1024) / 3 * 3);
                i = uint32_t((iCap + (uint64_t(newI) - iCap) * k / 1024) / 3 * 3);
                v = std::max(v, vCap);
                i = std::max(i, iCap);
            };
            uint64_t lo = 0, hi = 1023;
            while (lo < hi) {
                const uint64_t mid = (lo + hi + 1) / 2;
                uint32_t v = 0, i = 0;
                sizesAt(mid, v, i);
                gpu::IsoGrid tg = grid;
                IsoSizes ts = sizes;
                if (planOutputs(lim, device->name(), v, i, tg, ts) && held + outputBytes(tg, ts) <= memoryBudget)
                    lo = mid;
                else
                    hi = mid - 1;
            }
            uint32_t v = 0, i = 0;
            sizesAt(lo, v, i);
            if (v == vCap && i == iCap)
                return Status::error(ErrorCode::CapacityExceeded,
                                     who + asked +
                                         "; the buffers stay as they were, the frames are truncated and report it");
            // Grown as far as the budget holds; said once, as a refusal,
            // and the sizes stay (no further steps toward the need).
            budgetReached = true;
            budgetHeldBack = Status::error(ErrorCode::CapacityExceeded,
                                           who + asked + "; grown to " + std::to_string(v) + " vertices" +
                                               (indexed ? ", " + std::to_string(i) + " indices" : std::string()) +
                                               ", the most it holds: the frames are truncated and report it");
            newV = v;
            newI = i;
            PYRAMARCH_TRY(planOutputs(lim, device->name(), newV, newI, g, sz).withContext(who));
        }
    }
    if (attributes.components) PYRAMARCH_TRY(attributes.check(*this, g).withContext(who));

    // The epoch the grown buffers start, whichever way they are made below.
    const auto grownEpoch = [&](const gpu::IsoGrid& grown) {
        return CapacityEpoch{.firstFrame = now,
                             .vertices = grown.vertexCapacity,
                             .indices = grown.indexCapacity,
                             .bricks = epochs.back().bricks,
                             .rowPairs = epochs.back().rowPairs,
                             .grown = true,
                             .grownAfter = st->frame,
                             .previousVertices = vCap,
                             .previousIndices = iCap,
                             .previousBricks = epochs.back().bricks,
                             .previousRowPairs = epochs.back().rowPairs};
    };
    // Past the slices the pipelines were specialized for: the surface
    // planned again with the new capacities (buffers and pipelines), as a
    // sparse growth does; this Impl and the graph go after the frames in flight.
    if (sz.vertexSlices > specVertexSlices || (indexed && sz.indexSlices > specIndexSlices)) {
        IsoSurfaceCreateInfo ci = info;
        ci.vertexCapacity = newV;
        if (indexed) ci.indexCapacity = newI;
        std::unique_ptr<Impl> fresh;
        if (Status made = replan(ci, fresh); !made) {
            if (refusedVertices == newV && refusedIndices == newI) return {};
            refusedVertices = newV;
            refusedIndices = newI;
            return made.withContext(who);
        }
        Impl& f = *fresh;
        f.firstFrame = f.outputsFromFrame = now;
        f.epochs = {grownEpoch(f.grid)};
        if (info.source == FieldSource::Volume && !sparse) f.volumeSource.takeFrom(f, *this);
        installReplanned(std::move(fresh), graph, now);
        return budgetHeldBack;
    }

    // All or nothing: the old buffers aside, the new ones made; on a failure
    // the old ones come back.
    OutputBuffers old;
    const auto swapAll = [this](OutputBuffers& o) {
        std::swap(o.grid, gridBuf);
        std::swap(o.vertexGrid, indexedOutput.vertexGridBuf);
        std::swap(o.vertices, vertices);
        std::swap(o.indices, indexedOutput.indices);
        std::swap(o.attributes, attributes.out);
        for (size_t i = 0; Buffer * b : meshSmoothing.sizedByOutputs()) std::swap(o.meshSmoothing[i++], *b);
    };
    swapAll(old);
    const std::vector<MemoryItem> keptMemory = memory;
    const gpu::IsoGrid keptGrid = grid;
    const IsoSizes keptSizes = sizes;
    std::erase_if(memory, [](const MemoryItem& item) { return isOutputBuffer(item.name); });
    grid = g;
    sizes = sz;
    const Status made = createOutputBuffers();
    if (!made) {
        swapAll(old); // the partial new ones go with `old`
        memory = keptMemory;
        grid = keptGrid;
        sizes = keptSizes;
        if (refusedVertices == newV && refusedIndices == newI) return {};
        refusedVertices = newV;
        refusedIndices = newI;
        return made.withContext(who);
    }
    if (budgetHeldBack.ok()) refusedVertices = refusedIndices = 0;
    Replaced r;
    r.releaseAt = now + info.framesInFlight + 8;
    for (Buffer* b : {&old.grid, &old.vertexGrid, &old.vertices, &old.indices, &old.attributes})
        if (b->valid()) r.buffers.push_back(std::move(*b));
    for (Buffer& b : old.meshSmoothing)
        if (b.valid()) r.buffers.push_back(std::move(b));
    r.graph = std::move(graph);
    replaced.push_back(std::move(r));
    noteReplaced();
    addedToGraph = false;
    timingGraph = nullptr;
    graphFrameKnown = false;
    outputsFromFrame = now;
    epochs.push_back(grownEpoch(grid));
    return budgetHeldBack;
}

Status IsoSurface::Impl::makeBuffer(Buffer& out, VkDeviceSize bytes, VkBufferUsageFlags usage, MemoryUsage mem,
                                    const std::string& what) {
    const std::string& n = info.name;
    const std::string name = n + "." + what;
    auto b = device->allocator().createBuffer(
        {.size = std::max<VkDeviceSize>(bytes, 16), .usage = usage, .memory = mem, .name = name.c_str()});
    if (!b)
        return b.status().withContext("isosurface '" + n + "': creating " + what + " buffer (" + fmtBytes(bytes) +
                                      "): ");
    out = std::move(b).value();
    memory.push_back({what, out.size(),
                      what == "vertices"  ? sizes.vertexSlices
                      : what == "indices" ? sizes.indexSlices
                                          : 1u});
    return {};
}

// Growth: the buffers whose size follows the output capacities (the same
// usages and names as createBuffers' and its stages'), the grids written.
Status IsoSurface::Impl::createOutputBuffers() {
    const MakeBuffer make = [this](Buffer& out, VkDeviceSize bytes, VkBufferUsageFlags usage, MemoryUsage mem,
                                   const std::string& what) { return makeBuffer(out, bytes, usage, mem, what); };
    const VkBufferUsageFlags readable = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    PYRAMARCH_TRY(make(gridBuf, sizeof(gpu::IsoGrid), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, MemoryUsage::Upload, "grid"));
    if (indexed) PYRAMARCH_TRY(indexedOutput.createOutputBuffers(*this, make));
    PYRAMARCH_TRY(make(vertices, sizes.vertexBytes,
                       readable | VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                       MemoryUsage::DeviceLocal, "vertices"));
    PYRAMARCH_TRY(meshSmoothing.createBuffers(grid, make));
    PYRAMARCH_TRY(attributes.createOutputBuffer(grid, make));
    std::memcpy(gridBuf.mapped(), &grid, sizeof(grid));
    gridBuf.flush();
    if (indexed) indexedOutput.writeGrid(grid);
    return {};
}

Status IsoSurface::Impl::createBuffers() {
    Impl& m = *this;
    auto make = [this](Buffer& out, VkDeviceSize bytes, VkBufferUsageFlags usage, MemoryUsage mem,
                       const std::string& what) -> Status { return makeBuffer(out, bytes, usage, mem, what); };
    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    const VkBufferUsageFlags readable = storage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    const VkBufferUsageFlags texels = VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT;
    PYRAMARCH_TRY(
        make(m.tables, sizeof(gpu::IsoTables), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, MemoryUsage::Upload, "tables"));
    // Grids are uniform buffers: lavapipe loads a uniform address once for
    // the SIMD batch (a storage-buffer load runs lane by lane, and the
    // pyramid walk reads two level-table words per level).
    const VkBufferUsageFlags gridUsage = VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT;
    PYRAMARCH_TRY(make(m.gridBuf, sizeof(gpu::IsoGrid), gridUsage, MemoryUsage::Upload, "grid"));
    // A fused user field has no buffer: classify and extraction call field().
    if (!m.fusedField)
        PYRAMARCH_TRY(make(m.field, sizes.fieldBytes, readable | texels | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                           MemoryUsage::DeviceLocal, "field"));
    PYRAMARCH_TRY(make(m.pyramid, sizes.pyramidBytes, readable | texels | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                       MemoryUsage::DeviceLocal, "pyramid"));
    PYRAMARCH_TRY(make(m.counters, sizeof(gpu::IsoCounters), storage, MemoryUsage::Upload, "counters"));
    if (m.directListed()) PYRAMARCH_TRY(m.brickListing.createDirectBuffers(m.grid, make));
    PYRAMARCH_TRY(make(m.args, sizeof(gpu::IsoArgs), readable | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT,
                       MemoryUsage::DeviceLocal, "args"));
    if (m.indexed) PYRAMARCH_TRY(m.indexedOutput.createBuffers(m, make));
    PYRAMARCH_TRY(make(m.vertices, sizes.vertexBytes,
                       readable | VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                       MemoryUsage::DeviceLocal, "vertices"));
    PYRAMARCH_TRY(m.meshSmoothing.createBuffers(grid, make));
    PYRAMARCH_TRY(make(m.stats, sizeof(gpu::IsoStatsGpu) * m.ring, storage, MemoryUsage::Readback, "stats"));
    if (m.maxItems && !m.external)
        PYRAMARCH_TRY(make(m.items, uint64_t(m.maxItems) * m.itemBytes() * m.ring, storage | texels,
                           MemoryUsage::Upload, "items"));
    PYRAMARCH_TRY(m.scanBaseline.createBuffers(m, make));
    if (info.source == FieldSource::Particles) PYRAMARCH_TRY(m.particles.createBuffers(m, make));
    if (info.source == FieldSource::Volume) PYRAMARCH_TRY(m.volumeSource.createBoundsBuffers(m, make));
    if (m.tiledField()) PYRAMARCH_TRY(m.fieldTiles.createBuffers(m.grid, make));
    if (m.sparse) {
        PYRAMARCH_TRY(m.brickListing.createSparseBuffers(make));
        if (sizes.sparseItemBytes)
            PYRAMARCH_TRY(make(m.brickItems, sizes.sparseItemBytes, storage | texels, MemoryUsage::DeviceLocal,
                               "sparse brick items"));
        if (info.source == FieldSource::Particles) PYRAMARCH_TRY(m.particles.createSparseBuffers(m, make));
    }
    if (info.source == FieldSource::Volume && !m.sparse) PYRAMARCH_TRY(m.volumeSource.createStandIn(make));
    // Sparse volumes and particles: the pool of 11^3-sample blocks.
    if ((info.source == FieldSource::Volume || info.source == FieldSource::Particles) && m.sparse)
        PYRAMARCH_TRY(m.sparseVolume.createBuffers(m, make));
    if (m.octreeInput) PYRAMARCH_TRY(m.octree.createBuffers(make));
    PYRAMARCH_TRY(m.attributes.createBuffers(m, make));

    // Host-visible: written directly, no queue needed (an adopted device may have none).
    const gpu::IsoTables packed = packTables();
    std::memcpy(m.tables.mapped(), &packed, sizeof(packed));
    m.tables.flush();
    std::memcpy(m.gridBuf.mapped(), &grid, sizeof(grid));
    m.gridBuf.flush();
    if (m.indexed) {
        IndexedStage& ix = m.indexedOutput;
        std::memcpy(ix.vertexGridBuf.mapped(), &ix.vertexGrid, sizeof(ix.vertexGrid));
        ix.vertexGridBuf.flush();
    }
    std::memset(m.counters.mapped(), 0, sizeof(gpu::IsoCounters));
    m.counters.flush();
    std::memset(m.stats.mapped(), 0, m.stats.size());
    m.stats.flush();
    m.slotVersion.assign(m.ring, 0);
    m.isoOutsideBySlot.assign(m.ring, {});

    return {};
}

Status IsoSurface::Impl::makePipeline(ComputePipeline& out, std::span<const uint32_t> spirv, const char* what,
                                      uint32_t bindings, bool moduleConstants) {
    const std::string name = info.name + "." + what;
    ComputePipelineDesc d;
    d.spirv = spirv;
    d.name = name.c_str();
    // Descriptor types from the shader (the grid is a uniform buffer, some
    // reads go through texel buffers); a binding the shader does not use
    // stays a storage buffer, so the passes may still declare it.
    d.layout.bindings.assign(bindings, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
    d.layout.bindingsFromSpirv = true;
    d.layout.pushConstantBytes = sizeof(gpu::IsoPush);
    if (moduleConstants)
        d.specialization = {{gpu::kIsoSpecNormalMode, grid.normalMode},
                            {gpu::kIsoSpecIndexed, indexed ? 1u : 0u},
                            {gpu::kIsoSpecVolumeFormat, volumeFormatOf(blockPoolFormat())},
                            {gpu::kIsoSpecVolumePoolBricks, sizes.volumePoolBricks},
                            {gpu::kIsoSpecVolumePoolCount, std::max(sizes.volumePoolCount, 1u)},
                            {gpu::kIsoSpecVertexSlices, specVertexSlices},
                            {gpu::kIsoSpecVertexSliceSize, sizes.vertexSliceElements},
                            {gpu::kIsoSpecIndexSlices, specIndexSlices},
                            {gpu::kIsoSpecIndexSliceSize, std::max(sizes.indexSliceElements, 1u)},
                            {gpu::kIsoSpecExtractTriangles, extractTriangles()},
                            {gpu::kIsoSpecExtractMinGroups, extractMinGroups()}};
    auto p = ComputePipeline::create(*device, d);
    if (!p) return p.status().withContext("isosurface '" + info.name + "': pipeline " + what + ": ");
    PYRAMARCH_ASSERT(p->pipelineLayout().desc().bindings.size() == bindings,
                     "isosurface pipeline: the shader's binding count differs from the module's");
    out = std::move(p).value();
    return {};
}

// Pipelines of the stages this surface runs; each pass declares its buffers
// and bindings in addPasses().
Status IsoSurface::Impl::createPipelines() {
    // Post-processing of the mesh, whatever the domain.
    PYRAMARCH_TRY(meshSmoothing.createPipelines(*this));
    PYRAMARCH_TRY(attributes.createPipelines(*this));
    if (sparse) {
        PYRAMARCH_TRY(createSparsePipelines());
        if (indexed) PYRAMARCH_TRY(indexedOutput.createPipelines(*this));
        return createArgsPipelines();
    }
    if (direct)
        PYRAMARCH_TRY(createDirectPipelines());
    else
        PYRAMARCH_TRY(createBuildPipeline());
    PYRAMARCH_TRY(createArgsPipelines());
    PYRAMARCH_TRY(scanBaseline.createPipelines(*this));
    if (indexed) PYRAMARCH_TRY(indexedOutput.createPipelines(*this));
    switch (info.source) {
    case FieldSource::Metaballs: return metaballs.createPipelines(*this);
    case FieldSource::Volume: return volumeSource.createPipelines(*this);
    case FieldSource::Particles: return particles.createPipelines(*this);
    case FieldSource::UserGlsl: return userField.createPipelines(*this);
    }
    return {};
}

Status IsoSurface::setMetaballs(std::span<const Metaball> balls) {
    Impl& m = *impl_;
    PYRAMARCH_ASSERT(m.info.source == FieldSource::Metaballs,
                     "setMetaballs on a surface whose source is not Metaballs");
    if (balls.size() > m.maxItems)
        return Status::error(ErrorCode::CapacityExceeded, "isosurface '" + m.info.name +
                                                              "': " + std::to_string(balls.size()) +
                                                              " metaballs, maxBalls is " + std::to_string(m.maxItems));
    m.hostItems.resize(balls.size() * sizeof(gpu::IsoBall));
    for (size_t i = 0; i < balls.size(); ++i) {
        const gpu::IsoBall b{{balls[i].center[0], balls[i].center[1], balls[i].center[2], balls[i].radius},
                             {balls[i].strength, 0, 0, 0}};
        std::memcpy(m.hostItems.data() + i * sizeof(b), &b, sizeof(b));
    }
    m.itemCount = uint32_t(balls.size());
    ++m.itemsVersion;
    return {};
}

Status IsoSurface::setParticles(std::span<const Particle> particles) {
    ParticleArrays a;
    a.count = uint32_t(std::min<size_t>(particles.size(), UINT32_MAX)); // past any maxParticles: the capacity error
    a.positions = particles.empty() ? nullptr : &particles[0].position;
    a.positionStride = sizeof(Particle);
    a.weights = particles.empty() ? nullptr : &particles[0].weight;
    a.weightStride = sizeof(Particle);
    return setParticles(a);
}

Status IsoSurface::setParticles(const ParticleArrays& in) {
    Impl& m = *impl_;
    PYRAMARCH_ASSERT(m.info.source == FieldSource::Particles,
                     "setParticles on a surface whose source is not Particles");
    PYRAMARCH_ASSERT(!m.external, "setParticles on a surface with ParticleInput::GpuBuffer (use setParticleCount)");
    const auto who = [&] { return "isosurface '" + m.info.name + "': setParticles: "; };
    auto bad = [&](const std::string& what) { return Status::error(ErrorCode::InvalidArgument, who() + what); };
    if (in.count > m.maxItems)
        return Status::error(ErrorCode::CapacityExceeded, who() + std::to_string(in.count) +
                                                              " particles, maxParticles is " +
                                                              std::to_string(m.maxItems));
    if (in.positionStride < 12 || in.positionStride % 4 != 0)
        return bad("positionStride " + std::to_string(in.positionStride) +
                   " bytes, need a multiple of 4 that is at least 12 (x, y, z floats)");
    if (in.weights && (in.weightStride < 4 || in.weightStride % 4 != 0))
        return bad("weightStride " + std::to_string(in.weightStride) +
                   " bytes, need a multiple of 4 that is at least 4");
    if (in.count > 0 && !in.positions) return bad(std::to_string(in.count) + " particles but positions is null");
    if (!in.weights && !(std::isfinite(in.weight) && in.weight >= 0.f))
        return bad("weight " + std::to_string(in.weight) + " (need finite and >= 0)");
    // Packed as the GPU reads the ring (gpu particleLayout {4, 0, 3}), checked
    // on the way, into a second buffer kept across calls (an animated host
    // calls this every frame), swapped in only when every particle passed.
    std::vector<uint8_t>& packed = m.pendingItems;
    packed.resize(size_t(in.count) * sizeof(Particle));
    const auto* pos = static_cast<const uint8_t*>(in.positions);
    const auto* wts = static_cast<const uint8_t*>(in.weights);
    const char* axis = "xyz";
    for (uint32_t i = 0; i < in.count; ++i) {
        Particle p;
        std::memcpy(p.position.data(), pos + size_t(i) * in.positionStride, 12);
        p.weight = in.weight;
        if (wts) std::memcpy(&p.weight, wts + size_t(i) * in.weightStride, 4);
        for (int k = 0; k < 3; ++k)
            if (!std::isfinite(p.position[k]))
                return bad("particle " + std::to_string(i) + ": " + axis[k] + " = " + std::to_string(p.position[k]) +
                           " is not finite");
        if (!std::isfinite(p.weight) || p.weight < 0.f)
            return bad("particle " + std::to_string(i) + ": weight " + std::to_string(p.weight) +
                       (std::isfinite(p.weight) ? " is negative" : " is not finite"));
        std::memcpy(packed.data() + size_t(i) * sizeof(Particle), &p, sizeof(Particle));
    }
    std::swap(m.hostItems, m.pendingItems);
    m.itemCount = in.count;
    ++m.itemsVersion;
    return {};
}

Status IsoSurface::setParticleCount(uint32_t count) {
    Impl& m = *impl_;
    PYRAMARCH_ASSERT(m.info.source == FieldSource::Particles && m.external,
                     "setParticleCount on a surface without ParticleInput::GpuBuffer (use setParticles)");
    if (count > m.maxItems)
        return Status::error(ErrorCode::CapacityExceeded, "isosurface '" + m.info.name + "': particle count " +
                                                              std::to_string(count) + ", maxParticles is " +
                                                              std::to_string(m.maxItems));
    m.itemCount = count;
    return {};
}

Status IsoSurface::uploadVolume(const void* data, size_t bytes, VolumeFormat format, float scale, float offset) {
    Impl& m = *impl_;
    PYRAMARCH_ASSERT(m.info.source == FieldSource::Volume, "uploadVolume on a surface whose source is not Volume");
    if (m.sparse) {
        // The same checks, then the bricks of the current iso value from slabs over `data`.
        const size_t sliceBytes = size_t(m.grid.samples.x) * m.grid.samples.y * volumeFormatBytes(format);
        if (bytes != sliceBytes * m.grid.samples.z || !data)
            return Status::error(ErrorCode::InvalidArgument,
                                 "isosurface '" + m.info.name + "': volume of " + std::to_string(bytes) +
                                     " bytes, expected " + std::to_string(m.grid.samples.x) + "x" +
                                     std::to_string(m.grid.samples.y) + "x" + std::to_string(m.grid.samples.z) +
                                     " samples x " + std::to_string(volumeFormatBytes(format)) +
                                     " bytes = " + std::to_string(sliceBytes * m.grid.samples.z));
        VolumeSlabs slabs{format, scale, offset, [data, sliceBytes](uint32_t first, uint32_t count, void* dst) {
                              std::memcpy(dst, static_cast<const uint8_t*>(data) + sliceBytes * first,
                                          sliceBytes * count);
                              return Status{};
                          }};
        return m.sparseVolume.upload(m, slabs, iso_, iso_);
    }
    const size_t each = format == VolumeFormat::U8 ? 1 : format == VolumeFormat::U16 ? 2 : 4;
    const size_t want = size_t(m.grid.samples.w) * each;
    if (bytes != want || (!data && bytes))
        return Status::error(ErrorCode::InvalidArgument,
                             "isosurface '" + m.info.name + "': volume of " + std::to_string(bytes) +
                                 " bytes, expected " + std::to_string(m.grid.samples.x) + "x" +
                                 std::to_string(m.grid.samples.y) + "x" + std::to_string(m.grid.samples.z) +
                                 " samples x " + std::to_string(each) + " bytes = " + std::to_string(want));
    if (!std::isfinite(scale) || !std::isfinite(offset))
        return Status::error(ErrorCode::InvalidArgument,
                             "isosurface '" + m.info.name + "': volume scale/offset must be finite");
    PYRAMARCH_TRY(m.volumeSource.stage(m, bytes));
    std::memcpy(m.volumeSource.raw.mapped(), data, bytes);
    m.volumeSource.raw.flush();
    m.volumeSource.format = volumeFormatOf(format);
    m.volumeSource.scale = scale;
    m.volumeSource.offset = offset;
    m.volumeSource.dirty = true;
    return {};
}

Status IsoSurface::uploadVolume(const VolumeSlabs& volume, float isoMin, float isoMax) {
    Impl& m = *impl_;
    PYRAMARCH_ASSERT(m.info.source == FieldSource::Volume, "uploadVolume on a surface whose source is not Volume");
    if (!volume.read)
        return Status::error(ErrorCode::InvalidArgument,
                             "isosurface '" + m.info.name + "': VolumeSlabs::read is empty");
    if (m.sparse) return m.sparseVolume.upload(m, volume, isoMin, isoMax);
    // Dense: every slice into the staging buffer, then the same conversion.
    if (!std::isfinite(volume.scale) || !std::isfinite(volume.offset))
        return Status::error(ErrorCode::InvalidArgument,
                             "isosurface '" + m.info.name + "': volume scale/offset must be finite");
    const size_t sliceBytes = size_t(m.grid.samples.x) * m.grid.samples.y * volumeFormatBytes(volume.format);
    PYRAMARCH_TRY(m.volumeSource.stage(m, sliceBytes * m.grid.samples.z));
    for (uint32_t z = 0; z < m.grid.samples.z; ++z)
        PYRAMARCH_TRY(
            volume.read(z, 1, static_cast<uint8_t*>(m.volumeSource.raw.mapped()) + sliceBytes * z)
                .withContext("isosurface '" + m.info.name + "': reading volume slice " + std::to_string(z) + ": "));
    m.volumeSource.raw.flush();
    m.volumeSource.format = volumeFormatOf(volume.format);
    m.volumeSource.scale = volume.scale;
    m.volumeSource.offset = volume.offset;
    m.volumeSource.dirty = true;
    return {};
}

const Buffer& IsoSurface::vertexBuffer() const { return impl_->vertices; }
const Buffer& IsoSurface::drawArgsBuffer() const { return impl_->args; }
bool IsoSurface::indexed() const { return impl_->indexed; }
const Buffer& IsoSurface::indexBuffer() const {
    PYRAMARCH_ASSERT(impl_->indexed, "indexBuffer on a surface without indexed output");
    return impl_->indexedOutput.indices;
}
uint32_t IsoSurface::vertexCapacity() const { return impl_->grid.vertexCapacity; }
uint32_t IsoSurface::indexCapacity() const { return impl_->grid.indexCapacity; }
SparseDomain IsoSurface::sparseDomain() const {
    SparseDomain d = impl_->info.sparse;
    d.enabled = impl_->sparse;
    return d;
}

std::vector<IsoSurface::MemoryItem> IsoSurface::memoryReport() const { return impl_->memory; }

gpu::IsoPush IsoSurface::Impl::push() const {
    gpu::IsoPush pc{};
    pc.iso = self->iso_;
    pc.time = self->time_;
    pc.itemCount = itemCount;
    pc.frame = uint32_t(self->recording_);
    pc.slot = uint32_t(self->recording_ % ring);
    const std::array<float, 8>& u = self->user_;
    pc.user0 = {u[0], u[1], u[2], u[3]};
    pc.user1 = {u[4], u[5], u[6], u[7]};
    // Sparse particles read their blocks as an F32 volume with scale 1 and
    // offset 0: the value itself (the volume source's format, scale and
    // offset keep their defaults).
    if (info.source == FieldSource::Volume || (sparse && info.source == FieldSource::Particles)) {
        pc.volumeFormat = volumeSource.format;
        pc.user0 = {volumeSource.scale, volumeSource.offset, 0.f, 0.f};
    }
    return pc;
}

// The one place the frame counter advances: the first pass of every frame
// (each field source's first pass) calls it. Copies this frame's items into
// its ring slot when the slot is stale; by the framesInFlight contract the GPU
// is done with that slot.
void IsoSurface::Impl::beginFrame(const PassContext& ctx) {
    self->recording_ = self->frame_++;
    // What growth replaced, once its frames are done (a host graph's growth
    // has no record() to release it).
    if (std::erase_if(replaced, [this](const Replaced& r) { return r.releaseAt <= self->recording_; })) noteReplaced();
    if (!graphFrameKnown) {
        graphFrameOffset = ctx.frameIndex - self->recording_;
        graphFrameKnown = true;
    }
    if (!items.valid() || external) return;
    const uint32_t slot = uint32_t(self->recording_ % ring);
    if (slotVersion[slot] != itemsVersion) {
        const VkDeviceSize stride = VkDeviceSize(maxItems) * itemBytes();
        if (!hostItems.empty())
            std::memcpy(static_cast<uint8_t*>(items.mapped()) + stride * slot, hostItems.data(), hostItems.size());
        items.flush();
        slotVersion[slot] = itemsVersion;
    }
}

Result<IsoSurface::GraphOutputs> IsoSurface::addPasses(RenderGraph& graph, const GraphInputs& inputs) {
    // A host graph: nothing grows there (see settleForHostGraph).
    if (!impl_->buildingOwnGraph && !impl_->addedToGraph && frame_ == 0) PYRAMARCH_TRY(impl_->settleForHostGraph());
    Impl& m = *impl_;
    const std::string& n = m.info.name;
    if (m.addedToGraph)
        return Status::error(ErrorCode::InvalidState,
                             "isosurface '" + n +
                                 "': addPasses: the passes are already in a graph (addPasses or "
                                 "record was called before); one graph per surface");
    if (m.external && !inputs.particles.valid())
        return Status::error(ErrorCode::InvalidArgument,
                             "isosurface '" + n +
                                 "': addPasses: ParticleInput::GpuBuffer needs GraphInputs::particles (the host's "
                                 "import of particleBuffer)");
    if (m.octreeInput &&
        (!inputs.octree.counters.valid() || !inputs.octree.nodeCount.valid() || !inputs.octree.nodeCoord.valid()))
        return Status::error(ErrorCode::InvalidArgument,
                             "isosurface '" + n +
                                 "': addPasses: SparseVolumeInput::OctreeLeaves needs GraphInputs::octree (the "
                                 "octree's counters, node counts and coordinates in the same graph: "
                                 "voxel::octreeLeafInput())");
    if (m.octreeInput && (inputs.octree.leafTilesFirst % 4 != 0 || inputs.octree.leafTilesEnd % 4 != 0))
        return Status::error(ErrorCode::InvalidArgument,
                             "isosurface '" + n + "': addPasses: GraphInputs::octree's leaf tile offsets " +
                                 std::to_string(inputs.octree.leafTilesFirst) + " and " +
                                 std::to_string(inputs.octree.leafTilesEnd) + " must be multiples of 4 (uint32 words)");
    m.addedToGraph = true;
    m.timingGraph = &graph;
    // A graph built again after growth: a reference into the old graph names
    // another buffer (or none) in this one.
    m.attributes.ringRef = m.attributes.binnedRef = m.attributes.startsRef = {};
    const ExternalUse computeRead{Access::StorageRead, PassKind::Compute};
    const ExternalUse computeRW{Access::StorageReadWrite, PassKind::Compute};
    const ExternalUse hostWrite{Access::HostWrite, PassKind::Compute};
    const ExternalUse hostRead{Access::HostRead, PassKind::Compute};
    const ExternalUse indirect{Access::IndirectRead, PassKind::Graphics};
    const ExternalUse vertexRead{Access::VertexRead, PassKind::Graphics};
    const ExternalUse uniformRead{Access::UniformRead, PassKind::Compute};

    // Persistent module buffers: `before` is the use they were left in by the
    // previous frame (= `after`), so consecutive frames are ordered.
    IsoRefs refs;
    refs.tables = graph.importBuffer(n + ".tables", m.tables, uniformRead, uniformRead, true);
    refs.grid = graph.importBuffer(n + ".grid", m.gridBuf, uniformRead, uniformRead, true);
    if (!m.fusedField) refs.field = graph.importBuffer(n + ".field", m.field, computeRead, computeRead);
    refs.pyramid = graph.importBuffer(n + ".pyramid", m.pyramid, computeRead, computeRead);
    refs.counters = graph.importBuffer(n + ".counters", m.counters, computeRW, computeRW);
    refs.args = graph.importBuffer(n + ".args", m.args, indirect, indirect);
    refs.vertices = graph.importBuffer(n + ".vertices", m.vertices, vertexRead, vertexRead);
    refs.stats = graph.importBuffer(n + ".stats", m.stats, hostRead, hostRead);
    if (m.info.source == FieldSource::Metaballs || m.info.source == FieldSource::Particles) {
        refs.items =
            m.external ? inputs.particles : graph.importBuffer(n + ".items", m.items, hostWrite, computeRead, true);
        // A host particle buffer may be larger than maxStorageBufferRange:
        // the descriptors cover only the particles the module may read.
        if (m.external) refs.itemRange = m.externalParticleBytes;
    }
    if ((m.info.source == FieldSource::Volume || m.info.source == FieldSource::Particles) && m.sparse)
        m.sparseVolume.importBuffers(m, graph, refs);
    if (m.octreeInput) m.octree.importBuffers(m, graph, refs, inputs.octree);
    if (m.info.source == FieldSource::Volume) m.volumeSource.importBuffers(m, graph, refs);
    if (m.directListed()) m.brickListing.importDirectBuffers(m, graph, refs);
    if (m.tiledField()) m.fieldTiles.importBuffers(m, graph, refs);
    if (m.sparse) {
        m.brickListing.importSparseBuffers(m, graph, refs);
        if (m.brickItems.valid())
            refs.brickItems = graph.importBuffer(n + ".sparse.brickItems", m.brickItems, computeRead, computeRead);
    }
    if (m.info.source == FieldSource::Particles) m.particles.importBuffers(m, graph, refs);
    m.scanBaseline.importBuffers(m, graph, refs);

    switch (m.info.source) {
    case FieldSource::Metaballs:
        if (!m.sparse) m.metaballs.addPasses(m, graph, refs); // sparse: no field pass (sparse.cpp)
        break;
    case FieldSource::Particles:
        if (!m.sparse) m.particles.addPasses(m, graph, refs); // sparse: binned per brick (field_particles_sparse.cpp)
        break;
    case FieldSource::Volume:
        if (!m.sparse) m.volumeSource.addPasses(m, graph, refs); // sparse: the bricks' upload pass (sparse_volume.cpp)
        break;
    case FieldSource::UserGlsl: m.userField.addPasses(m, graph, refs); break;
    }
    if (m.indexed) m.indexedOutput.importBuffers(m, graph, refs);
    if (m.sparse)
        m.addSparseClassifyPasses(graph, refs);
    else if (m.direct)
        m.addDirectClassifyPasses(graph, refs);
    else
        m.scanBaseline.addClassifyPasses(m, graph, refs);
    if (m.indexed) m.indexedOutput.addVertexPyramidPasses(m, graph, refs);
    m.addArgsPass(graph, refs);
    if (m.indexed) {
        const BufferRef indicesRef = m.indexedOutput.addPasses(m, graph, refs);
        if (m.meshSmoothing.enabled) m.meshSmoothing.addPasses(m, graph, refs, indicesRef);
        return GraphOutputs{refs.vertices, refs.args, indicesRef, m.attributes.addPasses(m, graph, refs)};
    }
    if (m.grid.normalMode == gpu::kIsoNormalNone) m.addNormalClearPass(graph, refs);
    if (m.scanBaseline.enabled)
        m.scanBaseline.addExtractPasses(m, graph, refs);
    else if (m.sparse)
        m.addSparseExtractPass(graph, refs);
    else
        m.addExtractPasses(graph, refs); // the cell-order layout and the direct brick table
    return GraphOutputs{refs.vertices, refs.args, {}, m.attributes.addPasses(m, graph, refs)};
}

Status IsoSurface::record(VkCommandBuffer cmd) {
    // A frame boundary: growth replaces the output buffers and this graph.
    if (internal_ || !impl_->addedToGraph) {
        PYRAMARCH_TRY(impl_->growSparseDomain(internal_, latestStats())); // may replace impl_
        PYRAMARCH_TRY(impl_->growOutputs(internal_, latestStats()));
    }
    if (!internal_) {
        if (impl_->addedToGraph)
            return Status::error(ErrorCode::InvalidState,
                                 "isosurface '" + impl_->info.name +
                                     "': record: the passes were added to a host graph; execute that graph instead");
        RenderGraphOptions options;
        options.timingFrames = impl_->info.timingFrames ? impl_->info.timingFrames : impl_->info.framesInFlight + 2;
        options.timestamps = impl_->info.timestamps;
        auto g = std::make_unique<RenderGraph>(impl_->device, options);
        if (impl_->octreeInput)
            return Status::error(ErrorCode::InvalidState,
                                 "isosurface '" + impl_->info.name +
                                     "': record: SparseVolumeInput::OctreeLeaves reads an octree of the host's graph: "
                                     "add the surface with addPasses() after the octree's passes");
        GraphInputs in;
        if (impl_->external) {
            const ExternalUse computeWrite{Access::StorageWrite, PassKind::Compute};
            in.particles = g->importBuffer(impl_->info.name + ".particles", *impl_->info.particleBuffer, computeWrite,
                                           computeWrite, true);
        }
        impl_->buildingOwnGraph = true;
        const Status added = addPasses(*g, in).status();
        impl_->buildingOwnGraph = false;
        PYRAMARCH_TRY(added);
        Status s = g->compile();
        if (!s) return s.withContext("isosurface '" + impl_->info.name + "': graph: ");
        internal_ = std::move(g);
    }
    impl_->volumeSource.releaseStaging(*impl_);
    return internal_->execute(cmd);
}

Result<bool> IsoSurface::grow() {
    if (internal_)
        return Status::error(ErrorCode::InvalidState, "isosurface '" + impl_->info.name +
                                                          "': grow: record() grows the surface itself; grow() is "
                                                          "for a surface in a host graph (addPasses())");
    // The largest needs of the frames the stats ring still holds.
    std::optional<IsoStats> need;
    const uint64_t ring = impl_->ring;
    for (uint64_t f = frame_ > ring ? frame_ - ring : 0; f < frame_; ++f) {
        const std::optional<IsoStats> st = statsOfFrame(f);
        if (!st) continue;
        if (!need) {
            need = st;
            continue;
        }
        need->frame = st->frame;
        need->verticesNeeded = std::max(need->verticesNeeded, st->verticesNeeded);
        need->indicesNeeded = std::max(need->indicesNeeded, st->indicesNeeded);
        need->sparseBricksNeeded = std::max(need->sparseBricksNeeded, st->sparseBricksNeeded);
        need->sparseRowPairsNeeded = std::max(need->sparseRowPairsNeeded, st->sparseRowPairsNeeded);
        need->sparseItemRefsNeeded = std::max(need->sparseItemRefsNeeded, st->sparseItemRefsNeeded);
        need->sparseVolumeBricksNeeded = std::max(need->sparseVolumeBricksNeeded, st->sparseVolumeBricksNeeded);
    }
    if (!need) return false;
    const Impl* before = impl_.get();
    const uint32_t vertices = impl_->grid.vertexCapacity, indices = impl_->grid.indexCapacity;
    std::unique_ptr<RenderGraph> none;                  // the host's graph is the host's to build again
    Status grown = impl_->growSparseDomain(none, need); // may replace impl_
    if (grown) grown = impl_->growOutputs(none, need);
    // Grown as far as the budget holds counts as grown (the next call says what is left).
    if (impl_.get() != before || impl_->grid.vertexCapacity != vertices || impl_->grid.indexCapacity != indices)
        return true;
    if (!grown) return grown;
    return false;
}

} // namespace pyramarch::iso
