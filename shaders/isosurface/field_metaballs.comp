#version 460
#ifndef ISO_STORAGE_READS
#define ISO_TEXEL_READS
#endif
// Metaballs: f(p) = sum_i s_i (1 - |p - c_i|^2 / R_i^2)^3 for |p - c_i| < R_i.
// Compact (a ball has no effect beyond R) and C2 smooth; iso ~0.5 gives the
// classic blobs. Balls come from this frame's slot of a host-visible ring.
//
// Up to kIsoRowBalls balls (the usual scenes): one thread per row segment of
// kIsoRowSamples samples along x. It tests every ball against the segment's
// box and, for each one that reaches it, loads the ball once and adds its
// term to the segment's samples in registers: no shared memory, no barrier,
// one ball load per segment instead of one per sample (on lavapipe, where
// loads run lane by lane and barriers are slow, this cut the pass ~3x).
// More balls: a group covers a 4x4x4 tile of samples and first marks (in a
// shared bit set, one word per thread) the balls whose sphere reaches the
// tile's box, so the per-thread test loop does not grow with the ball count.
// Up to kIsoCullBalls balls; more fall back to the full loop. On the
// bricks, only the tiles of kIsoFieldTile^3 samples some reader needs
// (field_tiles.comp: the listed bricks' samples, and one sample further for
// the gradients) are evaluated, a group per listed tile (tileRows). Every
// form adds the terms in ascending ball order and a ball that misses a
// sample adds exactly 0: the same sum as over all balls.
#extension GL_EXT_control_flow_attributes : require
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
#include "isosurface/metaballs.glsl" // the balls at binding 1
layout(set = 0, binding = 2, std430) writeonly buffer FieldBuf { float field[]; };
// Tiled (pc.srcLevel 1): the tiles of kIsoFieldTile^3 samples some reader
// needs this frame (field_tiles.comp); otherwise the field stands in, unread.
layout(set = 0, binding = 3, std430) readonly buffer TileListBuf {
    uvec4 tileHead; // y: listed tiles
    uint tiles[];
};

const uint kIsoCullBalls = 1024;
shared uint touching[kIsoCullBalls / 32];

float ballTerm(uint i, vec3 p) { return ballTermAt(ballCentreRadius(i), ballStrength(i), p); }

// The balls reaching the box [lo, hi] as the shared bit set `touching`:
// thread w tests balls 32w..32w+31 and owns word w (no atomics). The caller
// waits with barrier() before reading it.
void markTouchingBalls(uint first, uint count, vec3 lo, vec3 hi) {
    const uint w = gl_LocalInvocationIndex;
    if (w >= kIsoCullBalls / 32) return;
    uint bits = 0;
    for (uint j = 0; j < 32 && w * 32 + j < count; ++j)
        if (ballReaches(ballCentreRadius(first + w * 32 + j), lo, hi)) bits |= 1u << j;
    touching[w] = bits;
}

void rowSegment(uint first, uint count) {
    const uint K = kIsoRowSamples;
    const uint t = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    const uint segs = (grid.samples.x + K - 1u) / K;
    const uint yz = t / segs;
    if (yz >= grid.samples.y * grid.samples.z) return;
    const uint x0 = (t - yz * segs) * K;
    const uint y = yz % grid.samples.y, z = yz / grid.samples.y;
    const vec3 lo = grid.boundsMin.xyz + vec3(uvec3(x0, y, z)) * grid.spacing.xyz;
    const vec3 hi = grid.boundsMin.xyz + vec3(uvec3(min(x0 + K, grid.samples.x) - 1u, y, z)) * grid.spacing.xyz;
    float sum[K];
    [[unroll]] for (uint k = 0; k < K; ++k) sum[k] = 0.0;
    for (uint i = 0; i < count; ++i) {
        const vec4 cr = ballCentreRadius(first + i);
        if (!ballReaches(cr, lo, hi)) continue;
        const float strength = ballStrength(first + i);
        [[unroll]] for (uint k = 0; k < K; ++k)
            sum[k] += ballTermAt(cr, strength, grid.boundsMin.xyz + vec3(uvec3(x0 + k, y, z)) * grid.spacing.xyz);
    }
    const uint base = x0 + grid.samples.x * (y + grid.samples.y * z);
    [[unroll]] for (uint k = 0; k < K; ++k)
        if (x0 + k < grid.samples.x) field[base + k] = sum[k];
}

