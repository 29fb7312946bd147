// `pyramarch voxelize`: a mesh (OBJ) or built-in shape -> sparse voxel octree
// on the GPU -> occupied leaves (.ply or .txt) and stats JSON with per-pass times.
#pragma once

#include <string>

#include "pyramarch/voxelizer/voxelizer.h"
#include "sample/cli.h"

struct VoxelizeOptions {
    std::string mesh;  // OBJ path
    std::string shape; // sphere | torus | knot | box | diamond
    uint32_t resolution = 128;
    std::string out;   // .ply or .txt
    std::string stats; // JSON
    bool thin = false;
    std::string method = "auto";          // auto | gs | hw
    std::string trianglePath = "default"; // default | raster | split
    uint32_t smallVoxels = pyramarch::voxel::VoxelizerCreateInfo{}.smallTriangleVoxels;
    std::string octreeBuild = "default"; // default | topdown | bottomup
    uint32_t frames = 1;                 // timed frames after the first (JIT); per-pass medians
    bool storageReads = false;           // VoxelizerCreateInfo::texelReads = false
    bool validation = false;
    std::string device;
};

CLI::App* addVoxelizeCommand(CLI::App& app, VoxelizeOptions& options);
int runVoxelize(const VoxelizeOptions& options);
