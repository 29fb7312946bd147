#version 460
#extension GL_EXT_control_flow_attributes : require
// ParticleKernel::SphCubicSpline on a sparse domain, <name>.sparse.density
// (after sparse.fill, before the blocks; classify's indirect dispatch,
// kIsoBricksPerGroup bricks a group, kIsoBorderThreads threads a brick):
// each listed brick's threads take the particles of its list whose home
// brick (the brick of 8^3 cells holding the particle, clamped to the grid)
// it is, and sum the cubic spline over the brick's whole list for each,
// rho_i = sum_k w_k W(|x_k - x_i|) (particles_kernel.glsl's sphTerm, 16.16
// terms summed as integers). A neighbour within the support r of a particle
// inside the grid has a kernel box that holds a sample of the particle's
// cell (r >= one sample spacing, checked at creation), so it is in the home
// brick's list: rho_i, and V_i = w_i / rho_i, equal the dense gather's
// density pass bit for bit. volumes[i] (by the particle's index in the
// frame) is cleared to 0 every frame before this pass: a particle whose home
// brick was not listed (past the capacities: the frame reports the
// overflow) adds nothing. Nested loops: about (home particles / 32) x the
// list per thread. The ISO_SPARSE_SMOOTHED build (particleSmoothing) sums
// over the smoothed particles instead; the lists then reach (1 + 2 lambda)
// r past every particle (sparse_particles_bin.comp), so the home brick's
// list still holds every smoothed neighbour.
#include "isosurface/common.glsl"

const uint kThreads = kIsoBorderThreads;
layout(local_size_x = kIsoBricksPerGroup * kThreads) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer CountersBuf { IsoCounters counters; };
layout(set = 0, binding = 2, std430) readonly buffer BrickListBuf { uint bricks[]; };
layout(set = 0, binding = 3, std430) readonly buffer BrickItemsBuf { uint brickItems[]; };
layout(set = 0, binding = 4, std430) readonly buffer ParticlesBuf { float particleData[]; };
layout(set = 0, binding = 5, std430) writeonly buffer VolumesBuf { float volumes[]; };
#ifdef ISO_SPARSE_SMOOTHED
// Position smoothing: the smoothed particles by index (x', weight), from
// sparse_particles_neighbours.comp; the density is theirs, as the dense
// density pass sums over the re-binned smoothed particles.
layout(set = 0, binding = 6, std430) readonly buffer SmoothedBuf { vec4 smoothed[]; };
#endif

#include "isosurface/particles_common.glsl"
#include "isosurface/particles_kernel.glsl"

uvec3 brickOf(uint packed) {
    const uint mask = (1u << kIsoBrickAxisBits) - 1u;
    return uvec3(packed & mask, (packed >> kIsoBrickAxisBits) & mask, packed >> (2 * kIsoBrickAxisBits));
}

// The brick of cells holding p, clamped to the grid's bricks.
uvec3 homeBrick(vec3 p) {
    const vec3 rel = (p - grid.boundsMin.xyz) / grid.spacing.xyz;
    const vec3 b = clamp(floor(rel / float(kIsoBrickCells)), vec3(0.0), vec3(grid.sparse.xyz) - 1.0);
    return uvec3(b);
}

void main() {
    const uint l = gl_LocalInvocationIndex;
    const uint listed = min(counters.sparseBricks, grid.sparseLimits.x);
    const uint brick = linearGroup() * kIsoBricksPerGroup + l / kThreads;
    if (brick >= listed) return;
    const uint t = l % kThreads;
    const uvec3 b = brickOf(bricks[brick]);
    const uint count = brickItems[2u * brick + 1u];
    const uint first = 2u * grid.sparseLimits.x + brickItems[2u * brick];
    for (uint j = t; j < count; j += kThreads) {
        const uint i = brickItems[first + j];
        vec4 pw;
        loadParticle(i, pw); // sparse.fill listed it: a particle it loaded
        if (homeBrick(pw.xyz) != b) continue;
#ifdef ISO_SPARSE_SMOOTHED
        pw = smoothed[i];
#endif
        uint rho = 0u;
        // kIsoListUnroll neighbours an iteration: lavapipe ends an
        // invocation's loops after 65,535 iterations in all (the brick
        // limit, sparse_activate.glsl). The sum is an integer: any order.
        for (uint k0 = 0u; k0 < count; k0 += kIsoListUnroll) {
            [[unroll]] for (uint u = 0u; u < kIsoListUnroll; ++u) {
                const uint k = k0 + u;
                if (k >= count) break;
                vec4 o;
#ifdef ISO_SPARSE_SMOOTHED
                o = smoothed[brickItems[first + k]];
#else
                loadParticle(brickItems[first + k], o);
#endif
                rho += sphTerm(o.x - pw.x, squaredYZ(o.y - pw.y, o.z - pw.z), o.w);
            }
        }
        precise float v = rho != 0u ? pw.w * float(kIsoSplatFixedOne) / float(rho) : 0.0;
        volumes[i] = v;
    }
}
