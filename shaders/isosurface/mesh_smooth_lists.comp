#version 460
// Mesh smoothing, the triangles around each vertex, once per frame: one
// thread per index of the indexed output (the index pass's dispatch).
//   pc.srcLevel 0 (count): count[v] += 1 for the index's vertex v;
//   then particles_scan*.comp turn the counts into start[] (and zero them);
//   pc.srcLevel 1 (fill): v's slot start[v] + atomicAdd(count[v], 1) gets
//   the triangle's other two vertices (next corner, previous corner: the
//   winding). Slots of a vertex land in any order; the steps only sum them
//   as integers, so the order never reaches the output.
// Triangles naming a vertex past the written count (never written by the
// module; guarded all the same) are left out of both.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer ArgsBuf { IsoArgs args; };
layout(set = 0, binding = 3, std430) buffer CountBuf { uint count[]; };
layout(set = 0, binding = 4, std430) readonly buffer StartBuf { uint start[]; };
layout(set = 0, binding = 5, std430) writeonly buffer ListBuf { uvec2 list[]; };
// The index buffer: slice 0 at binding 2, slices 1.. at 6.. (output_slices.glsl).
#define ISO_INDEX_SLICES 2
#define ISO_INDEX_SLICES_NEXT 6
#define ISO_INDEX_READ
#include "isosurface/output_slices.glsl"

void main() {
    const uint t = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    if (t >= min(args.indexCount, grid.indexCapacity)) return;
    // t / 3 without a division (lavapipe divides lane by lane).
    uint hi, lo;
    umulExtended(t, 0xAAAAAAABu, hi, lo);
    const uint first = (hi >> 1) * 3u;
    const uint corner = t - first;
    const uint v = isoLoadIndex(t);
    const uint a = isoLoadIndex(first + (corner == 2u ? 0u : corner + 1u));
    const uint b = isoLoadIndex(first + (corner == 0u ? 2u : corner - 1u));
    const uint written = min(args.verticesWritten, grid.vertexCapacity);
    if (v >= written || a >= written || b >= written) return;
    const uint slot = atomicAdd(count[v], 1u);
    if (isoOpaque(pc.srcLevel) == 0u) return;
    // start[v] + count <= the number of indices counted <= indexCapacity.
    const uint at = start[v] + slot;
    if (at < grid.indexCapacity) list[at] = uvec2(a, b);
}
