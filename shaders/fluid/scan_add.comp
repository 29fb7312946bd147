#version 460
// Second half of the two-level scan: adds the scanned total of the blocks
// before each value's block (blockSums after scan.comp ran on them).
#include "fluid/fluid_common.glsl"

layout(local_size_x = kFluidGroupSize) in;

layout(set = 0, binding = 0, std430) buffer DataBuf { uint data[]; };
layout(set = 0, binding = 1, std430) readonly buffer BlockSumsBuf { uint blockSums[]; };

void main() {
    const uint i = threadIndex(kFluidGroupSize);
    if (i >= pc.n) return;
    data[i] += blockSums[i / kScanBlock];
}
