// A sparse domain of particles: the field for sparse_classify.comp and
// sparse_extract.comp (ISO_SPARSE_PARTICLES), as the user_field.glsl of a
// user snippet. A sample sums the integer kernel terms of the particles the
// activate passes listed for the brick being read (isoSparseUseBrick): those
// whose kernel box reaches the brick and one sample around it, so every
// sample the brick's cells and normals read gets exactly the dense field's
// sum (the gather's form: the row test, then the term, which is 0 outside
// the kernel; integer adds, the same in any order) and the resolve pass's
// float. Needs `grid` and `pc`.
#ifndef ISO_SPARSE_PARTICLE_FIELD_GLSL
#define ISO_SPARSE_PARTICLE_FIELD_GLSL

layout(set = 0, binding = 7, std430) readonly buffer ParticlesBuf { float particleData[]; };
#include "isosurface/particles_common.glsl"
#include "isosurface/particles_kernel.glsl"
#include "isosurface/sparse_item_refs.glsl" // the brick's particles at binding 8

float isoParticleField(uint sum) { return float(sum) / float(kIsoSplatFixedOne); }

// Extraction (mc_vertex.glsl, ISO_FETCH_BLOCK): the 4^3 samples from lo,
// each particle loaded once for all of them. Per sample a loop over the
// brick's particles (~100) at each of the 110 samples a Sobel vertex reads
// passed lavapipe's limit of 65535 loop iterations per invocation
// (LP_MAX_TGSI_LOOP_ITERATIONS, shared by every loop of a shader), past
// which its loops end early: vertices went unwritten.
#define ISO_FETCH_BLOCK
float isoBlock[64];
ivec3 isoBlockLo;
void isoLoadBlock(ivec3 lo) {
    isoBlockLo = lo;
    const uvec3 s = uvec3(lo);
    float xs[4], ys[4], zs[4];
    [[unroll]] for (uint k = 0u; k < 4u; ++k) {
        xs[k] = sampleCoord(s.x + k, grid.boundsMin.x, grid.spacing.x);
        ys[k] = sampleCoord(s.y + k, grid.boundsMin.y, grid.spacing.y);
        zs[k] = sampleCoord(s.z + k, grid.boundsMin.z, grid.spacing.z);
    }
    uint sum[64];
    [[unroll]] for (uint i = 0u; i < 64u; ++i) sum[i] = 0u;
    for (uint j = 0u; j < isoBrickRefCount; ++j) {
        vec4 pw;
        loadParticle(isoBrickItem(j), pw);
        [[unroll]] for (uint z = 0u; z < 4u; ++z) {
            const float dz = zs[z] - pw.z;
            [[unroll]] for (uint y = 0u; y < 4u; ++y) {
                const float yz = squaredYZ(ys[y] - pw.y, dz);
                if (yz * grid.particle.y < 1.0) {
                    [[unroll]] for (uint x = 0u; x < 4u; ++x)
                        sum[x + 4u * (y + 4u * z)] += kernelTerm(xs[x] - pw.x, yz, pw.w);
                }
            }
        }
    }
    [[unroll]] for (uint i = 0u; i < 64u; ++i) isoBlock[i] = isoParticleField(sum[i]);
}

// Classify's row of 9 samples s .. s + (8, 0, 0): inside bits (bit k for
// s + (k, 0, 0)), each particle loaded once for the row.
uint isoSparseInsideRow9(uvec3 s, float iso) {
    const float y = sampleCoord(s.y, grid.boundsMin.y, grid.spacing.y);
    const float z = sampleCoord(s.z, grid.boundsMin.z, grid.spacing.z);
    uint sum[9];
    [[unroll]] for (uint k = 0u; k < 9u; ++k) sum[k] = 0u;
    for (uint j = 0u; j < isoBrickRefCount; ++j) {
        vec4 pw;
        loadParticle(isoBrickItem(j), pw);
        const float yz = squaredYZ(y - pw.y, z - pw.z);
        if (yz * grid.particle.y < 1.0) {
            [[unroll]] for (uint k = 0u; k < 9u; ++k)
                sum[k] += kernelTerm(sampleCoord(s.x + k, grid.boundsMin.x, grid.spacing.x) - pw.x, yz, pw.w);
        }
    }
    uint bits = 0u;
    [[unroll]] for (uint k = 0u; k < 9u; ++k) bits |= (isoParticleField(sum[k]) >= iso ? 1u : 0u) << k;
    return bits;
}

#endif
