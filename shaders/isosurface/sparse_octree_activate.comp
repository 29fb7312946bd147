#version 460
// Sparse volume fed by a voxel octree (SparseVolumeInput::OctreeLeaves),
// every frame on the GPU, no read-back: the occupied leaves of the octree
// the host's graph built this frame become the surface bricks of the
// volume pool, as an upload would have left them (sparse_volume.cpp): the
// field is 1 at an occupied leaf voxel and 0 elsewhere, sampled at the voxel
// centres (sample s = voxel s), in U8. Then classify and extraction read the
// pool as for any sparse volume (sparse_volume_field.glsl).
//
// Two builds (sparse_octree.cpp), so that no pass writes the dispatch it is
// launched by (a shader's bindings count as accessed in every mode):
// ISO_OCTREE_ARGS, modes
//   0  <name>.sparse.octree.leaves.args: the leaf level's nodes (the tile
//      range the octree's counters hold at the words pc.user1.xy) -> the
//      mark and scatter passes' dispatch (octreeDispatch[0])
//   2  <name>.sparse.octree.bricks.args: the surface bricks marked ->
//      the activate pass's dispatch (octreeDispatch[1])
// and the other build, modes
//   1  <name>.sparse.octree.mark: a thread per leaf tile; an occupied leaf
//      inside the grid adds 1 to the count of every brick whose 9^3 samples
//      (8b .. 8b + 8 per axis, its cells' corners) hold its voxel; the first
//      to reach a brick gives it the next pool slot (its surface brick),
//      past the pool's capacity only counted (stats: needed, overflow).
//   3  <name>.sparse.activate: a thread per surface brick marks it (a bit
//      per brick of the grid, binding 14) when this frame's iso value cuts
//      its range: [0 or 1 (all 9^3 samples occupied), 1]. The pool was
//      cleared with the counts (a fill: on lavapipe ~50x faster than
//      clearing the blocks a thread per word).
//   5  <name>.sparse.list: a thread per word of those marks lists its
//      bricks from the word's first entry (<name>.sparse.bricks.order,
//      sparse_order.comp): in brick order, the same in every run.
//   4  <name>.sparse.octree.scatter: a thread per leaf tile; an occupied
//      leaf sets its sample (1) in the block of every surface brick whose
//      11^3 samples (8b - 1 .. 8b + 9) hold it.
// The pool slots follow the atomics (only where the samples are kept).
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) buffer CountersBuf { IsoCounters counters; };

// The octree's counters as words: the leaf level's tiles are
// [words[pc first], words[pc end]).
uint leafFirstWord() { return floatBitsToUint(pc.user1.x); }
uint leafEndWord() { return floatBitsToUint(pc.user1.y); }

uvec4 foldedGroups(uint groups) {
    const uint gx = min(groups, grid.maxGroupsX);
    return uvec4(gx, gx == 0u ? 1u : (groups + gx - 1u) / gx, 1u, 0u);
}

#ifdef ISO_OCTREE_ARGS
layout(set = 0, binding = 2, std430) readonly buffer OctreeCountersBuf { uint octreeCounters[]; };
layout(set = 0, binding = 3, std430) writeonly buffer OctreeDispatchBuf { uvec4 octreeDispatch[2]; };

