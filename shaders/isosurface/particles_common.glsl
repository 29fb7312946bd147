// Particle loading and the kernel, shared by the scatter and gather shaders
// so both compute the same bits (the `precise` expressions keep the driver
// from fusing or reordering them differently per shader).
// Needs `grid` (IsoGrid), `pc` and `float particleData[]`, or a
// PARTICLE_FLOAT(i) of the includer's (a texel buffer's fetch).
#ifndef ISO_PARTICLES_COMMON_GLSL
#define ISO_PARTICLES_COMMON_GLSL
#ifndef PARTICLE_FLOAT
#define PARTICLE_FLOAT(i) particleData[i]
#endif

// Particle i of this frame from `particleData` (the ring slot of host input,
// or the host's own buffer), laid out as grid.particleLayout says: stride,
// position offset and weight offset in floats. False for a particle that adds
// nothing: a non-finite coordinate or weight, or a weight <= 0.
bool loadParticle(uint i, out vec4 pw) {
    const uvec4 layout_ = grid.particleLayout;
    const uint base = (pc.slot * grid.itemSlotStride + i) * layout_.x;
    const uint p = base + layout_.y;
    pw.xyz = vec3(PARTICLE_FLOAT(p), PARTICLE_FLOAT(p + 1), PARTICLE_FLOAT(p + 2));
    pw.w = isoOpaque(layout_.z) == kIsoNoWeight ? 1.0 : PARTICLE_FLOAT(base + layout_.z);
    return isFiniteF(pw.x) && isFiniteF(pw.y) && isFiniteF(pw.z) && isFiniteF(pw.w) && pw.w > 0.0;
}

// What the counting sort bins: particle i of this frame (pc.srcLevel 0), or
// with position smoothing the re-binning of the smoothed particles
// (pc.srcLevel kIsoRebinSmoothed): vec4 (xyz, weight) each, weight 0 past the
// particles the first sort binned.
bool loadBinInput(uint i, out vec4 pw) {
    if (isoOpaque(pc.srcLevel) == kIsoRebinSmoothed) {
        const uint p = i * 4;
        pw = vec4(PARTICLE_FLOAT(p), PARTICLE_FLOAT(p + 1), PARTICLE_FLOAT(p + 2), PARTICLE_FLOAT(p + 3));
        return pw.w > 0.0;
    }
    return loadParticle(i, pw);
}
#endif
