#version 460
#extension GL_EXT_control_flow_attributes : require
// Sparse domain of particles: each listed brick's samples evaluated once per
// frame into its block of the pool, the layout a sparse volume's pool has
// (sparse_volume_field.glsl): the 11^3 samples 8b - 1 .. 8b + 9 per axis
// that its cells and their normals read, as float bits, at the brick's slot
// (sparse_particles_slots.comp: a brick keeps its slot while listed). Classify,
// extraction and the shared vertices then run their ISO_SPARSE_VOLUME
// builds (F32, scale 1, offset 0: the value itself) instead of looping over
// the brick's particles for every row pair and every vertex. Two passes,
// two builds, kIsoBricksPerGroup bricks per group (classify's indirect
// dispatch, <name>.sparse.args):
// 0, <name>.sparse.blocks (kIsoBlockThreads threads a brick): the brick's
//    own 9^3 samples 8b .. 8b + 8 (the block's interior). A thread keeps
//    kIsoBlockRows rows of 9 samples (x) of one z slice in registers and
//    loops once over its share (one of kIsoBlockSplit, consecutive places)
//    of the brick's particles (sparse.fill's references) in
//    the z layers of sub-cells the field can reach the slice from
//    (sparse_particles_cells.glsl; grid.sparseParticleReach.z): a
//    particle whose z distance alone puts it past the radius is dropped
//    after one load (then every row test of the slice fails: the same
//    rounded squares), else the row test, then the 9 kernel terms of a row
//    it reaches, as the dense gather does (particles_gather.comp). Integer
//    16.16 sums, the same bits in any order, and the gather's
//    float(sum) / 65536: every sample equals the dense field's bit for bit.
//    The slice's threads add their sums in shared memory (integer atomics:
//    the same bits in any order), then store every kIsoBlockSplit-th sample.
//    The brick table's word of the brick becomes its slot + 1 for the
//    next pass.
// 1, <name>.sparse.blocks.borders (the ISO_BLOCK_BORDERS build,
//    kIsoBorderThreads threads a brick, 2 rows of 11 samples each): the
//    block's other samples (8b - 1 and 8b + 9 on some axis) lie in a
//    neighbour brick's interior: copied from its block through the table, 0
//    where the neighbour is not listed (no particle reaches it, so none
//    reaches the sample: the dense field is 0 there too), as where it lies
//    outside the grid (the fetches clamp into the grid and never read
//    those). Half the samples of a block are border samples: each costs a
//    copy, not a loop over the particles. Where the neighbour is reached but
//    has no block (kIsoBrickDropped: past maxBricks or its references; the
//    frame reports the overflow), the row is summed over the brick's own
//    particles, so that the listed bricks' cells keep the dense field's
//    normals: 8 such rows at a time by all the brick's threads, each over
//    a share of the list (ownRows below).
// The ISO_PARTICLE_SPH builds (ParticleKernel::SphCubicSpline) sum the
// cubic spline weighted by the particles' volumes (sparse.density), the dense
// SPH gather's terms. The ISO_PARTICLE_RECORDS builds (position smoothing,
// anisotropic kernels) read each particle's smoothed position or kernel
// record (sparse_particles_neighbours.comp) instead of the particle, and
// sum the dense gathers' terms of those (anisoTerm for kernel records).
// No global atomics, no clear: every sample of a listed block is written
// every frame. A brick whose references did not fit has none: its interior
// is 0 (no triangles, the frame reports the overflow). lavapipe ends a
// shader invocation's loops after 65,535 iterations in all (one limiter for
// every loop of the invocation, so an outer loop over chunks would not
// help): a thread loops over at most kIsoMaxParticleBrickItems /
// kIsoBlockSplit (61,440) places.
#include "isosurface/common.glsl"

