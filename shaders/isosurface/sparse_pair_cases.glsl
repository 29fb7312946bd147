// Sparse domains: a row pair's 16 MC cases from its 6 sample rows' inside
// bits (9 each: bit k for sample x0 + k; rows (y0 + j, z + k), j = 0..2,
// k = 0..1), as classify finds them and as the slot pass
// (sparse_slot_order.comp) rebuilds them from the two words classify left
// for it (isoPairRowWords). Cells past the grid (x >= xCells, or the second
// row where !secondRow) are case 0. Uses isoCaseCount (common.glsl).
#ifndef ISO_SPARSE_PAIR_CASES_GLSL
#define ISO_SPARSE_PAIR_CASES_GLSL

// vertex_owner.glsl's corner swap, without its bindings.
uint isoCornerBitsByCode(uint mcCase) { return (mcCase & 0x33u) | ((mcCase & 0x44u) << 1) | ((mcCase & 0x88u) >> 1); }

uint isoByteSum(uint w) { return (w & 0xffu) + ((w >> 8) & 0xffu) + ((w >> 16) & 0xffu) + (w >> 24); }

// Cases in registers (no dynamically indexed array: lavapipe would keep it
// in memory): cases.x holds cells 0-3 (a byte each), .y 4-7, ...; sums1 the
// u8 vertex counts of the 4 quads (the pyramid's level 1), actives the cells
// with a vertex.
// Cell i's case (0 past the grid).
uint isoPairCellCase(uint i, uint r00, uint r10, uint r20, uint r01, uint r11, uint r21, uint xCells, bool secondRow) {
    const uint k = i & 7u;
    const bool second = i >= 8u;
    const uint a0 = second ? r10 : r00, a1 = second ? r20 : r10, b0 = second ? r11 : r01, b1 = second ? r21 : r11;
    const uint byCode = ((a0 >> k) & 3u) | ((a1 >> k) & 3u) << 2 | ((b0 >> k) & 3u) << 4 | ((b1 >> k) & 3u) << 6;
    const bool inGrid = k < xCells && (!second || secondRow);
    return inGrid ? isoCornerBitsByCode(byCode) : 0u;
}

void isoPairCases(uint r00, uint r10, uint r20, uint r01, uint r11, uint r21, uint xCells, bool secondRow,
                  out uvec4 cases, out uint sums1, out uint actives) {
    cases = uvec4(0u);
    sums1 = 0u;
    actives = 0u;
    for (uint i = 0u; i < kIsoClassifyCells; ++i) {
        const uint mcCase = isoPairCellCase(i, r00, r10, r20, r01, r11, r21, xCells, secondRow);
        const uint count = isoCaseCount(mcCase);
        const uint caseBits = mcCase << (8u * (i & 3u));
        cases.x |= i < 4u ? caseBits : 0u;
        cases.y |= i - 4u < 4u ? caseBits : 0u;
        cases.z |= i - 8u < 4u ? caseBits : 0u;
        cases.w |= i >= 12u ? caseBits : 0u;
        sums1 += count << (8u * (i >> 2));
        actives += count != 0u ? 1u : 0u;
    }
}

// The cases alone (the slot pass, which has the sums from classify).
uvec4 isoPairCaseWords(uint r00, uint r10, uint r20, uint r01, uint r11, uint r21, uint xCells, bool secondRow) {
    uvec4 cases = uvec4(0u);
    for (uint i = 0u; i < kIsoClassifyCells; ++i) {
        const uint caseBits = isoPairCellCase(i, r00, r10, r20, r01, r11, r21, xCells, secondRow) << (8u * (i & 3u));
        cases.x |= i < 4u ? caseBits : 0u;
        cases.y |= i - 4u < 4u ? caseBits : 0u;
        cases.z |= i - 8u < 4u ? caseBits : 0u;
        cases.w |= i >= 12u ? caseBits : 0u;
    }
    return cases;
}

// The rows as two words (27 bits each): those of slice z, those of z + 1.
uvec2 isoPairRowWords(uint r00, uint r10, uint r20, uint r01, uint r11, uint r21) {
    return uvec2(r00 | r10 << 9 | r20 << 18, r01 | r11 << 9 | r21 << 18);
}
#endif
