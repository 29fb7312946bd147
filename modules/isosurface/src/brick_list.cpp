// The brick listing (brick_list.h). A grid that fits, over the field buffer
// (Impl::directListed()), passes before classify:
//   "<name>.bricks.clear"   the pyramid's levels classify and the listed
//                           build write, the list's group marks (and the
//                           field tiles' flags and list: tiledField())
//   "<name>.bricks.bounds"  each brick's value bounds (volumes: on upload
//                           frames only; metaballs, bounded user fields and
//                           particles: from the balls, the Lipschitz bound or
//                           the tiles the particles' field pass flagged)
//   "<name>.bricks.list"    the bricks the iso value cuts, their build groups
//                           (and the field tiles they read)
//   "<name>.bricks.args"    classify's and the listed build's dispatches
// (brick_list.comp), and after classify "<name>.pyramid.<first>" over the
// listed build groups only (pyramid_build.comp, ISO_BUILD_LIST).
// A sparse domain, passes every frame:
//   "<name>.sparse.clear"     level 2 of the pool pyramid (one word per slot) and the
//                             4 levels above it to 0: places no pair reaches this frame
//                             count nothing; the marks and pair masks to 0
//   "<name>.sparse.supers"    one thread per super-brick of 8^3 bricks: mark those
//                             whose interval (user fields: grown by a brick's)
//                             reaches the iso value, or (particles) that a particle marked
//   "<name>.sparse.supers.order"  the marked ones in index order (sparse_order.comp)
//   "<name>.sparse.supers.args"  their count -> the activate and list passes' dispatches
//   "<name>.sparse.activate"  one thread per brick of a listed super-brick: mark the
//                             bricks whose interval reaches the iso value (user
//                             fields: Lipschitz; metaballs: the balls' term
//                             ranges) or (particles) that particles reach
//   "<name>.sparse.bricks.order"  each word of marks' first list entry
//   "<name>.sparse.list"      a thread per word of marks: its bricks into the list;
//                             for metaballs and particles each listed brick gets its
//                             items' places (all five: sparse_activate.glsl)
//   "<name>.sparse.args"      their count -> classify's indirect dispatch
// Volumes: the upload's surface bricks (sparse_volume.cpp) or the octree's
// (sparse_octree.cpp) marked, ordered, listed and counted by
// sparse_volume_activate.comp ("<name>.sparse.activate", ".bricks.order",
// ".list", ".args"). After classify:
//   "<name>.sparse.slots.order", ".sparse.slots.place"
//                             the cut pairs' places in list order, their pyramid
//                             words and records there (sparse_order.comp,
//                             sparse_slot_order.comp)
#include "brick_list.h"

#include <algorithm>
#include <cstring>

#include "iso_glsl_text.h"
#include "iso_impl.h"

