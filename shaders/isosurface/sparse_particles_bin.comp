#version 460
// Sparse domain of particles: which bricks each particle can reach, and
// each listed brick's list ordered by sub-cell (sparse_particles_cells.glsl),
// in four passes (pc.srcLevel):
// 0, <name>.sparse.count (a thread per particle): adds 1 to the brick
//    table's word of every brick whose samples grown by one (the normals'
//    differences) include a sample of the particle's kernel box
//    (kernelSamples: the samples the scatter adds it to), and marks their
//    super-bricks; the activate passes (sparse_activate.glsl,
//    ISO_SPARSE_PARTICLES) list the marked super-bricks, then the counted
//    bricks, and turn each listed brick's word into its place in the list
//    + 1 (0 or kIsoBrickDropped: not listed, or its references did not fit).
//    With position smoothing or anisotropic kernels the samples are those
//    within grid.sparseParticleReach.x of the particle, each end clamped
//    into the grid (particles_kernel.glsl's listSamples): every particle a
//    listed particle's smoothing, density or kernel shape reads is then in
//    the list of that particle's home brick (sparse_particles_neighbours.comp).
// 2, <name>.sparse.cells.count (a thread per particle): the same bricks;
//    each listed one counts the particle in its sub-cell's word of the cell
//    table (cleared before).
// 3, <name>.sparse.cells.scan (a thread per listed brick): its sub-cells'
//    counts become their runs' starts (an exclusive prefix sum), and the
//    brick takes the place of its home particles (those of its home
//    sub-cells) in the home list.
// 1, <name>.sparse.fill (a thread per particle): the same bricks again;
//    each listed one takes the particle's index at its sub-cell's next place
//    (the word ends at its run's end). The order within a run follows the
//    atomics: the field sums integer kernel terms (particles_kernel.glsl),
//    the same in any order.
// 4, <name>.sparse.homes (16 threads a listed brick): the brick's home
//    particles (the runs of its home sub-cells, one run a row) into its place
//    of the home list as (index, listed brick), in sub-cell order: the
//    per-particle passes give consecutive home particles to a batch of
//    lanes, which then read the same rows of sub-cells (in the fill's
//    atomic order, a batch's particles lay anywhere in the brick).
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer ParticlesBuf { float particleData[]; };
layout(set = 0, binding = 2, std430) buffer BrickTableBuf { uint brickTable[]; };
layout(set = 0, binding = 3, std430) writeonly buffer SuperMarksBuf { uint superMarks[]; };
// Per listed brick i: words 2i, 2i + 1 its first reference and count; the
// references from word 2 * sparseLimits.x (sparse_activate.glsl).
layout(set = 0, binding = 4, std430) buffer BrickItemsBuf { uint brickItems[]; };
layout(set = 0, binding = 5, std430) buffer CellTableBuf { uint cellTable[]; };
layout(set = 0, binding = 6, std430) readonly buffer CountersBuf { IsoCounters counters; };
layout(set = 0, binding = 7, std430) readonly buffer BrickListBuf { uint bricks[]; };

#include "isosurface/particles_common.glsl"
#include "isosurface/particles_kernel.glsl"
#include "isosurface/sparse_particles_cells.glsl"

// Mode 3: listed brick j's runs and home place.
void scanCells(uint j) {
    if (j >= min(counters.sparseBricks, grid.sparseLimits.x) || brickItems[2u * j + 1u] == 0u) return;
    const BrickCells c = brickCellsAt(cellBrickOf(bricks[j]));
    const uint words = kIsoCellHeader + kIsoCellWords * j;
    uint start = 0u, homes = 0u;
    for (uint k = 0u; k < kIsoCellKeys; ++k) {
        const uint n = cellTable[words + k];
        cellTable[words + k] = start;
        start += n;
        if (cellIsHome(uvec3(k & 7u, (k >> 3) & 7u, k >> 6), c)) homes += n;
    }
    cellTable[words + kIsoCellHomeWord] = homes != 0u ? atomicAdd(cellTable[0], homes) : 0u;
}

