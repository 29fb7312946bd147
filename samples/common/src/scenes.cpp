#include "sample/scenes.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>

#include <imgui.h>

#include "pyramarch/engine/transfer.h"
#include "pyramarch/isosurface/raw_volume.h"
#ifdef PYRAMARCH_HAVE_SHADER_COMPILER
#include "pyramarch/engine/shader_compiler.h"
#endif
#include "pyramarch/engine/vulkan_functions.h"
#include "pointcloud/flow_shared.h"

namespace {
const uint32_t kFlowSpv[] =
#include "shaders/pointcloud/flow.comp.spv.inc"
    ;
} // namespace

namespace sample {

using namespace pyramarch;

namespace {
constexpr float kPi = 3.14159265358979f;

// Indexed output counts unique vertices in vertexCapacity and the old
// per-triangle vertex count in indexCapacity; MC meshes share each vertex
// about six ways, a third leaves room for small, ragged surfaces.
Result<std::unique_ptr<iso::IsoSurface>> makeSurface(Device& device, iso::IsoSurfaceCreateInfo info, bool indexed) {
    if (indexed) {
        info.indexed = true;
        info.indexCapacity = info.vertexCapacity;
        info.vertexCapacity = std::max(3u, info.vertexCapacity / 3);
    }
    return iso::IsoSurface::create(device, info);
}
} // namespace

// ---- metaballs ----

Result<std::unique_ptr<MetaballScene>> MetaballScene::create(Device& device, const MetaballSettings& settings) {
    if (settings.balls < 1 || settings.balls > 256)
        return Status::error(ErrorCode::InvalidArgument,
                             "metaballs: ball count must be 1..256, got " + std::to_string(settings.balls));
    std::unique_ptr<MetaballScene> s(new MetaballScene());
    s->settings_ = settings;
    iso::IsoSurfaceCreateInfo info;
    info.samples = {settings.cells + 1, settings.cells + 1, settings.cells + 1};
    info.vertexCapacity = settings.vertexCapacity;
    info.normals = settings.normals;
    info.source = iso::FieldSource::Metaballs;
    info.isoValue = settings.iso;
    info.maxBalls = 256;
    info.name = "metaballs";
    PYRAMARCH_TRY_ASSIGN(s->surface_, makeSurface(device, info, settings.indexed));
    // Deterministic paths: the same animation on every run and machine.
    std::mt19937 rng(1234);
    std::uniform_real_distribution<float> u(0.f, 1.f);
    for (uint32_t i = 0; i < 256; ++i) {
        Path p;
        for (int a = 0; a < 3; ++a) {
            p.amp[a] = 0.35f + 0.3f * u(rng);
            p.freq[a] = 0.3f + 0.9f * u(rng);
            p.phase[a] = 2.f * kPi * u(rng);
        }
        p.radius = 0.32f + 0.18f * u(rng);
        s->paths_.push_back(p);
    }
    return s;
}

std::vector<iso::Metaball> MetaballScene::balls(double time) const {
    std::vector<iso::Metaball> out;
    const uint32_t n = std::clamp(settings_.balls, 1u, 256u);
    // Many balls crowd the box: shrink them so the blobs stay separate-ish.
    const float scale = std::min(1.f, std::cbrt(24.f / float(n)));
    for (uint32_t i = 0; i < n; ++i) {
        const Path& p = paths_[i];
        iso::Metaball b{};
        for (int a = 0; a < 3; ++a) b.center[a] = p.amp[a] * std::sin(p.freq[a] * float(time) + p.phase[a]);
        b.radius = p.radius * scale;
        b.strength = 1.f;
        out.push_back(b);
    }
    return out;
}

Status MetaballScene::update(double time) {
    surface_->setIsoValue(settings_.iso);
    surface_->setTime(float(time));
    const auto b = balls(time);
    return surface_->setMetaballs(b);
}

void MetaballScene::ui(SceneConfig& config) {
    int n = int(settings_.balls);
    if (ImGui::SliderInt("balls", &n, 1, 256)) config.balls = settings_.balls = uint32_t(n);
    if (ImGui::SliderFloat("iso value", &settings_.iso, 0.05f, 0.95f)) config.iso = settings_.iso;
}

// ---- channel: metaballs on a sparse domain ----

Result<std::unique_ptr<ChannelScene>> ChannelScene::create(Device& device, const ChannelSettings& settings) {
    if (settings.balls < 1 || settings.balls > 1024)
        return Status::error(ErrorCode::InvalidArgument,
                             "channel: ball count must be 1..1024, got " + std::to_string(settings.balls));
    if (settings.cells < 63 || settings.cells > iso::kMaxSparseCellsPerAxis)
        return Status::error(ErrorCode::InvalidArgument, "channel: cells must be 63.." +
                                                             std::to_string(iso::kMaxSparseCellsPerAxis) + ", got " +
                                                             std::to_string(settings.cells));
    std::unique_ptr<ChannelScene> s(new ChannelScene());
    s->settings_ = settings;
    // Cubic cells: x spans [-4, 4], y and z (cells + 1) / 16 - 1 cells of the same size.
    const uint32_t across = (settings.cells + 1) / 16 - 1;
    const float h = 8.f / float(settings.cells);
    s->halfLength_ = 4.f;
    s->halfWidth_ = 0.5f * h * float(across);
    iso::IsoSurfaceCreateInfo& info = s->info_;
    info.name = "channel";
    info.samples = {settings.cells + 1, across + 1, across + 1};
    info.boundsMin = {-4.f, -s->halfWidth_, -s->halfWidth_};
    info.boundsMax = {4.f, s->halfWidth_, s->halfWidth_};
    info.normals = settings.normals;
    info.source = iso::FieldSource::Metaballs;
    info.isoValue = settings.iso;
    info.maxBalls = settings.balls;
    // Balls of ~17-29 cells' reach at the default 2047: ~60 bricks, ~700
    // cut row pairs and ~3500 triangles each at most, twice that to spare;
    // the surface's area in cells grows with the square of the cells per unit.
    const double perBall = std::max(1.0, std::pow(double(settings.cells) / 2047.0, 2.0));
    info.sparse.enabled = true;
    info.sparse.maxBricks = uint32_t(std::min(160.0 * perBall * settings.balls, double(iso::kMaxSparseBricks)));
    info.sparse.maxRowPairs = uint32_t(std::min(1500.0 * perBall * settings.balls, double(1u << 30)));
    info.sparse.maxRowPairs = std::min(info.sparse.maxRowPairs, iso::maxSparseRowPairs(device.limits()));
    info.vertexCapacity =
        uint32_t(std::min(24000.0 * perBall * settings.balls, double(iso::maxVertexCapacity(device.limits()))));
    PYRAMARCH_TRY_ASSIGN(s->surface_, iso::IsoSurface::create(device, info));
    std::mt19937 rng(4321);
    std::uniform_real_distribution<float> u(0.f, 1.f);
    for (uint32_t i = 0; i < settings.balls; ++i) {
        Drift d;
        d.x0 = -4.f + 8.f * u(rng);
        d.speed = 0.3f + 0.5f * u(rng);
        d.radius = 0.065f + 0.05f * u(rng);
        const float room = std::max(0.f, s->halfWidth_ - 0.6f * d.radius);
        d.y = room * (2.f * u(rng) - 1.f) * 0.7f;
        d.z = room * (2.f * u(rng) - 1.f) * 0.7f;
        d.wobble = room * 0.3f * u(rng);
        d.freq = 0.5f + 1.5f * u(rng);
        d.phase = 2.f * kPi * u(rng);
        s->drifts_.push_back(d);
    }
    return s;
}

std::vector<iso::Metaball> ChannelScene::balls(double time) const {
    std::vector<iso::Metaball> out;
    const float t = float(time), span = 2.f * halfLength_ + 0.4f;
    for (const Drift& d : drifts_) {
        iso::Metaball b{};
        // Wrap around: leave at +x, come back in at -x (outside the grid on both ends for a while).
        const float x = std::fmod(d.x0 + halfLength_ + 0.2f + d.speed * t, span);
        b.center = {x - halfLength_ - 0.2f, d.y + d.wobble * std::sin(d.freq * t + d.phase),
                    d.z + d.wobble * std::cos(1.3f * d.freq * t + d.phase)};
        b.radius = d.radius;
        b.strength = 1.f;
        out.push_back(b);
    }
    return out;
}

Status ChannelScene::update(double time) {
    surface_->setIsoValue(settings_.iso);
    const auto b = balls(time);
    return surface_->setMetaballs(b);
}

SparseMemory sparseMemoryOf(iso::IsoSurface& surface, const std::array<uint32_t, 3>& samples) {
    SparseMemory m;
    for (const iso::IsoSurface::MemoryItem& item : surface.memoryReport())
        if (item.name != "replaced") // growth's replaced buffers, until released
            (item.name == "vertices"                                                               ? m.vertices
             : item.name.size() >= 7 && item.name.compare(item.name.size() - 7, 7, "staging") == 0 ? m.staging
                                                                                                   : m.resident) +=
                item.bytes;
    const double cells = double(samples[0] - 1) * (samples[1] - 1) * (samples[2] - 1);
    m.dense = double(samples[0]) * samples[1] * samples[2] * 4.0 + cells * 4.0 / 3.0;
    return m;
}

uint64_t sparseBricksOf(const std::array<uint32_t, 3>& samples) {
    const uint64_t b = iso::kSparseBrickCells;
    return ((samples[0] - 1 + b - 1) / b) * ((samples[1] - 1 + b - 1) / b) * ((samples[2] - 1 + b - 1) / b);
}

// ---- point cloud ----

namespace {
// Curl of a smooth vector potential (sums of sines): divergence free, so the
// cloud swirls without collapsing into a point.
void curlNoise(float x, float y, float z, float t, float out[3]) {
    const float k = 2.1f;
    // Potential psi = (sin(k y + t) cos(k z), sin(k z + 0.7 t) cos(k x), sin(k x + 1.3 t) cos(k y))
    const float dpz_dy = -k * std::sin(k * x + 1.3f * t) * std::sin(k * y);
    const float dpy_dz = k * std::cos(k * z + 0.7f * t) * std::cos(k * x);
    const float dpx_dz = -k * std::sin(k * y + t) * std::sin(k * z);
    const float dpz_dx = k * std::cos(k * x + 1.3f * t) * std::cos(k * y);
    const float dpy_dx = -k * std::sin(k * z + 0.7f * t) * std::sin(k * x);
    const float dpx_dy = k * std::cos(k * y + t) * std::cos(k * z);
    out[0] = dpz_dy - dpy_dz;
    out[1] = dpx_dz - dpz_dx;
    out[2] = dpy_dx - dpx_dy;
}
} // namespace

Result<std::unique_ptr<PointCloudScene>> PointCloudScene::create(Device& device, const PointCloudSettings& settings) {
    if (settings.particles == 0)
        return Status::error(ErrorCode::InvalidArgument, "pointcloud: particle count must be > 0");
    std::unique_ptr<PointCloudScene> s(new PointCloudScene());
    s->settings_ = settings;
    s->device_ = &device;
    const std::vector<iso::Particle> start = initialParticles(settings);
    const VkDeviceSize bytes = VkDeviceSize(settings.particles) * sizeof(iso::Particle);
    auto buf =
        device.allocator().createBuffer({.size = bytes,
                                         .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                                  VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                         .memory = MemoryUsage::DeviceLocal,
                                         .name = "pointcloud.particles"});
    if (!buf)
        return Status::error(buf.code(),
                             "pointcloud: particle buffer of " + std::to_string(bytes) + " bytes: " + buf.message());
    s->particles_ = std::move(buf).value();
    PYRAMARCH_TRY(uploadBuffer(device, s->particles_, start.data(), bytes));

    ComputePipelineDesc d;
    d.spirv = kFlowSpv;
    d.name = "pointcloud.flow";
    d.layout.bindings = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER};
    d.layout.pushConstantBytes = sizeof(gpu::FlowPush);
    auto pipe = ComputePipeline::create(device, d);
    if (!pipe) return Status::error(pipe.code(), "pointcloud: flow pipeline: " + pipe.message());
    s->flow_ = std::move(pipe).value();

