#version 460
// A cube per instance, 36 vertices from gl_VertexIndex (no vertex buffers).
#include "voxelize_sample/sample_shared.h"

layout(push_constant) uniform Push { CubeParams params; };
layout(std430, set = 0, binding = 2) readonly buffer Instances { uvec2 instances[]; };

layout(location = 0) flat out vec3 vColor;
layout(location = 1) flat out vec3 vNormal;

// Two triangles per face, counter-clockwise seen from outside.
const uvec3 kCorners[8] = uvec3[8](uvec3(0, 0, 0), uvec3(1, 0, 0), uvec3(0, 1, 0), uvec3(1, 1, 0),
                                   uvec3(0, 0, 1), uvec3(1, 0, 1), uvec3(0, 1, 1), uvec3(1, 1, 1));
const uint kIndex[36] = uint[36](0, 2, 1, 1, 2, 3,  4, 5, 6, 5, 7, 6,  0, 1, 4, 1, 5, 4,
                                 2, 6, 3, 3, 6, 7,  0, 4, 2, 2, 4, 6,  1, 3, 5, 3, 7, 5);
const vec3 kNormals[6] = vec3[6](vec3(0, 0, -1), vec3(0, 0, 1), vec3(0, -1, 0), vec3(0, 1, 0), vec3(-1, 0, 0), vec3(1, 0, 0));

void main() {
    uvec2 inst = instances[gl_InstanceIndex];
    uvec3 cell = uvec3(inst.x & 1023u, (inst.x >> 10) & 1023u, (inst.x >> 20) & 1023u);
    uint v = uint(gl_VertexIndex);
    vec3 corner = vec3(cell + kCorners[kIndex[v]]);
    vec3 world = params.origin.xyz + corner * params.cellSize.xyz;
    gl_Position = params.viewProj * vec4(world, 1.0);
    vColor = vec3(inst.y & 255u, (inst.y >> 8) & 255u, (inst.y >> 16) & 255u) / 255.0;
    vNormal = kNormals[v / 6u];
}
