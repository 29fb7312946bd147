// Indexed output (shared vertices) on a sparse domain: the dense indexed
// path's mesh (extract_indexed.cpp) over the pool of row pairs. A pool slot
// (16 cells) stands where a dense classify run does, so the vertex pyramid
// has the dense one's shape over the pool's slots; what the dense path gets
// from cell arithmetic (where a cut edge's owner cell is), the pool gets
// from two per-frame tables sized by the brick list (sparse_indexed.glsl).
// Passes, after the sparse classify and the pool pyramid's build:
//   "<name>.sparse.vertices.clear"   the owner lookup (brick hash, pair slots)
//                                    and the vertex pyramid's level 1 (one
//                                    word per slot) to 0 / empty
//   "<name>.sparse.vertices.args"    the claimed slots -> the next passes' dispatch
//   "<name>.sparse.vertices.count"   a thread per slot: its cells' owned cut
//                                    edges -> vertex pyramid levels 0, 1; the
//                                    slot into the lookup
//   "<name>.vertices.pyramid.<L>"    the build above level 1
//   "<name>.sparse.vertices.bases"   a thread per slot: its first vertex index;
//                                    a brick's lowest slot: the brick's
//                                    neighbours' list entries
// then, after "<name>.args" (which sizes both from the pyramids' tops):
//   "<name>.vertices"                a thread per vertex: position and normal
//                                    from field() at the owner's brick
//   "<name>.extract"                 a thread per triangle: three indices (the
//                                    owners' slots: one load each, no search)
#include <algorithm>
#include <bit>
#include <cstddef>

#include "extract_indexed.h"
#include "iso_glsl_text.h"
#include "iso_impl.h"

namespace pyramarch::iso {
namespace {
const uint32_t kArgsSpv[] =
#include "shaders/isosurface/sparse_vertex_args.comp.spv.inc"
    ;
const uint32_t kCountSpv[] =
#include "shaders/isosurface/sparse_vertex_count.comp.spv.inc"
    ;
const uint32_t kBasesSpv[] =
#include "shaders/isosurface/sparse_vertex_bases.comp.spv.inc"
    ;
const uint32_t kExtractSpv[] =
#include "shaders/isosurface/sparse_extract_indexed.comp.spv.inc"
    ;
const uint32_t kExtractStorageSpv[] =
#include "shaders/isosurface/sparse_extract_indexed.storage.comp.spv.inc"
    ;
const uint32_t kMetaballVerticesSpv[] =
#include "shaders/isosurface/sparse_shared_vertices.metaballs.comp.spv.inc"
    ;
const uint32_t kMetaballVerticesStorageSpv[] =
#include "shaders/isosurface/sparse_shared_vertices.metaballs_storage.comp.spv.inc"
    ;
const uint32_t kVolumeVerticesSpv[] =
#include "shaders/isosurface/sparse_shared_vertices.volume.comp.spv.inc"
    ;
const uint32_t kVolumeVerticesStorageSpv[] =
#include "shaders/isosurface/sparse_shared_vertices.volume_storage.comp.spv.inc"
    ;
// A grid that fits (direct): every slot, owners by arithmetic, no lookup.
const uint32_t kDirectCountSpv[] =
#include "shaders/isosurface/sparse_vertex_count.direct.comp.spv.inc"
    ;
const uint32_t kDirectBasesSpv[] =
#include "shaders/isosurface/sparse_vertex_bases.direct.comp.spv.inc"
    ;
const uint32_t kDirectExtractSpv[] =
#include "shaders/isosurface/sparse_extract_indexed.direct.comp.spv.inc"
    ;
const uint32_t kDirectExtractStorageSpv[] =
#include "shaders/isosurface/sparse_extract_indexed.direct_storage.comp.spv.inc"
    ;
const uint32_t kDirectVerticesSpv[] =
#include "shaders/isosurface/sparse_shared_vertices.dense.comp.spv.inc"
    ;
const uint32_t kDirectVerticesStorageSpv[] =
#include "shaders/isosurface/sparse_shared_vertices.dense_storage.comp.spv.inc"
    ;
} // namespace

Status IndexedStage::createDirectPipelines(Impl& m) {
    PYRAMARCH_TRY(m.makePipeline(vertexCountPipe, kDirectCountSpv, "sparse.vertices.count", 5));
    PYRAMARCH_TRY(m.makePipeline(vertexBasesPipe, kDirectBasesSpv, "vertices.bases", 5));
    if (m.fusedField) {
        PYRAMARCH_TRY_ASSIGN(const std::vector<uint32_t> fused,
                             UserFieldProvider::fusedSpirv(m, kIsoText_sparse_shared_vertices_comp, "vertices",
                                                           "#define ISO_DIRECT_BRICKS\n"));
        PYRAMARCH_TRY(m.makePipeline(sharedVerticesPipe, fused, "vertices", kSparseOutputBindings));
    } else {
        PYRAMARCH_TRY(
            m.makePipeline(sharedVerticesPipe,
                           m.texelReads ? std::span<const uint32_t>(kDirectVerticesSpv) : kDirectVerticesStorageSpv,
                           "vertices", kSparseOutputBindings));
    }
    return m.makePipeline(extractPipe,
                          m.texelReads ? std::span<const uint32_t>(kDirectExtractSpv) : kDirectExtractStorageSpv,
                          "extract", 10 + kSliceBindings);
}

// Every slot's owned cut edges (classify wrote every slot's cases), the
// vertex pyramid above, every slot's first vertex.
void IndexedStage::addDirectVertexPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs) {
    const std::string& n = m.info.name;
    const uint64_t groups = groupsOf(m.grid.sparseLimits.y, gpu::kIsoGroupSize);
    const auto slotPass = [&](const char* suffix, const ComputePipeline& pipe, BufferRef read, BufferRef written) {
        graph.addPass(n + suffix, PassKind::Compute)
            .pipeline(pipe)
            .uniform(0, refs.grid)
            .uniform(1, refs.vertexGrid)
            .storage(2, read, R)
            .storage(3, written, W)
            .storage(4, refs.counters, R)
            .record([&m, groups](PassContext& ctx) {
                ctx.pushConstants(m.push());
                dispatchFolded(ctx, groups, m.maxGroupsX());
            });
    };
    slotPass(".vertices.count", vertexCountPipe, refs.pyramid, refs.vertexPyramid);
    if (vertexGrid.levelCount > 2)
        m.addPyramidBuild(graph, n + ".vertices.pyramid.", refs.vertexGrid, refs.vertexPyramid, vertexGrid, 1);
    slotPass(".vertices.bases", vertexBasesPipe, refs.vertexPyramid, refs.runBases);
}

