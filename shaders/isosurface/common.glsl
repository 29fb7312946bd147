// Helpers shared by the isosurface compute shaders.
#ifndef ISO_COMMON_GLSL
#define ISO_COMMON_GLSL

#include "isosurface/iso_shared.h"

layout(push_constant, std430) uniform PushBlock { IsoPush pc; };

// Dispatches are folded into x * y groups so that no dimension exceeds
// maxComputeWorkGroupCount[0]; this undoes the fold.
uint linearGroup() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }

// Bit tests rather than isnan/isinf: they survive any fast-math the driver applies.
bool isFiniteF(float v) { return (floatBitsToUint(v) & 0x7f800000u) != 0x7f800000u; }
bool isNanF(float v) { return (floatBitsToUint(v) & 0x7fffffffu) > 0x7f800000u; }
// NaN samples count as -infinity: outside, never a NaN comparison result.
float sanitize(float v) { return isNanF(v) ? uintBitsToFloat(0xff800000u) : v; }

// Pyramid levels below grid.packedLevels hold 4 u8 elements per word
// (IsoGrid.levelWord). Level 0 of the cell pyramid is the MC case; its vertex
// count comes from the constant kIsoCaseCounts (vector loads, no buffer).
uint isoCaseCount(uint mcCase) { return (kIsoCaseCounts[mcCase >> 3] >> ((mcCase & 7u) * 4u)) & 0xfu; }
uint isoUnpack(uint word, bool packed, uint i) { return packed ? (word >> ((i & 3u) * 8u)) & 0xffu : word; }
uint isoCount(uint v, uint level, uint packedLevels) {
    return level != 0u ? v : packedLevels != 0u ? isoCaseCount(v) : v & kIsoCountMask;
}
uint isoCase(uint v, uint packedLevels) { return packedLevels != 0u ? v : (v >> kIsoCaseShift) & 0xffu; }
// Stored element i of level `level` of pyramid buffer `buf` with grid `g`
// (unpacked; level 0 of an unpacked pyramid keeps count | case << 4).
#define ISO_LEVEL_RAW(buf, g, level, i)                                                                  \
    isoUnpack(buf[(g).levelWord[level] + ((level) < (g).packedLevels ? (i) >> 2 : (i))], (level) < (g).packedLevels, (i))
// Element i as a vertex count, every level.
#define ISO_LEVEL_COUNT(buf, g, level, i) isoCount(ISO_LEVEL_RAW(buf, g, level, i), (level), (g).packedLevels)
// MC case of base element i.
#define ISO_BASE_CASE(buf, g, i) isoCase(ISO_LEVEL_RAW(buf, g, 0u, i), (g).packedLevels)

#endif
