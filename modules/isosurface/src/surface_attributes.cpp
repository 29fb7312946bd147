// Surface attributes (IsoSurfaceCreateInfo::surfaceAttributes): particle
// quantities interpolated onto the output vertices with the SPH field's own
// weights (surface_attributes.comp). Passes:
//   dense grid (the particle gather's bins): "<name>.attributes.sort" after
//   "<name>.particles.sort" (and ".attributes.rebin.sort" after the
//   re-binning of smoothed particles) moves the host's values to the binned
//   order (surface_attributes_sort.comp);
//   then, after extraction and mesh smoothing, every frame:
//   "<name>.attributes.clear" (sparse, first frame: the brick table's fill),
//   "<name>.attributes.args" (the dispatches), on a sparse domain
//   "<name>.attributes.table" (listed brick -> its list index), then
//   "<name>.attributes" (one thread per written vertex) and, sparse,
//   "<name>.attributes.table.clear".
// The host's values go through a ring like the particles (setParticleAttribute),
// copied into the frame's slot by the first of these passes that records.
#include <algorithm>
#include <cstring>

#include "iso_impl.h"
#include "pyramarch/engine/transfer.h"

namespace pyramarch::iso {
namespace {
const uint32_t kSortSpv[] =
#include "shaders/isosurface/surface_attributes_sort.comp.spv.inc"
    ;
const uint32_t kDenseSpv[] =
#include "shaders/isosurface/surface_attributes.comp.spv.inc"
    ;
const uint32_t kSparseSpv[] =
#include "shaders/isosurface/surface_attributes.sparse.comp.spv.inc"
    ;
const uint32_t kArgsSpv[] =
#include "shaders/isosurface/surface_attributes.args.comp.spv.inc"
    ;
constexpr uint32_t kTableMode = 1, kInterpolateMode = 2, kTableClearMode = 3;
// The attributes' dispatch buffer: the vertices' VkDispatchIndirectCommand, then the listed bricks'.
constexpr VkDeviceSize kVertexDispatch = 0, kBrickDispatch = 16;
} // namespace

Status IsoSurface::Impl::checkSurfaceAttributes() const {
    const std::vector<SurfaceAttribute>& attrs = info.surfaceAttributes;
    if (attrs.empty()) return {};
    const std::string who = "isosurface '" + info.name + "': surfaceAttributes: ";
    auto bad = [&](const std::string& what) { return Status::error(ErrorCode::InvalidArgument, who + what); };
    if (info.source != FieldSource::Particles) return bad("need FieldSource::Particles");
    if (info.particleKernel != ParticleKernel::SphCubicSpline)
        return bad("need ParticleKernel::SphCubicSpline (the weights are its density pass's particle volumes)");
    // On bricks the values are summed at the particles' own positions from
    // each brick's list; the smoothed positions live only in the
    // neighbourhood pass's records there.
    if (sparse && info.particleSmoothing > 0.f)
        return bad("with particleSmoothing on a sparse (bricked) domain: not supported yet (dense grids take both)");
    uint64_t total = 0;
    for (size_t i = 0; i < attrs.size(); ++i) {
        const SurfaceAttribute& a = attrs[i];
        if (a.name.empty()) return bad("attribute " + std::to_string(i) + " has no name");
        if (a.components < 1 || a.components > kMaxSurfaceAttributeComponents)
            return bad("'" + a.name + "' has " + std::to_string(a.components) + " components (need 1.." +
                       std::to_string(kMaxSurfaceAttributeComponents) + ")");
        total += a.components;
    }
    if (total > kMaxSurfaceAttributeComponents)
        return bad(std::to_string(total) + " components in all, at most " +
                   std::to_string(kMaxSurfaceAttributeComponents));
    // Every attribute buffer is reached through one storage binding.
    const uint64_t range = device->limits().maxStorageBufferRange;
    const uint64_t ringBytes = uint64_t(maxItems) * total * 4 * ring;
    const uint64_t outBytes = uint64_t(grid.vertexCapacity) * total * 4;
    if (ringBytes > range || outBytes > range)
        return Status::error(ErrorCode::DeviceLimit,
                             who + std::to_string(total) + " floats per particle and vertex need " +
                                 fmtBytes(std::max(ringBytes, outBytes)) + " in one storage binding (" +
                                 (ringBytes > range ? "maxParticles x " + std::to_string(ring) + " frames in flight"
                                                    : std::string("vertexCapacity")) +
                                 "), past maxStorageBufferRange " + fmtBytes(range) + " of " + device->name());
    return {};
}

Status IsoSurface::Impl::createAttributeBuffers(const MakeBuffer& make) {
    PYRAMARCH_TRY(checkSurfaceAttributes());
    if (info.surfaceAttributes.empty()) return {};
    attributeOffsets.clear();
    for (const SurfaceAttribute& a : info.surfaceAttributes) {
        attributeOffsets.push_back(attributeComponents);
        attributeComponents += a.components;
    }
    const uint64_t c = attributeComponents;
    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    PYRAMARCH_TRY(
        make(attributeRing, uint64_t(maxItems) * c * 4 * ring, storage, MemoryUsage::Upload, "particle attributes"));
    std::memset(attributeRing.mapped(), 0, attributeRing.size());
    attributeRing.flush();
    hostAttributes.assign(size_t(maxItems) * c, 0.f);
    attributeSlotVersion.assign(ring, 0);
    if (!sparse) {
        PYRAMARCH_TRY(make(attributeSorted, uint64_t(maxItems) * c * 4, storage, MemoryUsage::DeviceLocal,
                           "binned particle attributes"));
        if (smooth)
            PYRAMARCH_TRY(make(attributeRebinned, uint64_t(maxItems) * c * 4, storage, MemoryUsage::DeviceLocal,
                               "re-binned particle attributes"));
    } else {
        PYRAMARCH_TRY(make(attributeTable, uint64_t(grid.sparseLimits.z) * 4,
                           storage | VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUsage::DeviceLocal,
                           "surface attribute brick table"));
    }
    PYRAMARCH_TRY(make(attributeOut, uint64_t(grid.vertexCapacity) * c * 4,
                       storage | VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                       MemoryUsage::DeviceLocal, "surface attributes"));
    return make(attributeArgs, 32, storage | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, MemoryUsage::DeviceLocal,
                "surface attribute dispatch");
}

Status IsoSurface::Impl::createAttributePipelines() {
    if (!attributeComponents) return {};
    PYRAMARCH_TRY(makePipeline(attributeArgsPipe, kArgsSpv, "attributes.args", 5));
    if (sparse) return makePipeline(attributePipe, kSparseSpv, "attributes.sparse", 12 + kSliceBindings);
    PYRAMARCH_TRY(makePipeline(attributeSortPipe, kSortSpv, "attributes.sort", 6));
    return makePipeline(attributePipe, kDenseSpv, "attributes", 8 + kSliceBindings);
}

void IsoSurface::Impl::uploadAttributes() {
    const uint32_t slot = uint32_t(self->recording_ % ring);
    if (attributeSlotVersion[slot] == attributesVersion) return;
    const VkDeviceSize stride = VkDeviceSize(maxItems) * attributeComponents * 4;
    std::memcpy(static_cast<uint8_t*>(attributeRing.mapped()) + stride * slot, hostAttributes.data(), stride);
    attributeRing.flush();
    attributeSlotVersion[slot] = attributesVersion;
}

void IsoSurface::Impl::addAttributeSortPass(RenderGraph& graph, const IsoRefs& refs, BufferRef input,
                                            uint64_t inputRange, uint32_t srcLevel, BufferRef slots, BufferRef starts) {
    if (!attributeComponents) return;
    const std::string& n = info.name;
    const ExternalUse computeRead{Access::StorageRead, PassKind::Compute};
    const bool rebin = srcLevel == gpu::kIsoRebinSmoothed;
    if (!attributeRingRef.valid())
        attributeRingRef = graph.importBuffer(n + ".attributeRing", attributeRing,
                                              {Access::HostWrite, PassKind::Compute}, computeRead, true);
    const BufferRef from = rebin ? attributeBinnedRef : attributeRingRef;
    const BufferRef to =
        rebin ? graph.importBuffer(n + ".attributesRebinned", attributeRebinned, computeRead, computeRead)
              : graph.importBuffer(n + ".attributesBinned", attributeSorted, computeRead, computeRead);
    graph.addPass(n + (rebin ? ".attributes.rebin.sort" : ".attributes.sort"), PassKind::Compute)
        .pipeline(attributeSortPipe)
        .uniform(0, refs.grid)
        .storage(1, input, R, 0, inputRange)
        .storage(2, slots, R)
        .storage(3, starts, R)
        .storage(4, from, R)
        .storage(5, to, W)
        .record([this, srcLevel, rebin](PassContext& ctx) {
            if (!rebin) uploadAttributes();
            gpu::IsoPush pc = push();
            pc.srcLevel = srcLevel;
            pc.numLevels = attributeComponents;
            ctx.pushConstants(pc);
            dispatchFolded(ctx, groupsOf(itemCount, gpu::kIsoGroupSize), maxGroupsX());
        });
    attributeBinnedRef = to;
    attributeStartsRef = starts;
}

BufferRef IsoSurface::Impl::addAttributePasses(RenderGraph& graph, const IsoRefs& refs) {
    if (!attributeComponents) return {};
    const std::string& n = info.name;
    const ExternalUse computeRead{Access::StorageRead, PassKind::Compute};
    const ExternalUse vertexRead{Access::VertexRead, PassKind::Graphics};
    const ExternalUse computeIndirect{Access::IndirectRead, PassKind::Compute};
    const BufferRef out = graph.importBuffer(n + ".attributes", attributeOut, vertexRead, vertexRead);
    const BufferRef dispatch =
        graph.importBuffer(n + ".attributeDispatch", attributeArgs, computeIndirect, computeIndirect);
    BufferRef table;
    if (sparse) {
        if (!attributeRingRef.valid())
            attributeRingRef = graph.importBuffer(n + ".attributeRing", attributeRing,
                                                  {Access::HostWrite, PassKind::Compute}, computeRead, true);
        table = graph.importBuffer(n + ".attributeTable", attributeTable, computeRead, computeRead);
        graph.addPass(n + ".attributes.clear", PassKind::Transfer)
            .use(table, Access::TransferDst)
            .record([this, table](PassContext& ctx) {
                if (self->recording_ == firstFrame)
                    ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(table), 0, VK_WHOLE_SIZE, 0);
            });
    }
    // The dispatches (the vertices written, the listed bricks).
    graph.addPass(n + ".attributes.args", PassKind::Compute)
        .pipeline(attributeArgsPipe)
        .uniform(0, refs.grid)
        .storage(1, refs.args, R)
        .storage(2, dispatch, W)
        .storage(4, refs.stats, R)
        .record([this](PassContext& ctx) {
            if (sparse) uploadAttributes();
            ctx.pushConstants(push());
            ctx.dispatch(1, 1, 1);
        });
    const auto pass = [&](const std::string& name, uint32_t mode) {
        PassBuilder p = graph.addPass(name, PassKind::Compute);
        p.pipeline(attributePipe).uniform(0, refs.grid).storage(1, refs.args, R).storage(3, out, W);
        if (sparse) {
            p.storage(4, refs.stats, R)
                .storage(5, refs.brickList, R)
                .storage(6, refs.brickItems, R)
                .storage(7, refs.items, R, 0, refs.itemRange)
                .storage(8, volumesImport, R)
                .storage(9, attributeRingRef, R)
                .storage(10, table, RW); // one read-write binding in all three modes
            vertexSlices(p, 11, 12, refs.vertices, R);
        } else {
            p.storage(4, attributeStartsRef, R).storage(5, volumesImport, R).storage(6, attributeBinnedRef, R);
            vertexSlices(p, 7, 8, refs.vertices, R);
        }
        const VkDeviceSize offset = mode == kInterpolateMode ? kVertexDispatch : kBrickDispatch;
        p.use(dispatch, Access::IndirectRead).record([this, mode, dispatch, offset](PassContext& ctx) {
            gpu::IsoPush pc = push();
            pc.srcLevel = mode;
            pc.numLevels = attributeComponents;
            ctx.pushConstants(pc);
            ctx.dispatchIndirect(dispatch, offset);
        });
    };
    if (sparse) pass(n + ".attributes.table", kTableMode);
    pass(n + ".attributes", kInterpolateMode);
    if (sparse) pass(n + ".attributes.table.clear", kTableClearMode);
    return out;
}

