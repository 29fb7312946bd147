// Render graph: passes declare what they touch by intent; the graph orders
// them, derives every barrier from one intent table, and records. compile()
// is pure (no Vulkan calls) so schedules and barriers are testable without a
// GPU; execute() records into a command buffer and never submits or waits.
//
// Typical frame:
//     RenderGraph graph(&device);
//     auto field = graph.createBuffer("field", {.size = bytes});
//     graph.addPass("classify", PassKind::Compute)
//          .use(field, Access::StorageRead)
//          .use(counts, Access::StorageWrite)
//          .record([&](PassContext& ctx) { ... });
//     graph.compile();           // once, or when the structure changes
//     graph.execute(cmd);        // every frame
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <vulkan/vulkan_core.h>

#include "pyramarch/engine/status.h"

struct VolkDeviceTable;

namespace pyramarch {

class Device;
class Buffer;
class Image;
class Pipeline;
struct PipelineLayoutDesc;

enum class PassKind : uint8_t { Compute, Graphics, Transfer };

// What a pass does with a resource. The graph maps (intent, pass kind) to
// pipeline stage, access mask and image layout in one table (accessInfo).
enum class Access : uint8_t {
    None,             // no access: "nothing before" / "nothing after" for imports
    StorageRead,      // storage buffer / storage image read in shaders
    StorageWrite,     // storage write (previous contents not needed)
    StorageReadWrite, // read-modify-write, atomics
    UniformRead,
    SampledRead,     // sampled image / texel read in shaders
    IndirectRead,    // vkCmd*Indirect argument buffer
    VertexRead,      // vertex buffer
    IndexRead,       // index buffer
    ColorAttachment, // colour attachment write (and read for load/blend)
    DepthAttachment, // depth test + write
    DepthRead,       // depth test, read-only
    TransferSrc,
    TransferDst, // copy / fill / clear destination
    HostRead,    // host reads after the GPU finishes (read-back)
    HostWrite,   // host wrote before the graph (uploads)
    Present,     // swapchain image handed to presentation
};

const char* accessName(Access a);
const char* passKindName(PassKind k);

struct AccessInfo {
    VkPipelineStageFlags2 stages = VK_PIPELINE_STAGE_2_NONE;
    VkAccessFlags2 access = VK_ACCESS_2_NONE;
    VkImageLayout layout = VK_IMAGE_LAYOUT_UNDEFINED; // for images
    bool writes = false;
    bool reads = false;
};

// The one table. `stageOverride` (non-zero) replaces the shader stages of
// shader accesses (e.g. a geometry-shader storage write).
AccessInfo accessInfo(Access access, PassKind kind, VkPipelineStageFlags2 stageOverride = 0);

// A use of a resource outside the graph: the last use before the graph, or
// the use the host wants after it.
struct ExternalUse {
    Access access = Access::None;
    PassKind kind = PassKind::Compute; // whose shader stages a storage/uniform access means
    VkPipelineStageFlags2 stageOverride = 0;
};

enum class Lifetime : uint8_t {
    Transient,  // contents undefined at the start of every frame
    Persistent, // contents kept from one execute() to the next
};

struct GraphBufferDesc {
    VkDeviceSize size = 0; // required
    Lifetime lifetime = Lifetime::Transient;
    VkBufferUsageFlags extraUsage = 0; // added to the usage derived from the declared accesses
};

struct GraphImageDesc {
    VkImageType type = VK_IMAGE_TYPE_2D;
    VkFormat format = VK_FORMAT_UNDEFINED; // required
    VkExtent3D extent{0, 0, 1};            // required
    VkSampleCountFlagBits samples = VK_SAMPLE_COUNT_1_BIT;
    Lifetime lifetime = Lifetime::Transient;
    VkImageUsageFlags extraUsage = 0;
};

// Describes a host image being imported.
struct ImportedImage {
    VkImage image = VK_NULL_HANDLE;        // required
    VkImageView view = VK_NULL_HANDLE;     // required for attachments
    VkFormat format = VK_FORMAT_UNDEFINED; // required
    VkExtent3D extent{0, 0, 1};            // required
    VkImageAspectFlags aspect = VK_IMAGE_ASPECT_COLOR_BIT;
    uint32_t mipLevels = 1;
    uint32_t arrayLayers = 1;
    VkSampleCountFlagBits samples = VK_SAMPLE_COUNT_1_BIT;
    // Layout the image is in when the graph starts (UNDEFINED discards).
    VkImageLayout currentLayout = VK_IMAGE_LAYOUT_UNDEFINED;
};

struct BufferRef {
    uint32_t index = UINT32_MAX;
    bool valid() const { return index != UINT32_MAX; }
    bool operator==(const BufferRef&) const = default;
};
struct ImageRef {
    uint32_t index = UINT32_MAX;
    bool valid() const { return index != UINT32_MAX; }
    bool operator==(const ImageRef&) const = default;
};

class RenderGraph;

// Handed to a pass's record function: the command buffer and every handle
// the pass may need, looked up from the refs it declared (no handle needs to
// be captured in the record lambda). When the pass declared a pipeline, the
// graph has bound it, and the descriptors of its declared bindings, before
// record() runs; the pass pushes constants and dispatches/draws.
struct PassContext {
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    const VolkDeviceTable* vk = nullptr;
    Device* device = nullptr;
    uint64_t frameIndex = 0; // RenderGraph::frameIndex() of the execute() recording this pass
    const RenderGraph* graph = nullptr;
    // The declared pipeline's layout and push-constant stages (null without one).
    VkPipelineLayout pipelineLayout = VK_NULL_HANDLE;
    VkShaderStageFlags pushConstantStages = 0;
    VkBuffer buffer(BufferRef ref) const;
    VkDeviceSize bufferSize(BufferRef ref) const;
    VkImage image(ImageRef ref) const;
    VkImageView imageView(ImageRef ref) const;
    // vkCmdPushConstants into the declared pipeline's layout (all its push stages).
    void pushConstants(const void* data, uint32_t bytes, uint32_t offset = 0) const;
    template <class T>
    void pushConstants(const T& value) const {
        pushConstants(&value, static_cast<uint32_t>(sizeof(T)));
    }
    void dispatch(uint32_t x, uint32_t y = 1, uint32_t z = 1) const;
    // `args` must be declared by the pass with Access::IndirectRead.
    void dispatchIndirect(BufferRef args, VkDeviceSize offset) const;
};

using RecordFn = std::function<void(PassContext&)>;

enum class LoadOp : uint8_t { Load, Clear, DontCare };

struct AttachmentDesc {
    LoadOp load = LoadOp::Clear;
    bool store = true;
    VkClearValue clear{};
    ImageRef resolveTarget{}; // optional MSAA resolve destination
};

class PassBuilder {
public:
    PassBuilder& use(BufferRef buffer, Access access, VkPipelineStageFlags2 stageOverride = 0);
    PassBuilder& use(ImageRef image, Access access, VkPipelineStageFlags2 stageOverride = 0);

