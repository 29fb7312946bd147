// Scenes shared by the samples and the pyramarch tool.
#pragma once

#include <array>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "pyramarch/engine/pipeline.h"
#include "sample/framework.h"

namespace sample {

// Animated metaballs (up to 256) moving on Lissajous paths.
struct MetaballSettings {
    uint32_t cells = 48; // per axis
    uint32_t balls = 24; // 1..256
    float iso = 0.35f;
    pyramarch::iso::NormalMode normals = pyramarch::iso::NormalMode::Central;
    uint32_t vertexCapacity = 3u << 18;
    bool indexed = false; // shared vertices + indices
};

class MetaballScene final : public Scene {
public:
    static Result<std::unique_ptr<MetaballScene>> create(pyramarch::Device& device, const MetaballSettings& settings);
    const char* name() const override { return "metaballs"; }
    pyramarch::iso::IsoSurface& surface() override { return *surface_; }
    bool indexed() const override { return settings_.indexed; }
    Status update(double time) override;
    void ui(SceneConfig& config) override;
    // The balls of `time` (also used by tests for the CPU reference).
    std::vector<pyramarch::iso::Metaball> balls(double time) const;
    MetaballSettings& settings() { return settings_; }

private:
    MetaballSettings settings_;
    std::unique_ptr<pyramarch::iso::IsoSurface> surface_;
    struct Path {
        float amp[3], freq[3], phase[3], radius;
    };
    std::vector<Path> paths_;
};

// Metaballs flowing down a long channel on a sparse domain
// (IsoSurfaceCreateInfo::sparse): a virtual grid of cells x cells/16 x
// cells/16 whose dense field and pyramid would not fit one storage buffer
// at the default 2047 (lavapipe's 128 MiB), of which only the bricks the
// balls reach are listed and only the row pairs they cut are kept.
struct ChannelSettings {
    uint32_t cells = 2047; // along the channel (x); y and z get (cells + 1) / 16 - 1
    uint32_t balls = 96;   // 1..1024
    float iso = 0.35f;
    pyramarch::iso::NormalMode normals = pyramarch::iso::NormalMode::Central;
};

class ChannelScene final : public Scene {
public:
    static Result<std::unique_ptr<ChannelScene>> create(pyramarch::Device& device, const ChannelSettings& settings);
    const char* name() const override { return "channel"; }
    pyramarch::iso::IsoSurface& surface() override { return *surface_; }
    Status update(double time) override;
    float viewRadius() const override { return 0.45f * halfLength_; }
    // The balls of `time`: they drift along +x, wrap around at the ends and
    // wobble across the channel.
    std::vector<pyramarch::iso::Metaball> balls(double time) const;
    const pyramarch::iso::IsoSurfaceCreateInfo& info() const { return info_; }

private:
    ChannelSettings settings_;
    pyramarch::iso::IsoSurfaceCreateInfo info_;
    std::unique_ptr<pyramarch::iso::IsoSurface> surface_;
    float halfLength_ = 4.f, halfWidth_ = 0.25f;
    struct Drift {
        float x0, speed, y, z, wobble, freq, phase, radius;
    };
    std::vector<Drift> drifts_;
};

// A point cloud of particles advected by a curl-noise flow that keeps them
// in a swirling torus. The particles live in a device-local buffer: a
// compute pass in the frame's graph moves them (shaders/pointcloud/flow.comp)
// and the surface splats them from there (ParticleInput::GpuBuffer), so
// nothing is copied from the host per frame.
struct PointCloudSettings {
    uint32_t cells = 48;
    uint32_t particles = 100000;
    float radius = 0.09f; // splat kernel radius (world units)
    float weight = 0.06f; // per particle
    float iso = 0.5f;
    uint32_t vertexCapacity = 3u << 18;
    bool anisotropic = false; // Yu & Turk's anisotropic kernels
    bool indexed = false;
};

class PointCloudScene final : public Scene {
public:
    static Result<std::unique_ptr<PointCloudScene>> create(pyramarch::Device& device,
                                                           const PointCloudSettings& settings);
    const char* name() const override { return "pointcloud"; }
    pyramarch::iso::IsoSurface& surface() override { return *surface_; }
    bool indexed() const override { return settings_.indexed; }
    // Chooses the step the next recorded frame's flow pass takes.
    Status update(double time) override;
    // The flow pass (StorageReadWrite on the particles), then the surface's passes.
    pyramarch::Status addPasses(pyramarch::RenderGraph& graph) override;
    void ui(SceneConfig& config) override;

