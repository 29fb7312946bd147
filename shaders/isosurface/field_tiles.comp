#version 460
// Metaballs and user GLSL fields with a Lipschitz bound: the field pass
// evaluates only the tiles of 8 x 8 x 8 samples a listed brick reads, not
// every sample. The brick list (brick_list.comp) clears and flags the tiles
// of its bricks' samples and, for normals, their neighbours one sample
// further. Two passes of this shader (pc.srcLevel):
// 0, <name>.field.tiles.list: one thread per tile appends the flagged;
// 1, <name>.field.tiles.args: one invocation sizes the field pass's
//    indirect dispatch (a group per listed tile, folded).
// The list order follows the atomics; each tile's samples get the same
// values in any order, and nothing reads a sample of an unlisted tile.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoClassifyGroupSize) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) buffer TileFlagsBuf { uint tileFlags[]; };
layout(set = 0, binding = 2, std430) buffer TileListBuf {
    uvec4 tileHead; // x: appended, y: listed (the field pass's bound)
    uint tiles[];
};
layout(set = 0, binding = 3, std430) writeonly buffer TileArgsBuf { uvec4 tileArgs; };

uvec3 tilesPerAxis() { return (grid.samples.xyz + kIsoFieldTile - 1u) / kIsoFieldTile; }

void main() {
    const uint mode = pc.srcLevel;
    const uvec3 n = tilesPerAxis();
    const uint tileCount = n.x * n.y * n.z;
    if (mode == 0u) {
        const uint tile = linearGroup() * kIsoClassifyGroupSize + gl_LocalInvocationIndex;
        if (tile < tileCount && tileFlags[tile] != 0u) tiles[atomicAdd(tileHead.x, 1u)] = tile;
        return;
    }
    if (gl_LocalInvocationIndex != 0u) return;
    const uint listed = min(tileHead.x, tileCount);
    const uint gx = min(listed, grid.maxGroupsX);
    tileHead.y = listed;
    tileArgs = uvec4(gx, gx == 0u ? 1u : (listed + gx - 1u) / gx, 1u, 0u);
}
