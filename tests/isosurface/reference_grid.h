#pragma once
// The CPU reference's grid for a create-info: the same samples and bounds the
// GPU path uses, so both sample the field at the same points.
#include "pyramarch/isosurface/isosurface.h"
#include "reference.h"

namespace pyramarch::iso {

inline ref::Grid referenceGridOf(const IsoSurfaceCreateInfo& info) {
    ref::Grid g;
    for (int a = 0; a < 3; ++a) {
        g.n[a] = info.samples[a];
        g.min[a] = info.boundsMin[a];
        g.max[a] = info.boundsMax[a];
    }
    return g;
}

} // namespace pyramarch::iso
