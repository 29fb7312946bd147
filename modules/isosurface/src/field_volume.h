// Field source: raw volumes (FieldSource::Volume), field_volume.cpp: the
// host-visible staging of the last upload (dense: converted into the field
// by "<name>.field.volume"; sparse: copied into the pool by
// SparseVolumeStage), the upload's sample format and mapping, and on the
// scan's cell-order grid the value bounds of each classify run. Its
// buffers, pipelines, sizing and passes.
#pragma once

#include <cstdint>
#include <string>

#include "stage.h"

namespace pyramarch::iso {

struct VolumeProvider {
    // The staging of the last upload in `raw`: made by an upload at its size
    // and released framesInFlight + 8 frames after the frame that converted
    // it (uploads that keep coming reuse it), so a volume uploaded once keeps
    // no staging. `rawIdle` (16 bytes) stands in for it in record()'s graph
    // meanwhile. A host graph cannot follow a new buffer, so addPasses() into
    // one keeps a staging of the largest format for the surface's life (rawPinned).
    Buffer raw, rawIdle;
    RenderGraph* rawGraph = nullptr; // record()'s graph, whose import `rawRef` follows `raw`
    BufferRef rawRef{};
    bool rawPinned = false;
    uint64_t rawConvertedAt = UINT64_MAX; // the frame that converted the upload in `raw`
    // The first frame converts "no upload" (kIsoVolumeNone: zeros, reads nothing).
    bool dirty = true;
    bool boundsDirty = false; // the volume was converted: field.volume.bounds recomputes runBounds
    // The upload's samples: kIsoVolume* (dense volumes start at
    // kIsoVolumeNone, createBuffers), value * scale + offset.
    uint32_t format = gpu::kIsoVolumeF32;
    float scale = 1.f, offset = 0.f;
    // The scan (cell order): (min, max) per classify run, computed once per
    // upload; of the cells of the run that starts in row r and goes on past
    // it, by r (volume_bounds.comp).
    Buffer runBounds, wrapBounds;
    ComputePipeline field, boundsPipe;

    // planLayout: whether the grid's classify reads run bounds (the scan).
    void plan(Impl& m);
    // Dense: the scan's run bounds; the staging's stand-in ("volume staging",
    // created where the memory report lists it).
    Status createBoundsBuffers(Impl& m, const MakeBuffer& make);
    Status createStandIn(const MakeBuffer& make);
    Status createPipelines(Impl& m);
    void importBuffers(Impl& m, RenderGraph& graph, IsoRefs& refs);
    // Dense: "<name>.field.volume" (the frame's first pass) and, on the
    // scan, "<name>.field.volume.bounds".
    void addPasses(Impl& m, RenderGraph& graph, const IsoRefs& refs);
    // A staging of at least `bytes` in `raw`.
    Status stage(Impl& m, size_t bytes);
    // The staging as `graph` imports it: record()'s graph follows `raw`
    // through rebinds; a host graph gets one of the largest upload, pinned.
    BufferRef importStaging(Impl& m, RenderGraph& graph, const std::string& name, ExternalUse after);
    const char* stagingName(const Impl& m) const;
    // At record()'s frame boundary, once the conversion is done.
    void releaseStaging(Impl& m);
    // A re-planned dense surface keeps the uploaded field (m's field buffer) and staging.
    void takeFrom(Impl& m, Impl& old);
    void noteStaging(Impl& m) const; // memory's "volume staging" entry
};

} // namespace pyramarch::iso