#ifdef ISO_BLOCK_BORDERS
const uint kThreads = kIsoBorderThreads;
#else
const uint kThreads = kIsoBlockThreads;
#endif
layout(local_size_x = kIsoBricksPerGroup * kThreads) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer CountersBuf { IsoCounters counters; };
layout(set = 0, binding = 2, std430) readonly buffer BrickListBuf { uint bricks[]; };
layout(set = 0, binding = 3, std430) readonly buffer BrickItemsBuf { uint brickItems[]; };
layout(set = 0, binding = 4, std430) readonly buffer ParticlesBuf { float particleData[]; };
// Per listed brick: its block's slot (sparse_particles_slots.comp).
layout(set = 0, binding = 5, std430) readonly buffer BrickSlotsBuf { uint brickSlots[]; };
// Per brick of the virtual grid (sparse_particles_bin.comp's table): pass 0
// writes each listed brick's slot + 1, pass 1 reads them.
layout(set = 0, binding = 6, std430) buffer BrickTableBuf { uint brickTable[]; };
// The pool: kPoolBricks blocks per buffer (unused bindings repeat the first).
layout(set = 0, binding = 7, std430) buffer Pool0Buf { uint pool0[]; };
layout(set = 0, binding = 8, std430) buffer Pool1Buf { uint pool1[]; };
layout(set = 0, binding = 9, std430) buffer Pool2Buf { uint pool2[]; };
layout(set = 0, binding = 10, std430) buffer Pool3Buf { uint pool3[]; };
#ifdef ISO_PARTICLE_SPH
// ParticleKernel::SphCubicSpline: each particle's volume by its index in the
// frame (sparse_particles_density.comp), the weight of its cubic spline.
layout(set = 0, binding = 11, std430) readonly buffer VolumesBuf { float volumes[]; };
#endif
#ifdef ISO_PARTICLE_RECORDS
// Position smoothing or anisotropic kernels: each particle's record by its
// index in the frame (sparse_particles_neighbours.comp): with
// grid.anisotropic the kernel records of particles_aniso.comp
// (kIsoAnisoRecordVec4s vec4s a particle, summed with anisoTerm as the
// dense anisotropic gather sums them), else (smoothed position, weight)
// (the SPH builds: the weight is the density pass's volume).
layout(set = 0, binding = 12, std430) readonly buffer RecordsBuf { vec4 records[]; };
#endif
// The cell table (sparse_particles_cells.glsl): each list ordered by sub-cell.
layout(set = 0, binding = 13, std430) readonly buffer CellTableBuf { uint cellTable[]; };
layout(constant_id = kIsoSpecVolumePoolBricks) const uint kPoolBricks = 1u;
layout(constant_id = kIsoSpecVolumePoolCount) const uint kPoolCount = 1u;

#include "isosurface/particles_common.glsl"
#include "isosurface/particles_kernel.glsl"
#define ISO_CELLS_READ
#include "isosurface/sparse_particles_cells.glsl"

const uint kSide = kIsoVolumeBrickSide, kInner = kIsoBrickCells + 1u, R = kIsoBlockRows;
const uint kGroups = (kInner + R - 1u) / R; // threads per z slice in pass 0

void poolStore(uint pool, uint at, uint value) {
    if (kPoolCount == 1u || pool == 0u)
        pool0[at] = value;
    else if (pool == 1u)
        pool1[at] = value;
    else if (pool == 2u)
        pool2[at] = value;
    else
        pool3[at] = value;
}

uint poolLoad(uint pool, uint at) {
    if (kPoolCount == 1u || pool == 0u) return pool0[at];
    if (pool == 1u) return pool1[at];
    if (pool == 2u) return pool2[at];
    return pool3[at];
}

uvec3 brickOf(uint packed) {
    const uint mask = (1u << kIsoBrickAxisBits) - 1u;
    return uvec3(packed & mask, (packed >> kIsoBrickAxisBits) & mask, packed >> (2 * kIsoBrickAxisBits));
}

uint tableIndex(uvec3 b) { return b.x + grid.sparse.x * (b.y + grid.sparse.y * b.z); }

#ifndef ISO_BLOCK_BORDERS
// Pass 0: each brick's 9^3 integer sums, added into by the kIsoBlockSplit
// threads of each slice (each over its share of the slice's particles).
const uint kBlockSums = kInner * kInner * kInner;
shared uint blockSums[kIsoBricksPerGroup * kBlockSums];

