#version 460
// PBF step 1: apply gravity, predict positions (clamped into the box and
// projected out of the collider's solid voxels, collider.glsl), and
// count the particles of every grid cell. The counter's old value is the
// particle's rank in its cell; the rank order depends on thread timing, so
// the reorder pass sorts each cell by particle index afterwards (the sort
// stays deterministic; integer atomics only, no float atomics).
#include "fluid/fluid_common.glsl"

layout(local_size_x = kFluidGroupSize) in;

layout(set = 0, binding = 0, std430) readonly buffer ParticlesBuf { vec4 particles[]; };
layout(set = 0, binding = 1, std430) readonly buffer VelocityBuf { vec4 velocity[]; };
layout(set = 0, binding = 2, std430) writeonly buffer PredictedBuf { vec4 predicted[]; };
layout(set = 0, binding = 3, std430) writeonly buffer CellRankBuf { uvec2 cellRank[]; };
layout(set = 0, binding = 4, std430) buffer CountsBuf { uint counts[]; };
#include "fluid/collider.glsl"

void main() {
    const uint i = threadIndex(kFluidGroupSize);
    if (i >= pc.particles) return;
    vec3 v = velocity[i].xyz;
    v.y -= pc.gravity * pc.dt;
    const vec3 p = collide(clampToBox(particles[i].xyz + pc.dt * v));
    predicted[i] = vec4(p, 0.0);
    const uint cell = cellIndex(cellCoord(p));
    cellRank[i] = uvec2(cell, atomicAdd(counts[cell], 1u));
}