namespace pyramarch::iso {
namespace {
// The lists in a fixed order: the scans of the marks (sparse_order.comp) and
// the pool slots moved to their places in list order (sparse_slot_order.comp).
const uint32_t kOrderSpv[] =
#include "shaders/isosurface/sparse_order.comp.spv.inc"
    ;
const uint32_t kSlotOrderSpv[] =
#include "shaders/isosurface/sparse_slot_order.comp.spv.inc"
    ;
// Particles: the super-bricks and bricks the binned particles reach.
const uint32_t kParticleSupersSpv[] =
#include "shaders/isosurface/sparse_particles_activate.coarse.comp.spv.inc"
    ;
const uint32_t kParticleActivateSpv[] =
#include "shaders/isosurface/sparse_particles_activate.comp.spv.inc"
    ;
// Volumes: the surface bricks the upload left, listed by their value ranges.
const uint32_t kVolumeActivateSpv[] =
#include "shaders/isosurface/sparse_volume_activate.comp.spv.inc"
    ;
// The bricks the surface can cross (brick_list.comp) and the first build
// pass over their build groups only (pyramid_build.comp, ISO_BUILD_LIST).
const uint32_t kBrickListSpv[] =
#include "shaders/isosurface/brick_list.comp.spv.inc"
    ;
const uint32_t kBuildListedSpv[] =
#include "shaders/isosurface/pyramid_build.listed.comp.spv.inc"
    ;
// Metaballs: the bricks bounded by the balls, the field tiles flagged.
const uint32_t kBrickListBallsSpv[] =
#include "shaders/isosurface/brick_list.metaballs.comp.spv.inc"
    ;
// Particles: the bricks bounded by the tiles the field pass flagged.
const uint32_t kBrickListParticlesSpv[] =
#include "shaders/isosurface/brick_list.particles.comp.spv.inc"
    ;
} // namespace

Status BrickListStage::plan(const IsoSurfaceCreateInfo& info, gpu::IsoGrid& g, uint64_t range, const std::string& dev) {
    superBytes = uint64_t(g.superBricks.w) * 4;
    // The list, and its bricks' pair masks and first places (sparse_order.comp).
    const uint64_t list = uint64_t(info.sparse.maxBricks) * 4, slots = uint64_t(info.sparse.maxRowPairs) * 4;
    const uint64_t pairMasks = list * 2;
    const uint64_t stage = slots * gpu::kIsoSlotStageWords;
    if (pairMasks > range || stage > range)
        return Status::error(ErrorCode::DeviceLimit,
                             "isosurface '" + info.name + "': sparse domain: " +
                                 (pairMasks > range
                                      ? "the brick list's pair masks of maxBricks " +
                                            std::to_string(info.sparse.maxBricks) + " need " + fmtBytes(pairMasks)
                                      : "the slot staging of maxRowPairs " + std::to_string(info.sparse.maxRowPairs) +
                                            " needs " + fmtBytes(stage)) +
                                 ", over maxStorageBufferRange (" + fmtBytes(range) + ")" + dev);
    listBytes = list;
    slotBytes = slots;
    stageBytes = stage;
    // The lists' fixed order (sparse_order.comp): a mark per super-brick,
    // then 16 words per listed super-brick (at most maxBricks of them, and
    // what one binding holds), each with its base; volumes: a mark per
    // surface brick; the pair masks of the listed bricks and their first places.
    const uint64_t superWords = (uint64_t(g.superBricks.w) + 31) / 32;
    const uint64_t markRoom = range / 4 > superWords ? (range / 4 - superWords) / 16 : 0;
    g.sparseOrderSupers = uint32_t(std::min<uint64_t>({g.superBricks.w, info.sparse.maxBricks, markRoom}));
    // (From an octree: a mark per brick of the grid.)
    const uint64_t markedBricks = info.sparse.volumeInput == SparseVolumeInput::OctreeLeaves
                                      ? std::max<uint64_t>(info.sparse.maxVolumeBricks, g.sparseLimits.z)
                                      : info.sparse.maxVolumeBricks;
    const uint64_t markWords =
        info.source == FieldSource::Volume ? (markedBricks + 31) / 32 : superWords + uint64_t(g.sparseOrderSupers) * 16;
    markBytes = std::max<uint64_t>(markWords, 1) * 4;
    baseBytes = std::max<uint64_t>(markWords - (info.source == FieldSource::Volume ? 0 : superWords), 1) * 4;
    pairOrderBytes = pairMasks;
    return {};
}

Status BrickListStage::createDirectBuffers(const gpu::IsoGrid& g, const MakeBuffer& make) {
    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    const VkBufferUsageFlags readable = storage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    // brick_list.comp: 8 bytes of bounds per brick; the list (a word per
    // brick, then per build group its list entry and its mark); two dispatches.
    const uint64_t bricks = g.sparseLimits.z, groups = groupsOf(bricks, gpu::kIsoBuildBricks);
    PYRAMARCH_TRY(make(directBounds, bricks * 8, storage, MemoryUsage::DeviceLocal, "brick bounds"));
    PYRAMARCH_TRY(make(directList, (bricks + 2 * groups) * 4, readable | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                       MemoryUsage::DeviceLocal, "brick list"));
    return make(directArgs, 32, storage | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, MemoryUsage::DeviceLocal,
                "brick dispatches");
}

Status BrickListStage::createSparseBuffers(const MakeBuffer& make) {
    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    const VkBufferUsageFlags readable = storage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    const VkBufferUsageFlags indirect = storage | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;
    PYRAMARCH_TRY(make(brickList, listBytes, readable, MemoryUsage::DeviceLocal, "sparse brick list"));
    PYRAMARCH_TRY(make(sparseArgs, 16, indirect, MemoryUsage::DeviceLocal, "sparse classify dispatch"));
    // The fine activate, list and slot passes' dispatches and the pool's first build pass's.
    PYRAMARCH_TRY(make(superArgs, 64, indirect, MemoryUsage::DeviceLocal, "sparse activate dispatch"));
    const VkBufferUsageFlags fillable = storage | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    PYRAMARCH_TRY(make(orderMarks, markBytes, fillable, MemoryUsage::DeviceLocal, "sparse marks"));
    PYRAMARCH_TRY(make(orderBases, baseBytes, storage, MemoryUsage::DeviceLocal, "sparse mark word bases"));
    PYRAMARCH_TRY(make(pairOrder, pairOrderBytes, fillable, MemoryUsage::DeviceLocal, "sparse pair masks"));
    PYRAMARCH_TRY(make(superList, superBytes, storage, MemoryUsage::DeviceLocal, "sparse super-bricks"));
    PYRAMARCH_TRY(make(slotStage, stageBytes, storage, MemoryUsage::DeviceLocal, "sparse slot stage"));
    return make(slotRecords, slotBytes, storage, MemoryUsage::DeviceLocal, "sparse slot records");
}

Status BrickListStage::createDirectPipelines(Impl& m) {
    if (m.lipschitzBricks()) {
        // The bricks' Lipschitz bounds: brick_list.comp around the snippet.
        uint32_t bits = 0;
        std::memcpy(&bits, &m.info.lipschitz, 4);
        const std::string defines =
            "#define ISO_BRICK_LIPSCHITZ\n#define ISO_LIPSCHITZ uintBitsToFloat(" + std::to_string(bits) + "u)\n";
        PYRAMARCH_TRY_ASSIGN(const std::vector<uint32_t> listSpv,
                             UserFieldProvider::fusedSpirv(m, kIsoText_brick_list_comp, "bricks", defines));
        PYRAMARCH_TRY(m.makePipeline(listPipe, listSpv, "bricks", 8));
        return m.makePipeline(buildListedPipe, kBuildListedSpv, "pyramid.listed", 4);
    }
    if (m.info.source == FieldSource::Metaballs)
        PYRAMARCH_TRY(m.makePipeline(listPipe, kBrickListBallsSpv, "bricks", 8));
    else if (m.info.source == FieldSource::Particles)
        PYRAMARCH_TRY(m.makePipeline(listPipe, kBrickListParticlesSpv, "bricks", 8));
    else
        PYRAMARCH_TRY(m.makePipeline(listPipe, kBrickListSpv, "bricks", 6));
    return m.makePipeline(buildListedPipe, kBuildListedSpv, "pyramid.listed", 4);
}

Status BrickListStage::createSparsePipelines(Impl& m) {
    PYRAMARCH_TRY(m.makePipeline(orderPipe, kOrderSpv, "sparse.order", 5));
    PYRAMARCH_TRY(m.makePipeline(slotOrderPipe, kSlotOrderSpv, "sparse.slots.order", 7));
    switch (m.info.source) {
    case FieldSource::Volume:
        // Bindings 0-3 as below, the surface bricks at 4, the listed bricks'
        // slots at 5, the marks at 6, their words' bases at 7.
        return m.makePipeline(activatePipe, kVolumeActivateSpv, "sparse.activate", 8, false);
    case FieldSource::Particles:
        // Bindings 0-4 as below, the bricks' lists at 6, the brick table at
        // 7, the super-brick marks at 8, the order's marks at 9 and bases at 10.
        PYRAMARCH_TRY(m.makePipeline(supersPipe, kParticleSupersSpv, "sparse.supers", 10, false));
        return m.makePipeline(activatePipe, kParticleActivateSpv, "sparse.activate", 11, false);
    case FieldSource::Metaballs: {
        // Bindings 0-4 as below, the balls at 5, the bricks' ball lists at
        // 6, the order's marks at 9 and bases at 10.
        PYRAMARCH_TRY(m.makePipeline(supersPipe, MetaballsProvider::sparseActivateSpirv(m.texelReads, true),
                                     "sparse.supers", 10, false));
        return m.makePipeline(activatePipe, MetaballsProvider::sparseActivateSpirv(m.texelReads, false),
                              "sparse.activate", 11, false);
    }
    case FieldSource::UserGlsl: break;
    }
    // User fields: sparse_activate.glsl around the snippet; the order's
    // marks at 9 and bases at 10 (5-8: the item sources').
    PYRAMARCH_TRY_ASSIGN(const std::vector<uint32_t> supers, UserFieldProvider::sparseActivateSpirv(m.info, true));
    PYRAMARCH_TRY(m.makePipeline(supersPipe, supers, "sparse.supers", 10, false));
    PYRAMARCH_TRY_ASSIGN(const std::vector<uint32_t> activate, UserFieldProvider::sparseActivateSpirv(m.info, false));
    return m.makePipeline(activatePipe, activate, "sparse.activate", 11, false);
}

void BrickListStage::importDirectBuffers(Impl& m, RenderGraph& graph, IsoRefs& refs) {
    const ExternalUse computeRead{Access::StorageRead, PassKind::Compute};
    const ExternalUse computeIndirect{Access::IndirectRead, PassKind::Compute};
    const std::string& n = m.info.name;
    refs.directBounds = graph.importBuffer(n + ".bricks.bounds", directBounds, computeRead, computeRead);
    refs.directList = graph.importBuffer(n + ".bricks.list", directList, computeRead, computeRead);
    refs.directArgs = graph.importBuffer(n + ".bricks.dispatch", directArgs, computeIndirect, computeIndirect);
}

void BrickListStage::importSparseBuffers(Impl& m, RenderGraph& graph, IsoRefs& refs) {
    const ExternalUse computeRead{Access::StorageRead, PassKind::Compute};
    const ExternalUse computeIndirect{Access::IndirectRead, PassKind::Compute};
    const std::string& n = m.info.name;
    refs.brickList = graph.importBuffer(n + ".sparse.bricks", brickList, computeRead, computeRead);
    refs.sparseArgs = graph.importBuffer(n + ".sparse.dispatch", sparseArgs, computeIndirect, computeIndirect);
    refs.slotRecords = graph.importBuffer(n + ".sparse.slots", slotRecords, computeRead, computeRead);
    refs.slotStage = graph.importBuffer(n + ".sparse.slots.stage", slotStage, computeRead, computeRead);
    refs.superList = graph.importBuffer(n + ".sparse.supers", superList, computeRead, computeRead);
    refs.superArgs = graph.importBuffer(n + ".sparse.activate.dispatch", superArgs, computeIndirect, computeIndirect);
    refs.orderMarks = graph.importBuffer(n + ".sparse.marks", orderMarks, computeRead, computeRead);
    refs.orderBases = graph.importBuffer(n + ".sparse.bases", orderBases, computeRead, computeRead);
    refs.pairOrder = graph.importBuffer(n + ".sparse.pairOrder", pairOrder, computeRead, computeRead);
}

void BrickListStage::addDirectPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs, uint32_t first,
                                     uint32_t listedLevels) {
    const IsoSurfaceCreateInfo& info = m.info;
    const gpu::IsoGrid& grid = m.grid;
    const uint32_t cleared = first + listedLevels; // the highest level written before the full build passes
    PYRAMARCH_ASSERT(first == gpu::kIsoClassifyLevels + 1, "a direct grid's pyramid has level 3");
    const VkDeviceSize levelBytes = cleared + 1 < grid.levelCount ? VkDeviceSize(grid.levels[cleared + 1].x) * 4
                                                                  : VkDeviceSize(m.sizes.pyramidBytes);
    const uint64_t bricks = grid.sparseLimits.z, groups = groupsOf(bricks, gpu::kIsoBuildBricks);
    // Metaballs, bounded user fields and particles: the bounds from the
    // balls, the Lipschitz bound or the tiles the particles' field pass
    // flagged, not from the field buffer; a tiled field pass after the list.
    const bool particles = info.source == FieldSource::Particles;
    const bool fromSource = info.source == FieldSource::Metaballs || m.lipschitzBricks() || particles;
    const bool tiles = m.tiledField();
    PassBuilder clear = graph.addPass(info.name + ".bricks.clear", PassKind::Transfer);
    clear.use(refs.pyramid, Access::TransferDst).use(refs.directList, Access::TransferDst);
    if (tiles) clear.use(refs.fieldTileFlags, Access::TransferDst).use(refs.fieldTileList, Access::TransferDst);
    clear.record([refs, levelBytes, bricks, groups, tiles](PassContext& ctx) {
        ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(refs.pyramid), 0, levelBytes, 0);
        ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(refs.directList), (bricks + groups) * 4, groups * 4, 0);
        if (tiles) {
            ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(refs.fieldTileFlags), 0, VK_WHOLE_SIZE, 0);
            ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(refs.fieldTileList), 0, 16, 0);
        }
    });
    const auto bricksPass = [&](const char* suffix, uint32_t mode) {
        PassBuilder pass = graph.addPass(info.name + suffix, PassKind::Compute);
        // Bindings a mode does not use: the counters stand in (never accessed through).
        pass.pipeline(listPipe)
            .uniform(0, refs.grid)
            .storage(1, refs.counters, RW)
            .storage(2, mode == 0 && !fromSource ? refs.field : refs.counters, mode == 0 && !fromSource ? R : RW)
            .storage(3, mode == 2 ? refs.counters : refs.directBounds,
                     mode == 0   ? W
                     : mode == 1 ? R
                                 : RW)
            .storage(4, mode == 1 ? refs.directList : refs.counters, RW)
            .storage(5, mode == 2 ? refs.directArgs : refs.counters, mode == 2 ? W : RW);
        // The field tiles' flags; metaballs: the balls (storage reads).
        if (particles)
            pass.storage(6, mode == 0 ? refs.particleTiles : refs.counters, mode == 0 ? R : RW);
        else if (fromSource)
            pass.storage(6, mode == 1 && tiles ? refs.fieldTileFlags : refs.counters, RW);
        if (info.source == FieldSource::Metaballs)
            pass.storage(7, mode == 0 ? refs.items : refs.counters, mode == 0 ? R : RW);
        else if (fromSource)
            pass.storage(7, refs.counters, RW); // unused by the user field's and the particles' builds
        pass.record([this, &m, mode, bricks, fromSource, tiles](PassContext& ctx) {
            // Volumes: the bounds of the field converted this frame only.
            if (mode == 0 && m.info.source == FieldSource::Volume) {
                if (!boundsDirty) return;
                boundsDirty = false;
            }
            // The frame's first pass where no field pass runs before the list
            // (tiled or fused): it reads this frame's balls or parameters.
            if (mode == 0 && fromSource && (tiles || m.fusedField)) m.beginFrame(ctx);
            gpu::IsoPush pc = m.push();
            pc.srcLevel = mode;
            pc.numLevels = mode == 1 && tiles ? 1u : 0u;
            ctx.pushConstants(pc);
            dispatchFolded(ctx, mode == 2 ? 1 : groupsOf(bricks, gpu::kIsoGroupSize), m.maxGroupsX());
        });
    };
    bricksPass(".bricks.bounds", 0);
    bricksPass(".bricks.list", 1);
    bricksPass(".bricks.args", 2);
    if (tiles) m.fieldTiles.addPasses(m, graph, refs); // the tiles' list and the field pass over them
}

