#version 460
#extension GL_EXT_control_flow_attributes : require
// Surface attributes (IsoSurfaceCreateInfo::surfaceAttributes,
// surface_attributes.cpp): each output vertex x gets
//   a(x) = sum_j V_j a_j W(|x - x_j|) / sum_j V_j W(|x - x_j|)
// over the particles j within the kernel support r (grid.particle.x), V_j
// the density pass's volume and W the cubic spline (particles_kernel.glsl's
// cubicSplineUnit: its normalisation cancels in the quotient). A vertex no
// particle reaches gets 0. A non-finite attribute component counts as 0, and
// results are clamped to the float range: a vertex's values are always
// finite. Float sums in the order the particles were binned (the order of
// equal-bin particles follows the sort's atomics): values may differ in
// their last bits from run to run.
// <name>.attributes.args (the ISO_ATTRIBUTE_ARGS build, its own pipeline:
// the other passes read its dispatch buffer as indirect commands only): one
// thread writes the dispatches of the modes below (the vertices written,
// and on a sparse domain the listed bricks).
// Modes (pc.srcLevel), pc.numLevels = floats per vertex (C):
// 1, <name>.attributes.table (sparse): each listed brick's table word (its
//    brick of the virtual grid) = list index + 1 (the listed count from the
//    frame's stats: the args pass has reset the counters).
// 2, <name>.attributes: one thread per written vertex, at its final position
//    (after mesh smoothing). Dense: the bins of the gather (binStart, the
//    volumes in binned order with their positions, the attributes moved to
//    that order by surface_attributes_sort.comp) within r. Sparse
//    (ISO_SPARSE): the list of the brick holding x (the particles whose
//    kernel box reaches its samples grown by one: with r >= one sample
//    spacing every particle within r of a point of the brick's closed box),
//    positions from the frame's particles, volumes and attributes by the
//    particle's index.
// 3, <name>.attributes.table.clear (sparse): the words mode 1 wrote back to
//    0, so a frame leaves the table zero (the first frame clears it all).
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer ArgsBuf { IsoArgs args; };
#ifdef ISO_ATTRIBUTE_ARGS
// x, y, z: the vertex dispatch; 4..6 the listed bricks' (sparse).
layout(set = 0, binding = 2, std430) writeonly buffer DispatchBuf { uint dispatch[]; };
// The frame's stats (the args pass has reset the counters for the next
// frame by now): the bricks the activate pass listed.
layout(set = 0, binding = 4, std430) readonly buffer StatsBuf { IsoStatsGpu stats[]; };

uvec2 fold(uint items) {
    const uint groups = (items + kIsoGroupSize - 1) / kIsoGroupSize;
    const uint gx = min(groups, grid.maxGroupsX);
    return uvec2(gx, gx == 0 ? 1 : (groups + gx - 1) / gx);
}

void main() {
    const uvec2 v = fold(min(args.verticesWritten, grid.vertexCapacity));
    // Dense grids list no bricks (sparseLimits.x is 0).
    const uvec2 b = fold(min(stats[pc.slot].sparseBricks, grid.sparseLimits.x));
    dispatch[0] = v.x;
    dispatch[1] = v.y;
    dispatch[2] = 1u;
    dispatch[3] = 0u;
    dispatch[4] = b.x;
    dispatch[5] = b.y;
    dispatch[6] = 1u;
    dispatch[7] = 0u;
}
#else
layout(set = 0, binding = 3, std430) writeonly buffer OutBuf { float attributesOut[]; };
#ifdef ISO_SPARSE
layout(set = 0, binding = 4, std430) readonly buffer StatsBuf { IsoStatsGpu stats[]; };
layout(set = 0, binding = 5, std430) readonly buffer BrickListBuf { uint bricks[]; };
layout(set = 0, binding = 6, std430) readonly buffer BrickItemsBuf { uint brickItems[]; };
layout(set = 0, binding = 7, std430) readonly buffer ParticlesBuf { float particleData[]; };
layout(set = 0, binding = 8, std430) readonly buffer VolumesBuf { float volumes[]; };
layout(set = 0, binding = 9, std430) readonly buffer AttributesBuf { float attributes[]; };
layout(set = 0, binding = 10, std430) buffer TableBuf { uint brickTable[]; };
#define ISO_VERTEX_SLICES 11
#define ISO_VERTEX_SLICES_NEXT 12
#else
layout(set = 0, binding = 4, std430) readonly buffer BinStartBuf { uint binStart[]; };
layout(set = 0, binding = 5, std430) readonly buffer VolumesBuf { vec4 volumes[]; };
layout(set = 0, binding = 6, std430) readonly buffer AttributesBuf { float attributes[]; };
#define ISO_VERTEX_SLICES 7
#define ISO_VERTEX_SLICES_NEXT 8
#endif
#define ISO_VERTEX_READ
#include "isosurface/output_slices.glsl"

#ifdef ISO_SPARSE
#include "isosurface/particles_common.glsl"
#else
#include "isosurface/particles_bins.glsl"
#endif
#include "isosurface/particles_kernel.glsl"

