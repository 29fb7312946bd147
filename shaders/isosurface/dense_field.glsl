// The field buffer of a grid that fits (every brick resident, a direct brick
// table: ISO_DIRECT_BRICKS): the field for sparse_classify.comp and
// sparse_extract.comp (ISO_DENSE_FIELD), as the user_field.glsl of a user
// snippet. The source's field pass (metaballs, the particle gather or
// scatter, a converted volume, a user field pass) wrote every sample, x
// fastest; a sample is one fetch at its grid index, NaN as -infinity
// (sanitize), as the other sources' samples. Classify reads it through
// isoUserSample / isoSparseInsideRow9, extraction through mc_vertex.glsl's
// fetch() (fieldTexels or field, declared here). Needs `grid`.
// ISO_DENSE_FIELD_QUADS (classify's texel build): binding 2 is an
// R32G32B32A32_SFLOAT view instead (fieldQuads), and a row of 9 samples is
// 3 quad fetches rather than 9 scalar ones (the field buffer is padded by 5
// quads past its last sample, layout.cpp, so the quads past a row's end
// exist; their bits are masked).
#ifndef ISO_DENSE_FIELD_GLSL
#define ISO_DENSE_FIELD_GLSL

#ifdef ISO_DENSE_FIELD_QUADS
layout(set = 0, binding = 2) uniform samplerBuffer fieldQuads;
#elif defined(ISO_TEXEL_READS)
layout(set = 0, binding = 2) uniform samplerBuffer fieldTexels;
#else
layout(set = 0, binding = 2, std430) readonly buffer FieldBuf { float field[]; };
#endif

void isoBeginUserFrame() {}
// Every brick reads the one buffer.
void isoSparseUseBrick(uint brick) {}

float isoDenseValue(uint i) {
#ifdef ISO_DENSE_FIELD_QUADS
    const vec4 q = texelFetch(fieldQuads, int(i >> 2));
    const uint k = i & 3u;
    return sanitize(k == 0u ? q.x : k == 1u ? q.y : k == 2u ? q.z : q.w);
#elif defined(ISO_TEXEL_READS)
    return sanitize(texelFetch(fieldTexels, int(i)).x);
#else
    return sanitize(field[i]);
#endif
}

float isoUserSample(uvec3 s) { return isoDenseValue(s.x + grid.samples.x * (s.y + grid.samples.y * s.z)); }

// Classify's row of 9 samples s .. s + (8, 0, 0): inside bits (bit k for
// s + (k, 0, 0)); samples past the row's end are never read (their cells
// are masked).
uint isoSparseInsideRow9(uvec3 s, float iso) {
    const uint first = s.x + grid.samples.x * (s.y + grid.samples.y * s.z);
    const uint n = min(9u, grid.samples.x - s.x);
#ifdef ISO_DENSE_FIELD_QUADS
    // The 3 quads holding samples first .. first + 8 (first & 3 <= 3: 12
    // samples reach first + 8), each sample sanitized as isoDenseValue does.
    const uint q = first >> 2;
    uint bits = 0u;
    for (uint k = 0u; k < 3u; ++k) {
        const vec4 v = texelFetch(fieldQuads, int(q + k));
        const uint in4 = (sanitize(v.x) >= iso ? 1u : 0u) | (sanitize(v.y) >= iso ? 2u : 0u) |
                         (sanitize(v.z) >= iso ? 4u : 0u) | (sanitize(v.w) >= iso ? 8u : 0u);
        bits |= in4 << (4u * k);
    }
    return (bits >> (first & 3u)) & ((1u << n) - 1u);
#else
    uint bits = 0u;
    for (uint k = 0u; k < n; ++k) bits |= (isoDenseValue(first + k) >= iso ? 1u : 0u) << k;
    return bits;
#endif
}

#endif
