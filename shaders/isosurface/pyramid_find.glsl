// Top-down HistoPyramid traversal: key -> (base element, local index).
// Needs `grid` (level tables) and `pyramid` declared by the includer. An
// includer walking the cell pyramid (32-bit levels quad-aligned, see
// pyramidLevels in layout.cpp) defines ISO_PYRAMID_QUADS and declares
// `pyramidQuads`, a uvec4 view of the same binding: the 4 children of an
// element then come in one load instead of three.
#ifndef ISO_PYRAMID_FIND_GLSL
#define ISO_PYRAMID_FIND_GLSL

uint pyramidTotal() {
    const uint top = grid.levelCount - 1;
    return ISO_LEVEL_COUNT(pyramid, grid, top, 0u);
}

// Returns the base element whose interval holds `key`; key becomes the
// index within that element. Level 0 elements keep the count in the low bits,
// or (packed) are MC cases whose count comes from isoCaseCount (constants).
// Branch-free choice among the 4 children (intervals [0,a) [a,ab) [ab,abc)
// [abc,..)): no divergent loop exits in a SIMD batch.
void pyramidStep(uint a, uint b, uint c, inout uint index, inout uint key) {
    const uint ab = a + b, abc = ab + c;
    const bool gA = key >= a, gAB = key >= ab, gABC = key >= abc;
    index = index * 4 + uint(gA) + uint(gAB) + uint(gABC);
    key -= gABC ? abc : gAB ? ab : gA ? a : 0u;
}

// Children of `index` in a u8 level: one word (bytes past the level's end are 0).
uint pyramidPackedChildren(uint level, uint index) {
    return index * 4 < grid.levelSize[level] ? pyramid[grid.levelWord[level] + index] : 0u;
}

uint pyramidFind(inout uint key) {
    uint index = 0;
    // 32-bit levels (loop bounds and the conditions below are uniform:
    // lavapipe would run both sides of a per-level branch).
    const int packed = int(grid.packedLevels);
    for (int level = int(grid.levelCount) - 2; level >= packed; --level) {
        const uint offset = grid.levelWord[level];
        const uint size = grid.levelSize[level];
        const uint mask = level == 0 ? kIsoCountMask : 0xffffffffu;
        const uint first = index * 4;
#ifdef ISO_PYRAMID_QUADS
        // Words past a level's end (up to its quad) are never written: masked by size.
        const uvec4 q = pyramidQuads[(offset + first) >> 2];
        const uint a = first < size ? q.x & mask : 0u;
        const uint b = first + 1 < size ? q.y & mask : 0u;
        const uint c = first + 2 < size ? q.z & mask : 0u;
#else
        const uint a = first < size ? pyramid[offset + first] & mask : 0u;
        const uint b = first + 1 < size ? pyramid[offset + first + 1] & mask : 0u;
        const uint c = first + 2 < size ? pyramid[offset + first + 2] & mask : 0u;
#endif
        pyramidStep(a, b, c, index, key);
    }
    if (packed != 0) {
        // u8 level 1 (sums), then level 0 (MC cases -> counts).
        if (grid.levelCount > 2u) {
            const uint w = pyramidPackedChildren(1u, index);
            pyramidStep(w & 0xffu, (w >> 8) & 0xffu, (w >> 16) & 0xffu, index, key);
        }
        if (grid.levelCount > 1u) {
            const uint w = pyramidPackedChildren(0u, index);
            pyramidStep(isoCaseCount(w & 0xffu), isoCaseCount((w >> 8) & 0xffu), isoCaseCount((w >> 16) & 0xffu),
                        index, key);
        }
    }
    return index;
}
#endif
