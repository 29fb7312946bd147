// Test and debug entry points of the isosurface module. Not part of the
// stable API: for tests, tools and benchmarks; they may change in any
// release. The read-backs submit and wait on the device's queue (call them
// after the recorded frame finished).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "pyramarch/isosurface/isosurface.h"

namespace pyramarch::iso::testing {

struct Knobs {
    // Folds dispatches at this many groups along x instead of the device's
    // maxComputeWorkGroupCount[0] (0 = the device limit), so tests exercise
    // the fold on small grids.
    uint32_t maxGroupsX = 0;
};

// IsoSurface::create with test knobs.
Result<std::unique_ptr<IsoSurface>> create(Device& device, const IsoSurfaceCreateInfo& info, const Knobs& knobs);
// The x size dispatches are folded at (the knob, or the device limit).
uint32_t maxGroupsX(const IsoSurface& surface);

// The pyramid levels (level 0 = count | case << 4 per cell).
Result<std::vector<std::vector<uint32_t>>> readPyramid(IsoSurface& surface);
// The args buffer as words: IsoArgs of shaders/isosurface/iso_shared.h (dispatch,
// draw at IsoSurface::drawArgsOffset(), index dispatch, indexed draw at
// IsoSurface::drawIndexedArgsOffset()).
Result<std::vector<uint32_t>> readDrawArgs(IsoSurface& surface);
// ExtractionMethod::Scan: the compacted active-cell list (cell indices in
// order), as long as the occupancy total.
Result<std::vector<uint32_t>> readActiveCells(IsoSurface& surface);

} // namespace pyramarch::iso::testing
