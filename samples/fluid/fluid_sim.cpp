#include "fluid_sim.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include <imgui.h>

#include "pyramarch/engine/transfer.h"
#include "pyramarch/engine/vulkan_functions.h"
#include "pyramarch/isosurface/particle_grid.h"
#include "pyramarch/voxelizer/shapes.h"
#include "pyramarch/voxelizer/voxelizer.h"
#include "fluid/fluid_shared.h"
#include "sample/mesh_files.h"

namespace {
const uint32_t kPredictSpv[] =
#include "shaders/fluid/predict.comp.spv.inc"
    ;
const uint32_t kScanSpv[] =
#include "shaders/fluid/scan.comp.spv.inc"
    ;
const uint32_t kScanAddSpv[] =
#include "shaders/fluid/scan_add.comp.spv.inc"
    ;
const uint32_t kScatterSpv[] =
#include "shaders/fluid/scatter.comp.spv.inc"
    ;
const uint32_t kReorderSpv[] =
#include "shaders/fluid/reorder.comp.spv.inc"
    ;
const uint32_t kNeighboursSpv[] =
#include "shaders/fluid/neighbours_build.comp.spv.inc"
    ;
const uint32_t kLambdaSpv[] =
#include "shaders/fluid/lambda.comp.spv.inc"
    ;
const uint32_t kDeltaSpv[] =
#include "shaders/fluid/delta.comp.spv.inc"
    ;
const uint32_t kVelocitySpv[] =
#include "shaders/fluid/velocity.comp.spv.inc"
    ;
const uint32_t kFinishSpv[] =
#include "shaders/fluid/finish.comp.spv.inc"
    ;
} // namespace