    iso::IsoSurfaceCreateInfo info;
    info.samples = {settings.cells + 1, settings.cells + 1, settings.cells + 1};
    info.vertexCapacity = settings.vertexCapacity;
    info.source = iso::FieldSource::Particles;
    info.maxParticles = settings.particles;
    info.particleRadius = settings.radius;
    info.anisotropic.enabled = settings.anisotropic;
    info.particleInput = iso::ParticleInput::GpuBuffer;
    info.particleBuffer = &s->particles_;
    info.isoValue = settings.iso;
    info.name = "pointcloud";
    PYRAMARCH_TRY_ASSIGN(s->surface_, makeSurface(device, info, settings.indexed));
    PYRAMARCH_TRY(s->surface_->setParticleCount(settings.particles));
    return s;
}

std::vector<iso::Particle> PointCloudScene::initialParticles(const PointCloudSettings& settings) {
    // A torus of points around the y axis.
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> u(0.f, 1.f);
    std::vector<iso::Particle> out(settings.particles);
    for (iso::Particle& p : out) {
        const float a = 2.f * kPi * u(rng), b = 2.f * kPi * u(rng), r = 0.22f * std::sqrt(u(rng));
        const float R = 0.55f + r * std::cos(b);
        p.position[0] = R * std::cos(a);
        p.position[1] = r * std::sin(b);
        p.position[2] = R * std::sin(a);
        p.weight = settings.weight;
    }
    return out;
}

