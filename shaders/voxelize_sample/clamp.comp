#version 460
// Caps the appended instance count at the buffer's capacity before the draw
// reads it (the counter kept counting past it).
#include "voxelize_sample/sample_shared.h"

layout(local_size_x = 1) in;
layout(push_constant) uniform Push { GatherParams params; };
layout(std430, set = 0, binding = 3) buffer DrawArgs { uint draw[4]; };

void main() { draw[1] = min(draw[1], params.capacity); }
