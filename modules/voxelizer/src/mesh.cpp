#include "pyramarch/voxelizer/mesh.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>

#include <tiny_obj_loader.h>

namespace pyramarch::voxel {

Status validateGrid(const VoxelGrid& grid) {
    if (!isFinite(grid.origin)) return Status::error(ErrorCode::InvalidArgument, "voxel grid: origin is not finite");
    for (int a = 0; a < 3; ++a) {
        const float s = grid.voxelSize[a];
        if (!(std::isfinite(s) && s > 0.f))
            return Status::error(ErrorCode::InvalidArgument,
                                 "voxel grid: voxel size on axis " + std::to_string(a) + " must be finite and > 0");
        if (!std::isfinite(1.0f / s))
            return Status::error(ErrorCode::InvalidArgument, "voxel grid: voxel size on axis " + std::to_string(a) +
                                                                 " is too small (1/size overflows)");
        if (grid.dims[a] < 1 || grid.dims[a] > kMaxGridDim)
            return Status::error(ErrorCode::InvalidArgument, "voxel grid: dims[" + std::to_string(a) +
                                                                 "] = " + std::to_string(grid.dims[a]) +
                                                                 " outside 1.." + std::to_string(kMaxGridDim));
    }
    return {};
}

Result<VoxelGrid> defaultGrid(const TriangleMesh& mesh, uint32_t resolution) {
    if (resolution == 0 || resolution > kMaxGridDim)
        return Status::error(ErrorCode::InvalidArgument, "voxel grid: resolution " + std::to_string(resolution) +
                                                             " outside 1.." + std::to_string(kMaxGridDim));
    if (mesh.triangleCount() == 0)
        return Status::error(ErrorCode::InvalidArgument, "voxel grid: the mesh has no triangles, so it has no bounds");
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t idx : mesh.indices) {
        if (idx >= mesh.positions.size()) continue; // checkMesh reports it
        const std::array<float, 3>& p = mesh.positions[idx];
        if (!isFinite(p)) continue;
        for (int a = 0; a < 3; ++a) {
            lo[a] = std::min(lo[a], p[a]);
            hi[a] = std::max(hi[a], p[a]);
        }
    }
    if (!(lo[0] <= hi[0]))
        return Status::error(ErrorCode::InvalidArgument,
                             "voxel grid: the mesh has no finite vertex, so it has no bounds");
    const float extent = std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
    VoxelGrid g;
    g.origin = {lo[0], lo[1], lo[2]};
    // A single point or an axis-aligned flat mesh still gets a usable grid:
    // the side falls back to 1 when every extent is zero.
    const float s = extent > 0.f ? extent / float(resolution) : 1.0f;
    // A denormal extent divides to zero and a huge one overflows; either would
    // turn the voxel counts below into NaN or infinity.
    if (!(std::isfinite(s) && s > 0.f && std::isfinite(1.0f / s)))
        return Status::error(ErrorCode::InvalidArgument, "voxel grid: the mesh extent " + std::to_string(extent) +
                                                             " cannot be split into " + std::to_string(resolution) +
                                                             " voxels of a representable size");
    g.voxelSize = {s, s, s};
    for (int a = 0; a < 3; ++a) {
        const double n = std::ceil(double(hi[a] - lo[a]) / double(s));
        g.dims[a] = uint32_t(std::clamp(n, 1.0, double(resolution)));
    }
    PYRAMARCH_TRY(validateGrid(g));
    return g;
}

Result<VoxelGrid> gridFromBox(std::array<float, 3> boxMin, std::array<float, 3> boxMax, uint32_t dx, uint32_t dy,
                              uint32_t dz) {
    VoxelGrid g;
    g.origin = boxMin;
    const uint32_t d[3] = {dx, dy, dz};
    for (int a = 0; a < 3; ++a) {
        if (!(boxMax[a] > boxMin[a]))
            return Status::error(ErrorCode::InvalidArgument,
                                 "voxel grid: box max must exceed box min on axis " + std::to_string(a));
        if (d[a] == 0) return Status::error(ErrorCode::InvalidArgument, "voxel grid: dims must be >= 1");
        g.voxelSize[a] = (boxMax[a] - boxMin[a]) / float(d[a]);
        g.dims[a] = d[a];
    }
    PYRAMARCH_TRY(validateGrid(g));
    return g;
}