void PointCloudScene::advectCpu(std::vector<iso::Particle>& particles, float time, float dt) {
    for (iso::Particle& p : particles) {
        float v[3];
        curlNoise(p.position[0], p.position[1], p.position[2], time, v);
        for (int a = 0; a < 3; ++a) p.position[a] += 0.25f * dt * v[a];
        // Soft pull back into the unit ball so the cloud stays in the grid.
        const float r2 = p.position[0] * p.position[0] + p.position[1] * p.position[1] + p.position[2] * p.position[2];
        if (r2 > 0.7f) {
            const float pull = 1.f - 0.5f * dt * (r2 - 0.7f);
            for (int a = 0; a < 3; ++a) p.position[a] *= pull;
        }
    }
}

Status PointCloudScene::update(double time) {
    // Frame-rate independent up to 10 Hz; a stall does not fling the cloud.
    stepDt_ = float(std::clamp(time - lastTime_, 0.0, 0.1));
    stepTime_ = float(lastTime_);
    lastTime_ = time;
    surface_->setIsoValue(settings_.iso);
    return {};
}

Status PointCloudScene::addPasses(RenderGraph& graph) {
    // The splat (the particles' last use in a frame) reads them; the next
    // frame's flow pass writes after it, so that read is the import's
    // before and after.
    const ExternalUse splatRead{Access::StorageRead, PassKind::Compute};
    const BufferRef particles = graph.importBuffer("pointcloud.particles", particles_, splatRead, splatRead);
    graph.addPass("pointcloud.flow", PassKind::Compute)
        .pipeline(flow_)
        .storage(0, particles, Access::StorageReadWrite, 0, VkDeviceSize(settings_.particles) * sizeof(iso::Particle))
        .record([this](PassContext& ctx) {
            const uint32_t groups = (settings_.particles + gpu::kFlowGroupSize - 1) / gpu::kFlowGroupSize;
            const uint32_t maxX = device_->limits().maxComputeWorkGroupCount[0];
            gpu::FlowPush pc{stepTime_, stepDt_, settings_.particles, std::min(groups, maxX)};
            ctx.pushConstants(pc);
            ctx.dispatch(pc.groupsX, (groups + pc.groupsX - 1) / pc.groupsX, 1);
        });
    iso::IsoSurface::GraphInputs in;
    in.particles = particles;
    return surface_->addPasses(graph, in).status();
}

