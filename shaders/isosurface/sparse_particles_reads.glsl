// Bindings 1 (the cell table, sparse_particles_cells.glsl), 3 (the brick
// lists' references) and 4 (the particles) of the bricked per-particle
// passes (sparse_particles_density.comp, sparse_particles_neighbours.comp),
// read through CELL_WORD(i), BRICK_ITEM(i) and PARTICLE_FLOAT(i): uniform
// texel buffers in the .texel builds (ISO_TEXEL_READS;
// ParticleProvider::sparseTexelReads: the module's own particle ring, every
// view within maxTexelBufferElements), else storage buffers. Lavapipe
// fetches texels as vector gathers but loads from storage buffers lane by
// lane, and these passes are almost all such loads.
#ifndef ISO_SPARSE_PARTICLES_READS_GLSL
#define ISO_SPARSE_PARTICLES_READS_GLSL
#ifdef ISO_TEXEL_READS
layout(set = 0, binding = 1) uniform usamplerBuffer cellTexels;
layout(set = 0, binding = 3) uniform usamplerBuffer itemTexels;
layout(set = 0, binding = 4) uniform samplerBuffer particleTexels;
#define CELL_WORD(i) texelFetch(cellTexels, int(i)).x
#define BRICK_ITEM(i) texelFetch(itemTexels, int(i)).x
#define PARTICLE_FLOAT(i) texelFetch(particleTexels, int(i)).x
#else
layout(set = 0, binding = 1, std430) readonly buffer CellTableBuf { uint cellTable[]; };
layout(set = 0, binding = 3, std430) readonly buffer BrickItemsBuf { uint brickItems[]; };
layout(set = 0, binding = 4, std430) readonly buffer ParticlesBuf { float particleData[]; };
#endif
#endif
