// Sub-cells of a listed brick: its list ordered by sub-cell, so that the
// per-particle neighbourhood loops on a sparse domain
// (sparse_particles_density.comp, sparse_particles_neighbours.comp) read a
// particle's neighbourhood, not the brick's whole list, at any list length.
//
// The sub-cells, per axis in grid units u (cellUnits): the brick's 8 cells
// cut into 4 of 2 cells, and E = (the list reach, or the support r without
// one) / spacing + 1 cells on either side (where the list's particles lie;
// any further out fall into the outermost) into 2 of E / 2: 8 an axis,
// kIsoCellKeys a brick. A particle's sub-cell is cellOf(its position), a
// monotone function of each coordinate (comparisons with the brick's faces,
// a rounded subtraction and multiplication by constants of the brick,
// floor, clamp): a query box [p - R', p + R'] with R' past every distance a
// kernel term can still count (1% and a few ulps over R) takes every
// particle whose term is not 0. The terms are integers: a sum over a subset
// holding every nonzero term is the same sum, bit for bit. The brick's faces
// are those of the particles' home brick (the brick of 8^3 cells holding a
// particle, clamped to the grid), so a brick's home particles fill exactly
// the inner sub-cells (and the outer ones past the grid's first or last
// brick): cellIsHome.
//
// Built once a frame by sparse_particles_bin.comp, a global counting sort
// (the cell table, iso_shared.h's kIsoCellWords): <name>.sparse.cells.count
// counts each listed brick's particles per sub-cell, .sparse.cells.scan
// turns the counts into each run's start and gives each brick its place in
// the home list, .sparse.fill puts every reference at its run's next place
// (the count becomes the run's end), and .sparse.homes copies each brick's
// home particles into its place of the home list in sub-cell order
// (consecutive threads of the per-particle passes read nearly the same rows).
// The order within a run follows the atomics.
//
// The per-particle passes take one home particle a thread (the home list:
// the particles of a brick are consecutive there), so a thread's loops are
// one particle's: at most kIsoCellAxis^2 rows, and ceil(run / 8) per row
// (kIsoListUnroll particles an iteration), where lavapipe ends an
// invocation's loops after 65,535 iterations in all: under it for a list of
// kIsoMaxParticleBrickItems. Needs grid; the
// readers (ISO_CELLS_READ) also cellTable, bricks and brickItems, or the
// includer's CELL_WORD(i) and BRICK_ITEM(i) for the first and last (texel
// buffers' fetches).
#ifndef ISO_SPARSE_PARTICLES_CELLS_GLSL
#define ISO_SPARSE_PARTICLES_CELLS_GLSL

const uint kIsoCellAxis = 8u;

struct BrickCells {
    uvec3 homeLo, homeHi; // the home sub-cells: 2..5 (0 on the grid's first brick, 7 on its last)
    vec3 base, top, lo;   // the brick's faces, base - E (grid units)
    vec3 outerScale;      // 2 / E
    uint first, count;    // readers: the brick's references in brickItems
    uint words;           // readers: its first word in the cell table
};

uvec3 cellBrickOf(uint packed) {
    const uint mask = (1u << kIsoBrickAxisBits) - 1u;
    return uvec3(packed & mask, (packed >> kIsoBrickAxisBits) & mask, packed >> (2 * kIsoBrickAxisBits));
}

// The sub-cells of the brick at brick coordinates `cell`.
BrickCells brickCellsAt(uvec3 cell) {
    BrickCells c;
    precise vec3 grow = vec3(max(grid.particle.x, grid.sparseParticleReach.x)) / grid.spacing.xyz + 1.0;
    c.base = vec3(cell * kIsoBrickCells); // exact: < 2^24
    c.homeLo = mix(uvec3(2u), uvec3(0u), equal(cell, uvec3(0u)));
    c.homeHi = mix(uvec3(5u), uvec3(7u), equal(cell, grid.sparse.xyz - 1u));
    c.top = c.base + float(kIsoBrickCells);
    precise vec3 lo = c.base - grow;
    c.lo = lo;
    c.outerScale = 2.0 / grow;
    c.first = 0u;
    c.count = 0u;
    c.words = 0u;
    return c;
}

vec3 cellUnits(vec3 p) {
    precise vec3 u = (p - grid.boundsMin.xyz) / grid.spacing.xyz;
    return u;
}

// The home brick takes floor(u / 8): home particles have base <= u < top.
uvec3 cellOf(vec3 u, BrickCells c) {
    precise vec3 below = (u - c.lo) * c.outerScale;
    precise vec3 inner = (u - c.base) * 0.5;
    precise vec3 above = (u - c.top) * c.outerScale;
    const vec3 k = mix(mix(clamp(floor(above), 0.0, 1.0) + 6.0, clamp(floor(inner), 0.0, 3.0) + 2.0, lessThan(u, c.top)),
                       clamp(floor(below), 0.0, 1.0), lessThan(u, c.base));
    return uvec3(k);
}

uint cellKey(uvec3 k) { return k.x + kIsoCellAxis * (k.y + kIsoCellAxis * k.z); }

bool cellIsHome(uvec3 k, BrickCells c) { return all(greaterThanEqual(k, c.homeLo)) && all(lessThanEqual(k, c.homeHi)); }

// Sub-cell key k's word in its listed brick's words (32 bits: a list may
// pass 2^16, up to kIsoMaxParticleBrickItems).
uint cellWord(uint k) { return k; }
// The words of a brick after its sub-cells: its homes' first place (then one unused).
const uint kIsoCellHomeWord = kIsoCellKeys;

// Where the home list starts in the cell table.
uint cellHomeWords() { return kIsoCellHeader + kIsoCellWords * grid.sparseLimits.x; }

#ifdef ISO_CELLS_READ
#ifndef CELL_WORD
#define CELL_WORD(i) cellTable[i]
#define BRICK_ITEM(i) brickItems[i]
#endif
// Listed brick `brick`'s sub-cells and references.
BrickCells brickCells(uint brick) {
    BrickCells c = brickCellsAt(cellBrickOf(bricks[brick]));
    c.count = BRICK_ITEM(2u * brick + 1u);
    c.first = 2u * grid.sparseLimits.x + BRICK_ITEM(2u * brick);
    c.words = kIsoCellHeader + kIsoCellWords * brick;
    return c;
}

// After the fill: the end of sub-cell k's run (its first place: k - 1's end, 0 for k = 0).
uint cellEnd(BrickCells c, uint k) { return CELL_WORD(c.words + cellWord(k)); }

// The home particles listed this frame, and the t-th: (particle index, listed brick).
uint cellHomes() { return min(CELL_WORD(0u), grid.maxItems); }
uvec2 cellHome(uint t) { return uvec2(CELL_WORD(cellHomeWords() + 2u * t), CELL_WORD(cellHomeWords() + 2u * t + 1u)); }

struct CellQuery {
    uvec3 lo, hi;
    uint rows; // rows of sub-cells
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
    q.rows = (q.hi.y - q.lo.y + 1u) * (q.hi.z - q.lo.z + 1u);
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

// Row `row`'s run of list places [x, y): the sub-cells of the row that the
// ellipsoid of radii q.r (a sphere in world units) reaches, consecutive
// keys; empty where it misses the row.
uvec2 cellRange(BrickCells c, CellQuery q, uint row) {
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
    return uvec2(k0 == 0u ? 0u : cellEnd(c, k0 - 1u), cellEnd(c, k1));
}

// The particle index at list place k.
uint cellItem(BrickCells c, uint k) { return BRICK_ITEM(c.first + k); }
#endif

#endif
