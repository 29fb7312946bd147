// The pure half of the render graph: the intent table, pass ordering, hazard
// analysis and barrier derivation, and the text/DOT descriptions. No Vulkan
// calls here, so all of it is testable without a device.
#include <algorithm>
#include <map>
#include <queue>
#include <set>
#include <sstream>

#include "pyramarch/engine/device.h"
#include "render_graph_impl.h"

namespace pyramarch {

namespace {

constexpr VkAccessFlags2 kWriteAccess =
    VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT | VK_ACCESS_2_SHADER_WRITE_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT |
    VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT | VK_ACCESS_2_HOST_WRITE_BIT |
    VK_ACCESS_2_MEMORY_WRITE_BIT;

VkPipelineStageFlags2 shaderStages(PassKind kind) {
    switch (kind) {
    case PassKind::Compute: return VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
    case PassKind::Graphics: return VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT;
    case PassKind::Transfer: return VK_PIPELINE_STAGE_2_NONE;
    }
    return VK_PIPELINE_STAGE_2_NONE;
}

bool isShaderAccess(Access a) {
    return a == Access::StorageRead || a == Access::StorageWrite || a == Access::StorageReadWrite ||
           a == Access::UniformRead || a == Access::SampledRead;
}

bool allowedIn(Access a, PassKind kind) {
    switch (kind) {
    case PassKind::Compute:
        return isShaderAccess(a) || a == Access::IndirectRead || a == Access::TransferSrc || a == Access::TransferDst;
    case PassKind::Graphics:
        return a != Access::HostRead && a != Access::HostWrite && a != Access::Present && a != Access::None;
    case PassKind::Transfer: return a == Access::TransferSrc || a == Access::TransferDst;
    }
    return false;
}

// Tracks, per resource, what the barriers so far have made safe.
struct HazardState {
    VkPipelineStageFlags2 writeStages = 0;
    VkAccessFlags2 writeAccess = 0;
    VkPipelineStageFlags2 readStages = 0;    // reads since the last write
    VkPipelineStageFlags2 visibleStages = 0; // stages the last write is visible to
    VkAccessFlags2 visibleAccess = 0;
    VkImageLayout layout = VK_IMAGE_LAYOUT_UNDEFINED;
    bool initialFromPrevious = false; // state still comes from the previous frame
    bool initialFromImport = false;   // state still comes from the import's `before`
};

HazardState stateAfter(const AccessInfo& ai, bool isImage) {
    HazardState s;
    if (ai.writes) {
        s.writeStages = ai.stages;
        s.writeAccess = ai.access & kWriteAccess;
    } else {
        s.readStages = ai.stages;
    }
    s.layout = isImage ? ai.layout : VK_IMAGE_LAYOUT_UNDEFINED;
    return s;
}

// Applies one access; returns the barrier it needs, if any.
std::optional<GraphBarrier> applyAccess(HazardState& s, const AccessInfo& ai, bool isImage, uint32_t resource) {
    GraphBarrier b;
    b.isImage = isImage;
    b.resource = resource;
    b.dstStages = ai.stages;
    b.dstAccess = ai.access;
    b.fromPreviousFrame = s.initialFromPrevious;
    b.fromImport = s.initialFromImport;
    const bool layoutChange = isImage && ai.layout != VK_IMAGE_LAYOUT_UNDEFINED && ai.layout != s.layout;
    std::optional<GraphBarrier> out;
    if (layoutChange || ai.writes) {
        b.srcStages = s.writeStages | s.readStages;
        // Reads since the write mean a barrier already made it available.
        b.srcAccess = s.readStages ? VK_ACCESS_2_NONE : s.writeAccess;
        if (layoutChange || b.srcStages) {
            b.oldLayout = s.layout;
            b.newLayout = isImage ? ai.layout : VK_IMAGE_LAYOUT_UNDEFINED;
            b.reason = layoutChange ? "layout" : s.readStages ? "WAR" : "WAW";
            out = b;
        }
        if (ai.writes) {
            // Visible to nobody yet: even the next dispatch of the same stage needs a barrier.
            s = stateAfter(ai, isImage);
        } else {
            // A transition is a write that is visible to this read only.
            s.writeStages = ai.stages;
            s.writeAccess = 0;
            s.readStages = ai.stages;
            s.visibleStages = ai.stages;
            s.visibleAccess = ai.access;
            s.layout = ai.layout;
        }
    } else {
        const bool visible = (ai.stages & ~s.visibleStages) == 0 && (ai.access & ~s.visibleAccess) == 0;
        if (s.writeStages && !visible) {
            b.srcStages = s.writeStages;
            b.srcAccess = s.writeAccess;
            b.oldLayout = b.newLayout = isImage ? s.layout : VK_IMAGE_LAYOUT_UNDEFINED;
            b.reason = "RAW";
            out = b;
            s.visibleStages |= ai.stages;
            s.visibleAccess |= ai.access;
        }
        s.readStages |= ai.stages;
    }
    s.initialFromPrevious = false;
    s.initialFromImport = false;
    return out;
}

// One merged use of a resource by a pass.
struct MergedUse {
    bool isImage;
    uint32_t resource;
    AccessInfo info;
};

std::string joinNames(const std::vector<std::string>& names) {
    std::string out;
    for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + ("'" + names[i] + "'");
    return out;
}

} // namespace

AccessInfo accessInfo(Access access, PassKind kind, VkPipelineStageFlags2 stageOverride) {
    const VkPipelineStageFlags2 shader = stageOverride ? stageOverride : shaderStages(kind);
    AccessInfo i;
    switch (access) {
    case Access::None: break;
    case Access::StorageRead:
        i = {shader, VK_ACCESS_2_SHADER_STORAGE_READ_BIT, VK_IMAGE_LAYOUT_GENERAL, false, true};
        break;
    case Access::StorageWrite:
        i = {shader, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_IMAGE_LAYOUT_GENERAL, true, false};
        break;
    case Access::StorageReadWrite:
        i = {shader, VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
             VK_IMAGE_LAYOUT_GENERAL, true, true};
        break;
    case Access::UniformRead: i = {shader, VK_ACCESS_2_UNIFORM_READ_BIT, VK_IMAGE_LAYOUT_UNDEFINED, false, true}; break;
    case Access::SampledRead:
        i = {shader, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, false, true};
        break;
    case Access::IndirectRead:
        i = {VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT, VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
             false, true};
        break;
    case Access::VertexRead:
        i = {VK_PIPELINE_STAGE_2_VERTEX_ATTRIBUTE_INPUT_BIT, VK_ACCESS_2_VERTEX_ATTRIBUTE_READ_BIT,
             VK_IMAGE_LAYOUT_UNDEFINED, false, true};
        break;
    case Access::IndexRead:
        i = {VK_PIPELINE_STAGE_2_INDEX_INPUT_BIT, VK_ACCESS_2_INDEX_READ_BIT, VK_IMAGE_LAYOUT_UNDEFINED, false, true};
        break;
    case Access::ColorAttachment:
        i = {VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
             VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
             VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, true, true};
        break;
    case Access::DepthAttachment:
        i = {VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
             VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
             VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL, true, true};
        break;
    case Access::DepthRead:
        i = {VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
             VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT, VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL, false,
             true};
        break;
    case Access::TransferSrc:
        i = {VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_READ_BIT, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
             false, true};
        break;
    case Access::TransferDst:
        i = {VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
             true, false};
        break;
    case Access::HostRead:
        i = {VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT, VK_IMAGE_LAYOUT_GENERAL, false, true};
        break;
    case Access::HostWrite:
        i = {VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_WRITE_BIT, VK_IMAGE_LAYOUT_GENERAL, true, false};
        break;
    case Access::Present:
        i = {VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, false, true};
        break;
    }
    return i;
}

const char* accessName(Access a) {
    switch (a) {
    case Access::None: return "none";
    case Access::StorageRead: return "storage-read";
    case Access::StorageWrite: return "storage-write";
    case Access::StorageReadWrite: return "storage-read-write";
    case Access::UniformRead: return "uniform-read";
    case Access::SampledRead: return "sampled-read";
    case Access::IndirectRead: return "indirect-read";
    case Access::VertexRead: return "vertex-read";
    case Access::IndexRead: return "index-read";
    case Access::ColorAttachment: return "color-attachment";
    case Access::DepthAttachment: return "depth-attachment";
    case Access::DepthRead: return "depth-read";
    case Access::TransferSrc: return "transfer-src";
    case Access::TransferDst: return "transfer-dst";
    case Access::HostRead: return "host-read";
    case Access::HostWrite: return "host-write";
    case Access::Present: return "present";
    }
    return "?";
}

const char* passKindName(PassKind k) {
    switch (k) {
    case PassKind::Compute: return "compute";
    case PassKind::Graphics: return "graphics";
    case PassKind::Transfer: return "transfer";
    }
    return "?";
}

std::string stageNames(VkPipelineStageFlags2 stages) {
    static const std::pair<VkPipelineStageFlags2, const char*> names[] = {
        {VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT, "DRAW_INDIRECT"},
        {VK_PIPELINE_STAGE_2_INDEX_INPUT_BIT, "INDEX_INPUT"},
        {VK_PIPELINE_STAGE_2_VERTEX_ATTRIBUTE_INPUT_BIT, "VERTEX_ATTRIBUTE_INPUT"},
        {VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT, "VERTEX_SHADER"},
        {VK_PIPELINE_STAGE_2_GEOMETRY_SHADER_BIT, "GEOMETRY_SHADER"},
        {VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, "FRAGMENT_SHADER"},
        {VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT, "EARLY_FRAGMENT_TESTS"},
        {VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT, "LATE_FRAGMENT_TESTS"},
        {VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT, "COLOR_ATTACHMENT_OUTPUT"},
        {VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, "COMPUTE_SHADER"},
        {VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, "ALL_TRANSFER"},
        {VK_PIPELINE_STAGE_2_HOST_BIT, "HOST"},
        {VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, "ALL_COMMANDS"},
    };
    std::string out;
    for (auto& [bit, name] : names)
        if ((stages & bit) == bit) out += (out.empty() ? "" : "|") + std::string(name);
    return out.empty() ? "NONE" : out;
}

std::string accessNames(VkAccessFlags2 access) {
    static const std::pair<VkAccessFlags2, const char*> names[] = {
        {VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT, "INDIRECT_COMMAND_READ"},
        {VK_ACCESS_2_INDEX_READ_BIT, "INDEX_READ"},
        {VK_ACCESS_2_VERTEX_ATTRIBUTE_READ_BIT, "VERTEX_ATTRIBUTE_READ"},
        {VK_ACCESS_2_UNIFORM_READ_BIT, "UNIFORM_READ"},
        {VK_ACCESS_2_SHADER_SAMPLED_READ_BIT, "SHADER_SAMPLED_READ"},
        {VK_ACCESS_2_SHADER_STORAGE_READ_BIT, "SHADER_STORAGE_READ"},
        {VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, "SHADER_STORAGE_WRITE"},
        {VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT, "COLOR_ATTACHMENT_READ"},
        {VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, "COLOR_ATTACHMENT_WRITE"},
        {VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT, "DEPTH_STENCIL_ATTACHMENT_READ"},
        {VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT, "DEPTH_STENCIL_ATTACHMENT_WRITE"},
        {VK_ACCESS_2_TRANSFER_READ_BIT, "TRANSFER_READ"},
        {VK_ACCESS_2_TRANSFER_WRITE_BIT, "TRANSFER_WRITE"},
        {VK_ACCESS_2_HOST_READ_BIT, "HOST_READ"},
        {VK_ACCESS_2_HOST_WRITE_BIT, "HOST_WRITE"},
    };
    std::string out;
    for (auto& [bit, name] : names)
        if (access & bit) out += (out.empty() ? "" : "|") + std::string(name);
    return out.empty() ? "NONE" : out;
}

const char* layoutName(VkImageLayout layout) {
    switch (layout) {
    case VK_IMAGE_LAYOUT_UNDEFINED: return "UNDEFINED";
    case VK_IMAGE_LAYOUT_GENERAL: return "GENERAL";
    case VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL: return "COLOR_ATTACHMENT_OPTIMAL";
    case VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL: return "DEPTH_STENCIL_ATTACHMENT_OPTIMAL";
    case VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL: return "DEPTH_STENCIL_READ_ONLY_OPTIMAL";
    case VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL: return "SHADER_READ_ONLY_OPTIMAL";
    case VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL: return "TRANSFER_SRC_OPTIMAL";
    case VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL: return "TRANSFER_DST_OPTIMAL";
    case VK_IMAGE_LAYOUT_PRESENT_SRC_KHR: return "PRESENT_SRC";
    case VK_IMAGE_LAYOUT_MAX_ENUM: return "HOST_LAYOUT";
    default: return "OTHER";
    }
}

uint32_t texelBytes(VkFormat format) {
    switch (format) {
    case VK_FORMAT_R8_UINT:
    case VK_FORMAT_R8_SINT:
    case VK_FORMAT_R8_UNORM: return 1;
    case VK_FORMAT_R16_UINT:
    case VK_FORMAT_R16_SINT:
    case VK_FORMAT_R16_SFLOAT:
    case VK_FORMAT_R8G8_UINT: return 2;
    case VK_FORMAT_R32_UINT:
    case VK_FORMAT_R32_SINT:
    case VK_FORMAT_R32_SFLOAT:
    case VK_FORMAT_R16G16_UINT:
    case VK_FORMAT_R16G16_SFLOAT:
    case VK_FORMAT_R8G8B8A8_UINT:
    case VK_FORMAT_R8G8B8A8_UNORM: return 4;
    case VK_FORMAT_R32G32_UINT:
    case VK_FORMAT_R32G32_SINT:
    case VK_FORMAT_R32G32_SFLOAT:
    case VK_FORMAT_R16G16B16A16_UINT:
    case VK_FORMAT_R16G16B16A16_SFLOAT: return 8;
    case VK_FORMAT_R32G32B32A32_UINT:
    case VK_FORMAT_R32G32B32A32_SINT:
    case VK_FORMAT_R32G32B32A32_SFLOAT: return 16;
    default: return 0;
    }
}

Status checkBindingRanges(const RenderGraph::Impl& g, const DeviceLimits* limits) {
    for (const GraphPass& pass : g.passes)
        for (const PassBinding& b : pass.bindings) {
            if (b.texel()) continue; // views: offset 0, the range clipped to whole texels
            const GraphResource& r = g.buffers[b.buffer];
            const bool storage = b.type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            auto fail = [&](ErrorCode code, const std::string& why) {
                return Status::error(code, "render graph: pass '" + pass.name + "' binds buffer '" + r.name +
                                               "' at binding " + std::to_string(b.binding) + " from offset " +
                                               std::to_string(b.offset) + ": " + why);
            };
            const VkDeviceSize size = r.size;
            if (b.offset >= size)
                return fail(ErrorCode::InvalidArgument,
                            "the offset is past the buffer's end (" + std::to_string(size) + " bytes)");
            if (b.range == 0) return fail(ErrorCode::InvalidArgument, "a range of 0 bytes (VK_WHOLE_SIZE: to the end)");
            if (b.range != VK_WHOLE_SIZE && b.range > size - b.offset)
                return fail(ErrorCode::InvalidArgument, "range " + std::to_string(b.range) +
                                                            " ends past the buffer's " + std::to_string(size) +
                                                            " bytes");
            if (!limits) continue;
            const uint64_t align = std::max<uint64_t>(
                storage ? limits->minStorageBufferOffsetAlignment : limits->minUniformBufferOffsetAlignment, 1);
            const char* alignName = storage ? "minStorageBufferOffsetAlignment" : "minUniformBufferOffsetAlignment";
            if (b.offset % align)
                return fail(ErrorCode::DeviceLimit,
                            std::string("not a multiple of ") + alignName + " (" + std::to_string(align) + ")");
            const uint64_t most = storage ? limits->maxStorageBufferRange : limits->maxUniformBufferRange;
            const VkDeviceSize range = b.range == VK_WHOLE_SIZE ? size - b.offset : b.range;
            // A limit of 0 is an unset test struct: no check.
            if (most && range > most)
                return fail(ErrorCode::DeviceLimit,
                            std::to_string(range) + " bytes" + (b.range == VK_WHOLE_SIZE ? " (to the end)" : "") +
                                ", over " + (storage ? "maxStorageBufferRange" : "maxUniformBufferRange") + " (" +
                                std::to_string(most) + "); bind it in slices of at most that many bytes");
        }
    return {};
}

Status compileGraph(const RenderGraph::Impl& g, Schedule& out) {
    out = Schedule{};
    if (!g.declarationErrors.empty()) {
        std::string msg = "render graph: ";
        for (size_t i = 0; i < g.declarationErrors.size(); ++i) msg += (i ? "; " : "") + g.declarationErrors[i];
        return Status::error(ErrorCode::InvalidArgument, msg);
    }
    const uint32_t passCount = static_cast<uint32_t>(g.passes.size());
    auto resName = [&](bool isImage, uint32_t r) {
        return std::string(isImage ? "image '" : "buffer '") + g.resource(isImage, r).name + "'";
    };

    // 0. Declared bindings against the declared pipeline layout.
    auto typeName = [](VkDescriptorType t) {
        return t == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER         ? "a storage buffer"
               : t == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER       ? "a uniform buffer"
               : t == VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER ? "a uniform texel buffer"
               : t == VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER ? "a storage texel buffer"
                                                              : "a non-buffer descriptor";
    };
    for (const GraphPass& pass : g.passes) {
        if (pass.hasLayout && pass.kind == PassKind::Transfer)
            return Status::error(ErrorCode::InvalidArgument,
                                 "render graph: pass '" + pass.name + "' is a transfer pass but declares a pipeline");
        for (size_t i = 0; i < pass.bindings.size(); ++i) {
            const PassBinding& b = pass.bindings[i];
            const std::string what = "pass '" + pass.name + "' binds " + resName(false, b.buffer) + " at binding " +
                                     std::to_string(b.binding);
            if (!pass.hasLayout)
                return Status::error(ErrorCode::InvalidArgument,
                                     "render graph: " + what + " but declares no pipeline (PassBuilder::pipeline)");
            for (size_t j = 0; j < i; ++j)
                if (pass.bindings[j].binding == b.binding)
                    return Status::error(ErrorCode::InvalidArgument, "render graph: pass '" + pass.name +
                                                                         "' declares binding " +
                                                                         std::to_string(b.binding) + " twice (" +
                                                                         resName(false, pass.bindings[j].buffer) +
                                                                         " and " + resName(false, b.buffer) + ")");
            if (b.binding >= pass.layoutBindings.size())
                return Status::error(ErrorCode::InvalidArgument,
                                     "render graph: " + what + ", which its pipeline layout lacks (" +
                                         (pass.layoutBindings.empty()
                                              ? std::string("no bindings")
                                              : "bindings 0.." + std::to_string(pass.layoutBindings.size() - 1)) +
                                         ")");
            const bool storageAccess = b.access == Access::StorageRead || b.access == Access::StorageWrite ||
                                       b.access == Access::StorageReadWrite;
            if (b.texel() && texelBytes(b.format) == 0)
                return Status::error(ErrorCode::InvalidArgument,
                                     "render graph: " + what + " as a texel buffer of format " +
                                         std::to_string(int(b.format)) +
                                         " (texel bindings take 8/16/32-bit R, RG or RGBA integer or float formats)");
            if ((b.type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER || b.type == VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER) &&
                !storageAccess)
                return Status::error(ErrorCode::InvalidArgument,
                                     "render graph: " + what + " as " + typeName(b.type) + " with access " +
                                         accessName(b.access) +
                                         " (needs StorageRead, StorageWrite or StorageReadWrite)");
            if (pass.layoutBindings[b.binding] != b.type)
                return Status::error(ErrorCode::InvalidArgument,
                                     "render graph: " + what + " as " + typeName(b.type) + " (" + accessName(b.access) +
                                         "), but its pipeline layout has " + typeName(pass.layoutBindings[b.binding]) +
                                         " there");
        }
    }

    PYRAMARCH_TRY(checkBindingRanges(g, g.device ? &g.device->limits() : nullptr));

    // 1. Merge each pass's uses per resource and check them.
    std::vector<std::vector<MergedUse>> merged(passCount);
    for (uint32_t p = 0; p < passCount; ++p) {
        const GraphPass& pass = g.passes[p];
        for (const PassUse& u : pass.uses) {
            const GraphResource& r = g.resource(u.isImage, u.resource);
            if (!allowedIn(u.access, pass.kind))
                return Status::error(ErrorCode::InvalidArgument, "render graph: pass '" + pass.name + "' (" +
                                                                     passKindName(pass.kind) + ") cannot use " +
                                                                     resName(u.isImage, u.resource) + " as " +
                                                                     accessName(u.access));
            // SampledRead of a buffer is a uniform texel buffer read (PassBuilder::texel).
            if (!u.isImage && (u.access == Access::ColorAttachment || u.access == Access::DepthAttachment ||
                               u.access == Access::DepthRead))
                return Status::error(ErrorCode::InvalidArgument, "render graph: pass '" + pass.name + "' uses " +
                                                                     resName(false, u.resource) + " as " +
                                                                     accessName(u.access) + ", which needs an image");
            AccessInfo ai = accessInfo(u.access, pass.kind, u.stageOverride);
            if (ai.writes && r.readOnly)
                return Status::error(ErrorCode::InvalidArgument, "render graph: pass '" + pass.name + "' writes " +
                                                                     resName(u.isImage, u.resource) +
                                                                     ", which was imported read-only");
            auto it = std::find_if(merged[p].begin(), merged[p].end(), [&](const MergedUse& m) {
                return m.isImage == u.isImage && m.resource == u.resource;
            });
            if (it == merged[p].end()) {
                merged[p].push_back({u.isImage, u.resource, ai});
            } else {
                if (u.isImage && ai.layout != it->info.layout)
                    return Status::error(ErrorCode::InvalidArgument,
                                         "render graph: pass '" + pass.name + "' uses " + resName(true, u.resource) +
                                             " in two layouts (" + layoutName(it->info.layout) + ", " +
                                             layoutName(ai.layout) + ")");
                it->info.stages |= ai.stages;
                it->info.access |= ai.access;
                it->info.writes |= ai.writes;
                it->info.reads |= ai.reads;
            }
        }
    }

    // 2. Dependencies. Per resource, in declaration order: readers follow the
    // latest earlier writer; a transient resource read before any writer is
    // fed by the first later writer (so passes may be declared out of order);
    // writers follow earlier readers (WAR) and the previous writer (WAW).
    struct Edge {
        uint32_t from, to;
        bool isImage;
        uint32_t resource;
    };
    std::vector<Edge> edges;
    auto addEdge = [&](uint32_t from, uint32_t to, bool isImage, uint32_t r) {
        if (from != to) edges.push_back({from, to, isImage, r});
    };
    for (int kind = 0; kind < 2; ++kind) {
        const bool isImage = kind == 1;
        const auto& list = isImage ? g.images : g.buffers;
        for (uint32_t r = 0; r < list.size(); ++r) {
            std::optional<uint32_t> lastWriter;
            std::vector<uint32_t> readersSinceWrite;
            for (uint32_t p = 0; p < passCount; ++p) {
                for (const MergedUse& m : merged[p]) {
                    if (m.isImage != isImage || m.resource != r) continue;
                    if (m.info.writes) {
                        for (uint32_t reader : readersSinceWrite) addEdge(reader, p, isImage, r);
                        if (lastWriter) addEdge(*lastWriter, p, isImage, r);
                        lastWriter = p;
                        readersSinceWrite.clear();
                    } else if (lastWriter) {
                        addEdge(*lastWriter, p, isImage, r);
                        readersSinceWrite.push_back(p);
                    } else if (!list[r].imported && list[r].lifetime == Lifetime::Transient) {
                        std::optional<uint32_t> laterWriter;
                        for (uint32_t q = p + 1; q < passCount && !laterWriter; ++q)
                            for (const MergedUse& n : merged[q])
                                if (n.isImage == isImage && n.resource == r && n.info.writes) laterWriter = q;
                        if (!laterWriter)
                            return Status::error(ErrorCode::InvalidArgument,
                                                 "render graph: pass '" + g.passes[p].name + "' reads " +
                                                     resName(isImage, r) +
                                                     ", which no pass writes (transient resources start undefined)");
                        addEdge(*laterWriter, p, isImage, r);
                    } else {
                        readersSinceWrite.push_back(p); // reads what the host or the previous frame left
                    }
                }
            }
        }
    }

    // 3. Order: topological, declaration order among ready passes.
    std::vector<std::vector<uint32_t>> successors(passCount);
    std::vector<uint32_t> indegree(passCount, 0);
    std::set<std::pair<uint32_t, uint32_t>> seen;
    for (const Edge& e : edges)
        if (seen.insert({e.from, e.to}).second) {
            successors[e.from].push_back(e.to);
            ++indegree[e.to];
        }
    std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> ready;
    for (uint32_t p = 0; p < passCount; ++p)
        if (indegree[p] == 0) ready.push(p);
    std::vector<uint32_t> order;
    while (!ready.empty()) {
        uint32_t p = ready.top();
        ready.pop();
        order.push_back(p);
        for (uint32_t s : successors[p])
            if (--indegree[s] == 0) ready.push(s);
    }
    if (order.size() != passCount) {
        std::vector<std::string> passes, resources;
        std::set<std::string> resSet;
        for (uint32_t p = 0; p < passCount; ++p)
            if (indegree[p] > 0) passes.push_back(g.passes[p].name);
        for (const Edge& e : edges)
            if (indegree[e.from] > 0 && indegree[e.to] > 0 &&
                resSet.insert(g.resource(e.isImage, e.resource).name).second)
                resources.push_back(g.resource(e.isImage, e.resource).name);
        return Status::error(ErrorCode::InvalidArgument, "render graph: cycle between passes " + joinNames(passes) +
                                                             " through resources " + joinNames(resources));
    }

    // 4. Barriers. Graph-owned resources wrap around: a frame starts in the
    // state the previous frame left, so walk once to find that state.
    auto initialState = [&](bool isImage, uint32_t r, const HazardState* previousFrame) {
        const GraphResource& res = g.resource(isImage, r);
        HazardState s;
        if (res.imported) {
            AccessInfo before = accessInfo(res.before.access, res.before.kind, res.before.stageOverride);
            s = stateAfter(before, isImage);
            // The host may rebind the image in any layout: always transition on
            // entry; execute() fills in the actual old layout.
            if (isImage) s.layout = VK_IMAGE_LAYOUT_MAX_ENUM;
            s.initialFromImport = true;
        } else if (previousFrame) {
            s = *previousFrame;
            s.initialFromPrevious = true;
            // Transient contents are discarded, but not the hazards.
            if (isImage && res.lifetime == Lifetime::Transient) s.layout = VK_IMAGE_LAYOUT_UNDEFINED;
        }
        return s;
    };
    std::vector<HazardState> bufferState(g.buffers.size()), imageState(g.images.size());
    for (int walk = 0; walk < 2; ++walk) {
        std::vector<HazardState> nextBuffer(g.buffers.size()), nextImage(g.images.size());
        for (uint32_t r = 0; r < g.buffers.size(); ++r)
            nextBuffer[r] = initialState(false, r, walk ? &bufferState[r] : nullptr);
        for (uint32_t r = 0; r < g.images.size(); ++r)
            nextImage[r] = initialState(true, r, walk ? &imageState[r] : nullptr);
        out.passes.clear();
        for (uint32_t p : order) {
            ScheduledPass sp;
            sp.pass = p;
            for (const MergedUse& m : merged[p]) {
                HazardState& s = m.isImage ? nextImage[m.resource] : nextBuffer[m.resource];
                if (auto b = applyAccess(s, m.info, m.isImage, m.resource)) {
                    if (b->fromImport && !b->reason[0]) b->reason = "entry";
                    sp.barriers.push_back(*b);
                }
            }
            out.passes.push_back(std::move(sp));
        }
        bufferState = std::move(nextBuffer);
        imageState = std::move(nextImage);
    }
    // Exit: imported resources end in the use the host asked for.
    for (int kind = 0; kind < 2; ++kind) {
        const bool isImage = kind == 1;
        const auto& list = isImage ? g.images : g.buffers;
        for (uint32_t r = 0; r < list.size(); ++r) {
            if (!list[r].imported || list[r].after.access == Access::None) continue;
            HazardState& s = isImage ? imageState[r] : bufferState[r];
            AccessInfo after = accessInfo(list[r].after.access, list[r].after.kind, list[r].after.stageOverride);
            if (auto b = applyAccess(s, after, isImage, r)) {
                b->reason = "exit";
                out.exitBarriers.push_back(*b);
            }
        }
    }
    return {};
}

std::string RenderGraph::describe() const {
    std::ostringstream os;
    if (!compiled_) return "render graph (not compiled)\n";
    auto barrierLine = [&](const GraphBarrier& b) {
        os << "    barrier " << b.reason << " " << (b.isImage ? "image '" : "buffer '")
           << resourceName(b.isImage, b.resource) << "': " << stageNames(b.srcStages) << "/" << accessNames(b.srcAccess)
           << " -> " << stageNames(b.dstStages) << "/" << accessNames(b.dstAccess);
        if (b.isImage) os << " [" << layoutName(b.oldLayout) << " -> " << layoutName(b.newLayout) << "]";
        if (b.fromPreviousFrame) os << " (from previous frame)";
        if (b.fromImport) os << " (from import)";
        os << "\n";
    };
    for (size_t i = 0; i < schedule_.passes.size(); ++i) {
        const ScheduledPass& sp = schedule_.passes[i];
        const GraphPass& pass = impl_->passes[sp.pass];
        os << i << ": " << pass.name << " (" << passKindName(pass.kind) << ")\n";
        for (const GraphBarrier& b : sp.barriers) barrierLine(b);
    }
    if (!schedule_.exitBarriers.empty()) os << "exit\n";
    for (const GraphBarrier& b : schedule_.exitBarriers) barrierLine(b);
    return os.str();
}

std::string RenderGraph::toDot() const {
    std::ostringstream os;
    os << "digraph render_graph {\n  rankdir=LR;\n  node [fontname=\"monospace\"];\n";
    for (size_t i = 0; i < schedule_.passes.size(); ++i) {
        const GraphPass& pass = impl_->passes[schedule_.passes[i].pass];
        os << "  p" << schedule_.passes[i].pass << " [shape=box, label=\"" << i << ": " << pass.name << "\\n"
           << passKindName(pass.kind) << "\"];\n";
    }
    auto resId = [](bool isImage, uint32_t r) { return std::string(isImage ? "i" : "b") + std::to_string(r); };
    for (uint32_t r = 0; r < impl_->buffers.size(); ++r)
        os << "  " << resId(false, r) << " [shape=ellipse, label=\"" << impl_->buffers[r].name << "\"];\n";
    for (uint32_t r = 0; r < impl_->images.size(); ++r)
        os << "  " << resId(true, r) << " [shape=octagon, label=\"" << impl_->images[r].name << "\"];\n";
    for (const ScheduledPass& sp : schedule_.passes) {
        const GraphPass& pass = impl_->passes[sp.pass];
        for (const PassUse& u : pass.uses) {
            AccessInfo ai = accessInfo(u.access, pass.kind, u.stageOverride);
            std::string label = accessName(u.access);
            for (const GraphBarrier& b : sp.barriers)
                if (b.isImage == u.isImage && b.resource == u.resource) label += std::string("\\nbarrier ") + b.reason;
            if (ai.writes)
                os << "  p" << sp.pass << " -> " << resId(u.isImage, u.resource) << " [label=\"" << label << "\"];\n";
            else
                os << "  " << resId(u.isImage, u.resource) << " -> p" << sp.pass << " [label=\"" << label << "\"];\n";
        }
    }
    os << "}\n";
    return os.str();
}

} // namespace pyramarch
