#include <algorithm>
#include <tuple>

#include "pyramarch/voxelizer/voxelizer.h"

namespace pyramarch::voxel {

std::vector<LeafVoxel> extractLeaves(const OctreeSnapshot& tree) {
    std::vector<LeafVoxel> out;
    if (tree.nodes.empty()) return out;
    struct Item {
        uint32_t node, level, x, y, z;
    };
    std::vector<Item> stack{{0, 0, 0, 0, 0}};
    const uint64_t limit = uint64_t(tree.tilesAllocated) * 8;
    while (!stack.empty()) {
        const Item it = stack.back();
        stack.pop_back();
        const OctreeNode& n = tree.nodes[it.node];
        if (it.level == tree.depth) {
            if (n.count > 0)
                out.push_back({it.x, it.y, it.z, n.color, n.count, {n.normal[0], n.normal[1], n.normal[2]}});
            continue;
        }
        // A child pointer outside the allocated range would be a corrupt
        // tree; it is skipped here and caught by the tests' validity check.
        if (n.child == 0 || uint64_t(n.child) * 8 + 8 > limit) continue;
        for (uint32_t c = 0; c < 8; ++c)
            stack.push_back({n.child * 8 + c, it.level + 1, it.x * 2 + (c & 1), it.y * 2 + ((c >> 1) & 1),
                             it.z * 2 + ((c >> 2) & 1)});
    }
    std::sort(out.begin(), out.end(),
              [](const LeafVoxel& a, const LeafVoxel& b) { return std::tie(a.z, a.y, a.x) < std::tie(b.z, b.y, b.x); });
    return out;
}

} // namespace pyramarch::voxel