BufferRef IndexedStage::addDirectPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs) {
    const std::string& n = m.info.name;
    const ExternalUse indexRead{Access::IndexRead, PassKind::Graphics};
    const BufferRef indicesRef = graph.importBuffer(n + ".indices", indices, indexRead, indexRead);
    PassBuilder vertexPass = graph.addPass(n + ".vertices", PassKind::Compute);
    vertexPass.pipeline(sharedVerticesPipe)
        .uniform(0, refs.grid)
        .uniform(1, refs.vertexGrid)
        .storage(3, refs.pyramid, R)
        .storage(4, refs.vertexPyramid, R);
    if (!m.fusedField) {
        if (m.texelReads)
            vertexPass.texel(2, refs.field, VK_FORMAT_R32_SFLOAT, Access::SampledRead);
        else
            vertexPass.storage(2, refs.field, R);
    }
    m.vertexSlices(vertexPass, 5, 12, refs.vertices, W);
    vertexPass.use(refs.args, Access::IndirectRead)
        .record(m.indirectDispatch(refs.args, offsetof(gpu::IsoArgs, vertexDispatchX)));
    PassBuilder pass = graph.addPass(n + ".extract", PassKind::Compute);
    pass.pipeline(extractPipe).uniform(0, refs.grid).uniform(1, refs.tables).uniform(2, refs.vertexGrid);
    if (m.texelReads)
        pass.texel(3, refs.pyramid, VK_FORMAT_R32G32B32A32_UINT, Access::SampledRead)
            .texel(4, refs.vertexPyramid, VK_FORMAT_R32_UINT, Access::SampledRead)
            .texel(5, refs.runBases, VK_FORMAT_R32_UINT, Access::SampledRead);
    else
        pass.storage(3, refs.pyramid, R).storage(4, refs.vertexPyramid, R).storage(5, refs.runBases, R);
    m.indexSlices(pass, 6, 10, indicesRef, W);
    pass.use(refs.args, Access::IndirectRead).record(m.indirectDispatch(refs.args, offsetof(gpu::IsoArgs, dispatchX)));
    return indicesRef;
}

uint64_t sparseBrickHashEntries(uint32_t maxBricks) {
    // A power of two at least twice the list: the hash is at most half full.
    return uint64_t(1) << std::bit_width(2 * uint64_t(std::max(maxBricks, 1u)) - 1);
}

