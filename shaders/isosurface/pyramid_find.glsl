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
        uint child = index * 4;
        for (uint c = 0; c < 3; ++c) {
            const uint v = child < size ? (pyramid[offset + child] & mask) : 0u;
            if (key < v) break;
            key -= v;
            ++child;
        }
        index = child;
    }
    return index;
}
#endif
