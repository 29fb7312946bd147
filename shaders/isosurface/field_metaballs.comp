#version 460
// Metaballs: f(p) = sum_i s_i (1 - |p - c_i|^2 / R_i^2)^3 for |p - c_i| < R_i.
// Compact (a ball has no effect beyond R) and C2 smooth; iso ~0.5 gives the
// classic blobs. Balls come from this frame's slot of a host-visible ring.
//
// A group covers a 4x4x4 tile of samples and first marks (in a shared bit
// set, one word per thread) the balls whose sphere reaches the tile's box; each sample then sums
// only those, in ascending ball order, so the result is exactly the sum over
// all balls (culled balls contribute 0). Up to kIsoCullBalls balls; more
// fall back to the full loop.
#include "isosurface/common.glsl"

layout(local_size_x = 4, local_size_y = 4, local_size_z = 4) in;

layout(set = 0, binding = 0, std430) readonly buffer GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer BallsBuf { IsoBall balls[]; };
layout(set = 0, binding = 2, std430) writeonly buffer FieldBuf { float field[]; };

const uint kIsoCullBalls = 1024;
shared uint touching[kIsoCullBalls / 32];

float ballTerm(uint i, vec3 p) {
    const vec4 cr = balls[i].centerRadius;
    const vec3 d = p - cr.xyz;
    const float q = dot(d, d) / (cr.w * cr.w);
    if (q >= 1.0) return 0.0;
    const float k = 1.0 - q;
    return balls[i].strength.x * k * k * k;
}

void main() {
    const uvec3 tiles = (grid.samples.xyz + 3u) / 4u;
    const uint tile = linearGroup();
    const uvec3 t = uvec3(tile % tiles.x, (tile / tiles.x) % tiles.y, tile / (tiles.x * tiles.y));
    const uvec3 s = t * 4u + gl_LocalInvocationID;
    const bool inGrid = tile < tiles.x * tiles.y * tiles.z && all(lessThan(s, grid.samples.xyz));
    const vec3 p = grid.boundsMin.xyz + vec3(s) * grid.spacing.xyz;
    const uint first = pc.slot * grid.maxItems;
    const uint count = min(pc.itemCount, grid.maxItems);
    float sum = 0.0;
    if (count <= kIsoCullBalls) {
        // Thread w tests balls 32w..32w+31 and owns word w: no atomics.
        const uint w = gl_LocalInvocationIndex;
        const vec3 lo = grid.boundsMin.xyz + vec3(t * 4u) * grid.spacing.xyz;
        const vec3 hi = lo + 3.0 * grid.spacing.xyz;
        if (w < kIsoCullBalls / 32) {
            uint bits = 0;
            for (uint j = 0; j < 32 && w * 32 + j < count; ++j) {
                const vec4 cr = balls[first + w * 32 + j].centerRadius;
                const vec3 d = cr.xyz - clamp(cr.xyz, lo, hi);
                // Conservative margin: a ball is skipped only when it clearly misses.
                const float r = abs(cr.w) * 1.001 + 1e-6 * length(grid.spacing.xyz);
                if (!(dot(d, d) >= r * r)) bits |= 1u << j;
            }
            touching[w] = bits;
        }
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