// Tiled: a group per listed tile, a thread per row of kIsoFieldTile samples.
// The balls that reach the tile's box are marked first (as the 4x4x4 form),
// then each thread adds their terms to its row in ascending ball order.
void tileRows(uint first, uint count) {
    const uint K = kIsoFieldTile;
    const uint li = gl_LocalInvocationIndex;
    const bool listed = linearGroup() < tileHead.y;
    const uint tile = listed ? tiles[linearGroup()] : 0u;
    const uvec3 n = (grid.samples.xyz + K - 1u) / K;
    const uvec3 origin = uvec3(tile % n.x, (tile / n.x) % n.y, tile / (n.x * n.y)) * K;
    const uvec3 row = origin + uvec3(0u, li % K, li / K);
    const bool inGrid = listed && row.y < grid.samples.y && row.z < grid.samples.z;
    float sum[K];
    [[unroll]] for (uint k = 0; k < K; ++k) sum[k] = 0.0;
    if (count <= kIsoCullBalls) {
        const vec3 lo = grid.boundsMin.xyz + vec3(origin) * grid.spacing.xyz;
        const vec3 hi = grid.boundsMin.xyz + vec3(min(origin + K, grid.samples.xyz) - 1u) * grid.spacing.xyz;
        markTouchingBalls(first, count, lo, hi);
        barrier();
        for (uint word = 0; word < (count + 31) / 32; ++word) {
            uint bits = inGrid ? touching[word] : 0u;
            while (bits != 0) {
                const uint i = first + word * 32 + uint(findLSB(bits));
                bits &= bits - 1u;
                const vec4 cr = ballCentreRadius(i);
                const float strength = ballStrength(i);
                [[unroll]] for (uint k = 0; k < K; ++k)
                    sum[k] += ballTermAt(cr, strength,
                                         grid.boundsMin.xyz + vec3(uvec3(row.x + k, row.y, row.z)) * grid.spacing.xyz);
            }
        }
    } else if (inGrid) {
        for (uint i = 0; i < count; ++i) {
            [[unroll]] for (uint k = 0; k < K; ++k)
                sum[k] += ballTerm(first + i, grid.boundsMin.xyz + vec3(uvec3(row.x + k, row.y, row.z)) * grid.spacing.xyz);
        }
    }
    if (!inGrid) return;
    const uint base = row.x + grid.samples.x * (row.y + grid.samples.y * row.z);
    [[unroll]] for (uint k = 0; k < K; ++k)
        if (row.x + k < grid.samples.x) field[base + k] = sum[k];
}

void main() {
    const uint first = pc.slot * grid.maxItems;
    const uint count = isoOpaque(min(pc.itemCount, grid.maxItems));
    if (isoOpaque(pc.srcLevel) == 1u) {
        tileRows(first, count);
        return;
    }
    if (count <= kIsoRowBalls) {
        rowSegment(first, count);
        return;
    }
    const uvec3 tiles = (grid.samples.xyz + 3u) / 4u;
    const uint tile = linearGroup();
    const uvec3 t = uvec3(tile % tiles.x, (tile / tiles.x) % tiles.y, tile / (tiles.x * tiles.y));
    const uint li = gl_LocalInvocationIndex;
    const uvec3 s = t * 4u + uvec3(li & 3u, (li >> 2) & 3u, li >> 4);
    const bool inGrid = tile < tiles.x * tiles.y * tiles.z && all(lessThan(s, grid.samples.xyz));
    const vec3 p = grid.boundsMin.xyz + vec3(s) * grid.spacing.xyz;
    float sum = 0.0;
    if (count <= kIsoCullBalls) {
        const vec3 lo = grid.boundsMin.xyz + vec3(t * 4u) * grid.spacing.xyz;
        markTouchingBalls(first, count, lo, lo + 3.0 * grid.spacing.xyz);
        barrier();
        if (inGrid) {
            for (uint word = 0; word < (count + 31) / 32; ++word) {
                uint bits = touching[word];
                while (bits != 0) {
                    const uint b = uint(findLSB(bits));
                    bits &= bits - 1u;
                    sum += ballTerm(first + word * 32 + b, p);
                }
            }
        }
    } else if (inGrid) {
        for (uint i = 0; i < count; ++i) sum += ballTerm(first + i, p);
    }
    if (inGrid) field[s.x + grid.samples.x * (s.y + grid.samples.y * s.z)] = sum;
}