uint64_t sparseLookupBytes(uint32_t maxBricks) {
    // The hash, then per brick its pairs' slots and its 8 neighbours' entries.
    return (2 * sparseBrickHashEntries(maxBricks) + uint64_t(maxBricks) * (gpu::kIsoBrickRowPairs + 8)) * 4;
}

Status IndexedStage::planSparse(const Impl& m, const DeviceLimits& lim, const std::string& dev) {
    const uint64_t bytes = sparseLookupBytes(m.info.sparse.maxBricks);
    if (bytes > lim.maxStorageBufferRange)
        return Status::error(ErrorCode::DeviceLimit,
                             "isosurface '" + m.info.name + "': sparse domain, indexed output: the owner lookup of " +
                                 "maxBricks " + std::to_string(m.info.sparse.maxBricks) + " (a brick hash of " +
                                 std::to_string(sparseBrickHashEntries(m.info.sparse.maxBricks)) +
                                 " entries, 32 slots and 8 neighbours per brick) needs " + fmtBytes(bytes) +
                                 ", over maxStorageBufferRange (" + fmtBytes(lim.maxStorageBufferRange) + ")" + dev +
                                 "; at most " + std::to_string(maxSparseIndexedBricks(lim)) +
                                 " bricks with indexed output");
    lookupBytes = bytes;
    return {};
}

uint32_t maxSparseIndexedBricks(const DeviceLimits& limits) {
    uint64_t lo = 0, hi = std::min<uint64_t>(kMaxSparseBricks, limits.maxStorageBufferRange / 4);
    while (lo < hi) {
        const uint64_t mid = (lo + hi + 1) / 2;
        if (sparseLookupBytes(uint32_t(mid)) <= limits.maxStorageBufferRange)
            lo = mid;
        else
            hi = mid - 1;
    }
    return uint32_t(lo);
}

Status IndexedStage::createSparsePipelines(Impl& m) {
    PYRAMARCH_TRY(m.makePipeline(vertexArgsPipe, kArgsSpv, "sparse.vertices.args", 3));
    PYRAMARCH_TRY(m.makePipeline(vertexCountPipe, kCountSpv, "sparse.vertices.count", 8));
    PYRAMARCH_TRY(m.makePipeline(vertexBasesPipe, kBasesSpv, "sparse.vertices.bases", 8));
    // The vertices read the field: bindings 0-6, and the brick's items at 7, 8.
    if (m.info.source == FieldSource::Metaballs) {
        PYRAMARCH_TRY(
            m.makePipeline(sharedVerticesPipe,
                           m.texelReads ? std::span<const uint32_t>(kMetaballVerticesSpv) : kMetaballVerticesStorageSpv,
                           "vertices", kSparseOutputBindings));
    } else if (m.info.source == FieldSource::Volume || m.info.source == FieldSource::Particles) {
        // The pool's buffers at 7, 9, 10 and 11, the listed bricks' slots at 8
        // (particles: the blocks of sparse_particles_blocks.comp).
        PYRAMARCH_TRY(
            m.makePipeline(sharedVerticesPipe,
                           m.texelReads ? std::span<const uint32_t>(kVolumeVerticesSpv) : kVolumeVerticesStorageSpv,
                           "vertices", kSparseOutputBindings));
    } else {
        PYRAMARCH_TRY_ASSIGN(const std::vector<uint32_t> fused,
                             UserFieldProvider::fusedSpirv(m, kIsoText_sparse_shared_vertices_comp, "vertices"));
        PYRAMARCH_TRY(m.makePipeline(sharedVerticesPipe, fused, "vertices", kSparseOutputBindings));
    }
    return m.makePipeline(extractPipe, m.texelReads ? std::span<const uint32_t>(kExtractSpv) : kExtractStorageSpv,
                          "extract", 10 + kSliceBindings);
}

