#version 460
// MC case of each cell into the pyramid base (u8, 4 per word; the walk gets
// the vertex count from isoCaseCount (constants)), level 1 (u8 sums, max 60; a run's 4
// in one word) and level 2 (u32), and the number of active cells. A thread
// writes whole words only: its run is 4 aligned words of level 0 and one of
// level 1, so no two threads share a word.
// Each thread takes the kIsoClassifyCells consecutive cells of one level-2
// element and slides along x: a cell loads only its 4 new corners (+x face)
// and reuses the previous cell's +x face as its -x face, so a thread loads
// 8 + 4 * 15 samples for 16 cells instead of 128; the cell coordinates come
// from one pair of multiply-shift divisions per thread, not three per cell. Empty and full cells
// (case 0 / 255, most of a grid) skip the table lookup. The build passes
// start at level 2 without re-reading the base. Volume source
// (grid.runBounds): a run whose value bounds (volume_bounds.comp, once per
// upload) lie all below or all at/above the iso value is written as zeros
// (case 0, count 0) without loading a sample. Lanes of uniform runs
// return before the loop: lavapipe runs a SIMD batch's loop while any lane
// has iterations left, so a batch of uniform runs skips the classify loop
// entirely (masking alone would still execute its arithmetic).
// (Reducing further in shared memory was measured 3x slower on lavapipe,
// where barriers are expensive; see modules/isosurface/README.md.)
// ISO_SUBGROUP_ATOMICS (the classify.subgroup.comp variant): the active-cell
// count is summed per subgroup and added by one lane.
// The cell order is the scan baseline's only (ExtractionMethod::Scan): soup,
// a field buffer; the HistoPyramid runs on the bricks (sparse_classify.comp).
#ifdef ISO_SUBGROUP_ATOMICS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif
#ifndef ISO_STORAGE_READS
#define ISO_TEXEL_READS
#endif
// Inside bits a row at a time from texel quads.
#ifdef ISO_TEXEL_READS
#define ISO_CLASSIFY_ROWS
#endif
#include "isosurface/common.glsl"