void BrickListStage::addListedBuild(Impl& m, RenderGraph& graph, const IsoRefs& refs, uint32_t first,
                                    uint32_t listedLevels) {
    graph.addPass(m.info.name + ".pyramid." + std::to_string(first), PassKind::Compute)
        .pipeline(buildListedPipe)
        .uniform(0, refs.grid)
        .storage(1, refs.pyramid, RW)
        .storage(2, refs.counters, R)
        .storage(3, refs.directList, R)
        .use(refs.directArgs, Access::IndirectRead)
        .record([&m, first, listedLevels, args = refs.directArgs](PassContext& ctx) {
            gpu::IsoPush pc = m.push();
            pc.srcLevel = first;
            pc.numLevels = listedLevels;
            ctx.pushConstants(pc);
            ctx.dispatchIndirect(args, 16);
        });
}

void BrickListStage::addClearPass(Impl& m, RenderGraph& graph, const IsoRefs& refs) {
    // Level 2 and the levels the first build pass writes (it runs over the
    // places filled only: sparse.cpp), so that what no group writes is 0.
    const gpu::IsoGrid& g = m.grid;
    const uint32_t built = std::min(gpu::kIsoClassifyLevels + gpu::kIsoBuildLevelsPerPass, g.levelCount - 1);
    const VkDeviceSize level2Offset = VkDeviceSize(g.levels[2].x) * 4,
                       level2Bytes = (built + 1 < g.levelCount ? VkDeviceSize(g.levels[built + 1].x) * 4
                                                               : VkDeviceSize(m.sizes.pyramidBytes)) -
                                     level2Offset;
    graph.addPass(m.info.name + ".sparse.clear", PassKind::Transfer)
        .use(refs.pyramid, Access::TransferDst)
        .use(refs.orderMarks, Access::TransferDst)
        .use(refs.pairOrder, Access::TransferDst)
        .record([&m, refs, level2Offset, level2Bytes, maskBytes = listBytes](PassContext& ctx) {
            m.beginFrame(ctx); // the frame's first pass
            ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(refs.pyramid), level2Offset, level2Bytes, 0);
            ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(refs.orderMarks), 0, VK_WHOLE_SIZE, 0);
            // The pair masks (the first places after them: written before read).
            ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(refs.pairOrder), 0, maskBytes, 0);
        });
}