void PointCloudScene::ui(SceneConfig& config) {
    ImGui::Text("%u particles (moved on the GPU)", settings_.particles);
    if (ImGui::SliderFloat("iso value", &settings_.iso, 0.05f, 2.f)) config.iso = settings_.iso;
}

// ---- volume ----

Result<std::unique_ptr<VolumeScene>> VolumeScene::create(Device& device, const Settings& settings, const void* data,
                                                         size_t bytes, iso::VolumeFormat format, float scale,
                                                         float offset) {
    std::unique_ptr<VolumeScene> s(new VolumeScene());
    iso::IsoSurfaceCreateInfo info;
    info.samples = settings.samples;
    info.boundsMin = settings.boundsMin;
    info.boundsMax = settings.boundsMax;
    info.vertexCapacity = settings.vertexCapacity;
    info.normals = settings.normals;
    info.source = iso::FieldSource::Volume;
    info.isoValue = settings.iso;
    info.name = "volume";
    PYRAMARCH_TRY_ASSIGN(s->surface_, makeSurface(device, info, settings.indexed));
    PYRAMARCH_TRY(s->surface_->uploadVolume(data, bytes, format, scale, offset));
    s->iso_ = settings.iso;
    s->twoSided_ = settings.twoSided;
    s->indexed_ = settings.indexed;
    // The bounds' half diagonal, a little tighter: surfaces rarely fill the corners.
    float d2 = 0.f;
    for (int a = 0; a < 3; ++a)
        d2 += 0.25f * (settings.boundsMax[a] - settings.boundsMin[a]) * (settings.boundsMax[a] - settings.boundsMin[a]);
    s->radius_ = 0.8f * std::sqrt(d2);
    const size_t count = bytes / iso::volumeFormatBytes(format);
    auto r = iso::volumeRange(data, count, format);
    s->range_ = {r[0] * scale + offset, r[1] * scale + offset};
    if (s->range_[0] > s->range_[1]) std::swap(s->range_[0], s->range_[1]);
    return s;
}

