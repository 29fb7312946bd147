// A listed brick's particles sorted by sub-cell, for the per-particle
// neighbourhood loops on a sparse domain (sparse_particles_density.comp,
// sparse_particles_neighbours.comp): a particle then reads the sub-cells its
// neighbourhood reaches, not the brick's whole list.
//
// The sub-cells, per axis in grid units u (cellUnits): the brick's 8 cells
// cut into 4 of 2 cells, and E = (the list reach, or the support r without
// one) / spacing + 1 cells on either side (where the list's particles lie;
// any further out fall into the outermost) into 2 of E / 2: 8 an axis. A
// particle's sub-cell is cellOf(its position), a monotone function of each
// coordinate (comparisons with the brick's faces, a rounded subtraction and
// multiplication by constants of the brick, floor, clamp): a query box
// [p - R', p + R'] with R' past every distance a kernel term can still count
// (1% and a few ulps over R) takes every particle whose term is not 0. The
// terms are integers: a sum over a subset holding every nonzero term is the
// same sum, bit for bit. The brick's faces are those of homeBrick(), so its
// home particles fill exactly the inner sub-cells (and the outer ones past
// the grid's first or last brick, where homeBrick() clamps): the loops take
// the h-th home particle from the rows of that box (cellHome), so every
// thread of lavapipe's 8-wide batches has one.
//
// A workgroup (kIsoBricksPerGroup bricks of classify's indirect dispatch)
// takes its bricks one after the other, all kIsoCellThreads threads on one
// brick: a counting sort in shared memory (counts, a prefix sum, the list
// positions scattered by sub-cell, two 16-bit positions a word), then the
// per-particle loops (the includer's). Lists past kIsoCellSortItems are not
// sorted (every query then reads the whole list); so is a query whose box
// spans more rows of sub-cells than the brick's row cap: lavapipe ends an
// invocation's loops after 65,535 iterations in all. A thread takes
// ceil(list / 128) of each of its kIsoBricksPerGroup bricks' particles; a
// particle's loops run at most 2 rows + list / 8 + 2 iterations (its own,
// a row loop, then ceil(run / 8) a row; the runs are disjoint), or
// list / 8 + 3 over the whole list. The row cap keeps that under
// kIsoCellLoopBudget iterations a brick (at most kIsoCellMaxRows): 4 x
// 15,500 + the sorts' ~400 = 62,400 for the longest lists (3,840: a cap of
// 16 rows), 25 rows for lists up to ~3,300. Needs grid, brickItems and the includer's
// `vec3 cellPosition(uint index)` (the positions the loops measure
// distances between).
#ifndef ISO_SPARSE_PARTICLES_CELLS_GLSL
#define ISO_SPARSE_PARTICLES_CELLS_GLSL

const uint kIsoCellAxis = 8u;
const uint kIsoCellCount = kIsoCellAxis * kIsoCellAxis * kIsoCellAxis;
// kIsoCellSortItems (iso_shared.h): the longest list these passes get.
const uint kIsoCellMaxRows = 25u;
const uint kIsoCellLoopBudget = 15500u;
const uint kIsoCellThreads = kIsoBricksPerGroup * kIsoBorderThreads; // 128: 4 sub-cells a thread in the scan
const uint kIsoCellsPerThread = kIsoCellCount / kIsoCellThreads;

// After the sort: the end (exclusive) of each sub-cell's run in cellSorted.
shared uint cellEnd[kIsoCellCount];
// List positions (16 bits) in sub-cell order, two a word.
shared uint cellSorted[kIsoCellSortItems / 2u];
shared uint cellPartial[kIsoCellThreads];
// The home particles (homeBrick() is the brick): rows of the home box's
// sub-cells, each's first sorted position and the home particles before it.
shared uint homeRunStart[kIsoCellAxis * kIsoCellAxis];
shared uint homeBefore[kIsoCellAxis * kIsoCellAxis];
shared uint homeTotal;

