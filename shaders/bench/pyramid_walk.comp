#version 460
// The pyramid layout question, the expansion half measured alone
// (tests/bench/pyramid_walk_bench.cpp): one thread per triangle walks a
// count pyramid of fan-out kFanOut top-down to its cell and writes the cell.
// Every node stores its children's counts as uvec4 records, read through a
// texel buffer as extract.comp reads the module's pyramid:
// - fan-out 4: one record, the 4 children;
// - fan-out 5 (Dyken's HP5): one record, children 0..3; child 4 is the
//   node's own count minus theirs, which the walk carries down;
// - fan-out 8: two records, children 0..3 and 4..7.
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint kFanOut = 4;

layout(set = 0, binding = 0) uniform usamplerBuffer records; // RGBA32_UINT
layout(set = 0, binding = 1, std430) writeonly buffer CellOut { uint cellOf[]; };
// x: triangles, y: levels above the cells, z: the top's count, w: groups per row (folded dispatch).
// levelRecord[l]: first record of level l + 1's nodes (their children are level l's elements).
layout(push_constant) uniform Params {
    uvec4 info;
    uvec4 levelRecord[6];
} pc;

uint recordOf(uint level) { return pc.levelRecord[level >> 2][level & 3u]; }

void main() {
    const uint t = (gl_WorkGroupID.y * pc.info.w + gl_WorkGroupID.x) * 64u + gl_LocalInvocationIndex;
    if (t >= pc.info.x) return;
    uint key = t, node = 0u, count = pc.info.z; // counts are triangles
    for (int level = int(pc.info.y) - 1; level >= 0; --level) {
        const uint perNode = kFanOut == 8u ? 2u : 1u;
        const uvec4 a = texelFetch(records, int(recordOf(uint(level)) + node * perNode));
        uint c[8];
        c[0] = a.x;
        c[1] = a.y;
        c[2] = a.z;
        c[3] = a.w;
        if (kFanOut == 8u) {
            const uvec4 b = texelFetch(records, int(recordOf(uint(level)) + node * 2u + 1u));
            c[4] = b.x;
            c[5] = b.y;
            c[6] = b.z;
            c[7] = b.w;
        } else {
            c[4] = count - a.x - a.y - a.z - a.w; // fan-out 5: the implicit last child
            c[5] = c[6] = c[7] = 0u;
        }
        // Branch-free: the child whose interval holds the key.
        uint child = 0u, before = 0u, sum = 0u;
        for (uint k = 0u; k + 1u < kFanOut; ++k) {
            sum += c[k];
            const bool past = key >= sum;
            child += past ? 1u : 0u;
            before = past ? sum : before;
        }
        uint picked = c[0];
        for (uint k = 1u; k < kFanOut; ++k) picked = child == k ? c[k] : picked;
        key -= before;
        count = picked;
        node = node * kFanOut + child;
    }
    cellOf[t] = node;
}
