// A listed brick's particles sorted by sub-cell, for the per-particle
// neighbourhood loops on a sparse domain (sparse_particles_density.comp,
// sparse_particles_neighbours.comp): a particle then reads the sub-cells its
// neighbourhood reaches, not the brick's whole list.
//
// The sub-cells: the box of the brick's 8^3 cells grown by E = (the list
// reach, or the support r without one) / spacing + 1 cells per side (where
// the list's particles lie; any outside fall into the outermost sub-cells),
// cut into kIsoCellAxis^3 equal sub-cells. A particle's sub-cell is
// cellOf(its position), a monotone function of each coordinate (a rounded
// subtraction, division and multiplication by constants of the brick, then
// floor and clamp): a query box [p - R', p + R'] with R' past every distance
// a kernel term can still count (1% and a few ulps over R) then takes every
// particle whose term is not 0. The terms are integers: a sum over a subset
// holding every nonzero term is the same sum, bit for bit.
//
// A workgroup (kIsoBricksPerGroup bricks of classify's indirect dispatch)
// takes its bricks one after the other, all kIsoCellThreads threads on one
// brick: a counting sort in shared memory (counts, a prefix sum, the list
// positions scattered by sub-cell, two 16-bit positions a word), then the
// per-particle loops (the includer's). Lists past kIsoCellSortItems are not
// sorted (every query then reads the whole list); so is a query whose box
// spans more than kIsoCellMaxRows rows of sub-cells: lavapipe ends an
// invocation's loops after 65,535 iterations in all, and a thread runs
// kIsoBricksPerGroup x ceil(3,840 / 128) = 120 particle loops of at most
// 2 kIsoCellMaxRows + 3,840 / 8 + 2 iterations, about 64,200 with the
// sort's. Needs grid, brickItems and the includer's
// `vec3 cellPosition(uint index)` (the positions the loops measure
// distances between).
#ifndef ISO_SPARSE_PARTICLES_CELLS_GLSL
#define ISO_SPARSE_PARTICLES_CELLS_GLSL

const uint kIsoCellAxis = 8u;
const uint kIsoCellCount = kIsoCellAxis * kIsoCellAxis * kIsoCellAxis;
// layout.cpp's kMaxSparseNeighbourItems: the longest list these passes get.
const uint kIsoCellSortItems = 3840u;
const uint kIsoCellMaxRows = 25u;
const uint kIsoCellThreads = kIsoBricksPerGroup * kIsoBorderThreads; // 128: 4 sub-cells a thread in the scan
const uint kIsoCellsPerThread = kIsoCellCount / kIsoCellThreads;

// After the sort: the end (exclusive) of each sub-cell's run in cellSorted.
shared uint cellEnd[kIsoCellCount];
// List positions (16 bits) in sub-cell order, two a word.
shared uint cellSorted[kIsoCellSortItems / 2u];
shared uint cellPartial[kIsoCellThreads];

struct BrickCells {
    uint first, count; // the brick's references in brickItems
    bool sorted;
    vec3 lo, scale; // sub-cell (s) of grid units u: floor((u - lo) * scale)
};

uvec3 cellBrickOf(uint packed) {
    const uint mask = (1u << kIsoBrickAxisBits) - 1u;
    return uvec3(packed & mask, (packed >> kIsoBrickAxisBits) & mask, packed >> (2 * kIsoBrickAxisBits));
}

BrickCells brickCells(uint brick) {
    BrickCells c;
    c.count = brickItems[2u * brick + 1u];
    c.first = 2u * grid.sparseLimits.x + brickItems[2u * brick];
    c.sorted = c.count <= kIsoCellSortItems;
    precise vec3 grow = vec3(max(grid.particle.x, grid.sparseParticleReach.x)) / grid.spacing.xyz + 1.0;
    precise vec3 lo = vec3(cellBrickOf(bricks[brick]) * kIsoBrickCells) - grow;
    precise vec3 side = grow + grow + float(kIsoBrickCells);
    c.lo = lo;
    c.scale = float(kIsoCellAxis) / side;
    return c;
}

vec3 cellUnits(vec3 p) {
    precise vec3 u = (p - grid.boundsMin.xyz) / grid.spacing.xyz;
    return u;
}

