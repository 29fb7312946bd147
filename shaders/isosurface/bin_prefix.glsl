// Particle gather: first sorted slot of a bin = exclusive prefix of its count
// (scan_down.comp's offsets for levels >= 1, preceding siblings at level 0).
// Needs `grid` (bin level tables), `bins` (bin pyramid) and `binOffsets`.
#ifndef ISO_BIN_PREFIX_GLSL
#define ISO_BIN_PREFIX_GLSL

uint binPrefix(uint bin) {
    const uint top = grid.levelCount - 1;
    if (top == 0) return 0u;
    const uint parent = bin / 4;
    uint start = top == 1 ? 0u : binOffsets[parent];
    for (uint j = parent * 4; j < bin; ++j) start += bins[grid.levelOffset[0] + j];
    return start;
}

// Bin of a world position, or false outside the binned box.
bool binOf(vec3 p, out uint bin) {
    const vec3 b = floor((p - grid.binOrigin.xyz) / grid.binOrigin.w);
    bin = 0;
    if (any(lessThan(b, vec3(0.0))) || any(greaterThanEqual(b, vec3(grid.binDims.xyz)))) return false;
    const uvec3 u = uvec3(b);
    bin = u.x + grid.binDims.x * (u.y + grid.binDims.y * u.z);
    return true;
}
#endif
