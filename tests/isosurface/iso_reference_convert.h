#pragma once
// The GPU surface in the CPU reference's terms: its normal mode and its
// vertices (tests/reference), for the iso-surface tests that compare them.
#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <vector>

#include "pyramarch/isosurface/isosurface.h"
#include "reference.h"

namespace pyramarch::iso {

inline ref::Normals refNormals(NormalMode m) {
    return m == NormalMode::Forward   ? ref::Normals::Forward
           : m == NormalMode::Central ? ref::Normals::Central
           : m == NormalMode::Sobel   ? ref::Normals::Sobel
                                      : ref::Normals::None;
}

inline std::vector<ref::Vertex> toRef(const std::vector<IsoVertexData>& v) {
    std::vector<ref::Vertex> out(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
        for (int k = 0; k < 3; ++k) {
            out[i].p[k] = v[i].position[k];
            out[i].n[k] = v[i].normal[k];
        }
        out[i].cellTriangles = v[i].position[3];
    }
    return out;
}

// The CPU reference's vertices in the direct layout's order: cells sorted by
// (brick, row pair, cell of the pair), a cell's vertices in their order.
inline std::vector<ref::Vertex> inBrickOrder(const ref::McResult& cpu, const std::array<uint32_t, 3>& samples) {
    const uint32_t cx = samples[0] - 1, cy = samples[1] - 1, cz = samples[2] - 1;
    const uint32_t bx = (cx + 7) / 8, by = (cy + 7) / 8;
    (void)cz;
    const auto key = [&](uint32_t cell) {
        const uint64_t x = cell % cx, y = cell / cx % cy, z = cell / (uint64_t(cx) * cy);
        const uint64_t brick = x / 8 + bx * (y / 8 + by * (z / 8));
        const uint64_t pair = (y % 8) / 2 + 4 * (z % 8), i = x % 8 + 8 * (y % 2);
        return (brick * 32 + pair) * 16 + i;
    };
    std::vector<size_t> order(cpu.vertices.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return key(cpu.vertexCell[a]) < key(cpu.vertexCell[b]); });
    std::vector<ref::Vertex> out(order.size());
    for (size_t k = 0; k < order.size(); ++k) out[k] = cpu.vertices[order[k]];
    return out;
}

// User GLSL fields of the tests (FieldSource::UserGlsl).
inline constexpr const char* kCayleyGlsl =
    "float field(vec3 p) {\n    return 16.0 * p.x * p.y * p.z + 4.0 * (p.x + p.y + p.z) - 1.0;\n}\n";
// Gyroid of frequency iso_params[0].x.
inline constexpr const char* kGyroidGlsl =
    "float field(vec3 p) {\n    vec3 q = p * iso_params[0].x;\n"
    "    return sin(q.x) * cos(q.y) + sin(q.y) * cos(q.z) + sin(q.z) * cos(q.x);\n}\n";
inline constexpr const char* kMovingSphereGlsl =
    "// sphere of radius iso_params[0].w around iso_params[0].xyz + (0.3 sin(t), 0, 0);\n"
    "// NaN where the distance is below -iso_params[1].x (when > 0)\n"
    "float field(vec3 p) {\n"
    "    vec3 c = iso_params[0].xyz + vec3(0.3 * sin(iso_time), 0.0, 0.0);\n"
    "    float d = iso_params[0].w - length(p - c);\n"
    "    if (iso_params[1].x > 0.0 && d < -iso_params[1].x) return uintBitsToFloat(0x7fc00000u);\n"
    "    return d;\n"
    "}\n";

} // namespace pyramarch::iso
