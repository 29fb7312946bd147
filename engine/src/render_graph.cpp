// The recording half of the render graph: declarations, graph-owned
// resources, execute() and the timestamp ring.
#include <algorithm>

#include "pyramarch/engine/device.h"
#include "pyramarch/engine/pipeline.h"
#include "pyramarch/engine/vulkan_functions.h"
#include "render_graph_impl.h"

namespace pyramarch {

namespace {

VkBufferUsageFlags bufferUsageFor(Access a) {
    switch (a) {
    case Access::StorageRead:
    case Access::StorageWrite:
    case Access::StorageReadWrite: return VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    case Access::UniformRead: return VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT;
    case Access::IndirectRead: return VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;
    case Access::VertexRead: return VK_BUFFER_USAGE_VERTEX_BUFFER_BIT;
    case Access::IndexRead: return VK_BUFFER_USAGE_INDEX_BUFFER_BIT;
    case Access::TransferSrc: return VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    case Access::TransferDst: return VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    default: return 0;
    }
}

VkImageUsageFlags imageUsageFor(Access a) {
    switch (a) {
    case Access::StorageRead:
    case Access::StorageWrite:
    case Access::StorageReadWrite: return VK_IMAGE_USAGE_STORAGE_BIT;
    case Access::SampledRead: return VK_IMAGE_USAGE_SAMPLED_BIT;
    case Access::ColorAttachment: return VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
    case Access::DepthAttachment:
    case Access::DepthRead: return VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT;
    case Access::TransferSrc: return VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    case Access::TransferDst: return VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    default: return 0;
    }
}

// Usage a texel binding needs on top of its access's (SampledRead on a buffer
// is a uniform texel buffer read).
VkBufferUsageFlags bufferUsageFor(const PassBinding& b) {
    if (b.type == VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER) return VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT;
    if (b.type == VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER) return VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT;
    return 0;
}

VkAttachmentLoadOp loadOp(LoadOp op) {
    switch (op) {
    case LoadOp::Load: return VK_ATTACHMENT_LOAD_OP_LOAD;
    case LoadOp::Clear: return VK_ATTACHMENT_LOAD_OP_CLEAR;
    case LoadOp::DontCare: return VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    }
    return VK_ATTACHMENT_LOAD_OP_DONT_CARE;
}

} // namespace

// ---- PassContext ----

VkBuffer PassContext::buffer(BufferRef ref) const { return graph->buffer(ref); }
VkDeviceSize PassContext::bufferSize(BufferRef ref) const { return graph->bufferSize(ref); }
VkImage PassContext::image(ImageRef ref) const { return graph->image(ref); }
VkImageView PassContext::imageView(ImageRef ref) const { return graph->imageView(ref); }
void PassContext::pushConstants(const void* data, uint32_t bytes, uint32_t offset) const {
    PYRAMARCH_ASSERT(pipelineLayout != VK_NULL_HANDLE,
                     "PassContext::pushConstants in a pass that declared no pipeline");
    vk->vkCmdPushConstants(cmd, pipelineLayout, pushConstantStages, offset, bytes, data);
}
void PassContext::dispatch(uint32_t x, uint32_t y, uint32_t z) const { vk->vkCmdDispatch(cmd, x, y, z); }
void PassContext::dispatchIndirect(BufferRef args, VkDeviceSize offset) const {
    vk->vkCmdDispatchIndirect(cmd, buffer(args), offset);
}

// ---- Declarations ----

RenderGraph::RenderGraph(Device* device, RenderGraphOptions options) : impl_(std::make_unique<Impl>()) {
    impl_->device = device;
    impl_->options = options;
    if (impl_->options.timingFrames < 2) impl_->options.timingFrames = 2;
}

RenderGraph::~RenderGraph() {
    for (const TexelView& v : impl_->texelViews)
        impl_->device->vk().vkDestroyBufferView(impl_->device->device(), v.view, nullptr);
    if (impl_->queryPool) impl_->device->vk().vkDestroyQueryPool(impl_->device->device(), impl_->queryPool, nullptr);
    if (impl_->descriptorPool)
        impl_->device->vk().vkDestroyDescriptorPool(impl_->device->device(), impl_->descriptorPool, nullptr);
}

static bool nameTaken(const RenderGraph::Impl& g, const std::string& name) {
    auto same = [&](const GraphResource& r) { return r.name == name; };
    return std::any_of(g.buffers.begin(), g.buffers.end(), same) || std::any_of(g.images.begin(), g.images.end(), same);
}

BufferRef RenderGraph::createBuffer(const std::string& name, const GraphBufferDesc& desc) {
    if (nameTaken(*impl_, name)) impl_->declarationErrors.push_back("resource name '" + name + "' is used twice");
    if (desc.size == 0) impl_->declarationErrors.push_back("buffer '" + name + "' has size 0");
    GraphResource r;
    r.name = name;
    r.lifetime = desc.lifetime;
    r.bufferDesc = desc;
    r.size = desc.size;
    impl_->buffers.push_back(std::move(r));
    compiled_ = false;
    return BufferRef{static_cast<uint32_t>(impl_->buffers.size() - 1)};
}

ImageRef RenderGraph::createImage(const std::string& name, const GraphImageDesc& desc) {
    if (nameTaken(*impl_, name)) impl_->declarationErrors.push_back("resource name '" + name + "' is used twice");
    if (desc.format == VK_FORMAT_UNDEFINED || desc.extent.width == 0 || desc.extent.height == 0)
        impl_->declarationErrors.push_back("image '" + name + "' needs a format and a non-zero extent");
    GraphResource r;
    r.name = name;
    r.isImage = true;
    r.lifetime = desc.lifetime;
    r.imageDesc = desc;
    impl_->images.push_back(std::move(r));
    compiled_ = false;
    return ImageRef{static_cast<uint32_t>(impl_->images.size() - 1)};
}

BufferRef RenderGraph::importBuffer(const std::string& name, VkBuffer buffer, VkDeviceSize size, ExternalUse before,
                                    ExternalUse after, bool readOnly) {
    if (nameTaken(*impl_, name)) impl_->declarationErrors.push_back("resource name '" + name + "' is used twice");
    GraphResource r;
    r.name = name;
    r.imported = true;
    r.readOnly = readOnly;
    r.lifetime = Lifetime::Persistent;
    r.before = before;
    r.after = after;
    r.importedBuffer = buffer;
    r.size = size;
    impl_->buffers.push_back(std::move(r));
    compiled_ = false;
    return BufferRef{static_cast<uint32_t>(impl_->buffers.size() - 1)};
}

BufferRef RenderGraph::importBuffer(const std::string& name, const Buffer& buffer, ExternalUse before,
                                    ExternalUse after, bool readOnly) {
    return importBuffer(name, buffer.handle(), buffer.size(), before, after, readOnly);
}

ImageRef RenderGraph::importImage(const std::string& name, const ImportedImage& image, ExternalUse before,
                                  ExternalUse after, bool readOnly) {
    if (nameTaken(*impl_, name)) impl_->declarationErrors.push_back("resource name '" + name + "' is used twice");
    GraphResource r;
    r.name = name;
    r.isImage = true;
    r.imported = true;
    r.readOnly = readOnly;
    r.lifetime = Lifetime::Persistent;
    r.before = before;
    r.after = after;
    r.importedImage = image;
    impl_->images.push_back(std::move(r));
    compiled_ = false;
    return ImageRef{static_cast<uint32_t>(impl_->images.size() - 1)};
}

ImageRef RenderGraph::importImage(const std::string& name, const Image& image, VkImageLayout currentLayout,
                                  ExternalUse before, ExternalUse after, bool readOnly) {
    ImportedImage info;
    info.image = image.handle();
    info.view = image.view();
    info.format = image.format();
    info.extent = image.extent();
    info.aspect = image.aspect();
    info.mipLevels = image.mipLevels();
    info.samples = image.samples();
    info.currentLayout = currentLayout;
    return importImage(name, info, before, after, readOnly);
}

void RenderGraph::rebindImportedBuffer(BufferRef ref, VkBuffer buffer, VkDeviceSize size) {
    GraphResource& r = impl_->buffers.at(ref.index);
    PYRAMARCH_ASSERT(r.imported, "rebindImportedBuffer on a graph-owned buffer");
    r.importedBuffer = buffer;
    r.size = size;
}

void RenderGraph::rebindImportedImage(ImageRef ref, VkImage image, VkImageView view, VkImageLayout currentLayout,
                                      VkExtent3D extent, bool hostTransitioned) {
    GraphResource& r = impl_->images.at(ref.index);
    PYRAMARCH_ASSERT(r.imported, "rebindImportedImage on a graph-owned image");
    r.layoutMismatch.clear();
    if (impl_->options.checkImportedLayouts && !hostTransitioned && currentLayout != VK_IMAGE_LAYOUT_UNDEFINED) {
        for (const auto& [left, layout] : r.leftLayouts)
            if (left == image && layout != currentLayout)
                r.layoutMismatch =
                    "imported image '" + r.name + "' was rebound as being in " + layoutName(currentLayout) +
                    ", but this graph left it in " + layoutName(layout) +
                    " (pass UNDEFINED to discard its contents, or hostTransitioned = true if the host moved it)";
    }
    r.importedImage.image = image;
    r.importedImage.view = view;
    r.importedImage.currentLayout = currentLayout;
    if (extent.width && extent.height) r.importedImage.extent = extent;
}

PassBuilder RenderGraph::addPass(const std::string& name, PassKind kind) {
    for (const GraphPass& p : impl_->passes)
        if (p.name == name) impl_->declarationErrors.push_back("pass name '" + name + "' is used twice");
    GraphPass p;
    p.name = name;
    p.kind = kind;
    impl_->passes.push_back(std::move(p));
    compiled_ = false;
    return PassBuilder(*this, static_cast<uint32_t>(impl_->passes.size() - 1));
}

PassBuilder& PassBuilder::use(BufferRef buffer, Access access, VkPipelineStageFlags2 stageOverride) {
    PYRAMARCH_ASSERT(buffer.index < graph_.impl_->buffers.size(), "pass uses a BufferRef of another graph");
    graph_.impl_->passes[index_].uses.push_back({false, buffer.index, access, stageOverride});
    return *this;
}

PassBuilder& PassBuilder::use(ImageRef image, Access access, VkPipelineStageFlags2 stageOverride) {
    PYRAMARCH_ASSERT(image.index < graph_.impl_->images.size(), "pass uses an ImageRef of another graph");
    graph_.impl_->passes[index_].uses.push_back({true, image.index, access, stageOverride});
    return *this;
}

PassBuilder& PassBuilder::pipeline(const Pipeline& pipeline) {
    GraphPass& pass = graph_.impl_->passes[index_];
    pipelineLayout(pipeline.pipelineLayout().desc());
    pass.pipeline = pipeline.pipeline();
    pass.pipelineLayout = pipeline.layout();
    pass.setLayout = pipeline.setLayout();
    pass.pushDescriptors = pipeline.pipelineLayout().usesPushDescriptors();
    if (!pass.pipeline)
        graph_.impl_->declarationErrors.push_back("pass '" + pass.name + "' declares a pipeline that was not created");
    return *this;
}

PassBuilder& PassBuilder::pipelineLayout(const PipelineLayoutDesc& layout) {
    GraphPass& pass = graph_.impl_->passes[index_];
    if (pass.hasLayout)
        graph_.impl_->declarationErrors.push_back("pass '" + pass.name + "' declares its pipeline twice");
    pass.hasLayout = true;
    pass.layoutBindings = layout.bindings;
    pass.pushConstantStages =
        pass.kind == PassKind::Compute ? VkShaderStageFlags(VK_SHADER_STAGE_COMPUTE_BIT) : layout.stages;
    return *this;
}

PassBuilder& PassBuilder::storage(uint32_t binding, BufferRef buffer, Access access,
                                  VkPipelineStageFlags2 stageOverride, VkDeviceSize range, VkDeviceSize offset) {
    use(buffer, access, stageOverride);
    graph_.impl_->passes[index_].bindings.push_back(
        {binding, buffer.index, access, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, range, VK_FORMAT_UNDEFINED, offset});
    return *this;
}

PassBuilder& PassBuilder::uniform(uint32_t binding, BufferRef buffer, VkPipelineStageFlags2 stageOverride,
                                  VkDeviceSize range, VkDeviceSize offset) {
    use(buffer, Access::UniformRead, stageOverride);
    graph_.impl_->passes[index_].bindings.push_back({binding, buffer.index, Access::UniformRead,
                                                     VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, range, VK_FORMAT_UNDEFINED,
                                                     offset});
    return *this;
}

PassBuilder& PassBuilder::texel(uint32_t binding, BufferRef buffer, VkFormat format, Access access,
                                VkPipelineStageFlags2 stageOverride, VkDeviceSize range) {
    use(buffer, access, stageOverride);
    const VkDescriptorType type = access == Access::SampledRead ? VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER
                                                                : VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER;
    graph_.impl_->passes[index_].bindings.push_back({binding, buffer.index, access, type, range, format});
    return *this;
}

PassBuilder& PassBuilder::colorAttachment(ImageRef image, const AttachmentDesc& desc) {
    GraphPass& pass = graph_.impl_->passes[index_];
    if (pass.kind != PassKind::Graphics)
        graph_.impl_->declarationErrors.push_back("pass '" + pass.name +
                                                  "' has a colour attachment but is not a graphics pass");
    use(image, Access::ColorAttachment);
    if (desc.resolveTarget.valid()) use(desc.resolveTarget, Access::ColorAttachment);
    pass.colors.push_back({image, desc});
    return *this;
}

PassBuilder& PassBuilder::depthAttachment(ImageRef image, const AttachmentDesc& desc) {
    GraphPass& pass = graph_.impl_->passes[index_];
    if (pass.kind != PassKind::Graphics)
        graph_.impl_->declarationErrors.push_back("pass '" + pass.name +
                                                  "' has a depth attachment but is not a graphics pass");
    use(image, desc.store || desc.load != LoadOp::Load ? Access::DepthAttachment : Access::DepthRead);
    pass.depth = PassAttachment{image, desc};
    return *this;
}

PassBuilder& PassBuilder::renderArea(uint32_t width, uint32_t height) {
    GraphPass& pass = graph_.impl_->passes[index_];
    pass.areaWidth = width;
    pass.areaHeight = height;
    return *this;
}

PassBuilder& PassBuilder::record(RecordFn fn) {
    graph_.impl_->passes[index_].record = std::move(fn);
    return *this;
}

// ---- Compile / queries ----

Status RenderGraph::compile() {
    // A graphics pass with attachments begins dynamic rendering.
    if (impl_->device && !impl_->device->limits().dynamicRendering)
        for (const auto& pass : impl_->passes)
            if (pass.kind == PassKind::Graphics && (!pass.colors.empty() || pass.depth || pass.areaWidth)) {
                compiled_ = false;
                return Status::error(ErrorCode::Unsupported,
                                     "render graph: graphics pass '" + pass.name +
                                         "' begins dynamic rendering, which the device was not created with "
                                         "(AdoptInfo::dynamicRenderingEnabled); record such draws inside the host's "
                                         "render pass instead (e.g. SurfaceRenderer::recordDraw)");
            }
    Status s = compileGraph(*impl_, schedule_);
    compiled_ = s.ok();
    if (compiled_) impl_->resourcesCreated = false;
    return s;
}

VkBuffer RenderGraph::buffer(BufferRef ref) const {
    const GraphResource& r = impl_->buffers.at(ref.index);
    return r.imported ? r.importedBuffer : r.ownedBuffer.handle();
}
VkDeviceSize RenderGraph::bufferSize(BufferRef ref) const { return impl_->buffers.at(ref.index).size; }
VkImage RenderGraph::image(ImageRef ref) const {
    const GraphResource& r = impl_->images.at(ref.index);
    return r.imported ? r.importedImage.image : r.ownedImage.handle();
}
VkImageView RenderGraph::imageView(ImageRef ref) const {
    const GraphResource& r = impl_->images.at(ref.index);
    return r.imported ? r.importedImage.view : r.ownedImage.view();
}
const std::string& RenderGraph::passName(uint32_t pass) const { return impl_->passes.at(pass).name; }
const std::string& RenderGraph::resourceName(bool isImage, uint32_t index) const {
    return impl_->resource(isImage, index).name;
}
size_t RenderGraph::passCount() const { return impl_->passes.size(); }

// ---- Execute ----

static Status createResources(RenderGraph::Impl& g) {
    Device& device = *g.device;
    for (uint32_t r = 0; r < g.buffers.size(); ++r) {
        GraphResource& res = g.buffers[r];
        if (res.imported || res.ownedBuffer.valid()) continue;
        VkBufferUsageFlags usage =
            res.bufferDesc.extraUsage | VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
        for (const GraphPass& p : g.passes) {
            for (const PassUse& u : p.uses)
                if (!u.isImage && u.resource == r && u.access != Access::SampledRead) usage |= bufferUsageFor(u.access);
            for (const PassBinding& b : p.bindings)
                if (b.buffer == r) usage |= bufferUsageFor(b);
        }
        auto b =
            device.allocator().createBuffer({res.bufferDesc.size, usage, MemoryUsage::DeviceLocal, res.name.c_str()});
        if (!b) return b.status().withContext("render graph: creating buffer '" + res.name + "': ");
        res.ownedBuffer = std::move(b).value();
    }
    for (uint32_t r = 0; r < g.images.size(); ++r) {
        GraphResource& res = g.images[r];
        if (res.imported || res.ownedImage.valid()) continue;
        VkImageUsageFlags usage = res.imageDesc.extraUsage;
        for (const GraphPass& p : g.passes)
            for (const PassUse& u : p.uses)
                if (u.isImage && u.resource == r) usage |= imageUsageFor(u.access);
        ImageCreateInfo ci;
        ci.type = res.imageDesc.type;
        ci.format = res.imageDesc.format;
        ci.extent = res.imageDesc.extent;
        ci.usage = usage;
        ci.samples = res.imageDesc.samples;
        ci.name = res.name.c_str();
        auto img = device.allocator().createImage(ci);
        if (!img) return img.status().withContext("render graph: creating image '" + res.name + "': ");
        res.ownedImage = std::move(img).value();
    }
    // Descriptor sets of passes whose pipeline has no push-descriptor layout:
    // one per ring slot, written at their first use.
    if (g.descriptorPool) device.vk().vkDestroyDescriptorPool(device.device(), g.descriptorPool, nullptr);
    g.descriptorPool = VK_NULL_HANDLE;
    uint32_t setCount = 0;
    std::vector<VkDescriptorPoolSize> sizes;
    for (GraphPass& p : g.passes) {
        p.sets.clear();
        if (!p.pipeline || p.pushDescriptors || p.bindings.empty()) continue;
        setCount += g.options.timingFrames;
        for (VkDescriptorType t : p.layoutBindings) {
            auto it =
                std::find_if(sizes.begin(), sizes.end(), [t](const VkDescriptorPoolSize& s) { return s.type == t; });
            if (it == sizes.end()) it = sizes.insert(sizes.end(), {t, 0});
            it->descriptorCount += g.options.timingFrames;
        }
    }
    if (setCount) {
        const uint32_t n = static_cast<uint32_t>(sizes.size());
        VkDescriptorPoolCreateInfo pci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
        pci.maxSets = setCount;
        pci.poolSizeCount = n;
        pci.pPoolSizes = sizes.data();
        VkResult vr = device.vk().vkCreateDescriptorPool(device.device(), &pci, nullptr, &g.descriptorPool);
        if (vr != VK_SUCCESS)
            return Status::error(Status::codeOf(vr), "render graph: vkCreateDescriptorPool failed: " + vkResultName(vr),
                                 vr);
        for (GraphPass& p : g.passes) {
            if (!p.pipeline || p.pushDescriptors || p.bindings.empty()) continue;
            std::vector<VkDescriptorSetLayout> layouts(g.options.timingFrames, p.setLayout);
            std::vector<VkDescriptorSet> sets(g.options.timingFrames);
            VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
            ai.descriptorPool = g.descriptorPool;
            ai.descriptorSetCount = g.options.timingFrames;
            ai.pSetLayouts = layouts.data();
            vr = device.vk().vkAllocateDescriptorSets(device.device(), &ai, sets.data());
            if (vr != VK_SUCCESS)
                return Status::error(Status::codeOf(vr),
                                     "render graph: descriptor sets of pass '" + p.name + "': " + vkResultName(vr), vr);
            for (VkDescriptorSet set : sets) p.sets.push_back({set, {}});
        }
    }
    // Timestamps: queriesPerFrame() per ring slot.
    if (g.options.timestamps && device.limits().timestampsSupported && !g.passes.empty()) {
        if (g.queryPool) device.vk().vkDestroyQueryPool(device.device(), g.queryPool, nullptr);
        g.queryPool = VK_NULL_HANDLE;
        g.queryPassCount = static_cast<uint32_t>(g.passes.size());
        VkQueryPoolCreateInfo qci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        qci.queryType = VK_QUERY_TYPE_TIMESTAMP;
        qci.queryCount = g.queriesPerFrame() * g.options.timingFrames;
        VkResult vr = device.vk().vkCreateQueryPool(device.device(), &qci, nullptr, &g.queryPool);
        if (vr != VK_SUCCESS)
            return Status::error(Status::codeOf(vr), "render graph: vkCreateQueryPool failed: " + vkResultName(vr), vr);
        g.slotFrame.assign(g.options.timingFrames, UINT64_MAX);
    }
    g.resourcesCreated = true;
    return {};
}

// The texel range a binding views: whole texels of the declared range.
static VkDeviceSize texelRange(const PassBinding& b, VkDeviceSize bufferSize) {
    const VkDeviceSize bytes = b.range == VK_WHOLE_SIZE ? bufferSize : std::min(b.range, bufferSize);
    const uint32_t texel = texelBytes(b.format);
    return texel ? bytes / texel * texel : 0;
}

// Creates the views of every texel binding for the buffers' current handles
// (before anything is recorded, so that a failure records nothing), and
// destroys the views of handles no resource holds any more once every ring
// slot has been recorded over since their last use.
static Status ensureTexelViews(RenderGraph::Impl& g, const RenderGraph& graph, uint64_t frame) {
    Device& device = *g.device;
    for (const GraphPass& p : g.passes) {
        if (!p.pipeline) continue;
        for (const PassBinding& b : p.bindings) {
            if (!b.texel()) continue;
            const BufferRef ref{b.buffer};
            const VkBuffer buffer = graph.buffer(ref);
            const VkDeviceSize range = texelRange(b, graph.bufferSize(ref));
            auto it = std::find_if(g.texelViews.begin(), g.texelViews.end(), [&](const TexelView& v) {
                return v.buffer == buffer && v.format == b.format && v.range == range;
            });
            if (it != g.texelViews.end()) {
                it->lastFrame = frame;
                continue;
            }
            const std::string what = "render graph: pass '" + p.name + "' binds buffer '" + g.buffers[b.buffer].name +
                                     "' as a texel buffer at binding " + std::to_string(b.binding);
            const uint64_t texels = range / texelBytes(b.format);
            if (range == 0 || texels > device.limits().maxTexelBufferElements)
                return Status::error(ErrorCode::DeviceLimit,
                                     what + ": " + std::to_string(texels) + " texels, but the device allows 1.." +
                                         std::to_string(device.limits().maxTexelBufferElements) +
                                         " (maxTexelBufferElements)");
            VkBufferViewCreateInfo vi{VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO};
            vi.buffer = buffer;
            vi.format = b.format;
            vi.offset = 0;
            vi.range = range;
            VkBufferView view = VK_NULL_HANDLE;
            const VkResult vr = device.vk().vkCreateBufferView(device.device(), &vi, nullptr, &view);
            if (vr != VK_SUCCESS)
                return Status::error(Status::codeOf(vr), what + ": vkCreateBufferView failed: " + vkResultName(vr), vr);
            g.texelViews.push_back({buffer, b.format, range, view, frame});
        }
    }
    auto held = [&](VkBuffer buffer) {
        for (uint32_t r = 0; r < g.buffers.size(); ++r)
            if (graph.buffer(BufferRef{r}) == buffer) return true;
        return false;
    };
    for (size_t i = 0; i < g.texelViews.size();) {
        TexelView& v = g.texelViews[i];
        if (!held(v.buffer) && frame >= v.lastFrame + g.options.timingFrames) {
            device.vk().vkDestroyBufferView(device.device(), v.view, nullptr);
            g.texelViews.erase(g.texelViews.begin() + static_cast<std::ptrdiff_t>(i));
        } else {
            ++i;
        }
    }
    return {};
}

// Binds a pass's declared pipeline and the descriptors of its declared
// bindings: pushed, or from the ring slot's set (rewritten only when an
// imported buffer was rebound since that set was last written).
void RenderGraph::bindPipeline(GraphPass& pass, VkCommandBuffer cmd, uint32_t slot) {
    Impl& g = *impl_;
    const VolkDeviceTable& vk = g.device->vk();
    const VkPipelineBindPoint point =
        pass.kind == PassKind::Graphics ? VK_PIPELINE_BIND_POINT_GRAPHICS : VK_PIPELINE_BIND_POINT_COMPUTE;
    vk.vkCmdBindPipeline(cmd, point, pass.pipeline);
    if (pass.bindings.empty()) return;
    PassSet* set = pass.pushDescriptors ? nullptr : &pass.sets[slot];
    bool stale = !set || set->written.size() != pass.bindings.size();
    for (size_t i = 0; !stale && i < pass.bindings.size(); ++i)
        stale = set->written[i] != buffer(BufferRef{pass.bindings[i].buffer});
    if (stale) {
        g.descriptorWrites.clear();
        g.descriptorInfos.resize(pass.bindings.size());
        g.descriptorViews.resize(pass.bindings.size());
        for (size_t i = 0; i < pass.bindings.size(); ++i) {
            const PassBinding& b = pass.bindings[i];
            const BufferRef ref{b.buffer};
            const VkDeviceSize size = bufferSize(ref);
            // checkBindingRanges() has kept offset and range within the buffer.
            g.descriptorInfos[i] = {buffer(ref), b.offset,
                                    b.range == VK_WHOLE_SIZE ? VK_WHOLE_SIZE : std::min(b.range, size - b.offset)};
            VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            w.dstSet = set ? set->set : VK_NULL_HANDLE;
            w.dstBinding = b.binding;
            w.descriptorCount = 1;
            w.descriptorType = b.type;
            if (b.texel()) {
                g.descriptorViews[i] = g.texelView(buffer(ref), b.format, texelRange(b, size));
                PYRAMARCH_ASSERT(g.descriptorViews[i] != VK_NULL_HANDLE, "texel binding without a view");
                w.pTexelBufferView = &g.descriptorViews[i];
            } else {
                w.pBufferInfo = &g.descriptorInfos[i];
            }
            g.descriptorWrites.push_back(w);
        }
        if (!set) {
            vk.vkCmdPushDescriptorSetKHR(cmd, point, pass.pipelineLayout, 0,
                                         static_cast<uint32_t>(g.descriptorWrites.size()), g.descriptorWrites.data());
            return;
        }
        vk.vkUpdateDescriptorSets(g.device->device(), static_cast<uint32_t>(g.descriptorWrites.size()),
                                  g.descriptorWrites.data(), 0, nullptr);
        set->written.resize(pass.bindings.size());
        for (size_t i = 0; i < pass.bindings.size(); ++i) set->written[i] = g.descriptorInfos[i].buffer;
    }
    vk.vkCmdBindDescriptorSets(cmd, point, pass.pipelineLayout, 0, 1, &set->set, 0, nullptr);
}

Status RenderGraph::execute(VkCommandBuffer cmd) {
    PYRAMARCH_ASSERT(compiled_, "RenderGraph::execute before a successful compile()");
    PYRAMARCH_ASSERT(impl_->device, "RenderGraph::execute on a graph created without a Device");
    Impl& g = *impl_;
    Device& device = *g.device;
    const VolkDeviceTable& vk = device.vk();
    const InstanceFunctions& vki = device.vki();
    // Before anything is recorded: a wrong oldLayout would be undefined behaviour on the GPU.
    for (const GraphResource& r : g.images)
        if (!r.layoutMismatch.empty())
            return Status::error(ErrorCode::InvalidState, "RenderGraph::execute: " + r.layoutMismatch);
    const bool firstFrame = !g.resourcesCreated;
    if (!g.resourcesCreated) PYRAMARCH_TRY(createResources(g));
    // Imports may have been rebound to other sizes since compile().
    PYRAMARCH_TRY(checkBindingRanges(g, &device.limits()));
    PYRAMARCH_TRY(ensureTexelViews(g, *this, frameIndex_));
    const bool labels = g.options.debugLabels && device.limits().debugUtils && vki.cmdBeginDebugUtilsLabel;

    const uint32_t slot = static_cast<uint32_t>(frameIndex_ % g.options.timingFrames);
    if (g.queryPool) {
        vk.vkCmdResetQueryPool(cmd, g.queryPool, slot * g.queriesPerFrame(), g.queriesPerFrame());
        g.slotFrame[slot] = frameIndex_;
    }

    std::vector<VkBufferMemoryBarrier2>& bufferBarriers = g.bufferBarriers;
    std::vector<VkImageMemoryBarrier2>& imageBarriers = g.imageBarriers;
    auto emit = [&](const std::vector<GraphBarrier>& barriers) {
        bufferBarriers.clear();
        imageBarriers.clear();
        for (const GraphBarrier& b : barriers) {
            if (b.fromPreviousFrame && firstFrame && !b.isImage) continue; // nothing ran before
            if (b.isImage) {
                const GraphResource& res = g.images[b.resource];
                VkImageMemoryBarrier2 ib{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2};
                ib.srcStageMask = b.srcStages;
                ib.srcAccessMask = b.srcAccess;
                ib.dstStageMask = b.dstStages;
                ib.dstAccessMask = b.dstAccess;
                ib.oldLayout = b.oldLayout;
                ib.newLayout = b.newLayout;
                if (b.fromImport) ib.oldLayout = res.importedImage.currentLayout;
                if (b.fromPreviousFrame && firstFrame) {
                    ib.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
                    ib.srcStageMask = VK_PIPELINE_STAGE_2_NONE;
                    ib.srcAccessMask = VK_ACCESS_2_NONE;
                }
                if (ib.oldLayout == ib.newLayout && !ib.srcStageMask) continue;
                ib.srcQueueFamilyIndex = ib.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
                ib.image = res.imported ? res.importedImage.image : res.ownedImage.handle();
                const VkImageAspectFlags aspect = res.imported ? res.importedImage.aspect : res.ownedImage.aspect();
                const uint32_t mips = res.imported ? res.importedImage.mipLevels : res.ownedImage.mipLevels();
                const uint32_t layers = res.imported ? res.importedImage.arrayLayers : 1;
                ib.subresourceRange = {aspect, 0, mips, 0, layers};
                imageBarriers.push_back(ib);
            } else {
                const GraphResource& res = g.buffers[b.resource];
                VkBufferMemoryBarrier2 bb{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2};
                bb.srcStageMask = b.srcStages;
                bb.srcAccessMask = b.srcAccess;
                bb.dstStageMask = b.dstStages;
                bb.dstAccessMask = b.dstAccess;
                bb.srcQueueFamilyIndex = bb.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
                bb.buffer = res.imported ? res.importedBuffer : res.ownedBuffer.handle();
                bb.offset = 0;
                bb.size = VK_WHOLE_SIZE;
                bufferBarriers.push_back(bb);
            }
        }
        if (bufferBarriers.empty() && imageBarriers.empty()) return;
        VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
        dep.bufferMemoryBarrierCount = static_cast<uint32_t>(bufferBarriers.size());
        dep.pBufferMemoryBarriers = bufferBarriers.data();
        dep.imageMemoryBarrierCount = static_cast<uint32_t>(imageBarriers.size());
        dep.pImageMemoryBarriers = imageBarriers.data();
        vk.vkCmdPipelineBarrier2(cmd, &dep);
    };

    PassContext ctx;
    ctx.cmd = cmd;
    ctx.vk = &vk;
    ctx.device = &device;
    ctx.frameIndex = frameIndex_;
    ctx.graph = this;
    for (const ScheduledPass& sp : schedule_.passes) {
        const GraphPass& pass = g.passes[sp.pass];
        // The begin write comes before the pass's barriers and is followed at
        // once by a settle write whose value is never read; both are for
        // llvmpipe (lavapipe). Once a framebuffer has been bound on its queue
        // it bins a timestamp into the current scene, and the value is taken
        // only when a later flush has its rasterizer threads run that scene,
        // while compute dispatches run on the spot. With the begin after the
        // barriers and nothing after it, it took its value after the pass's
        // dispatches (every compute pass read ~0 ms, the work fell between
        // passes). There a timestamp flushes and a barrier flushes and waits,
        // so the begin is taken before the pass's work: at the barrier, or as
        // soon as the rasterizer threads run (racing the dispatches where the
        // pass has no barrier). On GPUs an ALL_COMMANDS timestamp before the
        // barrier waits for the same work as one after it, and the settle is
        // one more pipelined write: no barrier, no wait is added.
        if (g.queryPool) {
            vk.vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, g.queryPool,
                                    g.passQuery(slot, sp.pass, 0));
            vk.vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, g.queryPool,
                                    g.passQuery(slot, sp.pass, 1));
        }
        emit(sp.barriers);
        if (labels) {
            VkDebugUtilsLabelEXT label{VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT};
            label.pLabelName = pass.name.c_str();
            vki.cmdBeginDebugUtilsLabel(cmd, &label);
        }
        const bool rendering =
            pass.kind == PassKind::Graphics && (!pass.colors.empty() || pass.depth || pass.areaWidth);
        if (rendering) {
            uint32_t width = pass.areaWidth, height = pass.areaHeight;
            auto extentOf = [&](ImageRef ref) {
                const GraphResource& r = g.images[ref.index];
                return r.imported ? r.importedImage.extent : r.ownedImage.extent();
            };
            if (!width) {
                VkExtent3D e = pass.colors.empty() ? extentOf(pass.depth->image) : extentOf(pass.colors[0].image);
                width = e.width;
                height = e.height;
            }
            std::vector<VkRenderingAttachmentInfo>& colors = g.colorAttachments;
            colors.clear();
            for (const PassAttachment& a : pass.colors) {
                VkRenderingAttachmentInfo ai{VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
                ai.imageView = imageView(a.image);
                ai.imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
                ai.loadOp = loadOp(a.desc.load);
                ai.storeOp = a.desc.store ? VK_ATTACHMENT_STORE_OP_STORE : VK_ATTACHMENT_STORE_OP_DONT_CARE;
                ai.clearValue = a.desc.clear;
                if (a.desc.resolveTarget.valid()) {
                    ai.resolveMode = VK_RESOLVE_MODE_AVERAGE_BIT;
                    ai.resolveImageView = imageView(a.desc.resolveTarget);
                    ai.resolveImageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
                }
                colors.push_back(ai);
            }
            VkRenderingAttachmentInfo depth{VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
            if (pass.depth) {
                const bool writes = pass.depth->desc.store || pass.depth->desc.load != LoadOp::Load;
                depth.imageView = imageView(pass.depth->image);
                depth.imageLayout = writes ? VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL
                                           : VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL;
                depth.loadOp = loadOp(pass.depth->desc.load);
                depth.storeOp =
                    pass.depth->desc.store ? VK_ATTACHMENT_STORE_OP_STORE : VK_ATTACHMENT_STORE_OP_DONT_CARE;
                depth.clearValue = pass.depth->desc.clear;
            }
            VkRenderingInfo ri{VK_STRUCTURE_TYPE_RENDERING_INFO};
            ri.renderArea = {{0, 0}, {width, height}};
            ri.layerCount = 1;
            ri.colorAttachmentCount = static_cast<uint32_t>(colors.size());
            ri.pColorAttachments = colors.data();
            ri.pDepthAttachment = pass.depth ? &depth : nullptr;
            vk.vkCmdBeginRendering(cmd, &ri);
            VkViewport viewport{0, 0, float(width), float(height), 0, 1};
            VkRect2D scissor{{0, 0}, {width, height}};
            vk.vkCmdSetViewport(cmd, 0, 1, &viewport);
            vk.vkCmdSetScissor(cmd, 0, 1, &scissor);
        }
        ctx.pipelineLayout = pass.pipelineLayout;
        ctx.pushConstantStages = pass.pushConstantStages;
        if (pass.pipeline) bindPipeline(g.passes[sp.pass], cmd, slot);
        if (pass.record) pass.record(ctx);
        if (rendering) vk.vkCmdEndRendering(cmd);
        if (g.queryPool)
            vk.vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, g.queryPool,
                                    g.passQuery(slot, sp.pass, 2));
        if (labels) vki.cmdEndDebugUtilsLabel(cmd);
    }
    // Settles the last pass's end (each earlier end is settled by the next
    // pass's begin), so that work the host records after execute() in the
    // same command buffer is not counted in it.
    if (g.queryPool)
        vk.vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, g.queryPool,
                                g.passQuery(slot, g.queryPassCount, 0));
    emit(schedule_.exitBarriers);
    // Imported images now sit in the exit layout (or their last use's), which
    // is where the next execute() finds them unless the host rebinds.
    for (const ScheduledPass& sp : schedule_.passes)
        for (const GraphBarrier& b : sp.barriers)
            if (b.isImage && g.images[b.resource].imported)
                g.images[b.resource].importedImage.currentLayout = b.newLayout;
    for (const GraphBarrier& b : schedule_.exitBarriers)
        if (b.isImage) g.images[b.resource].importedImage.currentLayout = b.newLayout;
    if (g.options.checkImportedLayouts) {
        constexpr size_t kRemembered = 8;
        for (GraphResource& r : g.images) {
            if (!r.imported) continue;
            auto& left = r.leftLayouts;
            std::erase_if(left, [&](const auto& e) { return e.first == r.importedImage.image; });
            if (left.size() == kRemembered) left.erase(left.begin());
            left.emplace_back(r.importedImage.image, r.importedImage.currentLayout);
        }
    }
    ++frameIndex_;
    return {};
}