void main() {
    if (gl_GlobalInvocationID.x != 0u) return;
    if (isoOpaque(pc.srcLevel) == 0u) {
        const uint first = octreeCounters[leafFirstWord()], end = octreeCounters[leafEndWord()];
        const uint tiles = end - min(first, end); // a leaf tile a thread
        octreeDispatch[0] = foldedGroups((tiles + kIsoGroupSize - 1u) / kIsoGroupSize);
    } else {
        const uint bricks = min(counters.sparseVolumeBricks, pc.itemCount);
        octreeDispatch[1] = foldedGroups((bricks + kIsoGroupSize - 1u) / kIsoGroupSize);
    }
}
#else
layout(set = 0, binding = 2, std430) writeonly buffer BrickListBuf { uint bricks[]; };
layout(set = 0, binding = 3, std430) readonly buffer OctreeCountersBuf { uint octreeCounters[]; };
// Four nodes a load (a leaf tile's 8 nodes are 32-byte aligned): wide
// loads where lavapipe loads lane by lane.
layout(set = 0, binding = 4, std430) readonly buffer NodeCountBuf { uvec4 nodeCount4[]; };
layout(set = 0, binding = 5, std430) readonly buffer NodeCoordBuf { uvec4 nodeCoord4[]; };
// Per brick of the virtual grid: occupied samples among its 9^3 (cleared
// every frame) and, where not 0, its surface brick (pool slot).
layout(set = 0, binding = 6, std430) buffer BrickCountsBuf { uint brickCounts[]; };
layout(set = 0, binding = 7, std430) buffer BrickSurfaceBuf { uint brickSurface[]; };
// Per surface brick: x its list entry, y its brick index.
layout(set = 0, binding = 8, std430) buffer SurfaceBricksBuf { uvec4 surfaceBricks[]; };
// Per listed brick: its surface brick's slot (sparse_volume_field.glsl).
layout(set = 0, binding = 9, std430) writeonly buffer BrickSlotsBuf { uint brickSlots[]; };
// The pool as words (the texel views classify reads see the same bytes);
// cleared before the mark pass.
layout(set = 0, binding = 10, std430) buffer Pool0Buf { uint pool0[]; };
layout(set = 0, binding = 11, std430) buffer Pool1Buf { uint pool1[]; };
layout(set = 0, binding = 12, std430) buffer Pool2Buf { uint pool2[]; };
layout(set = 0, binding = 13, std430) buffer Pool3Buf { uint pool3[]; };
// The marks (a bit per brick of the grid) and each word's first list entry.
layout(set = 0, binding = 14, std430) buffer MarksBuf { uint marks[]; };
layout(set = 0, binding = 15, std430) readonly buffer BasesBuf { uint bases[]; };

layout(constant_id = kIsoSpecVolumePoolBricks) const uint kPoolBricks = 1u;
layout(constant_id = kIsoSpecVolumePoolCount) const uint kPoolCount = 1u;

void poolSet(uint pool, uint word, uint bits) {
    if (kPoolCount == 1u || pool == 0u)
        atomicOr(pool0[word], bits);
    else if (pool == 1u)
        atomicOr(pool1[word], bits);
    else if (pool == 2u)
        atomicOr(pool2[word], bits);
    else
        atomicOr(pool3[word], bits);
}

uint brickIndex(uvec3 b) { return b.x + grid.sparse.x * (b.y + grid.sparse.y * b.z); }

// The voxel of an occupied leaf's coordinates, if it lies in the grid.
bool inGrid(uint coord, out uvec3 v) {
    v = uvec3(coord & 1023u, (coord >> 10) & 1023u, (coord >> 20) & 1023u);
    return all(lessThan(v, grid.samples.xyz));
}

// Samples of brick b's 9^3 that lie in the grid.
uint brickSamples(uvec3 b) {
    const uvec3 n = min(b * kIsoBrickCells + kIsoBrickCells, grid.samples.xyz - 1u) - b * kIsoBrickCells + 1u;
    return n.x * n.y * n.z;
}

// A leaf tile: its nodes c = 0..7 are the voxels base + (c & 1, c >> 1 & 1,
// c >> 2 & 1) (base even per axis); `occupied` has bit c for an occupied
// leaf inside the grid. A thread takes a whole tile: one count and slot
// lookup per brick it touches, one atomic per brick for the count and
// one per block word for the samples (lavapipe runs atomics lane by lane).
struct LeafTile {
    uvec3 base;
    uint occupied;
};

