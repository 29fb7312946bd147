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

#include "surface_attributes.h"

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

Status SurfaceAttributeStage::check(const Impl& m, const gpu::IsoGrid& g) const {
    const IsoSurfaceCreateInfo& info = m.info;
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
    if (m.sparse && info.particleSmoothing > 0.f)
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
    const uint64_t range = m.device->limits().maxStorageBufferRange;
    const uint64_t ringBytes = uint64_t(m.maxItems) * total * 4 * m.ring;
    const uint64_t outBytes = uint64_t(g.vertexCapacity) * total * 4;
    if (ringBytes > range || outBytes > range)
        return Status::error(ErrorCode::DeviceLimit,
                             who + std::to_string(total) + " floats per particle and vertex need " +
                                 fmtBytes(std::max(ringBytes, outBytes)) + " in one storage binding (" +
                                 (ringBytes > range ? "maxParticles x " + std::to_string(m.ring) + " frames in flight"
                                                    : std::string("vertexCapacity")) +
                                 "), past maxStorageBufferRange " + fmtBytes(range) + " of " + m.device->name());
    return {};
}

void SurfaceAttributeStage::limitGrowth(const IsoSurfaceCreateInfo& info, const DeviceLimits& lim, uint64_t& vertices) {
    uint64_t total = 0; // components is set by createBuffers
    for (const SurfaceAttribute& a : info.surfaceAttributes) total += a.components;
    if (total) vertices = std::min(vertices, uint64_t(lim.maxStorageBufferRange) / (total * 4));
}

Status SurfaceAttributeStage::createBuffers(Impl& m, const MakeBuffer& make) {
    PYRAMARCH_TRY(check(m, m.grid));
    if (m.info.surfaceAttributes.empty()) return {};
    offsets.clear();
    for (const SurfaceAttribute& a : m.info.surfaceAttributes) {
        offsets.push_back(components);
        components += a.components;
    }
    const uint64_t c = components, items = m.maxItems;
    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    PYRAMARCH_TRY(make(ring, items * c * 4 * m.ring, storage, MemoryUsage::Upload, "particle attributes"));
    std::memset(ring.mapped(), 0, ring.size());
    ring.flush();
    hostValues.assign(size_t(items) * c, 0.f);
    slotVersion.assign(m.ring, 0);
    if (!m.sparse) {
        PYRAMARCH_TRY(make(sorted, items * c * 4, storage, MemoryUsage::DeviceLocal, "binned particle attributes"));
        if (m.particles.smooth)
            PYRAMARCH_TRY(
                make(rebinned, items * c * 4, storage, MemoryUsage::DeviceLocal, "re-binned particle attributes"));
    } else {
        PYRAMARCH_TRY(make(table, uint64_t(m.grid.sparseLimits.z) * 4, storage | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                           MemoryUsage::DeviceLocal, "surface attribute brick table"));
    }
    PYRAMARCH_TRY(createOutputBuffer(m.grid, make));
    return make(args, 32, storage | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, MemoryUsage::DeviceLocal,
                "surface attribute dispatch");
}

Status SurfaceAttributeStage::createOutputBuffer(const gpu::IsoGrid& g, const MakeBuffer& make) {
    if (!components) return {};
    return make(out, outputBytes(g),
                VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_VERTEX_BUFFER_BIT |
                    VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                MemoryUsage::DeviceLocal, "surface attributes");
}

Status SurfaceAttributeStage::createPipelines(Impl& m) {
    if (!components) return {};
    PYRAMARCH_TRY(m.makePipeline(argsPipe, kArgsSpv, "attributes.args", 5));
    if (m.sparse) return m.makePipeline(pipe, kSparseSpv, "attributes.sparse", 12 + kSliceBindings);
    PYRAMARCH_TRY(m.makePipeline(sortPipe, kSortSpv, "attributes.sort", 6));
    return m.makePipeline(pipe, kDenseSpv, "attributes", 8 + kSliceBindings);
}

void SurfaceAttributeStage::upload(const Impl& m) {
    const uint32_t slot = uint32_t(m.recording() % m.ring);
    if (slotVersion[slot] == version) return;
    const VkDeviceSize stride = VkDeviceSize(m.maxItems) * components * 4;
    std::memcpy(static_cast<uint8_t*>(ring.mapped()) + stride * slot, hostValues.data(), stride);
    ring.flush();
    slotVersion[slot] = version;
}

void SurfaceAttributeStage::addSortPass(Impl& m, RenderGraph& graph, const IsoRefs& refs, BufferRef input,
                                        uint64_t inputRange, uint32_t srcLevel, BufferRef slots, BufferRef starts) {
    if (!components) return;
    const std::string& n = m.info.name;
    const ExternalUse computeRead{Access::StorageRead, PassKind::Compute};
    const bool rebin = srcLevel == gpu::kIsoRebinSmoothed;
    if (!ringRef.valid())
        ringRef =
            graph.importBuffer(n + ".attributeRing", ring, {Access::HostWrite, PassKind::Compute}, computeRead, true);
    const BufferRef from = rebin ? binnedRef : ringRef;
    const BufferRef to = rebin ? graph.importBuffer(n + ".attributesRebinned", rebinned, computeRead, computeRead)
                               : graph.importBuffer(n + ".attributesBinned", sorted, computeRead, computeRead);
    graph.addPass(n + (rebin ? ".attributes.rebin.sort" : ".attributes.sort"), PassKind::Compute)
        .pipeline(sortPipe)
        .uniform(0, refs.grid)
        .storage(1, input, R, 0, inputRange)
        .storage(2, slots, R)
        .storage(3, starts, R)
        .storage(4, from, R)
        .storage(5, to, W)
        .record([this, &m, srcLevel, rebin](PassContext& ctx) {
            if (!rebin) upload(m);
            gpu::IsoPush pc = m.push();
            pc.srcLevel = srcLevel;
            pc.numLevels = components;
            ctx.pushConstants(pc);
            dispatchFolded(ctx, groupsOf(m.itemCount, gpu::kIsoGroupSize), m.maxGroupsX());
        });
    binnedRef = to;
    startsRef = starts;
}

