// Top-down HistoPyramid traversal: key -> (base element, local index).
// Needs `grid` (level tables) and `pyramid` declared by the includer.
#ifndef ISO_PYRAMID_FIND_GLSL
#define ISO_PYRAMID_FIND_GLSL

uint pyramidTotal() {
    const uint top = grid.levelCount - 1;
    return ISO_LEVEL_COUNT(pyramid, grid, top, 0u);
}

// Returns the base element whose interval holds `key`; key becomes the
// index within that element. Level 0 elements keep the count in the low bits,
// or (packed) are MC cases whose count comes from kIsoCaseCounts.
uint pyramidFind(inout uint key) {
    uint index = 0;
    for (int level = int(grid.levelCount) - 2; level >= 0; --level) {
        const uint offset = grid.levelWord[level];
        const uint size = grid.levelSize[level];
        // Branch-free choice among the 4 children (intervals [0,a) [a,ab)
        // [ab,abc) [abc,..)): no divergent loop exits in a SIMD batch.
        const uint first = index * 4;
        uint a, b, c;
        if (uint(level) < grid.packedLevels) {
            // u8 level: the 4 children are one word (bytes past the level's end are 0).
            const uint w = first < size ? pyramid[offset + index] : 0u;
            a = w & 0xffu;
            b = (w >> 8) & 0xffu;
            c = (w >> 16) & 0xffu;
            if (level == 0) {
                a = isoCaseCount(a);
                b = isoCaseCount(b);
                c = isoCaseCount(c);
            }
        } else {
            const uint mask = level == 0 ? kIsoCountMask : 0xffffffffu;
            a = first < size ? pyramid[offset + first] & mask : 0u;
            b = first + 1 < size ? pyramid[offset + first + 1] & mask : 0u;
            c = first + 2 < size ? pyramid[offset + first + 2] & mask : 0u;
        }
        const uint ab = a + b, abc = ab + c;
        const bool gA = key >= a, gAB = key >= ab, gABC = key >= abc;
        index = first + uint(gA) + uint(gAB) + uint(gABC);
        key -= gABC ? abc : gAB ? ab : gA ? a : 0u;
    }
    return index;
}
#endif
