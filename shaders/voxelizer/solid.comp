#version 460
#extension GL_EXT_control_flow_attributes : require
// Solid voxelization by parity along x (Eisemann & Decoret 2008; Schwarz &
// Seidel 2010): every triangle flips, in each voxel column (y, z) whose
// centre its yz projection holds, the first voxel behind its crossing; a
// prefix XOR along the column then says which voxel centres are inside.
// Three stages of one shader (kStage, specialization constant 0):
//  0 flip:    one thread per (triangle, VOX_SOLID_ROWS_PER_THREAD rows y of
//             its box); at word RasterParams.solid.x of the mesh buffer the
//             host stages the prefix of the triangles' thread counts
//             (triangles + 1 words), then each triangle's first row.
//  1 surface: one thread per stored fragment record: its voxels' bits in the
//             surface bitmap (so the fill appends interior voxels only).
//  2 fill:    one thread per column: the prefix XOR; a column crossed an odd
//             number of times (the mesh is not closed there) is counted
//             (VoxCounters.solidOddColumns) and left empty, the others
//             append the inside voxels the surface lacks, one record per
//             x pair of a cell (white, no normal, triangle VOX_NO_TRIANGLE).
// The inside test and crossing repeat tests/voxelizer/reference's
// columnCrossing operation for operation in double (precise, no fma), on
// the same split vertices (hi + lo), so GPU and reference agree voxel for
// voxel. Needs shaderFloat64.
#include "voxelizer/vox_shared.h"
#include "voxelizer/vox_common.glsl"

layout(local_size_x = VOX_GROUP_SIZE) in;
layout(constant_id = 0) const uint kStage = 0u;

layout(push_constant) uniform Push { RasterParams params; };
layout(std430, set = 0, binding = 0) readonly buffer MeshF { float f[]; } meshF;
layout(std430, set = 0, binding = 0) readonly buffer MeshU { uint u[]; } meshU;
layout(std430, set = 0, binding = 1) buffer Counters { VoxCounters counters; };
layout(std430, set = 0, binding = 2) buffer Fragments { uvec4 fragments[]; };
// Parity bitmap, then the surface bitmap (params.solid.z words each): column
// (y, z) is row y + dims.y z of params.solid.y words, bit x of the column at
// word x / 32 (bit dims.x: behind every centre).
layout(std430, set = 0, binding = 3) buffer Solid { uint bits[]; } solid;

dvec3 splitVertex(uint idx) {
    precise dvec3 g = dvec3(meshF.f[6u * idx], meshF.f[6u * idx + 1u], meshF.f[6u * idx + 2u]) +
                      dvec3(meshF.f[6u * idx + 3u], meshF.f[6u * idx + 4u], meshF.f[6u * idx + 5u]);
    return g;
}

// Edge function of a -> b at (py, pz), endpoints in canonical order.
double edgeFunction(dvec3 a, dvec3 b, double py, double pz) {
    bool swap = a.y > b.y || (a.y == b.y && a.z > b.z);
    dvec3 s = swap ? b : a;
    dvec3 t = swap ? a : b;
    precise double w1 = (t.y - s.y) * (pz - s.z);
    precise double w2 = (t.z - s.z) * (py - s.y);
    precise double w = w1 - w2;
    return swap ? -w : w;
}

bool tieIncluded(dvec3 a, dvec3 b, double sgn) {
    precise double dy = (b.y - a.y) * sgn;
    precise double dz = (b.z - a.z) * sgn;
    return dy > 0.0lf || (dy == 0.0lf && dz > 0.0lf);
}

bool behind(int x, double W, double num) {
    precise double c = (double(x) + 0.5lf) * W;
    return W > 0.0lf ? c > num : c < num;
}

// columnCrossing of the reference: -1 when the column's centre is outside.
int crossing(dvec3 v0, dvec3 v1, dvec3 v2, int y, int z, int dimsX) {
    double py = double(y) + 0.5lf, pz = double(z) + 0.5lf;
    double w0 = edgeFunction(v0, v1, py, pz), w1 = edgeFunction(v1, v2, py, pz), w2 = edgeFunction(v2, v0, py, pz);
    bool pos = w0 >= 0.0lf && w1 >= 0.0lf && w2 >= 0.0lf;
    bool neg = w0 <= 0.0lf && w1 <= 0.0lf && w2 <= 0.0lf;
    if (pos == neg) return -1;
    double sgn = pos ? 1.0lf : -1.0lf;
    if (w0 == 0.0lf && !tieIncluded(v0, v1, sgn)) return -1;
    if (w1 == 0.0lf && !tieIncluded(v1, v2, sgn)) return -1;
    if (w2 == 0.0lf && !tieIncluded(v2, v0, sgn)) return -1;
    precise double W = (w0 + w1) + w2;
    precise double num = (w0 * v2.x + w1 * v0.x) + w2 * v1.x;
    // An estimate in float, then exact steps to the first voxel behind.
    float est = float(num) / float(W) - 0.5;
    int k = clamp(int(floor(clamp(est, -2.0, float(dimsX) + 2.0))) + 1, 0, dimsX);
    for (int i = 0; i < 8 && k > 0 && behind(k - 1, W, num); ++i) --k;
    for (int i = 0; i < 8 && k < dimsX && !behind(k, W, num); ++i) ++k;
    // Rounding beyond 8 steps (never seen): finish linearly.
    while (k > 0 && behind(k - 1, W, num)) --k;
    while (k < dimsX && !behind(k, W, num)) ++k;
    return k;
}

