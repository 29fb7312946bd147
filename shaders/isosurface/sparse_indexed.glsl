// Indexed output on a sparse domain: where a cut edge's owner cell
// (vertex_owner.glsl) lives in the pool. The owner of an edge is a cell that
// contains it, so it is cut, its row pair took a slot and its brick is listed
// whenever the cells using the edge are (activation is conservative over
// every sample of a brick's cells); it can lie in another row pair or, for a
// cell on a brick's +x/+y/+z face, in one of the 7 bricks above. Two tables
// per frame, sized by the brick list, never by the virtual grid (the
// lookup buffer, `sparseLookup[]`, declared by the includer):
// - a hash of the bricks that hold a pooled pair: 2 words per entry (packed
//   brick coordinates + 1, 0 = empty; the brick's list index), open
//   addressing, 2^isoBrickHashBits() entries >= twice the brick list's
//   capacity, so it is at most half full;
// - after it, kIsoBrickRowPairs words per listed brick: each row pair's pool
//   slot, ~0u where the pair took none;
// - after those, 8 words per listed brick: word 0 the brick's lowest pool
//   slot (the one that fills the rest), words 1-7 the list entries of its
//   neighbours above (offset code x | y << 1 | z << 2), ~0u where one is
//   not listed or holds no pooled pair.
// The count pass (sparse_vertex_count.comp) fills the hash and the pair
// slots, the bases pass (sparse_vertex_bases.comp) the neighbours, from the
// hash; extraction reads pair slots and neighbours, one load each, no probe
// loop. Needs `grid` and, unless ISO_SPARSE_NO_LOOKUP, `sparseLookup`.
#ifndef ISO_SPARSE_INDEXED_GLSL
#define ISO_SPARSE_INDEXED_GLSL

const uint kIsoNoSlot = 0xffffffffu;

// The same rule as sparseLookupWords() in sparse_indexed.cpp.
uint isoBrickHashBits() { return uint(findMSB(2u * max(grid.sparseLimits.x, 1u) - 1u)) + 1u; }

// Fibonacci hashing: brick keys differ in their low bits along x and by
// 2^10, 2^20 along y, z; the multiply spreads them over the top bits.
uint isoBrickHashStart(uint key, uint bits) { return (key * 0x9E3779B1u) >> (32u - bits); }

uint isoPairSlotWord(uint listedBrick, uint pair) {
    return 2u * (1u << isoBrickHashBits()) + listedBrick * kIsoBrickRowPairs + pair;
}

uint isoNeighbourWord(uint listedBrick, uint code) {
    return 2u * (1u << isoBrickHashBits()) + grid.sparseLimits.x * kIsoBrickRowPairs + listedBrick * 8u + code;
}

uvec3 isoUnpackBrick(uint packed) {
    const uint mask = (1u << kIsoBrickAxisBits) - 1u;
    return uvec3(packed & mask, (packed >> kIsoBrickAxisBits) & mask, packed >> (2 * kIsoBrickAxisBits));
}

uint isoPackBrick(uvec3 b) { return b.x | (b.y << kIsoBrickAxisBits) | (b.z << (2 * kIsoBrickAxisBits)); }

// Row pair and cell (0..15) within it of a cell at brick-local coordinates l.
uint isoPairOf(uvec3 l) { return (l.y >> 1) | (l.z << 2); }
uint isoPairCellOf(uvec3 l) { return l.x | ((l.y & 1u) << 3); }

// First cell of a row pair of brick b: rows 2 (pair & 3) and + 1 of slice pair / 4.
uvec3 isoPairOrigin(uvec3 b, uint pair) { return b * kIsoBrickCells + uvec3(0u, (pair & 3u) * 2u, pair >> 2); }

#ifndef ISO_SPARSE_NO_LOOKUP
// The list index of the brick with packed coordinates `packed`, or kIsoNoSlot.
uint isoListedBrickAt(uint packed) {
    const uint bits = isoBrickHashBits(), mask = (1u << bits) - 1u, key = packed + 1u;
    uint h = isoBrickHashStart(key, bits);
    for (uint probe = 0u; probe <= mask; ++probe, h = (h + 1u) & mask) {
        const uint seen = sparseLookup[2u * h];
        if (seen == key) return sparseLookup[2u * h + 1u];
        if (seen == 0u) break;
    }
    return kIsoNoSlot;
}
#endif

#endif
