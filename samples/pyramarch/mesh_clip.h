// `pyramarch iso --mesh-aabb-min/max`: a mesh clipped to an axis-aligned box
// on the CPU, as splashsurf clips its output: triangles inside are kept,
// triangles outside are removed, triangles crossing a face of the box are cut
// along it (Sutherland-Hodgman, fanned back into triangles; normals
// interpolated and renormalised). Cut points on an edge two triangles share
// are computed from the edge's ends in one order, so the pieces share their
// new vertices (a welded mesh stays welded). Vertices no triangle uses any
// more are removed.
#pragma once

#include <array>
#include <cstdint>

#include "pyramarch/isosurface/isosurface.h"

namespace sample {

struct MeshClipStats {
    uint64_t kept = 0;    // triangles inside the box, unchanged
    uint64_t cut = 0;     // triangles crossing the box's faces, cut
    uint64_t removed = 0; // triangles wholly outside
};

// `lo` <= `hi` on every axis (bounds included in the box).
MeshClipStats clipMeshToBox(pyramarch::iso::Mesh& mesh, const std::array<float, 3>& lo, const std::array<float, 3>& hi);

} // namespace sample
