#version 460
#ifndef ISO_STORAGE_READS
#define ISO_TEXEL_READS
#endif
// Indirect dispatch, one thread per two output TRIANGLES (their walks
// interleaved): key -> top-down pyramid
// traversal -> (cell, first local vertex) once for the triangle's three
// vertices (a cell's count is a multiple of 3, so a triangle never spans
// two cells), then per vertex edge -> interpolated position and normal,
// written straight into the vertex buffer the draw reads. Same output as
// one thread per vertex, a third of the walks.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std140) uniform TablesBuf { IsoTables tables; };
// The field and the pyramid: texel buffers where the device's
// maxTexelBufferElements covers them (ISO_TEXEL_READS, this file's default
// build; lavapipe gathers texels as vectors but loads storage buffers lane
// by lane), else storage buffers (the extract.storage variant).
#ifdef ISO_USER_FIELD
#include "isosurface/user_field.glsl" // fused: no field buffer (binding 2 unused)
#endif
#ifdef ISO_TEXEL_READS
#ifndef ISO_USER_FIELD
layout(set = 0, binding = 2) uniform samplerBuffer fieldTexels;
#endif
layout(set = 0, binding = 3) uniform usamplerBuffer pyramidTexels;
#else
#ifndef ISO_USER_FIELD
layout(set = 0, binding = 2, std430) readonly buffer FieldBuf { float field[]; };
#endif
layout(set = 0, binding = 3, std430) readonly buffer PyramidBuf { uint pyramid[]; };
layout(set = 0, binding = 3, std430) readonly buffer PyramidQuadBuf { uvec4 pyramidQuads[]; };
#define ISO_PYRAMID_QUADS
#endif
// The vertex buffer: slice 0 at binding 4, slices 1.. at 5.. (output_slices.glsl).
#define ISO_VERTEX_SLICES 4
#define ISO_VERTEX_SLICES_NEXT 5
#define ISO_VERTEX_WRITE
#include "isosurface/output_slices.glsl"

#include "isosurface/mc_vertex.glsl"
#include "isosurface/pyramid_find.glsl"

void main() {
#ifdef ISO_USER_FIELD
    isoBeginUserFrame();
#endif
    mcVertexInit();
    // kIsoExtractTriangles (2) consecutive triangles per invocation: their
    // two walks run interleaved (pyramidFind2WithCases), so the latency of
    // one's dependent loads hides behind the other's.
    const uint first = (linearGroup() * kIsoGroupSize + gl_LocalInvocationIndex) * kIsoExtractTriangles;
    // The dispatch was sized by the args pass; the bound is recomputed here
    // so that extraction never trusts anything but the pyramid and capacity
    // (both whole triangles).
    const uint triangles = min(pyramidTotal(), grid.vertexCapacity) / 3;
    if (first >= triangles) return;
    // Past the last triangle the second walk repeats the first.
    const bool second = first + 1u < triangles;
    uvec2 keys = uvec2(first * 3u, second ? first * 3u + 3u : first * 3u);
    uvec2 cases; // the cell pyramid is u8 at level 0 (kIsoPackedLevels)
    const uvec2 cells = pyramidFind2WithCases(keys, cases);
    for (uint t = 0; t < kIsoExtractTriangles; ++t) {
        const uint cell = t == 0u ? cells.x : cells.y;
        const uint key = t == 0u ? keys.x : keys.y;
        const uint mcCase = ((t == 0u ? cases.x : cases.y) >> (8u * (cell & 3u))) & 0xffu;
        const uint count = isoCaseCount(mcCase);
        const ivec3 c = cellCoord(cell);
        // One table load for the triangle's three edges.
        const uvec2 edges = tables.cases[mcCase].xy;
        // Past the last triangle the second writes the first's vertices again (the same values).
        const uint outIndex = (t == 0u || !second ? first : first + 1u) * 3u;
        for (uint v = 0; v < 3; ++v) {
            const IsoVertex vertex = mcVertexOf(c, edges, count, key + v);
            isoStoreVertexPosition(outIndex + v, vertex.position);
            // NormalMode::None: the normals stay the zeros the buffer was
            // cleared to on the first frame (vertices.clear): half the stores.
            if (kNormalMode != kIsoNormalNone) isoStoreVertexNormal(outIndex + v, vertex.normal);
        }
    }
}