// Pass 0: rows g * R .. of interior slice z (block coordinates 1 .. 9),
// share `part` of its particles; `local` the brick's place in the group.
// Every thread of the group reaches its barriers (live or not).
void interior(uint brick, bool live, uint local, uint t) {
    const uint S = kIsoBlockSplit;
    const uint part = t % S, zt = t / S;
    const uint zi = zt / kGroups, g = zt - zi * kGroups; // constant divisors
    const uint firstRow = g * R;
    live = live && zi < kInner;
    for (uint i = gl_LocalInvocationIndex; i < kIsoBricksPerGroup * kBlockSums; i += gl_WorkGroupSize.x)
        blockSums[i] = 0u;
    barrier();
    uvec3 lo = uvec3(0u);
    uint slot = 0u;
    if (live) {
        const uvec3 b = brickOf(bricks[brick]);
        const uint count = brickItems[2u * brick + 1u];
        slot = brickSlots[brick];
        if (t == 0u) {
            // Without its references (they did not fit) its block is 0, not the field.
            brickTable[tableIndex(b)] = count != 0u ? slot + 1u : kIsoBrickDropped;
        }
        lo = b * kIsoBrickCells; // grid sample of interior sample 0
        const uint z = lo.z + zi;
        const float zs = sampleCoord(z, grid.boundsMin.z, grid.spacing.z);
        float xs[kInner], ys[R];
        uint sum[R][kInner];
        [[unroll]] for (uint k = 0u; k < kInner; ++k) xs[k] = sampleCoord(lo.x + k, grid.boundsMin.x, grid.spacing.x);
        [[unroll]] for (uint r = 0u; r < R; ++r) {
            ys[r] = sampleCoord(lo.y + firstRow + r, grid.boundsMin.y, grid.spacing.y);
            [[unroll]] for (uint k = 0u; k < kInner; ++k) sum[r][k] = 0u;
        }
        // particles_common.glsl's loadParticle, z first.
        const uvec4 layout_ = grid.particleLayout;
        const bool weighted = isoOpaque(layout_.z) != kIsoNoWeight;
        const uint slotBase = pc.slot * grid.itemSlotStride;
        const uint first = 2u * grid.sparseLimits.x + brickItems[2u * brick];
        // Only the z layers of sub-cells within the field's reach of the slice
        // (the list is ordered by sub-cell, a layer's keys are consecutive): a
        // particle further away adds 0 to every sample of the slice.
        const BrickCells c = brickCells(brick);
        precise float zu = (zs - grid.boundsMin.z) / grid.spacing.z;
        precise float rz = max(grid.sparseParticleReach.z, grid.particle.x) * 1.01 / grid.spacing.z + 1e-5 * (abs(zu) + 1.0);
        const uint layer0 = cellOf(vec3(c.base.xy, zu - rz), c).z, layer1 = cellOf(vec3(c.base.xy, zu + rz), c).z;
        const uint layerKeys = kIsoCellAxis * kIsoCellAxis;
        const uint from = count == 0u || layer0 == 0u ? 0u : cellEnd(c, layerKeys * layer0 - 1u);
        const uint to = count == 0u ? 0u : cellEnd(c, layerKeys * (layer1 + 1u) - 1u);
        // This thread's share: at most ceil(kIsoMaxParticleBrickItems / S)
        // iterations (lavapipe ends an invocation's loops after 65,535).
        const uint len = to - from;
        const uint j0 = from + len * part / S, j1 = from + len * (part + 1u) / S;
        for (uint j = j0; j < j1; ++j) {
#ifdef ISO_PARTICLE_RECORDS
            const uint index = brickItems[first + j];
            if (isoOpaque(grid.anisotropic) != 0u) {
                // The dense anisotropic gather's row test and terms.
                const vec4 c = records[index * kIsoAnisoRecordVec4s];
                const vec4 g0 = records[index * kIsoAnisoRecordVec4s + 1u];
                const vec4 g1 = records[index * kIsoAnisoRecordVec4s + 2u];
                const float dz = zs - c.z;
                // squaredYZ(dy, dz) >= dz * dz, rounded: past the extent for dz alone, past it for every row.
                precise float dz2 = dz * dz;
                if (dz2 >= g1.z) continue;
                [[unroll]] for (uint r = 0u; r < R; ++r) {
                    const float dy = ys[r] - c.y;
                    if (squaredYZ(dy, dz) < g1.z) {
                        const vec3 u = anisoYZ(dy, dz, g0, g1);
                        [[unroll]] for (uint k = 0u; k < kInner; ++k) sum[r][k] += anisoTerm(xs[k] - c.x, u, g0, c.w);
                    }
                }
                continue;
            }
            const vec4 rec = records[index];
            const float dz = zs - rec.z;
            precise float dz2 = dz * dz;
            if (dz2 * grid.particle.y >= 1.0) continue;
            const float px = rec.x, py = rec.y;
#ifdef ISO_PARTICLE_SPH
            const float w = volumes[index];
#else
            const float w = rec.w;
#endif
#else
            const uint base = (slotBase + brickItems[first + j]) * layout_.x;
            const uint p = base + layout_.y;
            const float dz = zs - particleData[p + 2u];
            // squaredYZ(dy, dz) >= dz * dz, rounded: past the radius for dz alone, past it for every row.
            precise float dz2 = dz * dz;
            if (dz2 * grid.particle.y >= 1.0) continue;
            const float px = particleData[p], py = particleData[p + 1u];
#ifdef ISO_PARTICLE_SPH
            const float w = volumes[brickItems[first + j]];
#else
            const float w = weighted ? particleData[base + layout_.z] : 1.0;
#endif
#endif
            [[unroll]] for (uint r = 0u; r < R; ++r) {
                const float yz = squaredYZ(ys[r] - py, dz);
                if (yz * grid.particle.y < 1.0) {
                    [[unroll]] for (uint k = 0u; k < kInner; ++k) sum[r][k] += fieldTerm(xs[k] - px, yz, w);
                }
            }
        }
        // The sums into an array, then one atomic site in a loop (as the
        // stores below: few sites keep the GPU-assisted validation build's
        // compile short). Integer adds: the same bits in any order.
        uint partial[R * kInner];
        [[unroll]] for (uint r = 0u; r < R; ++r)
            [[unroll]] for (uint k = 0u; k < kInner; ++k) partial[r * kInner + k] = sum[r][k];
        const uint rows = min(R, kInner - firstRow);
        const uint at = local * kBlockSums + kInner * (firstRow + kInner * zi);
        for (uint i = 0u; i < rows * kInner; ++i)
            if (partial[i] != 0u) atomicAdd(blockSums[at + i], partial[i]);
    }
    barrier();
    if (!live) return;
    // The slice's sums, as the gather's float(sum) / 65536, into the block:
    // the slice's threads take every S-th sample of its rows.
    const uint z = lo.z + zi;
    const uint pool = slot / kPoolBricks; // a constant divisor
    const uint base = (slot - pool * kPoolBricks) * kIsoVolumeBrickSamples + 1u + kSide * (1u + firstRow + kSide * (1u + zi));
    const uint rows = min(R, kInner - firstRow);
    const uint at = local * kBlockSums + kInner * (firstRow + kInner * zi);
    for (uint i = part; i < rows * kInner; i += S) {
        const uint r = i / kInner, k = i - r * kInner; // a constant divisor
        const bool inside = lo.y + firstRow + r < grid.samples.y && z < grid.samples.z && lo.x + k < grid.samples.x;
        const float v = float(blockSums[at + i]) / float(kIsoSplatFixedOne);
        poolStore(pool, base + r * kSide + k, inside ? floatBitsToUint(v) : 0u);
    }
}
#endif

