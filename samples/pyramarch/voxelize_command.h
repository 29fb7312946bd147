// `pyramarch voxelize`: a mesh (OBJ) or built-in shape -> sparse voxel octree
// on the GPU -> occupied leaves (.ply or .txt) and stats JSON with per-pass times.
#pragma once

#include <initializer_list>
#include <string>

#include "pyramarch/voxelizer/voxelizer.h"
#include "sample/cli.h"

// The --octree-build words of `voxelize` and `bench`: levels | root | hash
// name OctreeBuild::OccupancyLevels | RootDescent | TileHash. The words from
// before that rename stay accepted as aliases, normalised by octreeBuildValidator:
// default -> the create-info's default (levels), cursors and topdown ->
// levels (the old TopDown ran with fragment cursors unless told otherwise),
// bottomup -> hash.
const char* octreeBuildWord(pyramarch::voxel::OctreeBuild build);
pyramarch::voxel::OctreeBuild octreeBuildFromWord(const std::string& word); // a build word or alias
// The --octree-build transform: accepts a build word, an alias or one of
// `extra` (bench's both, all) and stores the canonical word.
CLI::Validator octreeBuildValidator(std::initializer_list<const char*> extra = {});

struct VoxelizeOptions {
    std::string mesh;  // OBJ path
    std::string shape; // sphere | torus | knot | box | diamond
    uint32_t resolution = 128;
    std::string out;   // .ply or .txt
    std::string stats; // JSON
    bool thin = false;
    bool solid = false;
    std::string method = "auto";          // auto | gs | hw
    std::string trianglePath = "default"; // default | raster | split
    uint32_t smallVoxels = pyramarch::voxel::VoxelizerCreateInfo{}.smallTriangleVoxels;
    // levels | root | hash (aliases normalised by the parser; see octreeBuildWord)
    std::string octreeBuild = octreeBuildWord(pyramarch::voxel::VoxelizerCreateInfo{}.octreeBuild);
    uint32_t frames = 1;       // timed frames after the first (JIT); per-pass medians
    bool storageReads = false; // VoxelizerCreateInfo::texelReads = false
    // --remesh: the voxels' smooth surface from the octree on the GPU
    // (iso::SparseVolumeInput::OctreeLeaves), written to .obj or .ply ("-": not written).
    std::string remesh;
    bool remeshIndexed = false;
    bool validation = false;
    std::string device;
};

CLI::App* addVoxelizeCommand(CLI::App& app, VoxelizeOptions& options);
int runVoxelize(const VoxelizeOptions& options);
