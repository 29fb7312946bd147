// Pipelines from embedded SPIR-V. Set 0's descriptors are normally not
// written by hand: a render-graph pass declares the pipeline and each buffer
// with its binding (PassBuilder::pipeline / storage), and the graph pushes
// them (VK_KHR_push_descriptor) or writes its own sets.
//
// Embedding: every shader under shaders/<feature>/ is compiled at build time
// into an include file holding its SPIR-V words:
//
//     static const uint32_t kClassifySpv[] =
//     #include "shaders/isosurface/classify.comp.spv.inc"
//     ;
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <vulkan/vulkan_core.h>

#include "pyramarch/engine/status.h"

namespace pyramarch {

class Device;
class Buffer;

struct SpecializationConstant {
    uint32_t id;
    uint32_t value; // 32-bit int/uint/bool/float bits
};

// One descriptor set (set = 0) whose binding i has type bindings[i].
struct PipelineLayoutDesc {
    std::vector<VkDescriptorType> bindings;
    uint32_t pushConstantBytes = 0;
    VkShaderStageFlags stages = VK_SHADER_STAGE_COMPUTE_BIT;
    // Take set 0's descriptor types from the shaders' SPIR-V (create() fills
    // `bindings`; a binding the SPIR-V lacks keeps the type `bindings` gives
    // it, else it is an error). Default false.
    bool bindingsFromSpirv = false;
    // Set 0 as a push-descriptor set (the render graph pushes it) when the
    // device enabled VK_KHR_push_descriptor and the bindings fit
    // maxPushDescriptors; false: an ordinary set. Default true.
    bool pushDescriptors = true;
};

// Set 0's descriptor types by binding, read from a SPIR-V module (storage and
// uniform buffers, uniform and storage texel buffers: what the render graph
// binds; an image or sampler is an error);
// VK_DESCRIPTOR_TYPE_MAX_ENUM where the module has no such binding below its
// highest. Fails on another set or an unsupported type; `name` names the
// shader in messages.
Result<std::vector<VkDescriptorType>> reflectSet0Bindings(std::span<const uint32_t> spirv, const char* name);

class PipelineLayout {
public:
    static Result<PipelineLayout> create(Device& device, const PipelineLayoutDesc& desc, const char* name);
    PipelineLayout() = default;
    ~PipelineLayout();
    PipelineLayout(PipelineLayout&& o) noexcept;
    PipelineLayout& operator=(PipelineLayout&& o) noexcept;

    VkPipelineLayout layout() const { return layout_; }
    VkDescriptorSetLayout setLayout() const { return setLayout_; }
    const PipelineLayoutDesc& desc() const { return desc_; }
    // Set 0 was created for vkCmdPushDescriptorSetKHR (see PipelineLayoutDesc::pushDescriptors).
    bool usesPushDescriptors() const { return push_; }

private:
    void destroy();
    Device* device_ = nullptr;
    bool push_ = false;
    VkPipelineLayout layout_ = VK_NULL_HANDLE;
    VkDescriptorSetLayout setLayout_ = VK_NULL_HANDLE;
    PipelineLayoutDesc desc_;
};

// Ownership shared by compute and graphics pipelines: the pipeline and its
// layout, destroyed together.
class Pipeline {
public:
    Pipeline() = default;
    ~Pipeline();
    Pipeline(Pipeline&& o) noexcept;
    Pipeline& operator=(Pipeline&& o) noexcept;

