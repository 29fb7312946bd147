// A sphere of radius 0.6 with ripples that move with iso_time: a user field
// for the GPU-AV runs of the fused path (Lipschitz constant <= 1 + 0.05 * 12).
float field(vec3 p) {
    float ripple = 0.05 * sin(12.0 * p.x + iso_time) * sin(12.0 * p.y);
    return 0.6 - length(p) + ripple;
}
