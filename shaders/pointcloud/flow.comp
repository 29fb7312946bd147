#version 460
// Curl-noise flow: one explicit Euler step per frame for every particle,
// in place. Same arithmetic as PointCloudScene::advectCpu (the test's
// reference): the curl of a smooth sine potential is divergence free, so
// the cloud swirls without collapsing; a soft pull keeps it in the grid.
#include "pointcloud/flow_shared.h"

layout(local_size_x = kFlowGroupSize) in;

// Particle layout of the isosurface module: xyz position, w weight.
layout(set = 0, binding = 0, std430) buffer ParticlesBuf { vec4 particles[]; };
layout(push_constant) uniform Push { FlowPush pc; };

vec3 curlNoise(vec3 p, float t) {
    const float k = 2.1;
    const float dpz_dy = -k * sin(k * p.x + 1.3 * t) * sin(k * p.y);
    const float dpy_dz = k * cos(k * p.z + 0.7 * t) * cos(k * p.x);
    const float dpx_dz = -k * sin(k * p.y + t) * sin(k * p.z);
    const float dpz_dx = k * cos(k * p.x + 1.3 * t) * cos(k * p.y);
    const float dpy_dx = -k * sin(k * p.z + 0.7 * t) * sin(k * p.x);
    const float dpx_dy = k * cos(k * p.y + t) * cos(k * p.z);
    return vec3(dpz_dy - dpy_dz, dpx_dz - dpz_dx, dpy_dx - dpx_dy);
}

void main() {
    const uint i = (gl_WorkGroupID.y * pc.groupsX + gl_WorkGroupID.x) * kFlowGroupSize + gl_LocalInvocationIndex;
    if (i >= pc.count) return;
    const vec4 pw = particles[i];
    vec3 p = pw.xyz + 0.25 * pc.dt * curlNoise(pw.xyz, pc.time);
    const float r2 = dot(p, p);
    if (r2 > 0.7) p *= 1.0 - 0.5 * pc.dt * (r2 - 0.7);
    particles[i] = vec4(p, pw.w);
}