// Pass 1: the block's samples x0 .. x1 of row (y, z) (block coordinates
// 0 .. 10, all in the same neighbour brick b + d, d != 0): copied from that
// brick's interior; 0 outside the grid or where no particle reaches it;
// `dropped` where it was reached but has no block (the caller evaluates the
// samples itself).
void copySegment(uvec3 b, ivec3 d, uint y, uint z, uint x0, uint x1, uint pool, uint at, inout bool dropped) {
    const ivec3 s0 = ivec3(b * kIsoBrickCells + uvec3(x0, y, z)) - 1; // grid sample of x0
    const ivec3 s1 = ivec3(s0.x + int(x1 - x0), s0.yz);
    uint n = 0u;
    bool copy = all(greaterThanEqual(s0, ivec3(0))) && all(lessThan(s1.yz, ivec2(grid.samples.yz))) &&
                s0.x < int(grid.samples.x);
    if (copy) {
        const uvec3 c = uvec3(ivec3(b) + d);
        const uint entry = brickTable[tableIndex(c)];
        dropped = dropped || entry == kIsoBrickDropped;
        copy = entry != 0u && entry != kIsoBrickDropped; // 0: no particle reaches it, the field is 0 there
        n = entry - 1u;
    }
    uint from = 0u, fromPool = 0u;
    if (copy) {
        const uvec3 nq = uvec3(s0 - (ivec3(uvec3(ivec3(b) + d) * kIsoBrickCells) - 1)); // in the neighbour's block
        fromPool = n / kPoolBricks;
        from = (n - fromPool * kPoolBricks) * kIsoVolumeBrickSamples + nq.x + kSide * (nq.y + kSide * nq.z);
    }
    for (uint x = x0; x <= x1; ++x) {
        const bool inside = copy && s0.x + int(x - x0) < int(grid.samples.x);
        poolStore(pool, at + x, inside ? poolLoad(fromPool, from + (x - x0)) : 0u);
    }
}