// The tile's occupied nodes whose voxel lies, per axis, in [8b + below,
// 8b + above] of brick b: a mask over c.
uint tileNodesIn(LeafTile t, uvec3 b, int below, int above) {
    uint axisBits[3];
    for (int a = 0; a < 3; ++a) {
        const int lo = int(b[a] * kIsoBrickCells) + below, hi = int(b[a] * kIsoBrickCells) + above;
        const int v0 = int(t.base[a]);
        axisBits[a] = (v0 >= lo && v0 <= hi ? 1u : 0u) | (v0 + 1 >= lo && v0 + 1 <= hi ? 2u : 0u);
    }
    uint mask = 0u;
    for (uint c = 0u; c < 8u; ++c)
        if (((axisBits[0] >> (c & 1u)) & (axisBits[1] >> ((c >> 1) & 1u)) & (axisBits[2] >> (c >> 2)) & 1u) != 0u)
            mask |= 1u << c;
    return mask & t.occupied;
}

// Mode 1: the tile's leaves count into every brick b whose 9^3 samples
// (8b .. 8b + 8) hold one; a brick's first count gives it a slot.
void markTile(LeafTile t, uint capacity) {
    // base (even) also belongs to the brick below on a border; base + 1 to one brick.
    const uvec3 border = uvec3(equal(t.base % kIsoBrickCells, uvec3(0u))) * uvec3(greaterThan(t.base, uvec3(0u)));
    const uvec3 loB = t.base / kIsoBrickCells - border;
    const uvec3 hiB = min((t.base + 1u) / kIsoBrickCells, grid.sparse.xyz - 1u);
    for (uint z = loB.z; z <= hiB.z; ++z)
        for (uint y = loB.y; y <= hiB.y; ++y)
            for (uint x = loB.x; x <= hiB.x; ++x) {
                const uint n = bitCount(tileNodesIn(t, uvec3(x, y, z), 0, int(kIsoBrickCells)));
                if (n == 0u) continue;
                const uint b = brickIndex(uvec3(x, y, z));
                if (atomicAdd(brickCounts[b], n) == 0u) {
                    const uint slot = atomicAdd(counters.sparseVolumeBricks, 1u);
                    brickSurface[b] = slot;
                    if (slot < capacity)
                        surfaceBricks[slot] =
                            uvec4(x | (y << kIsoBrickAxisBits) | (z << (2u * kIsoBrickAxisBits)), b, 0u, 0u);
                }
            }
}

// Mode 4: the tile's leaves set their samples in the block of every
// surface brick b whose 11^3 samples (8b - 1 .. 8b + 9) hold them; a row's
// two leaves are neighbouring bytes: one atomic where they share a word.
void scatterTile(LeafTile t, uint capacity) {
    const uvec3 loB = uvec3(max(ivec3(t.base) - 9 + 7, ivec3(0))) / kIsoBrickCells;
    const uvec3 hiB = min((t.base + 2u) / kIsoBrickCells, grid.sparse.xyz - 1u);
    for (uint z = loB.z; z <= hiB.z; ++z)
        for (uint y = loB.y; y <= hiB.y; ++y)
            for (uint x = loB.x; x <= hiB.x; ++x) {
                const uint inBlock = tileNodesIn(t, uvec3(x, y, z), -1, int(kIsoBrickCells) + 1);
                if (inBlock == 0u) continue;
                const uint b = brickIndex(uvec3(x, y, z));
                if (brickCounts[b] == 0u) continue;
                const uint slot = brickSurface[b];
                if (slot >= capacity) continue;
                const uint pool = slot / kPoolBricks;
                // base's place in the block (a component wraps below 0 when
                // only base + 1 is in the block on that axis: modular, and
                // only the in-block sums are used).
                const uvec3 l = t.base + 1u - uvec3(x, y, z) * kIsoBrickCells;
                const uint first = (slot - pool * kPoolBricks) * kIsoVolumeBrickSamples;
                for (uint row = 0u; row < 4u; ++row) {
                    const uint pair = (inBlock >> (2u * row)) & 3u;
                    if (pair == 0u) continue;
                    const uint at = first + l.x + kIsoVolumeBrickSide * (l.y + (row & 1u) + kIsoVolumeBrickSide * (l.z + (row >> 1)));
                    const uint a0 = (pair & 1u) != 0u ? at : at + 1u;
                    const uint a1 = (pair & 2u) != 0u ? at + 1u : a0;
                    if (a1 / 4u == a0 / 4u) {
                        poolSet(pool, a0 / 4u, (1u << (8u * (a0 % 4u))) | (1u << (8u * (a1 % 4u))));
                    } else {
                        poolSet(pool, a0 / 4u, 1u << (8u * (a0 % 4u)));
                        poolSet(pool, a1 / 4u, 1u << (8u * (a1 % 4u)));
                    }
                }
            }
}

