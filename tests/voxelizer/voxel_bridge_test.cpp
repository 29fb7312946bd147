// Bridge voxelizer -> isosurface: a voxelized closed mesh, made solid and
// sampled at voxel centres, extracted by the isosurface module at iso 0.5,
// gives a closed surface within a voxel of the original.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "pyramarch/engine/transfer.h"
#include "pyramarch/isosurface/isosurface.h"
#include "pyramarch/voxelizer/field.h"
#include "pyramarch/voxelizer/shapes.h"
#include "pyramarch/voxelizer/voxelizer.h"
#include "support/gpu_test.h"

using namespace pyramarch;
using namespace pyramarch::voxel;

class VoxelBridgeTest : public test::GpuTest {};

TEST_F(VoxelBridgeTest, RemeshedSphereStaysWithinAVoxel) {
    VoxelizerCreateInfo ci;
    ci.maxResolution = 40;
    ci.maxVertices = 4096;
    ci.maxTriangles = 4096;
    ci.fragmentCapacity = 1 << 17;
    ci.tileCapacity = 1 << 13;
    ci.denseMaxVoxels = 40 * 40 * 40;
    ci.method = ConservativeMethod::GeometryShader;
    auto v = Voxelizer::create(device(), ci);
    ASSERT_TRUE(v.ok()) << v.message();
    const TriangleMesh sphere = shapes::sphere({0.1f, 0.f, -0.1f}, 1.0f, 48, 24);
    auto grid = gridFromBox({-1.2f, -1.3f, -1.4f}, {1.4f, 1.3f, 1.2f}, 40, 40, 40);
    ASSERT_TRUE(grid.ok());
    ASSERT_OK((*v)->setMesh(sphere, *grid));
    Status rec;
    ASSERT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) { rec = (*v)->record(cmd); }));
    ASSERT_OK(rec);
    auto dense = (*v)->readDenseGrid();
    ASSERT_TRUE(dense.ok()) << dense.message();
    const std::vector<float> solid = solidOccupancy(*dense, *grid);
    const SampleBounds b = voxelCentreBounds(*grid);

    iso::IsoSurfaceCreateInfo ii;
    ii.samples = {grid->dims[0], grid->dims[1], grid->dims[2]};
    ii.boundsMin = b.min;
    ii.boundsMax = b.max;
    ii.vertexCapacity = 3u << 16;
    ii.source = iso::FieldSource::Volume;
    ii.isoValue = 0.5f;
    auto surface = iso::IsoSurface::create(device(), ii);
    ASSERT_TRUE(surface.ok()) << surface.message();
    ASSERT_OK((*surface)->uploadVolume(solid.data(), solid.size() * sizeof(float), iso::VolumeFormat::F32));
    ASSERT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) { rec = (*surface)->record(cmd); }));
    ASSERT_OK(rec);
    auto mesh = (*surface)->readMesh(true);
    ASSERT_TRUE(mesh.ok()) << mesh.message();
    ASSERT_GT(mesh->indices.size(), 3000u);
    // The solid covers the sphere's voxels plus the conservative shell: the
    // remeshed surface lies between r - 1 voxel and r + 1.5 voxels.
    const float s = grid->voxelSize[0];
    float lo = 1e9f, hi = 0.f;
    for (const auto& p : mesh->positions) {
        const float r = std::sqrt((p[0] - 0.1f) * (p[0] - 0.1f) + p[1] * p[1] + (p[2] + 0.1f) * (p[2] + 0.1f));
        lo = std::min(lo, r);
        hi = std::max(hi, r);
    }
    EXPECT_GT(lo, 1.0f - 1.0f * s);
    EXPECT_LT(hi, 1.0f + 1.5f * s);
    // Closed: every welded edge is shared by exactly two triangles.
    std::map<std::pair<uint32_t, uint32_t>, int> edges;
    for (size_t t = 0; t < mesh->indices.size() / 3; ++t)
        for (int c = 0; c < 3; ++c) {
            uint32_t a = mesh->indices[3 * t + c], d = mesh->indices[3 * t + (c + 1) % 3];
            if (a > d) std::swap(a, d);
            ++edges[{a, d}];
        }
    size_t open = 0;
    for (const auto& [e, n] : edges) open += n != 2;
    EXPECT_EQ(open, 0u);
}
