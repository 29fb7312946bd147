#version 460
// Projects each triangle along its dominant axis onto the R x R viewport and
// makes sure every pixel the projection touches gets a fragment:
//  - hardware path: the rasterizer overestimates (VK_EXT_conservative_rasterization);
//  - fallback: each edge is pushed out by the pixel's half diagonal
//    (Hasselgren et al. 2005; Crassin & Green 2012, 22.4.1; docs/algorithms.md) and the fragment shader kills
//    pixels outside the triangle's bounding box.
// Triangles whose dilation would spike (very acute angles) or that have no
// area (degenerate) are drawn as their bounding box instead: no dilation
// spike, and the rasterizer would drop a zero-area triangle although its
// segment or point still touches voxels.
#include "voxelizer/vox_shared.h"
#include "voxelizer/vox_exact.glsl"
#include "voxelizer/vox_triangle.glsl"

layout(triangles) in;
layout(triangle_strip, max_vertices = 4) out;

layout(push_constant) uniform Push { RasterParams params; };

layout(location = 0) in vec3 vGrid[];
layout(location = 1) flat in uint vColor[];
layout(location = 2) in vec3 vNormal[];
layout(location = 3) flat in uint vValid[];
layout(location = 4) in vec3 vGridLo[];
layout(location = 5) flat in uint vTriangle[];

layout(location = 0) flat out vec3 fV0;
layout(location = 1) flat out vec3 fV1;
layout(location = 2) flat out vec3 fV2;
layout(location = 3) flat out vec4 fBox;   // projected bounding box (pixels): min u, min v, max u, max v
layout(location = 4) flat out uvec4 fInfo; // axis | quad path << 2 | degenerate << 3, colour, packed normal, triangle
layout(location = 5) flat out vec3 fN;     // accurate grid-space normal, computed once per triangle
layout(location = 6) flat out vec3 fL0;    // lo parts of the split vertices (fV0 + fL0, ...)
layout(location = 7) flat out vec3 fL1;
layout(location = 8) flat out vec3 fL2;

// Half a pixel plus a margin for the rasterizer's fixed-point snapping; extra
// fragments are culled by the exact test, missing ones would be a hole.
const float kHalf = 0.5 + 1.0 / 64.0;
// Beyond this vertex displacement (pixels) the dilated triangle is replaced by the box.
const float kMaxSpike = 3.0;

vec2 project(vec3 g, uint axis) { return axis == 0u ? g.yz : (axis == 1u ? g.zx : g.xy); }

vec3 gV0, gV1, gV2, gN, gL0, gL1, gL2;
vec4 gBox;
uvec4 gInfo;

// Outputs are undefined after EmitVertex, so every vertex writes them all.
void emit(vec2 p, float side) {
    fV0 = gV0; fV1 = gV1; fV2 = gV2;
    fL0 = gL0; fL1 = gL1; fL2 = gL2;
    fBox = gBox;
    fInfo = gInfo;
    fN = gN;
    gl_Position = vec4(p / side * 2.0 - 1.0, 0.5, 1.0);
    EmitVertex();
}