BufferRef SurfaceAttributeStage::addPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs) {
    if (!components) return {};
    const std::string& n = m.info.name;
    const bool sparse = m.sparse;
    const ExternalUse computeRead{Access::StorageRead, PassKind::Compute};
    const ExternalUse vertexRead{Access::VertexRead, PassKind::Graphics};
    const ExternalUse computeIndirect{Access::IndirectRead, PassKind::Compute};
    const BufferRef outRef = graph.importBuffer(n + ".attributes", out, vertexRead, vertexRead);
    const BufferRef dispatch = graph.importBuffer(n + ".attributeDispatch", args, computeIndirect, computeIndirect);
    BufferRef tableRef;
    if (sparse) {
        if (!ringRef.valid())
            ringRef = graph.importBuffer(n + ".attributeRing", ring, {Access::HostWrite, PassKind::Compute},
                                         computeRead, true);
        tableRef = graph.importBuffer(n + ".attributeTable", table, computeRead, computeRead);
        graph.addPass(n + ".attributes.clear", PassKind::Transfer)
            .use(tableRef, Access::TransferDst)
            .record([&m, tableRef](PassContext& ctx) {
                if (m.recording() == m.firstFrame)
                    ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(tableRef), 0, VK_WHOLE_SIZE, 0);
            });
    }
    // The dispatches (the vertices written, the listed bricks).
    graph.addPass(n + ".attributes.args", PassKind::Compute)
        .pipeline(argsPipe)
        .uniform(0, refs.grid)
        .storage(1, refs.args, R)
        .storage(2, dispatch, W)
        .storage(4, refs.stats, R)
        .record([this, &m](PassContext& ctx) {
            if (m.sparse) upload(m);
            ctx.pushConstants(m.push());
            ctx.dispatch(1, 1, 1);
        });
    const auto pass = [&](const std::string& name, uint32_t mode) {
        PassBuilder p = graph.addPass(name, PassKind::Compute);
        p.pipeline(pipe).uniform(0, refs.grid).storage(1, refs.args, R).storage(3, outRef, W);
        if (sparse) {
            p.storage(4, refs.stats, R)
                .storage(5, refs.brickList, R)
                .storage(6, refs.brickItems, R)
                .storage(7, refs.items, R, 0, refs.itemRange)
                .storage(8, m.particles.volumesRef, R)
                .storage(9, ringRef, R)
                .storage(10, tableRef, RW); // one read-write binding in all three modes
            m.vertexSlices(p, 11, 12, refs.vertices, R);
        } else {
            p.storage(4, startsRef, R).storage(5, m.particles.volumesRef, R).storage(6, binnedRef, R);
            m.vertexSlices(p, 7, 8, refs.vertices, R);
        }
        const VkDeviceSize offset = mode == kInterpolateMode ? kVertexDispatch : kBrickDispatch;
        p.use(dispatch, Access::IndirectRead).record([this, &m, mode, dispatch, offset](PassContext& ctx) {
            gpu::IsoPush pc = m.push();
            pc.srcLevel = mode;
            pc.numLevels = components;
            ctx.pushConstants(pc);
            ctx.dispatchIndirect(dispatch, offset);
        });
    };
    if (sparse) pass(n + ".attributes.table", kTableMode);
    pass(n + ".attributes", kInterpolateMode);
    if (sparse) pass(n + ".attributes.table.clear", kTableClearMode);
    return outRef;
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
    SurfaceAttributeStage& at = m.attributes;
    const uint32_t stride = at.components, offset = at.offsets[attribute];
    for (size_t i = 0; i < m.maxItems; ++i)
        for (uint32_t c = 0; c < a.components; ++c)
            at.hostValues[i * stride + offset + c] = i < count ? values[i * a.components + c] : 0.f;
    ++at.version;
    return {};
}

const Buffer& IsoSurface::attributeBuffer() const {
    PYRAMARCH_ASSERT(impl_->attributes.components, "attributeBuffer on a surface without surfaceAttributes");
    return impl_->attributes.out;
}
uint32_t IsoSurface::attributeComponents() const { return impl_->attributes.components; }
uint32_t IsoSurface::attributeOffset(uint32_t attribute) const {
    PYRAMARCH_ASSERT(attribute < impl_->attributes.offsets.size(), "attributeOffset: no such surface attribute");
    return impl_->attributes.offsets[attribute];
}

Result<std::vector<float>> IsoSurface::readAttributes() {
    Impl& m = *impl_;
    if (!m.attributes.components) return std::vector<float>{};
    auto args = readBufferAs<gpu::IsoArgs>(*m.device, m.args, 1);
    if (!args) return args.status().withContext("isosurface '" + m.info.name + "': reading draw args: ");
    const uint32_t count = std::min(args.value()[0].verticesWritten, m.grid.vertexCapacity);
    if (!count) return std::vector<float>{};
    auto values = readBufferAs<float>(*m.device, m.attributes.out, size_t(count) * m.attributes.components);
    if (!values) return values.status().withContext("isosurface '" + m.info.name + "': reading attributes: ");
    return values;
}

} // namespace pyramarch::iso
