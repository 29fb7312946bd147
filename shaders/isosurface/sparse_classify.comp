#version 460
#extension GL_EXT_control_flow_attributes : require
#ifdef ISO_SUBGROUP_ATOMICS
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif
// Sparse domain, pass <name>.classify: a thread per row pair (2 rows of 8
// cells along x, kIsoClassifyCells cells) of each brick the activate pass
// listed, kIsoBrickRowPairs per brick, kIsoBricksPerGroup bricks per group
// (an indirect dispatch sized by <name>.sparse.args). It evaluates the
// user's field() on the pair's 6 sample rows (9 samples each: 54 calls for
// 16 cells), and only a pair with a cut cell claims a pool slot (an atomic;
// no barrier, which lavapipe pays dearly), sets its bit in its listed
// brick's pair mask (binding 6) and stages at its slot (binding 2,
// kIsoSlotStageWords words a slot) its 6 sample rows (2 words), record
// (listed brick << 5 | pair) and level-1 sums. The slot pass (sparse_slot_order.comp) then
// moves each pair to its place in list order and writes its pyramid words
// there: level 0 (the 16 MC cases, 4 words), level 1 (one word of 4 u8
// sums) and level 2 (the pair's vertex count), and the record for
// extraction to find the cells again. Slots past the pool count only
// (stats: needed, overflow); places nothing reaches keep the level-2 zeros
// of <name>.sparse.clear, so the build and the walk never enter them.
// ISO_SUBGROUP_ATOMICS (fused user fields where the device runs ballot and
// arithmetic): the cut pairs of a subgroup claim their slots with one
// atomic (consecutive slots in lane order), add their active cells with
// one more and, where they are all of one brick, set their pair-mask bits
// with a third; the slot pass puts every pair at its place in list order all
// the same, so the output does not depend on it.
// Cells past the grid's last cell (a short last brick) are case 0.
// Same cases as the dense classify: the corner bits of the same samples
// (isoUserSample) with the same offset-code swap.
// Fused only (ISO_USER_FIELD): compiled at creation with the snippet, or by
// the build for metaballs (ISO_SPARSE_METABALLS: the field sums the brick's
// balls, sparse_metaball_field.glsl) and volumes and particles
// (ISO_SPARSE_VOLUME: the samples of the resident bricks, or of the blocks
// sparse_particles_blocks.comp filled this frame, sparse_volume_field.glsl).
// A grid that fits (ISO_DIRECT_BRICKS): every brick of the grid is resident
// and its index is its place, so there is no brick list and no slot to
// claim: brick i's pair p is pool slot 32 i + p (the dispatch runs over every
// brick), and every pair writes its slot, cut or not. Slots, and so the
// triangles, come in brick order, the same in every run. Its field is the
// source's field buffer (ISO_DENSE_FIELD, dense_field.glsl) or, fused, the
// user's field(). Over the field buffer only the bricks brick_list.comp
// listed run (ISO_DIRECT_LIST: their indices at binding 5, in any order;
// the pool words of the others were cleared before), and a cut pair adds
// its count to level 3 too (an atomic into the cleared level: the first
// build pass then reads a quarter of the words); fused, every brick.
#if defined(ISO_DIRECT_BRICKS) && defined(ISO_DENSE_FIELD)
#define ISO_DIRECT_LIST
#endif
#if defined(ISO_SPARSE_METABALLS) || defined(ISO_SPARSE_VOLUME)
#ifndef ISO_STORAGE_READS
#define ISO_TEXEL_READS
#endif
#define ISO_USER_FIELD
#endif
#if defined(ISO_DENSE_FIELD) && !defined(ISO_STORAGE_READS)
#define ISO_TEXEL_READS
// The field buffer as quads (dense_field.glsl): 18 fetches a pair, not 54.
#define ISO_DENSE_FIELD_QUADS
#endif
#include "isosurface/common.glsl"
#include "isosurface/sparse_pair_cases.glsl"

