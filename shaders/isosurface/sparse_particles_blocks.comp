#version 460
#extension GL_EXT_control_flow_attributes : require
// Sparse domain of particles, pass <name>.sparse.blocks: each listed brick's
// samples evaluated once per frame into its block of the pool, the layout a
// sparse volume's pool has (sparse_volume_field.glsl): the 11^3 samples
// 8b - 1 .. 8b + 9 per axis that its cells and their normals read, as
// float bits, at the brick's list index (the pool's slot; the slot table
// gets that index too). Classify, extraction and the shared vertices then
// run their ISO_SPARSE_VOLUME builds (F32, scale 1, offset 0: the value
// itself) instead of looping over the brick's particles for every row pair
// and every vertex.
// kIsoBlockThreads threads per brick, kIsoBricksPerGroup bricks per group:
// classify's indirect dispatch (<name>.sparse.args). A thread keeps
// kIsoBlockRows rows of 11 samples (x) in registers and loops once over the
// brick's particles (sparse.fill's references): the row test, then the 11
// kernel terms of a row the particle reaches, as the dense gather does
// (particles_gather.comp); the sums are integer (16.16), the same bits in
// any order, and a sample's float is the gather's float(sum) / 65536, so
// every block sample equals the dense field's sample bit for bit. No
// atomics, no barrier, no clear (every sample of a listed block is
// written); samples outside the grid are written 0 (the fetches clamp into
// the grid and never read them). A brick whose references did not fit has
// none: its block is 0 (no triangles, the frame reports the overflow).
// One loop of at most kIsoMaxBrickItems iterations a thread (lavapipe's
// 65,535 per invocation).
#include "isosurface/common.glsl"

layout(local_size_x = kIsoClassifyGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer CountersBuf { IsoCounters counters; };
layout(set = 0, binding = 2, std430) readonly buffer BrickListBuf { uint bricks[]; };
layout(set = 0, binding = 3, std430) readonly buffer BrickItemsBuf { uint brickItems[]; };
layout(set = 0, binding = 4, std430) readonly buffer ParticlesBuf { float particleData[]; };
layout(set = 0, binding = 5, std430) writeonly buffer BrickSlotsBuf { uint brickSlots[]; };
// The pool: kPoolBricks blocks per buffer (unused bindings repeat the first).
layout(set = 0, binding = 6, std430) writeonly buffer Pool0Buf { uint pool0[]; };
layout(set = 0, binding = 7, std430) writeonly buffer Pool1Buf { uint pool1[]; };
layout(set = 0, binding = 8, std430) writeonly buffer Pool2Buf { uint pool2[]; };
layout(set = 0, binding = 9, std430) writeonly buffer Pool3Buf { uint pool3[]; };
layout(constant_id = kIsoSpecVolumePoolBricks) const uint kPoolBricks = 1u;
layout(constant_id = kIsoSpecVolumePoolCount) const uint kPoolCount = 1u;

#include "isosurface/particles_common.glsl"
#include "isosurface/particles_kernel.glsl"

const uint kSide = kIsoVolumeBrickSide, R = kIsoBlockRows;

void poolStore(uint pool, uint at, uint value) {
    if (kPoolCount == 1u || pool == 0u)
        pool0[at] = value;
    else if (pool == 1u)
        pool1[at] = value;
    else if (pool == 2u)
        pool2[at] = value;
    else
        pool3[at] = value;
}

void main() {
    const uint l = gl_LocalInvocationIndex;
    const uint listed = min(counters.sparseBricks, grid.sparseLimits.x);
    const uint brick = linearGroup() * kIsoBricksPerGroup + l / kIsoBlockThreads;
    const uint t = l % kIsoBlockThreads;
    const uint firstRow = t * R; // rows y + 11 z of the block
    if (brick >= listed || firstRow >= kSide * kSide) return;
    if (t == 0u) brickSlots[brick] = brick;
    const uint packed = bricks[brick];
    const uint mask = (1u << kIsoBrickAxisBits) - 1u;
    const uvec3 b = uvec3(packed & mask, (packed >> kIsoBrickAxisBits) & mask, packed >> (2 * kIsoBrickAxisBits));
    // Grid sample of block sample 0 per axis: 8b - 1 (wraps to ~0 at b = 0,
    // which the in-grid tests below reject).
    const uvec3 lo = b * kIsoBrickCells - 1u;
    float xs[kSide], ys[R], zs[R];
    bool rowIn[R];
    uint sum[R][kSide];
    [[unroll]] for (uint k = 0u; k < kSide; ++k) xs[k] = sampleCoord(lo.x + k, grid.boundsMin.x, grid.spacing.x);
    [[unroll]] for (uint r = 0u; r < R; ++r) {
        const uint row = min(firstRow + r, kSide * kSide - 1u);
        const uint y = lo.y + row % kSide, z = lo.z + row / kSide; // constant divisors
        rowIn[r] = firstRow + r < kSide * kSide && y < grid.samples.y && z < grid.samples.z;
        ys[r] = sampleCoord(y, grid.boundsMin.y, grid.spacing.y);
        zs[r] = sampleCoord(z, grid.boundsMin.z, grid.spacing.z);
        [[unroll]] for (uint k = 0u; k < kSide; ++k) sum[r][k] = 0u;
    }
    const uint first = 2u * grid.sparseLimits.x + brickItems[2u * brick];
    const uint count = brickItems[2u * brick + 1u];
    for (uint j = 0u; j < count; ++j) {
        vec4 pw;
        loadParticle(brickItems[first + j], pw);
        [[unroll]] for (uint r = 0u; r < R; ++r) {
            const float yz = squaredYZ(ys[r] - pw.y, zs[r] - pw.z);
            if (yz * grid.particle.y < 1.0) {
                [[unroll]] for (uint k = 0u; k < kSide; ++k) sum[r][k] += kernelTerm(xs[k] - pw.x, yz, pw.w);
            }
        }
    }
    const uint pool = brick / kPoolBricks; // a constant divisor
    const uint base = (brick - pool * kPoolBricks) * kIsoVolumeBrickSamples + firstRow * kSide;
    [[unroll]] for (uint r = 0u; r < R; ++r) {
        if (firstRow + r >= kSide * kSide) break;
        [[unroll]] for (uint k = 0u; k < kSide; ++k) {
            const bool inside = rowIn[r] && lo.x + k < grid.samples.x;
            const float v = float(sum[r][k]) / float(kIsoSplatFixedOne);
            poolStore(pool, base + r * kSide + k, inside ? floatBitsToUint(v) : 0u);
        }
    }
}
