// `pyramarch voxelize`: a mesh (OBJ) or built-in shape -> sparse voxel octree
// on the GPU -> occupied leaves (.ply or .txt) and stats JSON with per-pass times.
#pragma once

#include <initializer_list>
#include <string>

#include "pyramarch/voxelizer/testing.h"
#include "sample/cli.h"

// The --octree-build words of `bench`: levels | root | hash name
// voxel::testing::OctreeBuild::OccupancyLevels | RootDescent | TileHash. The words from
// before that rename stay accepted as aliases, normalised by octreeBuildValidator:
// default -> the create-info's default (levels), cursors and topdown ->
// levels (the old TopDown ran with fragment cursors unless told otherwise),
// bottomup -> hash.
const char* octreeBuildWord(pyramarch::voxel::testing::OctreeBuild build);
pyramarch::voxel::testing::OctreeBuild octreeBuildFromWord(const std::string& word); // a build word or alias
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
    std::string method = "auto";  // auto | gs | hw
    uint32_t frames = 1;          // timed frames after the first (JIT); per-pass medians
    uint32_t memoryBudgetMiB = 0; // the voxelizer's buffers at most this (0 = the device's limits)
    // --remesh: the voxels' smooth surface from the octree on the GPU
    // (iso::SparseVolumeInput::OctreeLeaves), written to .obj or .ply ("-": not written).
    std::string remesh;
    bool remeshIndexed = false;
    // Largest storage buffer the capacities may grow to, bytes (0: the device's).
    uint64_t bufferLimit = 0;
    bool validation = false;
    std::string device;
};

CLI::App* addVoxelizeCommand(CLI::App& app, VoxelizeOptions& options);
int runVoxelize(const VoxelizeOptions& options);