Status VolumeScene::update(double) {
    surface_->setIsoValue(iso_);
    return {};
}

void VolumeScene::ui(SceneConfig& config) {
    if (ImGui::SliderFloat("iso value", &iso_, range_[0], range_[1])) config.iso = iso_;
}

// ---- fields and files ----

bool isAnalyticField(const std::string& name) { return name == "cayley" || name == "sphere" || name == "gyroid"; }

const char* analyticFieldGlsl(const std::string& name) {
    if (name == "cayley")
        return "float field(vec3 p) { return 16.0 * p.x * p.y * p.z + 4.0 * (p.x + p.y + p.z) - 1.0; }\n";
    if (name == "sphere") return "float field(vec3 p) { return 0.8 - length(p); }\n";
    return "float field(vec3 p) { const float k = 6.28318530718; return sin(k * p.x) * cos(k * p.y) + sin(k * p.y) * "
           "cos(k * p.z) + sin(k * p.z) * cos(k * p.x); }\n";
}

float analyticFieldLipschitz(const std::string& name, const std::array<float, 3>& min,
                             const std::array<float, 3>& max) {
    if (name == "sphere") return 1.f;
    if (name == "cayley") {
        float m = 0.f;
        for (int a = 0; a < 3; ++a) m = std::max({m, std::fabs(min[a]), std::fabs(max[a])});
        return 1.0001f * std::sqrt(3.f) * (16.f * m * m + 4.f); // [-1, 1]^3: 34.645
    }
    return 1.0001f * 2.f * kPi * std::sqrt(6.f); // 15.393
}