void BrickListStage::addListPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs) {
    const IsoSurfaceCreateInfo& info = m.info;
    // sparse_activate.glsl's modes: 0 super-bricks, 1 their count -> the
    // fine pass's dispatch (the coarse build); 2 bricks, 3 their count ->
    // classify's dispatch (the fine build), 4 the list.
    const bool balls = info.source == FieldSource::Metaballs;
    const bool particles = info.source == FieldSource::Particles;
    if (info.source == FieldSource::Volume) {
        // The upload's surface bricks (no super-bricks: the host listed them),
        // or the octree's, marked every frame.
        if (m.octreeInput)
            m.octree.addPasses(m, graph, refs);
        else
            m.sparseVolume.addUploadPass(m, graph, refs);
        const auto activate = [&](const char* suffix, uint32_t mode) {
            graph.addPass(info.name + suffix, PassKind::Compute)
                .pipeline(activatePipe)
                .uniform(0, refs.grid)
                .storage(1, refs.counters, RW)
                .storage(2, refs.brickList, W)
                .storage(3, refs.sparseArgs, W)
                .storage(4, refs.volumeSurface, R)
                .storage(5, refs.volumeBrickSlots, W)
                .storage(6, refs.orderMarks, RW)
                .storage(7, refs.orderBases, R)
                .record([&m, mode](PassContext& ctx) {
                    gpu::IsoPush pc = m.push();
                    pc.srcLevel = mode;
                    pc.itemCount = m.volumeSurfaceBricks;
                    const uint32_t slot = uint32_t(m.recording() % m.ring);
                    if (mode == 2)
                        m.isoOutsideBySlot[slot] = {m.recording(),
                                                    !(pc.iso >= m.volumeIsoMin && pc.iso <= m.volumeIsoMax)};
                    ctx.pushConstants(pc);
                    // Mode 2 a thread per surface brick, 4 (the list) per word of their marks.
                    const uint64_t threads = mode == 2   ? m.volumeSurfaceBricks
                                             : mode == 4 ? groupsOf(m.volumeSurfaceBricks, 32)
                                                         : 1;
                    dispatchFolded(ctx, groupsOf(threads, gpu::kIsoGroupSize), m.maxGroupsX());
                });
        };
        if (!m.octreeInput) {
            // The marked surface bricks listed in their order.
            activate(".sparse.activate", 2);
            addOrderPass(m, graph, refs, ".sparse.bricks.order", 2);
            activate(".sparse.list", 4);
        }
        activate(".sparse.args", 3);
        return;
    }
    const auto coarse = [&](const char* suffix, uint32_t mode, uint64_t groups) {
        PassBuilder pass = graph.addPass(info.name + suffix, PassKind::Compute);
        pass.pipeline(supersPipe)
            .uniform(0, refs.grid)
            .storage(1, refs.counters, RW)
            .storage(3, refs.superArgs, W)
            .storage(9, refs.orderMarks, RW);
        if (balls) m.metaballs.bindBalls(m, pass, refs, 5);
        if (particles) pass.storage(8, refs.superMarks, R);
        pass.record(m.modeDispatch(mode, groups));
    };
    const auto fine = [&](const char* suffix, uint32_t mode) {
        PassBuilder pass = graph.addPass(info.name + suffix, PassKind::Compute);
        pass.pipeline(activatePipe)
            .uniform(0, refs.grid)
            .storage(1, refs.counters, RW)
            .storage(2, refs.brickList, W)
            .storage(3, refs.sparseArgs, W)
            .storage(4, refs.superList, R)
            // Every mode: the shader's bindings count as accessed as declared there.
            .storage(9, refs.orderMarks, RW)
            .storage(10, refs.orderBases, R);
        if (balls) {
            m.metaballs.bindBalls(m, pass, refs, 5);
            pass.storage(6, refs.brickItems, W);
        }
        if (particles) pass.storage(6, refs.brickItems, W).storage(7, refs.brickTable, RW);
        // Mode 2 a thread per brick of the listed super-bricks, 4 (the list) per word of their marks.
        if (mode == 2 || mode == 4)
            pass.use(refs.superArgs, Access::IndirectRead)
                .record(m.indirectDispatch(refs.superArgs, mode == 2 ? 0 : 16, mode));
        else
            pass.record(m.modeDispatch(3, 1));
    };
    // Marks, scanned into the lists (sparse_order.comp): the same order in every run.
    coarse(".sparse.supers", 0, groupsOf(m.grid.superBricks.w, gpu::kIsoGroupSize));
    addOrderPass(m, graph, refs, ".sparse.supers.order", 0);
    coarse(".sparse.supers.args", 1, 1);
    fine(".sparse.activate", 2);
    addOrderPass(m, graph, refs, ".sparse.bricks.order", 1);
    fine(".sparse.list", 4);
    fine(".sparse.args", 3);
}

