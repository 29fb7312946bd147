// The particle kernel as both splat methods evaluate it, to the bit: sample
// coordinates, the squared distance summed as dx^2 + (dy^2 + dz^2), and the
// 16.16 fixed-point term w (1 - q)^3, truncated (`precise`: no fusing or
// reordering that could differ between shaders). Needs `grid`.
#ifndef ISO_PARTICLES_KERNEL_GLSL
#define ISO_PARTICLES_KERNEL_GLSL

// World coordinate of sample index i along an axis.
float sampleCoord(uint i, float boundsMin, float spacing) {
    precise float c = boundsMin + float(i) * spacing;
    return c;
}

float squaredYZ(float dy, float dz) {
    precise float s = dy * dy + dz * dz;
    return s;
}

// Kernel term (16.16 fixed point) at squared YZ distance yz and x distance dx;
// 0 outside the support.
uint kernelTerm(float dx, float yz, float weight) {
    precise float q = (dx * dx + yz) * grid.particle.y;
    if (q >= 1.0) return 0u;
    precise float k = 1.0 - q;
    precise float t = weight * k * k * k * float(kIsoSplatFixedOne);
    // Clamped before the conversion: a float past 2^32 has no defined uint.
    return uint(min(t, 4.0e9));
}
#endif
