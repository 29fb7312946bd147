// Layout shared by the fluid sample's simulation passes (C++ and GLSL):
// position-based fluids (Macklin & Mueller 2013), docs/algorithms.md.
#ifndef PYRAMARCH_FLUID_SHARED_H
#define PYRAMARCH_FLUID_SHARED_H

#ifdef __cplusplus
#include <cstdint>
namespace fluid::gpu {
using uint = uint32_t;
#define FLUID_CONST inline constexpr uint32_t
#else
#define FLUID_CONST const uint
#endif

FLUID_CONST kFluidGroupSize = 128;
// Neighbour list slots per particle: about 26-33 neighbours within h = 2 d
// at rest, 40 at 20 % compression; the list keeps the first kMaxNeighbours
// in the fixed search order (a deterministic cut, never reached in the
// tests' and the sample's runs).
FLUID_CONST kMaxNeighbours = 64;
// The prefix scan over the cell counts: one workgroup scans kScanBlock
// values (kScanGroupSize threads, kScanPerThread each); a second level scans
// the block totals in one workgroup, so at most kScanBlock^2 cells.
FLUID_CONST kScanGroupSize = 256;
FLUID_CONST kScanPerThread = 8;
FLUID_CONST kScanBlock = kScanGroupSize * kScanPerThread;

// One set of push constants for every simulation pass (scalars only, so the
// C++ and std430 layouts agree without padding rules). Per pass, `n` is the
// number of threads' items (particles, cells + 1, or scan blocks).
struct FluidPush {
    uint n;          // items of this dispatch
    uint groupsX;    // dispatch width (2D fold past maxComputeWorkGroupCount[0])
    uint particles;  // particle count
    uint cells;      // grid cells (gridX * gridY * gridZ)
    uint gridX, gridY, gridZ;
    float maxSpeed;  // velocity clamp (kernel radii per step: h * cfl / dt)
    float boxMinX, boxMinY, boxMinZ;
    float h;         // kernel radius = grid cell size
    float boxMaxX, boxMaxY, boxMaxZ;
    float dt;
    float gravity;   // along -y
    float invRestDensity;
    float epsilon;   // constraint force mixing (relaxation) of the lambda denominator
    float scorrK;    // tensile instability term: -k (W(r) / W(dq))^4
    float invWdq;    // 1 / W_poly6(dq)
    float xsph;      // XSPH viscosity c (0: off)
    float poly6;     // 315 / (64 pi h^9)
    float spiky;     // 45 / (pi h^6) (gradient magnitude factor)
    // Collider (predict and delta): a solid voxel grid, one float per voxel
    // (x fastest, > 0.5 = solid), cubic voxels of colliderVoxel from the
    // origin; colliderOn 0: none (the grid is not read).
    float colliderOriginX, colliderOriginY, colliderOriginZ;
    float colliderVoxel;
    uint colliderDimX, colliderDimY, colliderDimZ;
    uint colliderOn;
};

#ifdef __cplusplus
static_assert(sizeof(FluidPush) == 128, "push constants: the 128 bytes every device offers");
} // namespace fluid::gpu
#endif
#undef FLUID_CONST
#endif