    VkPipeline pipeline() const { return pipeline_; }
    VkPipelineLayout layout() const { return layout_.layout(); }
    VkDescriptorSetLayout setLayout() const { return layout_.setLayout(); }
    const PipelineLayout& pipelineLayout() const { return layout_; }

protected:
    void destroy();
    Device* device_ = nullptr;
    PipelineLayout layout_;
    VkPipeline pipeline_ = VK_NULL_HANDLE;
};

struct ComputePipelineDesc {
    std::span<const uint32_t> spirv; // required
    const char* name = nullptr;      // required (debug name)
    PipelineLayoutDesc layout;
    std::vector<SpecializationConstant> specialization;
    // Optional: require this subgroup size (VK_EXT_subgroup_size_control), 0 = any.
    uint32_t requiredSubgroupSize = 0;
};

class ComputePipeline : public Pipeline {
public:
    static Result<ComputePipeline> create(Device& device, const ComputePipelineDesc& desc);
};

struct VertexAttribute {
    uint32_t location;
    VkFormat format;
    uint32_t offset;
};

struct GraphicsPipelineDesc {
    std::span<const uint32_t> vertexSpirv;   // required
    std::span<const uint32_t> geometrySpirv; // optional
    std::span<const uint32_t> fragmentSpirv; // optional (depth-only / attachment-less)
    const char* name = nullptr;
    PipelineLayoutDesc layout;                          // stages default to all graphics stages used
    std::vector<SpecializationConstant> specialization; // applied to every stage
    uint32_t vertexStride = 0;                          // 0 = no vertex buffer
    std::vector<VertexAttribute> attributes;
    VkPrimitiveTopology topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
    VkPolygonMode polygonMode = VK_POLYGON_MODE_FILL;
    VkCullModeFlags cullMode = VK_CULL_MODE_NONE;
    VkFrontFace frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
    bool depthTest = false;
    bool depthWrite = false;
    VkCompareOp depthCompare = VK_COMPARE_OP_LESS_OR_EQUAL;
    // Dynamic rendering (renderPass null): the attachments' formats. With a
    // renderPass: one entry per colour attachment of the subpass (not read),
    // and depthFormat != UNDEFINED when the subpass has a depth attachment.
    std::vector<VkFormat> colorFormats;
    VkFormat depthFormat = VK_FORMAT_UNDEFINED;
    // Optional: build for subpass `subpass` of this host VkRenderPass (needed
    // during creation only) instead of dynamic rendering, which the device
    // then need not enable. Default null: dynamic rendering.
    VkRenderPass renderPass = VK_NULL_HANDLE;
    uint32_t subpass = 0;
    VkSampleCountFlagBits samples = VK_SAMPLE_COUNT_1_BIT;
    bool alphaBlend = false;
    // VK_EXT_conservative_rasterization overestimation (device must have it).
    bool conservativeOverestimate = false;
    // Colour writes masked off (attachment-less rasterization still runs the fragment shader).
    bool rasterizerDiscard = false;
};

class GraphicsPipeline : public Pipeline {
public:
    static Result<GraphicsPipeline> create(Device& device, const GraphicsPipelineDesc& desc);
};

// What to bind at one binding of a descriptor set.
struct DescriptorBinding {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceSize offset = 0;
    VkDeviceSize range = VK_WHOLE_SIZE;
    // For image bindings (sampled/storage images):
    VkImageView imageView = VK_NULL_HANDLE;
    VkImageLayout imageLayout = VK_IMAGE_LAYOUT_GENERAL;
    VkSampler sampler = VK_NULL_HANDLE;
};

// A pool that hands out descriptor sets for a fixed layout and writes them
// once. Sets live as long as the pool.
class DescriptorPool {
public:
    static Result<DescriptorPool> create(Device& device, uint32_t maxSets, uint32_t maxDescriptorsPerType,
                                         const char* name);
    DescriptorPool() = default;
    ~DescriptorPool();
    DescriptorPool(DescriptorPool&& o) noexcept;
    DescriptorPool& operator=(DescriptorPool&& o) noexcept;

    // Allocates a set for `layout` and writes bindings[i] at binding i. Fails
    // for a push-descriptor layout.
    Result<VkDescriptorSet> allocate(const PipelineLayout& layout, std::span<const DescriptorBinding> bindings);

private:
    void destroy();
    Device* device_ = nullptr;
    VkDescriptorPool pool_ = VK_NULL_HANDLE;
};

} // namespace pyramarch