layout(local_size_x = kIsoClassifyGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
#if defined(ISO_SPARSE_METABALLS)
#include "isosurface/sparse_metaball_field.glsl" // the brick's balls at bindings 7 and 8
#elif defined(ISO_SPARSE_VOLUME)
#include "isosurface/sparse_volume_field.glsl" // the resident bricks at binding 7, their table at 8
#elif defined(ISO_DENSE_FIELD)
#include "isosurface/dense_field.glsl" // the field buffer at binding 2
#else
#include "isosurface/user_field.glsl"
void isoSparseUseBrick(uint listedBrick) {}
#endif
layout(set = 0, binding = 3, std430) buffer PyramidBuf { uint pyramid[]; };
layout(set = 0, binding = 4, std430) buffer CountersBuf { IsoCounters counters; };
#ifdef ISO_DIRECT_LIST
layout(set = 0, binding = 5, std430) readonly buffer BrickListBuf { uint bricks[]; };
#endif
#ifndef ISO_DIRECT_BRICKS
layout(set = 0, binding = 5, std430) readonly buffer BrickListBuf { uint bricks[]; };
#ifdef ISO_SPARSE_VOLUME
uint isoListedEntry(uint listedBrick) { return bricks[listedBrick]; }
#endif
// Per listed brick, its row pairs with a cut cell (bit p for pair p).
layout(set = 0, binding = 6, std430) buffer PairMaskBuf { uint pairMasks[]; };
// Per claimed slot the pair's rows and record (sparse_slot_order.comp).
layout(set = 0, binding = 2, std430) writeonly buffer SlotStageBuf { uvec4 slotStage[]; };
#endif

// Inside bits of samples s .. s + (8, 0, 0), bit k for s + (k, 0, 0); none
// for a row past the grid's last sample (its cells are masked anyway).
uint insideRow9(uvec3 s, float iso) {
    uint bits = 0u;
#if defined(ISO_SPARSE_METABALLS) || defined(ISO_SPARSE_VOLUME) || defined(ISO_DENSE_FIELD)
    if (s.y < grid.samples.y && s.z < grid.samples.z) bits = isoSparseInsideRow9(s, iso);
#else
    if (s.y < grid.samples.y && s.z < grid.samples.z)
        for (uint k = 0u; k < 9u; ++k) bits |= (isoUserSample(s + uvec3(k, 0u, 0u)) >= iso ? 1u : 0u) << k;
#endif
    return bits;
}

void main() {
    isoBeginUserFrame();
    const uint l = gl_LocalInvocationIndex;
#if defined(ISO_DIRECT_LIST)
    const uint listed = counters.sparseBricks; // at most every brick of the grid
#elif defined(ISO_DIRECT_BRICKS)
    const uint listed = grid.sparseLimits.z; // every brick of the grid
#else
    const uint listed = min(counters.sparseBricks, grid.sparseLimits.x);
#endif
    const uint brickSlot = linearGroup() * kIsoBricksPerGroup + l / kIsoBrickRowPairs;
    if (brickSlot >= listed) return;
    const uint pair = l % kIsoBrickRowPairs;
    isoSparseUseBrick(brickSlot);
#ifdef ISO_DIRECT_BRICKS
#ifdef ISO_DIRECT_LIST
    const uint brick = bricks[brickSlot];
#else
    const uint brick = brickSlot;
#endif
    const uvec3 b = isoBrickOf(brick, grid.sparse, grid.brickDivisors);
    const uint directSlot = brick * kIsoBrickRowPairs + pair;
#else
    const uint packed = bricks[brickSlot];
    const uint mask = (1u << kIsoBrickAxisBits) - 1u;
    const uvec3 b = uvec3(packed & mask, (packed >> kIsoBrickAxisBits) & mask, packed >> (2 * kIsoBrickAxisBits));
#endif
    // First cell of the pair: rows y0 and y0 + 1 of slice z.
    const uvec3 c0 = b * kIsoBrickCells + uvec3(0u, (pair & 3u) * 2u, pair >> 2);
    if (c0.z >= grid.cells.z || c0.y >= grid.cells.y) {
#ifdef ISO_DIRECT_BRICKS
        // A pair past the grid (a short last brick): no cell, nothing counted.
        const uint w0 = grid.levels[0].x + directSlot * 4u;
        pyramid[w0] = 0u;
        pyramid[w0 + 1u] = 0u;
        pyramid[w0 + 2u] = 0u;
        pyramid[w0 + 3u] = 0u;
        pyramid[grid.levels[1].x + directSlot] = 0u;
        pyramid[grid.levels[2].x + directSlot] = 0u;
#endif
        return;
    }
    const float iso = pc.iso;
    // Sample rows (y0 + j, z + k), j = 0..2, k = 0..1.
    const uint r00 = insideRow9(c0, iso), r10 = insideRow9(c0 + uvec3(0u, 1u, 0u), iso),
               r20 = insideRow9(c0 + uvec3(0u, 2u, 0u), iso), r01 = insideRow9(c0 + uvec3(0u, 0u, 1u), iso),
               r11 = insideRow9(c0 + uvec3(0u, 1u, 1u), iso), r21 = insideRow9(c0 + uvec3(0u, 2u, 1u), iso);
    // Cells of a row: x < cells.x; the second row: y0 + 1 < cells.y.
    const uint xCells = min(kIsoBrickCells, grid.cells.x - c0.x);
    const bool secondRow = c0.y + 1u < grid.cells.y;
    uvec4 cases;
    uint sums1, actives;
    // A pair whose in-grid corners are all outside or all inside has no cut
    // cell: its cases are 0 or 255 (out-of-grid cells 0), as isoPairCases
    // would find them, without its 16 case counts. lavapipe runs the loop
    // only for a SIMD batch with a cut pair in it (the cell-order classify
    // skipped uniform runs the same way).
    const uint corners = (2u << xCells) - 1u; // sample bits 0 .. xCells of a row
    const uint anyInside = (r00 | r10 | r01 | r11 | (secondRow ? r20 | r21 : 0u)) & corners;
    const uint allInside = r00 & r10 & r01 & r11 & (secondRow ? r20 & r21 : corners) & corners;
    if (anyInside == 0u || allInside == corners) {
        // Bytes of the row's cells x < xCells.
        const uint lo = xCells >= 4u ? 0xffffffffu : (1u << (8u * xCells)) - 1u;
        const uint hi = xCells >= 8u ? 0xffffffffu : xCells <= 4u ? 0u : (1u << (8u * (xCells - 4u))) - 1u;
        cases = anyInside == 0u ? uvec4(0u) : uvec4(lo, hi, secondRow ? lo : 0u, secondRow ? hi : 0u);
        sums1 = 0u;
        actives = 0u;
    } else {
        isoPairCases(r00, r10, r20, r01, r11, r21, xCells, secondRow, cases, sums1, actives);
    }
    const uint total = isoByteSum(sums1);
#ifdef ISO_DIRECT_BRICKS
    // Every pair writes its words, cut or not: the pyramid's base is the
    // same bits in every run (indexed output reads every slot's cases).
    if (total != 0u) {
        atomicAdd(counters.activeCells, actives);
        atomicAdd(counters.sparseSlots, 1u); // the stats' cut pairs (a sum: the same in every run)
#ifdef ISO_DIRECT_LIST
        atomicAdd(pyramid[grid.levels[3].x + directSlot / 4u], total);
#endif
    }
    const uint word0 = grid.levels[0].x + directSlot * 4u;
    pyramid[word0] = cases.x;
    pyramid[word0 + 1u] = cases.y;
    pyramid[word0 + 2u] = cases.z;
    pyramid[word0 + 3u] = cases.w;
    pyramid[grid.levels[1].x + directSlot] = sums1;
    pyramid[grid.levels[2].x + directSlot] = total;
#else
    if (total == 0u) return;
#ifdef ISO_SUBGROUP_ATOMICS
    // The lanes still here are the subgroup's cut pairs; where they are all
    // of one brick (a subgroup of up to 32 lanes of one brick's pairs), one
    // lane sets their mask bits.
    const uvec4 cut = subgroupBallot(true);
    const uint subgroupActives = subgroupAdd(actives), pairBits = subgroupOr(1u << pair);
    const bool oneBrick = subgroupBallot(brickSlot == subgroupBroadcastFirst(brickSlot)) == cut;
    if (!oneBrick) atomicOr(pairMasks[brickSlot], 1u << pair);
    uint first = 0u;
    if (subgroupElect()) {
        if (oneBrick) atomicOr(pairMasks[brickSlot], pairBits);
        atomicAdd(counters.activeCells, subgroupActives);
        first = atomicAdd(counters.sparseSlots, subgroupBallotBitCount(cut));
    }
    const uint slot = subgroupBroadcastFirst(first) + subgroupBallotExclusiveBitCount(cut);
#else
    atomicOr(pairMasks[brickSlot], 1u << pair);
    atomicAdd(counters.activeCells, actives);
    const uint slot = atomicAdd(counters.sparseSlots, 1u);
#endif
    if (slot >= grid.sparseLimits.y) return;
    // For the slot pass: the rows, the record and the sums (sparse_slot_order.comp).
    slotStage[slot] = uvec4(isoPairRowWords(r00, r10, r20, r01, r11, r21), brickSlot << 5 | pair, sums1);
#endif
}
