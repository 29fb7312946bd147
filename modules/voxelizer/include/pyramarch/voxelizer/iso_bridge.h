// The voxelizer's octree as the isosurface module's sparse volume input
// (iso::SparseVolumeInput::OctreeLeaves): header only, for hosts that link
// both modules. Every frame, on the GPU, the surface's passes read the leaves
// the voxelizer's passes built in the same graph; no read-back.
//
//     auto vox = voxelizer->addPasses(graph);
//     surface->addPasses(graph, {.octree = voxel::octreeLeafInput(*vox, voxelizer->octreeDepth())});
//
// The surface's samples are the voxel grid's dims and its bounds
// voxel::voxelCentreBounds(grid) (field.h): sample s is voxel s.
#pragma once

#include <cstddef>

#include "pyramarch/isosurface/isosurface.h"
#include "pyramarch/voxelizer/voxelizer.h"

namespace pyramarch::voxel {

// The leaf level (`depth`, Voxelizer::octreeDepth()) of the octree in
// `refs`: its tile range in the counters, its nodes' counts and coordinates.
inline iso::OctreeLeafInput octreeLeafInput(const VoxelizerGraphRefs& refs, uint32_t depth) {
    iso::OctreeLeafInput in;
    in.counters = refs.counters;
    in.nodeCount = refs.nodeCount;
    in.nodeCoord = refs.nodeCoord;
    in.leafTilesFirst = uint32_t(offsetof(VoxCountersData, levelTileStart) + 4 * depth);
    in.leafTilesEnd = uint32_t(offsetof(VoxCountersData, levelTileEnd) + 4 * depth);
    return in;
}

} // namespace pyramarch::voxel
