#version 460
// Converts an uploaded volume (u8 / u16 / f32, little endian, x fastest) to
// the float field: value * scale + offset. Format, scale and offset come as
// push constants, so a new upload never changes a buffer an earlier frame reads.
// The first frame before any upload writes zeros (kIsoVolumeNone).
#include "isosurface/field_common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer RawBuf { uint raw[]; };
layout(set = 0, binding = 2, std430) writeonly buffer FieldBuf { float field[]; };

void main() {
    uint index;
    vec3 p;
    if (!sampleIndex(grid, index, p)) return;
    float v = 0.0;
    if (isoOpaque(pc.volumeFormat) == kIsoVolumeNone) {
        // Nothing uploaded yet: the field is zero (the staging is a stand-in).
    } else if (isoOpaque(pc.volumeFormat) == kIsoVolumeU8) {
        v = float((raw[index >> 2] >> (8 * (index & 3u))) & 0xffu);
    } else if (isoOpaque(pc.volumeFormat) == kIsoVolumeU16) {
        v = float((raw[index >> 1] >> (16 * (index & 1u))) & 0xffffu);
    } else {
        v = uintBitsToFloat(raw[index]);
    }
    precise float scaled = v * pc.user0.x;
    precise float result = scaled + pc.user0.y;
    field[index] = result;
}
