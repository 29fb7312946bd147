// Position-based fluids (Macklin & Mueller 2013) on the GPU: a dam break in a
// box, stepped by compute passes in the frame's render graph and surfaced by
// the isosurface module from the same particle buffer
// (ParticleInput::GpuBuffer), so particles never leave the GPU. Also the CPU
// reference of the same step (the tests compare the two).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pyramarch/engine/pipeline.h"
#include "pyramarch/voxelizer/mesh.h"
#include "sample/framework.h"
#include "sample/scenes.h"

namespace pyramarch::voxel {
class Voxelizer;
}

namespace fluid {

using pyramarch::Result;
using pyramarch::Status;

// The simulation's box (world units) and where the water starts: a block
// against the -x wall, the full depth in z, 5/6 of the height.
inline constexpr std::array<float, 3> kBoxMin{-1.f, -0.6f, -0.5f};
inline constexpr std::array<float, 3> kBoxMax{1.f, 0.6f, 0.5f};
inline constexpr std::array<float, 3> kBlockMax{-0.2f, 0.4f, 0.5f};

struct FluidSettings {
    uint32_t particles = 100000; // 1..kMaxParticles
    uint32_t iterations = 4;     // solver iterations per step, 1..kMaxIterations
    // Simulation steps per recorded frame, 1..kMaxStepsPerFrame (default 1):
    // more shows more of the flow per drawn frame (the demo's dam break) at
    // that many times the simulation's cost; the surface is extracted once.
    uint32_t stepsPerFrame = 1;
    // Fixed step (s), one step per frame: 1/120 keeps the fastest particles
    // (about 4.5 m/s at the foot of the 1 m column) under a kernel radius
    // per step at 100,000 particles; at 1/60 they cross about two and the
    // solver's 4 iterations cannot undo the overlap (measured: it explodes).
    float dt = 1.f / 120.f;
    float gravity = 9.81f;
    // Constraint force mixing epsilon, relative to the lambda denominator of
    // a particle inside the fluid at rest (so it means the same for any
    // particle count); keeps lambda finite where a particle has few neighbours.
    float relaxation = 0.01f;
    // Tensile instability term k, times h^2 (see deriveParams): the
    // paper's 0.1 at this scale pushes the free surface apart faster than
    // XSPH damps it (measured: speeds of 15 m/s within 50 steps).
    float scorrK = 0.02f;
    float scorrDq = 0.2f; // its dq, fraction of h (the paper: 0.1-0.3)
    float xsph = 0.05f;   // XSPH viscosity c in [0, 1] (fraction towards the neighbours' mean velocity)
    // Speed limit in kernel radii per step (h * cfl / dt; 4.8 m/s at 100,000
    // particles, above the 1 m column's ~4.4 m/s): keeps the rare particle
    // that the wall clamp and the solver fling from running away.
    float cfl = 1.f;
    // Surface: grid spacing in particle spacings; iso value as a fraction of
    // the kernel's rest density; the module's particle position smoothing
    // (0: isotropic kernels, else the "smoothed" kernel mode, gather splat);
    // the module's anisotropic kernels (the "anisotropic" kernel mode).
    float voxelSize = 1.f;
    float threshold = 0.6f;
    float smoothing = 0.f;
    bool anisotropic = false;
    // Vertices (non-indexed): the 100k dam break needs about 120,000; room
    // for the finer surfaces of 400k particles.
    uint32_t vertexCapacity = 3u << 18;
    pyramarch::iso::NormalMode normals = pyramarch::iso::NormalMode::Central;
    bool indexed = false;
    // Taubin smoothing of the extracted mesh, iterations (0: off; the
    // module's default lambda / mu). Needs indexed output: create() turns it on.
    uint32_t meshSmoothing = 0;
    // Collider: a closed triangle mesh in world units inside the box
    // (placeCollider puts one there), voxelized solid every frame in the
    // simulation's graph; particles in its solid voxels are projected out
    // (collidePoint). Empty: none.
    pyramarch::voxel::TriangleMesh collider;
    // Collider voxels along the box's x side (2 m), 8..256; cubic voxels.
    uint32_t colliderResolution = 64;
};

// The command line's bound; FluidScene::create also needs the neighbour
// lists (256 bytes a particle) within maxStorageBufferRange (lavapipe's 128
// MiB: 524,288 particles).
inline constexpr uint32_t kMaxParticles = 4000000;
inline constexpr uint32_t kMaxIterations = 32;
inline constexpr uint32_t kMaxStepsPerFrame = 16;
inline constexpr uint32_t kMinColliderResolution = 8;
inline constexpr uint32_t kMaxColliderResolution = 256;

// Everything derived from the settings that the GPU passes and the CPU
// reference share.
struct FluidParams {
    uint32_t particles = 0, iterations = 0;
    float spacing = 0.f;            // rest particle spacing d (the block's lattice)
    float h = 0.f;                  // kernel radius = 2 d = grid cell size
    std::array<uint32_t, 3> grid{}; // cells per axis
    uint32_t cells = 0;
    std::array<uint32_t, 3> lattice{}; // the start block's particles per axis (x fastest, then z, then y)
    float dt = 0.f, gravity = 0.f;
    float restDensity = 0.f; // poly6 sum at a particle of the rest lattice
    float epsilon = 0.f;     // absolute CFM epsilon
    float scorrK = 0.f, invWdq = 0.f, xsph = 0.f;
    float maxSpeed = 0.f;
    float poly6 = 0.f, spiky = 0.f;
};

// Validates the settings (errors name the setting and its range).
Result<FluidParams> deriveParams(const FluidSettings& settings);

// The state of the particles, in the GPU buffers' layout: position xyz +
// weight 1 (the isosurface's Particle), velocity xyz + the particle's id
// (its index in the start block, as float bits) so tests can follow it.
struct FluidState {
    std::vector<std::array<float, 4>> positions;
    std::vector<std::array<float, 4>> velocities;
};
FluidState initialState(const FluidParams& params);
uint32_t particleId(const std::array<float, 4>& velocity);

// A collider's solid voxels: cubic voxels of `voxel` (m) from `origin`,
// `solid` one float per voxel, x fastest, > 0.5 = solid (the voxelizer's
// dense grid of a solid voxelization).
struct ColliderGrid {
    std::array<float, 3> origin{};
    float voxel = 0.f;
    std::array<uint32_t, 3> dims{};
    std::vector<float> solid;
    // Whether `p` lies in a solid voxel (outside the grid: no).
    bool solidAt(const std::array<float, 3>& p) const;
};

// The collider's voxel grid for FluidSettings::colliderResolution: from the
// box's minimum corner, `resolution` voxels along x, enough along y and z
// to cover the box.
pyramarch::voxel::VoxelGrid colliderVoxelGrid(uint32_t resolution);

// The collision step (shaders/fluid/collider.glsl): a position in a solid
// voxel moves along the grid axis with the shortest walk to a free voxel
// (directions +y, -y, +x, -x, +z, -z, the first of equal walks wins; a walk
// stops at the grid's edge) to that voxel's face, 1/64 voxel inside it.
// Positions outside the grid, in a free voxel, or with no free voxel along
// any axis come back as they are.
std::array<float, 3> collidePoint(const ColliderGrid& grid, std::array<float, 3> p);

// `mesh` scaled uniformly so that its bounding box's longest side is `size`
// (m), standing on the box's floor with its centre at (x, z): by default in
// the path of the dam break's wave.
pyramarch::voxel::TriangleMesh placeCollider(pyramarch::voxel::TriangleMesh mesh, float size = 0.5f, float x = 0.35f,
                                             float z = 0.f);
// The built-in bunny: a closed, manifold triangle mesh of a bunny-shaped
// smooth union of ellipsoids (body, haunches, head, ears, paws, tail),
// facing +x and standing on y = 0, about 2 units long; `cells` (16..256)
// grid cells along its longest side. No file needed (no scan ships with
// the project).
pyramarch::voxel::TriangleMesh bunnyMesh(uint32_t cells = 32);
// A collider by name: the bunny, a built-in shape (sphere, torus, knot, box,
// diamond) or a mesh file (.obj, .ply, .gltf, .glb), placed by placeCollider.
Result<pyramarch::voxel::TriangleMesh> loadCollider(const std::string& nameOrPath);

// The CPU reference of one step, operation for operation as the GPU passes
// (same sort order, same neighbour lists, same summation order, float arithmetic): the state comes
// back in the sorted order of the step, like the GPU's. `constraint`
// (optional) receives C = rho / rho0 - 1 of the last iteration per sorted
// particle; `collider` (optional) is applied after every box clamp.
void stepCpu(const FluidParams& params, FluidState& state, std::vector<float>* constraint = nullptr,
             const ColliderGrid* collider = nullptr);

// The dam break as a sample scene.
class FluidScene final : public sample::Scene {
public:
    static Result<std::unique_ptr<FluidScene>> create(pyramarch::Device& device, const FluidSettings& settings);
    ~FluidScene() override;
    const char* name() const override { return "fluid"; }
    pyramarch::iso::IsoSurface& surface() override { return *surface_; }
    bool indexed() const override { return settings_.indexed; }
    // Sets the iso value from the threshold. The step is fixed (dt), one per
    // recorded frame, except when `time` equals the previous update's (the
    // window's pause): then the next recorded frame records no simulation
    // dispatches and the surface shows the particles as they are.
    Status update(double time) override;
    // Whether the next recorded frame steps the simulation.
    bool stepping() const { return step_; }
    // The simulation passes, then the surface's.
    pyramarch::Status addPasses(pyramarch::RenderGraph& graph) override;
    void ui(sample::SceneConfig& config) override;
    float viewRadius() const override { return 1.2f; }