struct BrickCells {
    uint first, count; // the brick's references in brickItems
    bool sorted;
    uint rowCap; // the most rows a query may loop over (else the whole list)
    uvec3 homeLo; // the home box's first sub-cell: 2 (0 on the grid's first brick)
    uint homeNx, homeNy, homeRows;
    vec3 base, top, lo; // the brick's faces, base - E (grid units)
    vec3 outerScale;    // 2 / E
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
    const uint perThread = max((c.count + kIsoCellThreads - 1u) / kIsoCellThreads, 1u);
    const uint spare = kIsoCellLoopBudget / perThread;
    const uint whole = c.count / kIsoListUnroll + 3u; // the whole list, with the particle loop
    c.rowCap = spare > whole ? min((spare - whole) / 2u, kIsoCellMaxRows) : 0u;
    precise vec3 grow = vec3(max(grid.particle.x, grid.sparseParticleReach.x)) / grid.spacing.xyz + 1.0;
    const uvec3 cell = cellBrickOf(bricks[brick]);
    c.base = vec3(cell * kIsoBrickCells); // exact: < 2^24
    // homeBrick() clamps to the grid's bricks: particles past the grid's
    // first or last brick are its home particles too (the outer sub-cells).
    c.homeLo = mix(uvec3(2u), uvec3(0u), equal(cell, uvec3(0u)));
    const uvec3 homeHi = mix(uvec3(5u), uvec3(7u), equal(cell, grid.sparse.xyz - 1u));
    c.homeNx = homeHi.x - c.homeLo.x + 1u;
    c.homeNy = homeHi.y - c.homeLo.y + 1u;
    c.homeRows = c.homeNy * (homeHi.z - c.homeLo.z + 1u);
    c.top = c.base + float(kIsoBrickCells);
    precise vec3 lo = c.base - grow;
    c.lo = lo;
    c.outerScale = 2.0 / grow;
    return c;
}

vec3 cellUnits(vec3 p) {
    precise vec3 u = (p - grid.boundsMin.xyz) / grid.spacing.xyz;
    return u;
}

// homeBrick() takes floor(u / 8): home particles have base <= u < top.
uvec3 cellOf(vec3 u, BrickCells c) {
    precise vec3 below = (u - c.lo) * c.outerScale;
    precise vec3 inner = (u - c.base) * 0.5;
    precise vec3 above = (u - c.top) * c.outerScale;
    const vec3 k = mix(mix(clamp(floor(above), 0.0, 1.0) + 6.0, clamp(floor(inner), 0.0, 3.0) + 2.0, lessThan(u, c.top)),
                       clamp(floor(below), 0.0, 1.0), lessThan(u, c.base));
    return uvec3(k);
}

uint cellKey(uvec3 k) { return k.x + kIsoCellAxis * (k.y + kIsoCellAxis * k.z); }

uint cellKeyOf(uint index, BrickCells c) { return cellKey(cellOf(cellUnits(cellPosition(index)), c)); }

uint cellSortedAt(uint k) { return (cellSorted[k >> 1u] >> (16u * (k & 1u))) & 0xffffu; }

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
    // The home box's rows (at most 64: one a thread), their runs counted.
    uint run = 0u;
    if (l < c.homeRows) {
        const uint y = c.homeLo.y + l % c.homeNy, z = c.homeLo.z + l / c.homeNy;
        const uint k0 = cellKey(uvec3(c.homeLo.x, y, z)), k1 = cellKey(uvec3(c.homeLo.x + c.homeNx - 1u, y, z));
        const uint start = k0 == 0u ? 0u : cellEnd[k0 - 1u];
        run = cellEnd[k1] - start;
        homeRunStart[l] = start;
        cellPartial[l] = run;
    }
    barrier();
    if (l < c.homeRows) {
        uint before = 0u;
        for (uint i0 = 0u; i0 < l; i0 += 8u) {
            [[unroll]] for (uint u = 0u; u < 8u; ++u)
                if (i0 + u < l) before += cellPartial[i0 + u];
        }
        homeBefore[l] = before;
        if (l == c.homeRows - 1u) homeTotal = before + run;
    }
    barrier();
}

