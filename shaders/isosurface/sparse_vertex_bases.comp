#version 460
// Indexed output on a sparse domain, pass <name>.sparse.vertices.bases: a
// thread per claimed pool slot (the count pass's dispatch): the slot's first
// vertex index, the exclusive prefix of its level-1 element in the vertex
// pyramid, summed bottom-up (the elements before it in its quad at every
// level), as vertex_bases.comp does for a dense classify run. The brick's
// lowest slot also gives its brick the 7 upper neighbours' list entries
// (sparse_indexed.glsl), found in the hash the count pass filled, so that
// extraction needs one load per owner in another brick instead of a probe
// loop (lavapipe runs a loop any lane of the SIMD batch enters for the
// whole batch).
// A grid that fits (ISO_DIRECT_BRICKS): every slot, no neighbours to find.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std140) uniform VertexGridBuf { IsoGrid vertexGrid; };
// Levels >= 1 are 32-bit and quad-aligned (pyramidLevels in layout.cpp).
layout(set = 0, binding = 2, std430) readonly buffer VertexQuadBuf { uvec4 vertexQuads[]; };
layout(set = 0, binding = 3, std430) writeonly buffer RunBaseBuf { uint runBase[]; };
layout(set = 0, binding = 4, std430) readonly buffer CountersBuf { IsoCounters counters; };
#ifndef ISO_DIRECT_BRICKS
layout(set = 0, binding = 5, std430) readonly buffer SlotBuf { uint slotRecords[]; };
layout(set = 0, binding = 6, std430) readonly buffer BrickListBuf { uint bricks[]; };
layout(set = 0, binding = 7, std430) buffer LookupBuf { uint sparseLookup[]; };

#include "isosurface/sparse_indexed.glsl"
#endif

void main() {
    const uint slot = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
#ifdef ISO_DIRECT_BRICKS
    if (slot >= grid.sparseLimits.y) return;
#else
    if (slot >= min(counters.sparseSlots, grid.sparseLimits.y)) return;
#endif
    // The level count read once, before the loop: a uniform load in the
    // loop's condition made GPU-assisted validation's instrumented SPIR-V
    // fail to parse on lavapipe ("Invalid back or cross-edge in the CFG").
    const uint levels = vertexGrid.levelCount;
    uint prefix = 0u;
    uint index = slot;
    for (uint level = 1u; level + 1u < levels; ++level) {
        const uvec4 q = vertexQuads[(vertexGrid.levels[level].x + (index & ~3u)) >> 2];
        const uint k = index & 3u;
        prefix += (k > 0u ? q.x : 0u) + (k > 1u ? q.y : 0u) + (k > 2u ? q.z : 0u);
        index >>= 2;
    }
    runBase[slot] = prefix;
#ifndef ISO_DIRECT_BRICKS

    const uint listed = slotRecords[slot] >> 5;
    if (sparseLookup[isoNeighbourWord(listed, 0u)] != slot) return;
    const uvec3 b = isoUnpackBrick(bricks[listed]);
    const uvec3 last = (grid.cells.xyz - 1u) / kIsoBrickCells;
    for (uint code = 1u; code < 8u; ++code) {
        const uvec3 n = b + uvec3(code & 1u, (code >> 1) & 1u, code >> 2);
        // Past the grid's last brick: no cell there owns an edge.
        const bool inGrid = all(lessThanEqual(n, last));
        sparseLookup[isoNeighbourWord(listed, code)] = inGrid ? isoListedBrickAt(isoPackBrick(n)) : kIsoNoSlot;
    }
#endif
}
