// Top-down HistoPyramid traversal: key -> (base element, local index).
// Needs `grid` (level tables) and `pyramid` declared by the includer.
#ifndef ISO_PYRAMID_FIND_GLSL
#define ISO_PYRAMID_FIND_GLSL

uint pyramidTotal() {
    const uint top = grid.levelCount - 1;
    uint total = pyramid[grid.levelOffset[top]];
    return top == 0 ? total & kIsoCountMask : total;
}

// Returns the base element whose interval holds `key`; key becomes the
// index within that element. Level 0 elements keep the count in the low bits.
uint pyramidFind(inout uint key) {
    uint index = 0;
    for (int level = int(grid.levelCount) - 2; level >= 0; --level) {
        const uint offset = grid.levelOffset[level];
        const uint size = grid.levelSize[level];
        const uint mask = level == 0 ? kIsoCountMask : 0xffffffffu;
        // Branch-free choice among the 4 children (intervals [0,a) [a,ab)
        // [ab,abc) [abc,..)): no divergent loop exits in a SIMD batch.
        const uint first = index * 4;
        const uint a = first < size ? pyramid[offset + first] & mask : 0u;
        const uint b = first + 1 < size ? pyramid[offset + first + 1] & mask : 0u;
        const uint c = first + 2 < size ? pyramid[offset + first + 2] & mask : 0u;
        const uint ab = a + b, abc = ab + c;
        const bool gA = key >= a, gAB = key >= ab, gABC = key >= abc;
        index = first + uint(gA) + uint(gAB) + uint(gABC);
        key -= gABC ? abc : gAB ? ab : gA ? a : 0u;
    }
    return index;
}
#endif
