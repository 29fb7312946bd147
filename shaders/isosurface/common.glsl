// Helpers shared by the isosurface compute shaders.
#ifndef ISO_COMMON_GLSL
#define ISO_COMMON_GLSL

#include "isosurface/iso_shared.h"

layout(push_constant, std430) uniform PushBlock { IsoPush pc; };

// Uniform-buffer and push-constant values that decide an `if` or a loop's
// trip count pass through isoOpaque(). Mesa 22.3's lavapipe (Debian 12's)
// inlines such values into a new shader variant at every bind of the
// pipeline and JIT-compiles it, with no cache: milliseconds and about half a
// MiB per pass and frame, kept until the pipeline dies
// (tests/reliability/frame_heap_test.cpp). It only inlines conditions
// computed from uniforms and constants alone; gl_NumWorkGroups.z >> 31 is 0
// for every dispatch of the module (z is 1, the limit 65535) but not
// provably so, and costs two scalar operations.
uint isoOpaque(uint v) { return v | (gl_NumWorkGroups.z >> 31); }
bool isoOpaque(bool b) { return b || (gl_NumWorkGroups.z >> 31) != 0u; }

// Dispatches are folded into x * y groups so that no dimension exceeds
// maxComputeWorkGroupCount[0]; this undoes the fold.
uint linearGroup() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }

// n / d for every 32-bit n, with d's constants from the host (uintDivisor in
// layout.cpp; Granlund & Montgomery 1994): a 32x32 -> 64-bit multiply and
// shifts, vectorised, where a division runs lane by lane on lavapipe.
uint divideBy(uint n, uint multiplier, uint shifts) {
    uint hi, lo;
    umulExtended(n, multiplier, hi, lo);
    return (hi + ((n - hi) >> (shifts & 0xffu))) >> (shifts >> 8);
}

// A grid that fits (ISO_DIRECT_BRICKS): brick index -> brick coordinates,
// bricks x fastest (`bricks` = IsoGrid::sparse, `divisors` = IsoGrid::brickDivisors).
uvec3 isoBrickOf(uint brick, uvec4 bricks, uvec4 divisors) {
    const uint yz = divideBy(brick, divisors.x, divisors.z);
    const uint z = divideBy(yz, divisors.y, divisors.w);
    return uvec3(brick - yz * bricks.x, yz - z * bricks.y, z);
}

// World position of sample s. `precise`: every pass that evaluates a field
// at a sample (the dense and the tiled user-field pass, fused classify and
// extraction) gets the same bits.
vec3 isoSamplePosition(IsoGrid g, uvec3 s) {
    precise vec3 p = g.boundsMin.xyz + vec3(s) * g.spacing.xyz;
    return p;
}

// Bit tests rather than isnan/isinf: they survive any fast-math the driver applies.
bool isFiniteF(float v) { return (floatBitsToUint(v) & 0x7f800000u) != 0x7f800000u; }
bool isNanF(float v) { return (floatBitsToUint(v) & 0x7fffffffu) > 0x7f800000u; }
// NaN samples count as -infinity: outside, never a NaN comparison result.
float sanitize(float v) { return isNanF(v) ? uintBitsToFloat(0xff800000u) : v; }

// Pyramid levels below grid.packedLevels hold 4 u8 elements per word
// (IsoGrid.levels[k].x). Level 0 of the cell pyramid is the MC case; its vertex
// count comes from isoCaseCount (selects on constants, no buffer).
uint isoPick8(uint w, uint a0, uint a1, uint a2, uint a3, uint a4, uint a5, uint a6, uint a7) {
    const bool b0 = (w & 1u) != 0u, b1 = (w & 2u) != 0u;
    const uint lo = b1 ? (b0 ? a3 : a2) : (b0 ? a1 : a0);
    const uint hi = b1 ? (b0 ? a7 : a6) : (b0 ? a5 : a4);
    return (w & 4u) != 0u ? hi : lo;
}
// Vertex count of an MC case (kIsoCaseTrianglePlanes in iso_shared.h).
uint isoCaseCount(uint mcCase) {
    const uint w = mcCase >> 5, bit = mcCase & 31u;
    // Constant indices only (a dynamically indexed constant array becomes a
    // per-invocation copy).
    const uint t = ((isoPick8(w, kIsoCaseTrianglePlanes[0][0], kIsoCaseTrianglePlanes[0][1], kIsoCaseTrianglePlanes[0][2], kIsoCaseTrianglePlanes[0][3], kIsoCaseTrianglePlanes[0][4], kIsoCaseTrianglePlanes[0][5], kIsoCaseTrianglePlanes[0][6], kIsoCaseTrianglePlanes[0][7]) >> bit) & 1u) | ((isoPick8(w, kIsoCaseTrianglePlanes[1][0], kIsoCaseTrianglePlanes[1][1], kIsoCaseTrianglePlanes[1][2], kIsoCaseTrianglePlanes[1][3], kIsoCaseTrianglePlanes[1][4], kIsoCaseTrianglePlanes[1][5], kIsoCaseTrianglePlanes[1][6], kIsoCaseTrianglePlanes[1][7]) >> bit) & 1u) << 1 | ((isoPick8(w, kIsoCaseTrianglePlanes[2][0], kIsoCaseTrianglePlanes[2][1], kIsoCaseTrianglePlanes[2][2], kIsoCaseTrianglePlanes[2][3], kIsoCaseTrianglePlanes[2][4], kIsoCaseTrianglePlanes[2][5], kIsoCaseTrianglePlanes[2][6], kIsoCaseTrianglePlanes[2][7]) >> bit) & 1u) << 2;
    return 3u * t;
}
// The level and packing arguments are often uniforms alone: opaque (isoOpaque).
uint isoUnpack(uint word, bool packed, uint i) { return isoOpaque(packed) ? (word >> ((i & 3u) * 8u)) & 0xffu : word; }
uint isoCount(uint v, uint level, uint packedLevels) {
    return isoOpaque(level) != 0u ? v : isoOpaque(packedLevels) != 0u ? isoCaseCount(v) : v & kIsoCountMask;
}
uint isoCase(uint v, uint packedLevels) { return isoOpaque(packedLevels) != 0u ? v : (v >> kIsoCaseShift) & 0xffu; }
// Stored element i of level `level` of pyramid buffer `buf` with grid `g`
// (unpacked; level 0 of an unpacked pyramid keeps count | case << 4).
#define ISO_LEVEL_RAW(buf, g, level, i)                                                                  \
    isoUnpack(buf[(g).levels[level].x + ((level) < (g).packedLevels ? (i) >> 2 : (i))], (level) < (g).packedLevels, (i))
// Element i as a vertex count, every level.
#define ISO_LEVEL_COUNT(buf, g, level, i) isoCount(ISO_LEVEL_RAW(buf, g, level, i), (level), (g).packedLevels)
// MC case of base element i.
#define ISO_BASE_CASE(buf, g, i) isoCase(ISO_LEVEL_RAW(buf, g, 0u, i), (g).packedLevels)

#endif
