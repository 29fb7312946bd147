#version 460
// Vertex pulling: one invocation per triangle corner (non-indexed draw of 3
// per triangle drawn), so the indices are read as data and a bad one can be
// caught instead of fetching out of bounds. TrianglePath::Split draws only
// the triangles the host listed for the raster (the order's tail,
// RasterParams.order); the raster-only path draws all of them in mesh order.
#include "voxelizer/vox_shared.h"

layout(push_constant) uniform Push { RasterParams params; };
layout(std430, set = 0, binding = 0) readonly buffer MeshF { float f[]; } meshF;
layout(std430, set = 0, binding = 0) readonly buffer MeshU { uint u[]; } meshU;

layout(location = 0) out vec3 vGrid;
layout(location = 1) flat out uint vColor;
layout(location = 2) out vec3 vNormal;
layout(location = 3) flat out uint vValid;
layout(location = 4) out vec3 vGridLo;
layout(location = 5) flat out uint vTriangle; // the mesh's triangle index (fragment records carry it)

void main() {
    uint drawn = uint(gl_VertexIndex) / 3u, corner = uint(gl_VertexIndex) - 3u * drawn;
    uint triangle = (params.counts.w & VOX_SPLIT) != 0u ? meshU.u[params.order.x + params.order.y + drawn] : drawn;
    vTriangle = triangle;
    uint idx = meshU.u[params.offsets.x + 3u * triangle + corner];
    vValid = idx < params.counts.y ? 1u : 0u;
    idx = min(idx, params.counts.y - 1u);
    // Grid-space vertices, computed by the host in double and split into
    // hi + lo (pyramarch::voxel::toGridSpaceSplit): 6 floats per vertex.
    vGrid = vec3(meshF.f[6u * idx], meshF.f[6u * idx + 1u], meshF.f[6u * idx + 2u]);
    vGridLo = vec3(meshF.f[6u * idx + 3u], meshF.f[6u * idx + 4u], meshF.f[6u * idx + 5u]);
    vColor = (params.counts.w & VOX_HAS_COLORS) != 0u ? meshU.u[params.offsets.y + idx] : 0xffffffffu;
    vNormal = (params.counts.w & VOX_HAS_NORMALS) != 0u
                  ? vec3(meshF.f[params.offsets.z + 3u * idx], meshF.f[params.offsets.z + 3u * idx + 1u],
                         meshF.f[params.offsets.z + 3u * idx + 2u])
                  : vec3(0.0);
    gl_Position = vec4(0.0, 0.0, 0.5, 1.0);
}
