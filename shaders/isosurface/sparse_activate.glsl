// Sparse domain (IsoSurfaceCreateInfo::sparse), every frame: which bricks of
// kIsoBrickCells^3 cells the surface can cross, coarse to fine. Not a shader
// of its own: field_user.cpp wraps the user's snippet with this text (as
// user_bounds.glsl), defining ISO_LIPSCHITZ; for metaballs
// (ISO_SPARSE_METABALLS) sparse_metaballs_activate.comp includes it, and a
// box's interval is the sum of the balls' term ranges over it
// (ballTermRange) instead of a Lipschitz bound; for particles
// (ISO_SPARSE_PARTICLES, sparse_particles_activate.comp) a super-brick or
// brick is listed where particles reach it (sparse_particles_bin.comp
// counted them). Five passes of it (pc.srcLevel), in a fixed order whatever
// order the threads run in: a pass marks what it finds (a bit each, an
// atomicOr: the same words in every run), <name>.sparse.supers.order and
// <name>.sparse.bricks.order (sparse_order.comp) scan the marks:
// 0, <name>.sparse.supers: one thread per super-brick (kIsoSuperBricks^3
//    bricks; grid.superBricks) marks it when the Lipschitz interval of its
//    centre with radius r_super + r_brick reaches the iso value. That
//    interval holds every one of its bricks' intervals (a brick centre lies
//    within r_super of the super-brick's, so |f(c_b) - f(c_s)| <= L r_super),
//    so no brick the fine test lists is lost.
// 1, <name>.sparse.supers.args: the listed count (at most
//    grid.sparseOrderSupers) -> the indirect dispatches of the fine pass
//    (kIsoSuperBrickCount threads per super-brick) and of the list pass (16).
// 2, <name>.sparse.activate: one thread per brick of a listed super-brick
//    marks the brick when its own interval (one field() call at its centre,
//    lipschitz_bounds.glsl) straddles the iso value: bit l of the listed
//    super-brick's 16 words for its brick l. A brick the bound leaves out
//    has no cut cell, so the list holds every brick the dense path finds
//    triangles in.
// 4, <name>.sparse.list: a thread per word of those marks writes its bricks
//    into the list from the word's first entry (the bricks order pass's
//    base); past the list's capacity they only count (the stats report the
//    bricks needed, the frame as an overflow).
//    Metaballs: the brick also gets the list of the balls that reach it
//    (one sample past it: the normals' differences), in ascending order,
//    from the ball references (binding 6; stats: needed; a brick whose
//    list does not fit, or lists more than kIsoMaxBrickItems, gets an
//    empty one and the frame reports the overflow); classify and
//    extraction sum only those
//    (sparse_metaball_field.glsl).
// 3, <name>.sparse.args: the brick count -> classify's indirect dispatch
//    (kIsoBricksPerGroup bricks per group).
// Every brick of the grid is tested by the fine pass only where its
// super-brick is listed: at 2047^3 the sphere lists ~4 K of 32 K
// super-bricks, so ~2 M brick tests instead of 16.8 M.
// The item references' places follow an atomic (an overflow of them may
// then drop other bricks' lists); the lists' order is fixed.

