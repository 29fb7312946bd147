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
#endif