namespace fluid {

using namespace pyramarch;
using gpu::FluidPush;

namespace {
constexpr double kPi = 3.14159265358979323846;

bool finiteIn(float v, float lo, float hi) { return std::isfinite(v) && v >= lo && v <= hi; }
std::string num(float v) { return std::to_string(v); }
} // namespace

Result<FluidParams> deriveParams(const FluidSettings& s) {
    if (s.particles == 0) return Status::error(ErrorCode::InvalidArgument, "fluid: particle count must be > 0");
    if (s.particles > kMaxParticles)
        return Status::error(ErrorCode::InvalidArgument, "fluid: particle count " + std::to_string(s.particles) +
                                                             " exceeds " + std::to_string(kMaxParticles));
    if (s.iterations < 1 || s.iterations > kMaxIterations)
        return Status::error(ErrorCode::InvalidArgument, "fluid: solver iterations must be 1.." +
                                                             std::to_string(kMaxIterations) + ", got " +
                                                             std::to_string(s.iterations));
    if (s.stepsPerFrame < 1 || s.stepsPerFrame > kMaxStepsPerFrame)
        return Status::error(ErrorCode::InvalidArgument, "fluid: steps per frame must be 1.." +
                                                             std::to_string(kMaxStepsPerFrame) + ", got " +
                                                             std::to_string(s.stepsPerFrame));
    if (!finiteIn(s.dt, 1e-5f, 0.1f))
        return Status::error(ErrorCode::InvalidArgument, "fluid: dt must be in [1e-5, 0.1] s, got " + num(s.dt));
    if (!finiteIn(s.gravity, -100.f, 100.f))
        return Status::error(ErrorCode::InvalidArgument,
                             "fluid: gravity must be in [-100, 100], got " + num(s.gravity));
    if (!finiteIn(s.relaxation, 1e-6f, 100.f))
        return Status::error(ErrorCode::InvalidArgument,
                             "fluid: relaxation must be in [1e-6, 100], got " + num(s.relaxation));
    if (!finiteIn(s.scorrK, 0.f, 1.f))
        return Status::error(ErrorCode::InvalidArgument, "fluid: s_corr k must be in [0, 1], got " + num(s.scorrK));
    if (!finiteIn(s.scorrDq, 0.01f, 0.9f))
        return Status::error(ErrorCode::InvalidArgument,
                             "fluid: s_corr dq must be in [0.01, 0.9] h, got " + num(s.scorrDq));
    if (!finiteIn(s.xsph, 0.f, 1.f))
        return Status::error(ErrorCode::InvalidArgument, "fluid: XSPH c must be in [0, 1], got " + num(s.xsph));
    if (!finiteIn(s.cfl, 0.05f, 10.f))
        return Status::error(ErrorCode::InvalidArgument,
                             "fluid: speed limit (cfl) must be in [0.05, 10] kernel radii per step, got " + num(s.cfl));
    if (!finiteIn(s.voxelSize, 0.25f, 8.f))
        return Status::error(ErrorCode::InvalidArgument,
                             "fluid: voxel size must be in [0.25, 8] particle spacings, got " + num(s.voxelSize));
    if (!finiteIn(s.threshold, 0.01f, 2.f))
        return Status::error(ErrorCode::InvalidArgument,
                             "fluid: threshold must be in [0.01, 2] (fraction of the rest density), got " +
                                 num(s.threshold));
    if (!finiteIn(s.smoothing, 0.f, 1.f))
        return Status::error(ErrorCode::InvalidArgument,
                             "fluid: particle smoothing must be in [0, 1], got " + num(s.smoothing));
    if (s.colliderResolution < kMinColliderResolution || s.colliderResolution > kMaxColliderResolution)
        return Status::error(ErrorCode::InvalidArgument, "fluid: collider resolution must be " +
                                                             std::to_string(kMinColliderResolution) + ".." +
                                                             std::to_string(kMaxColliderResolution) + ", got " +
                                                             std::to_string(s.colliderResolution));
    if (!s.collider.positions.empty()) {
        for (const auto& v : s.collider.positions)
            for (int a = 0; a < 3; ++a)
                if (!std::isfinite(v[a]) || v[a] < kBoxMin[a] || v[a] > kBoxMax[a])
                    return Status::error(ErrorCode::InvalidArgument,
                                         "fluid: the collider mesh must lie inside the box (a vertex at " + num(v[0]) +
                                             ", " + num(v[1]) + ", " + num(v[2]) + "); placeCollider puts one there");
    }

    FluidParams p;
    p.particles = s.particles;
    p.iterations = s.iterations;
    // The start block holds the particles on a cubic lattice of spacing d:
    // d from the block's volume, then whole particles per axis in x and z
    // and as many layers as needed in y (the top one may be partial).
    const float ext[3] = {kBlockMax[0] - kBoxMin[0], kBlockMax[1] - kBoxMin[1], kBlockMax[2] - kBoxMin[2]};
    const double d = std::cbrt(double(ext[0]) * ext[1] * ext[2] / s.particles);
    p.lattice[0] = std::max(1u, uint32_t(std::lround(ext[0] / d)));
    p.lattice[2] = std::max(1u, uint32_t(std::lround(ext[2] / d)));
    p.lattice[1] = (s.particles + p.lattice[0] * p.lattice[2] - 1) / (p.lattice[0] * p.lattice[2]);
    p.spacing = float(d);
    if (p.lattice[1] * d > double(kBoxMax[1] - kBoxMin[1]))
        return Status::error(ErrorCode::InvalidArgument, "fluid: the start block does not fit the box");
    // h = 2 d: about 33 neighbours at rest, the usual PBF/SPH choice.
    p.h = 2.f * p.spacing;
    uint64_t cells = 1;
    for (int a = 0; a < 3; ++a) {
        p.grid[a] = std::max(1u, uint32_t(std::ceil((kBoxMax[a] - kBoxMin[a]) / p.h)));
        cells *= p.grid[a];
    }
    // Two scan levels of kScanBlock values each (cells + 1 counts).
    if (cells + 1 > uint64_t(gpu::kScanBlock) * gpu::kScanBlock)
        return Status::error(ErrorCode::InvalidArgument,
                             "fluid: " + std::to_string(cells) + " grid cells exceed the scan's " +
                                 std::to_string(uint64_t(gpu::kScanBlock) * gpu::kScanBlock - 1));
    p.cells = uint32_t(cells);
    p.dt = s.dt;
    p.gravity = s.gravity;
    const double h = p.h;
    p.poly6 = float(315.0 / (64.0 * kPi * std::pow(h, 9)));
    p.spiky = float(45.0 / (kPi * std::pow(h, 6)));
    // Rest density and the lambda denominator of a particle of the rest
    // lattice (unit masses): rho0 makes the start block exactly at rest;
    // epsilon is relative to the denominator so that it means the same for
    // any particle count.
    double rho = 0.0, grad2 = 0.0;
    const int reach = int(std::ceil(h / d));
    for (int z = -reach; z <= reach; ++z)
        for (int y = -reach; y <= reach; ++y)
            for (int x = -reach; x <= reach; ++x) {
                const double r2 = (x * x + y * y + z * z) * d * d;
                if (r2 >= h * h) continue;
                rho += 315.0 / (64.0 * kPi * std::pow(h, 9)) * std::pow(h * h - r2, 3);
                if (r2 > 0) {
                    const double r = std::sqrt(r2), g = 45.0 / (kPi * std::pow(h, 6)) * (h - r) * (h - r);
                    grad2 += g * g;
                }
            }
    p.restDensity = float(rho);
    p.epsilon = float(s.relaxation * grad2 / (rho * rho));
    // lambda (and s_corr next to it in dp) has units of length^2 (C over
    // |grad C|^2, grad in 1 / length): the paper's k = 0.1 is for h = 1, so
    // k scales with h^2. Unscaled, at h = 0.04 it pushes surface particles
    // by about h per neighbour and iteration and the block explodes.
    p.scorrK = float(s.scorrK * h * h);
    const double dq2 = double(s.scorrDq) * s.scorrDq * h * h;
    p.invWdq = float(1.0 / (315.0 / (64.0 * kPi * std::pow(h, 9)) * std::pow(h * h - dq2, 3)));
    p.xsph = s.xsph;
    p.maxSpeed = s.cfl * p.h / p.dt;
    return p;
}

FluidState initialState(const FluidParams& p) {
    FluidState s;
    s.positions.resize(p.particles);
    s.velocities.resize(p.particles);
    const uint32_t layer = p.lattice[0] * p.lattice[2];
    for (uint32_t i = 0; i < p.particles; ++i) {
        const uint32_t x = i % p.lattice[0], z = (i % layer) / p.lattice[0], y = i / layer;
        s.positions[i] = {kBoxMin[0] + (float(x) + 0.5f) * p.spacing, kBoxMin[1] + (float(y) + 0.5f) * p.spacing,
                          kBoxMin[2] + (float(z) + 0.5f) * p.spacing, 1.f};
        float id;
        std::memcpy(&id, &i, 4);
        s.velocities[i] = {0.f, 0.f, 0.f, id};
    }
    return s;
}

uint32_t particleId(const std::array<float, 4>& velocity) {
    uint32_t id;
    std::memcpy(&id, &velocity[3], 4);
    return id;
}

// ---- the collider ----

bool ColliderGrid::solidAt(const std::array<float, 3>& p) const {
    int c[3];
    for (int a = 0; a < 3; ++a) {
        const float f = std::floor((p[a] - origin[a]) / voxel);
        if (!(f >= 0.f && f < float(dims[a]))) return false;
        c[a] = int(f);
    }
    return solid[(size_t(c[2]) * dims[1] + size_t(c[1])) * dims[0] + size_t(c[0])] > 0.5f;
}

voxel::VoxelGrid colliderVoxelGrid(uint32_t resolution) {
    voxel::VoxelGrid g;
    const float v = (kBoxMax[0] - kBoxMin[0]) / float(resolution);
    for (int a = 0; a < 3; ++a) {
        g.origin[a] = kBoxMin[a];
        g.voxelSize[a] = v;
        g.dims[a] = a == 0 ? resolution : std::max(1u, uint32_t(std::ceil((kBoxMax[a] - kBoxMin[a]) / v - 1e-4f)));
    }
    return g;
}

// Mirrors collider.glsl operation for operation.
std::array<float, 3> collidePoint(const ColliderGrid& grid, std::array<float, 3> p) {
    constexpr float kSkin = 1.f / 64.f;
    float g[3];
    int c[3];
    const int dims[3] = {int(grid.dims[0]), int(grid.dims[1]), int(grid.dims[2])};
    for (int a = 0; a < 3; ++a) {
        g[a] = (p[a] - grid.origin[a]) / grid.voxel;
        const float f = std::floor(g[a]);
        if (!(f >= 0.f && f < float(dims[a]))) return p;
        c[a] = int(f);
    }
    auto solidVoxel = [&](const int q[3]) {
        return grid.solid[(size_t(q[2]) * grid.dims[1] + size_t(q[1])) * grid.dims[0] + size_t(q[0])] > 0.5f;
    };
    if (!solidVoxel(c)) return p;
    float best = 3.0e38f;
    int bestAxis = -1;
    float bestCoord = 0.f;
    for (int d = 0; d < 6; ++d) {
        const int axis = d < 2 ? 1 : d < 4 ? 0 : 2;
        const int s = (d & 1) == 0 ? 1 : -1;
        int q[3] = {c[0], c[1], c[2]};
        for (int k = 1; k <= dims[axis]; ++k) {
            q[axis] = c[axis] + s * k;
            if (q[axis] < 0 || q[axis] >= dims[axis]) break;
            if (!solidVoxel(q)) {
                const float face = s > 0 ? float(q[axis]) : float(q[axis] + 1);
                const float dist = std::fabs(face - g[axis]);
                if (dist < best) {
                    best = dist;
                    bestAxis = axis;
                    bestCoord = face + float(s) * kSkin;
                }
                break;
            }
        }
    }
    if (bestAxis < 0) return p;
    p[bestAxis] = grid.origin[bestAxis] + bestCoord * grid.voxel;
    return p;
}

voxel::TriangleMesh placeCollider(voxel::TriangleMesh mesh, float size, float x, float z) {
    std::array<float, 3> lo{INFINITY, INFINITY, INFINITY}, hi{-INFINITY, -INFINITY, -INFINITY};
    for (const auto& v : mesh.positions)
        for (int a = 0; a < 3; ++a) {
            if (!std::isfinite(v[a])) continue;
            lo[a] = std::min(lo[a], v[a]);
            hi[a] = std::max(hi[a], v[a]);
        }
    const float longest = std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]});
    if (!(longest > 0.f) || !std::isfinite(longest)) return mesh;
    const float k = size / longest;
    const std::array<float, 3> target{x, kBoxMin[1] + 0.5f * k * (hi[1] - lo[1]), z};
    for (auto& v : mesh.positions)
        for (int a = 0; a < 3; ++a) v[a] = target[a] + k * (v[a] - 0.5f * (lo[a] + hi[a]));
    // Rounding may put the lowest vertex a hair below the floor.
    for (auto& v : mesh.positions) v[1] = std::max(v[1], kBoxMin[1]);
    return mesh;
}

