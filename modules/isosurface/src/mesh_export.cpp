#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <memory>

#include "pyramarch/isosurface/isosurface.h"

namespace pyramarch::iso {

Mesh weldMesh(const Mesh& mesh) {
    Mesh out;
    std::map<std::array<float, 3>, uint32_t> ids;
    std::vector<uint32_t> remap(mesh.positions.size());
    std::vector<size_t> first; // the first vertex merged into each output vertex
    for (size_t i = 0; i < mesh.positions.size(); ++i) {
        auto [it, inserted] = ids.try_emplace(mesh.positions[i], uint32_t(out.positions.size()));
        if (inserted) {
            out.positions.push_back(mesh.positions[i]);
            out.normals.push_back({0.f, 0.f, 0.f});
            first.push_back(i);
        }
        remap[i] = it->second;
        if (i < mesh.normals.size())
            for (int k = 0; k < 3; ++k) out.normals[it->second][k] += mesh.normals[i][k];
    }
    for (auto& n : out.normals) {
        const float len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (std::isfinite(len) && len > 0.f)
            for (float& c : n) c /= len;
    }
    out.indices.reserve(mesh.indices.size());
    for (uint32_t i : mesh.indices) out.indices.push_back(remap[i]);
    for (const MeshAttribute& a : mesh.attributes) {
        MeshAttribute w{a.name, a.components, {}};
        w.values.reserve(first.size() * a.components);
        for (size_t v : first)
            for (uint32_t c = 0; c < a.components; ++c) {
                const size_t at = v * a.components + c;
                w.values.push_back(at < a.values.size() ? a.values[at] : 0.f);
            }
        out.attributes.push_back(std::move(w));
    }
    return out;
}

namespace {
struct FileCloser {
    void operator()(FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<FILE, FileCloser>;

Status openFor(const std::string& path, const char* mode, File& out) {
    out.reset(std::fopen(path.c_str(), mode));
    if (!out) return Status::error(ErrorCode::Io, "cannot open '" + path + "' for writing: " + std::strerror(errno));
    return {};
}
} // namespace

Status writeObj(const Mesh& mesh, const std::string& path) {
    File f;
    PYRAMARCH_TRY(openFor(path, "w", f));
    std::fprintf(f.get(), "# pyramarch isosurface: %zu vertices, %zu triangles\n", mesh.positions.size(),
                 mesh.indices.size() / 3);
    for (const auto& p : mesh.positions) std::fprintf(f.get(), "v %.9g %.9g %.9g\n", p[0], p[1], p[2]);
    for (const auto& n : mesh.normals) std::fprintf(f.get(), "vn %.9g %.9g %.9g\n", n[0], n[1], n[2]);
    const bool normals = mesh.normals.size() == mesh.positions.size();
    for (size_t t = 0; t + 2 < mesh.indices.size(); t += 3) {
        const uint32_t a = mesh.indices[t] + 1, b = mesh.indices[t + 1] + 1, c = mesh.indices[t + 2] + 1;
        if (normals)
            std::fprintf(f.get(), "f %u//%u %u//%u %u//%u\n", a, a, b, b, c, c);
        else
            std::fprintf(f.get(), "f %u %u %u\n", a, b, c);
    }
    if (std::ferror(f.get())) return Status::error(ErrorCode::Io, "writing '" + path + "' failed");
    return {};
}

Status writePly(const Mesh& mesh, const std::string& path) {
    static_assert(std::endian::native == std::endian::little, "PLY writer assumes a little-endian host");
    File f;
    PYRAMARCH_TRY(openFor(path, "wb", f));
    std::string properties;
    for (const MeshAttribute& a : mesh.attributes) {
        for (uint32_t c = 0; c < a.components; ++c) {
            static const char* const kAxes[] = {"_x", "_y", "_z", "_w"};
            const std::string suffix = a.components == 1 ? "" : a.components <= 4 ? kAxes[c] : "_" + std::to_string(c);
            properties += "property float " + a.name + suffix + "\n";
        }
    }
    std::fprintf(f.get(),
                 "ply\nformat binary_little_endian 1.0\ncomment pyramarch isosurface\nelement vertex %zu\n"
                 "property float x\nproperty float y\nproperty float z\n"
                 "property float nx\nproperty float ny\nproperty float nz\n%s"
                 "element face %zu\nproperty list uchar uint vertex_indices\nend_header\n",
                 mesh.positions.size(), properties.c_str(), mesh.indices.size() / 3);
    std::vector<float> v;
    for (size_t i = 0; i < mesh.positions.size(); ++i) {
        v.assign({mesh.positions[i][0], mesh.positions[i][1], mesh.positions[i][2], 0.f, 0.f, 0.f});
        if (i < mesh.normals.size())
            for (int k = 0; k < 3; ++k) v[size_t(3 + k)] = mesh.normals[i][size_t(k)];
        for (const MeshAttribute& a : mesh.attributes)
            for (uint32_t c = 0; c < a.components; ++c) {
                const size_t at = i * a.components + c;
                v.push_back(at < a.values.size() ? a.values[at] : 0.f);
            }
        std::fwrite(v.data(), sizeof(float), v.size(), f.get());
    }
    for (size_t t = 0; t + 2 < mesh.indices.size(); t += 3) {
        const uint8_t three = 3;
        std::fwrite(&three, 1, 1, f.get());
        std::fwrite(&mesh.indices[t], sizeof(uint32_t), 3, f.get());
    }
    if (std::ferror(f.get())) return Status::error(ErrorCode::Io, "writing '" + path + "' failed");
    return {};
}

} // namespace pyramarch::iso
