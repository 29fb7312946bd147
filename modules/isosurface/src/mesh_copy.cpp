#include "pyramarch/isosurface/mesh_copy.h"

#include <algorithm>
#include <cstring>

#include "pyramarch/engine/transfer.h"
#include "pyramarch/engine/device.h"
#include "pyramarch/engine/vulkan_functions.h"

namespace pyramarch::iso {

Result<std::unique_ptr<MeshCopy>> MeshCopy::create(Device& device, const IsoSurface& surface) {
    std::unique_ptr<MeshCopy> c(new MeshCopy());
    c->device_ = &device;
    c->surface_ = &surface;
    c->indexed_ = surface.indexed();
    auto readback = [&](VkDeviceSize size, const char* name) {
        return device.allocator().createBuffer({size, VK_BUFFER_USAGE_TRANSFER_DST_BIT, MemoryUsage::Readback, name});
    };
    const VkDeviceSize argsBytes = kDrawIndexedArgsOffset + sizeof(VkDrawIndexedIndirectCommand);
    PYRAMARCH_TRY_ASSIGN(c->args_, readback(argsBytes, "mesh-copy.args"));
    PYRAMARCH_TRY_ASSIGN(c->vertices_, readback(surface.vertexBuffer().size(), "mesh-copy.vertices"));
    if (c->indexed_) {
        PYRAMARCH_TRY_ASSIGN(c->indices_, readback(surface.indexBuffer().size(), "mesh-copy.indices"));
    }
    VkEventCreateInfo ei{VK_STRUCTURE_TYPE_EVENT_CREATE_INFO};
    const VkResult r = device.vk().vkCreateEvent(device.device(), &ei, nullptr, &c->event_);
    if (r != VK_SUCCESS) return Status::error(Status::codeOf(r), "MeshCopy: vkCreateEvent", r);
    return c;
}

MeshCopy::~MeshCopy() {
    if (event_) device_->vk().vkDestroyEvent(device_->device(), event_, nullptr);
}

Status MeshCopy::request(VkCommandBuffer cmd) {
    if (pending_)
        return Status::error(ErrorCode::InvalidState,
                             "MeshCopy: request while the previous copy is pending; poll() it first");
    const VolkDeviceTable& vk = device_->vk();
    // The extraction's writes (compute) to the copy; the module's own barrier
    // already made them visible to the draw, this one to the transfer.
    cmdMemoryBarrier(vk, cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                     VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
    const VkBufferCopy args{0, 0, args_.size()};
    vk.vkCmdCopyBuffer(cmd, surface_->drawArgsBuffer().handle(), args_.handle(), 1, &args);
    const VkBufferCopy vertices{0, 0, vertices_.size()};
    vk.vkCmdCopyBuffer(cmd, surface_->vertexBuffer().handle(), vertices_.handle(), 1, &vertices);
    if (indexed_) {
        const VkBufferCopy indices{0, 0, indices_.size()};
        vk.vkCmdCopyBuffer(cmd, surface_->indexBuffer().handle(), indices_.handle(), 1, &indices);
    }
    // The copies before the host reads, and before the next frame's passes
    // write the surface again: they wait on the uses record() leaves the
    // buffers in, which this barrier orders after the copies.
    cmdMemoryBarrier(vk, cmd, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                     VK_PIPELINE_STAGE_2_HOST_BIT | VK_PIPELINE_STAGE_2_VERTEX_ATTRIBUTE_INPUT_BIT |
                         VK_PIPELINE_STAGE_2_INDEX_INPUT_BIT | VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT,
                     VK_ACCESS_2_HOST_READ_BIT);
    VkMemoryBarrier2 signal{VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
    signal.srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT;
    signal.dstStageMask = VK_PIPELINE_STAGE_2_NONE;
    VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dep.memoryBarrierCount = 1;
    dep.pMemoryBarriers = &signal;
    vk.vkCmdSetEvent2(cmd, event_, &dep);
    pending_ = true;
    return {};
}

Result<std::optional<Mesh>> MeshCopy::poll() {
    if (!pending_) return std::optional<Mesh>{};
    const VkResult r = device_->vk().vkGetEventStatus(device_->device(), event_);
    if (r == VK_EVENT_RESET) return std::optional<Mesh>{};
    if (r != VK_EVENT_SET) return Status::error(Status::codeOf(r), "MeshCopy: vkGetEventStatus", r);
    args_.invalidate();
    vertices_.invalidate();
    if (indexed_) indices_.invalidate();
    const auto* argBytes = static_cast<const char*>(args_.mapped());
    const auto* v = static_cast<const IsoVertexData*>(vertices_.mapped());
    const uint32_t capacity = uint32_t(vertices_.size() / sizeof(IsoVertexData));
    Mesh mesh;
    uint32_t vertexCount = 0;
    if (indexed_) {
        VkDrawIndexedIndirectCommand draw;
        std::memcpy(&draw, argBytes + kDrawIndexedArgsOffset, sizeof(draw));
        const uint32_t indexCount = std::min(draw.indexCount, uint32_t(indices_.size() / 4)) / 3 * 3;
        const auto* idx = static_cast<const uint32_t*>(indices_.mapped());
        mesh.indices.assign(idx, idx + indexCount);
        for (uint32_t i : mesh.indices) vertexCount = std::max(vertexCount, i + 1);
        vertexCount = std::min(vertexCount, capacity);
    } else {
        VkDrawIndirectCommand draw;
        std::memcpy(&draw, argBytes + kDrawArgsOffset, sizeof(draw));
        vertexCount = std::min(draw.vertexCount, capacity) / 3 * 3;
        mesh.indices.resize(vertexCount);
        for (uint32_t i = 0; i < vertexCount; ++i) mesh.indices[i] = i;
    }
    mesh.positions.resize(vertexCount);
    mesh.normals.resize(vertexCount);
    for (uint32_t i = 0; i < vertexCount; ++i) {
        mesh.positions[i] = {v[i].position[0], v[i].position[1], v[i].position[2]};
        mesh.normals[i] = {v[i].normal[0], v[i].normal[1], v[i].normal[2]};
    }
    // The GPU is done with the event: it may be set again by the next request.
    device_->vk().vkResetEvent(device_->device(), event_);
    pending_ = false;
    return std::optional<Mesh>(std::move(mesh));
}

} // namespace pyramarch::iso