Status IsoSurface::setParticleAttribute(uint32_t attribute, std::span<const float> values) {
    Impl& m = *impl_;
    const std::string who = "isosurface '" + m.info.name + "': setParticleAttribute: ";
    if (attribute >= m.info.surfaceAttributes.size())
        return Status::error(ErrorCode::InvalidArgument,
                             who + "attribute " + std::to_string(attribute) + ", the surface has " +
                                 std::to_string(m.info.surfaceAttributes.size()) + " (surfaceAttributes)");
    const SurfaceAttribute& a = m.info.surfaceAttributes[attribute];
    if (values.size() % a.components != 0)
        return Status::error(ErrorCode::InvalidArgument, who + "'" + a.name + "': " + std::to_string(values.size()) +
                                                             " values, not a multiple of its " +
                                                             std::to_string(a.components) + " components");
    const size_t count = values.size() / a.components;
    if (count > m.maxItems)
        return Status::error(ErrorCode::CapacityExceeded, who + "'" + a.name + "': values of " + std::to_string(count) +
                                                              " particles, maxParticles is " +
                                                              std::to_string(m.maxItems));
    const uint32_t stride = m.attributeComponents, offset = m.attributeOffsets[attribute];
    for (size_t i = 0; i < m.maxItems; ++i)
        for (uint32_t c = 0; c < a.components; ++c)
            m.hostAttributes[i * stride + offset + c] = i < count ? values[i * a.components + c] : 0.f;
    ++m.attributesVersion;
    return {};
}