    // The pipeline the pass runs (a ComputePipeline in a compute pass, a
    // GraphicsPipeline in a graphics pass). The graph binds it, and the
    // descriptors declared with storage()/uniform(), before record(): with
    // VK_KHR_push_descriptor when the layout was created for it (see
    // PipelineLayoutDesc::pushDescriptors), otherwise from descriptor sets the
    // graph allocates and writes itself (one per timing-ring slot, rewritten
    // only when a rebound import changed a handle). The pipeline must outlive
    // the graph.
    PassBuilder& pipeline(const Pipeline& pipeline);
    // Compile-only graphs (no Device, e.g. tests): the layout the declared
    // bindings are checked against, without a pipeline to bind.
    PassBuilder& pipelineLayout(const PipelineLayoutDesc& layout);
    // One declaration, two facts: the pass uses `buffer` with `access` (the
    // graph derives barriers from it, as use() does) and the shader reads it
    // through the storage buffer at `binding` of set 0 (the graph derives the
    // descriptor). `access` is StorageRead, StorageWrite or StorageReadWrite.
    // The descriptor covers `range` bytes from `offset` (VK_WHOLE_SIZE: to
    // the end), e.g. one slice of a buffer larger than maxStorageBufferRange
    // written through several bindings. `offset` must be a multiple of
    // minStorageBufferOffsetAlignment; offset and range must lie within the
    // buffer (compile() fails naming the pass, buffer and binding otherwise),
    // and the range within maxStorageBufferRange (ErrorCode::DeviceLimit from
    // compile() on a graph with a Device, else from execute(); an imported
    // buffer rebound smaller is caught by execute()). Barriers cover the
    // whole buffer whatever the range.
    PassBuilder& storage(uint32_t binding, BufferRef buffer, Access access, VkPipelineStageFlags2 stageOverride = 0,
                         VkDeviceSize range = VK_WHOLE_SIZE, VkDeviceSize offset = 0);
    // The same for a uniform buffer (Access::UniformRead; minUniformBufferOffsetAlignment,
    // maxUniformBufferRange).
    PassBuilder& uniform(uint32_t binding, BufferRef buffer, VkPipelineStageFlags2 stageOverride = 0,
                         VkDeviceSize range = VK_WHOLE_SIZE, VkDeviceSize offset = 0);
    // The same for a texel buffer: the shader reads `buffer` through a
    // uniform texel buffer (samplerBuffer / usamplerBuffer, texelFetch;
    // `access` SampledRead) or reads / writes it through a storage texel
    // buffer (imageBuffer; StorageRead, StorageWrite or StorageReadWrite),
    // as texels of `format`. The graph creates and owns the VkBufferView
    // (graph-owned buffers get the texel usage; an imported buffer must have
    // been created with it). The view covers `range` bytes (whole texels; at
    // most maxTexelBufferElements texels, else execute() fails naming the
    // pass). Why: CPU drivers fetch texels as vector gathers but run
    // storage-buffer accesses lane by lane.
    PassBuilder& texel(uint32_t binding, BufferRef buffer, VkFormat format, Access access,
                       VkPipelineStageFlags2 stageOverride = 0, VkDeviceSize range = VK_WHOLE_SIZE);

