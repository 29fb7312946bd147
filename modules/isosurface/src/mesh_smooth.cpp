// Mesh smoothing of the indexed output (IsoSurfaceCreateInfo::meshSmoothing),
// after "<name>.indices". Once per frame, the triangles around each vertex:
// "<name>.mesh.smooth.clear" (first frame: the counts' fill),
// ".mesh.smooth.count", ".mesh.smooth.scan.{sums,top,starts}" (the particle
// gather's bin scan over vertices) and ".mesh.smooth.fill". Then one pass
// per step, "<name>.mesh.smooth.<i>.lambda" and ".mu", each vertex
// gathering its slots, positions ping-ponging between the vertex buffer and
// a scratch buffer; then ".mesh.smooth.normals" (or ".mesh.smooth.copy"
// without normals after an odd step count). Per-index passes use the index
// pass's indirect dispatch, per-vertex ones the vertex pass's: sized by the
// GPU's own counts. It reads only the indexed output (vertices, indices and
// the args), so dense grids and sparse domains share it. No atomics in the steps: measured on lavapipe (100k
// particles, 98k triangles) a step summing with integer atomics per index
// took 20-34 ms, the gather 1-2 ms (modules/isosurface/README.md).
#include "mesh_smooth.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "iso_impl.h"

namespace pyramarch::iso {
namespace {
const uint32_t kMeshListsSpv[] =
#include "shaders/isosurface/mesh_smooth_lists.comp.spv.inc"
    ;
const uint32_t kMeshStepSpv[] =
#include "shaders/isosurface/mesh_smooth_step.comp.spv.inc"
    ;
uint64_t scanChunks(const gpu::IsoGrid& g) { return groupsOf(g.vertexCapacity, gpu::kIsoBinScanChunk); }

} // namespace

Status MeshSmoothStage::plan(const IsoSurfaceCreateInfo& info, bool indexed) {
    const MeshSmoothing& ms = info.meshSmoothing;
    const std::string what = "isosurface '" + info.name + "': meshSmoothing.";
    if (ms.iterations > 64)
        return Status::error(ErrorCode::InvalidArgument,
                             what + "iterations " + std::to_string(ms.iterations) +
                                 " is over 64 (each adds 2 passes; a surface is smooth after a few)");
    if (!(ms.lambda > 0.f && ms.lambda <= 1.f))
        return Status::error(ErrorCode::InvalidArgument,
                             what + "lambda " + std::to_string(ms.lambda) + " must be in (0, 1]");
    if (!(ms.mu >= -1.f && ms.mu <= 0.f))
        return Status::error(ErrorCode::InvalidArgument,
                             what + "mu " + std::to_string(ms.mu) + " must be in [-1, 0] (0: plain Laplacian)");
    if (ms.iterations > 0 && !indexed)
        return Status::error(ErrorCode::InvalidArgument,
                             what + "iterations " + std::to_string(ms.iterations) +
                                 " needs indexed output (indexed = true): the smoothing finds a vertex's "
                                 "neighbours in the index buffer");
    enabled = ms.iterations > 0;
    return {};
}

Status MeshSmoothStage::checkOutputs(const DeviceLimits& lim, const std::string& what, const std::string& dev,
                                     const gpu::IsoGrid& g, uint32_t vertexCapacity, uint32_t indexCapacity) const {
    if (!enabled) return {};
    // Its own buffers are bound whole: a slot pair per index and a scratch
    // position per vertex, each in one binding.
    const uint64_t range = lim.maxStorageBufferRange;
    const uint64_t listBytes = uint64_t(g.indexCapacity) * 8, scratchBytes = uint64_t(g.vertexCapacity) * 16;
    if (listBytes > range || scratchBytes > range)
        return Status::error(ErrorCode::DeviceLimit,
                             what + ": meshSmoothing: " +
                                 (listBytes > range
                                      ? "the triangle slots of indexCapacity " + std::to_string(indexCapacity) +
                                            " need " + fmtBytes(listBytes)
                                      : "the scratch positions of vertexCapacity " + std::to_string(vertexCapacity) +
                                            " need " + fmtBytes(scratchBytes)) +
                                 ", over maxStorageBufferRange (" + fmtBytes(range) + ")" + dev);
    return {};
}

void MeshSmoothStage::limitGrowth(const DeviceLimits& lim, uint64_t& vertices, uint64_t& indices) const {
    if (!enabled) return;
    const uint64_t range = lim.maxStorageBufferRange;
    vertices = std::min(vertices, range / 16);
    indices = std::min(indices, range / 8);
}

uint64_t MeshSmoothStage::outputBytes(const gpu::IsoGrid& g) const {
    if (!enabled) return 0;
    return uint64_t(g.vertexCapacity) * 24 + 4 + scanChunks(g) * 4 + uint64_t(g.indexCapacity) * 8;
}

Status MeshSmoothStage::createBuffers(const gpu::IsoGrid& grid, const MakeBuffer& make) {
    if (!enabled) return {};
    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    const uint64_t vertices = grid.vertexCapacity;
    const char* const* names = kBufferNames;
    PYRAMARCH_TRY(
        make(gridBuf, sizeof(gpu::IsoGrid), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, MemoryUsage::Upload, names[0]));
    PYRAMARCH_TRY(
        make(countBuf, vertices * 4, storage | VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUsage::DeviceLocal, names[1]));
    PYRAMARCH_TRY(make(chunkBuf, scanChunks(grid) * 4, storage, MemoryUsage::DeviceLocal, names[2]));
    PYRAMARCH_TRY(make(startBuf, (vertices + 1) * 4, storage, MemoryUsage::DeviceLocal, names[3]));
    PYRAMARCH_TRY(make(listBuf, uint64_t(grid.indexCapacity) * 8, storage, MemoryUsage::DeviceLocal, names[4]));
    PYRAMARCH_TRY(make(scratchBuf, vertices * 16, storage, MemoryUsage::DeviceLocal, names[5]));
    // The bin scan reads its element count from binDims.w: here the vertices.
    gpu::IsoGrid g = grid;
    g.binDims.w = grid.vertexCapacity;
    std::memcpy(gridBuf.mapped(), &g, sizeof(g));
    gridBuf.flush();
    return {};
}

Status MeshSmoothStage::createPipelines(Impl& m) {
    if (!enabled) return {};
    PYRAMARCH_TRY(m.makePipeline(listsPipe, kMeshListsSpv, "mesh.smooth.lists", 6 + kSliceBindings));
    PYRAMARCH_TRY(m.makePipeline(stepPipe, kMeshStepSpv, "mesh.smooth.step", 7 + kSliceBindings));
    return m.makeScanPipelines(scanPipe, scanTopPipe, "mesh.smooth.scan");
}

void MeshSmoothStage::addPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs, BufferRef indicesRef) {
    const std::string& n = m.info.name;
    const std::string prefix = n + ".mesh.smooth.";
    const ExternalUse computeRead{Access::StorageRead, PassKind::Compute};
    const ExternalUse computeRW{Access::StorageReadWrite, PassKind::Compute};
    const ExternalUse uniformRead{Access::UniformRead, PassKind::Compute};
    const BufferRef meshGrid = graph.importBuffer(n + ".meshGrid", gridBuf, uniformRead, uniformRead, true);
    const BufferRef count = graph.importBuffer(n + ".meshCount", countBuf, computeRW, computeRW);
    const BufferRef chunks = graph.importBuffer(n + ".meshChunks", chunkBuf, computeRW, computeRW);
    const BufferRef start = graph.importBuffer(n + ".meshStart", startBuf, computeRead, computeRead);
    const BufferRef list = graph.importBuffer(n + ".meshList", listBuf, computeRead, computeRead);
    const BufferRef scratch = graph.importBuffer(n + ".meshScratch", scratchBuf, computeRW, computeRW);
    const BufferRef args = refs.args;

    // The scan zeroes the counts and the first step zeroes what the fill
    // counted: only the first frame needs a fill (contents are undefined).
    graph.addPass(prefix + "clear", PassKind::Transfer)
        .use(count, Access::TransferDst)
        .record([&m, count](PassContext& ctx) {
            if (m.recording() == m.outputsFromFrame)
                ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(count), 0, VK_WHOLE_SIZE, 0);
        });
    auto lists = [&](const char* name, uint32_t mode) {
        PassBuilder pass = graph.addPass(prefix + name, PassKind::Compute);
        m.indexSlices(pass, 2, 6, indicesRef, R);
        pass.pipeline(listsPipe)
            .uniform(0, refs.grid)
            .storage(1, args, R)
            .storage(3, count, RW)
            .storage(4, start, R)
            .storage(5, list, W)
            .use(args, Access::IndirectRead)
            .record(m.indirectDispatch(args, offsetof(gpu::IsoArgs, indexDispatchX), mode));
    };
    lists("count", 0);
    m.addExclusiveScan(graph, prefix + "scan.", scanPipe, scanTopPipe, meshGrid, count, chunks, start,
                       m.grid.vertexCapacity);
    lists("fill", 1);

    // Step k reads the vertex buffer when k is even, the scratch when odd.
    uint32_t steps = 0;
    auto step = [&](const std::string& name, uint32_t mode, float factor) {
        const uint32_t flags = (steps % 2 ? 1u : 0u) | (steps == 0 ? 2u : 0u);
        ++steps;
        PassBuilder pass = graph.addPass(prefix + name, PassKind::Compute);
        m.vertexSlices(pass, 5, 7, refs.vertices, RW);
        pass.pipeline(stepPipe)
            .uniform(0, refs.grid)
            .storage(1, args, R)
            .storage(2, start, R)
            .storage(3, list, R)
            .storage(4, count, W)
            .storage(6, scratch, RW)
            .use(args, Access::IndirectRead)
            .record([&m, args, mode, factor, flags](PassContext& ctx) {
                gpu::IsoPush p = m.push();
                p.srcLevel = mode;
                p.numLevels = flags;
                p.user0 = {factor, 0.f, 0.f, 0.f};
                ctx.pushConstants(p);
                ctx.dispatchIndirect(args, offsetof(gpu::IsoArgs, vertexDispatchX));
            });
    };
    const MeshSmoothing& ms = m.info.meshSmoothing;
    for (uint32_t i = 0; i < ms.iterations; ++i) {
        step(std::to_string(i) + ".lambda", gpu::kIsoMeshStepMove, ms.lambda);
        // mu = 0 is the plain Laplacian: its step would move nothing.
        if (ms.mu != 0.f) step(std::to_string(i) + ".mu", gpu::kIsoMeshStepMove, ms.mu);
    }
    if (m.grid.normalMode != gpu::kIsoNormalNone)
        step("normals", gpu::kIsoMeshStepNormals, 0.f);
    else if (steps % 2)
        step("copy", gpu::kIsoMeshStepCopy, 0.f);
}

} // namespace pyramarch::iso
