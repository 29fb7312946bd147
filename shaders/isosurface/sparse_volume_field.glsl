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

// The pool: kIsoVolumeBrickSamples samples per brick, x fastest, in up to
// kIsoVolumePools buffers of kPoolBricks bricks (one binding's range each:
// a 640^3 f32 head's 36 K bricks need 182 MiB); through texel views of one
// sample per texel (R8_UINT, R16_UINT or R32_UINT: one fetch, no
// unpacking; lavapipe's texel fetches also beat its lane-by-lane storage
// loads), else as packed words. Unused bindings repeat the first buffer.
#ifdef ISO_TEXEL_READS
layout(set = 0, binding = 7) uniform usamplerBuffer volumePool0;
layout(set = 0, binding = 9) uniform usamplerBuffer volumePool1;
layout(set = 0, binding = 10) uniform usamplerBuffer volumePool2;
layout(set = 0, binding = 11) uniform usamplerBuffer volumePool3;
#else
layout(set = 0, binding = 7, std430) readonly buffer VolumePool0Buf { uint volumePool0[]; };
layout(set = 0, binding = 9, std430) readonly buffer VolumePool1Buf { uint volumePool1[]; };
layout(set = 0, binding = 10, std430) readonly buffer VolumePool2Buf { uint volumePool2[]; };
layout(set = 0, binding = 11, std430) readonly buffer VolumePool3Buf { uint volumePool3[]; };
#endif
// Per listed brick: its pool slot (sparse_volume_activate.comp).
layout(set = 0, binding = 8, std430) readonly buffer VolumeBrickSlotsBuf { uint volumeBrickSlots[]; };
// The includer's brick list entry of a listed brick (its coordinates),
// defined after the includer declares the list.
uint isoListedEntry(uint listedBrick);

// The pool's format, known at creation (lavapipe would run every format's
// decode under a mask if it came from a buffer).
layout(constant_id = kIsoSpecVolumeFormat) const uint kVolumeFormat = kIsoVolumeF32;
layout(constant_id = kIsoSpecVolumePoolBricks) const uint kPoolBricks = 1u;
// One buffer (the usual case) compiles to one fetch, no branch.
layout(constant_id = kIsoSpecVolumePoolCount) const uint kPoolCount = 1u;

void isoBeginUserFrame() {}

// The brick being read: its pool buffer, its first sample there and the
// grid sample its block starts at (8b - 1 per axis).
uint isoBrickPool, isoBrickBase;
ivec3 isoBrickLo;
void isoSparseUseBrick(uint listedBrick) {
    const uint packed = isoListedEntry(listedBrick);
    const uint mask = (1u << kIsoBrickAxisBits) - 1u;
    const uvec3 b = uvec3(packed & mask, (packed >> kIsoBrickAxisBits) & mask, packed >> (2 * kIsoBrickAxisBits));
    isoBrickLo = ivec3(b * kIsoBrickCells) - 1;
    const uint slot = volumeBrickSlots[listedBrick];
    isoBrickPool = slot / kPoolBricks; // a constant divisor
    isoBrickBase = (slot - isoBrickPool * kPoolBricks) * kIsoVolumeBrickSamples;
}

// Sample `at` of the brick's pool buffer, as stored.
uint isoPoolSample(uint at) {
#ifdef ISO_TEXEL_READS
    const int i = int(at);
    if (kPoolCount == 1u || isoBrickPool == 0u) return texelFetch(volumePool0, i).x;
    if (isoBrickPool == 1u) return texelFetch(volumePool1, i).x;
    if (isoBrickPool == 2u) return texelFetch(volumePool2, i).x;
    return texelFetch(volumePool3, i).x;
#else
    const uint perWord = kVolumeFormat == kIsoVolumeU8 ? 4u : kVolumeFormat == kIsoVolumeU16 ? 2u : 1u;
    const uint w = at / perWord; // constant divisors
    uint word;
    if (kPoolCount == 1u || isoBrickPool == 0u)
        word = volumePool0[w];
    else if (isoBrickPool == 1u)
        word = volumePool1[w];
    else if (isoBrickPool == 2u)
        word = volumePool2[w];
    else
        word = volumePool3[w];
    const uint bits = 32u / perWord;
    return perWord == 1u ? word : (word >> (bits * (at % perWord))) & ((1u << bits) - 1u);
#endif
}

// Sample `at` of the brick's pool buffer, converted.
float isoVolumeValue(uint at) {
    const uint t = isoPoolSample(at);
    const float v = kVolumeFormat == kIsoVolumeF32 ? uintBitsToFloat(t) : float(t);
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
