// Internal state of RenderGraph shared by the pure compiler and the recorder.
#pragma once

#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "pyramarch/engine/memory.h"
#include "pyramarch/engine/render_graph.h"

namespace pyramarch {

struct GraphResource {
    std::string name;
    bool isImage = false;
    bool imported = false;
    bool readOnly = false;
    Lifetime lifetime = Lifetime::Transient;
    ExternalUse before, after;
    // Buffers.
    GraphBufferDesc bufferDesc;
    VkBuffer importedBuffer = VK_NULL_HANDLE;
    VkDeviceSize size = 0;
    // Images.
    GraphImageDesc imageDesc;
    ImportedImage importedImage;
    // Imported images: the layouts this graph's execute() left images in
    // (most recent last, a few entries: enough for a swapchain's images), and
    // a rebind that contradicts them, reported by the next execute().
    std::vector<std::pair<VkImage, VkImageLayout>> leftLayouts;
    std::string layoutMismatch;
    // Graph-owned physical resources, created on the first execute().
    Buffer ownedBuffer;
    Image ownedImage;
};

struct PassUse {
    bool isImage = false;
    uint32_t resource = 0;
    Access access = Access::None;
    VkPipelineStageFlags2 stageOverride = 0;
};

// A descriptor a pass declared (PassBuilder::storage / uniform / texel).
struct PassBinding {
    uint32_t binding = 0;
    uint32_t buffer = 0; // BufferRef index
    Access access = Access::None;
    VkDescriptorType type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    VkDeviceSize range = VK_WHOLE_SIZE;
    VkFormat format = VK_FORMAT_UNDEFINED; // texel buffers only
    VkDeviceSize offset = 0;               // storage and uniform buffers only
    bool texel() const {
        return type == VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER || type == VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER;
    }
};

// A buffer view the graph created for a texel binding, keyed by what it
// views. Views of a handle no resource holds any more (a rebound import) are
// destroyed once every frame that may still use them has been recorded over.
struct TexelView {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkFormat format = VK_FORMAT_UNDEFINED;
    VkDeviceSize range = 0;
    VkBufferView view = VK_NULL_HANDLE;
    uint64_t lastFrame = 0; // frameIndex of the last execute() that bound it
};

// Non-push passes: one set per ring slot and the handles it was written with.
struct PassSet {
    VkDescriptorSet set = VK_NULL_HANDLE;
    std::vector<VkBuffer> written; // per declared binding; empty: never written
};

struct PassAttachment {
    ImageRef image;
    AttachmentDesc desc;
};

struct GraphPass {
    std::string name;
    PassKind kind = PassKind::Compute;
    std::vector<PassUse> uses;
    std::vector<PassAttachment> colors;
    std::optional<PassAttachment> depth;
    uint32_t areaWidth = 0, areaHeight = 0;
    RecordFn record;
    // Declared pipeline / layout and bindings.
    bool hasLayout = false;
    std::vector<VkDescriptorType> layoutBindings; // the layout's set 0, binding i at [i]
    VkPipeline pipeline = VK_NULL_HANDLE;         // null: layout only (compile-only graphs)
    VkPipelineLayout pipelineLayout = VK_NULL_HANDLE;
    VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
    VkShaderStageFlags pushConstantStages = 0;
    bool pushDescriptors = false;
    std::vector<PassBinding> bindings;
    std::vector<PassSet> sets; // created by execute() for non-push passes
};

struct RenderGraph::Impl {
    Device* device = nullptr;
    RenderGraphOptions options;
    std::vector<GraphResource> buffers;
    std::vector<GraphResource> images;
    std::vector<GraphPass> passes;
    std::vector<std::string> declarationErrors; // reported by compile()
    bool resourcesCreated = false;
    // Timestamps.
    VkQueryPool queryPool = VK_NULL_HANDLE;
    uint32_t queryPassCount = 0;
    std::vector<uint64_t> slotFrame; // frame recorded into each ring slot
    // Per ring slot: begin, settle and end of each pass, then one settle
    // after the last pass (see execute() for why the settles exist).
    static constexpr uint32_t kQueriesPerPass = 3;
    uint32_t queriesPerFrame() const { return queryPassCount * kQueriesPerPass + 1; }
    uint32_t passQuery(uint32_t slot, uint32_t pass, uint32_t which) const {
        return slot * queriesPerFrame() + pass * kQueriesPerPass + which;
    }
    // Scratch for execute(), kept so recording a frame does not allocate.
    std::vector<VkBufferMemoryBarrier2> bufferBarriers;
    std::vector<VkImageMemoryBarrier2> imageBarriers;
    std::vector<VkRenderingAttachmentInfo> colorAttachments;
    std::vector<VkWriteDescriptorSet> descriptorWrites;
    std::vector<VkDescriptorBufferInfo> descriptorInfos;
    std::vector<VkBufferView> descriptorViews;
    std::vector<TexelView> texelViews;
    VkDescriptorPool descriptorPool = VK_NULL_HANDLE; // sets of passes without push descriptors

    GraphResource& resource(bool isImage, uint32_t index) { return isImage ? images[index] : buffers[index]; }
    // The view of a texel binding for the buffer's current handle (null
    // before ensureTexelViews created it).
    VkBufferView texelView(VkBuffer buffer, VkFormat format, VkDeviceSize range) const {
        for (const TexelView& v : texelViews)
            if (v.buffer == buffer && v.format == format && v.range == range) return v.view;
        return VK_NULL_HANDLE;
    }
    const GraphResource& resource(bool isImage, uint32_t index) const {
        return isImage ? images[index] : buffers[index];
    }
};

// Compiles `impl` into `out`; pure.
Status compileGraph(const RenderGraph::Impl& impl, Schedule& out);
// The offsets and ranges of the declared storage and uniform bindings
// against their buffers' current sizes and, with `limits`, the device's
// offset alignments and range limits (ErrorCode::DeviceLimit).
Status checkBindingRanges(const RenderGraph::Impl& impl, const DeviceLimits* limits);
std::string stageNames(VkPipelineStageFlags2 stages);
// Bytes per texel of the formats texel bindings accept (8/16/32-bit
// integer and float, 1, 2 or 4 components); 0 for any other format.
uint32_t texelBytes(VkFormat format);
std::string accessNames(VkAccessFlags2 access);
const char* layoutName(VkImageLayout layout);

} // namespace pyramarch
