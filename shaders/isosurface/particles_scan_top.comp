#version 460
// Particle gather, step 2, middle pass (particles.scan.top, between the
// sums and starts passes of particles_scan.comp): chunkSum = its exclusive
// prefix, in place. Dispatched as one workgroup whatever the chunk count.
// Thread i takes the i-th of kIsoGroupSize contiguous slices of the chunk
// sums (the last ones may be short or empty): it sums its slice, the slice
// totals are scanned in shared memory (log2 steps), and it writes the
// exclusive prefixes of its slice. Each thread's loads are independent of
// each other; one thread looping over all the chunks (a dependent load and
// store per chunk) took 6.6 ms of an 11.5 ms frame at 256^3 cells on an
// H100. On lavapipe the group's lanes run together and the group has
// 2 log2(kIsoGroupSize) + 1 barriers, once per frame. Its own file, so the
// per-thread passes keep a shader without shared memory or barriers.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) buffer ChunkSumBuf { uint chunkSum[]; };

shared uint sliceSum[kIsoGroupSize];

void main() {
    const uint chunks = (grid.binDims.w + kIsoBinScanChunk - 1) / kIsoBinScanChunk;
    const uint lane = gl_LocalInvocationIndex;
    const uint slice = (chunks + kIsoGroupSize - 1) / kIsoGroupSize;
    const uint first = min(lane * slice, chunks);
    const uint end = min(first + slice, chunks);
    uint sum = 0;
    for (uint c = first; c < end; ++c) sum += chunkSum[c];
    sliceSum[lane] = sum;
    barrier();
    // Inclusive scan of the slice totals (Hillis-Steele).
    for (uint offset = 1; offset < kIsoGroupSize; offset <<= 1) {
        const uint add = lane >= offset ? sliceSum[lane - offset] : 0;
        barrier();
        sliceSum[lane] += add;
        barrier();
    }
    uint start = sliceSum[lane] - sum;
    for (uint c = first; c < end; ++c) {
        const uint v = chunkSum[c];
        chunkSum[c] = start;
        start += v;
    }
}
