// Particle gather: bins are the cells of the sample lattice, grown by
// grid.binPad cells below and grid.binReach cells above each axis (every
// cell whose particles can reach a sample). Bin x is the fastest axis, so
// the bins of one row (fixed y, z) are contiguous in the sorted particles.
#ifndef ISO_PARTICLES_BINS_GLSL
#define ISO_PARTICLES_BINS_GLSL

// Bin of a world position, or false outside the binned box (such a
// particle reaches no sample).
bool binOf(vec3 p, out uint bin) {
    const vec3 b = floor((p - grid.boundsMin.xyz) / grid.spacing.xyz) + vec3(grid.binPad.xyz);
    bin = 0;
    if (any(lessThan(b, vec3(0.0))) || any(greaterThanEqual(b, vec3(grid.binDims.xyz)))) return false;
    const uvec3 u = uvec3(b);
    bin = u.x + grid.binDims.x * (u.y + grid.binDims.y * u.z);
    return true;
}

// The bins [b0, b1] along one axis (clamped to [lo, hi]) that the chord of
// half-length `chord` around coordinate p reaches, widened for the rounding
// of the chord and of binOf() by 1/16 bin plus 8 ulps of the largest
// coordinate (in bins). binLo: where bin 0 starts on that axis.
void chordBins(float p, float chord, float binLo, float spacing, uint lo, uint hi, out uint b0, out uint b1) {
    const float t0 = (p - chord - binLo) / spacing;
    const float t1 = (p + chord - binLo) / spacing;
    const float slack = 0.0625 + (abs(p) + chord + abs(binLo)) / spacing * 9.5367431640625e-7;
    b0 = uint(clamp(floor(t0 - slack), float(lo), float(hi)));
    b1 = uint(clamp(floor(t1 + slack), float(lo), float(hi)));
}

// The rows (bins along y) of slab bz that the sphere of radius rad around p
// reaches, clamped to [lo, hi]; false if it misses the slab. rowBins() one
// axis up, a little wider (radius 1.001 rad, the same slack): every row left
// out is one rowBins() would return false for, so callers that go on to
// rowBins() sum the same particles as over all rows [lo, hi], minus the
// rows out of reach.
bool slabRows(vec3 p, float rad, uint bz, uint lo, uint hi, out uint y0, out uint y1) {
    const vec3 binLo = grid.boundsMin.xyz - vec3(grid.binPad.xyz) * grid.spacing.xyz;
    const float z0 = binLo.z + float(bz) * grid.spacing.z;
    const float dz = max(max(z0 - p.z, p.z - (z0 + grid.spacing.z)), 0.0);
    const float wide = rad * 1.001;
    const float chord2 = wide * wide - dz * dz;
    y0 = lo;
    y1 = hi;
    if (chord2 < 0.0) return false;
    chordBins(p.y, sqrt(chord2), binLo.y, grid.spacing.y, lo, hi, y0, y1);
    return true;
}

// The bins of row (by, bz) that the sphere of radius rad around p reaches,
// clamped to [lo, hi]; false if it misses the row's y/z box: its chord
// through that box (chordBins()). Skipped bins hold no particle within rad,
// so sums over the returned bins equal those over the whole box.
bool rowBins(vec3 p, float rad, uint by, uint bz, uint lo, uint hi, out uint x0, out uint x1) {
    // Bin b spans world [boundsMin + (b - binPad) spacing, + spacing) per axis.
    const vec3 binLo = grid.boundsMin.xyz - vec3(grid.binPad.xyz) * grid.spacing.xyz;
    const float z0 = binLo.z + float(bz) * grid.spacing.z;
    const float dz = max(max(z0 - p.z, p.z - (z0 + grid.spacing.z)), 0.0);
    const float y0 = binLo.y + float(by) * grid.spacing.y;
    const float dy = max(max(y0 - p.y, p.y - (y0 + grid.spacing.y)), 0.0);
    const float chord2 = rad * rad - (dy * dy + dz * dz);
    x0 = lo;
    x1 = hi;
    if (chord2 < 0.0) return false;
    chordBins(p.x, sqrt(chord2), binLo.x, grid.spacing.x, lo, hi, x0, x1);
    return true;
}
#endif