// Mode 4: listed brick j's home particles into the home list, in sub-cell
// order, by kHomeThreads threads (part p takes every kHomeThreads-th place
// of each row's run). At most 36 rows and ceil(homes / kHomeThreads) + 36
// iterations a thread: under lavapipe's 65,535 an invocation.
const uint kHomeThreads = kIsoGroupSize / kIsoBricksPerGroup;
void listHomes(uint j, uint p) {
    if (j >= min(counters.sparseBricks, grid.sparseLimits.x) || brickItems[2u * j + 1u] == 0u) return;
    const BrickCells c = brickCellsAt(cellBrickOf(bricks[j]));
    const uint words = kIsoCellHeader + kIsoCellWords * j;
    const uint first = 2u * grid.sparseLimits.x + brickItems[2u * j];
    uint h = cellHomeWords() + 2u * cellTable[words + kIsoCellHomeWord];
    for (uint z = c.homeLo.z; z <= c.homeHi.z; ++z)
        for (uint y = c.homeLo.y; y <= c.homeHi.y; ++y) {
            // The row's home sub-cells are consecutive keys: one run of places.
            const uint k0 = cellKey(uvec3(c.homeLo.x, y, z)), k1 = cellKey(uvec3(c.homeHi.x, y, z));
            const uint start = k0 == 0u ? 0u : cellTable[words + cellWord(k0 - 1u)];
            const uint end = cellTable[words + cellWord(k1)];
            for (uint k = start + p; k < end; k += kHomeThreads) {
                const uint at = h + 2u * (k - start);
                cellTable[at] = brickItems[first + k];
                cellTable[at + 1u] = j;
            }
            h += 2u * (end - start);
        }
}

void main() {
    const uint i = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    const uint mode = isoOpaque(pc.srcLevel);
    if (mode == 3u) {
        scanCells(i);
        return;
    }
    if (mode == 4u) {
        // Classify's dispatch: kIsoGroupSize / kIsoBricksPerGroup threads a listed brick.
        listHomes(i / kHomeThreads, i % kHomeThreads);
        return;
    }
    vec4 pw;
    uvec3 a, b;
    if (i >= isoOpaque(min(pc.itemCount, grid.maxItems)) || !loadParticle(i, pw)) return;
    // Position smoothing or anisotropic kernels: the wider lists their
    // neighbourhoods need (sparse_particles_neighbours.comp). A uniform alone
    // decides it: opaque (isoOpaque), or lavapipe compiles a new variant of
    // this pass at every bind.
    const bool wide = isoOpaque(grid.sparseParticleReach.x > 0.0);
    if (!(wide ? listSamples(pw.xyz, a, b) : kernelSamples(pw.xyz, a, b))) return;
    // Brick c's grown samples are 8c - 1 .. 8c + 9.
    const uvec3 below = uvec3(kIsoBrickCells + 1u);
    const uvec3 lo = mix(uvec3(0u), (a - below + uvec3(kIsoBrickCells - 1u)) / kIsoBrickCells, greaterThanEqual(a, below));
    const uvec3 hi = min((b + 1u) / kIsoBrickCells, grid.sparse.xyz - 1u);
    const vec3 u = cellUnits(pw.xyz);
    for (uint z = lo.z; z <= hi.z; ++z)
        for (uint y = lo.y; y <= hi.y; ++y)
            for (uint x = lo.x; x <= hi.x; ++x) {
                const uint brick = x + grid.sparse.x * (y + grid.sparse.y * z);
                if (mode == 0u) {
                    atomicAdd(brickTable[brick], 1u);
                    continue;
                }
                const uint entry = brickTable[brick];
                if (entry == 0u || entry == kIsoBrickDropped) continue;
                // Listed, its references fit: the table holds its place + 1.
                const uint j = entry - 1u;
                const BrickCells c = brickCellsAt(uvec3(x, y, z));
                const uvec3 key = cellOf(u, c);
                const uint k = cellKey(key), brickWords = kIsoCellHeader + kIsoCellWords * j;
                const uint words = brickWords + cellWord(k);
                if (mode == 2u) {
                    atomicAdd(cellTable[words], 1u);
                } else {
                    const uint first = 2u * grid.sparseLimits.x + brickItems[2u * j];
                    brickItems[first + atomicAdd(cellTable[words], 1u)] = i;
                }
            }
    if (mode == 0u) {
        // Every super-brick of the bricks above (all writes store 1).
        const uvec3 slo = lo / kIsoSuperBricks, shi = hi / kIsoSuperBricks;
        for (uint z = slo.z; z <= shi.z; ++z)
            for (uint y = slo.y; y <= shi.y; ++y)
                for (uint x = slo.x; x <= shi.x; ++x)
                    superMarks[x + grid.superBricks.x * (y + grid.superBricks.y * z)] = 1u;
    }
}
