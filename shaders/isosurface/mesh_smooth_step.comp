#version 460
// Mesh smoothing, one step: one thread per written vertex (the vertex
// pass's dispatch) gathers its triangles' slots (mesh_smooth_lists.comp),
// reading positions from one buffer and writing the next to the other
// (pc.numLevels bit 0: read the scratch positions, write the vertices;
// else the reverse), so no thread sees a half-updated neighbour.
//   kIsoMeshStepMove: p + factor (pc.user0.x) x the mean offset to the
//   triangles' other vertices (one-ring average; open border edges count
//   half), in cells, each term truncated to 1/kIsoMeshFixedOne and summed
//   as integers: the same bits in any slot order.
//   kIsoMeshStepNormals: the vertex's normal = the normalised sum of its
//   triangles' normals (cross products, |n| = twice the area), positions
//   copied unchanged.
//   kIsoMeshStepCopy: positions copied (an odd number of moves ends in the
//   scratch buffer; without normals this brings them back).
// pc.numLevels bit 1: zero count[v] for the next frame (the fill left the
// vertex's triangle count there).
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) readonly buffer ArgsBuf { IsoArgs args; };
layout(set = 0, binding = 2, std430) readonly buffer StartBuf { uint start[]; };
layout(set = 0, binding = 3, std430) readonly buffer ListBuf { uvec2 list[]; };
layout(set = 0, binding = 4, std430) writeonly buffer CountBuf { uint count[]; };
layout(set = 0, binding = 6, std430) buffer ScratchBuf { vec4 scratch[]; };
// The vertex buffer: slice 0 at binding 5, slices 1.. at 7.. (output_slices.glsl).
#define ISO_VERTEX_SLICES 5
#define ISO_VERTEX_SLICES_NEXT 7
#define ISO_VERTEX_READ
#define ISO_VERTEX_WRITE
#include "isosurface/output_slices.glsl"

// Truncation toward zero after one multiply: no contraction into an FMA, so
// the CPU reference (tests/isosurface/test_mesh_smoothing.cpp) repeats it.
ivec3 fixedTerm(vec3 v) {
    const float m = float(kIsoMeshClamp);
    precise vec3 c = clamp(v, vec3(-m), vec3(m)) * float(kIsoMeshFixedOne);
    // A NaN (a vertex at a non-finite position) adds nothing.
    return ivec3(isNanF(c.x) ? 0.0 : c.x, isNanF(c.y) ? 0.0 : c.y, isNanF(c.z) ? 0.0 : c.z);
}

vec3 positionOf(uint i, bool fromScratch) { return fromScratch ? scratch[i].xyz : isoLoadVertexPosition(i).xyz; }

void main() {
    const uint v = linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex;
    const uint written = min(args.verticesWritten, grid.vertexCapacity);
    if (v >= written) return;
    const bool fromScratch = (pc.numLevels & 1u) != 0u;
    if ((isoOpaque(pc.numLevels) & 2u) != 0u) count[v] = 0u;
    const uint begin = start[v];
    // A copy reads no slots.
    const uint end = pc.srcLevel == kIsoMeshStepCopy ? begin : min(start[v + 1u], grid.indexCapacity);
    const vec3 inv = vec3(1.0) / grid.spacing.xyz;
    const vec3 pv = positionOf(v, fromScratch);
    const bool normals = pc.srcLevel == kIsoMeshStepNormals;
    ivec3 sum = ivec3(0);
    int terms = 0;
    for (uint s = begin; s < end; ++s) {
        const uvec2 ab = list[s];
        if (ab.x >= written || ab.y >= written) continue;
        precise vec3 ea = (positionOf(ab.x, fromScratch) - pv) * inv;
        precise vec3 eb = (positionOf(ab.y, fromScratch) - pv) * inv;
        if (normals) {
            // cross(next - v, previous - v): the triangle's winding, outward.
            precise vec3 n = vec3(ea.y * eb.z - ea.z * eb.y, ea.z * eb.x - ea.x * eb.z, ea.x * eb.y - ea.y * eb.x);
            sum += fixedTerm(n);
            terms += 1;
        } else {
            sum += fixedTerm(ea) + fixedTerm(eb);
            terms += 2;
        }
    }
    vec3 p = pv;
    if (normals) {
        // No triangle (a frame without indices): the field's normal stays.
        if (terms > 0) {
            const vec3 n = vec3(sum);
            const float len2 = dot(n, n);
            isoStoreVertexNormal(v, vec4(len2 > 0.0 ? n * inversesqrt(len2) : vec3(0.0), 0.0));
        }
    } else if (terms > 0) {
        precise vec3 mean = vec3(sum) / (float(terms) * float(kIsoMeshFixedOne));
        precise vec3 step = (mean * grid.spacing.xyz) * pc.user0.x;
        precise vec3 moved = pv + step;
        p = moved;
    }
    // Every written vertex is stored, moved or not: the other buffer must
    // hold the whole mesh for the next step.
    if (fromScratch)
        isoStoreVertexXyz(v, p);
    else if (!normals)
        scratch[v] = vec4(p, 0.0);
}
