#pragma once
// The GPU surface in the CPU reference's terms: its normal mode and its
// vertices (tests/reference), for the iso-surface tests that compare them.
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
