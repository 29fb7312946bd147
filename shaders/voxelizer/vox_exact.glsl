// An accurate triangle normal in float arithmetic. The plain cross product of
// float edges loses everything for slivers and nearly collinear triangles
// (the two products cancel), which flips the plane test against the CPU
// reference; error-free transforms (Knuth's two-sum, Dekker's two-product)
// keep the edges exact and the result within about an ulp. Dekker's split
// product rather than fma(): lavapipe evaluates fma() unfused, which makes
// the fma two-product error term zero.
#ifndef PYRAMARCH_VOX_EXACT_GLSL
#define PYRAMARCH_VOX_EXACT_GLSL

// a - b = hi + lo exactly.
vec2 voxTwoDiff(float a, float b) {
    precise float s = a - b;
    precise float bb = s - a;
    precise float lo = (a - (s - bb)) - (b + bb);
    return vec2(s, lo);
}

// Veltkamp split: a = hi + lo, each with at most 12 significant bits.
vec2 voxSplit(float a) {
    precise float c = 4097.0 * a;
    precise float hi = c - (c - a);
    precise float lo = a - hi;
    return vec2(hi, lo);
}

// The rounding error of a * b (Dekker): a * b = p + voxProductError(a, b, p) exactly.
float voxProductError(float a, float b, float p) {
    vec2 as = voxSplit(a), bs = voxSplit(b);
    precise float e = ((as.x * bs.x - p) + as.x * bs.y + as.y * bs.x) + as.y * bs.y;
    return e;
}

// x.hi*y.hi - z.hi*w.hi (+ first-order terms of the lo parts), rounded once at the end.
float voxDiffOfProducts(vec2 x, vec2 y, vec2 z, vec2 w) {
    precise float p = x.x * y.x;
    precise float pe = voxProductError(x.x, y.x, p);
    precise float q = z.x * w.x;
    precise float qe = voxProductError(z.x, w.x, q);
    precise float lo = (pe - qe) + ((x.x * y.y + x.y * y.x) - (z.x * w.y + z.y * w.x));
    precise float hi = p - q;
    precise float r = hi + lo;
    return r;
}

// (b + bl) - (a + al) as hi + lo: the float parts' difference exactly
// (two-diff) and the lo parts' difference added to its error term.
vec2 voxSplitDiff(float b, float bl, float a, float al) {
    vec2 d = voxTwoDiff(b, a);
    precise float lo = d.y + (bl - al);
    return vec2(d.x, lo);
}

// (b - a) x (c - a) of the split vertices a + al, b + bl, c + cl (hi + lo,
// mesh.h's toGridSpaceSplit), accurate for any shape.
vec3 voxNormal(vec3 a, vec3 al, vec3 b, vec3 bl, vec3 c, vec3 cl) {
    vec2 ux = voxSplitDiff(b.x, bl.x, a.x, al.x), uy = voxSplitDiff(b.y, bl.y, a.y, al.y),
         uz = voxSplitDiff(b.z, bl.z, a.z, al.z);
    vec2 vx = voxSplitDiff(c.x, cl.x, a.x, al.x), vy = voxSplitDiff(c.y, cl.y, a.y, al.y),
         vz = voxSplitDiff(c.z, cl.z, a.z, al.z);
    return vec3(voxDiffOfProducts(uy, vz, uz, vy), voxDiffOfProducts(uz, vx, ux, vz), voxDiffOfProducts(ux, vy, uy, vx));
}

#endif
