// Sparse volumes (FieldSource::Volume on a sparse domain), sparse_volume.cpp:
// the resident surface bricks and the pool of their 11^3-sample blocks
// (sparse particles keep their blocks in the same pool), the host's upload
// and its copy pass. The surface bricks' count and iso range the listing
// passes read stay on Impl (volumeSurfaceBricks, volumeIsoMin/Max).
#pragma once

#include <cstdint>

#include "stage.h"

namespace pyramarch::iso {

struct SparseVolumeStage {
    // The device's surface bricks (volumes; filled from the host-visible
    // staging, VolumeProvider::raw, by the next frame's "<name>.sparse.volume.upload"),
    // each listed brick's pool slot, and the pool.
    Buffer surface, brickSlots;
    Buffer pools[gpu::kIsoVolumePools];
    bool uploadPending = false;
    uint32_t pendingSurfaceBricks = 0;
    float pendingIsoMin = 0.f, pendingIsoMax = 0.f; // the staged upload's iso range

    // Volumes: the surface bricks, the pool, the slots and the staging's
    // stand-in; particles: the pool and the slots.
    Status createBuffers(Impl& m, const MakeBuffer& make);
    // Stages `volume`'s surface bricks for the next frame's upload pass.
    Status upload(Impl& m, const VolumeSlabs& volume, float isoMin, float isoMax);
    void importBuffers(Impl& m, RenderGraph& graph, IsoRefs& refs);
    void addUploadPass(Impl& m, RenderGraph& graph, const IsoRefs& refs);
};

} // namespace pyramarch::iso