uvec3 cellOf(vec3 u, BrickCells c) {
    precise vec3 s = (u - c.lo) * c.scale;
    return uvec3(clamp(floor(s), vec3(0.0), vec3(float(kIsoCellAxis - 1u))));
}

uint cellKey(uvec3 k) { return k.x + kIsoCellAxis * (k.y + kIsoCellAxis * k.z); }

uint cellKeyOf(uint index, BrickCells c) { return cellKey(cellOf(cellUnits(cellPosition(index)), c)); }

// Every thread of the workgroup calls it (barriers), thread l.
void sortCells(BrickCells c, uint l) {
    [[unroll]] for (uint k = 0u; k < kIsoCellsPerThread; ++k) cellEnd[l * kIsoCellsPerThread + k] = 0u;
    const uint sortCount = c.sorted ? c.count : 0u;
    for (uint k = l; 2u * k < sortCount; k += kIsoCellThreads) cellSorted[k] = 0u;
    barrier();
    for (uint j = l; j < sortCount; j += kIsoCellThreads)
        atomicAdd(cellEnd[cellKeyOf(brickItems[c.first + j], c)], 1u);
    barrier();
    // Exclusive prefix sum: thread l's sub-cells, then the threads below it.
    uint own[kIsoCellsPerThread];
    uint mine = 0u;
    [[unroll]] for (uint k = 0u; k < kIsoCellsPerThread; ++k) {
        own[k] = cellEnd[l * kIsoCellsPerThread + k];
        mine += own[k];
    }
    cellPartial[l] = mine;
    barrier();
    uint before = 0u;
    for (uint i0 = 0u; i0 < l; i0 += 8u) {
        [[unroll]] for (uint u = 0u; u < 8u; ++u)
            if (i0 + u < l) before += cellPartial[i0 + u];
    }
    [[unroll]] for (uint k = 0u; k < kIsoCellsPerThread; ++k) {
        cellEnd[l * kIsoCellsPerThread + k] = before; // the cursor: the run's start
        before += own[k];
    }
    barrier();
    // Each cursor ends at its run's end.
    for (uint j = l; j < sortCount; j += kIsoCellThreads) {
        const uint at = atomicAdd(cellEnd[cellKeyOf(brickItems[c.first + j], c)], 1u);
        atomicOr(cellSorted[at >> 1u], j << (16u * (at & 1u)));
    }
    barrier();
}

struct CellQuery {
    uvec3 lo, hi;
    uint rows; // row loops: rows of sub-cells, or 1 (the whole list)
    bool all;
};

// The sub-cells within `radius` (world units) of p, with margins.
CellQuery cellQuery(BrickCells c, vec3 p, float radius) {
    CellQuery q;
    const vec3 u = cellUnits(p);
    precise vec3 r = vec3(radius * 1.01) / grid.spacing.xyz + 1e-5 * (abs(u) + 1.0);
    q.lo = cellOf(u - r, c);
    q.hi = cellOf(u + r, c);
    const uint rows = (q.hi.y - q.lo.y + 1u) * (q.hi.z - q.lo.z + 1u);
    q.all = !c.sorted || rows > kIsoCellMaxRows;
    q.rows = q.all ? 1u : rows;
    return q;
}

// Row `row`'s run of sorted positions [x, y): sub-cells lo.x .. hi.x are
// consecutive keys.
uvec2 cellRange(BrickCells c, CellQuery q, uint row) {
    if (q.all) return uvec2(0u, c.count);
    const uint ny = q.hi.y - q.lo.y + 1u;
    const uint z = row / ny, y = row - z * ny;
    const uint k0 = cellKey(uvec3(q.lo.x, q.lo.y + y, q.lo.z + z));
    const uint k1 = cellKey(uvec3(q.hi.x, q.lo.y + y, q.lo.z + z));
    return uvec2(k0 == 0u ? 0u : cellEnd[k0 - 1u], cellEnd[k1]);
}

// The particle index at sorted position k (or list position k: q.all).
uint cellItem(BrickCells c, CellQuery q, uint k) {
    const uint j = q.all ? k : (cellSorted[k >> 1u] >> (16u * (k & 1u))) & 0xffffu;
    return brickItems[c.first + j];
}
#endif