uint rowWord(uint y, uint z) { return (y + params.dims.y * z) * params.solid.y; }

void flipStage(uint t) {
    if (t >= params.solid.w) return;
    // The triangle whose rows hold thread t: prefix[tri] <= t < prefix[tri + 1].
    uint lo = 0u, hi = params.counts.x;
    for (int i = 0; i < 32 && hi - lo > 1u; ++i) {
        uint mid = (lo + hi) / 2u;
        if (meshU.u[params.solid.x + mid] <= t) lo = mid;
        else hi = mid;
    }
    uint tri = lo;
    uint i0 = meshU.u[params.offsets.x + 3u * tri];
    uint i1 = meshU.u[params.offsets.x + 3u * tri + 1u];
    uint i2 = meshU.u[params.offsets.x + 3u * tri + 2u];
    if (i0 >= params.counts.y || i1 >= params.counts.y || i2 >= params.counts.y) return;
    dvec3 v0 = splitVertex(i0), v1 = splitVertex(i1), v2 = splitVertex(i2);
    // Its first row (the host's, after the prefix) plus this thread's rows;
    // its last row by the host's (and the reference's) rule.
    int yFirst = int(meshU.u[params.solid.x + params.counts.x + 1u + tri]) +
                 int(VOX_SOLID_ROWS_PER_THREAD * (t - meshU.u[params.solid.x + tri]));
    double yhi = max(v0.y, max(v1.y, v2.y));
    int yLast = min(int(params.dims.y) - 1, int(ceil(min(yhi, double(params.dims.y) + 2.0lf) - 0.5lf)));
    yLast = min(yLast, yFirst + int(VOX_SOLID_ROWS_PER_THREAD) - 1);
    double zlo = min(v0.z, min(v1.z, v2.z)), zhi = max(v0.z, max(v1.z, v2.z));
    // The reference's column range (solidInside), in double: the centres
    // z + 1/2 that can lie in [zlo, zhi], and every column it leaves out is
    // a voxel or more outside (a float range with a voxel of slack each way
    // cost two more exact tests per row).
    int z0 = max(0, int(floor(max(zlo, -2.0lf) - 0.5lf)));
    int z1 = min(int(params.dims.z) - 1, int(ceil(min(zhi, double(params.dims.z) + 2.0lf) - 0.5lf)));
    int dimsX = int(params.dims.x);
    for (int y = yFirst; y <= yLast; ++y) {
        for (int z = z0; z <= z1; ++z) {
            int k = crossing(v0, v1, v2, y, z, dimsX);
            if (k < 0) continue;
            atomicXor(solid.bits[rowWord(uint(y), uint(z)) + uint(k) / 32u], 1u << (uint(k) & 31u));
        }
    }
}

void surfaceStage(uint t) {
    if (t >= min(counters.fragmentCount, params.counts.z)) return;
    uvec4 f = fragments[t];
    uvec3 c = voxUnpack(f.x);
    for (uint m = voxRecordMask(f); m != 0u; m &= m - 1u) {
        uvec3 v = voxCellVoxel(c, uint(findLSB(m)));
        atomicOr(solid.bits[params.solid.z + rowWord(v.y, v.z) + v.x / 32u], 1u << (v.x & 31u));
    }
}

void fillStage(uint t) {
    uint ny = params.dims.y;
    if (t >= ny * params.dims.z) return;
    uint y = t % ny, z = t / ny;
    uint base = rowWord(y, z);
    uint words = params.solid.y;
    uint parity = 0u;
    for (uint w = 0u; w < words; ++w) parity ^= bitCount(solid.bits[base + w]) & 1u;
    if (parity != 0u) {
        atomicAdd(counters.solidOddColumns, 1u);
        return;
    }
    uint carry = 0u; // parity of the bits before this word
    uint dimsX = params.dims.x;
    for (uint w = 0u; w < words; ++w) {
        uint b = solid.bits[base + w];
        // Prefix XOR within the word: bit i = XOR of bits 0..i.
        uint p = b;
        p ^= p << 1;
        p ^= p << 2;
        p ^= p << 4;
        p ^= p << 8;
        p ^= p << 16;
        if (carry != 0u) p = ~p;
        carry = p >> 31;
        uint first = 32u * w;
        uint valid = first >= dimsX ? 0u : (dimsX - first >= 32u ? 0xffffffffu : (1u << (dimsX - first)) - 1u);
        uint inside = p & valid & ~solid.bits[params.solid.z + base + w];
        if (inside == 0u) continue;
        atomicAdd(counters.solidInterior, uint(bitCount(inside)));
        // One record per pair of voxels (2x, 2x + 1) of a cell (first is even).
        uint pairs = (inside | (inside >> 1)) & 0x55555555u;
        uint slot = atomicAdd(counters.fragmentCount, uint(bitCount(pairs)));
        uint yz = ((y & 1u) << 1) | ((z & 1u) << 2);
        for (; pairs != 0u; pairs &= pairs - 1u, ++slot) {
            uint b = uint(findLSB(pairs));
            uint two = (inside >> b) & 3u;
            uint mask = ((two & 1u) << yz) | ((two >> 1) << (yz | 1u));
            if (slot < params.counts.z)
                fragments[slot] = uvec4(voxPack(uvec3(first + b, y, z)), 0xffffffu | (mask << 24), 0u, VOX_NO_TRIANGLE);
        }
    }
}

void main() {
    uint t = voxThreadIndex();
    if (kStage == 0u) flipStage(t);
    else if (kStage == 1u) surfaceStage(t);
    else fillStage(t);
}