uint64_t RenderGraph::latestTimingsFrame() const {
    const Impl& g = *impl_;
    if (!g.queryPool || frameIndex_ == 0) return UINT64_MAX;
    const uint32_t count = g.queriesPerFrame();
    std::vector<uint64_t> results(count * 2);
    // Newest first; a slot is reused only when frame + timingFrames is recorded.
    for (uint64_t back = 1; back < g.options.timingFrames && back <= frameIndex_; ++back) {
        const uint64_t frame = frameIndex_ - back;
        const uint32_t slot = static_cast<uint32_t>(frame % g.options.timingFrames);
        if (g.slotFrame[slot] != frame) continue;
        VkResult r = g.device->vk().vkGetQueryPoolResults(
            g.device->device(), g.queryPool, slot * count, count, results.size() * sizeof(uint64_t), results.data(),
            2 * sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
        if (r != VK_SUCCESS && r != VK_NOT_READY) continue;
        bool all = true;
        for (uint32_t q = 0; q < count; ++q) all = all && results[q * 2 + 1] != 0;
        if (all) return frame;
    }
    return UINT64_MAX;
}

std::vector<PassTiming> RenderGraph::latestTimings(uint64_t* frameOut) const {
    const Impl& g = *impl_;
    const uint64_t frame = latestTimingsFrame();
    if (frameOut) *frameOut = frame;
    if (frame == UINT64_MAX) return {};
    const uint32_t slot = static_cast<uint32_t>(frame % g.options.timingFrames);
    const uint32_t count = g.queriesPerFrame();
    std::vector<uint64_t> results(count * 2);
    g.device->vk().vkGetQueryPoolResults(g.device->device(), g.queryPool, slot * count, count,
                                         results.size() * sizeof(uint64_t), results.data(), 2 * sizeof(uint64_t),
                                         VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
    std::vector<PassTiming> out;
    const double period = g.device->limits().timestampPeriodNs;
    for (const ScheduledPass& sp : schedule_.passes) {
        const uint64_t begin = results[g.passQuery(0, sp.pass, 0) * 2], end = results[g.passQuery(0, sp.pass, 2) * 2];
        out.push_back({g.passes[sp.pass].name, end >= begin ? double(end - begin) * period * 1e-6 : 0.0});
    }
    return out;
}

std::optional<FrameTimings> RenderGraph::latestTimingsOf(const std::string& passPrefix) const {
    FrameTimings t;
    std::vector<PassTiming> all = latestTimings(&t.frame);
    if (t.frame == UINT64_MAX) return std::nullopt;
    for (PassTiming& p : all) {
        if (p.name.compare(0, passPrefix.size(), passPrefix) != 0) continue;
        t.totalMs += p.milliseconds;
        t.passes.push_back(std::move(p));
    }
    if (t.passes.empty()) return std::nullopt;
    return t;
}

} // namespace pyramarch
