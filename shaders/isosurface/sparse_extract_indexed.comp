#version 460
// Indexed output on a sparse domain, pass <name>.extract: one thread per
// TRIANGLE of the pool pyramid (indirect), as extract_indexed.comp: walk to
// the pool cell (slot * 16 + i), its slot's record -> brick and row pair ->
// virtual-grid cell; per edge the owner cell (vertex_owner.glsl: the cell
// itself or one further along the axes the edge's start corner is offset
// on), and where it lives: the same row pair, another pair of the same
// brick (its slot from the brick's pair table) or, for a cell on a brick's
// +x/+y/+z face, a brick above (its list entry from the brick's neighbour
// entries, which the bases pass found in the brick hash; sparse_indexed.glsl). Then the vertex index as in the dense path: the
// owner slot's first vertex (sparse_vertex_bases.comp) + the sums of the
// quads before the owner's in the slot + the owned cut edges of the cells
// before it in its quad + the edge's rank. No field read.
// Indices are written only when every vertex fits the vertex buffer, within
// the index capacity (whole triangles). An owner the pool does not hold can
// only follow an overflow (bricks, slots or item references ran out, which
// the frame reports): the triangle is written degenerate (0, 0, 0), so the
// draw reads no vertex that was not written.
// A grid that fits (ISO_DIRECT_BRICKS): slot 32 i + p is brick i's pair p,
// so an owner's slot is arithmetic (no record, list or lookup) and every
// owner is in the pool.
#ifndef ISO_STORAGE_READS
#define ISO_TEXEL_READS
#endif
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std140) uniform TablesBuf { IsoTables tables; };
layout(set = 0, binding = 2, std140) uniform VertexGridBuf { IsoGrid vertexGrid; };
// The pool pyramid, the vertex pyramid and the slots' first vertices:
// texel buffers where the device's maxTexelBufferElements covers them (a
// walk's fetch of 4 children is one vector gather on lavapipe, a storage
// load runs lane by lane), else storage buffers (the .storage variant), as
// extract_indexed.comp.
#ifdef ISO_TEXEL_READS
layout(set = 0, binding = 3) uniform usamplerBuffer pyramidTexels;       // RGBA32_UINT quads
layout(set = 0, binding = 4) uniform usamplerBuffer vertexPyramidTexels; // R32_UINT
layout(set = 0, binding = 5) uniform usamplerBuffer runBaseTexels;       // R32_UINT
uint vertexWordAt(uint w) { return texelFetch(vertexPyramidTexels, int(w)).x; }
uint runBaseAt(uint slot) { return texelFetch(runBaseTexels, int(slot)).x; }
#else
layout(set = 0, binding = 3, std430) readonly buffer PyramidBuf { uint pyramid[]; };
layout(set = 0, binding = 3, std430) readonly buffer PyramidQuadBuf { uvec4 pyramidQuads[]; };
#define ISO_PYRAMID_QUADS
layout(set = 0, binding = 4, std430) readonly buffer VertexPyramidBuf { uint vertexPyramid[]; };
layout(set = 0, binding = 5, std430) readonly buffer RunBaseBuf { uint runBase[]; };
uint vertexWordAt(uint w) { return vertexPyramid[w]; }
uint runBaseAt(uint slot) { return runBase[slot]; }
#endif
#ifdef ISO_DIRECT_BRICKS
#define ISO_SPARSE_NO_LOOKUP
#else
layout(set = 0, binding = 7, std430) readonly buffer SlotBuf { uint slotRecords[]; };
layout(set = 0, binding = 8, std430) readonly buffer BrickListBuf { uint bricks[]; };
layout(set = 0, binding = 9, std430) readonly buffer LookupBuf { uint sparseLookup[]; };
#endif
// The index buffer: slice 0 at binding 6, slices 1.. at 10.. (output_slices.glsl).
#define ISO_INDEX_SLICES 6
#define ISO_INDEX_SLICES_NEXT 10
#define ISO_INDEX_WRITE
#include "isosurface/output_slices.glsl"

#include "isosurface/pyramid_find.glsl"
#include "isosurface/sparse_indexed.glsl"
#include "isosurface/vertex_owner.glsl"

