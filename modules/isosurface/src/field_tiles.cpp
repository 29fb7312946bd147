// Tiled field evaluation (field_tiles.h; metaballs, user GLSL with a
// Lipschitz bound) on the direct brick table: the brick list
// (brick_list.cpp, brick_list.comp) clears and flags the tiles of
// kIsoFieldTile^3 samples its bricks (and their gradients) read;
// "<name>.field.tiles.list" (one thread per tile: append the flagged) and
// "<name>.field.tiles.args" (the field pass's indirect dispatch, a group per
// listed tile), both field_tiles.comp; then the source's field pass over the
// listed tiles only ("<name>.field.user", "<name>.field.metaballs"). No
// sample outside those tiles is read.
#include "field_tiles.h"

#include "iso_impl.h"

namespace pyramarch::iso {
namespace {
const uint32_t kFieldTilesSpv[] =
#include "shaders/isosurface/field_tiles.comp.spv.inc"
    ;
} // namespace

uint64_t FieldTileStage::tiles(const gpu::IsoGrid& g) {
    auto along = [](uint32_t samples) { return uint64_t(samples + gpu::kIsoFieldTile - 1) / gpu::kIsoFieldTile; };
    return along(g.samples.x) * along(g.samples.y) * along(g.samples.z);
}

Status FieldTileStage::createBuffers(const gpu::IsoGrid& g, const MakeBuffer& make) {
    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    const VkBufferUsageFlags cleared = storage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    PYRAMARCH_TRY(make(flags, tiles(g) * 4, cleared, MemoryUsage::DeviceLocal, "field tile flags"));
    PYRAMARCH_TRY(make(list, 16 + tiles(g) * 4, cleared, MemoryUsage::DeviceLocal, "field tile list"));
    return make(args, 16, storage | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, MemoryUsage::DeviceLocal,
                "field tile dispatch");
}

Status FieldTileStage::createPipeline(Impl& m) { return m.makePipeline(pipe, kFieldTilesSpv, "field.tiles", 4); }

void FieldTileStage::importBuffers(Impl& m, RenderGraph& graph, IsoRefs& refs) {
    const ExternalUse computeRW{Access::StorageReadWrite, PassKind::Compute};
    const ExternalUse computeIndirect{Access::IndirectRead, PassKind::Compute};
    const std::string& n = m.info.name;
    refs.fieldTileFlags = graph.importBuffer(n + ".fieldTileFlags", flags, computeRW, computeRW);
    refs.fieldTileList = graph.importBuffer(n + ".fieldTileList", list, computeRW, computeRW);
    refs.fieldTileArgs = graph.importBuffer(n + ".fieldTileArgs", args, computeIndirect, computeIndirect);
}

void FieldTileStage::addPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs) {
    const uint64_t tileGroups = groupsOf(tiles(m.grid), gpu::kIsoClassifyGroupSize);
    const auto tilePass = [&](const char* suffix, uint32_t mode) {
        graph.addPass(m.info.name + suffix, PassKind::Compute)
            .pipeline(pipe)
            .uniform(0, refs.grid)
            .storage(1, refs.fieldTileFlags, RW)
            .storage(2, refs.fieldTileList, RW)
            .storage(3, refs.fieldTileArgs, W)
            .record(m.modeDispatch(mode, mode == 0 ? tileGroups : 1));
    };
    tilePass(".field.tiles.list", 0);
    tilePass(".field.tiles.args", 1);
    if (m.userField.tiled)
        m.userField.addTiledFieldPass(m, graph, refs, refs.fieldTileList, refs.fieldTileArgs);
    else
        m.metaballs.addTiledFieldPass(m, graph, refs, refs.fieldTileList, refs.fieldTileArgs);
}

} // namespace pyramarch::iso