void BrickListStage::addOrderPass(Impl& m, RenderGraph& graph, const IsoRefs& refs, const char* suffix, uint32_t mode) {
    PassBuilder pass = graph.addPass(m.info.name + suffix, PassKind::Compute);
    pass.pipeline(orderPipe)
        .uniform(0, refs.grid)
        .storage(1, refs.counters, RW)
        .storage(2, mode == 3 ? refs.pairOrder : refs.orderMarks, RW)
        // Mode 3 writes no list: the bases stand in.
        .storage(3, mode == 0 ? refs.superList : refs.orderBases, W)
        // Modes 0-2 write no dispatch.
        .storage(4, refs.superArgs, W)
        .record([&m, mode](PassContext& ctx) {
            gpu::IsoPush pc = m.push();
            pc.srcLevel = mode;
            // Mode 2: the marks' bits (octree input: a bit per brick of the grid).
            pc.itemCount = m.octreeInput ? m.grid.sparseLimits.z : m.volumeSurfaceBricks;
            ctx.pushConstants(pc);
            ctx.dispatch(1);
        });
}

// The cut pairs' slots in list order: each chunk of 8 listed bricks' first
// slot, then each claimed slot's place and its pyramid words there.
void BrickListStage::addSlotOrderPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs) {
    addOrderPass(m, graph, refs, ".sparse.slots.order", 3);
    graph.addPass(m.info.name + ".sparse.slots.place", PassKind::Compute)
        .pipeline(slotOrderPipe)
        .uniform(0, refs.grid)
        .storage(1, refs.counters, R)
        .storage(2, refs.pyramid, W)
        .storage(3, refs.pairOrder, R)
        .storage(4, refs.slotRecords, W)
        .storage(5, refs.brickList, R)
        .storage(6, refs.slotStage, R)
        .use(refs.superArgs, Access::IndirectRead)
        .record(m.indirectDispatch(refs.superArgs, 32, 0));
}

} // namespace pyramarch::iso
