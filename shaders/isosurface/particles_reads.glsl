// Bindings 1 (the bin starts) and 2 (the binned vec4 records: particles,
// volume records or kernel records) of the particle gather's passes, read
// through BIN_START(i) and RECORD(i): uniform texel buffers in the .texel
// builds (ISO_TEXEL_READS; ParticleProvider::texelReads, where the
// device's maxTexelBufferElements covers both), else storage buffers.
// Lavapipe fetches texels as vector gathers but loads from storage buffers
// lane by lane (four scalar loads a vec4), and these passes are almost all
// such loads.
#ifndef ISO_PARTICLES_READS_GLSL
#define ISO_PARTICLES_READS_GLSL
#ifdef ISO_TEXEL_READS
layout(set = 0, binding = 1) uniform usamplerBuffer binStartTexels;
layout(set = 0, binding = 2) uniform samplerBuffer recordTexels;
#define BIN_START(i) texelFetch(binStartTexels, int(i)).x
#define RECORD(i) texelFetch(recordTexels, int(i))
#else
layout(set = 0, binding = 1, std430) readonly buffer BinStartBuf { uint binStart[]; };
layout(set = 0, binding = 2, std430) readonly buffer RecordBuf { vec4 records[]; };
#define BIN_START(i) binStart[i]
#define RECORD(i) records[i]
#endif
#endif
