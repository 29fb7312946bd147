// Classify and pyramid build. Pass "<name>.classify": one thread per 16 cells
// along x, MC case + vertex count into the pyramid's base, and levels 1 and 2 (and, for the
// scan baseline, the occupancy tree's level 1). Passes "<name>.pyramid.<level>":
// the 4-ary HistoPyramid reduction, kIsoBuildLevelsPerPass levels per
// dispatch in shared memory; the same pass builds the occupancy tree
// ("<name>.occupancy.<level>") and the edge pyramid ("<name>.edges.pyramid.<level>").
// With a patch list (grid.patchList: sources with value bounds), passes
// "<name>.classify.boxes" (metaballs, particles: each patch's cell box, first
// frame only), "<name>.classify.clear" (fill levels 0..2 with 0), "<name>.classify.activate"
// (list the patches the surface crosses: bounds max >= iso > min) and
// "<name>.classify.args" (their count -> classify's indirect dispatch) come
// first, and classify runs over the listed patches only.
#include <algorithm>

#include "iso_impl.h"

namespace pyramarch::iso {
namespace {
const uint32_t kClassifySpv[] =
#include "shaders/isosurface/classify.comp.spv.inc"
    ;
const uint32_t kBuildSpv[] =
#include "shaders/isosurface/pyramid_build.comp.spv.inc"
    ;
const uint32_t kActivateSpv[] =
#include "shaders/isosurface/activate.comp.spv.inc"
    ;
const uint32_t kPatchBoxesSpv[] =
#include "shaders/isosurface/patch_boxes.comp.spv.inc"
    ;
// ISO_SUBGROUP_ATOMICS variants: one atomic per subgroup. Their own SPIR-V,
// since they declare capabilities (ballot, arithmetic) a device may lack.
const uint32_t kClassifySubgroupSpv[] =
#include "shaders/isosurface/classify.subgroup.comp.spv.inc"
    ;
const uint32_t kActivateSubgroupSpv[] =
#include "shaders/isosurface/activate.subgroup.comp.spv.inc"
    ;
// ISO_STORAGE_READS variants: the field as a storage buffer, where the
// device's maxTexelBufferElements does not cover the quad view (texelReads).
const uint32_t kClassifyStorageSpv[] =
#include "shaders/isosurface/classify.storage.comp.spv.inc"
    ;
const uint32_t kClassifySubgroupStorageSpv[] =
#include "shaders/isosurface/classify.subgroup_storage.comp.spv.inc"
    ;
} // namespace

Status IsoSurface::Impl::createPyramidPipelines() {
    const std::span<const uint32_t> classifySpv =
        texelReads ? (subgroupAtomics ? std::span<const uint32_t>(kClassifySubgroupSpv) : kClassifySpv)
                   : (subgroupAtomics ? std::span<const uint32_t>(kClassifySubgroupStorageSpv) : kClassifyStorageSpv);
    // The cell order is the scan's only: a field buffer, never fused.
    PYRAMARCH_TRY(makePipeline(classify, classifySpv, "classify", 11));
    if (grid.patchList)
        PYRAMARCH_TRY(makePipeline(activatePipe,
                                   subgroupAtomics ? std::span<const uint32_t>(kActivateSubgroupSpv)
                                                   : std::span<const uint32_t>(kActivateSpv),
                                   "classify.activate", 5));
    if (usePatchBoxes) PYRAMARCH_TRY(makePipeline(patchBoxesPipe, kPatchBoxesSpv, "classify.boxes", 2));
    return createBuildPipeline();
}

Status IsoSurface::Impl::createBuildPipeline() { return makePipeline(build, kBuildSpv, "pyramid", 2); }

void IsoSurface::Impl::addClassifyPass(RenderGraph& graph, const IsoRefs& refs) {
    if (grid.patchList) addActivatePasses(graph, refs);
    // Lipschitz-bounded user fields and metaballs are evaluated now, where the list says.
    if (tiledField()) addFieldTilePasses(graph, refs);
    const uint64_t cellGroups = groupsOf(grid.cells.w, gpu::kIsoClassifyCells * gpu::kIsoClassifyGroupSize);
    PassBuilder pass = graph.addPass(info.name + ".classify", PassKind::Compute);
    pass.pipeline(classify)
        .uniform(0, refs.grid)
        .storage(3, refs.pyramid, RW)
        .storage(4, refs.counters, RW)
        .storage(5, scan ? refs.occupancy : refs.pyramid,
                 W) // occupancy level 1 (scan), else unused: the pyramid stands in
        .storage(6, info.source == FieldSource::Volume ? refs.runBounds : refs.pyramid,
                 R) // per-run value bounds (volume), else unused: the pyramid stands in
        .storage(10, info.source == FieldSource::Volume ? refs.wrapBounds : refs.pyramid,
                 R) // the second interval of runs past their first row (volume), else unused
        .storage(7, grid.patchList ? refs.patchList : refs.pyramid,
                 R) // the listed patches, else unused: the pyramid stands in
        // Indexed: the vertex pyramid's levels 0 and 1 (else the cell grid and pyramid stand in, unwritten).
        .uniform(8, indexed ? refs.vertexGrid : refs.grid)
        .storage(9, indexed ? refs.vertexPyramid : refs.pyramid, RW);
    if (texelReads)
        pass.texel(2, refs.field, VK_FORMAT_R32G32B32A32_SFLOAT, Access::SampledRead);
    else
        pass.storage(2, refs.field, R);
    if (grid.patchList)
        pass.use(refs.classifyArgs, Access::IndirectRead).record(indirectDispatch(refs.classifyArgs, 0));
    else
        pass.record([this, cellGroups](PassContext& ctx) {
            ctx.pushConstants(push());
            dispatchFolded(ctx, cellGroups, maxGroupsX());
        });
    // With a patch list classify also sums level 3 (atomics into the cleared level).
    const uint32_t classifyLevels = std::min(gpu::kIsoClassifyLevels + (grid.patchList ? 1u : 0u), grid.levelCount - 1);
    addPyramidBuild(graph, info.name + ".pyramid.", refs.grid, refs.pyramid, grid, classifyLevels);
    // Scan: up-sweep of the occupancy tree (level 1 came from classify).
    if (scan)
        addPyramidBuild(graph, info.name + ".occupancy.", refs.occGrid, refs.occupancy, occGrid,
                        std::min(1u, grid.levelCount - 1));
}

void IsoSurface::Impl::addPyramidBuild(RenderGraph& graph, const std::string& prefix, BufferRef layout,
                                       BufferRef levelsBuf, const gpu::IsoGrid& g, uint32_t first) {
    const uint32_t topLevel = g.levelCount - 1;
    for (uint32_t src = first; src < topLevel; src += gpu::kIsoBuildLevelsPerPass) {
        const uint32_t levels = std::min(gpu::kIsoBuildLevelsPerPass, topLevel - src);
        const uint64_t groups = groupsOf(g.levels[src].y, gpu::kIsoBuildGroupSize * 4);
        graph.addPass(prefix + std::to_string(src), PassKind::Compute)
            .pipeline(build)
            .uniform(0, layout)
            .storage(1, levelsBuf, RW)
            .record([this, src, levels, groups](PassContext& ctx) {
                gpu::IsoPush pc = push();
                pc.srcLevel = src;
                pc.numLevels = levels;
                ctx.pushConstants(pc);
                dispatchFolded(ctx, groups, maxGroupsX());
            });
    }
}

// The grid is fixed, so the patches' cell boxes (patch_boxes.comp) are
// computed on the first frame only; the metaball and particle bounds passes
// read them every frame. Added by those sources before their bounds pass
// (after the field pass, which stays a frame's first pass).
void IsoSurface::Impl::addPatchBoxesPass(RenderGraph& graph, const IsoRefs& refs) {
    graph.addPass(info.name + ".classify.boxes", PassKind::Compute)
        .pipeline(patchBoxesPipe)
        .uniform(0, refs.grid)
        .storage(1, refs.patchBoxes, W)
        .record([this](PassContext& ctx) {
            if (!patchBoxesDirty) return;
            patchBoxesDirty = false;
            dispatchFolded(ctx, groupsOf(grid.patchCount, gpu::kIsoGroupSize), maxGroupsX());
        });
}

// Empty-space skipping: classify then writes only the listed patches, so
// what it would have written for the others (uniform runs: words of 0 in
// levels 0..2, and in the occupancy tree's level 1) is filled first. The
// fill is one memset of the levels classify writes (Cayley 255^3: 25 MB);
// zeroing only the patches listed last frame would need a second list.
void IsoSurface::Impl::addActivatePasses(RenderGraph& graph, const IsoRefs& refs) {
    // Highest level classify writes (level 3: its atomics).
    const uint32_t written = std::min(gpu::kIsoClassifyLevels + 1, grid.levelCount - 1);
    const VkDeviceSize levelBytes =
        written + 1 < grid.levelCount ? VkDeviceSize(grid.levels[written + 1].x) * 4 : VkDeviceSize(sizes.pyramidBytes);
    const VkDeviceSize occupancyBytes = scan && grid.levelCount > 1 ? VkDeviceSize(grid.levels[1].y) * 4 : 0;
    // Indexed: the vertex pyramid's levels 0..2, which classify writes too (level 2 by atomics).
    const VkDeviceSize vertexBytes = !indexed                    ? 0
                                     : vertexGrid.levelCount > 3 ? VkDeviceSize(vertexGrid.levels[3].x) * 4
                                                                 : VkDeviceSize(sizes.vertexPyramidBytes);
    PassBuilder clear = graph.addPass(info.name + ".classify.clear", PassKind::Transfer);
    clear.use(refs.pyramid, Access::TransferDst).use(refs.patchList, Access::TransferDst);
    if (occupancyBytes) clear.use(refs.occupancy, Access::TransferDst);
    if (vertexBytes) clear.use(refs.vertexPyramid, Access::TransferDst);
    clear.record([this, refs, levelBytes, occupancyBytes, vertexBytes](PassContext& ctx) {
        ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(refs.pyramid), 0, levelBytes, 0);
        if (vertexBytes) ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(refs.vertexPyramid), 0, vertexBytes, 0);
        // The header: the append counter starts at 0.
        ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(refs.patchList), 0, sizeof(gpu::IsoPatchList), 0);
        if (occupancyBytes) ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(refs.occupancy), 0, occupancyBytes, 0);
    });
    const auto activate = [&](const char* suffix, uint32_t mode, uint64_t groups) {
        graph.addPass(info.name + suffix, PassKind::Compute)
            .pipeline(activatePipe)
            .uniform(0, refs.grid)
            .storage(1, refs.patchBounds, R)
            .storage(2, refs.patchList, RW)
            .storage(3, refs.classifyArgs, W)
            .storage(4, refs.patchWrapBounds, R)
            .record(modeDispatch(mode, groups));
    };
    activate(".classify.activate", 0, groupsOf(grid.patchCount, gpu::kIsoGroupSize));
    activate(".classify.args", 1, 1);
}

} // namespace pyramarch::iso
