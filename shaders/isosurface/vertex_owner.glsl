// Shared vertices (indexed output): every cut edge of the grid is one
// vertex, owned by one cell. An edge starts at its lower sample p and runs
// along one axis; its owner is the cell at p, clamped back into the grid
// along the other axes (edges on the grid's last face along an axis belong
// to the last cell along it). So an interior cell owns the x, y and z edges
// at its corner 0, and a cell on the last face along axis b also owns the
// edges whose start corner is at +1 along b: the owned start corners are the
// subsets of the cell's boundary bits. A cell's vertices are its owned cut
// edges, x edges first, then y, then z, by start corner within an axis. All
// of it comes from the cell's MC case and position: no field read.
#ifndef ISO_VERTEX_OWNER_GLSL
#define ISO_VERTEX_OWNER_GLSL

// Inside bits of a cell's corners by offset code (x | y << 1 | z << 2) from
// its MC case: the MC corners 2, 3 and 6, 7 are the codes 3, 2 and 7, 6
// (kIsoCornerCodes; layout.cpp checks the swap against it).
uint isoCornerBitsByCode(uint mcCase) { return (mcCase & 0x33u) | ((mcCase & 0x44u) << 1) | ((mcCase & 0x88u) >> 1); }

// Start corners (offset codes) of the cell's cut edges, x edges in bits
// 0..7 (codes 0, 2, 4, 6), y edges in bits 8..15 (codes 0, 1, 4, 5), z edges
// in bits 16..23 (codes 0, 1, 2, 3): one word, so that counting takes one bitCount.
uint isoCutEdgeStarts(uint byCode) {
    return ((byCode ^ (byCode >> 1)) & 0x55u) | (((byCode ^ (byCode >> 2)) & 0x33u) << 8) |
           (((byCode ^ (byCode >> 4)) & 0x0fu) << 16);
}

// Bit a set where cell c is the last cell along axis a.
uint isoBoundaryBits(ivec3 c) {
    const ivec3 last = ivec3(grid.cells.xyz) - 1;
    return (c.x == last.x ? 1u : 0u) | (c.y == last.y ? 2u : 0u) | (c.z == last.z ? 4u : 0u);
}

// Start corners a cell owns, as a mask over offset codes (the subsets of
// its boundary bits) repeated for the three axes of isoCutEdgeStarts.
uint isoOwnedStarts(uint boundary) {
    uint m = 1u;
    m |= (boundary & 1u) != 0u ? m << 1 : 0u;
    m |= (boundary & 2u) != 0u ? m << 2 : 0u;
    m |= (boundary & 4u) != 0u ? m << 4 : 0u;
    return m * 0x010101u;
}

uint isoOwnedVertexCount(uint byCode, uint boundary) {
    return bitCount(isoCutEdgeStarts(byCode) & isoOwnedStarts(boundary));
}

// Index among its owner's vertices of the owned cut edge along `axis` that
// starts at offset code `start` (x edges, then y, then z; by start code).
uint isoOwnedVertexRank(uint byCode, uint boundary, uint axis, uint start) {
    const uint owned = isoCutEdgeStarts(byCode) & isoOwnedStarts(boundary);
    return bitCount(owned & ((1u << (8u * axis + start)) - 1u));
}

#endif