void IndexedStage::addSparseVertexPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs) {
    const std::string& n = m.info.name;
    // Slots no pair claims this frame own no vertex (level 1 is what the
    // build reads); the lookup starts empty (hash keys 0, pair slots ~0).
    const VkDeviceSize level1Offset = VkDeviceSize(vertexGrid.levels[1].x) * 4,
                       level1Bytes = VkDeviceSize(vertexGrid.levels[1].y) * 4,
                       hashBytes = sparseBrickHashEntries(m.info.sparse.maxBricks) * 8;
    graph.addPass(n + ".sparse.vertices.clear", PassKind::Transfer)
        .use(refs.vertexPyramid, Access::TransferDst)
        .use(refs.sparseLookup, Access::TransferDst)
        .record([refs, level1Offset, level1Bytes, hashBytes](PassContext& ctx) {
            ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(refs.vertexPyramid), level1Offset, level1Bytes, 0);
            ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(refs.sparseLookup), 0, hashBytes, 0);
            ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(refs.sparseLookup), hashBytes, VK_WHOLE_SIZE, 0xffffffffu);
        });
    graph.addPass(n + ".sparse.vertices.args", PassKind::Compute)
        .pipeline(vertexArgsPipe)
        .uniform(0, refs.grid)
        .storage(1, refs.counters, R)
        .storage(2, refs.sparseVertexArgs, W)
        .record([&m](PassContext& ctx) {
            ctx.pushConstants(m.push());
            ctx.dispatch(1);
        });
    // A thread per claimed slot, reading binding 2 and writing binding 3;
    // both passes share the rest (the slots, the list, the owner lookup).
    const auto slotPass = [&](const char* suffix, const ComputePipeline& pipe, BufferRef read, BufferRef written) {
        graph.addPass(n + suffix, PassKind::Compute)
            .pipeline(pipe)
            .uniform(0, refs.grid)
            .uniform(1, refs.vertexGrid)
            .storage(2, read, R)
            .storage(3, written, W)
            .storage(4, refs.counters, R)
            .storage(5, refs.slotRecords, R)
            .storage(6, refs.brickList, R)
            .storage(7, refs.sparseLookup, RW)
            .use(refs.sparseVertexArgs, Access::IndirectRead)
            .record(m.indirectDispatch(refs.sparseVertexArgs, 0));
    };
    slotPass(".sparse.vertices.count", vertexCountPipe, refs.pyramid, refs.vertexPyramid);
    // The count pass wrote levels 0 and 1.
    if (vertexGrid.levelCount > 2)
        m.addPyramidBuild(graph, n + ".vertices.pyramid.", refs.vertexGrid, refs.vertexPyramid, vertexGrid, 1);
    slotPass(".sparse.vertices.bases", vertexBasesPipe, refs.vertexPyramid, refs.runBases);
}

BufferRef IndexedStage::addSparsePasses(Impl& m, RenderGraph& graph, const IsoRefs& refs) {
    const std::string& n = m.info.name;
    const ExternalUse indexRead{Access::IndexRead, PassKind::Graphics};
    const BufferRef indicesRef = graph.importBuffer(n + ".indices", indices, indexRead, indexRead);
    PassBuilder vertexPass = graph.addPass(n + ".vertices", PassKind::Compute);
    vertexPass.pipeline(sharedVerticesPipe)
        .uniform(0, refs.grid)
        .uniform(1, refs.vertexGrid)
        .storage(2, refs.brickList, R)
        .storage(3, refs.pyramid, R)
        .storage(4, refs.vertexPyramid, R)
        .storage(6, refs.slotRecords, R);
    // The vertex buffer's slices 1.. after the volume pool's bindings (sparse_shared_vertices.comp).
    m.vertexSlices(vertexPass, 5, 12, refs.vertices, W);
    m.bindBrickItems(vertexPass, refs);
    vertexPass.use(refs.args, Access::IndirectRead)
        .record(m.indirectDispatch(refs.args, offsetof(gpu::IsoArgs, vertexDispatchX)));
    PassBuilder pass = graph.addPass(n + ".extract", PassKind::Compute);
    pass.pipeline(extractPipe).uniform(0, refs.grid).uniform(1, refs.tables).uniform(2, refs.vertexGrid);
    if (m.texelReads)
        pass.texel(3, refs.pyramid, VK_FORMAT_R32G32B32A32_UINT, Access::SampledRead)
            .texel(4, refs.vertexPyramid, VK_FORMAT_R32_UINT, Access::SampledRead)
            .texel(5, refs.runBases, VK_FORMAT_R32_UINT, Access::SampledRead);
    else
        pass.storage(3, refs.pyramid, R).storage(4, refs.vertexPyramid, R).storage(5, refs.runBases, R);
    m.indexSlices(pass, 6, 10, indicesRef, W);
    pass.storage(7, refs.slotRecords, R)
        .storage(8, refs.brickList, R)
        .storage(9, refs.sparseLookup, R)
        .use(refs.args, Access::IndirectRead)
        .record(m.indirectDispatch(refs.args, offsetof(gpu::IsoArgs, dispatchX)));
    return indicesRef;
}

} // namespace pyramarch::iso