// How many home particles the brick's loops take: those of the home box,
// or (not sorted, or ISO_CELLS_HOME_BY_LIST: sub-cells of positions other
// than the ones homeBrick() takes) the whole list, each tested with
// homeBrick().
#ifdef ISO_CELLS_HOME_BY_LIST
uint cellHomes(BrickCells c) { return c.count; }
uint cellHome(BrickCells c, uint h) { return brickItems[c.first + h]; }
#else
uint cellHomes(BrickCells c) { return c.sorted ? homeTotal : c.count; }

// The particle index of the h-th of them.
uint cellHome(BrickCells c, uint h) {
    if (!c.sorted) return brickItems[c.first + h];
    // The last row with homeBefore <= h (rows of 0 share it with the next).
    uint r = 0u;
    [[unroll]] for (uint step = 32u; step > 0u; step >>= 1u)
        if (r + step < c.homeRows && homeBefore[r + step] <= h) r += step;
    return brickItems[c.first + cellSortedAt(homeRunStart[r] + (h - homeBefore[r]))];
}
#endif

struct CellQuery {
    uvec3 lo, hi;
    uint rows; // row loops: rows of sub-cells, or 1 (the whole list)
    bool all;
    vec3 u, r; // the centre and the radius with its margins, grid units
};

// The sub-cells within `radius` (world units) of p, with margins.
CellQuery cellQuery(BrickCells c, vec3 p, float radius) {
    CellQuery q;
    q.u = cellUnits(p);
    precise vec3 r = vec3(radius * 1.01) / grid.spacing.xyz + 1e-5 * (abs(q.u) + 1.0);
    q.r = r;
    q.lo = cellOf(q.u - r, c);
    q.hi = cellOf(q.u + r, c);
    const uint rows = (q.hi.y - q.lo.y + 1u) * (q.hi.z - q.lo.z + 1u);
    q.all = !c.sorted || rows > c.rowCap;
    q.rows = q.all ? 1u : rows;
    return q;
}

// How far (grid units, 0 inside) u lies from sub-cell k of an axis (its
// faces: cellOf's, up to rounding; the callers leave 1% of the radius).
float cellGap(float u, uint k, float base, float top, float lo, float grow) {
    const float half_ = 0.5 * grow;
    const float start = k == 0u ? -3.0e38 : k == 1u ? lo + half_ : k < 6u ? base + 2.0 * float(k - 2u) : top + half_ * float(k - 6u);
    const float end = k == 7u ? 3.0e38 : k == 0u ? lo + half_ : k < 6u ? base + 2.0 * float(k - 1u) : top + half_;
    return max(0.0, max(start - u, u - end));
}

// Row `row`'s run of sorted positions [x, y): the sub-cells of the row that
// the ellipsoid of radii q.r (a sphere in world units) reaches, consecutive
// keys; empty where it misses the row.
uvec2 cellRange(BrickCells c, CellQuery q, uint row) {
    if (q.all) return uvec2(0u, c.count);
    const uint ny = q.hi.y - q.lo.y + 1u;
    const uint z = q.lo.z + row / ny, y = q.lo.y + row % ny;
    const vec3 grow = c.base - c.lo;
    const float gy = max(0.0, cellGap(q.u.y, y, c.base.y, c.top.y, c.lo.y, grow.y) / q.r.y - 0.01);
    const float gz = max(0.0, cellGap(q.u.z, z, c.base.z, c.top.z, c.lo.z, grow.z) / q.r.z - 0.01);
    const float left = 1.0 - gy * gy - gz * gz;
    if (!(left > 0.0)) return uvec2(0u);
    const float rx = q.r.x * (sqrt(left) + 0.01);
    const uint x0 = max(q.lo.x, cellOf(vec3(q.u.x - rx, q.u.yz), c).x);
    const uint x1 = min(q.hi.x, cellOf(vec3(q.u.x + rx, q.u.yz), c).x);
    const uint k0 = cellKey(uvec3(x0, y, z)), k1 = cellKey(uvec3(x1, y, z));
    return uvec2(k0 == 0u ? 0u : cellEnd[k0 - 1u], cellEnd[k1]);
}

// The particle index at sorted position k (or list position k: q.all).
uint cellItem(BrickCells c, CellQuery q, uint k) { return brickItems[c.first + (q.all ? k : cellSortedAt(k))]; }

#endif