layout(local_size_x = kIsoClassifyGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
// Binding 1 (the MC tables of the other passes) is not used: counts come from isoCaseCount.
// The field: 4 samples per texel fetch (an R32G32B32A32_SFLOAT view: a
// row's 17 samples in 5 fetches, ~1.3 per cell) where the device's
// maxTexelBufferElements covers it (ISO_TEXEL_READS), else one
// storage-buffer load per sample (the .storage variants, ~4.25 per cell).
#if defined(ISO_TEXEL_READS)
layout(set = 0, binding = 2) uniform samplerBuffer fieldQuads;
#else
layout(set = 0, binding = 2, std430) readonly buffer FieldBuf { float field[]; };
#endif
layout(set = 0, binding = 3, std430) writeonly buffer PyramidBuf { uint pyramid[]; };
layout(set = 0, binding = 4, std430) buffer CountersBuf { IsoCounters counters; };
// Scan only (grid.scanOccupancy): level 1 of the occupancy tree, active cells
// per 4 cells, laid out from element 0 (the tree has no level 0 of its own).
// Otherwise the pyramid is bound here again and never written through it.
layout(set = 0, binding = 5, std430) writeonly buffer OccupancyBuf { uint occupancy[]; };
// grid.runBounds: (min, max) of each run's samples; otherwise the pyramid
// is bound here again and never read through it.
layout(set = 0, binding = 6, std430) readonly buffer BoundsBuf { vec2 runBounds[]; };
// grid.runBounds: the second interval of a run that goes on past its first
// row, by that row (volume_bounds.comp); otherwise the pyramid stands in.
layout(set = 0, binding = 10, std430) readonly buffer WrapBoundsBuf { vec2 wrapBounds[]; };
// Bindings 7, 8 and 9 are not used.

#include "isosurface/vertex_owner.glsl"

#if defined(ISO_TEXEL_READS)
// NaN is outside (as sanitize() makes it -infinity elsewhere).
uvec4 insideQuad(vec4 v, float iso) {
    const uvec4 bits = floatBitsToUint(v);
    return uvec4(greaterThanEqual(v, vec4(iso))) & uvec4(lessThanEqual(bits & 0x7fffffffu, uvec4(0x7f800000u)));
}
// Inside bits of the 17 samples s .. s + 16 of a row, bit k for sample s + k.
uint insideRow(uint s, float iso) {
    const uint q = s >> 2;
    uint bits = 0u;
    for (uint k = 0u; k < 5u; ++k) {
        const uvec4 in4 = insideQuad(texelFetch(fieldQuads, int(q + k)), iso);
        bits |= (in4.x | in4.y << 1 | in4.z << 2 | in4.w << 3) << (4u * k);
    }
    return bits >> (s & 3u);
}
#else
float load(uint s) { return sanitize(field[s]); }
#endif

// Grid values in registers: the compiler cannot keep them across the
// pyramid stores itself (the buffers might alias), and lavapipe loads them
// lane by lane.
uint levels, word1;
bool occupancyOut;
float iso;

void writeOccupancy(uint element1, uint activeCells) {
    if (levels > 1 && occupancyOut) occupancy[element1] = activeCells;
}

// Sum of the 4 bytes of w.
uint byteSum(uint w) { return (w & 0xffu) + ((w >> 8) & 0xffu) + ((w >> 16) & 0xffu) + (w >> 24); }

#ifndef ISO_CLASSIFY_ROWS
// Inside bits of the 4 samples of a cell face at x = s: by offset code y | z << 1.
uint face(uint s, uint sx, uint sxy) {
    return uint(load(s) >= iso) | uint(load(s + sx) >= iso) << 1 | uint(load(s + sxy) >= iso) << 2 |
           uint(load(s + sx + sxy) >= iso) << 3;
}
#endif

void main() {
    const uint cx = grid.cells.x, cy = grid.cells.y;
    const uint sx = grid.samples.x, sxy = grid.samples.x * grid.samples.y;
    const uint cells = grid.cells.w;
    const uint word0 = grid.levels[0].x;
    levels = isoOpaque(grid.levelCount);
    word1 = grid.levels[1].x;
    const uint word2 = grid.levels[2].x;
    occupancyOut = isoOpaque(grid.scanOccupancy) != 0;
    iso = pc.iso;

    // A group takes 128 consecutive runs (2048 cells). lavapipe executes 8
    // consecutive invocations as one SIMD batch, and a batch does the
    // classify loop if any of its lanes must: so a batch takes one run in
    // each of 8 spans of 16 runs (256 cells, about one row of a 255^3
    // grid): a 16 x 8 patch of cells rather than 128 cells of one row, more
    // often entirely empty. Any mapping is correct (a bijection within the
    // group); this one only changes which runs share a batch. Patch p
    // (kIsoPatchRuns in iso_shared.h) is batch p % 16 of group p / 16.
    const uint l = gl_LocalInvocationIndex;
    const uint patchId = linearGroup() * kIsoPatchesPerGroup + (l >> 3);
    const uint element2 = (patchId / kIsoPatchesPerGroup) * kIsoClassifyGroupSize + 16u * (l & 7u) + patchId % kIsoPatchesPerGroup;
    const uint first = element2 * kIsoClassifyCells;
    if (first >= cells) return;
    const uint n = min(kIsoClassifyCells, cells - first); // cells of this run
    const uint row = divideBy(first, grid.cellDivisors.x, grid.cellDivisors.z); // y + cy * z
    uint x = first - row * cx;
    // Volume: a run whose cells in its first row and whose cells past it
    // (if any) each lie entirely below or entirely at/above the iso value
    // has no triangle; it is written as zeros without loading a sample,
    // case 0 also for cells inside (no reader needs case 255 where the
    // count is 0).
    if (isoOpaque(grid.runBounds) != 0) {
        const vec2 b = runBounds[element2];
        // A run that ends in its first row keeps an empty second interval.
        const vec2 w = x + n > cx ? wrapBounds[row] : vec2(uintBitsToFloat(0x7f800000u), uintBitsToFloat(0xff800000u));
        if ((b.y < iso || b.x >= iso) && (w.y < iso || w.x >= iso)) {
            for (uint q = 0; q < (n + 3) / 4; ++q) {
                pyramid[word0 + first / 4u + q] = 0u;
                writeOccupancy(element2 * 4 + q, 0u);
            }
            if (levels > 1) pyramid[word1 + element2] = 0u;
            if (levels > 2) pyramid[word2 + element2] = 0u;
            return;
        }
    }
    const uint cellsToClassify = n;

    const uint z0 = divideBy(row, grid.cellDivisors.y, grid.cellDivisors.w);
    uint y = row - z0 * cy;
    uint z = z0;
    uint s = x + sx * y + sxy * z0; // sample of the cell's corner (0,0,0)
    // The run's 4 words of cases, and per word of 4 cells its vertex count
    // and active cells (u8 fields: at most 4 x 15), kept in
    // registers and stored once after the loop: lavapipe runs an `if` body
    // under a mask for every lane and every iteration, so a store "every
    // 4th cell" inside the loop cost a masked scatter per cell.
    uint cases0 = 0, cases1 = 0, cases2 = 0, cases3 = 0, sums1 = 0, actives1 = 0;
    uint j = 0;
    // One segment per row the run touches: load the first cell's -x face,
    // then each cell loads its +x face only (no per-cell reload branch).
    while (j < cellsToClassify) {
        const uint segment = min(cellsToClassify - j, cx - x);
#ifdef ISO_CLASSIFY_ROWS
        // The segment's 4 sample rows (y, z), (y + 1, z), (y, z + 1), (y + 1, z + 1) as bit rows.
        uint row00 = insideRow(s, iso), row10 = insideRow(s + sx, iso), row01 = insideRow(s + sxy, iso),
             row11 = insideRow(s + sx + sxy, iso);
#else
        uint lo = face(s, sx, sxy);
#endif
        for (uint k = 0; k < segment; ++k) {
            // Corner bits by offset code (x | y << 1 | z << 2), swapped to
            // MC corner order below.
#ifdef ISO_CLASSIFY_ROWS
            const uint byCode = (row00 & 3u) | (row10 & 3u) << 2 | (row01 & 3u) << 4 | (row11 & 3u) << 6;
            row00 >>= 1;
            row10 >>= 1;
            row01 >>= 1;
            row11 >>= 1;
#else
            const uint hi = face(s + 1, sx, sxy);
            uint byCode = 0;
            for (uint b = 0; b < 4; ++b) byCode |= ((lo >> b) & 1u) << (2 * b) | ((hi >> b) & 1u) << (2 * b + 1);
#endif
            // The offset-code <-> MC corner swap is its own inverse (vertex_owner.glsl).
            const uint mcCase = isoCornerBitsByCode(byCode);
            // Cases 0 and 255 count 0 (isoCaseCount: no select on them needed).
            const uint count = isoCaseCount(mcCase);
            const uint quadShift = 8u * (j >> 2);
            const uint caseBits = mcCase << (8u * (j & 3u));
            cases0 |= j < 4u ? caseBits : 0u;
            cases1 |= j - 4u < 4u ? caseBits : 0u;
            cases2 |= j - 8u < 4u ? caseBits : 0u;
            cases3 |= j >= 12u ? caseBits : 0u;
            sums1 += count << quadShift;
            actives1 += (count != 0u ? 1u : 0u) << quadShift;
#ifndef ISO_CLASSIFY_ROWS
            lo = hi;
#endif
            ++s;
            ++j;
        }
        // The run goes on in the next row (and maybe the next slice).
        x += segment;
        if (x == cx) {
            x = 0;
            ++s; // past the row's last sample
            if (++y == cy) {
                y = 0;
                ++z;
                s += sx; // past the slice's last row
            }
        }
    }
    // The run's words of level 0 (a run at the grid's end may be shorter:
    // its level ends at word ceil(cells / 4)).
    const uint caseWords = (n + 3u) >> 2, caseWord = word0 + first / 4u;
    pyramid[caseWord] = cases0;
    if (caseWords > 1u) pyramid[caseWord + 1u] = cases1;
    if (caseWords > 2u) pyramid[caseWord + 2u] = cases2;
    if (caseWords > 3u) pyramid[caseWord + 3u] = cases3;
    for (uint q = 0; q < caseWords; ++q) writeOccupancy(element2 * 4 + q, (actives1 >> (8u * q)) & 0xffu);
    const uint sum2 = byteSum(sums1), active2 = byteSum(actives1);
    if (levels > 1) pyramid[word1 + element2] = sums1;
    if (levels > 2) pyramid[word2 + element2] = sum2;
    // Few threads have active cells (surfaces are sparse): a global atomic
    // is cheaper than a barrier-based group reduction on lavapipe; where the
    // device has subgroup arithmetic, one per subgroup (lanes that returned
    // early take no part).
#ifdef ISO_SUBGROUP_ATOMICS
    const uint subgroupActive = subgroupAdd(active2);
    if (subgroupElect() && subgroupActive != 0) atomicAdd(counters.activeCells, subgroupActive);
#else
    if (active2 != 0) atomicAdd(counters.activeCells, active2);
#endif
}
