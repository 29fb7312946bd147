#version 460
// Exclusive prefix sum, in place, of data[0, n) in blocks of kScanBlock
// values per workgroup; each workgroup writes its block's total to
// blockSums[workgroup]. Run on the cell counts (one group per block), then
// on the block totals (one group), then scan_add.comp adds the scanned
// totals back: cell starts for the counting sort.
#include "fluid/fluid_common.glsl"

layout(local_size_x = kScanGroupSize) in;

layout(set = 0, binding = 0, std430) buffer DataBuf { uint data[]; };
layout(set = 0, binding = 1, std430) writeonly buffer BlockSumsBuf { uint blockSums[]; };

shared uint partial[kScanGroupSize];

void main() {
    const uint block = gl_WorkGroupID.y * pc.groupsX + gl_WorkGroupID.x;
    const uint t = gl_LocalInvocationIndex;
    const uint base = block * kScanBlock + t * kScanPerThread;
    // Each thread sums its run of kScanPerThread values serially...
    uint values[kScanPerThread];
    uint sum = 0u;
    for (uint k = 0u; k < kScanPerThread; ++k) {
        values[k] = base + k < pc.n ? data[base + k] : 0u;
        sum += values[k];
    }
    partial[t] = sum;
    barrier();
    // ...then the run totals are scanned across the workgroup (Hillis-Steele,
    // inclusive), with a barrier between reading and writing every step.
    for (uint offset = 1u; offset < kScanGroupSize; offset <<= 1) {
        const uint add = t >= offset ? partial[t - offset] : 0u;
        barrier();
        partial[t] += add;
        barrier();
    }
    uint running = t > 0u ? partial[t - 1u] : 0u;
    for (uint k = 0u; k < kScanPerThread; ++k) {
        if (base + k < pc.n) data[base + k] = running;
        running += values[k];
    }
    if (t == kScanGroupSize - 1u) blockSums[block] = partial[t];
}
