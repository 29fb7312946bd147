// Measurement tool (not a test): voxelizes a mesh file with the GPU module
// and compares the voxel set with the CPU reference's closed and open sets.
//     voxel_scan_compare MESH R [raster|split] [solid]
// prints one line: voxels, missing (open reference voxels the GPU lacks),
// extra (GPU voxels outside the closed reference). The real scans of
// docs/design-notes/2026-11-28-voxelizer-v3.md are too big to check in.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "pyramarch/engine/device.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/voxelizer/testing.h"
#include "pyramarch/voxelizer/voxelizer.h"
#include "sample/mesh_files.h"
#include "voxel_reference.h"

using namespace pyramarch;
using namespace pyramarch::voxel;

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: voxel_scan_compare MESH R [raster|split]\n");
        return 2;
    }
    const std::string path = argv[1];
    const uint32_t res = uint32_t(std::stoul(argv[2]));
    const std::string pathWord = argc > 3 ? argv[3] : "split";
    const bool solid = argc > 4 && std::string(argv[4]) == "solid";
    auto device = Device::create(DeviceCreateInfo{});
    if (!device) {
        std::fprintf(stderr, "%s\n", device.message().c_str());
        return 1;
    }
    auto mesh = sample::loadMeshFile(path);
    if (!mesh) {
        std::fprintf(stderr, "%s\n", mesh.message().c_str());
        return 1;
    }
    auto grid = defaultGrid(*mesh, res);
    if (!grid) {
        std::fprintf(stderr, "%s\n", grid.message().c_str());
        return 1;
    }
    VoxelizerCreateInfo ci;
    ci.maxResolution = res;
    ci.maxVertices = uint32_t(mesh->positions.size());
    ci.maxTriangles = uint32_t(mesh->triangleCount());
    ci.fragmentCapacity = 1u << 23;
    ci.tileCapacity = 1u << 20;
    ci.method = ConservativeMethod::GeometryShader;
    ci.solid = solid;
    testing::Knobs knobs;
    knobs.trianglePath = pathWord == "raster" ? testing::TrianglePath::Raster : testing::TrianglePath::Split;
    auto vox = testing::create(**device, ci, knobs);
    if (!vox) {
        std::fprintf(stderr, "%s\n", vox.message().c_str());
        return 1;
    }
    Voxelizer& v = **vox;
    Status rec;
    Status s = v.setMesh(*mesh, *grid);
    if (s.ok()) s = submitAndWait(**device, [&](VkCommandBuffer cmd) { rec = v.record(cmd); });
    if (s.ok()) s = rec;
    auto stats = s.ok() ? v.readStats() : Result<VoxelStats>(s);
    auto tree = stats.ok() ? v.readOctree() : Result<OctreeSnapshot>(stats.status());
    if (!tree) {
        std::fprintf(stderr, "%s\n", tree.message().c_str());
        return 1;
    }
    if (stats->fragmentOverflow || stats->tileOverflow) {
        std::fprintf(stderr, "capacities too small\n");
        return 1;
    }
    std::vector<uint32_t> gpu;
    for (const LeafVoxel& l : extractLeaves(*tree)) gpu.push_back(ref::key(l.x, l.y, l.z));
    std::sort(gpu.begin(), gpu.end());
    auto closed = ref::voxelize(*mesh, *grid, ref::Overlap::Closed);
    auto open = ref::voxelize(*mesh, *grid, ref::Overlap::Open);
    if (solid) {
        const ref::SolidReference r = ref::solidInside(*mesh, *grid);
        std::vector<uint32_t> inside;
        for (uint32_t z = 0; z < grid->dims[2]; ++z)
            for (uint32_t y = 0; y < grid->dims[1]; ++y)
                for (uint32_t x = 0; x < grid->dims[0]; ++x)
                    if (r.inside[(size_t(z) * grid->dims[1] + y) * grid->dims[0] + x])
                        inside.push_back(ref::key(x, y, z));
        // Mesh volume by the divergence theorem, in double.
        double volume = 0;
        for (size_t t = 0; t < mesh->triangleCount(); ++t) {
            const auto& a = mesh->positions[mesh->indices[3 * t]];
            const auto& b = mesh->positions[mesh->indices[3 * t + 1]];
            const auto& c = mesh->positions[mesh->indices[3 * t + 2]];
            volume += (double(a[0]) * (double(b[1]) * c[2] - double(b[2]) * c[1]) -
                       double(a[1]) * (double(b[0]) * c[2] - double(b[2]) * c[0]) +
                       double(a[2]) * (double(b[0]) * c[1] - double(b[1]) * c[0])) /
                      6.0;
        }
        const double s3 = double(grid->voxelSize[0]) * grid->voxelSize[1] * grid->voxelSize[2];
        std::printf("solid: GPU odd columns %u, reference %u; inside voxels %zu (x s^3 = %.6g) against mesh volume "
                    "%.6g (ratio %.5f); GPU interior fragments %u\n",
                    stats->solidOddColumns, r.oddColumns, inside.size(), double(inside.size()) * s3, std::fabs(volume),
                    double(inside.size()) * s3 / std::fabs(volume), stats->solidInterior);
        std::vector<uint32_t> u;
        std::set_union(open.begin(), open.end(), inside.begin(), inside.end(), std::back_inserter(u));
        open.swap(u);
        u.clear();
        std::set_union(closed.begin(), closed.end(), inside.begin(), inside.end(), std::back_inserter(u));
        closed.swap(u);
    }
    std::vector<uint32_t> missing, extra;
    std::set_difference(open.begin(), open.end(), gpu.begin(), gpu.end(), std::back_inserter(missing));
    std::set_difference(gpu.begin(), gpu.end(), closed.begin(), closed.end(), std::back_inserter(extra));
    std::printf("%s R=%u %s%s: triangles %zu, GPU voxels %zu, reference open %zu closed %zu, missing %zu, extra %zu",
                path.c_str(), res, pathWord.c_str(), solid ? " solid" : "", mesh->triangleCount(), gpu.size(),
                open.size(), closed.size(), missing.size(), extra.size());
    for (size_t i = 0; i < std::min<size_t>(3, missing.size()); ++i) {
        const auto c = ref::unkey(missing[i]);
        std::printf(" missing(%u,%u,%u)", c[0], c[1], c[2]);
    }
    for (size_t i = 0; i < std::min<size_t>(3, extra.size()); ++i) {
        const auto c = ref::unkey(extra[i]);
        std::printf(" extra(%u,%u,%u)", c[0], c[1], c[2]);
    }
    std::printf("\n");
    return 0;
}
