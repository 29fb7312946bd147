#version 460
// Sparse domains: the lists in a fixed order, whatever order the threads
// that find their entries run in. One workgroup (a dispatch of 1), modes
// (pc.srcLevel):
//   0 <name>.sparse.supers.order: the super-bricks .sparse.supers marked (a
//     bit each, masks[0 ..)) -> the super list in index order, their count
//   1 <name>.sparse.bricks.order: the bricks .sparse.activate marked (16
//     words per listed super-brick, kIsoSuperBrickCount bits, from
//     masks[superWords ..]) -> each word's first list entry (bases), the
//     brick count
//   2 <name>.sparse.bricks.order, volumes: the surface bricks marked
//     (pc.itemCount bits from masks[0]) -> bases, the brick count
//   3 <name>.sparse.slots.order: the cut row pairs of each listed brick
//     (the bits of classify's pair masks, masks[0 ..)) -> its first pool
//     place (masks[sparseLimits.x ..)); the slot pass's indirect dispatch
//     (sparse_slot_order.comp) and the first pyramid build pass's, over
//     the places filled (pyramid_build.comp)
// Lane i takes the i-th of kIsoGroupSize contiguous slices of the words and
// sums them, the slice sums are scanned in shared memory, then each lane
// writes its slice's prefixes (particles_scan_top.comp's scheme): the only
// barriers of the listing, once per pass.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) buffer CountersBuf { IsoCounters counters; };
// Modes 0-2: the marks (read); 3: the pair masks, then (written) each chunk's first slot.
layout(set = 0, binding = 2, std430) buffer MasksBuf { uint masks[]; };
// Mode 0: the super list; 1, 2: the bases.
layout(set = 0, binding = 3, std430) writeonly buffer OutBuf { uint outWords[]; };
// Mode 3: the slot pass's dispatch at [2], the first build pass's at [3]
// (the activate passes' at [0], [1]).
layout(set = 0, binding = 4, std430) writeonly buffer DispatchBuf { uvec4 dispatches[4]; };

shared uint sliceSum[kIsoGroupSize];

void main() {
    const uint mode = isoOpaque(pc.srcLevel);
    const uint lane = gl_LocalInvocationIndex;
    const uint superWords = (grid.superBricks.w + 31u) / 32u;
    const uint supers = counters.sparseSupers;
    const uint slots = min(counters.sparseSlots, grid.sparseLimits.y);
    const uint listed = min(counters.sparseBricks, grid.sparseLimits.x);
    uint n = superWords, first = 0u;
    if (mode == 1u) {
        n = min(supers, grid.sparseOrderSupers) * 16u;
        first = superWords;
    } else if (mode == 2u) {
        n = (pc.itemCount + 31u) / 32u;
    } else if (mode == 3u) {
        n = listed;
    }
    const uint slice = (n + kIsoGroupSize - 1u) / kIsoGroupSize;
    const uint begin = min(lane * slice, n), end = min(begin + slice, n);
    uint sum = 0u;
    for (uint i = begin; i < end; ++i) sum += uint(bitCount(masks[first + i]));
    sliceSum[lane] = sum;
    barrier();
    // Inclusive scan of the slice sums (Hillis-Steele).
    for (uint offset = 1u; offset < kIsoGroupSize; offset <<= 1) {
        const uint add = lane >= offset ? sliceSum[lane - offset] : 0u;
        barrier();
        sliceSum[lane] += add;
        barrier();
    }
    const uint total = sliceSum[kIsoGroupSize - 1u];
    uint start = sliceSum[lane] - sum;
    for (uint i = begin; i < end; ++i) {
        if (mode == 0u) {
            for (uint bits = masks[i]; bits != 0u; bits &= bits - 1u) outWords[start++] = i * 32u + uint(findLSB(bits));
        } else if (mode == 3u) {
            masks[grid.sparseLimits.x + i] = start;
            start += uint(bitCount(masks[i]));
        } else {
            outWords[i] = start;
            start += uint(bitCount(masks[first + i]));
        }
    }
    if (lane == 0u) {
        if (mode == 0u) {
            counters.sparseSupers = total;
        } else if (mode == 1u) {
            // Super-bricks past the masks' capacity (grid.sparseOrderSupers,
            // at most maxBricks) list nothing: the frame needs at least as
            // many bricks as listed super-bricks, an overflow.
            counters.sparseBricks = supers > grid.sparseOrderSupers ? max(total, supers) : total;
        } else if (mode == 2u) {
            counters.sparseBricks = total;
        } else {
            const uint groups = (slots + kIsoGroupSize - 1u) / kIsoGroupSize;
            const uint gx = min(groups, grid.maxGroupsX);
            dispatches[2] = uvec4(gx, gx == 0u ? 1u : (groups + gx - 1u) / gx, 1u, slots);
            // Level 2 past the places filled is 0 (<name>.sparse.clear), and
            // so are the levels above it that its groups would write.
            const uint buildGroups = (slots + kIsoBuildGroupSize * 4u - 1u) / (kIsoBuildGroupSize * 4u);
            const uint bx = min(buildGroups, grid.maxGroupsX);
            dispatches[3] = uvec4(bx, bx == 0u ? 1u : (buildGroups + bx - 1u) / bx, 1u, slots);
        }
    }
}