    // Graphics passes: the graph begins/ends dynamic rendering around record().
    PassBuilder& colorAttachment(ImageRef image, const AttachmentDesc& desc = {});
    PassBuilder& depthAttachment(ImageRef image, const AttachmentDesc& desc = {});
    // Graphics passes without attachments (e.g. voxelization) give the area.
    PassBuilder& renderArea(uint32_t width, uint32_t height);
    PassBuilder& record(RecordFn fn);

private:
    friend class RenderGraph;
    PassBuilder(RenderGraph& g, uint32_t index) : graph_(g), index_(index) {}
    RenderGraph& graph_;
    uint32_t index_;
};

// One barrier of the compiled schedule.
struct GraphBarrier {
    bool isImage = false;
    uint32_t resource = 0; // BufferRef/ImageRef index
    VkPipelineStageFlags2 srcStages = 0;
    VkAccessFlags2 srcAccess = 0;
    VkPipelineStageFlags2 dstStages = 0;
    VkAccessFlags2 dstAccess = 0;
    VkImageLayout oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    VkImageLayout newLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    // The source is the previous execute() of this graph (graph-owned
    // resources wrap around); skipped/undefined on the very first execute.
    bool fromPreviousFrame = false;
    // The source is the import's declared `before` use; for images the old
    // layout is the imported image's current layout at execute() time.
    bool fromImport = false;
    // What kind of hazard it resolves: "RAW", "WAR", "WAW", "layout", "entry", "exit".
    const char* reason = "";
};

struct ScheduledPass {
    uint32_t pass = 0;                  // index in declaration order
    std::vector<GraphBarrier> barriers; // one vkCmdPipelineBarrier2 before the pass (empty: none)
};

struct Schedule {
    std::vector<ScheduledPass> passes;
    std::vector<GraphBarrier> exitBarriers; // imported resources to their final use
};

struct PassTiming {
    std::string name;
    double milliseconds = 0.0;
};

// GPU times of one frame of a module's passes (IsoSurface::latestTimings,
// Voxelizer::latestTimings): per pass in recording order, the frame they
// belong to (in the numbering of whoever returns them) and their total.
struct FrameTimings {
    uint64_t frame = 0;
    std::vector<PassTiming> passes;
    double totalMs = 0.0;
};

struct RenderGraphOptions {
    // Depth of the graph's per-frame rings: timestamps (timings of frame F are
    // read at frame F + depth - 1 or later) and the descriptor sets of passes
    // without push descriptors. Must exceed the host's frames in flight.
    uint32_t timingFrames = 4;
    bool timestamps = true;
    bool debugLabels = true;
    // execute() fails (nothing recorded), naming the resource and both
    // layouts, when an imported image comes back in another layout than the
    // graph left it in. Default true in every build; a lookup per rebind.
    bool checkImportedLayouts = true;
};

struct GraphPass;

class RenderGraph {
public:
    // `device` may be null for compile-only use (tests, tools).
    explicit RenderGraph(Device* device, RenderGraphOptions options = {});
    ~RenderGraph();
    RenderGraph(const RenderGraph&) = delete;
    RenderGraph& operator=(const RenderGraph&) = delete;

