#version 460
// Counting sort, last step, one thread per cell: sorts the cell's slots by
// particle index (the scatter's order within a cell depends on atomics'
// timing; sorted, every run and the CPU reference see the same order), then
// gathers the particles' predicted and old positions into sorted order. The
// solver then reads neighbours as contiguous runs of the sorted arrays.
#include "fluid/fluid_common.glsl"

layout(local_size_x = kFluidGroupSize) in;

layout(set = 0, binding = 0, std430) readonly buffer StartsBuf { uint cellStart[]; };
layout(set = 0, binding = 1, std430) buffer SortedIndexBuf { uint sortedIndex[]; };
layout(set = 0, binding = 2, std430) readonly buffer PredictedBuf { vec4 predicted[]; };
layout(set = 0, binding = 3, std430) readonly buffer ParticlesBuf { vec4 particles[]; };
layout(set = 0, binding = 4, std430) readonly buffer VelocityBuf { vec4 velocity[]; };
layout(set = 0, binding = 5, std430) writeonly buffer PositionBuf { vec4 position[]; };
layout(set = 0, binding = 6, std430) writeonly buffer OldBuf { vec4 old[]; };
layout(set = 0, binding = 7, std430) writeonly buffer SortedCellBuf { uint sortedCell[]; };

void main() {
    const uint c = threadIndex(kFluidGroupSize);
    if (c >= pc.cells) return;
    const uint begin = cellStart[c], end = cellStart[c + 1u];
    // Insertion sort: a cell of side h holds about 10-30 particles of a
    // fluid near rest density (the density constraint keeps it there).
    for (uint k = begin + 1u; k < end; ++k) {
        const uint v = sortedIndex[k];
        uint j = k;
        while (j > begin && sortedIndex[j - 1u] > v) {
            sortedIndex[j] = sortedIndex[j - 1u];
            --j;
        }
        sortedIndex[j] = v;
    }
    for (uint k = begin; k < end; ++k) {
        const uint i = sortedIndex[k];
        position[k] = predicted[i];
        // w carries the particle's id (velocity.w) through the step, so the
        // tests can follow a particle across re-sorts.
        old[k] = vec4(particles[i].xyz, velocity[i].w);
        sortedCell[k] = c;
    }
}
