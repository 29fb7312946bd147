// Top-down HistoPyramid traversal: key -> (base element, local index).
// Needs `grid` (level tables) declared by the includer, and the pyramid:
// - ISO_TEXEL_READS: `pyramidTexels`, a uniform texel buffer of uvec4 quads
//   (R32G32B32A32_UINT) over the cell pyramid, whose 32-bit levels are
//   quad-aligned (pyramidLevels in layout.cpp): an element's 4 children come
//   in one texel fetch, which lavapipe runs as a vector gather;
// - otherwise `pyramid` (uint), and with ISO_PYRAMID_QUADS (a quad-aligned
//   pyramid) `pyramidQuads`, a uvec4 view of the same storage buffer.
#ifndef ISO_PYRAMID_FIND_GLSL
#define ISO_PYRAMID_FIND_GLSL

#ifdef ISO_TEXEL_READS
#define ISO_PYRAMID_QUADS
uvec4 pyramidQuadAt(uint q) { return texelFetch(pyramidTexels, int(q)); }
uint pyramidWordAt(uint w) {
    const uvec4 q = pyramidQuadAt(w >> 2);
    const uint k = w & 3u;
    return k == 0u ? q.x : k == 1u ? q.y : k == 2u ? q.z : q.w;
}
#else
uint pyramidWordAt(uint w) { return pyramid[w]; }
#ifdef ISO_PYRAMID_QUADS
uvec4 pyramidQuadAt(uint q) { return pyramidQuads[q]; }
#endif
#endif

// Element i of `level` as stored (u8 levels unpacked).
uint pyramidElement(uint level, uint i) {
    const bool packed = level < grid.packedLevels;
    return isoUnpack(pyramidWordAt(grid.levels[level].x + (packed ? i >> 2 : i)), packed, i);
}

uint pyramidTotal() {
    const uint top = grid.levelCount - 1;
    return isoCount(pyramidElement(top, 0u), top, grid.packedLevels);
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
    return index * 4 < grid.levels[level].y ? pyramidWordAt(grid.levels[level].x + index) : 0u;
}

// One step down from element `index` of level `level` + 1 through the
// 32-bit level `level`.
void pyramidLevelStep(int level, inout uint index, inout uint key) {
    const uint offset = grid.levels[level].x;
    const uint size = grid.levels[level].y;
    const uint mask = level == 0 ? kIsoCountMask : 0xffffffffu;
    const uint first = index * 4;
#ifdef ISO_PYRAMID_QUADS
    // Words past a level's end (up to its quad) are never written: masked by size.
    const uvec4 q = pyramidQuadAt((offset + first) >> 2);
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

// The u8 levels: level 1 (sums) when the walk is above it, then level 0
// (MC cases -> counts; also with one level: one cell, index 0, word 0,
// key < its count). Returns the level-0 word it read.
uint pyramidPackedSteps(uint levelCount, inout uint index, inout uint key) {
    if (levelCount > 2u) {
        const uint w = pyramidPackedChildren(1u, index);
        pyramidStep(w & 0xffu, (w >> 8) & 0xffu, (w >> 16) & 0xffu, index, key);
    }
    const uint cases = pyramidPackedChildren(0u, index);
    pyramidStep(isoCaseCount(cases & 0xffu), isoCaseCount((cases >> 8) & 0xffu), isoCaseCount((cases >> 16) & 0xffu),
                index, key);
    return cases;
}

// `cases` receives the found cell's level-0 word (its MC case is byte
// cell & 3): the walk loaded it, so callers need not fetch it again.
uint pyramidFindWithCases(inout uint key, out uint cases) {
    uint index = 0;
    cases = 0u;
    // 32-bit levels (loop bounds and the conditions below are uniform:
    // lavapipe would run both sides of a per-level branch).
    const int packed = int(isoOpaque(grid.packedLevels));
    const uint levelCount = isoOpaque(grid.levelCount);
    for (int level = int(levelCount) - 2; level >= packed; --level) pyramidLevelStep(level, index, key);
    if (packed != 0) cases = pyramidPackedSteps(levelCount, index, key);
    return index;
}

// Two walks at once, level by level: each level's fetch depends on the
// level above, so one walk is a chain of dependent loads (~12 at 255^3);
// two independent chains in one invocation let the CPU overlap their
// latencies (lavapipe runs a SIMD batch's instructions in order of the
// shader, one batch after another).
uvec2 pyramidFind2WithCases(inout uvec2 keys, out uvec2 cases) {
    uint index0 = 0, index1 = 0, key0 = keys.x, key1 = keys.y;
    cases = uvec2(0u);
    const int packed = int(isoOpaque(grid.packedLevels));
    const uint levelCount = isoOpaque(grid.levelCount);
    for (int level = int(levelCount) - 2; level >= packed; --level) {
        pyramidLevelStep(level, index0, key0);
        pyramidLevelStep(level, index1, key1);
    }
    if (packed != 0) {
        cases.x = pyramidPackedSteps(levelCount, index0, key0);
        cases.y = pyramidPackedSteps(levelCount, index1, key1);
    }
    keys = uvec2(key0, key1);
    return uvec2(index0, index1);
}
#endif