// Two builds (sparse.cpp): ISO_SPARSE_COARSE for modes 0 and 1, the other
// for modes 2, 3 and 4, so that the fine pass's pipeline never writes the
// buffer its own indirect dispatch reads (a shader's bindings count as
// accessed by every dispatch of it, whatever the mode).
layout(set = 0, binding = 1, std430) buffer IsoCountersBuf { IsoCounters isoCounters; };
// The next passes' indirect dispatches: coarse, the fine and list passes'; fine, classify's.
layout(set = 0, binding = 3, std430) writeonly buffer IsoDispatchBuf { uvec4 isoDispatch[]; };
// The marks: the super-bricks' bits, then 16 words per listed super-brick
// (from word isoSuperWords()); the list pass's bases (sparse_order.comp).
layout(set = 0, binding = 9, std430) buffer IsoMarksBuf { uint isoMarks[]; };
#ifndef ISO_SPARSE_COARSE
layout(set = 0, binding = 10, std430) readonly buffer IsoBasesBuf { uint isoBases[]; };
layout(set = 0, binding = 2, std430) writeonly buffer IsoBrickListBuf { uint isoBricks[]; };
layout(set = 0, binding = 4, std430) readonly buffer IsoSuperListBuf { uint isoSupers[]; };
#if defined(ISO_SPARSE_METABALLS) || defined(ISO_SPARSE_PARTICLES)
// Per listed brick i: words 2i, 2i + 1 its first reference and count; the
// references (ball or particle indices) from word 2 * sparseLimits.x.
layout(set = 0, binding = 6, std430) writeonly buffer IsoBrickItemsBuf { uint isoBrickItems[]; };
#endif
#ifdef ISO_SPARSE_PARTICLES
// Particles reaching each brick of the virtual grid (sparse_particles_bin.comp).
layout(set = 0, binding = 7, std430) buffer IsoBrickTableBuf { uint isoBrickTable[]; };
#endif
#endif
#if defined(ISO_SPARSE_PARTICLES) && defined(ISO_SPARSE_COARSE)
layout(set = 0, binding = 8, std430) readonly buffer IsoSuperMarksBuf { uint isoSuperMarks[]; };
#endif

#ifdef ISO_SPARSE_PARTICLES
// Particles: a brick is listed where particles reach it (no interval).
#elif defined(ISO_SPARSE_METABALLS)
bool isoStraddles(vec2 b) { return b.y >= pc.iso && b.x < pc.iso; }

// This frame's balls: a slot of the ring.
uint isoBallFirst() { return pc.slot * grid.maxItems; }
uint isoBallCount() { return isoOpaque(min(pc.itemCount, grid.maxItems)); }

// The box of samples lo..hi (inclusive) in world units, and grown by one
// sample on every side (the samples the normals of its cells read).
void isoWorldBoxes(uvec3 lo, uvec3 hi, out vec3 a, out vec3 b, out vec3 grownA, out vec3 grownB) {
    a = isoSamplePosition(grid, lo);
    b = isoSamplePosition(grid, hi);
    grownA = a - grid.spacing.xyz;
    grownB = b + grid.spacing.xyz;
}

// Interval holding the metaball field at the samples lo..hi: the sum of the
// term ranges of the balls that reach the grown box (`reaching` of them; a
// ball that misses it adds exactly 0 to every sample of the box), widened
// by the rounding of the field's float sum and of the ranges' ends. A
// non-finite strength makes the interval (-inf, inf).
vec2 isoBoxBounds(uvec3 lo, uvec3 hi, out uint reaching) {
    vec3 a, b, ga, gb;
    isoWorldBoxes(lo, hi, a, b, ga, gb);
    const uint first = isoBallFirst(), count = isoBallCount();
    vec2 sum = vec2(0.0);
    float magnitude = 0.0;
    reaching = 0u;
    for (uint i = 0u; i < count; ++i) {
        const vec4 cr = ballCentreRadius(first + i);
        if (!ballReaches(cr, ga, gb)) continue;
        ++reaching;
        const float strength = ballStrength(first + i);
        sum += ballTermRange(cr, strength, a, b);
        magnitude += isFiniteF(strength) ? abs(strength) : 0.0;
    }
    const float margin = (1e-5 + 1.2e-7 * float(reaching)) * magnitude;
    return vec2(sum.x - margin, sum.y + margin);
}
#else
#include "isosurface/lipschitz_bounds.glsl"
#endif

uint isoSuperWords() { return (grid.superBricks.w + 31u) / 32u; }

uvec4 isoFoldedGroups(uint groups) {
    const uint gx = min(groups, grid.maxGroupsX);
    return uvec4(gx, gx == 0u ? 1u : (groups + gx - 1u) / gx, 1u, 0u);
}

// Sample box of brick b (the grid's last brick of an axis may be shorter).
void isoBrickBox(uvec3 b, out uvec3 lo, out uvec3 hi) {
    lo = b * kIsoBrickCells;
    hi = min(lo + kIsoBrickCells, grid.cells.xyz);
}

