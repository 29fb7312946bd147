// Sparse volumes fed by a voxel octree (SparseVolumeInput::OctreeLeaves):
// every frame, on the GPU and without read-back, the occupied leaves of the
// octree the host's graph built become the volume pool's surface bricks, as
// an upload (sparse_volume.cpp) would have left them for the field "1 at an
// occupied voxel, 0 elsewhere" in U8. Passes, after "<name>.sparse.clear":
//   "<name>.sparse.octree.clear"        the per-brick counts and the pool to 0
//   "<name>.sparse.octree.leaves.args"  the leaf level's nodes -> the mark
//                                       and scatter dispatch
//   "<name>.sparse.octree.mark"         each occupied leaf counts into the
//                                       bricks whose cells it is a corner of;
//                                       a brick's first mark gives it a slot
//   "<name>.sparse.octree.bricks.args"  the marked bricks -> the activate dispatch
//   "<name>.sparse.activate"            a bit per brick of the grid for each
//                                       surface brick whose range the iso value cuts
//   "<name>.sparse.bricks.order"        each word of those marks' first list
//                                       entry (sparse_order.comp)
//   "<name>.sparse.list"                the marked bricks listed in brick order
//   "<name>.sparse.octree.scatter"      each occupied leaf sets its sample in
//                                       the blocks that hold it (apron too)
//   "<name>.sparse.args"                the listed count -> classify's dispatch
// (sparse_octree_activate.comp; the last pass is sparse_volume_activate.comp's).
// Classify and extraction then read the pool as for uploaded volumes.
#include "sparse_octree.h"

#include <cstring>

#include "iso_impl.h"