#ifdef ISO_BLOCK_BORDERS
// Pass 1's rows whose neighbour is reached but has no block (an overflow):
// their samples are summed over the brick's own particles (which reach
// every sample of its block), so that the listed bricks' cells keep the
// dense field's values and normals. All kIsoBorderThreads threads of the
// brick share the work: kBorderRows rows at a time (a batch), each thread
// over its share of the list, the integer sums added in shared memory.
const uint kCopyRows = (kSide * kSide + kIsoBorderThreads - 1u) / kIsoBorderThreads; // copied a thread
const uint kBorderRows = 8u;
const uint kRowMaskWords = (kSide * kSide + 31u) / 32u;
shared uint droppedMask[kIsoBricksPerGroup * kRowMaskWords]; // bit y + 11 z: the row is summed
shared uint rowSums[kIsoBricksPerGroup * kBorderRows * kSide];
// The list iterations a thread may spend on them (lavapipe ends an
// invocation's loops after 65,535 in all): a brick takes the batches that
// fit, in row order; past them (a list of hundreds of thousands next to
// many such rows) the rows keep the 0 their copy left, in a frame that
// already reports the overflow.
const uint kOwnRowTrips = 61440u;

// The k-th set bit (from 0) of w; k < bitCount(w).
uint nthBit(uint w, uint k) {
    uint at = 0u;
    [[unroll]] for (uint width = 16u; width >= 1u; width >>= 1u) {
        const uint low = uint(bitCount(w & ((1u << width) - 1u)));
        if (k >= low) {
            k -= low;
            w >>= width;
            at += width;
        }
    }
    return at;
}

// The k-th summed row of the group's brick `local`, as y + 11 z.
uint droppedRow(uint local, uint k) {
    for (uint i = 0u; i < kRowMaskWords; ++i) {
        const uint w = droppedMask[local * kRowMaskWords + i];
        const uint n = uint(bitCount(w));
        if (k < n) return 32u * i + nthBit(w, k);
        k -= n;
    }
    return 0u;
}