    // The simulation passes alone (tests): stepsPerFrame steps, the first
    // named pbf.*, step k > 1 pbf.step<k>.*; returns the graph's import of
    // the particle buffer (what the surface would splat).
    Result<pyramarch::BufferRef> addSimulationPasses(pyramarch::RenderGraph& graph);

    const FluidSettings& settings() const { return settings_; }
    const FluidParams& params() const { return params_; }
    float isoValue() const;
    // GPU buffers of the state (sorted order after a step) and of (lambda, C)
    // of the last solver iteration, per sorted particle.
    const pyramarch::Buffer& particleBuffer() const { return particles_; }
    const pyramarch::Buffer& velocityBuffer() const { return velocity_; }
    const pyramarch::Buffer& lambdaBuffer() const { return lambda_; }
    // The collider's voxelizer (null without one) and, for tests, its solid
    // voxels of the last recorded frame (read back: submits and waits).
    const pyramarch::voxel::Voxelizer* collider() const { return collider_.get(); }
    Result<ColliderGrid> readColliderGrid();

private:
    FluidScene() = default;
    struct Pipelines;
    FluidSettings settings_;
    FluidParams params_;
    pyramarch::Device* device_ = nullptr;
    float restField_ = 1.f; // the surface kernel's rest density (iso = threshold * this)
    bool step_ = true;
    double lastTime_ = NAN; // NaN: the first update steps
    pyramarch::Buffer particles_, velocity_, predicted_, cellRank_, cellStart_, blockSums_, scanTotal_, sortedIndex_,
        sortedCell_, neighbourList_, neighbourCount_, positionA_, positionB_, old_, lambda_, velocityNew_;
    std::unique_ptr<Pipelines> pipes_;
    pyramarch::Buffer noCollider_; // bound in place of the solid grid without a collider
    pyramarch::voxel::VoxelGrid colliderGrid_;
    std::unique_ptr<pyramarch::voxel::Voxelizer> collider_;
    std::unique_ptr<pyramarch::iso::IsoSurface> surface_; // after the buffers: destroyed first
};

// Builds the scene of a sample config (particles, threshold, smoothing).
Result<std::unique_ptr<sample::Scene>> makeFluidScene(pyramarch::Device& device, const sample::SceneConfig& config,
                                                      FluidSettings base = {});

} // namespace fluid
