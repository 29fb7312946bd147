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
const uint32_t kScanSpv[] =
#include "shaders/isosurface/particles_scan.comp.spv.inc"
    ;
const uint32_t kScanTopSpv[] =
#include "shaders/isosurface/particles_scan_top.comp.spv.inc"
    ;
} // namespace

uint64_t IsoSurface::Impl::meshScanChunks() const { return groupsOf(grid.vertexCapacity, gpu::kIsoBinScanChunk); }

Status IsoSurface::Impl::createMeshSmoothBuffers(const MakeBuffer& make) {
    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    const uint64_t vertices = grid.vertexCapacity;
    PYRAMARCH_TRY(make(meshGridBuf, sizeof(gpu::IsoGrid), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, MemoryUsage::Upload,
                       "mesh smoothing grid"));
    PYRAMARCH_TRY(make(meshCount, vertices * 4, storage | VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUsage::DeviceLocal,
                       "mesh smoothing triangle counts"));
    PYRAMARCH_TRY(
        make(meshChunks, meshScanChunks() * 4, storage, MemoryUsage::DeviceLocal, "mesh smoothing chunk sums"));
    PYRAMARCH_TRY(make(meshStart, (vertices + 1) * 4, storage, MemoryUsage::DeviceLocal, "mesh smoothing starts"));
    PYRAMARCH_TRY(make(meshList, uint64_t(grid.indexCapacity) * 8, storage, MemoryUsage::DeviceLocal,
                       "mesh smoothing triangle slots"));
    PYRAMARCH_TRY(
        make(meshScratch, vertices * 16, storage, MemoryUsage::DeviceLocal, "mesh smoothing scratch positions"));
    // The bin scan reads its element count from binDims.w: here the vertices.
    gpu::IsoGrid g = grid;
    g.binDims.w = grid.vertexCapacity;
    std::memcpy(meshGridBuf.mapped(), &g, sizeof(g));
    meshGridBuf.flush();
    return {};
}

Status IsoSurface::Impl::createMeshSmoothPipelines() {
    PYRAMARCH_TRY(makePipeline(meshListsPipe, kMeshListsSpv, "mesh.smooth.lists", 6 + kSliceBindings));
    PYRAMARCH_TRY(makePipeline(meshStepPipe, kMeshStepSpv, "mesh.smooth.step", 7 + kSliceBindings));
    PYRAMARCH_TRY(makePipeline(meshScanPipe, kScanSpv, "mesh.smooth.scan", 4));
    return makePipeline(meshScanTopPipe, kScanTopSpv, "mesh.smooth.scan.top", 2);
}