void main() {
    const uint thread = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    const uint mode = isoOpaque(pc.srcLevel);
    const uint capacity = pc.itemCount;
    // One structured if/else chain (see sparse_activate.glsl).
    if (mode == 3u) {
        const uint slot = thread;
        if (slot < min(counters.sparseVolumeBricks, capacity)) {
            const uvec4 surface = surfaceBricks[slot];
            const uint mask = (1u << kIsoBrickAxisBits) - 1u;
            const uvec3 b =
                uvec3(surface.x & mask, (surface.x >> kIsoBrickAxisBits) & mask, surface.x >> (2u * kIsoBrickAxisBits));
            // The range of the brick's 9^3 samples as the pool holds them
            // (U8 0 or 1), converted as classify converts them.
            const bool full = brickCounts[surface.y] >= brickSamples(b);
            precise float lo = (full ? 1.0 : 0.0) * pc.user0.x;
            precise float hi = 1.0 * pc.user0.x;
            precise float loValue = lo + pc.user0.y;
            precise float hiValue = hi + pc.user0.y;
            if (loValue < pc.iso && hiValue >= pc.iso) atomicOr(marks[surface.y / 32u], 1u << (surface.y & 31u));
        }
    } else if (mode == 5u) {
        if (thread < (grid.sparseLimits.z + 31u) / 32u) {
            uint at = bases[thread];
            for (uint bits = marks[thread]; bits != 0u && at < grid.sparseLimits.x; bits &= bits - 1u, ++at) {
                const uint slot = brickSurface[thread * 32u + uint(findLSB(bits))];
                bricks[at] = surfaceBricks[slot].x;
                brickSlots[at] = slot;
            }
        }
    } else {
        const uint first = octreeCounters[leafFirstWord()], end = octreeCounters[leafEndWord()];
        // Leaf tile first + thread: nodes 8 (first + thread) .. + 7.
        if (first < end && thread < end - first) {
            const uint q = 2u * (first + thread);
            const uvec4 count0 = nodeCount4[q], count1 = nodeCount4[q + 1u];
            LeafTile t;
            t.occupied = 0u;
            t.base = uvec3(0u);
            if (any(notEqual(count0 | count1, uvec4(0u)))) {
                const uvec4 coord0 = nodeCoord4[q], coord1 = nodeCoord4[q + 1u];
                for (uint c = 0u; c < 8u; ++c) {
                    const uint count = c < 4u ? count0[c] : count1[c - 4u];
                    const uint coord = c < 4u ? coord0[c] : coord1[c - 4u];
                    uvec3 v;
                    if (count == 0u || !inGrid(coord, v)) continue;
                    t.occupied |= 1u << c;
                    t.base = v - uvec3(c & 1u, (c >> 1) & 1u, c >> 2);
                }
            }
            if (t.occupied != 0u) {
                if (mode == 1u)
                    markTile(t, capacity);
                else
                    scatterTile(t, capacity);
            }
        }
    }
}
#endif
