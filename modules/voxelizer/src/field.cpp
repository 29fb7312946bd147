#include "pyramarch/voxelizer/field.h"

#include <cstdint>

namespace pyramarch::voxel {

std::vector<float> solidOccupancy(const std::vector<float>& dense, const VoxelGrid& grid) {
    const size_t nx = grid.dims[0], ny = grid.dims[1], nz = grid.dims[2];
    std::vector<float> out(nx * ny * nz, 1.0f);
    if (dense.size() != out.size()) return {};
    // 0 empty, 1 surface, 2 reached from outside.
    std::vector<uint8_t> state(out.size());
    for (size_t i = 0; i < out.size(); ++i) state[i] = dense[i] > 0.5f ? 1 : 0;
    std::vector<size_t> stack;
    auto seed = [&](size_t i) {
        if (state[i] == 0) {
            state[i] = 2;
            stack.push_back(i);
        }
    };
    // Every empty voxel on the grid's boundary touches the outside.
    for (size_t z = 0; z < nz; ++z)
        for (size_t y = 0; y < ny; ++y)
            for (size_t x = 0; x < nx; ++x)
                if (x == 0 || y == 0 || z == 0 || x + 1 == nx || y + 1 == ny || z + 1 == nz)
                    seed((z * ny + y) * nx + x);
    while (!stack.empty()) {
        const size_t i = stack.back();
        stack.pop_back();
        const size_t x = i % nx, y = (i / nx) % ny, z = i / (nx * ny);
        if (x > 0) seed(i - 1);
        if (x + 1 < nx) seed(i + 1);
        if (y > 0) seed(i - nx);
        if (y + 1 < ny) seed(i + nx);
        if (z > 0) seed(i - nx * ny);
        if (z + 1 < nz) seed(i + nx * ny);
    }
    for (size_t i = 0; i < out.size(); ++i) out[i] = state[i] == 2 ? 0.0f : 1.0f;
    return out;
}

SampleBounds voxelCentreBounds(const VoxelGrid& grid) {
    SampleBounds b;
    for (int a = 0; a < 3; ++a) {
        b.min[a] = grid.origin[a] + 0.5f * grid.voxelSize[a];
        b.max[a] = grid.origin[a] + (float(grid.dims[a]) - 0.5f) * grid.voxelSize[a];
    }
    return b;
}

} // namespace pyramarch::voxel
