// Command line of the pyramarch tool, separate from running the commands so
// tests and the fuzzer (tests/fuzz) can parse without touching a device.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pyramarch/isosurface/isosurface.h"
#include "bench.h"
#include "voxelize_command.h"

namespace sample {

// The fluid scene's bound on simulation steps per frame (fluid::kMaxStepsPerFrame;
// main.cpp checks they agree).
inline constexpr uint32_t kMaxDemoFluidSteps = 16;

struct DemoOptions {
    std::string outDir = "demo-out";
    uint32_t frames = 36;
    std::string size = "960x540";
    uint32_t msaa = 1;
    bool validation = false;
    std::string device;
    std::string shading = "lit";
    std::vector<std::string> scenes{"metaballs", "pointcloud", "fluid", "channel"};
    uint32_t cells = 48;
    uint32_t particles = 100000;
    uint32_t balls = 24;
    uint32_t capacity = 0; // --capacity: metaballs/pointcloud vertex capacity (0: the scene's default)
    // The fluid scene simulates every frame (PBF, several solver passes):
    // on a CPU driver far slower than the others, so it gets its own frame
    // count, and several steps per drawn frame so that those frames show the
    // dam break: 30 frames x 4 steps of 1/120 s = 1 s, the column collapsing,
    // running across the floor and splashing up the far wall.
    uint32_t fluidFrames = 30;
    uint32_t fluidSteps = 4;
    uint32_t fluidParticles = 100000;
    // An obstacle in the fluid scene: a built-in shape or a mesh file,
    // voxelized solid on the GPU every frame; "none": the plain dam break.
    std::string fluidCollider = "sphere";
    // The channel scene: metaballs on a sparse domain (sample::ChannelSettings).
    uint32_t channelCells = 2047;
    uint32_t channelBalls = 96;
};

struct IsoOptions {
    std::string field;
    std::string raw;
    std::string cells = "64,64,64";
    std::string dims;
    std::string type = "u8";
    std::string bounds = "-1,-1,-1,1,1,1";
    float iso = 0.f;
    bool isoGiven = false;
    std::string normals = "central";
    std::string out;
    std::string stats;
    bool weld = false;
    bool validation = false;
    std::string device;
    uint32_t capacity = 0;
    uint32_t repeat = 2;
    // --glsl: a file holding `float field(vec3 p)` (FieldSource::UserGlsl).
    std::string glsl;
    // --lipschitz: the --glsl field's Lipschitz constant (IsoSurfaceCreateInfo::lipschitz; 0: dense classify).
    float lipschitz = 0.f;
    // --particles: a particle file (PLY, .xyz, .f32, .vtk, .vtu, .bgeo) or a sequence pattern
    // with "{}" ('frames/fluid_{}.ply'); splashsurf's parameters.
    std::string particles;
    float particleRadius = 0.f;    // world units (required with --particles)
    float smoothingLength = 2.f;   // particle radii; kernel support 2 L r
    float voxelSize = 0.f;         // world units; 0: the particle radius
    float surfaceThreshold = 0.6f; // fraction of the rest density
    float cubeSize = 0.f;          // --cube-size: grid spacing in particle radii (splashsurf's -c); 0: --voxel-size
    // --particle-kernel: sph (splashsurf's SPH field, ParticleKernel::SphCubicSpline) | count (NeighbourCount)
    std::string particleKernel = "sph";
    float particleSmoothing = 0.f; // --particle-smoothing: lambda in [0, 1], 0 off
    bool anisotropic = false;      // --anisotropic: Yu & Turk's anisotropic kernels, default parameters
    // Domain boxes "x,y,z" (empty: none). --particle-aabb-min/max keep only
    // the particles inside (--particles); --mesh-aabb-min/max clip the mesh
    // on the CPU before it is written (any source).
    std::string particleAabbMin, particleAabbMax, meshAabbMin, meshAabbMax;
    // --attributes: point attributes the particle reader must find ("velocity,density").
    std::vector<std::string> attributes;
    // --interpolate-attributes: point attributes read and interpolated onto
    // the surface vertices, written as PLY vertex properties.
    std::vector<std::string> interpolateAttributes;
    // --mesh-smoothing N (Taubin iterations, any source; switches on indexed
    // output), --mesh-smoothing-lambda / --mesh-smoothing-mu.
    uint32_t meshSmoothing = 0;
    bool indexed = false; // --indexed: shared vertices + index buffer (also switched on by --mesh-smoothing)
    float meshLambda = pyramarch::iso::MeshSmoothing{}.lambda;
    float meshMu = pyramarch::iso::MeshSmoothing{}.mu;
    bool meshWeightsGiven = false;
    // --sparse: a sparse domain (IsoSurfaceCreateInfo::sparse) for --field
    // sphere|cayley|gyroid (their GLSL and Lipschitz constants) or --glsl
    // with --lipschitz (its capacities sized and grown by the module).
    bool sparse = false;
    uint64_t memoryBudgetMiB = 0; // --memory-budget (IsoSurfaceCreateInfo::memoryBudget, MiB; 0: the default)
    // Whether options were given on the command line (conflict checks).
    bool cellsGiven = false, boundsGiven = false, dimsGiven = false, typeGiven = false, lipschitzGiven = false;
    bool particleOptionsGiven = false, thresholdGiven = false, voxelSizeGiven = false, cubeSizeGiven = false;
};

struct ToolOptions {
    std::string command; // info | demo | iso | voxelize | bench
    std::string infoDevice;
    DemoOptions demo;
    IsoOptions iso;
    VoxelizeOptions voxelize;
    pyramarch::bench::BenchOptions bench;
};

// Parses argv (argv[0] is the program) into `options` and checks what can be
// checked without a device (--out extension). Returns -1 when the command
// should run, else the exit code (0 after --help); errors are one line on stderr.
int parseToolCommandLine(int argc, const char* const* argv, ToolOptions& options);

} // namespace sample