#ifndef ISO_SPARSE_COARSE
// Brick `local` (x fastest) of listed super-brick `listedSuper`.
uvec3 isoListedSuperBrick(uint listedSuper, uint local) {
    const uint super = isoSupers[listedSuper];
    const uint row = divideBy(super, grid.superDivisors.x, grid.superDivisors.z);
    const uint sz = divideBy(row, grid.superDivisors.y, grid.superDivisors.w);
    const uvec3 s = uvec3(super - row * grid.superBricks.x, row - sz * grid.superBricks.y, sz);
    return s * kIsoSuperBricks + uvec3(local & 7u, (local >> 3) & 7u, local >> 6);
}
#endif

void main() {
#if !defined(ISO_SPARSE_METABALLS) && !defined(ISO_SPARSE_PARTICLES)
    isoBeginUserFrame();
#endif
    const uint thread = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    // One structured if/else (see the field pass): GPU-assisted validation's
    // instrumented copy of early returns inside branches failed Mesa's parser.
#ifdef ISO_SPARSE_COARSE
    if (isoOpaque(pc.srcLevel) == 0u) {
        if (thread < grid.superBricks.w) {
            const uint row = divideBy(thread, grid.superDivisors.x, grid.superDivisors.z);
            const uint sz = divideBy(row, grid.superDivisors.y, grid.superDivisors.w);
            const uvec3 s = uvec3(thread - row * grid.superBricks.x, row - sz * grid.superBricks.y, sz);
            const uvec3 lo = s * (kIsoSuperBricks * kIsoBrickCells);
            const uvec3 hi = min(lo + kIsoSuperBricks * kIsoBrickCells, grid.cells.xyz);
#if defined(ISO_SPARSE_PARTICLES)
            // A particle marked it (sparse.count).
            const bool listed = isoSuperMarks[thread] != 0u;
#elif defined(ISO_SPARSE_METABALLS)
            // The box's range holds every one of its bricks' ranges.
            uint reaching;
            const bool listed = isoStraddles(isoBoxBounds(lo, hi, reaching));
#else
            // The interval over the box grown by a brick's half diagonal on
            // every side holds every brick's own interval.
            const vec2 box = isoBoxBounds(lo, hi);
            const vec3 brickDiagonal = vec3(kIsoBrickCells) * grid.spacing.xyz;
            const float grow = ISO_LIPSCHITZ * 0.5 * length(brickDiagonal) * 1.001;
            const bool listed = isoStraddles(vec2(box.x - grow, box.y + grow));
#endif
            if (listed) atomicOr(isoMarks[thread >> 5], 1u << (thread & 31u));
        }
    } else {
        const uint supers = min(isoCounters.sparseSupers, grid.sparseOrderSupers);
        isoDispatch[0] = isoFoldedGroups(supers * (kIsoSuperBrickCount / kIsoGroupSize));
        isoDispatch[1] = isoFoldedGroups((supers * 16u + kIsoGroupSize - 1u) / kIsoGroupSize);
    }
#else
    const uint mode = isoOpaque(pc.srcLevel);
    const uint supers = min(isoCounters.sparseSupers, grid.sparseOrderSupers);
    if (mode == 2u) {
        const uint listedSuper = thread / kIsoSuperBrickCount;
        if (listedSuper < supers) {
            const uint local = thread % kIsoSuperBrickCount;
            const uvec3 b = isoListedSuperBrick(listedSuper, local);
            if (all(lessThan(b, grid.sparse.xyz))) {
#if defined(ISO_SPARSE_PARTICLES)
                // Listed where particles reach it.
                const bool listed = isoBrickTable[b.x + grid.sparse.x * (b.y + grid.sparse.y * b.z)] != 0u;
#elif defined(ISO_SPARSE_METABALLS)
                uvec3 lo, hi;
                isoBrickBox(b, lo, hi);
                uint reaching;
                const bool listed = isoStraddles(isoBoxBounds(lo, hi, reaching));
#else
                uvec3 lo, hi;
                isoBrickBox(b, lo, hi);
                const bool listed = isoStraddles(isoBoxBounds(lo, hi));
#endif
                if (listed) atomicOr(isoMarks[isoSuperWords() + thread / 32u], 1u << (local & 31u));
            }
        }
    } else if (mode == 4u) {
        // The marked bricks of one word (32 of a listed super-brick), in bit
        // order, from the word's first list entry.
        if (thread < supers * 16u) {
            uint at = isoBases[thread];
            for (uint bits = isoMarks[isoSuperWords() + thread]; bits != 0u; bits &= bits - 1u, ++at) {
                const uint local = (thread % 16u) * 32u + uint(findLSB(bits));
                const uvec3 b = isoListedSuperBrick(thread / 16u, local);
#if defined(ISO_SPARSE_PARTICLES)
                // Its count becomes its place in the list + 1 for sparse.fill
                // (0: not reached; kIsoBrickDropped: reached, but past the
                // list or the references: sparse_particles_blocks.comp then
                // evaluates the samples its neighbours would have copied from it).
                const uint brick = b.x + grid.sparse.x * (b.y + grid.sparse.y * b.z);
                const uint reaching = isoBrickTable[brick];
                const uint maxItems = kIsoMaxParticleBrickItems;
                const uint ref = atomicAdd(isoCounters.sparseItemRefs, reaching);
                if (reaching > maxItems) atomicAdd(isoCounters.sparseCrowdedBricks, 1u);
                const bool fits = reaching <= maxItems && reaching <= grid.sparseLimits.w &&
                                  ref <= grid.sparseLimits.w - reaching;
                if (at < grid.sparseLimits.x) {
                    isoBricks[at] = b.x | (b.y << kIsoBrickAxisBits) | (b.z << (2 * kIsoBrickAxisBits));
                    isoBrickItems[2u * at] = fits ? ref : 0u;
                    isoBrickItems[2u * at + 1u] = fits ? reaching : 0u;
                }
                isoBrickTable[brick] = at < grid.sparseLimits.x && fits ? at + 1u : kIsoBrickDropped;
#elif defined(ISO_SPARSE_METABALLS)
                uvec3 lo, hi;
                isoBrickBox(b, lo, hi);
                uint reaching;
                isoBoxBounds(lo, hi, reaching);
                const uint ref = atomicAdd(isoCounters.sparseItemRefs, reaching);
                if (reaching > kIsoMaxBrickItems) atomicAdd(isoCounters.sparseCrowdedBricks, 1u);
                if (at < grid.sparseLimits.x) {
                    isoBricks[at] = b.x | (b.y << kIsoBrickAxisBits) | (b.z << (2 * kIsoBrickAxisBits));
                    const bool fits = reaching <= kIsoMaxBrickItems && reaching <= grid.sparseLimits.w &&
                                      ref <= grid.sparseLimits.w - reaching;
                    isoBrickItems[2u * at] = fits ? ref : 0u;
                    isoBrickItems[2u * at + 1u] = fits ? reaching : 0u;
                    if (fits) {
                        // The same balls, in ascending order (the sum's order in the dense field pass).
                        vec3 boxLo, boxHi, grownLo, grownHi;
                        isoWorldBoxes(lo, hi, boxLo, boxHi, grownLo, grownHi);
                        const uint first = isoBallFirst(), count = isoBallCount();
                        uint word = 2u * grid.sparseLimits.x + ref;
                        for (uint i = 0u; i < count; ++i)
                            if (ballReaches(ballCentreRadius(first + i), grownLo, grownHi))
                                isoBrickItems[word++] = first + i;
                    }
                }
#else
                if (at < grid.sparseLimits.x)
                    isoBricks[at] = b.x | (b.y << kIsoBrickAxisBits) | (b.z << (2 * kIsoBrickAxisBits));
#endif
            }
        }
    } else {
        const uint listed = min(isoCounters.sparseBricks, grid.sparseLimits.x);
        isoDispatch[0] = isoFoldedGroups((listed + kIsoBricksPerGroup - 1u) / kIsoBricksPerGroup);
    }
#endif
}