// Rows `rows` (y + 11 z each, m of them) of brick b's block summed over
// list places j0 .. j1 - 1, added into rowSums from `at`.
void ownRows(uvec3 b, uint rows[kBorderRows], uint m, uint first, uint j0, uint j1, uint at) {
    float xs[kSide], ys[kBorderRows], zs[kBorderRows];
    uint sum[kBorderRows][kSide];
    const uvec3 s0 = b * kIsoBrickCells - 1u;
    [[unroll]] for (uint k = 0u; k < kSide; ++k) xs[k] = sampleCoord(s0.x + k, grid.boundsMin.x, grid.spacing.x);
    [[unroll]] for (uint r = 0u; r < kBorderRows; ++r) {
        const uint z = rows[r] / kSide;
        ys[r] = sampleCoord(s0.y + (rows[r] - z * kSide), grid.boundsMin.y, grid.spacing.y);
        zs[r] = sampleCoord(s0.z + z, grid.boundsMin.z, grid.spacing.z);
        [[unroll]] for (uint k = 0u; k < kSide; ++k) sum[r][k] = 0u;
    }
    for (uint j = j0; j < j1; ++j) {
        vec4 pw;
#ifdef ISO_PARTICLE_RECORDS
        const uint index = brickItems[first + j];
        if (isoOpaque(grid.anisotropic) != 0u) {
            const vec4 c = records[index * kIsoAnisoRecordVec4s];
            const vec4 g0 = records[index * kIsoAnisoRecordVec4s + 1u];
            const vec4 g1 = records[index * kIsoAnisoRecordVec4s + 2u];
            [[unroll]] for (uint r = 0u; r < kBorderRows; ++r) {
                const float dy = ys[r] - c.y, dz = zs[r] - c.z;
                if (r < m && squaredYZ(dy, dz) < g1.z) {
                    const vec3 u = anisoYZ(dy, dz, g0, g1);
                    [[unroll]] for (uint k = 0u; k < kSide; ++k) sum[r][k] += anisoTerm(xs[k] - c.x, u, g0, c.w);
                }
            }
            continue;
        }
        pw = records[index];
#else
        loadParticle(brickItems[first + j], pw);
#endif
#ifdef ISO_PARTICLE_SPH
        pw.w = volumes[brickItems[first + j]];
#endif
        [[unroll]] for (uint r = 0u; r < kBorderRows; ++r) {
            const float yz = squaredYZ(ys[r] - pw.y, zs[r] - pw.z);
            if (r < m && yz * grid.particle.y < 1.0) {
                [[unroll]] for (uint k = 0u; k < kSide; ++k) sum[r][k] += fieldTerm(xs[k] - pw.x, yz, pw.w);
            }
        }
    }
    // One atomic site in a loop (integer adds: the same bits in any order).
    uint partial[kBorderRows * kSide];
    [[unroll]] for (uint r = 0u; r < kBorderRows; ++r)
        [[unroll]] for (uint k = 0u; k < kSide; ++k) partial[r * kSide + k] = sum[r][k];
    for (uint i = 0u; i < m * kSide; ++i)
        if (partial[i] != 0u) atomicAdd(rowSums[at + i], partial[i]);
}

