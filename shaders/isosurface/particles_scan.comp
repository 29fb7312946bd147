#version 460
// Particle gather, step 2: binStart[b] = exclusive prefix of binCount, with
// the total at binStart[bins]. Three modes (pc.srcLevel), each a plain
// per-thread loop (no shared memory: barriers are what costs on CPU drivers):
//   0: chunkSum[t] = sum of bins [t * C, t * C + C)
//   1: one thread: chunkSum = its exclusive prefix (in place)
//   2: binStart of the chunk's bins; clears their counts for the next frame.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std430) readonly buffer GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) buffer BinCountBuf { uint binCount[]; };
layout(set = 0, binding = 2, std430) buffer ChunkSumBuf { uint chunkSum[]; };
layout(set = 0, binding = 3, std430) writeonly buffer BinStartBuf { uint binStart[]; };

void main() {
    const uint t = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    const uint bins = grid.binDims.w;
    const uint chunks = (bins + kIsoBinScanChunk - 1) / kIsoBinScanChunk;
    if (pc.srcLevel == 1) {
        if (t != 0) return;
        uint sum = 0;
        for (uint c = 0; c < chunks; ++c) {
            const uint v = chunkSum[c];
            chunkSum[c] = sum;
            sum += v;
        }
        return;
    }
    if (t >= chunks) return;
    const uint first = t * kIsoBinScanChunk;
    const uint end = min(first + kIsoBinScanChunk, bins);
    if (pc.srcLevel == 0) {
        uint sum = 0;
        for (uint b = first; b < end; ++b) sum += binCount[b];
        chunkSum[t] = sum;
        return;
    }
    uint start = chunkSum[t];
    for (uint b = first; b < end; ++b) {
        binStart[b] = start;
        start += binCount[b];
        binCount[b] = 0;
    }
    if (end == bins) binStart[bins] = start;
}
