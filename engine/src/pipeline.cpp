#include "pyramarch/engine/pipeline.h"

#include "pyramarch/engine/device.h"
#include "pyramarch/engine/vulkan_functions.h"
#include "vk_check.h"

namespace pyramarch {

namespace {

Result<VkShaderModule> createModule(Device& device, std::span<const uint32_t> spirv, const char* name) {
    if (spirv.empty())
        return Status::error(ErrorCode::InvalidArgument,
                             std::string("shader '") + (name ? name : "") + "' has no SPIR-V");
    VkShaderModuleCreateInfo ci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    ci.codeSize = spirv.size_bytes();
    ci.pCode = spirv.data();
    VkShaderModule m = VK_NULL_HANDLE;
    PYRAMARCH_VK_TRY(device.vk().vkCreateShaderModule(device.device(), &ci, nullptr, &m),
                     std::string("vkCreateShaderModule ") + (name ? name : ""));
    return m;
}

struct Specialization {
    std::vector<VkSpecializationMapEntry> entries;
    std::vector<uint32_t> data;
    VkSpecializationInfo info{};
    explicit Specialization(const std::vector<SpecializationConstant>& constants) {
        for (const SpecializationConstant& c : constants) {
            entries.push_back({c.id, static_cast<uint32_t>(data.size() * sizeof(uint32_t)), sizeof(uint32_t)});
            data.push_back(c.value);
        }
        info.mapEntryCount = static_cast<uint32_t>(entries.size());
        info.pMapEntries = entries.data();
        info.dataSize = data.size() * sizeof(uint32_t);
        info.pData = data.data();
    }
    const VkSpecializationInfo* get() const { return entries.empty() ? nullptr : &info; }
};

// Merges reflected descriptor types (MAX_ENUM: the module lacks the binding)
// into `into`: the reflected type wins over a declared default
// (`overrideDeclared`) or must equal what another stage reflected.
Status mergeReflected(std::vector<VkDescriptorType>& into, const std::vector<VkDescriptorType>& reflected,
                      const char* name, bool overrideDeclared = true) {
    if (reflected.size() > into.size()) into.resize(reflected.size(), VK_DESCRIPTOR_TYPE_MAX_ENUM);
    for (size_t i = 0; i < reflected.size(); ++i) {
        if (reflected[i] == VK_DESCRIPTOR_TYPE_MAX_ENUM) continue;
        if (!overrideDeclared && into[i] != VK_DESCRIPTOR_TYPE_MAX_ENUM && into[i] != reflected[i])
            return Status::error(ErrorCode::InvalidArgument, std::string("pipeline '") + (name ? name : "") +
                                                                 "': binding " + std::to_string(i) +
                                                                 " has different types in two stages");
        into[i] = reflected[i];
    }
    return {};
}

Status requireComplete(const std::vector<VkDescriptorType>& bindings, const char* name) {
    for (size_t i = 0; i < bindings.size(); ++i)
        if (bindings[i] == VK_DESCRIPTOR_TYPE_MAX_ENUM)
            return Status::error(ErrorCode::InvalidArgument,
                                 std::string("pipeline '") + (name ? name : "") + "': binding " + std::to_string(i) +
                                     " is in none of the shaders (optimized away?) and the layout gives it no type");
    return {};
}

} // namespace

// ---- PipelineLayout ----

Result<PipelineLayout> PipelineLayout::create(Device& device, const PipelineLayoutDesc& desc, const char* name) {
    PipelineLayout out;
    out.device_ = &device;
    out.desc_ = desc;
    out.push_ = desc.pushDescriptors && device.limits().pushDescriptors && !desc.bindings.empty() &&
                desc.bindings.size() <= device.limits().maxPushDescriptors;
    std::vector<VkDescriptorSetLayoutBinding> bindings;
    for (uint32_t i = 0; i < desc.bindings.size(); ++i)
        bindings.push_back({i, desc.bindings[i], 1, desc.stages, nullptr});
    VkDescriptorSetLayoutCreateInfo sci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    sci.bindingCount = static_cast<uint32_t>(bindings.size());
    sci.pBindings = bindings.data();
    if (out.push_) sci.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
    PYRAMARCH_VK_TRY(device.vk().vkCreateDescriptorSetLayout(device.device(), &sci, nullptr, &out.setLayout_),
                     std::string("vkCreateDescriptorSetLayout ") + (name ? name : ""));
    VkPushConstantRange range{desc.stages, 0, desc.pushConstantBytes};
    VkPipelineLayoutCreateInfo lci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    lci.setLayoutCount = 1;
    lci.pSetLayouts = &out.setLayout_;
    lci.pushConstantRangeCount = desc.pushConstantBytes ? 1 : 0;
    lci.pPushConstantRanges = &range;
    PYRAMARCH_VK_TRY(device.vk().vkCreatePipelineLayout(device.device(), &lci, nullptr, &out.layout_),
                     std::string("vkCreatePipelineLayout ") + (name ? name : ""));
    return out;
}

PipelineLayout::~PipelineLayout() { destroy(); }
PipelineLayout::PipelineLayout(PipelineLayout&& o) noexcept { *this = std::move(o); }
PipelineLayout& PipelineLayout::operator=(PipelineLayout&& o) noexcept {
    if (this != &o) {
        destroy();
        device_ = o.device_;
        layout_ = o.layout_;
        setLayout_ = o.setLayout_;
        push_ = o.push_;
        desc_ = std::move(o.desc_);
        o.layout_ = VK_NULL_HANDLE;
        o.setLayout_ = VK_NULL_HANDLE;
    }
    return *this;
}
void PipelineLayout::destroy() {
    if (!device_) return;
    if (layout_) device_->vk().vkDestroyPipelineLayout(device_->device(), layout_, nullptr);
    if (setLayout_) device_->vk().vkDestroyDescriptorSetLayout(device_->device(), setLayout_, nullptr);
    layout_ = VK_NULL_HANDLE;
    setLayout_ = VK_NULL_HANDLE;
}

// ---- ComputePipeline ----

Result<ComputePipeline> ComputePipeline::create(Device& device, const ComputePipelineDesc& desc) {
    ComputePipeline out;
    out.device_ = &device;
    PipelineLayoutDesc layoutDesc = desc.layout;
    layoutDesc.stages = VK_SHADER_STAGE_COMPUTE_BIT;
    if (layoutDesc.bindingsFromSpirv) {
        PYRAMARCH_TRY_ASSIGN(auto types, reflectSet0Bindings(desc.spirv, desc.name));
        PYRAMARCH_TRY(mergeReflected(layoutDesc.bindings, types, desc.name));
        PYRAMARCH_TRY(requireComplete(layoutDesc.bindings, desc.name));
    }
    PYRAMARCH_TRY_ASSIGN(out.layout_, PipelineLayout::create(device, layoutDesc, desc.name));
    auto module = createModule(device, desc.spirv, desc.name);
    if (!module) return module.status();
    Specialization spec(desc.specialization);
    VkPipelineShaderStageRequiredSubgroupSizeCreateInfo subgroup{
        VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO};
    subgroup.requiredSubgroupSize = desc.requiredSubgroupSize;
    VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    ci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    ci.stage.pNext = desc.requiredSubgroupSize ? &subgroup : nullptr;
    ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    ci.stage.module = module.value();
    ci.stage.pName = "main";
    ci.stage.pSpecializationInfo = spec.get();
    ci.layout = out.layout_.layout();
    VkResult r = device.vk().vkCreateComputePipelines(device.device(), VK_NULL_HANDLE, 1, &ci, nullptr, &out.pipeline_);
    device.vk().vkDestroyShaderModule(device.device(), module.value(), nullptr);
    if (r != VK_SUCCESS) return vkStatus(r, std::string("vkCreateComputePipelines ") + (desc.name ? desc.name : ""));
    device.setObjectName(VK_OBJECT_TYPE_PIPELINE, reinterpret_cast<uint64_t>(out.pipeline_), desc.name);
    return out;
}

// ---- Pipeline (shared ownership) ----

Pipeline::~Pipeline() { destroy(); }
Pipeline::Pipeline(Pipeline&& o) noexcept { *this = std::move(o); }
Pipeline& Pipeline::operator=(Pipeline&& o) noexcept {
    if (this != &o) {
        destroy();
        device_ = o.device_;
        layout_ = std::move(o.layout_);
        pipeline_ = o.pipeline_;
        o.pipeline_ = VK_NULL_HANDLE;
    }
    return *this;
}
void Pipeline::destroy() {
    if (device_ && pipeline_) device_->vk().vkDestroyPipeline(device_->device(), pipeline_, nullptr);
    pipeline_ = VK_NULL_HANDLE;
}

// ---- GraphicsPipeline ----

Result<GraphicsPipeline> GraphicsPipeline::create(Device& device, const GraphicsPipelineDesc& desc) {
    if (desc.conservativeOverestimate && !device.limits().conservativeRasterization)
        return Status::error(
            ErrorCode::Unsupported,
            std::string("pipeline '") + (desc.name ? desc.name : "") +
                "' wants conservative rasterization but the device lacks VK_EXT_conservative_rasterization");
    if (!desc.geometrySpirv.empty() && !device.limits().geometryShader)
        return Status::error(ErrorCode::Unsupported, std::string("pipeline '") + (desc.name ? desc.name : "") +
                                                         "' needs geometry shaders, which the device lacks");
    if (desc.polygonMode != VK_POLYGON_MODE_FILL && !device.limits().fillModeNonSolid)
        return Status::error(ErrorCode::Unsupported,
                             std::string("pipeline '") + (desc.name ? desc.name : "") +
                                 "' needs fillModeNonSolid (wireframe), which the device lacks");
    if (!desc.renderPass && !device.limits().dynamicRendering)
        return Status::error(ErrorCode::Unsupported,
                             std::string("pipeline '") + (desc.name ? desc.name : "") +
                                 "' is built for dynamic rendering, which the device was not created with "
                                 "(AdoptInfo::dynamicRenderingEnabled): enable dynamicRendering or build it for the "
                                 "host's VkRenderPass (renderPass, subpass)");
    GraphicsPipeline out;
    out.device_ = &device;
    PipelineLayoutDesc layoutDesc = desc.layout;
    if (layoutDesc.stages == VK_SHADER_STAGE_COMPUTE_BIT) {
        layoutDesc.stages = VK_SHADER_STAGE_VERTEX_BIT;
        if (!desc.geometrySpirv.empty()) layoutDesc.stages |= VK_SHADER_STAGE_GEOMETRY_BIT;
        if (!desc.fragmentSpirv.empty()) layoutDesc.stages |= VK_SHADER_STAGE_FRAGMENT_BIT;
    }
    if (layoutDesc.bindingsFromSpirv) {
        // The union of the stages' bindings; a binding two stages declare must agree.
        std::vector<VkDescriptorType> reflected;
        for (std::span<const uint32_t> stage : {desc.vertexSpirv, desc.geometrySpirv, desc.fragmentSpirv}) {
            if (stage.empty()) continue;
            PYRAMARCH_TRY_ASSIGN(auto types, reflectSet0Bindings(stage, desc.name));
            PYRAMARCH_TRY(mergeReflected(reflected, types, desc.name, false));
        }
        PYRAMARCH_TRY(mergeReflected(layoutDesc.bindings, reflected, desc.name, true));
        PYRAMARCH_TRY(requireComplete(layoutDesc.bindings, desc.name));
    }
    PYRAMARCH_TRY_ASSIGN(out.layout_, PipelineLayout::create(device, layoutDesc, desc.name));

    Specialization spec(desc.specialization);
    std::vector<VkShaderModule> modules;
    std::vector<VkPipelineShaderStageCreateInfo> stages;
    auto cleanupModules = [&] {
        for (VkShaderModule m : modules) device.vk().vkDestroyShaderModule(device.device(), m, nullptr);
    };
    auto addStage = [&](std::span<const uint32_t> code, VkShaderStageFlagBits stage) -> Status {
        if (code.empty()) return {};
        auto m = createModule(device, code, desc.name);
        if (!m) return m.status();
        modules.push_back(m.value());
        VkPipelineShaderStageCreateInfo s{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
        s.stage = stage;
        s.module = m.value();
        s.pName = "main";
        s.pSpecializationInfo = spec.get();
        stages.push_back(s);
        return {};
    };
    Status st = addStage(desc.vertexSpirv, VK_SHADER_STAGE_VERTEX_BIT);
    if (st) st = addStage(desc.geometrySpirv, VK_SHADER_STAGE_GEOMETRY_BIT);
    if (st) st = addStage(desc.fragmentSpirv, VK_SHADER_STAGE_FRAGMENT_BIT);
    if (!st) {
        cleanupModules();
        return st;
    }

    VkVertexInputBindingDescription binding{0, desc.vertexStride, VK_VERTEX_INPUT_RATE_VERTEX};
    std::vector<VkVertexInputAttributeDescription> attributes;
    for (const VertexAttribute& a : desc.attributes) attributes.push_back({a.location, 0, a.format, a.offset});
    VkPipelineVertexInputStateCreateInfo vi{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    if (desc.vertexStride) {
        vi.vertexBindingDescriptionCount = 1;
        vi.pVertexBindingDescriptions = &binding;
        vi.vertexAttributeDescriptionCount = static_cast<uint32_t>(attributes.size());
        vi.pVertexAttributeDescriptions = attributes.data();
    }
    VkPipelineInputAssemblyStateCreateInfo ia{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
    ia.topology = desc.topology;
    VkPipelineViewportStateCreateInfo vp{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
    vp.viewportCount = 1;
    vp.scissorCount = 1;
    VkPipelineRasterizationConservativeStateCreateInfoEXT conservative{
        VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_CONSERVATIVE_STATE_CREATE_INFO_EXT};
    conservative.conservativeRasterizationMode = VK_CONSERVATIVE_RASTERIZATION_MODE_OVERESTIMATE_EXT;
    VkPipelineRasterizationStateCreateInfo rs{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
    rs.pNext = desc.conservativeOverestimate ? &conservative : nullptr;
    rs.polygonMode = desc.polygonMode;
    rs.cullMode = desc.cullMode;
    rs.frontFace = desc.frontFace;
    rs.lineWidth = 1.0f;
    rs.rasterizerDiscardEnable = VK_FALSE;
    VkPipelineMultisampleStateCreateInfo ms{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
    ms.rasterizationSamples = desc.samples;
    VkPipelineDepthStencilStateCreateInfo ds{VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
    ds.depthTestEnable = desc.depthTest;
    ds.depthWriteEnable = desc.depthWrite;
    ds.depthCompareOp = desc.depthCompare;
    std::vector<VkPipelineColorBlendAttachmentState> blends(desc.colorFormats.size());
    for (auto& b : blends) {
        b.colorWriteMask = desc.rasterizerDiscard ? 0 : 0xF;
        if (desc.alphaBlend) {
            b.blendEnable = VK_TRUE;
            b.srcColorBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA;
            b.dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
            b.colorBlendOp = VK_BLEND_OP_ADD;
            b.srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE;
            b.dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
            b.alphaBlendOp = VK_BLEND_OP_ADD;
        }
    }
    VkPipelineColorBlendStateCreateInfo cb{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
    cb.attachmentCount = static_cast<uint32_t>(blends.size());
    cb.pAttachments = blends.data();
    VkDynamicState dynamics[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
    VkPipelineDynamicStateCreateInfo dyn{VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
    dyn.dynamicStateCount = 2;
    dyn.pDynamicStates = dynamics;
    VkPipelineRenderingCreateInfo rendering{VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO};
    rendering.colorAttachmentCount = static_cast<uint32_t>(desc.colorFormats.size());
    rendering.pColorAttachmentFormats = desc.colorFormats.data();
    rendering.depthAttachmentFormat = desc.depthFormat;

    VkGraphicsPipelineCreateInfo ci{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
    ci.pNext = desc.renderPass ? nullptr : &rendering;
    ci.renderPass = desc.renderPass;
    ci.subpass = desc.subpass;
    ci.stageCount = static_cast<uint32_t>(stages.size());
    ci.pStages = stages.data();
    ci.pVertexInputState = &vi;
    ci.pInputAssemblyState = &ia;
    ci.pViewportState = &vp;
    ci.pRasterizationState = &rs;
    ci.pMultisampleState = &ms;
    ci.pDepthStencilState = &ds;
    ci.pColorBlendState = &cb;
    ci.pDynamicState = &dyn;
    ci.layout = out.layout_.layout();
    VkResult r =
        device.vk().vkCreateGraphicsPipelines(device.device(), VK_NULL_HANDLE, 1, &ci, nullptr, &out.pipeline_);
    cleanupModules();
    if (r != VK_SUCCESS) return vkStatus(r, std::string("vkCreateGraphicsPipelines ") + (desc.name ? desc.name : ""));
    device.setObjectName(VK_OBJECT_TYPE_PIPELINE, reinterpret_cast<uint64_t>(out.pipeline_), desc.name);
    return out;
}

// ---- DescriptorPool ----

Result<DescriptorPool> DescriptorPool::create(Device& device, uint32_t maxSets, uint32_t maxDescriptorsPerType,
                                              const char* name) {
    DescriptorPool out;
    out.device_ = &device;
    VkDescriptorPoolSize sizes[] = {
        {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, maxDescriptorsPerType},
        {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, maxDescriptorsPerType},
        {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, maxDescriptorsPerType},
        {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, maxDescriptorsPerType},
        {VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, maxDescriptorsPerType},
    };
    VkDescriptorPoolCreateInfo ci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    ci.maxSets = maxSets;
    ci.poolSizeCount = static_cast<uint32_t>(std::size(sizes));
    ci.pPoolSizes = sizes;
    PYRAMARCH_VK_TRY(device.vk().vkCreateDescriptorPool(device.device(), &ci, nullptr, &out.pool_),
                     std::string("vkCreateDescriptorPool ") + (name ? name : ""));
    return out;
}

Result<VkDescriptorSet> DescriptorPool::allocate(const PipelineLayout& layout,
                                                 std::span<const DescriptorBinding> bindings) {
    const auto& types = layout.desc().bindings;
    if (layout.usesPushDescriptors())
        return Status::error(
            ErrorCode::InvalidArgument,
            "descriptor set requested for a push-descriptor layout (declare the bindings on a render-graph "
            "pass, or create the layout with PipelineLayoutDesc::pushDescriptors = false)");
    if (bindings.size() != types.size())
        return Status::error(ErrorCode::InvalidArgument, "descriptor set needs " + std::to_string(types.size()) +
                                                             " bindings, got " + std::to_string(bindings.size()));
    VkDescriptorSetLayout setLayout = layout.setLayout();
    VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    ai.descriptorPool = pool_;
    ai.descriptorSetCount = 1;
    ai.pSetLayouts = &setLayout;
    VkDescriptorSet set = VK_NULL_HANDLE;
    PYRAMARCH_VK_TRY(device_->vk().vkAllocateDescriptorSets(device_->device(), &ai, &set), "vkAllocateDescriptorSets");
    std::vector<VkDescriptorBufferInfo> bufferInfos(bindings.size());
    std::vector<VkDescriptorImageInfo> imageInfos(bindings.size());
    std::vector<VkWriteDescriptorSet> writes;
    for (uint32_t i = 0; i < bindings.size(); ++i) {
        VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        w.dstSet = set;
        w.dstBinding = i;
        w.descriptorCount = 1;
        w.descriptorType = types[i];
        if (types[i] == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER || types[i] == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER) {
            PYRAMARCH_ASSERT(bindings[i].buffer != VK_NULL_HANDLE, "descriptor binding without a buffer");
            bufferInfos[i] = {bindings[i].buffer, bindings[i].offset, bindings[i].range};
            w.pBufferInfo = &bufferInfos[i];
        } else {
            imageInfos[i] = {bindings[i].sampler, bindings[i].imageView, bindings[i].imageLayout};
            w.pImageInfo = &imageInfos[i];
        }
        writes.push_back(w);
    }
    device_->vk().vkUpdateDescriptorSets(device_->device(), static_cast<uint32_t>(writes.size()), writes.data(), 0,
                                         nullptr);
    return set;
}

DescriptorPool::~DescriptorPool() { destroy(); }
DescriptorPool::DescriptorPool(DescriptorPool&& o) noexcept { *this = std::move(o); }
DescriptorPool& DescriptorPool::operator=(DescriptorPool&& o) noexcept {
    if (this != &o) {
        destroy();
        device_ = o.device_;
        pool_ = o.pool_;
        o.pool_ = VK_NULL_HANDLE;
    }
    return *this;
}
void DescriptorPool::destroy() {
    if (device_ && pool_) device_->vk().vkDestroyDescriptorPool(device_->device(), pool_, nullptr);
    pool_ = VK_NULL_HANDLE;
}

} // namespace pyramarch
