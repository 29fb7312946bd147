#version 460
#ifndef ISO_STORAGE_READS
#define ISO_TEXEL_READS
#endif
// Sparse domain of metaballs: passes <name>.sparse.supers, .supers.args
// (the ISO_SPARSE_COARSE build), .activate and .args (sparse_activate.glsl,
// the same passes as for a user field, with the balls' term ranges as the
// bound). Compiled by the build: no user snippet.
#define ISO_SPARSE_METABALLS
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
#define ISO_BALLS_BINDING 5
#include "isosurface/metaballs.glsl"
#include "isosurface/sparse_activate.glsl"
