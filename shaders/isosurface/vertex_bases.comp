#version 460
#ifndef ISO_STORAGE_READS
#define ISO_TEXEL_READS
#endif
// Indexed output: the first vertex index of each classify run (16 cells)
// that owns vertices: the exclusive prefix of its element in the vertex
// pyramid's level 1, summed bottom-up (the elements before it in its quad
// at every level). Runs map to threads as in classify (with a patch list,
// batch b of group g takes listed patch 16 g + b, through classify's own
// indirect dispatch): every run that can own a vertex is visited (an owner
// is a cell with a cut edge, so its run crosses the iso value and its patch
// is listed); the others are never looked up.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoClassifyGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std140) uniform VertexGridBuf { IsoGrid vertexGrid; };
// Levels >= 1 are 32-bit and quad-aligned (pyramidLevels in layout.cpp):
// read as uvec4 quads, through a texel buffer where the device's
// maxTexelBufferElements covers it (see extract.comp), else a storage buffer.
#ifdef ISO_TEXEL_READS
layout(set = 0, binding = 2) uniform usamplerBuffer vertexQuadTexels;
uvec4 vertexQuadAt(uint q) { return texelFetch(vertexQuadTexels, int(q)); }
#else
layout(set = 0, binding = 2, std430) readonly buffer VertexQuadBuf { uvec4 vertexQuads[]; };
uvec4 vertexQuadAt(uint q) { return vertexQuads[q]; }
#endif
layout(set = 0, binding = 3, std430) writeonly buffer RunBaseBuf { uint runBase[]; };
// grid.patchList: the listed patches; otherwise runBase stands in, unread.
layout(set = 0, binding = 4, std430) readonly buffer PatchListBuf {
    IsoPatchList patchHead;
    uint patchIds[];
};

void main() {
    const uint l = gl_LocalInvocationIndex;
    uint patchId = linearGroup() * kIsoPatchesPerGroup + (l >> 3);
    if (isoOpaque(grid.patchList) != 0) {
        if (patchId >= patchHead.listed) return;
        patchId = patchIds[patchId];
    }
    const uint run = (patchId / kIsoPatchesPerGroup) * kIsoClassifyGroupSize + 16u * (l & 7u) + patchId % kIsoPatchesPerGroup;
    const uint levels = vertexGrid.levelCount;
    if (levels < 2) {
        // One run (at most 4 cells): it starts at vertex 0.
        if (run == 0u) runBase[0] = 0u;
        return;
    }
    if (run >= vertexGrid.levels[1].y) return;
    uint prefix = 0u;
    uint index = run;
    for (uint level = 1u; level + 1u < levels; ++level) {
        const uvec4 q = vertexQuadAt((vertexGrid.levels[level].x + (index & ~3u)) >> 2);
        // The elements before `index` in its quad (all inside the level:
        // the words past a level's end are never read).
        const uint k = index & 3u;
        prefix += (k > 0u ? q.x : 0u) + (k > 1u ? q.y : 0u) + (k > 2u ? q.z : 0u);
        index >>= 2;
    }
    runBase[run] = prefix;
}