Result<MeshCheck> checkMesh(const TriangleMesh& mesh, const VoxelGrid& grid) {
    PYRAMARCH_TRY(validateGrid(grid));
    if (mesh.indices.size() % 3 != 0)
        return Status::error(ErrorCode::InvalidArgument,
                             "mesh: index count " + std::to_string(mesh.indices.size()) + " is not a multiple of 3");
    if (!mesh.colors.empty() && mesh.colors.size() != mesh.positions.size())
        return Status::error(ErrorCode::InvalidArgument, "mesh: " + std::to_string(mesh.colors.size()) +
                                                             " colours for " + std::to_string(mesh.positions.size()) +
                                                             " positions");
    if (!mesh.normals.empty() && mesh.normals.size() != mesh.positions.size())
        return Status::error(ErrorCode::InvalidArgument, "mesh: " + std::to_string(mesh.normals.size()) +
                                                             " normals for " + std::to_string(mesh.positions.size()) +
                                                             " positions");
    if (mesh.positions.size() > std::numeric_limits<uint32_t>::max() ||
        mesh.indices.size() > std::numeric_limits<uint32_t>::max())
        return Status::error(ErrorCode::InvalidArgument, "mesh: more than 2^32 vertices or indices");
    MeshCheck check;
    check.triangles = uint32_t(mesh.triangleCount());
    std::vector<uint8_t> finite(mesh.positions.size());
    for (size_t i = 0; i < mesh.positions.size(); ++i) finite[i] = isFinite(toGridSpace(mesh.positions[i], grid));
    for (size_t t = 0; t < mesh.triangleCount(); ++t) {
        bool ok = true;
        for (int c = 0; c < 3; ++c) {
            const uint32_t idx = mesh.indices[3 * t + c];
            if (idx >= mesh.positions.size())
                return Status::error(ErrorCode::InvalidArgument,
                                     "mesh: triangle " + std::to_string(t) + " uses vertex " + std::to_string(idx) +
                                         " but the mesh has " + std::to_string(mesh.positions.size()) + " vertices");
            ok = ok && finite[idx];
        }
        if (!ok) ++check.skippedNonFinite;
    }
    return check;
}

Result<TriangleMesh> loadObj(const std::string& path) {
    {
        std::ifstream probe(path);
        if (!probe) return Status::error(ErrorCode::NotFound, "OBJ '" + path + "': cannot open the file");
    }
    tinyobj::ObjReaderConfig config;
    config.triangulate = true;
    config.vertex_color = true;
    config.mtl_search_path = "";
    tinyobj::ObjReader reader;
    if (!reader.ParseFromFile(path, config)) {
        std::string why = reader.Error();
        while (!why.empty() && (why.back() == '\n' || why.back() == '\r')) why.pop_back();
        return Status::error(ErrorCode::ParseError,
                             "OBJ '" + path + "': " + (why.empty() ? std::string("parse failed") : why));
    }
    const tinyobj::attrib_t& attrib = reader.GetAttrib();
    TriangleMesh mesh;
    const size_t nv = attrib.vertices.size() / 3;
    mesh.positions.resize(nv);
    for (size_t i = 0; i < nv; ++i)
        mesh.positions[i] = {attrib.vertices[3 * i], attrib.vertices[3 * i + 1], attrib.vertices[3 * i + 2]};
    // tinyobjloader fills colours with white when the file has none; only
    // keep them when some vertex differs, so plain OBJs stay colourless.
    bool anyColour = false;
    if (attrib.colors.size() == attrib.vertices.size()) {
        for (float c : attrib.colors) anyColour = anyColour || c != 1.0f;
    }
    if (anyColour) {
        mesh.colors.resize(nv);
        for (size_t i = 0; i < nv; ++i) {
            auto ch = [&](int c) {
                return uint32_t(std::lround(std::clamp(attrib.colors[3 * i + c], 0.f, 1.f) * 255.f));
            };
            mesh.colors[i] = packRGBA8(ch(0), ch(1), ch(2));
        }
    }
    for (const tinyobj::shape_t& shape : reader.GetShapes()) {
        size_t offset = 0;
        for (size_t f = 0; f < shape.mesh.num_face_vertices.size(); ++f) {
            const size_t fv = shape.mesh.num_face_vertices[f];
            if (fv == 3) {
                for (size_t c = 0; c < 3; ++c) {
                    const int vi = shape.mesh.indices[offset + c].vertex_index;
                    if (vi < 0 || size_t(vi) >= nv)
                        return Status::error(ErrorCode::ParseError, "OBJ '" + path + "': face " + std::to_string(f) +
                                                                        " of shape '" + shape.name + "' uses vertex " +
                                                                        std::to_string(vi) + " of " +
                                                                        std::to_string(nv));
                    mesh.indices.push_back(uint32_t(vi));
                }
            }
            offset += fv;
        }
    }
    if (mesh.indices.empty()) return Status::error(ErrorCode::ParseError, "OBJ '" + path + "': no triangles");
    return mesh;
}

} // namespace pyramarch::voxel
