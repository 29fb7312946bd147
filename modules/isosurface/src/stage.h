// What every stage of an IsoSurface (its own header and .cpp) is made of:
// the buffers it creates through Impl::makeBuffer (named "<name>.<what>",
// listed in memoryReport()), the pipelines it compiles through
// Impl::makePipeline, and the passes it adds to the graph. A stage keeps its
// state; IsoSurface::Impl (iso_impl.h) keeps what all of them share (the
// create-info, the grid and the core sizes, the device, the push constants
// and the counters) and holds each stage as a member.
#pragma once

#include <functional>
#include <string>

#include "isosurface/iso_shared.h"
#include "pyramarch/engine/memory.h"
#include "pyramarch/engine/pipeline.h"
#include "pyramarch/engine/render_graph.h"
#include "pyramarch/isosurface/isosurface.h"

namespace pyramarch::iso {

using Impl = IsoSurface::Impl;
struct IsoRefs;
// Impl::makeBuffer as a stage calls it: (buffer, bytes, usage, memory, what).
using MakeBuffer = std::function<Status(Buffer&, VkDeviceSize, VkBufferUsageFlags, MemoryUsage, const std::string&)>;

} // namespace pyramarch::iso