Result<voxel::TriangleMesh> loadCollider(const std::string& nameOrPath) {
    voxel::TriangleMesh mesh = nameOrPath == "bunny" ? bunnyMesh() : voxel::shapes::byName(nameOrPath);
    if (mesh.indices.empty()) {
        auto file = sample::loadMeshFile(nameOrPath);
        if (!file) return Status::error(file.code(), "fluid: collider: " + file.message());
        mesh = std::move(file).value();
    }
    if (mesh.indices.empty())
        return Status::error(ErrorCode::InvalidArgument, "fluid: collider '" + nameOrPath + "' has no triangles");
    return placeCollider(std::move(mesh));
}

// ---- CPU reference (mirrors shaders/fluid/*.comp) ----

namespace {
struct Vec3 {
    float x, y, z;
};
Vec3 sub(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
float dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
Vec3 xyz(const std::array<float, 4>& v) { return {v[0], v[1], v[2]}; }

Vec3 clampToBox(Vec3 p) {
    return {std::clamp(p.x, kBoxMin[0], kBoxMax[0]), std::clamp(p.y, kBoxMin[1], kBoxMax[1]),
            std::clamp(p.z, kBoxMin[2], kBoxMax[2])};
}
Vec3 collide(const ColliderGrid* grid, Vec3 p) {
    if (!grid) return p;
    const std::array<float, 3> q = collidePoint(*grid, {p.x, p.y, p.z});
    return {q[0], q[1], q[2]};
}
uint32_t cellOf(const FluidParams& p, Vec3 v) {
    const float q[3] = {v.x, v.y, v.z};
    int c[3];
    for (int a = 0; a < 3; ++a) {
        const float f = std::floor((q[a] - kBoxMin[a]) / p.h);
        c[a] = std::isfinite(f) ? std::clamp(int(std::clamp(f, -1.f, float(p.grid[a]))), 0, int(p.grid[a]) - 1) : 0;
    }
    return (uint32_t(c[2]) * p.grid[1] + uint32_t(c[1])) * p.grid[0] + uint32_t(c[0]);
}
float poly6(const FluidParams& p, float r2) {
    const float h2 = p.h * p.h;
    if (r2 >= h2) return 0.f;
    const float d = h2 - r2;
    return p.poly6 * d * d * d;
}
Vec3 spikyGrad(const FluidParams& p, Vec3 d, float r2) {
    if (r2 >= p.h * p.h || r2 <= 0.f) return {0, 0, 0};
    const float r = std::sqrt(r2);
    const float k = p.h - r;
    const float s = -p.spiky * k * k / r;
    return {s * d.x, s * d.y, s * d.z};
}

// The neighbour loop of neighbours.glsl: the 27 cells around `cell`, z, y,
// x ascending, each row of cells as one contiguous run of sorted particles.
template <class F>
void forNeighbours(const FluidParams& p, const std::vector<uint32_t>& start, uint32_t cell, F&& f) {
    const int cx = int(cell % p.grid[0]), cy = int((cell / p.grid[0]) % p.grid[1]),
              cz = int(cell / (p.grid[0] * p.grid[1]));
    const int lo[3] = {std::max(cx - 1, 0), std::max(cy - 1, 0), std::max(cz - 1, 0)};
    const int hi[3] = {std::min(cx + 1, int(p.grid[0]) - 1), std::min(cy + 1, int(p.grid[1]) - 1),
                       std::min(cz + 1, int(p.grid[2]) - 1)};
    for (int z = lo[2]; z <= hi[2]; ++z)
        for (int y = lo[1]; y <= hi[1]; ++y) {
            const uint32_t row = (uint32_t(z) * p.grid[1] + uint32_t(y)) * p.grid[0];
            for (uint32_t j = start[row + uint32_t(lo[0])]; j < start[row + uint32_t(hi[0]) + 1]; ++j) f(j);
        }
}
} // namespace

void stepCpu(const FluidParams& p, FluidState& state, std::vector<float>* constraint, const ColliderGrid* collider) {
    const uint32_t n = p.particles;
    // predict + count
    std::vector<Vec3> predicted(n);
    std::vector<uint32_t> cellOfParticle(n), start(p.cells + 1, 0);
    for (uint32_t i = 0; i < n; ++i) {
        Vec3 v = xyz(state.velocities[i]);
        v.y -= p.gravity * p.dt;
        const Vec3 x = xyz(state.positions[i]);
        predicted[i] = collide(collider, clampToBox({x.x + p.dt * v.x, x.y + p.dt * v.y, x.z + p.dt * v.z}));
        cellOfParticle[i] = cellOf(p, predicted[i]);
        ++start[cellOfParticle[i]];
    }
    uint32_t sum = 0;
    for (uint32_t& c : start) {
        const uint32_t count = c;
        c = sum;
        sum += count;
    }
    // The GPU's sorted order: by cell, then by particle index.
    std::vector<uint32_t> sorted(n), cursor(start.begin(), start.end() - 1), sortedCell(n);
    for (uint32_t i = 0; i < n; ++i) sorted[cursor[cellOfParticle[i]]++] = i;
    std::vector<Vec3> pos(n), next(n), old(n);
    std::vector<float> oldId(n);
    for (uint32_t k = 0; k < n; ++k) {
        const uint32_t i = sorted[k];
        pos[k] = predicted[i];
        old[k] = xyz(state.positions[i]);
        oldId[k] = state.velocities[i][3];
        sortedCell[k] = cellOfParticle[i];
    }
    // Neighbour lists from the sorted predicted positions (neighbours_build.comp).
    const uint32_t K = gpu::kMaxNeighbours;
    std::vector<uint32_t> list(size_t(n) * K), count(n, 0);
    for (uint32_t i = 0; i < n; ++i)
        forNeighbours(p, start, sortedCell[i], [&](uint32_t j) {
            if (j == i || count[i] >= K) return;
            const Vec3 d = sub(pos[i], pos[j]);
            if (dot(d, d) < p.h * p.h) list[size_t(i) * K + count[i]++] = j;
        });
    auto forList = [&](uint32_t i, auto&& f) {
        for (uint32_t k = 0; k < count[i]; ++k) f(list[size_t(i) * K + k]);
    };
    std::vector<float> lambda(n), c(n);
    const float invRest = 1.f / p.restDensity; // the push constant the GPU multiplies by
    for (uint32_t it = 0; it < p.iterations; ++it) {
        for (uint32_t i = 0; i < n; ++i) {
            float rho = poly6(p, 0.f), sumGrad2 = 0.f;
            Vec3 gradI{0, 0, 0};
            forList(i, [&](uint32_t j) {
                const Vec3 d = sub(pos[i], pos[j]);
                const float r2 = dot(d, d);
                rho += poly6(p, r2);
                Vec3 g = spikyGrad(p, d, r2);
                g = {invRest * g.x, invRest * g.y, invRest * g.z};
                gradI = {gradI.x + g.x, gradI.y + g.y, gradI.z + g.z};
                sumGrad2 += dot(g, g);
            });
            c[i] = rho * invRest - 1.f;
            lambda[i] = -std::max(c[i], 0.f) / (sumGrad2 + dot(gradI, gradI) + p.epsilon);
        }
        for (uint32_t i = 0; i < n; ++i) {
            Vec3 dp{0, 0, 0};
            forList(i, [&](uint32_t j) {
                const Vec3 d = sub(pos[i], pos[j]);
                const float r2 = dot(d, d);
                const float w = poly6(p, r2) * p.invWdq;
                const float w2 = w * w;
                const float s = lambda[i] + lambda[j] - p.scorrK * (w2 * w2);
                const Vec3 g = spikyGrad(p, d, r2);
                dp = {dp.x + s * g.x, dp.y + s * g.y, dp.z + s * g.z};
            });
            next[i] =
                collide(collider,
                        clampToBox({pos[i].x + invRest * dp.x, pos[i].y + invRest * dp.y, pos[i].z + invRest * dp.z}));
        }
        std::swap(pos, next);
    }
    std::vector<Vec3> vel(n);
    for (uint32_t i = 0; i < n; ++i) {
        const Vec3 d = sub(pos[i], old[i]);
        vel[i] = {d.x / p.dt, d.y / p.dt, d.z / p.dt};
    }
    for (uint32_t i = 0; i < n; ++i) {
        Vec3 v = vel[i];
        if (p.xsph > 0.f) {
            Vec3 s{0, 0, 0};
            forList(i, [&](uint32_t j) {
                const Vec3 d = sub(pos[i], pos[j]);
                const float w = poly6(p, dot(d, d));
                s = {s.x + (vel[j].x - vel[i].x) * w, s.y + (vel[j].y - vel[i].y) * w, s.z + (vel[j].z - vel[i].z) * w};
            });
            const float f = p.xsph * (1.f / p.restDensity);
            v = {v.x + f * s.x, v.y + f * s.y, v.z + f * s.z};
        }
        const float speed = std::sqrt(dot(v, v));
        if (speed > p.maxSpeed) {
            const float f = p.maxSpeed / speed;
            v = {v.x * f, v.y * f, v.z * f};
        }
        state.positions[i] = {pos[i].x, pos[i].y, pos[i].z, 1.f};
        state.velocities[i] = {v.x, v.y, v.z, oldId[i]};
    }
    if (constraint) *constraint = c;
}

// ---- the GPU scene ----

struct FluidScene::Pipelines {
    ComputePipeline predict, scan, scanAdd, scatter, reorder, neighbours, lambda, delta, velocity, finish;
};

FluidScene::~FluidScene() { surface_.reset(); }

namespace {
Result<ComputePipeline> makePipeline(Device& device, std::span<const uint32_t> spirv, const char* name,
                                     uint32_t bindings) {
    ComputePipelineDesc d;
    d.spirv = spirv;
    d.name = name;
    d.layout.bindings.assign(bindings, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
    d.layout.pushConstantBytes = sizeof(FluidPush);
    auto p = ComputePipeline::create(device, d);
    if (!p) return Status::error(p.code(), std::string("fluid: pipeline ") + name + ": " + p.message());
    return p;
}
} // namespace

Result<std::unique_ptr<FluidScene>> FluidScene::create(Device& device, const FluidSettings& settings) {
    PYRAMARCH_TRY_ASSIGN(FluidParams params, deriveParams(settings));
    std::unique_ptr<FluidScene> s(new FluidScene());
    s->settings_ = settings;
    s->settings_.indexed = settings.indexed || settings.meshSmoothing > 0; // the draw follows the surface
    s->params_ = params;
    s->device_ = &device;
    const uint32_t n = params.particles;
    const VkDeviceSize vec4s = VkDeviceSize(n) * 16;
    // Every per-particle array is at most 16 bytes a particle: checking the
    // largest against the descriptor range covers them all.
    if (vec4s > device.limits().maxStorageBufferRange)
        return Status::error(ErrorCode::DeviceLimit,
                             "fluid: " + std::to_string(n) + " particles need " + std::to_string(vec4s) +
                                 " bytes per buffer, more than the device's maxStorageBufferRange " +
                                 std::to_string(device.limits().maxStorageBufferRange));
    const VkDeviceSize listBytes = VkDeviceSize(n) * gpu::kMaxNeighbours * 4;
    if (listBytes > device.limits().maxStorageBufferRange)
        return Status::error(ErrorCode::DeviceLimit,
                             "fluid: " + std::to_string(n) + " particles need " + std::to_string(listBytes) +
                                 " bytes of neighbour lists (" + std::to_string(gpu::kMaxNeighbours) +
                                 " per particle), more than the device's maxStorageBufferRange " +
                                 std::to_string(device.limits().maxStorageBufferRange) + "; at most " +
                                 std::to_string(device.limits().maxStorageBufferRange / (gpu::kMaxNeighbours * 4)) +
                                 " particles here");
    const uint32_t blocks = (params.cells + 1 + gpu::kScanBlock - 1) / gpu::kScanBlock;
    struct Item {
        Buffer* buffer;
        VkDeviceSize bytes;
        const char* name;
        VkBufferUsageFlags extra;
    };
    const VkBufferUsageFlags xfer = VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    const Item items[] = {
        {&s->particles_, vec4s, "pbf.particles", xfer},
        {&s->velocity_, vec4s, "pbf.velocity", xfer},
        {&s->predicted_, vec4s, "pbf.predicted", 0},
        {&s->cellRank_, VkDeviceSize(n) * 8, "pbf.cellRank", 0},
        {&s->cellStart_, VkDeviceSize(params.cells + 1) * 4, "pbf.cellStart", xfer},
        {&s->blockSums_, VkDeviceSize(blocks) * 4, "pbf.blockSums", 0},
        {&s->scanTotal_, 16, "pbf.scanTotal", 0},
        {&s->sortedIndex_, VkDeviceSize(n) * 4, "pbf.sortedIndex", 0},
        {&s->sortedCell_, VkDeviceSize(n) * 4, "pbf.sortedCell", 0},
        {&s->neighbourList_, listBytes, "pbf.neighbourList", 0},
        {&s->neighbourCount_, VkDeviceSize(n) * 4, "pbf.neighbourCount", 0},
        {&s->positionA_, vec4s, "pbf.positionA", 0},
        {&s->positionB_, vec4s, "pbf.positionB", 0},
        {&s->old_, vec4s, "pbf.old", 0},
        {&s->lambda_, VkDeviceSize(n) * 8, "pbf.lambda", xfer},
        {&s->velocityNew_, vec4s, "pbf.velocityNew", 0},
    };
    for (const Item& it : items) {
        auto b = device.allocator().createBuffer({.size = it.bytes,
                                                  .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | it.extra,
                                                  .memory = MemoryUsage::DeviceLocal,
                                                  .name = it.name});
        if (!b) return Status::error(b.code(), std::string("fluid: buffer ") + it.name + ": " + b.message());
        *it.buffer = std::move(b).value();
    }
    // The collider: the mesh voxelized solid every frame in the simulation's
    // graph (its dense grid is what predict and delta read).
    s->colliderGrid_ = colliderVoxelGrid(settings.colliderResolution);
    if (!settings.collider.indices.empty()) {
        const voxel::VoxelGrid& g = s->colliderGrid_;
        const uint64_t range = device.limits().maxStorageBufferRange;
        voxel::VoxelizerCreateInfo vci;
        vci.maxResolution = g.maxDim();
        vci.maxVertices = uint32_t(std::max<size_t>(1, settings.collider.vertexCount()));
        vci.maxTriangles = uint32_t(std::max<size_t>(1, settings.collider.triangleCount()));
        // Interior voxels are fragments too: room for every voxel of the
        // grid and a few surface fragments per triangle.
        vci.fragmentCapacity = uint32_t(
            std::min<uint64_t>(range / 16, g.voxelCount() + 4 * uint64_t(settings.collider.triangleCount()) + 4096));
        vci.tileCapacity = std::min<uint32_t>(voxel::maxTileCapacity(range), uint32_t(g.voxelCount() / 4 + 1024));
        vci.denseMaxVoxels = g.voxelCount();
        vci.solid = true;
        auto v = voxel::Voxelizer::create(device, vci);
        if (!v) return Status::error(v.code(), "fluid: collider: " + v.message());
        s->collider_ = std::move(v).value();
        Status staged = s->collider_->setMesh(settings.collider, g);
        if (!staged) return Status::error(staged.code(), "fluid: collider: " + staged.message());
    } else {
        auto b = device.allocator().createBuffer({.size = 16,
                                                  .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                                  .memory = MemoryUsage::DeviceLocal,
                                                  .name = "pbf.noCollider"});
        if (!b) return Status::error(b.code(), "fluid: buffer pbf.noCollider: " + b.message());
        s->noCollider_ = std::move(b).value();
    }

    const FluidState start = initialState(params);
    PYRAMARCH_TRY(uploadBuffer(device, s->particles_, start.positions.data(), vec4s));
    PYRAMARCH_TRY(uploadBuffer(device, s->velocity_, start.velocities.data(), vec4s));

    s->pipes_ = std::make_unique<Pipelines>();
    Pipelines& p = *s->pipes_;
    PYRAMARCH_TRY_ASSIGN(p.predict, makePipeline(device, kPredictSpv, "pbf.predict", 6));
    PYRAMARCH_TRY_ASSIGN(p.scan, makePipeline(device, kScanSpv, "pbf.scan", 2));
    PYRAMARCH_TRY_ASSIGN(p.scanAdd, makePipeline(device, kScanAddSpv, "pbf.scanAdd", 2));
    PYRAMARCH_TRY_ASSIGN(p.scatter, makePipeline(device, kScatterSpv, "pbf.scatter", 3));
    PYRAMARCH_TRY_ASSIGN(p.reorder, makePipeline(device, kReorderSpv, "pbf.reorder", 8));
    PYRAMARCH_TRY_ASSIGN(p.neighbours, makePipeline(device, kNeighboursSpv, "pbf.neighbours", 5));
    PYRAMARCH_TRY_ASSIGN(p.lambda, makePipeline(device, kLambdaSpv, "pbf.lambda", 4));
    PYRAMARCH_TRY_ASSIGN(p.delta, makePipeline(device, kDeltaSpv, "pbf.delta", 6));
    PYRAMARCH_TRY_ASSIGN(p.velocity, makePipeline(device, kVelocitySpv, "pbf.velocity", 3));
    PYRAMARCH_TRY_ASSIGN(p.finish, makePipeline(device, kFinishSpv, "pbf.finish", 7));

    // The surface: the box padded by the kernel support (so it closes at the
    // walls), sampled every voxelSize particle spacings; kernel support 2 d
    // (the module's smoothing length 2 in particle radii d / 2), iso value a
    // fraction of that kernel's rest density.
    const float support = iso::kernelSupportRadius(0.5f * params.spacing);
    const float voxel = settings.voxelSize * params.spacing;
    iso::IsoSurfaceCreateInfo info;
    for (int a = 0; a < 3; ++a) {
        const uint32_t cellsA = uint32_t(std::ceil((kBoxMax[a] - kBoxMin[a] + 2.f * support) / voxel));
        info.samples[a] = cellsA + 1;
        const float half = 0.5f * float(cellsA) * voxel, mid = 0.5f * (kBoxMin[a] + kBoxMax[a]);
        info.boundsMin[a] = mid - half;
        info.boundsMax[a] = mid + half;
    }
    PYRAMARCH_TRY_ASSIGN(const double rest, iso::particleRestDensity());
    s->restField_ = float(rest);
    info.vertexCapacity = settings.vertexCapacity;
    info.normals = settings.normals;
    info.source = iso::FieldSource::Particles;
    info.maxParticles = n;
    info.particleRadius = support;
    info.particleSmoothing = settings.smoothing;
    info.anisotropic.enabled = settings.anisotropic;
    info.particleInput = iso::ParticleInput::GpuBuffer;
    info.particleBuffer = &s->particles_;
    info.isoValue = s->isoValue();
    info.name = "fluid";
    info.meshSmoothing.iterations = settings.meshSmoothing;
    if (s->settings_.indexed) {
        // As the other scenes: unique vertices are about a third of the per-triangle ones.
        info.indexed = true;
        info.indexCapacity = info.vertexCapacity;
        info.vertexCapacity = std::max(3u, info.vertexCapacity / 3);
    }
    auto surface = iso::IsoSurface::create(device, info);
    if (!surface) return Status::error(surface.code(), "fluid: surface: " + surface.message());
    s->surface_ = std::move(surface).value();
    PYRAMARCH_TRY(s->surface_->setParticleCount(n));
    return s;
}

float FluidScene::isoValue() const { return settings_.threshold * restField_; }

Status FluidScene::update(double time) {
    step_ = !(time == lastTime_);
    lastTime_ = time;
    surface_->setIsoValue(isoValue());
    // The collider's counters of a finished frame (never waits): a mesh that
    // is not closed or a voxelization over the capacities is an error, not
    // a collider with holes.
    if (collider_)
        if (const std::optional<voxel::VoxelStats> st = collider_->latestStats()) {
            if (st->solidOddColumns > 0)
                return Status::error(ErrorCode::InvalidArgument, "fluid: collider: the mesh is not watertight: " +
                                                                     std::to_string(st->solidOddColumns) +
                                                                     " voxel columns cross it an odd number of times");
            if (st->fragmentOverflow || st->tileOverflow)
                return Status::error(ErrorCode::CapacityExceeded,
                                     "fluid: collider: the voxelization needs " + std::to_string(st->fragmentsNeeded) +
                                         " fragments and " + std::to_string(st->tilesNeeded) +
                                         " octree tiles, over its capacities; lower the collider resolution");
        }
    return {};
}

Result<ColliderGrid> FluidScene::readColliderGrid() {
    if (!collider_) return Status::error(ErrorCode::InvalidState, "fluid: no collider");
    ColliderGrid g;
    g.origin = colliderGrid_.origin;
    g.voxel = colliderGrid_.voxelSize[0];
    for (int a = 0; a < 3; ++a) g.dims[size_t(a)] = colliderGrid_.dims[a];
    PYRAMARCH_TRY_ASSIGN(g.solid, collider_->readDenseGrid());
    return g;
}

Result<BufferRef> FluidScene::addSimulationPasses(RenderGraph& graph) {
    const FluidParams& P = params_;
    // The splat (the particles' last use in a frame) reads them; the next
    // frame's predict reads them and its finish writes them after that.
    const ExternalUse splatRead{Access::StorageRead, PassKind::Compute};
    const ExternalUse rw{Access::StorageReadWrite, PassKind::Compute};
    const BufferRef particles = graph.importBuffer("pbf.particles", particles_, splatRead, splatRead);
    auto imp = [&](const Buffer& b, const char* name) { return graph.importBuffer(name, b, rw, rw); };
    const BufferRef velocity = imp(velocity_, "pbf.velocity"), predicted = imp(predicted_, "pbf.predicted"),
                    cellRank = imp(cellRank_, "pbf.cellRank"), cellStart = imp(cellStart_, "pbf.cellStart"),
                    blockSums = imp(blockSums_, "pbf.blockSums"), scanTotal = imp(scanTotal_, "pbf.scanTotal"),
                    sortedIndex = imp(sortedIndex_, "pbf.sortedIndex"), sortedCell = imp(sortedCell_, "pbf.sortedCell"),
                    posA = imp(positionA_, "pbf.positionA"), posB = imp(positionB_, "pbf.positionB"),
                    old = imp(old_, "pbf.old"), lambda = imp(lambda_, "pbf.lambda"),
                    velocityNew = imp(velocityNew_, "pbf.velocityNew"),
                    neighbourList = imp(neighbourList_, "pbf.neighbourList"),
                    neighbourCount = imp(neighbourCount_, "pbf.neighbourCount");
    const VkDeviceSize particleRange = VkDeviceSize(P.particles) * 16;
    // The collider's solid voxels, written by the voxelizer's passes earlier
    // in this graph (or a stand-in the shaders do not read).
    BufferRef solid;
    if (collider_) {
        PYRAMARCH_TRY_ASSIGN(const voxel::VoxelizerGraphRefs vox, collider_->addPasses(graph));
        solid = vox.dense;
    } else {
        solid = graph.importBuffer("pbf.noCollider", noCollider_, {Access::StorageRead, PassKind::Compute},
                                   {Access::StorageRead, PassKind::Compute});
    }

    FluidPush base{};
    base.particles = P.particles;
    base.cells = P.cells;
    base.gridX = P.grid[0];
    base.gridY = P.grid[1];
    base.gridZ = P.grid[2];
    base.maxSpeed = P.maxSpeed;
    base.boxMinX = kBoxMin[0];
    base.boxMinY = kBoxMin[1];
    base.boxMinZ = kBoxMin[2];
    base.h = P.h;
    base.boxMaxX = kBoxMax[0];
    base.boxMaxY = kBoxMax[1];
    base.boxMaxZ = kBoxMax[2];
    base.dt = P.dt;
    base.gravity = P.gravity;
    base.invRestDensity = 1.f / P.restDensity;
    base.epsilon = P.epsilon;
    base.scorrK = P.scorrK;
    base.invWdq = P.invWdq;
    base.xsph = P.xsph;
    base.poly6 = P.poly6;
    base.spiky = P.spiky;
    base.colliderOriginX = colliderGrid_.origin[0];
    base.colliderOriginY = colliderGrid_.origin[1];
    base.colliderOriginZ = colliderGrid_.origin[2];
    base.colliderVoxel = colliderGrid_.voxelSize[0];
    base.colliderDimX = colliderGrid_.dims[0];
    base.colliderDimY = colliderGrid_.dims[1];
    base.colliderDimZ = colliderGrid_.dims[2];
    base.colliderOn = collider_ ? 1u : 0u;
    const uint32_t maxX = device_->limits().maxComputeWorkGroupCount[0];
    // Dispatch of `items` threads in groups of `groupSize`, folded into 2D
    // past the device's x limit (none while paused).
    auto dispatch = [this, base, maxX](uint32_t items, uint32_t groupSize) {
        return [this, base, maxX, items, groupSize](PassContext& ctx) {
            // Paused: no step; the particle buffer keeps the last one's result.
            if (!step_) return;
            const uint32_t groups = (items + groupSize - 1) / groupSize;
            FluidPush pc = base;
            pc.n = items;
            pc.groupsX = std::min(groups, maxX);
            ctx.pushConstants(pc);
            ctx.dispatch(pc.groupsX, (groups + pc.groupsX - 1) / pc.groupsX, 1);
        };
    };
    const uint32_t G = gpu::kFluidGroupSize;
    Pipelines& p = *pipes_;

    // One step's passes, `stepsPerFrame` times: each step's predict reads
    // what the previous step's finish wrote (the graph orders them).
    for (uint32_t step = 0; step < settings_.stepsPerFrame; ++step) {
        const std::string s = step == 0 ? "pbf." : "pbf.step" + std::to_string(step + 1) + ".";
        graph.addPass(s + "clear", PassKind::Transfer)
            .use(cellStart, Access::TransferDst)
            .record([cellStart](PassContext& ctx) {
                ctx.vk->vkCmdFillBuffer(ctx.cmd, ctx.buffer(cellStart), 0, VK_WHOLE_SIZE, 0);
            });
        graph.addPass(s + "predict", PassKind::Compute)
            .pipeline(p.predict)
            .storage(0, particles, Access::StorageRead, 0, particleRange)
            .storage(1, velocity, Access::StorageRead)
            .storage(2, predicted, Access::StorageWrite)
            .storage(3, cellRank, Access::StorageWrite)
            .storage(4, cellStart, Access::StorageReadWrite)
            .storage(5, solid, Access::StorageRead)
            .record(dispatch(P.particles, G));
        const uint32_t blocks = (P.cells + 1 + gpu::kScanBlock - 1) / gpu::kScanBlock;
        // Scan dispatches are one group per kScanBlock values.
        graph.addPass(s + "scan.blocks", PassKind::Compute)
            .pipeline(p.scan)
            .storage(0, cellStart, Access::StorageReadWrite)
            .storage(1, blockSums, Access::StorageWrite)
            .record(dispatch(P.cells + 1, gpu::kScanBlock));
        graph.addPass(s + "scan.top", PassKind::Compute)
            .pipeline(p.scan)
            .storage(0, blockSums, Access::StorageReadWrite)
            .storage(1, scanTotal, Access::StorageWrite)
            .record(dispatch(blocks, gpu::kScanBlock));
        graph.addPass(s + "scan.add", PassKind::Compute)
            .pipeline(p.scanAdd)
            .storage(0, cellStart, Access::StorageReadWrite)
            .storage(1, blockSums, Access::StorageRead)
            .record(dispatch(P.cells + 1, G));
        graph.addPass(s + "scatter", PassKind::Compute)
            .pipeline(p.scatter)
            .storage(0, cellRank, Access::StorageRead)
            .storage(1, cellStart, Access::StorageRead)
            .storage(2, sortedIndex, Access::StorageWrite)
            .record(dispatch(P.particles, G));
        graph.addPass(s + "reorder", PassKind::Compute)
            .pipeline(p.reorder)
            .storage(0, cellStart, Access::StorageRead)
            .storage(1, sortedIndex, Access::StorageReadWrite)
            .storage(2, predicted, Access::StorageRead)
            .storage(3, particles, Access::StorageRead, 0, particleRange)
            .storage(4, velocity, Access::StorageRead)
            .storage(5, posA, Access::StorageWrite)
            .storage(6, old, Access::StorageWrite)
            .storage(7, sortedCell, Access::StorageWrite)
            .record(dispatch(P.cells, G));
        graph.addPass(s + "neighbours", PassKind::Compute)
            .pipeline(p.neighbours)
            .storage(0, cellStart, Access::StorageRead)
            .storage(1, sortedCell, Access::StorageRead)
            .storage(2, posA, Access::StorageRead)
            .storage(3, neighbourList, Access::StorageWrite)
            .storage(4, neighbourCount, Access::StorageWrite)
            .record(dispatch(P.particles, G));
        BufferRef cur = posA, nxt = posB;
        for (uint32_t it = 0; it < P.iterations; ++it) {
            const std::string k = std::to_string(it);
            graph.addPass(s + "lambda." + k, PassKind::Compute)
                .pipeline(p.lambda)
                .storage(0, neighbourList, Access::StorageRead)
                .storage(1, neighbourCount, Access::StorageRead)
                .storage(2, cur, Access::StorageRead)
                .storage(3, lambda, Access::StorageWrite)
                .record(dispatch(P.particles, G));
            graph.addPass(s + "delta." + k, PassKind::Compute)
                .pipeline(p.delta)
                .storage(0, neighbourList, Access::StorageRead)
                .storage(1, neighbourCount, Access::StorageRead)
                .storage(2, cur, Access::StorageRead)
                .storage(3, lambda, Access::StorageRead)
                .storage(4, nxt, Access::StorageWrite)
                .storage(5, solid, Access::StorageRead)
                .record(dispatch(P.particles, G));
            std::swap(cur, nxt);
        }
        graph.addPass(s + "velocity", PassKind::Compute)
            .pipeline(p.velocity)
            .storage(0, cur, Access::StorageRead)
            .storage(1, old, Access::StorageRead)
            .storage(2, velocityNew, Access::StorageWrite)
            .record(dispatch(P.particles, G));
        graph.addPass(s + "finish", PassKind::Compute)
            .pipeline(p.finish)
            .storage(0, neighbourList, Access::StorageRead)
            .storage(1, neighbourCount, Access::StorageRead)
            .storage(2, cur, Access::StorageRead)
            .storage(3, velocityNew, Access::StorageRead)
            .storage(4, old, Access::StorageRead)
            .storage(5, particles, Access::StorageWrite, 0, particleRange)
            .storage(6, velocity, Access::StorageWrite)
            .record(dispatch(P.particles, G));
    }
    return particles;
}

Status FluidScene::addPasses(RenderGraph& graph) {
    PYRAMARCH_TRY_ASSIGN(const BufferRef particles, addSimulationPasses(graph));
    iso::IsoSurface::GraphInputs in;
    in.particles = particles;
    return surface_->addPasses(graph, in).status();
}

void FluidScene::ui(sample::SceneConfig& config) {
    ImGui::Text("%u particles, PBF %u iterations, dt %.4f s", params_.particles, params_.iterations, params_.dt);
    ImGui::Text("grid %u x %u x %u cells (h = %.4f)", params_.grid[0], params_.grid[1], params_.grid[2], params_.h);
    int count = int(settings_.particles);
    if (ImGui::SliderInt("particles", &count, 1000, 400000)) config.particles = uint32_t(count);
    if (ImGui::IsItemDeactivatedAfterEdit()) config.recreate = true;
    int mode = settings_.anisotropic ? 2 : settings_.smoothing > 0.f ? 1 : 0;
    static const char* modes[] = {"isotropic", "smoothed (Yu & Turk positions)", "anisotropic (Yu & Turk kernels)"};
    if (ImGui::Combo("kernel", &mode, modes, 3)) {
        config.particleSmoothing = mode == 1 ? 0.5f : 0.f;
        config.anisotropic = mode == 2;
        config.recreate = true;
    }
    // Mesh smoothing needs shared vertices: a new, indexed surface.
    int smoothing = int(settings_.meshSmoothing);
    if (ImGui::SliderInt("mesh smoothing iterations", &smoothing, 0, 30)) config.meshSmoothing = uint32_t(smoothing);
    if (ImGui::IsItemDeactivatedAfterEdit()) config.recreate = true;
    if (ImGui::SliderFloat("threshold (x rest density)", &settings_.threshold, 0.05f, 1.5f))
        config.surfaceThreshold = settings_.threshold;
    if (ImGui::Button("restart")) config.recreate = true;
}

Result<std::unique_ptr<sample::Scene>> makeFluidScene(Device& device, const sample::SceneConfig& config,
                                                      FluidSettings base) {
    base.particles = config.particles;
    if (!std::isnan(config.surfaceThreshold)) base.threshold = config.surfaceThreshold;
    base.smoothing = config.particleSmoothing;
    base.anisotropic = config.anisotropic;
    base.meshSmoothing = config.meshSmoothing;
    base.indexed = config.indexed;
    base.normals = config.normals;
    auto r = FluidScene::create(device, base);
    if (!r) return r.status();
    return std::unique_ptr<sample::Scene>(std::move(r).value());
}

} // namespace fluid
