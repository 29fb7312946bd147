// ParticleKernel::SphCubicSpline: a particle's density and volume, one
// definition for the dense density pass (particles_density.comp, over the
// bins) and a sparse domain's (sparse_particles_density.comp, over the home
// brick's sub-cells), so both give the same volume bit for bit:
// rho_j = sum_k w_k W(|x_k - x_j|) (particles_kernel.glsl's sphTerm: 16.16
// fixed-point terms summed as integers, so the order the neighbours come in
// does not matter) and V_j = w_j / rho_j. Include after particles_kernel.glsl.

// Adds neighbour o's term (o: position, weight) to the density of particle
// pw. Precise as the volume it ends in (densityVolume).
void densityAdd(vec4 pw, vec4 o, inout uint rho) {
    precise float dx = o.x - pw.x, dy = o.y - pw.y, dz = o.z - pw.z;
    precise uint sum = rho + sphTerm(dx, squaredYZ(dy, dz), o.w);
    rho = sum;
}

// V = w / rho. rho holds the particle's own term, w in 16.16 (truncated):
// 0 only for weights under 2^-16, which then add nothing (V = 0).
float densityVolume(float w, uint rho) {
    precise float v = rho != 0u ? w * float(kIsoSplatFixedOne) / float(rho) : 0.0;
    return v;
}