void main() {
    const uint triangle = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    if (triangle >= pyramidTotal() / 3u) return;
    const uint top = vertexGrid.levelCount - 1u;
    const bool writeIndices =
        vertexWordAt(vertexGrid.levels[top].x) <= grid.vertexCapacity && triangle < grid.indexCapacity / 3u;
    if (!writeIndices) return;
    uint key = triangle * 3u;
    uint cellWord;
    const uint cell = pyramidFindWithCases(key, cellWord);
    const uint slot = cell / kIsoClassifyCells;
#ifdef ISO_DIRECT_BRICKS
    const uint listed = slot >> 5, pair = slot & 31u;
    const uvec3 brick = isoBrickOf(listed, grid.sparse, grid.brickDivisors);
#else
    const uint record = slotRecords[slot];
    const uint listed = record >> 5, pair = record & 31u;
    const uvec3 brick = isoUnpackBrick(bricks[listed]);
#endif
    const uint i = cell % kIsoClassifyCells;
    const ivec3 c = ivec3(isoPairOrigin(brick, pair)) + ivec3(i & 7u, i >> 3, 0);
    const uint mcCase = (cellWord >> (8u * (cell & 3u))) & 0xffu;
    const uint boundary = isoBoundaryBits(c);
    const uvec2 edges = tables.cases[mcCase].xy;
    uvec3 index = uvec3(0u);
    bool found = true;
    for (uint v = 0u; v < 3u; ++v) {
        const uint local = key + v;
        const uint edge = ((local < 8u ? edges.x : edges.y) >> (4u * (local & 7u))) & 0xfu;
        const uint word = edge < 4u ? kIsoEdgeCodes0 : edge < 8u ? kIsoEdgeCodes1 : kIsoEdgeCodes2;
        const uint codes = (word >> (8u * (edge & 3u))) & 0xffu;
        const uint start = codes & 7u, axis = findLSB(start ^ ((codes >> 4) & 7u));
        const uint shift = start & ~boundary;
        const uvec3 oc = uvec3(c + ivec3(shift & 1u, (shift >> 1) & 1u, (shift >> 2) & 1u));
        const uvec3 ob = oc / kIsoBrickCells, ol = oc % kIsoBrickCells;
#ifdef ISO_DIRECT_BRICKS
        const uint ownerSlot = (ob.x + grid.sparse.x * (ob.y + grid.sparse.y * ob.z)) * kIsoBrickRowPairs + isoPairOf(ol);
#else
        const uvec3 db = ob - brick;
        const uint code = db.x | (db.y << 1) | (db.z << 2);
        const uint ownerListed = code == 0u ? listed : sparseLookup[isoNeighbourWord(listed, code)];
        const uint ownerPair = isoPairOf(ol);
        uint ownerSlot = slot;
        if (ownerListed != listed || ownerPair != pair)
            ownerSlot = ownerListed == kIsoNoSlot ? kIsoNoSlot : sparseLookup[isoPairSlotWord(ownerListed, ownerPair)];
#endif
        if (ownerSlot == kIsoNoSlot) {
            found = false;
            continue;
        }
        const uint oi = isoPairCellOf(ol);
        const uint quad = oi >> 2;
        const uint ownerWord = ownerSlot == slot && quad == ((cell >> 2) & 3u)
                                   ? cellWord
                                   : pyramidWordAt(grid.levels[0].x + ownerSlot * 4u + quad);
        // The slot's first vertex, the quads before the owner's, the cells before it in its quad.
        uint prefix = runBaseAt(ownerSlot);
        const uint quadSums =
            quad == 0u ? 0u : vertexWordAt(vertexGrid.levels[0].x + ownerSlot) & ((1u << (8u * quad)) - 1u);
        prefix += (quadSums * 0x01010101u) >> 24;
        ivec3 p = ivec3(oc);
        for (uint k = oi & 3u; k > 0u; --k) {
            p.x -= 1;
            prefix += isoOwnedVertexCount(isoCornerBitsByCode((ownerWord >> (8u * (k - 1u))) & 0xffu),
                                          isoBoundaryBits(p));
        }
        const uint ownerCase = (ownerWord >> (8u * (oi & 3u))) & 0xffu;
        index[v] = prefix + isoOwnedVertexRank(isoCornerBitsByCode(ownerCase), isoBoundaryBits(ivec3(oc)), axis,
                                               start & boundary);
    }
    if (!found) index = uvec3(0u);
    isoStoreIndex(triangle * 3u, index.x);
    isoStoreIndex(triangle * 3u + 1u, index.y);
    isoStoreIndex(triangle * 3u + 2u, index.z);
}
