#pragma once
// The CPU reference's grid for a create-info: the same samples and bounds the
// GPU path uses, so both sample the field at the same points.
#include <cmath>
#include <cstddef>
#include <vector>

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

// Edges of the grid whose two samples differ in inside-ness (NaN outside):
// the unique vertices of indexed output.
inline size_t cutEdges(const ref::Grid& g, const std::vector<float>& f, float iso) {
    auto inside = [&](size_t i) { return !std::isnan(f[i]) && f[i] >= iso; };
    size_t n = 0;
    for (uint32_t z = 0; z < g.n[2]; ++z)
        for (uint32_t y = 0; y < g.n[1]; ++y)
            for (uint32_t x = 0; x < g.n[0]; ++x) {
                const size_t i = g.index(x, y, z);
                if (x + 1 < g.n[0] && inside(i) != inside(g.index(x + 1, y, z))) ++n;
                if (y + 1 < g.n[1] && inside(i) != inside(g.index(x, y + 1, z))) ++n;
                if (z + 1 < g.n[2] && inside(i) != inside(g.index(x, y, z + 1))) ++n;
            }
    return n;
}

} // namespace pyramarch::iso