void main() {
    vec3 g0 = vGrid[0], g1 = vGrid[1], g2 = vGrid[2];
    vec3 l0 = vGridLo[0], l1 = vGridLo[1], l2 = vGridLo[2];
    if (vValid[0] * vValid[1] * vValid[2] == 0u) return;
    // NaN/inf vertices: skipped (the host counts them when the mesh is set).
    if (any(isnan(g0)) || any(isnan(g1)) || any(isnan(g2)) || any(isinf(g0)) || any(isinf(g1)) || any(isinf(g2)))
        return;
    // Split mode: the small triangles are voxelized by small_triangles.comp
    // (the same test, no rasterization of their dilated footprint).
    if ((params.counts.w & VOX_SPLIT) != 0u && voxComputeTakes(g0, g1, g2, l0, l1, l2, ivec3(params.dims.xyz), params.offsets.w))
        return;

    vec3 n = voxNormal(g0, l0, g1, l1, g2, l2);
    vec3 an = abs(n);
    uint axis;
    // Zero area (a segment or a point): no plane; handled through its edges.
    // Thin but non-degenerate triangles keep their plane: voxNormal is
    // accurate for them.
    bool degenerate = an.x == 0.0 && an.y == 0.0 && an.z == 0.0;
    if (!degenerate) {
        // Ties go to the lowest axis, the same choice for every triangle.
        axis = (an.x >= an.y && an.x >= an.z) ? 0u : (an.y >= an.z ? 1u : 2u);
    } else {
        // A segment or point: look along the axis it varies least on, so a
        // pixel column holds at most two of its voxels.
        vec3 e = abs(g1 - g0) + abs(g2 - g1) + abs(g0 - g2);
        axis = (e.x <= e.y && e.x <= e.z) ? 0u : (e.y <= e.z ? 1u : 2u);
    }

    vec2 p0 = project(g0, axis), p1 = project(g1, axis), p2 = project(g2, axis);
    vec2 lo = min(p0, min(p1, p2)), hi = max(p0, max(p1, p2));
    float side = float(params.dims.w);

    // Attributes: world-space face normal from the grid-space one.
    vec3 nn = (params.counts.w & VOX_HAS_NORMALS) != 0u ? vNormal[0] + vNormal[1] + vNormal[2] : vec3(0.0);
    if (dot(nn, nn) == 0.0) nn = n * params.invSize.xyz;
    uint color = voxMeanColor(vColor[0], vColor[1], vColor[2]);

    // Fallback dilation, or decide that the box is the better proxy.
    vec2 q[3];
    bool quad = degenerate;
    float area = (p1.x - p0.x) * (p2.y - p0.y) - (p1.y - p0.y) * (p2.x - p0.x);
    if (area == 0.0) quad = true;
    if (!quad) {
        if (area < 0.0) { vec2 t = p1; p1 = p2; p2 = t; }
        vec2 p[3] = vec2[3](p0, p1, p2);
        if ((params.counts.w & VOX_HW_CONSERVATIVE) != 0u) {
            q = p;
        } else {
            // Each edge line a.x*x + a.y*y = c pushed outward by the half diagonal
            // projected on its normal; new corners are the adjacent lines' intersections.
            vec3 lines[3];
            for (int i = 0; i < 3; ++i) {
                vec2 a = p[i], b = p[(i + 1) % 3];
                vec2 nrm = vec2(b.y - a.y, a.x - b.x); // outward for counter-clockwise
                lines[i] = vec3(nrm, dot(nrm, a) + kHalf * (abs(nrm.x) + abs(nrm.y)));
            }
            for (int i = 0; i < 3; ++i) {
                vec3 l0 = lines[(i + 2) % 3], l1 = lines[i];
                float det = l0.x * l1.y - l0.y * l1.x;
                q[i] = vec2(l0.z * l1.y - l0.y * l1.z, l0.x * l1.z - l0.z * l1.x) / det;
                if (!(distance(q[i], p[i]) <= kMaxSpike)) quad = true;
            }
        }
    }

    gV0 = g0; gV1 = g1; gV2 = g2;
    gL0 = l0; gL1 = l1; gL2 = l2;
    gN = n;
    gBox = vec4(lo, hi);
    gInfo = uvec4(axis | (quad ? 4u : 0u) | (degenerate ? 8u : 0u), color, voxPackNormal(nn), vTriangle[0]);
    if (quad) {
        vec2 a = lo - kHalf, b = hi + kHalf;
        emit(vec2(a.x, a.y), side); emit(vec2(b.x, a.y), side); emit(vec2(a.x, b.y), side); emit(vec2(b.x, b.y), side);
    } else {
        emit(q[0], side); emit(q[1], side); emit(q[2], side);
    }
    EndPrimitive();
}
