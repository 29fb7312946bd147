// A sparse volume (FieldSource::Volume on a sparse domain): the field for
// sparse_classify.comp and sparse_extract.comp (ISO_SPARSE_VOLUME), as the
// user_field.glsl of a user snippet. The host uploaded the volume's surface
// bricks only (sparse_volume.cpp), each with every sample its cells and
// their normals read: samples 8b - 1 .. 8b + 9 per axis, an 11^3 block in
// the upload's format at a pool slot; the activate pass gave each listed
// brick its slot. So a sample is one fetch from the brick being read
// (isoSparseUseBrick), no table, no neighbour. The value is the dense
// volume path's: value * scale + offset (field_volume.comp's two rounded
// steps), NaN as -infinity (sanitize). Needs `grid` and `pc`.
#ifndef ISO_SPARSE_VOLUME_FIELD_GLSL
#define ISO_SPARSE_VOLUME_FIELD_GLSL

// The pool: kIsoVolumeBrickSamples samples per brick, x fastest; through a
// texel view of one sample per texel (R8_UINT, R16_UINT or R32_UINT: one
// fetch, no unpacking; lavapipe's texel fetches also beat its lane-by-lane
// storage loads), else as packed words.
#ifdef ISO_TEXEL_READS
layout(set = 0, binding = 7) uniform usamplerBuffer volumePoolTexels;
#else
layout(set = 0, binding = 7, std430) readonly buffer VolumePoolBuf { uint volumePool[]; };
#endif
// Per listed brick: its pool slot (sparse_volume_activate.comp).
layout(set = 0, binding = 8, std430) readonly buffer VolumeBrickSlotsBuf { uint volumeBrickSlots[]; };
// The brick list of the includer (binding 5), for the listed brick's origin.
layout(set = 0, binding = 5, std430) readonly buffer VolumeListedBuf { uint volumeListed[]; };

// The pool's format, known at creation (lavapipe would run every format's
// decode under a mask if it came from a buffer).
layout(constant_id = kIsoSpecVolumeFormat) const uint kVolumeFormat = kIsoVolumeF32;

void isoBeginUserFrame() {}

// The brick being read: its first pool sample and the grid sample its
// block starts at (8b - 1 per axis).
uint isoBrickBase;
ivec3 isoBrickLo;
void isoSparseUseBrick(uint listedBrick) {
    const uint packed = volumeListed[listedBrick];
    const uint mask = (1u << kIsoBrickAxisBits) - 1u;
    const uvec3 b = uvec3(packed & mask, (packed >> kIsoBrickAxisBits) & mask, packed >> (2 * kIsoBrickAxisBits));
    isoBrickLo = ivec3(b * kIsoBrickCells) - 1;
    isoBrickBase = volumeBrickSlots[listedBrick] * kIsoVolumeBrickSamples;
}

// Pool sample `at`, converted.
float isoVolumeValue(uint at) {
    float v;
#ifdef ISO_TEXEL_READS
    const uint t = texelFetch(volumePoolTexels, int(at)).x;
    v = kVolumeFormat == kIsoVolumeF32 ? uintBitsToFloat(t) : float(t);
#else
    if (kVolumeFormat == kIsoVolumeU8)
        v = float((volumePool[at >> 2] >> (8u * (at & 3u))) & 0xffu);
    else if (kVolumeFormat == kIsoVolumeU16)
        v = float((volumePool[at >> 1] >> (16u * (at & 1u))) & 0xffffu);
    else
        v = uintBitsToFloat(volumePool[at]);
#endif
    precise float scaled = v * pc.user0.x;
    precise float result = scaled + pc.user0.y;
    return sanitize(result);
}

// Pool sample of grid sample s of the brick being read.
uint isoBrickSample(uvec3 s) {
    const uvec3 l = uvec3(ivec3(s) - isoBrickLo);
    return isoBrickBase + l.x + kIsoVolumeBrickSide * (l.y + kIsoVolumeBrickSide * l.z);
}

float isoUserSample(uvec3 s) { return isoVolumeValue(isoBrickSample(s)); }

// Classify's row of 9 samples s .. s + (8, 0, 0): inside bits (bit k for
// s + (k, 0, 0)); samples past the grid read the block's zeros (their cells
// are masked).
uint isoSparseInsideRow9(uvec3 s, float iso) {
    const uint first = isoBrickSample(s);
    uint bits = 0u;
    for (uint k = 0u; k < 9u; ++k) bits |= (isoVolumeValue(first + k) >= iso ? 1u : 0u) << k;
    return bits;
}

#endif