// Pass 1: thread t of the brick in place `local` of the group. Every thread
// of the group reaches its barriers (live or not).
void border(uint brick, bool live, uint local, uint t) {
    const uint l = gl_LocalInvocationIndex;
    if (l < kIsoBricksPerGroup * kRowMaskWords) droppedMask[l] = 0u;
    barrier();
    uvec3 b = uvec3(0u);
    uint pool = 0u, block = 0u;
    if (live) {
        b = brickOf(bricks[brick]);
        const uint slot = brickSlots[brick];
        pool = slot / kPoolBricks;
        block = (slot - pool * kPoolBricks) * kIsoVolumeBrickSamples;
        for (uint i = 0u; i < kCopyRows; ++i) {
            const uint row = t * kCopyRows + i;
            if (row >= kSide * kSide) break;
            const uint y = row % kSide, z = row / kSide; // constant divisors
            const ivec2 dyz = ivec2(greaterThan(uvec2(y, z), uvec2(kInner))) - ivec2(equal(uvec2(y, z), uvec2(0u)));
            const bool whole = dyz != ivec2(0);
            const uint at = block + kSide * row;
            bool rowDropped = false;
            copySegment(b, ivec3(-1, dyz), y, z, 0u, 0u, pool, at, rowDropped);
            if (whole) copySegment(b, ivec3(0, dyz), y, z, 1u, kInner, pool, at, rowDropped);
            copySegment(b, ivec3(1, dyz), y, z, kSide - 1u, kSide - 1u, pool, at, rowDropped);
            // The row's border samples from the brick's own particles instead (below).
            if (rowDropped) atomicOr(droppedMask[local * kRowMaskWords + row / 32u], 1u << (row % 32u));
        }
    }
    barrier();
    // The summed rows, kBorderRows at a time: as many batches as the
    // group's brick with the most rows needs (a uniform loop: barriers).
    uint batches = 0u, n = 0u;
    for (uint i = 0u; i < kIsoBricksPerGroup; ++i) {
        uint rows = 0u;
        for (uint w = 0u; w < kRowMaskWords; ++w) rows += uint(bitCount(droppedMask[i * kRowMaskWords + w]));
        batches = max(batches, (rows + kBorderRows - 1u) / kBorderRows);
        if (i == local) n = rows;
    }
    if (batches == 0u) return; // uniform: no brick of the group has such rows
    const uint count = live ? brickItems[2u * brick + 1u] : 0u;
    const uint first = live ? 2u * grid.sparseLimits.x + brickItems[2u * brick] : 0u;
    const uint share = (count + kIsoBorderThreads - 1u) / kIsoBorderThreads;
    const uint affordable = kOwnRowTrips / (share + 2u * kBorderRows * kSide);
    const uint j0 = count * t / kIsoBorderThreads, j1 = count * (t + 1u) / kIsoBorderThreads;
    const uint sums = local * kBorderRows * kSide;
    for (uint q = 0u; q < batches; ++q) {
        for (uint i = l; i < kIsoBricksPerGroup * kBorderRows * kSide; i += gl_WorkGroupSize.x) rowSums[i] = 0u;
        barrier();
        const uint m = live && q < affordable && q * kBorderRows < n ? min(kBorderRows, n - q * kBorderRows) : 0u;
        uint rows[kBorderRows];
        [[unroll]] for (uint r = 0u; r < kBorderRows; ++r) rows[r] = r < m ? droppedRow(local, q * kBorderRows + r) : 0u;
        if (m != 0u) ownRows(b, rows, m, first, j0, j1, sums);
        barrier();
        // The batch's samples into the block (a whole row, or its two ends).
        const uvec3 s0 = b * kIsoBrickCells - 1u;
        for (uint e = t; e < m * kSide; e += kIsoBorderThreads) {
            const uint r = e / kSide, x = e - r * kSide; // a constant divisor
            const uint row = droppedRow(local, q * kBorderRows + r);
            const uint y = row % kSide, z = row / kSide;
            const bool whole = y == 0u || z == 0u || y > kInner || z > kInner;
            if (!whole && x != 0u && x != kSide - 1u) continue;
            const bool inside = s0.y + y < grid.samples.y && s0.z + z < grid.samples.z && s0.x + x < grid.samples.x;
            const float v = float(rowSums[sums + e]) / float(kIsoSplatFixedOne);
            poolStore(pool, block + kSide * row + x, inside ? floatBitsToUint(v) : 0u);
        }
        barrier();
    }
}
#endif

void main() {
    const uint l = gl_LocalInvocationIndex;
    const uint listed = min(counters.sparseBricks, grid.sparseLimits.x);
    const uint brick = linearGroup() * kIsoBricksPerGroup + l / kThreads;
    // The barriers: every thread of the group, listed brick or not.
#ifdef ISO_BLOCK_BORDERS
    border(brick, brick < listed, l / kThreads, l % kThreads);
#else
    interior(brick, brick < listed, l / kThreads, l % kThreads);
#endif
}
