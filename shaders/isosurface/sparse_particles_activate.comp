#version 460
// Sparse domain of particles: passes <name>.sparse.supers, .supers.args
// (the ISO_SPARSE_COARSE build), .activate and .args (sparse_activate.glsl:
// the super-bricks and bricks sparse_particles_bin.comp's count pass
// reached; each listed brick's count becomes its references' place).
// Compiled by the build: no user snippet.
#define ISO_SPARSE_PARTICLES
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
#include "isosurface/sparse_activate.glsl"