namespace pyramarch::iso {
namespace {
const uint32_t kOctreeArgsSpv[] =
#include "shaders/isosurface/sparse_octree_activate.args.comp.spv.inc"
    ;
const uint32_t kOctreeActivateSpv[] =
#include "shaders/isosurface/sparse_octree_activate.comp.spv.inc"
    ;

float wordBits(uint32_t word) {
    float f;
    std::memcpy(&f, &word, 4);
    return f;
}
} // namespace

Status SparseOctreeStage::plan(const IsoSurfaceCreateInfo& info, const gpu::IsoGrid& g, const uint32_t (&b)[3],
                               uint64_t range, const std::string& dev) {
    const uint64_t bytes = uint64_t(g.sparseLimits.z) * 4;
    if (bytes > range)
        return Status::error(ErrorCode::DeviceLimit,
                             "isosurface '" + info.name + "': sparse volume from an octree: the brick table of " +
                                 std::to_string(g.sparseLimits.z) + " bricks (" + std::to_string(b[0]) + "x" +
                                 std::to_string(b[1]) + "x" + std::to_string(b[2]) + ") needs " + fmtBytes(bytes) +
                                 ", over maxStorageBufferRange (" + fmtBytes(range) + ")" + dev);
    tableBytes = bytes;
    return {};
}

Status SparseOctreeStage::createBuffers(const MakeBuffer& make) {
    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    PYRAMARCH_TRY(make(brickCounts, tableBytes, storage | VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUsage::DeviceLocal,
                       "sparse octree brick counts"));
    PYRAMARCH_TRY(make(brickSurface, tableBytes, storage, MemoryUsage::DeviceLocal, "sparse octree brick slots"));
    return make(args, 32, storage | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, MemoryUsage::DeviceLocal,
                "sparse octree dispatch");
}

Status SparseOctreeStage::createPipelines(Impl& m) {
    // Args: the grid, the counters, the octree's counters, the dispatch.
    PYRAMARCH_TRY(m.makePipeline(argsPipe, kOctreeArgsSpv, "sparse.octree.args", 4));
    // Mark, activate, scatter: bindings 0-13 of sparse_octree_activate.comp.
    return m.makePipeline(activatePipe, kOctreeActivateSpv, "sparse.octree", 16);
}

void SparseOctreeStage::importBuffers(Impl& m, RenderGraph& graph, IsoRefs& refs, const OctreeLeafInput& octree) {
    const ExternalUse computeRead{Access::StorageRead, PassKind::Compute};
    const ExternalUse computeIndirect{Access::IndirectRead, PassKind::Compute};
    const std::string& n = m.info.name;
    refs.octreeCounters = octree.counters;
    refs.octreeNodeCount = octree.nodeCount;
    refs.octreeNodeCoord = octree.nodeCoord;
    refs.octreeLeafFirstWord = octree.leafTilesFirst / 4;
    refs.octreeLeafEndWord = octree.leafTilesEnd / 4;
    refs.octreeBrickCounts = graph.importBuffer(n + ".sparse.octree.counts", brickCounts, computeRead, computeRead);
    refs.octreeBrickSurface =
        graph.importBuffer(n + ".sparse.octree.brickSlots", brickSurface, computeRead, computeRead);
    refs.octreeArgs = graph.importBuffer(n + ".sparse.octree.dispatch", args, computeIndirect, computeIndirect);
}

void SparseOctreeStage::addPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs) {
    const std::string& n = m.info.name;
    const uint32_t pools = m.sizes.volumePoolCount;
    // The counts and the pool's samples to 0: the blocks of this frame's
    // bricks are whatever the scatter sets in them.
    PassBuilder clear = graph.addPass(n + ".sparse.octree.clear", PassKind::Transfer);
    clear.use(refs.octreeBrickCounts, Access::TransferDst);
    for (uint32_t i = 0; i < pools; ++i) clear.use(refs.volumePools[i], Access::TransferDst);
    clear.record([pools, refs](PassContext& ctx) {
        ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(refs.octreeBrickCounts), 0, VK_WHOLE_SIZE, 0);
        for (uint32_t i = 0; i < pools; ++i)
            ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(refs.volumePools[i]), 0, VK_WHOLE_SIZE, 0);
    });
    // Every pass reads the leaf range's words and the pool's capacity from the push constants.
    const auto octreePush = [&m, first = refs.octreeLeafFirstWord, end = refs.octreeLeafEndWord](uint32_t mode) {
        gpu::IsoPush pc = m.push();
        pc.srcLevel = mode;
        pc.itemCount = m.info.sparse.maxVolumeBricks;
        pc.user1 = {wordBits(first), wordBits(end), 0.f, 0.f};
        return pc;
    };
    const auto args = [&](const char* suffix, uint32_t mode) {
        graph.addPass(n + suffix, PassKind::Compute)
            .pipeline(argsPipe)
            .uniform(0, refs.grid)
            .storage(1, refs.counters, RW)
            .storage(2, refs.octreeCounters, R)
            .storage(3, refs.octreeArgs, W)
            .record([octreePush, mode](PassContext& ctx) {
                ctx.pushConstants(octreePush(mode));
                ctx.dispatch(1, 1, 1);
            });
    };
    // Modes 1, 3 and 4 declare every binding (one build); each writes some.
    const auto pass = [&](const std::string& name, uint32_t mode, VkDeviceSize argsOffset) {
        PassBuilder p = graph.addPass(name, PassKind::Compute);
        p.pipeline(activatePipe)
            .uniform(0, refs.grid)
            .storage(1, refs.counters, RW)
            .storage(2, refs.brickList, W)
            .storage(3, refs.octreeCounters, R)
            .storage(4, refs.octreeNodeCount, R)
            .storage(5, refs.octreeNodeCoord, R)
            .storage(6, refs.octreeBrickCounts, RW)
            .storage(7, refs.octreeBrickSurface, RW)
            .storage(8, refs.volumeSurface, RW)
            .storage(9, refs.volumeBrickSlots, W);
        for (uint32_t i = 0; i < gpu::kIsoVolumePools; ++i) p.storage(10 + i, refs.volumePools[i], RW);
        p.storage(14, refs.orderMarks, RW).storage(15, refs.orderBases, R);
        if (mode == 5) {
            // A thread per word of the marks (a bit per brick of the grid).
            const uint64_t groups = groupsOf(groupsOf(m.grid.sparseLimits.z, 32), gpu::kIsoGroupSize);
            p.record([&m, octreePush, groups](PassContext& ctx) {
                ctx.pushConstants(octreePush(5));
                dispatchFolded(ctx, groups, m.maxGroupsX());
            });
            return;
        }
        p.use(refs.octreeArgs, Access::IndirectRead)
            .record([&m, octreePush, mode, argsOffset, dispatch = refs.octreeArgs](PassContext& ctx) {
                if (mode == 3) {
                    // No upload range: the field is 0 or 1 wherever the octree reaches.
                    m.isoOutsideBySlot[uint32_t(m.recording() % m.ring)] = {m.recording(), false};
                }
                ctx.pushConstants(octreePush(mode));
                ctx.dispatchIndirect(dispatch, argsOffset);
            });
    };
    args(".sparse.octree.leaves.args", 0);
    pass(n + ".sparse.octree.mark", 1, 0);
    args(".sparse.octree.bricks.args", 2);
    // The marked bricks listed in brick order (sparse_order.comp).
    pass(n + ".sparse.activate", 3, 16);
    m.brickListing.addOrderPass(m, graph, refs, ".sparse.bricks.order", 2);
    pass(n + ".sparse.list", 5, 0);
    pass(n + ".sparse.octree.scatter", 4, 0);
}

} // namespace pyramarch::iso
