#version 460
// Particle gather, step 2: binStart[b] = exclusive prefix of binCount, with
// the total at binStart[bins], in three passes over chunks of C =
// kIsoBinScanChunk bins. This shader runs the first and the last
// (pc.srcLevel), each a plain per-thread loop (no shared memory: barriers
// are what costs on CPU drivers):
//   0: chunkSum[t] = sum of bins [t * C, t * C + C)
//   1: binStart of the chunk's bins from chunkSum[t], which
//      particles_scan_top.comp turned into its exclusive prefix in between;
//      clears their counts for the next frame.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) buffer BinCountBuf { uint binCount[]; };
layout(set = 0, binding = 2, std430) buffer ChunkSumBuf { uint chunkSum[]; };
layout(set = 0, binding = 3, std430) writeonly buffer BinStartBuf { uint binStart[]; };

void main() {
    const uint t = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    const uint bins = grid.binDims.w;
    const uint chunks = (bins + kIsoBinScanChunk - 1) / kIsoBinScanChunk;
    if (t >= chunks) return;
    const uint first = t * kIsoBinScanChunk;
    const uint end = min(first + kIsoBinScanChunk, bins);
    if (isoOpaque(pc.srcLevel) == 0) {
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