std::vector<float> sampleAnalyticField(const std::string& name, const std::array<uint32_t, 3>& n,
                                       const std::array<float, 3>& bmin, const std::array<float, 3>& bmax) {
    std::vector<float> out(size_t(n[0]) * n[1] * n[2]);
    size_t i = 0;
    for (uint32_t z = 0; z < n[2]; ++z)
        for (uint32_t y = 0; y < n[1]; ++y)
            for (uint32_t x = 0; x < n[0]; ++x, ++i) {
                // Same sample placement as the module: min + i * (max - min) / (N - 1).
                const float px = bmin[0] + float(x) * ((bmax[0] - bmin[0]) / float(n[0] - 1));
                const float py = bmin[1] + float(y) * ((bmax[1] - bmin[1]) / float(n[1] - 1));
                const float pz = bmin[2] + float(z) * ((bmax[2] - bmin[2]) / float(n[2] - 1));
                float v = 0.f;
                if (name == "cayley")
                    v = 16.f * px * py * pz + 4.f * (px + py + pz) - 1.f;
                else if (name == "sphere")
                    v = 0.8f - std::sqrt(px * px + py * py + pz * pz);
                else {
                    const float k = 2.f * kPi;
                    v = std::sin(k * px) * std::cos(k * py) + std::sin(k * py) * std::cos(k * pz) +
                        std::sin(k * pz) * std::cos(k * px);
                }
                out[i] = v;
            }
    return out;
}

pyramarch::GlslCompiler glslCompiler() {
#ifdef PYRAMARCH_HAVE_SHADER_COMPILER
    return pyramarch::compileGlsl;
#else
    return {};
#endif
}

} // namespace sample

namespace sample {

const char* normalModeName(iso::NormalMode mode) {
    switch (mode) {
    case iso::NormalMode::Forward: return "forward";
    case iso::NormalMode::Central: return "central";
    case iso::NormalMode::Sobel: return "sobel";
    case iso::NormalMode::None: return "none";
    }
    return "?";
}

Result<std::unique_ptr<Scene>> makeScene(Device& device, const SceneConfig& c) {
    if (c.source == "metaballs") {
        MetaballSettings s;
        s.cells = c.cells;
        s.balls = c.balls;
        s.normals = c.normals;
        s.indexed = c.indexed;
        if (!std::isnan(c.iso)) s.iso = c.iso;
        auto r = MetaballScene::create(device, s);
        if (!r) return r.status();
        return std::unique_ptr<Scene>(std::move(r).value());
    }
    if (c.source == "pointcloud") {
        PointCloudSettings s;
        s.cells = c.cells;
        s.particles = c.particles;
        s.anisotropic = c.anisotropic;
        s.indexed = c.indexed;
        if (!std::isnan(c.iso)) s.iso = c.iso;
        auto r = PointCloudScene::create(device, s);
        if (!r) return r.status();
        return std::unique_ptr<Scene>(std::move(r).value());
    }
    VolumeScene::Settings vs;
    vs.normals = c.normals;
    vs.indexed = c.indexed;
    if (c.source == "volume") {
        if (!c.volume) return Status::error(ErrorCode::InvalidArgument, "the volume source needs a raw volume (--raw)");
        vs.samples = c.volumeDims;
        // Fit the longest axis into [-1, 1], keep the aspect ratio.
        const float longest = float(std::max({c.volumeDims[0], c.volumeDims[1], c.volumeDims[2]}) - 1);
        for (int a = 0; a < 3; ++a) {
            const float half = float(c.volumeDims[a] - 1) / longest;
            vs.boundsMin[a] = -half;
            vs.boundsMax[a] = half;
        }
        const auto range = iso::volumeRange(c.volume->data(), c.volume->size() / iso::volumeFormatBytes(c.volumeFormat),
                                            c.volumeFormat);
        vs.iso = std::isnan(c.iso) ? 0.5f * (range[0] + range[1]) : c.iso;
        auto r = VolumeScene::create(device, vs, c.volume->data(), c.volume->size(), c.volumeFormat);
        if (!r) return r.status();
        return std::unique_ptr<Scene>(std::move(r).value());
    }
    if (!isAnalyticField(c.source))
        return Status::error(ErrorCode::InvalidArgument, "unknown field source '" + c.source + "'");
    vs.samples = {c.cells + 1, c.cells + 1, c.cells + 1};
    vs.iso = std::isnan(c.iso) ? 0.f : c.iso;
    const auto values = sampleAnalyticField(c.source, vs.samples, vs.boundsMin, vs.boundsMax);
    auto r = VolumeScene::create(device, vs, values.data(), values.size() * sizeof(float), iso::VolumeFormat::F32);
    if (!r) return r.status();
    return std::unique_ptr<Scene>(std::move(r).value());
}

} // namespace sample