    BufferRef createBuffer(const std::string& name, const GraphBufferDesc& desc);
    ImageRef createImage(const std::string& name, const GraphImageDesc& desc);
    // `before`: the host's last use before the graph runs; `after`: the use
    // the graph leaves the buffer ready for. `readOnly` makes any write an error.
    // Swapchain images: declare `before` as {ColorAttachment, Graphics} (the
    // stage the acquire semaphore is waited at), not None: a layout change
    // whose source stage is "none" is not ordered after that wait.
    BufferRef importBuffer(const std::string& name, VkBuffer buffer, VkDeviceSize size, ExternalUse before,
                           ExternalUse after, bool readOnly = false);
    BufferRef importBuffer(const std::string& name, const Buffer& buffer, ExternalUse before, ExternalUse after,
                           bool readOnly = false);
    ImageRef importImage(const std::string& name, const ImportedImage& image, ExternalUse before, ExternalUse after,
                         bool readOnly = false);
    ImageRef importImage(const std::string& name, const Image& image, VkImageLayout currentLayout, ExternalUse before,
                         ExternalUse after, bool readOnly = false);
    // Re-points an imported resource (e.g. the next swapchain image) without
    // recompiling. A new extent (non-zero) also resizes the render area of the
    // passes that render to it, so a window resize needs no new graph.
    void rebindImportedBuffer(BufferRef ref, VkBuffer buffer, VkDeviceSize size);
    // `currentLayout` must be the layout the image is really in when the
    // graph's commands run. For an image this graph itself left behind, that
    // is the layout it left it in, or UNDEFINED (discard), unless the host
    // moved it itself in between: then say so with hostTransitioned = true.
    // Anything else is reported by the next execute() when
    // RenderGraphOptions::checkImportedLayouts is on (the default).
    void rebindImportedImage(ImageRef ref, VkImage image, VkImageView view, VkImageLayout currentLayout,
                             VkExtent3D extent = {0, 0, 0}, bool hostTransitioned = false);

    PassBuilder addPass(const std::string& name, PassKind kind);

    // Pure: orders passes, derives barriers, validates. Errors name the
    // passes and resources involved.
    Status compile();
    bool compiled() const { return compiled_; }
    const Schedule& schedule() const { return schedule_; }

    // Text and Graphviz DOT of the compiled schedule with its barriers.
    std::string describe() const;
    std::string toDot() const;

    // Records the whole graph. Creates graph-owned resources on the first
    // call after compile(). Never submits or waits.
    Status execute(VkCommandBuffer cmd);
    uint64_t frameIndex() const { return frameIndex_; }

    // Per-pass GPU times of the newest frame whose timestamps are available,
    // without waiting. Empty until one is. `frame` (optional) receives the
    // frameIndex they belong to (UINT64_MAX when empty), from the same query.
    // A pass's time runs from the completion of everything recorded before it
    // (its barriers included) to the completion of its own commands. On a
    // CPU driver that rasterizes on other threads, a draw overlaps the later
    // compute passes that do not wait for it, and both count the overlap.
    std::vector<PassTiming> latestTimings(uint64_t* frame = nullptr) const;
    // Frame index the latest timings belong to (UINT64_MAX if none).
    uint64_t latestTimingsFrame() const;
    // The latest timings of the passes whose names start with `passPrefix`
    // (a module's "<name>."), with their frameIndex and total; empty when
    // none are available.
    std::optional<FrameTimings> latestTimingsOf(const std::string& passPrefix) const;

    // Physical handles (after the first execute for graph-owned resources).
    VkBuffer buffer(BufferRef ref) const;
    VkDeviceSize bufferSize(BufferRef ref) const;
    VkImage image(ImageRef ref) const;
    VkImageView imageView(ImageRef ref) const;
    const std::string& passName(uint32_t pass) const;
    const std::string& resourceName(bool isImage, uint32_t index) const;
    size_t passCount() const;

    struct Impl;

private:
    friend class PassBuilder;
    void bindPipeline(GraphPass& pass, VkCommandBuffer cmd, uint32_t slot);
    std::unique_ptr<Impl> impl_;
    Schedule schedule_;
    bool compiled_ = false;
    uint64_t frameIndex_ = 0;
};

} // namespace pyramarch