void IsoSurface::Impl::addMeshSmoothPasses(RenderGraph& graph, const IsoRefs& refs, BufferRef indicesRef) {
    const std::string& n = info.name;
    const std::string prefix = n + ".mesh.smooth.";
    const ExternalUse computeRead{Access::StorageRead, PassKind::Compute};
    const ExternalUse computeRW{Access::StorageReadWrite, PassKind::Compute};
    const ExternalUse uniformRead{Access::UniformRead, PassKind::Compute};
    const BufferRef meshGrid = graph.importBuffer(n + ".meshGrid", meshGridBuf, uniformRead, uniformRead, true);
    const BufferRef count = graph.importBuffer(n + ".meshCount", meshCount, computeRW, computeRW);
    const BufferRef chunks = graph.importBuffer(n + ".meshChunks", meshChunks, computeRW, computeRW);
    const BufferRef start = graph.importBuffer(n + ".meshStart", meshStart, computeRead, computeRead);
    const BufferRef list = graph.importBuffer(n + ".meshList", meshList, computeRead, computeRead);
    const BufferRef scratch = graph.importBuffer(n + ".meshScratch", meshScratch, computeRW, computeRW);
    const BufferRef args = refs.args;

    // The scan zeroes the counts and the first step zeroes what the fill
    // counted: only the first frame needs a fill (contents are undefined).
    graph.addPass(prefix + "clear", PassKind::Transfer)
        .use(count, Access::TransferDst)
        .record([this, count](PassContext& ctx) {
            if (self->recording_ == outputsFromFrame)
                ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(count), 0, VK_WHOLE_SIZE, 0);
        });
    auto perIndex = [this, args](uint32_t mode) {
        return [this, args, mode](PassContext& ctx) {
            gpu::IsoPush p = push();
            p.srcLevel = mode;
            ctx.pushConstants(p);
            ctx.dispatchIndirect(args, offsetof(gpu::IsoArgs, indexDispatchX));
        };
    };
    auto lists = [&](const char* name, uint32_t mode) {
        PassBuilder pass = graph.addPass(prefix + name, PassKind::Compute);
        indexSlices(pass, 2, 6, indicesRef, R);
        pass.pipeline(meshListsPipe)
            .uniform(0, refs.grid)
            .storage(1, args, R)
            .storage(3, count, RW)
            .storage(4, start, R)
            .storage(5, list, W)
            .use(args, Access::IndirectRead)
            .record(perIndex(mode));
    };
    lists("count", 0);
    const uint64_t chunkCount = meshScanChunks();
    auto perChunk = [this, chunkCount](uint32_t mode) {
        return [this, mode, chunkCount](PassContext& ctx) {
            gpu::IsoPush p = push();
            p.srcLevel = mode;
            ctx.pushConstants(p);
            dispatchFolded(ctx, groupsOf(chunkCount, gpu::kIsoGroupSize), maxGroupsX());
        };
    };
    graph.addPass(prefix + "scan.sums", PassKind::Compute)
        .pipeline(meshScanPipe)
        .uniform(0, meshGrid)
        .storage(1, count, R)
        .storage(2, chunks, W)
        .storage(3, start, W)
        .record(perChunk(0));
    graph.addPass(prefix + "scan.top", PassKind::Compute)
        .pipeline(meshScanTopPipe)
        .uniform(0, meshGrid)
        .storage(1, chunks, RW)
        .record([](PassContext& ctx) { ctx.dispatch(1, 1, 1); });
    graph.addPass(prefix + "scan.starts", PassKind::Compute)
        .pipeline(meshScanPipe)
        .uniform(0, meshGrid)
        .storage(1, count, RW)
        .storage(2, chunks, R)
        .storage(3, start, W)
        .record(perChunk(1));
    lists("fill", 1);

    // Step k reads the vertex buffer when k is even, the scratch when odd.
    uint32_t steps = 0;
    auto step = [&](const std::string& name, uint32_t mode, float factor) {
        const uint32_t flags = (steps % 2 ? 1u : 0u) | (steps == 0 ? 2u : 0u);
        ++steps;
        PassBuilder pass = graph.addPass(prefix + name, PassKind::Compute);
        vertexSlices(pass, 5, 7, refs.vertices, RW);
        pass.pipeline(meshStepPipe)
            .uniform(0, refs.grid)
            .storage(1, args, R)
            .storage(2, start, R)
            .storage(3, list, R)
            .storage(4, count, W)
            .storage(6, scratch, RW)
            .use(args, Access::IndirectRead)
            .record([this, args, mode, factor, flags](PassContext& ctx) {
                gpu::IsoPush p = push();
                p.srcLevel = mode;
                p.numLevels = flags;
                p.user0 = {factor, 0.f, 0.f, 0.f};
                ctx.pushConstants(p);
                ctx.dispatchIndirect(args, offsetof(gpu::IsoArgs, vertexDispatchX));
            });
    };
    const MeshSmoothing& ms = info.meshSmoothing;
    for (uint32_t i = 0; i < ms.iterations; ++i) {
        step(std::to_string(i) + ".lambda", gpu::kIsoMeshStepMove, ms.lambda);
        // mu = 0 is the plain Laplacian: its step would move nothing.
        if (ms.mu != 0.f) step(std::to_string(i) + ".mu", gpu::kIsoMeshStepMove, ms.mu);
    }
    if (grid.normalMode != gpu::kIsoNormalNone)
        step("normals", gpu::kIsoMeshStepNormals, 0.f);
    else if (steps % 2)
        step("copy", gpu::kIsoMeshStepCopy, 0.f);
}

} // namespace pyramarch::iso
