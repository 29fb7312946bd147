#version 460
// Sparse domain of particles: which bricks each particle can reach, a
// thread per particle, in two passes (pc.srcLevel):
// 0, <name>.sparse.count: adds 1 to the brick table's word of every brick
//    whose samples grown by one (the normals' differences) include a sample
//    of the particle's kernel box (kernelSamples: the samples the scatter
//    adds it to), and marks their super-bricks; the activate passes
//    (sparse_activate.glsl, ISO_SPARSE_PARTICLES) list the marked
//    super-bricks, then the counted bricks, and turn each listed brick's
//    count into the position of its references (+1; 0 or kIsoBrickDropped:
//    not listed).
//    With position smoothing or anisotropic kernels the samples are those
//    within grid.sparseParticleReach.x of the particle, each end clamped
//    into the grid (particles_kernel.glsl's listSamples): every particle a
//    listed particle's smoothing, density or kernel shape reads is then in
//    the list of that particle's home brick (sparse_particles_neighbours.comp).
// 1, <name>.sparse.fill: the same bricks again; each listed one takes the
//    particle's index at its next position. The order within a brick
//    follows the atomics: the field sums integer kernel terms
//    (particles_kernel.glsl), the same in any order.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer ParticlesBuf { float particleData[]; };
layout(set = 0, binding = 2, std430) buffer BrickTableBuf { uint brickTable[]; };
layout(set = 0, binding = 3, std430) writeonly buffer SuperMarksBuf { uint superMarks[]; };
layout(set = 0, binding = 4, std430) writeonly buffer BrickRefsBuf { uint brickRefs[]; };

#include "isosurface/particles_common.glsl"
#include "isosurface/particles_kernel.glsl"

void main() {
    const uint i = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    vec4 pw;
    uvec3 a, b;
    if (i >= isoOpaque(min(pc.itemCount, grid.maxItems)) || !loadParticle(i, pw)) return;
    // Position smoothing or anisotropic kernels: the wider lists their
    // neighbourhoods need (sparse_particles_neighbours.comp). A uniform alone
    // decides it: opaque (isoOpaque), or lavapipe compiles a new variant of
    // this pass at every bind.
    const bool wide = isoOpaque(grid.sparseParticleReach.x > 0.0);
    if (!(wide ? listSamples(pw.xyz, a, b) : kernelSamples(pw.xyz, a, b))) return;
    // Brick c's grown samples are 8c - 1 .. 8c + 9.
    const uvec3 below = uvec3(kIsoBrickCells + 1u);
    const uvec3 lo = mix(uvec3(0u), (a - below + uvec3(kIsoBrickCells - 1u)) / kIsoBrickCells, greaterThanEqual(a, below));
    const uvec3 hi = min((b + 1u) / kIsoBrickCells, grid.sparse.xyz - 1u);
    const bool fill = isoOpaque(pc.srcLevel) == 1u;
    for (uint z = lo.z; z <= hi.z; ++z)
        for (uint y = lo.y; y <= hi.y; ++y)
            for (uint x = lo.x; x <= hi.x; ++x) {
                const uint brick = x + grid.sparse.x * (y + grid.sparse.y * z);
                if (!fill) {
                    atomicAdd(brickTable[brick], 1u);
                } else if (brickTable[brick] != 0u && brickTable[brick] != kIsoBrickDropped) {
                    // Listed: the table holds its next reference's word + 1.
                    brickRefs[atomicAdd(brickTable[brick], 1u) - 1u] = i;
                }
            }
    if (!fill) {
        // Every super-brick of the bricks above (all writes store 1).
        const uvec3 slo = lo / kIsoSuperBricks, shi = hi / kIsoSuperBricks;
        for (uint z = slo.z; z <= shi.z; ++z)
            for (uint y = slo.y; y <= shi.y; ++y)
                for (uint x = slo.x; x <= shi.x; ++x)
                    superMarks[x + grid.superBricks.x * (y + grid.superBricks.y * z)] = 1u;
    }
}
