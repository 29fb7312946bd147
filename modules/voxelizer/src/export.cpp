#include "pyramarch/voxelizer/export.h"

#include <cstdio>
#include <map>
#include <memory>
#include <sstream>

namespace pyramarch::voxel {
namespace {

struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

Result<File> openForWriting(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (!f) return Status::error(ErrorCode::Io, "cannot write '" + path + "'");
    return File(f);
}

Status finish(File file, const std::string& path) {
    const bool bad = std::ferror(file.get()) != 0;
    if (std::fclose(file.release()) != 0 || bad) return Status::error(ErrorCode::Io, "writing '" + path + "' failed");
    return {};
}

std::string jsonEscape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (static_cast<unsigned char>(c) < 0x20) continue;
        out += c;
    }
    return out;
}

} // namespace

Status writeLeavesTxt(const std::string& path, const std::vector<LeafVoxel>& leaves, const VoxelGrid& grid) {
    auto f = openForWriting(path);
    if (!f) return f.status();
    std::fprintf(f->get(), "# pyramarch voxels: origin %.9g %.9g %.9g size %.9g %.9g %.9g dims %u %u %u leaves %zu\n",
                 grid.origin[0], grid.origin[1], grid.origin[2], grid.voxelSize[0], grid.voxelSize[1],
                 grid.voxelSize[2], grid.dims[0], grid.dims[1], grid.dims[2], leaves.size());
    std::fprintf(f->get(), "# x y z r g b count\n");
    for (const LeafVoxel& l : leaves)
        std::fprintf(f->get(), "%u %u %u %u %u %u %u\n", l.x, l.y, l.z, l.color & 255u, (l.color >> 8) & 255u,
                     (l.color >> 16) & 255u, l.count);
    return finish(std::move(f).value(), path);
}

Status writeLeavesPly(const std::string& path, const std::vector<LeafVoxel>& leaves, const VoxelGrid& grid) {
    auto f = openForWriting(path);
    if (!f) return f.status();
    std::fprintf(f->get(),
                 "ply\nformat ascii 1.0\ncomment pyramarch voxel leaves (voxel centres, world space)\n"
                 "element vertex %zu\nproperty float x\nproperty float y\nproperty float z\n"
                 "property uchar red\nproperty uchar green\nproperty uchar blue\nproperty uint count\nend_header\n",
                 leaves.size());
    for (const LeafVoxel& l : leaves) {
        const float x = grid.origin[0] + (float(l.x) + 0.5f) * grid.voxelSize[0];
        const float y = grid.origin[1] + (float(l.y) + 0.5f) * grid.voxelSize[1];
        const float z = grid.origin[2] + (float(l.z) + 0.5f) * grid.voxelSize[2];
        std::fprintf(f->get(), "%.9g %.9g %.9g %u %u %u %u\n", x, y, z, l.color & 255u, (l.color >> 8) & 255u,
                     (l.color >> 16) & 255u, l.count);
    }
    return finish(std::move(f).value(), path);
}

std::string statsJson(const VoxelStats& s, const VoxelGrid& grid, size_t leafCount,
                      const std::vector<PassTiming>& timings) {
    std::ostringstream o;
    o.precision(9);
    o << "{\n  \"grid\": {\"origin\": [" << grid.origin[0] << ", " << grid.origin[1] << ", " << grid.origin[2]
      << "], \"voxelSize\": [" << grid.voxelSize[0] << ", " << grid.voxelSize[1] << ", " << grid.voxelSize[2]
      << "], \"dims\": [" << grid.dims[0] << ", " << grid.dims[1] << ", " << grid.dims[2] << "]},\n";
    o << "  \"triangles\": " << s.triangles << ",\n  \"skippedTriangles\": " << s.skippedTriangles << ",\n";
    o << "  \"fragmentsNeeded\": " << s.fragmentsNeeded << ",\n  \"fragmentsStored\": " << s.fragmentsStored
      << ",\n  \"fragmentOverflow\": " << (s.fragmentOverflow ? "true" : "false") << ",\n";
    o << "  \"tilesNeeded\": " << s.tilesNeeded << ",\n  \"tilesAllocated\": " << s.tilesAllocated
      << ",\n  \"tileOverflow\": " << (s.tileOverflow ? "true" : "false")
      << ",\n  \"tilesNeededIsLowerBound\": " << (s.tilesNeededIsLowerBound ? "true" : "false") << ",\n";
    o << "  \"solidInterior\": " << s.solidInterior << ",\n  \"solidOddColumns\": " << s.solidOddColumns << ",\n";
    o << "  \"frame\": " << s.frame << ",\n  \"fragmentCapacity\": " << s.fragmentCapacity
      << ",\n  \"tileCapacity\": " << s.tileCapacity << ",\n  \"grown\": " << (s.grown ? "true" : "false") << ",\n";
    if (s.grown)
        o << "  \"grownAfterFrame\": " << s.grownAfterFrame
          << ",\n  \"previousFragmentCapacity\": " << s.previousFragmentCapacity
          << ",\n  \"previousTileCapacity\": " << s.previousTileCapacity << ",\n";
    o << "  \"leaves\": " << leafCount << ",\n  \"levelNodes\": [";
    for (int l = 0; l < 11; ++l) o << (l ? ", " : "") << s.levelNodes[l];
    o << "],\n  \"passMilliseconds\": {";
    std::map<std::string, double> grouped;
    bool first = true;
    for (const PassTiming& t : timings) {
        o << (first ? "\n" : ",\n") << "    \"" << jsonEscape(t.name) << "\": " << t.milliseconds;
        first = false;
        const size_t dot = t.name.find_last_of('.');
        if (dot != std::string::npos && dot + 1 < t.name.size() && t.name[dot + 1] >= '0' && t.name[dot + 1] <= '9')
            grouped[t.name.substr(0, dot) + ".*"] += t.milliseconds;
    }
    for (const auto& [name, ms] : grouped) {
        o << (first ? "\n" : ",\n") << "    \"" << jsonEscape(name) << "\": " << ms;
        first = false;
    }
    o << "\n  }\n}\n";
    return o.str();
}

} // namespace pyramarch::voxel