    // The starting cloud of `settings` (deterministic: a torus around y).
    static std::vector<pyramarch::iso::Particle> initialParticles(const PointCloudSettings& settings);
    // CPU version of one flow step (flow.comp), the tests' reference.
    static void advectCpu(std::vector<pyramarch::iso::Particle>& particles, float time, float dt);
    // The particles as the GPU holds them (Particle[settings.particles]).
    const pyramarch::Buffer& particleBuffer() const { return particles_; }
    // The step the next recorded frame takes (set by update()).
    float stepTime() const { return stepTime_; }
    float stepDt() const { return stepDt_; }

private:
    PointCloudScene() = default;
    PointCloudSettings settings_;
    pyramarch::Device* device_ = nullptr;
    pyramarch::Buffer particles_;
    pyramarch::ComputePipeline flow_;
    std::unique_ptr<pyramarch::iso::IsoSurface> surface_; // after particles_: destroyed first
    double lastTime_ = 0.0;
    float stepTime_ = 0.f, stepDt_ = 0.f;
};

// A scalar volume uploaded once (raw file or sampled analytic field); the
// iso value can change every frame.
class VolumeScene final : public Scene {
public:
    struct Settings {
        std::array<uint32_t, 3> samples{2, 2, 2};
        std::array<float, 3> boundsMin{-1, -1, -1}, boundsMax{1, 1, 1};
        float iso = 0.f;
        pyramarch::iso::NormalMode normals = pyramarch::iso::NormalMode::Central;
        uint32_t vertexCapacity = 3u << 18;
        // Volumes are often cut by their bounds: show the inside too.
        bool twoSided = true;
        bool indexed = false;
    };
    static Result<std::unique_ptr<VolumeScene>> create(pyramarch::Device& device, const Settings& settings,
                                                       const void* data, size_t bytes,
                                                       pyramarch::iso::VolumeFormat format, float scale = 1.f,
                                                       float offset = 0.f);
    const char* name() const override { return "volume"; }
    pyramarch::iso::IsoSurface& surface() override { return *surface_; }
    Status update(double) override;
    void ui(SceneConfig& config) override;
    bool twoSided() const override { return twoSided_; }
    bool indexed() const override { return indexed_; }
    float viewRadius() const override { return radius_; }
    float& iso() { return iso_; }
    std::array<float, 2> range() const { return range_; }

private:
    std::unique_ptr<pyramarch::iso::IsoSurface> surface_;
    float iso_ = 0.f;
    std::array<float, 2> range_{0.f, 1.f};
    bool twoSided_ = true;
    bool indexed_ = false;
    float radius_ = 1.f;
};

// The compiler for FieldSource::UserGlsl (IsoSurfaceCreateInfo::compileGlsl):
// pyramarch::compileGlsl when the build has the shader_compiler component,
// else empty (create() then says the component is missing).
pyramarch::GlslCompiler glslCompiler();

// Analytic fields of the tool and tests, sampled on the CPU:
// cayley (16xyz + 4(x+y+z) - 1), sphere (0.8 - |p|), gyroid (k = 2 pi).
bool isAnalyticField(const std::string& name);
// The analytic fields as GLSL `float field(vec3 p)` (FieldSource::UserGlsl):
// the same functions as sampleAnalyticField, evaluated on the GPU.
const char* analyticFieldGlsl(const std::string& name);
// A Lipschitz constant of analyticFieldGlsl(name) over the box [min, max]
// (its largest gradient norm there): sphere 1; Cayley's gradient
// (16yz + 4, 16xz + 4, 16xy + 4) has components of at most 16 m^2 + 4 with
// m the largest |coordinate|, so sqrt(3) (16 m^2 + 4); each gyroid partial,
// k (cos a cos b - sin a sin c), is at most k sqrt(2) by Cauchy-Schwarz, so
// k sqrt(6). Rounded up a little.
float analyticFieldLipschitz(const std::string& name, const std::array<float, 3>& min, const std::array<float, 3>& max);

// What a surface on a sparse domain keeps: every buffer but the vertex
// buffer (resident), the vertex buffer, and what a dense grid of the same
// samples would keep (a float field and the pyramid's ~4/3 byte per cell,
// as tests/bench/brick_census.cpp counts it).
struct SparseMemory {
    uint64_t resident = 0, vertices = 0;
    uint64_t staging = 0; // host-visible upload copies (sparse volumes), not in `resident`
    double dense = 0.0;
};
SparseMemory sparseMemoryOf(pyramarch::iso::IsoSurface& surface, const std::array<uint32_t, 3>& samples);
// Bricks of 8^3 cells in a grid of `samples` (the virtual grid of a sparse domain).
uint64_t sparseBricksOf(const std::array<uint32_t, 3>& samples);
std::vector<float> sampleAnalyticField(const std::string& name, const std::array<uint32_t, 3>& samples,
                                       const std::array<float, 3>& bmin, const std::array<float, 3>& bmax);

// Raw volumes: pyramarch/isosurface/raw_volume.h (iso::readRawVolume, ...).

} // namespace sample

namespace sample {

// Everything a windowed sample can switch at run time (the panel's field
// source, grid resolution and normal mode recreate the scene).
struct SceneConfig {
    std::string source = "metaballs"; // metaballs | pointcloud | cayley | sphere | gyroid | volume
    uint32_t cells = 48;
    pyramarch::iso::NormalMode normals = pyramarch::iso::NormalMode::Central;
    uint32_t balls = 24;
    uint32_t particles = 100000;
    bool anisotropic = false; // pointcloud: anisotropic kernels
    bool indexed = false;     // shared vertices + indices
    float iso = NAN;          // NAN: the source's default
    // Particle surfaces of samples with their own scene (fluid): the iso
    // value as a fraction of the rest density (NAN: the scene's default) and
    // the module's particle position smoothing (0: isotropic kernels only).
    float surfaceThreshold = NAN;
    float particleSmoothing = 0.f;
    // Fluid: Taubin mesh smoothing iterations of the extracted surface
    // (IsoSurfaceCreateInfo::meshSmoothing; 0: off; > 0 makes the surface indexed).
    uint32_t meshSmoothing = 0;
    // Set by a scene's ui() when its change needs a new scene (the window
    // clears it and re-creates).
    bool recreate = false;
    // source == "volume": the raw samples (shared so switching back is cheap).
    std::shared_ptr<const std::vector<uint8_t>> volume;
    std::array<uint32_t, 3> volumeDims{0, 0, 0};
    pyramarch::iso::VolumeFormat volumeFormat = pyramarch::iso::VolumeFormat::U8;
};

Result<std::unique_ptr<Scene>> makeScene(pyramarch::Device& device, const SceneConfig& config);
const char* normalModeName(pyramarch::iso::NormalMode mode);

} // namespace sample
