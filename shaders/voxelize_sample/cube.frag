#version 460
#include "voxelize_sample/sample_shared.h"

layout(push_constant) uniform Push { CubeParams params; };
layout(location = 0) flat in vec3 vColor;
layout(location = 1) flat in vec3 vNormal;
layout(location = 0) out vec4 outColor;

void main() {
    float diffuse = max(dot(vNormal, normalize(params.lightDir.xyz)), 0.0);
    outColor = vec4(vColor * (0.35 + 0.65 * diffuse), 1.0);
}
