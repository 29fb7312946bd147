// A CPU copy of a surface for the host's own use (colliders, picking),
// requested inside a frame and picked up when the GPU has finished it,
// never waiting:
//
//     auto copy = MeshCopy::create(device, *iso).value();
//     // frame F, in the host's command buffer after iso->record(cmd):
//     copy->request(cmd);
//     // any later frame, on the CPU:
//     if (auto mesh = copy->poll(); mesh.ok() && mesh.value()) buildCollider(*mesh.value());
//
// IsoSurface::readMesh() (submit and wait) stays for tools and tests.
#pragma once

#include <memory>
#include <optional>

#include <vulkan/vulkan_core.h>

#include "pyramarch/engine/status.h"
#include "pyramarch/isosurface/isosurface.h"

namespace pyramarch {
class Device;
}

namespace pyramarch::iso {

// Holds host-visible buffers as large as the surface's vertex (and index)
// buffer and one VkEvent. Lifetime: as for IsoSurface, destroy it only
// after every command buffer that recorded a request has finished, and
// before the surface and the device.
class MeshCopy {
public:
    static Result<std::unique_ptr<MeshCopy>> create(Device& device, const IsoSurface& surface);
    ~MeshCopy();
    MeshCopy(const MeshCopy&) = delete;
    MeshCopy& operator=(const MeshCopy&) = delete;

    // Records, into `cmd` after the surface's passes of this frame
    // (IsoSurface::record(), or the host graph that holds them), a copy of
    // the surface's draw args, vertices and indices to host memory, and the
    // event poll() reads. The module's barriers leave the surface's buffers
    // in the uses record() documents. One request at a time: a second one
    // before poll() returned its mesh is an ErrorCode::InvalidState error.
    Status request(VkCommandBuffer cmd);
    // Never waits. The mesh of the requested frame once the GPU has finished
    // the copy (positions, normals, 3 indices per triangle, as readMesh());
    // std::nullopt while it is still running or when nothing is requested.
    // An error when the event cannot be read (e.g. device lost).
    Result<std::optional<Mesh>> poll();
    bool pending() const { return pending_; }

private:
    MeshCopy() = default;
    Device* device_ = nullptr;
    const IsoSurface* surface_ = nullptr;
    bool indexed_ = false;
    bool pending_ = false;
    Buffer args_;
    Buffer vertices_;
    Buffer indices_;
    VkEvent event_ = VK_NULL_HANDLE;
};

} // namespace pyramarch::iso