const float kFloatMax = 3.4028234e38;
// IsoSurfaceCreateInfo::surfaceAttributes: at most kMaxSurfaceAttributeComponents floats in all.
const uint kMaxComponents = 16u;

float sums[kMaxComponents];
float weightSum;

// Particle at `pos` of volume v, its attribute values from attributes[first..].
void addParticle(vec3 x, vec3 pos, float v, uint first, uint components) {
    const vec3 d = pos - x;
    const float q = mulThenAdd(d.x, d.x, squaredYZ(d.y, d.z)) * grid.particle.y;
    if (!(q < 1.0)) return;
    const float w = v * cubicSplineUnit(q);
    if (!(w > 0.0)) return;
    weightSum += w;
    // Unrolled over the largest count: constant indices keep sums[] in
    // registers (a dynamically indexed array goes to memory on CPU drivers).
    [[unroll]] for (uint c = 0u; c < kMaxComponents; ++c) {
        if (c < components) {
            const float a = attributes[first + c];
            sums[c] += isFiniteF(a) ? w * a : 0.0;
        }
    }
}

#ifdef ISO_SPARSE
uint tableIndex(uint packed) {
    const uint mask = (1u << kIsoBrickAxisBits) - 1u;
    const uvec3 b = uvec3(packed & mask, (packed >> kIsoBrickAxisBits) & mask, packed >> (2 * kIsoBrickAxisBits));
    return b.x + grid.sparse.x * (b.y + grid.sparse.y * b.z);
}
#endif

void main() {
    const uint mode = isoOpaque(pc.srcLevel);
    const uint t = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    const uint written = min(args.verticesWritten, grid.vertexCapacity);
#ifdef ISO_SPARSE
    const uint listed = min(stats[pc.slot].sparseBricks, grid.sparseLimits.x);
    if (mode == 1u || mode == 3u) {
        if (t < listed) brickTable[tableIndex(bricks[t])] = mode == 1u ? t + 1u : 0u;
        return;
    }
#endif
    if (t >= written) return;
    const uint components = min(pc.numLevels, kMaxComponents);
    [[unroll]] for (uint c = 0u; c < kMaxComponents; ++c) sums[c] = 0.0;
    weightSum = 0.0;
    const vec3 x = isoLoadVertexPosition(t).xyz;
    const float r = grid.particle.x;
    const bool finite = isFiniteF(x.x) && isFiniteF(x.y) && isFiniteF(x.z);
    if (finite) {
        const vec3 rel = (x - grid.boundsMin.xyz) / grid.spacing.xyz;
#ifdef ISO_SPARSE
        const uvec3 b = uvec3(clamp(floor(rel / float(kIsoBrickCells)), vec3(0.0), vec3(grid.sparse.xyz) - 1.0));
        const uint entry = brickTable[b.x + grid.sparse.x * (b.y + grid.sparse.y * b.z)];
        if (entry != 0u) {
            const uint brick = entry - 1u;
            const uint count = brickItems[2u * brick + 1u];
            const uint first = 2u * grid.sparseLimits.x + brickItems[2u * brick];
            for (uint j = 0u; j < count; ++j) {
                const uint i = brickItems[first + j];
                vec4 pw;
                loadParticle(i, pw); // listed: a particle the fill loaded
                addParticle(x, pw.xyz, volumes[i], (pc.slot * grid.maxItems + i) * components, components);
            }
        }
#else
        const uvec3 dims = grid.binDims.xyz;
        // The vertex's bin (clamped: a smoothed vertex may leave the grid a little).
        const vec3 bf = clamp(floor(rel) + vec3(grid.binPad.xyz), vec3(0.0), vec3(dims) - 1.0);
        const ivec3 b = ivec3(bf);
        const ivec3 reach = ivec3(ceil(vec3(r) / grid.spacing.xyz));
        const uvec3 lo = uvec3(max(b - reach, ivec3(0)));
        const uvec3 hi = uvec3(min(b + reach, ivec3(dims) - 1));
        for (uint bz = lo.z; bz <= hi.z; ++bz)
            for (uint by = lo.y; by <= hi.y; ++by) {
                uint x0, x1;
                if (!rowBins(x, r, by, bz, lo.x, hi.x, x0, x1)) continue;
                const uint row = dims.x * (by + dims.y * bz);
                const uint end = binStart[row + x1 + 1u];
                for (uint k = binStart[row + x0]; k < end; ++k) {
                    const vec4 o = volumes[k];
                    addParticle(x, o.xyz, o.w, k * components, components);
                }
            }
#endif
    }
    const uint out0 = t * components;
    [[unroll]] for (uint c = 0u; c < kMaxComponents; ++c) {
        if (c < components) {
            const float a = weightSum > 0.0 ? sums[c] / weightSum : 0.0;
            attributesOut[out0 + c] = isNanF(a) ? 0.0 : clamp(a, -kFloatMax, kFloatMax);
        }
    }
}
#endif // ISO_ATTRIBUTE_ARGS