const Buffer& IsoSurface::attributeBuffer() const {
    PYRAMARCH_ASSERT(impl_->attributeComponents, "attributeBuffer on a surface without surfaceAttributes");
    return impl_->attributeOut;
}
uint32_t IsoSurface::attributeComponents() const { return impl_->attributeComponents; }
uint32_t IsoSurface::attributeOffset(uint32_t attribute) const {
    PYRAMARCH_ASSERT(attribute < impl_->attributeOffsets.size(), "attributeOffset: no such surface attribute");
    return impl_->attributeOffsets[attribute];
}

Result<std::vector<float>> IsoSurface::readAttributes() {
    Impl& m = *impl_;
    if (!m.attributeComponents) return std::vector<float>{};
    auto args = readBufferAs<gpu::IsoArgs>(*m.device, m.args, 1);
    if (!args) return args.status().withContext("isosurface '" + m.info.name + "': reading draw args: ");
    const uint32_t count = std::min(args.value()[0].verticesWritten, m.grid.vertexCapacity);
    if (!count) return std::vector<float>{};
    auto values = readBufferAs<float>(*m.device, m.attributeOut, size_t(count) * m.attributeComponents);
    if (!values) return values.status().withContext("isosurface '" + m.info.name + "': reading attributes: ");
    return values;
}

} // namespace pyramarch::iso
