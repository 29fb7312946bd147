// GPU marching cubes with HistoPyramid compaction/expansion. Each frame, all
// on the GPU and without read-back: field pass -> classify -> pyramid build
// -> args (indirect dispatch + draw + stats) -> extract into a vertex buffer
// that vkCmdDrawIndirect draws. See modules/isosurface/README.md.
//
//     IsoSurfaceCreateInfo info = metaballSurface({65, 65, 65}, 256); // or fill the fields
//     auto created = IsoSurface::create(device, info);
//     if (!created) return fail(created.status()); // the message names the field
//     auto iso = std::move(*created);
//     iso->addPasses(graph);            // once (Result: error if called twice); graph.compile()
//     // every frame, after waiting for the frame framesInFlight back:
//     iso->setMetaballs(balls);
//     graph.execute(cmd);               // or iso->record(cmd) without a host graph
//     draw with iso->vertexBuffer() / iso->drawArgsBuffer() (offset drawArgsOffset())
//
// Output capacities need not be given: with record(), the module grows the
// vertex and index buffers at a frame boundary from the stats it reads back
// (see IsoSurfaceCreateInfo::vertexCapacity and memoryBudget); in a host
// graph the host calls grow() between frames. The handles vertexBuffer() and
// indexBuffer() return may then change.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <vulkan/vulkan_core.h>

#include "pyramarch/engine/glsl_source.h"
#include "pyramarch/engine/memory.h"
#include "pyramarch/engine/render_graph.h"
#include "pyramarch/engine/status.h"
#include "pyramarch/isosurface/draw_args.h"

namespace pyramarch {
class Device;
struct DeviceLimits;
} // namespace pyramarch

namespace pyramarch::iso::testing {
struct Knobs; // pyramarch/isosurface/testing.h
}

namespace pyramarch::iso {

struct ParticleGrid; // pyramarch/isosurface/particle_grid.h

enum class FieldSource {
    Metaballs, // setMetaballs() each frame (or once)
    Particles, // setParticles() each frame (or once)
    Volume,    // uploadVolume() whenever the data changes
    UserGlsl,  // fieldGlsl compiled at creation; setUserParams()/setTime() per frame
};

// Vertex normals from the field's gradient (forward, central or 3D Sobel
// differences), interpolated along the edge. None writes a zero normal and
// reads no gradient samples (flat shading, colliders, positions only): the
// cheapest mode.
enum class NormalMode { Forward, Central, Sobel, None };

enum class VolumeFormat { U8, U16, F32 };

// What a particle adds to the field (FieldSource::Particles); r is
// IsoSurfaceCreateInfo::particleRadius (the kernel's support radius).
enum class ParticleKernel {
    // Each particle adds w (1 - d^2/r^2)^3: a weighted neighbour count, about
    // 5.2 inside a fluid of spacing r/2 (particleRestDensity()).
    NeighbourCount,
    // splashsurf's field: the SPH sum sum_j V_j W(|x - x_j|) of the cubic
    // spline kernel W (support r), V_j = w_j / sum_k w_k W(|x_j - x_k|) (the
    // particle's volume from its neighbours' density, itself included).
    // About 1 inside a fluid whatever its spacing (iso values are fractions
    // of the rest density: 0.6 is splashsurf's default), exactly 1 at a lone
    // particle (droplets stay). Adds a density pass over the neighbours (on
    // a sparse domain, over each particle's brick list, with r >= the sample
    // spacing: the same field bit for bit for particles inside the grid).
    // Summed weight at
    // most 65536 per particle and sample (16.16 fixed point).
    SphCubicSpline,
};

struct Metaball {
    std::array<float, 3> center;
    float radius;   // radius of influence R (> 0)
    float strength; // s; field = sum s (1 - d^2/R^2)^3 for d < R
    float pad[3];
};

struct Particle {
    std::array<float, 3> position;
    float weight; // kernel strength (>= 0); at most 65536 summed at one sample
};

// Particles as the host already stores them, for IsoSurface::setParticles:
// no repacking into Particle records. Positions are three floats x, y, z at
// `positions + i * positionStride` bytes (e.g. a position member inside a
// 32-byte particle struct: point at the member, stride 32); weights, when
// given, one float at `weights + i * weightStride` bytes (a mass member of
// the same struct, or a separate float array). Nothing is kept after the
// call (the module copies the particles).
struct ParticleArrays {
    const void* positions = nullptr; // required when count > 0
    uint32_t count = 0;              // at most IsoSurfaceCreateInfo::maxParticles
    uint32_t positionStride = 12;    // bytes between particles: >= 12, a multiple of 4
    const void* weights = nullptr;   // optional; null: every particle weighs `weight`
    uint32_t weightStride = 4;       // bytes between weights: >= 4, a multiple of 4
    float weight = 1.f;              // weight of every particle when `weights` is null
};

// IsoSurfaceCreateInfo::particleWeightOffset of a host buffer without
// weights: every particle weighs 1.
inline constexpr uint32_t kNoParticleWeight = 0xffffffffu;

// Where FieldSource::Particles takes its particles from.
enum class ParticleInput {
    // setParticles() each frame: the module copies them into a host-visible
    // ring (framesInFlight + 1 slots of maxParticles).
    Host,
    // The host's own storage buffer, written on the GPU (a simulation pass in
    // the same graph): maxParticles records of particleStride bytes from the
    // buffer's start, the position (3 floats) at particlePositionOffset and
    // the weight (a float) at particleWeightOffset of each record; by
    // default Particle[maxParticles]. No copy, no ring: the splat reads it
    // where the graph orders it after the host's writes. The count per frame
    // comes from setParticleCount() (a push constant). The module cannot
    // check data it never sees: a particle with a non-finite coordinate or
    // weight, or a weight <= 0, is skipped on the GPU (adds nothing; never a
    // write outside the field).
    GpuBuffer,
};

// Everything is copied by create(): nothing here needs to outlive the call.
// Fields without "Required" have working defaults.
// Anisotropic particle kernels (Yu & Turk 2013, "Reconstructing surfaces of
// particle-based fluids using anisotropic kernels"): every frame, on the GPU,
// each particle's kernel is stretched along the principal axes of its
// neighbours (weighted covariance within neighbourhood x particleRadius,
// weights 1 - (d / rn)^3): flat on flat fluid, round in the bulk. The field is
// sum_i w_i det(G_i') (1 - |G_i' (x - c_i)|^2)^3 with G_i' = G_i r, i.e. the
// isotropic kernel of particleRadius when G_i = I / r, so iso values keep
// their meaning. c_i = the particle, or with particleSmoothing lambda
// x + lambda (mean - x) of the same neighbourhood (the paper's smoothing).
// Kernel axes (in particleRadius) from the covariance eigenvalue ratios
// rho_k = sigma_k / sigma_max: rho_k' = clamp(rho_k / isotropicRatio,
// 1 / maxRatio, 1) (ratios a sampled isotropic neighbourhood shows by chance
// count as isotropic), a_k = rho_k' / cbrt(rho_0' rho_1' rho_2') so every
// kernel keeps the isotropic kernel's volume (bulk kernels are the
// isotropic one; a flattened kernel stretches along the surface), then
// a_k <= maxStretch (a bounded support for the gather's search); particles
// with fewer than minNeighbours neighbours (itself included) get
// a_k = isolatedScale.
// See modules/isosurface/README.md for what these cost and change.
struct AnisotropicKernels {
    bool enabled = false;
    // Neighbourhood radius in particleRadius (the kernel support). 1.5 at
    // splashsurf-like settings (support 2 spacings) = 3 spacings: ~110
    // neighbours in the bulk, ~55 at a flat face, so minNeighbours 25 marks
    // only sparse particles. In (0, 4].
    float neighbourhood = 1.5f;
    // Largest ratio of kernel axes (Yu & Turk's k_r). In [1, 64].
    float maxRatio = 4.f;
    // Largest kernel axis in particleRadius: bounds the support the gather
    // searches (maxStretch x particleRadius). In [1, 4]; 1 costs the gather
    // nothing beyond the isotropic one, but flattened kernels then lose
    // volume instead of stretching.
    float maxStretch = 1.f;
    // Eigenvalue ratios at or above this count as isotropic: the chance
    // anisotropy of a full neighbourhood (jittered particles: ratios down to
    // ~0.75 at the default neighbourhood) would otherwise deform bulk
    // kernels and open thin spots under the surface. Below it, ratios are
    // divided by it (a soft threshold). In (0, 1]; 1 keeps the raw ratios.
    float isotropicRatio = 0.5f;
    // Fewer neighbours than this (itself included): isotropic kernel
    // (Yu & Turk's N_eps). >= 1.
    uint32_t minNeighbours = 25;
    // Their kernel axis in particleRadius (Yu & Turk's k_n). In (0, maxStretch].
    float isolatedScale = 0.5f;
};

// Smoothing of the extracted surface every frame on the GPU after
// extraction (splashsurf's mesh smoothing for fluid surfaces): Taubin's
// lambda|mu smoothing. Each step moves every vertex by factor x (mean of its
// edge neighbours - itself), factor = lambda, then mu; a negative mu undoes
// the shrinking of a plain Laplacian step (mu = 0: a sphere of R cells
// shrinks by about lambda / R cells per iteration).
// Needs indexed output (IsoSurfaceCreateInfo::indexed), on a dense grid or a
// sparse domain: the neighbours are the other vertices of a vertex's
// triangles in the index buffer. Sums are 32-bit fixed point (1/65536 cell
// per term): the same bits every frame and in any thread order. Normals other
// than NormalMode::None are recomputed from the smoothed mesh (area-weighted).
// A frame whose vertices overflow writes no indices, so it is not smoothed;
// one whose indices overflow smooths with the triangles written.
// The defaults pass frequencies below 1/lambda + 1/mu = 0.04 and damp every
// higher one: |(1 - lambda k)(1 - mu k)| <= 1 for k in [0, 2].
struct MeshSmoothing {
    uint32_t iterations = 0; // 0: off; at most 64 (each is a lambda and a mu step)
    float lambda = 0.7f;     // in (0, 1]
    float mu = -0.72f;       // in [-1, 0]; 0: plain Laplacian (shrinks)
};

// Where a sparse volume's surface bricks come from.
enum class SparseVolumeInput {
    // uploadVolume(): the host reads the volume (once, slab by slab) and the
    // GPU keeps the bricks an iso range can cut.
    Upload,
    // Every frame, on the GPU, with no read-back: the occupied leaves of a
    // sparse voxel octree the host's graph builds (GraphInputs::octree, e.g.
    // voxel::octreeLeafInput() in pyramarch/voxelizer/iso_bridge.h). The
    // field is 1 at an occupied leaf voxel and 0 elsewhere, sample s at voxel
    // s (samples = the voxel grid's dims, bounds voxel::voxelCentreBounds),
    // so iso 0.5 wraps the occupied voxels. The marked bricks take pool
    // slots, at most maxVolumeBricks (past it: IsoStats::
    // sparseVolumeBricksNeeded and an overflow). Needs volumeFormat U8 and
    // addPasses(); costs 8 bytes per brick of the virtual grid.
    OctreeLeaves,
};

// A sparse domain (FieldSource::UserGlsl evaluated fused, with a Lipschitz
// bound, FieldSource::Metaballs, FieldSource::Particles or
// FieldSource::Volume): the grid is
// virtual, up to kMaxSparseCellsPerAxis cells per axis, and memory follows
// the surface, not the grid. Every frame, on the GPU: the bricks of 8^3
// cells whose interval can reach the iso value are listed (pass
// "<name>.sparse.activate"; user fields: the Lipschitz interval of one
// field() call per brick; metaballs: the sum of the balls' term ranges over
// the brick, each listed brick keeping the balls that reach it; particles:
// the bricks their kernels reach, counted per particle into a table of
// every brick (4 bytes a brick of the virtual grid), each keeping its
// particles, whose 11^3 samples (8b - 1 .. 8b + 9 per axis: its cells' and
// their normals') are then evaluated once into the brick's block of a pool
// of maxBricks blocks, as a volume's, a block that stays with its brick
// while the brick stays listed (bricks that come and go take and free
// slots); both particle kernels (SphCubicSpline with a density pass over
// each brick's list), particleSmoothing and anisotropic kernels (each
// particle's smoothed position or kernel from its home brick's list, the
// lists grown by the neighbourhood and the kernels' reach; the dense
// gather's field bit for bit for particles inside the grid); volumes: the
// surface bricks of the last upload whose value range the frame's iso value
// cuts: the upload kept only the bricks of 8^3 samples those read, in a
// pool in the volume's format, with a table of every brick of samples, 4
// bytes each; see uploadVolume(VolumeSlabs, ...); or, with
// SparseVolumeInput::OctreeLeaves, the bricks a voxel octree's leaves
// occupy, marked and filled on the GPU every frame), classify
// evaluates the field on the listed bricks only, and only the row
// pairs (16 cells, 2 rows of 8 along x) holding a cut cell take a slot of
// the pool the pyramid is built over; extraction finds each triangle's cell
// through its slot. Triangles are the dense fused path's (metaballs and
// particles, volumes: the dense field's), in another order (the slots'). A frame
// whose bricks, row pairs or item references exceed the capacities below drops the cells past
// them (nothing is written outside the buffers) and reports
// IsoStats::overflow with what it needed (sparseBricksNeeded,
// sparseRowPairsNeeded, sparseItemRefsNeeded: suggestSparseCapacity()).
// Resident memory (IsoSurface::memoryReport): 4 bytes per listed brick
// (metaballs, particles: 12, and 4 per item reference) and ~29 bytes per pool slot,
// plus the vertex buffer, whatever the grid; particles add 5,328 bytes per
// brick of maxBricks (its block of 11^3 F32 samples, in up to 4 buffers of
// one maxStorageBufferRange: maxSparseParticleBricks(), a DeviceLimit error
// past it) and the brick table; volumes add the pool (1,331
// bytes a surface brick in U8), 16 bytes per surface brick, 4 per brick of
// maxBricks, and a host-visible staging copy of the pool and surface bricks
// (from an octree: no staging, 8 bytes per brick of the virtual grid).
// With indexed = true: the dense indexed path's mesh (the same vertices bit
// for bit, the same triangles, vertices shared across brick and row-pair
// borders), in list order; ~13 more bytes per slot (vertex pyramid,
// first vertices) and 160 per brick of maxBricks plus a hash of 8 bytes per
// entry (a power of two >= 2 maxBricks; lavapipe: at most 734,003 bricks),
// checked at creation. After an overflow a triangle whose shared vertex was
// dropped is written degenerate (0, 0, 0). meshSmoothing post-processes
// that mesh as it does a dense grid's.
// Measured in docs/design-notes/2026-11-27-sparse-domains.md.
// A user field without a Lipschitz bound (lipschitz 0) lists every brick of
// the grid every frame (no skipping): maxBricks must hold them all.
// Capacities left 0 are sized by the module at creation from the grid, the
// source and the device limits, within IsoSurfaceCreateInfo::memoryBudget
// (see IsoSurface::sparseDomain() for what it chose). For metaballs, particles
// and user fields with a Lipschitz bound those sizes are the most they grow
// to: the surface starts below them and record() plans it again, larger,
// after a frame whose counters overflowed or passed 90% (as the output
// buffers: IsoSurfaceCreateInfo::vertexCapacity; with addPasses() they
// stay at the planned sizes). Volumes from an octree (always in a host
// graph) start below them too and grow when the host calls grow().
// Non-zero: hard caps.
struct SparseDomain {
    // A hint. true: a sparse domain. false: the dense grid where it fits the
    // device, else (its field, pyramid, particle bins or 32-bit counts past
    // the limits) a sparse domain with these capacities (0: module-sized).
    bool enabled = false;
    // Bricks of 8^3 cells the activate pass may list per frame (at most
    // 2^27; 0: sized by the module): those the bound cannot rule out, about
    // the surface's area in bricks (plus a margin that grows with L).
    // Particles keep a block of 11^3 F32 samples per brick (5,324 bytes): at
    // most maxSparseParticleBricks() (lavapipe: 65,280).
    uint32_t maxBricks = 0;
    // Pool slots (0: sized by the module): row pairs with a cut cell. The
    // pool's pyramid, ~26 bytes per slot, must fit maxStorageBufferRange.
    uint32_t maxRowPairs = 0;
    // Metaballs and particles: references over the listed bricks (each
    // brick lists the balls or particles reaching it). 0: sized and grown
    // by the module (from a few a brick up to every ball, or
    // kMaxSparseItemsPerBrick particles, a listed brick, within one
    // maxStorageBufferRange and the budget). A brick whose list does not
    // fit is classified without items (no triangles) and the frame reports
    // the overflow. Ignored for user fields.
    uint32_t maxItemRefs = 0;
    // Volumes: the surface bricks an upload may keep (0: sized by the
    // module), each with the 11^3 samples its cells and their normals read,
    // in volumeFormat (1,331 bytes for U8, 2,662 U16, 5,324 F32), in up to
    // 4 buffers of one maxStorageBufferRange each (lavapipe's 128 MiB:
    // 403,356 U8 or 100,836 F32 bricks; one buffer up to a quarter of that,
    // which reads fastest). censusSparseVolume() counts what an upload needs;
    // from an octree, 0 starts small and grows with IsoSurface::grow().
    uint32_t maxVolumeBricks = 0;
    // Volumes: the format every upload uses; the pool keeps the samples in it.
    VolumeFormat volumeFormat = VolumeFormat::F32;
    // Volumes: where the surface bricks come from (SparseVolumeInput).
    SparseVolumeInput volumeInput = SparseVolumeInput::Upload;
};

// A volume read in slabs of z slices, so that an upload never holds the
// whole volume in host memory (a sparse domain's volume may be larger than
// host memory and any buffer): read(first, count, dst) fills the slices
// first .. first + count - 1 (samples.x * samples.y samples each, x fastest,
// little-endian `format`) into dst and returns an error to abort the upload.
// openRawVolumeSlabs() (raw_volume.h) reads a raw file this way.
struct VolumeSlabs {
    VolumeFormat format = VolumeFormat::F32;
    float scale = 1.f, offset = 0.f; // samples become value * scale + offset, as uploadVolume's
    std::function<Status(uint32_t firstSlice, uint32_t sliceCount, void* dst)> read;
};

// What a sparse volume keeps resident for the iso values [isoMin, isoMax]:
// its surface bricks, the bricks of 8^3 cells an iso value of the range can
// cut (SparseDomain::maxVolumeBricks; the activate pass lists those the
// frame's iso value cuts: SparseDomain::maxBricks never needs more).
struct SparseVolumeCensus {
    uint32_t surfaceBricks = 0;
    uint64_t bricks = 0;    // bricks of 8^3 cells in the whole volume
    uint64_t poolBytes = 0; // the surface bricks' samples, as the pool keeps them
};
// Reads the volume once (slab by slab) and counts; errors: a read error, a
// NaN or infinite scale, offset or iso bound, isoMin > isoMax, a sample count
// under 2 per axis.
Result<SparseVolumeCensus> censusSparseVolume(const VolumeSlabs& volume, const std::array<uint32_t, 3>& samples,
                                              float isoMin, float isoMax);
// The most balls (kMaxSparseItemsPerBrick) or particles
// (kMaxSparseParticlesPerBrick) one brick may list (it keeps each shader
// invocation's loops within 65,535 iterations, which some drivers end: a
// brick's particles are spread over several threads of each pass); a brick
// past it is classified without them and the frame reports an overflow
// (IsoStats::sparseCrowdedBricks). Particles reach it only where the voxel
// is very coarse for the particle spacing (hundreds of particles a cell).
inline constexpr uint32_t kMaxSparseItemsPerBrick = 8192;
inline constexpr uint32_t kMaxSparseParticlesPerBrick = 491520;
inline constexpr uint32_t kDefaultSparseBallRefsPerBrick = 4;
inline constexpr uint32_t kDefaultSparseParticleRefsPerBrick = 256;
// Limits of a sparse domain: brick coordinates are 10 bits per axis of a
// list entry, and a pool slot's record keeps the listed brick in 27 bits.
inline constexpr uint32_t kMaxSparseCellsPerAxis = 8192;
inline constexpr uint32_t kSparseBrickCells = 8; // cells per axis of a brick
inline constexpr uint32_t kMaxSparseBricks = 1u << 27;

// A per-particle quantity (velocity, density, colour, ...) interpolated
// onto the surface vertices (IsoSurfaceCreateInfo::surfaceAttributes), the
// way splashsurf's --interpolate_attributes does: at each output vertex x,
// a(x) = sum_j V_j a_j W(|x - x_j|) / sum_j V_j W(|x - x_j|) over the
// particles within particleRadius, with the density pass's volumes V_j and
// its cubic spline W (splashsurf's first-order (Shepard) correction: a
// constant attribute stays that constant). Values come from
// IsoSurface::setParticleAttribute; results land in
// IsoSurface::attributeBuffer(). See modules/isosurface/README.md.
struct SurfaceAttribute {
    std::string name;        // for messages and exported files (non-empty)
    uint32_t components = 1; // floats per particle and vertex: 1 (scalar) .. 16
};
// The most floats per vertex all surface attributes together hold.
inline constexpr uint32_t kMaxSurfaceAttributeComponents = 16;

struct IsoSurfaceCreateInfo {
    // Required. Samples per axis (>= 2 each); cells = samples - 1. For
    // FieldSource::Volume these are the volume's dimensions.
    std::array<uint32_t, 3> samples{0, 0, 0};
    // World bounds: sample i sits at min + i * (max - min) / (samples - 1).
    std::array<float, 3> boundsMin{-1.f, -1.f, -1.f};
    std::array<float, 3> boundsMax{1.f, 1.f, 1.f};
    // Vertex buffer capacity in vertices, rounded down to whole triangles.
    // 0 (default): the module starts small and, through record(), grows the
    // buffer after a frame whose stats (read framesInFlight frames later)
    // show an overflow or over 90% use, within memoryBudget (with addPasses()
    // when the host calls IsoSurface::grow()). Non-zero: a hard cap; a frame
    // needing more is truncated and reports IsoStats::overflow. The vertex
    // buffer is one VkBuffer (what hosts bind to draw), which may be larger
    // than one storage binding: the compute passes write it through up to
    // 16 storage descriptors at offsets, each within maxStorageBufferRange
    // (lavapipe: 128 MiB, 4.2 M vertices each; one binding where the buffer
    // fits one, the usual case on GPUs). At most maxVertexCapacity(): past
    // maxBufferSize, maxMemoryAllocationSize or 16 bindings create() fails
    // with ErrorCode::DeviceLimit naming the limit.
    uint32_t vertexCapacity = 0;
    NormalMode normals = NormalMode::Central;
    // Shared vertices (one per cut edge) and a uint32 index buffer, triangles
    // in the soup's order; vertexCapacity then counts unique vertices. Dense
    // or sparse. Default false (soup).
    bool indexed = false;
    // indexed: index buffer capacity (rounded down to whole triangles); as
    // the vertex buffer, up to 16 storage bindings of one VkBuffer (lavapipe:
    // 33.5 M indices each), at most maxIndexCapacity(). 0 (default): sized
    // and grown by the module as vertexCapacity; non-zero: a hard cap.
    uint32_t indexCapacity = 0;
    // Bytes all of the surface's buffers may take (memoryReport(), replaced
    // buffers aside): the sparse capacities left 0 are sized within it and
    // growth stops where it holds (an ErrorCode::CapacityExceeded error,
    // once); a non-zero budget below the starting buffers fails create().
    // 0 (default): a quarter of the largest device-local heap (1 GiB where unknown).
    uint64_t memoryBudget = 0;
    // Optional. Smoothing of the output surface (see MeshSmoothing); needs
    // indexed = true. Bad values (iterations > 64, NaN or out-of-range
    // lambda / mu, non-indexed output) fail create() naming the field.
    MeshSmoothing meshSmoothing;
    FieldSource source = FieldSource::Metaballs;
    // Initial iso value; "inside" is field >= iso (setIsoValue per frame).
    float isoValue = 0.5f;
    // Metaballs: most balls per frame.
    uint32_t maxBalls = 256;
    // Particles: most particles per frame and the kernel radius (world units).
    // The field is the same to the bit whichever splat the module picks for
    // the device (testing::splatMethod() says which).
    uint32_t maxParticles = 0;
    float particleRadius = 0.1f;
    // Particles: the kernel (see ParticleKernel). Default NeighbourCount;
    // SphCubicSpline is splashsurf's field (`pyramarch iso --particles`'s
    // default).
    ParticleKernel particleKernel = ParticleKernel::NeighbourCount;
    // Particles: position smoothing lambda in [0, 1] (Yu & Turk 2013's
    // Laplacian smoothing, the step before their anisotropic kernels): every
    // frame, on the GPU, each particle moves to x + lambda (mean - x), mean =
    // the average of the particles within particleRadius weighted by
    // 1 - (d / radius)^3 (itself included), before the splat. Smooths the
    // noise of particle positions out of the surface (flatter faces, rounder
    // spheres; see the README for measurements) and shrinks convex parts by
    // up to lambda radius. 0 (default): off; 0.5 is what `pyramarch iso
    // --particle-smoothing` suggests (the paper uses 0.9 together with its
    // anisotropic kernels). NaN or values outside [0, 1] fail create().
    float particleSmoothing = 0.f;
    // Particles: anisotropic kernels (see AnisotropicKernels); with
    // particleSmoothing the kernels sit at the smoothed positions; bad
    // values fail create() naming the field.
    AnisotropicKernels anisotropic;
    ParticleInput particleInput = ParticleInput::Host;
    // ParticleInput::GpuBuffer: required, the host's buffer (storage-buffer
    // usage, at least maxParticles * sizeof(Particle) bytes). Its descriptor
    // is written at creation, so the buffer must outlive the surface and
    // cannot be swapped (unlike everything else here, it is not copied).
    const Buffer* particleBuffer = nullptr;
    // ParticleInput::GpuBuffer: the layout of one particle record in
    // particleBuffer, in bytes (each a multiple of 4): the stride (>= 12),
    // the offset of the x, y, z floats (+ 12 <= stride) and the offset of the
    // weight float (+ 4 <= stride, or kNoParticleWeight: every particle
    // weighs 1). The buffer must hold (maxParticles - 1) * stride + the end
    // of the last record's position and weight. Defaults: Particle.
    uint32_t particleStride = sizeof(Particle);
    uint32_t particlePositionOffset = 0;
    uint32_t particleWeightOffset = 12;
    // Particles, optional: attributes interpolated onto the vertices (see
    // SurfaceAttribute), at most kMaxSurfaceAttributeComponents floats in
    // all. Needs ParticleKernel::SphCubicSpline. Default: none.
    std::vector<SurfaceAttribute> surfaceAttributes;
    // UserGlsl: source of `float field(vec3 p)` (copied). It may use
    // `iso_time` and `iso_params[0..1]` (vec4, setUserParams) and helper
    // functions of its own. Compile errors name lines of this text.
    std::string fieldGlsl;
    // UserGlsl: a Lipschitz bound L of field() (field units per world unit; a
    // signed distance has 1): only the bricks f(c) +- L r can cut
    // are classified (too small an L drops triangles). Finite, >= 0; 0: none.
    float lipschitz = 0.f;
    // UserGlsl, Metaballs, Particles or Volume: a sparse virtual grid (see
    // SparseDomain), chosen by the module where the dense grid does not fit;
    // samples may then exceed what a field buffer or a dense pyramid could hold.
    SparseDomain sparse;
    // UserGlsl: required, the GLSL -> SPIR-V compiler create() calls once,
    // e.g. pyramarch::compileGlsl of the optional shader_compiler component
    // (pyramarch/engine/shader_compiler.h), or the host's own.
    GlslCompiler compileGlsl;
    // Frames the host records ahead of the GPU (1..7, default 2): set*() for
    // frame F only once frame F - framesInFlight has finished on the GPU.
    // The rings (balls, particles, stats) hold framesInFlight + 1 slots.
    uint32_t framesInFlight = 2;
    // record() only: depth of its graph's timestamp ring (frame F's timings
    // readable from frame F + timingFrames - 1 on). 0 (default):
    // framesInFlight + 2; else > framesInFlight, <= 64. addPasses(): the host graph's.
    uint32_t timingFrames = 0;
    // record() only: write GPU timestamps around each pass into the host's
    // command buffer for latestTimings() (default true; false: none, no
    // query pool). addPasses(): RenderGraphOptions::timestamps applies.
    bool timestamps = true;
    // Prefix of pass and resource names; must be unique per graph.
    std::string name = "iso";
};

// Create-infos for the common sources: each sets the source and what it
// needs, every other field keeps its default (capacities 0: sized and grown
// by the module; bounds [-1, 1]^3 unless given). Adjust fields afterwards
// as needed. The helpers check nothing: create() validates and names the
// bad field (samples < 2, maxBalls 0, a NaN radius, empty GLSL, ...).
//
//     auto iso = IsoSurface::create(device, metaballSurface({65, 65, 65}, 16));
//
// Metaballs (setMetaballs() each frame): at most maxBalls balls a frame.
IsoSurfaceCreateInfo metaballSurface(const std::array<uint32_t, 3>& samples, uint32_t maxBalls, float isoValue = 0.5f);
// Particles (setParticles() each frame) on the grid of `samples` spanning
// [boundsMin, boundsMax]; particleRadius: the kernel's support radius (world
// units); isoValue in the kernel's units (ParticleKernel::NeighbourCount).
IsoSurfaceCreateInfo particleSurface(const std::array<uint32_t, 3>& samples, const std::array<float, 3>& boundsMin,
                                     const std::array<float, 3>& boundsMax, uint32_t maxParticles, float particleRadius,
                                     float isoValue);
// The same on a grid from particleGrid() (particle_grid.h: the particles'
// bounds padded by the radius, at a voxel size).
IsoSurfaceCreateInfo particleSurface(const ParticleGrid& grid, uint32_t maxParticles, float particleRadius,
                                     float isoValue);
// A volume of samples[0] x samples[1] x samples[2] values (uploadVolume()).
IsoSurfaceCreateInfo volumeSurface(const std::array<uint32_t, 3>& samples, float isoValue);
// A user GLSL field `float field(vec3 p)` compiled at creation by
// compileGlsl (e.g. pyramarch::compileGlsl); lipschitz as
// IsoSurfaceCreateInfo::lipschitz (0: none). Iso 0 by default: field >= 0 is inside.
IsoSurfaceCreateInfo userFieldSurface(const std::array<uint32_t, 3>& samples, std::string fieldGlsl,
                                      GlslCompiler compileGlsl, float lipschitz = 0.f, float isoValue = 0.f);

// One output vertex as the GPU writes it (IsoVertex in iso_shared.h).
struct IsoVertexData {
    float position[4]; // xyz world; w: triangles emitted by this vertex's cell (0 for indexed output)
    float normal[4];   // xyz unit outward normal, or 0 where the gradient vanishes / is not finite
};

// IsoStats::overflowed bits: the capacity a frame ran short of.
inline constexpr uint32_t kOverflowVertices = 1u << 0;       // verticesNeeded > vertexCapacity
inline constexpr uint32_t kOverflowIndices = 1u << 1;        // indicesNeeded > indexCapacity
inline constexpr uint32_t kOverflowSparseBricks = 1u << 2;   // sparseBricksNeeded > sparseBrickCapacity
inline constexpr uint32_t kOverflowSparseRowPairs = 1u << 3; // sparseRowPairsNeeded > sparseRowPairCapacity
inline constexpr uint32_t kOverflowSparseItemRefs = 1u << 4; // sparseItemRefsNeeded > sparseItemRefCapacity
// sparseVolumeBricksNeeded > SparseDomain::maxVolumeBricks (an octree's leaves)
inline constexpr uint32_t kOverflowSparseVolumeBricks = 1u << 5;

// Stats of one frame, read from the host-visible ring without waiting.
struct IsoStats {
    uint64_t frame = 0;           // the frame they belong to (see "Frame numbering" at IsoSurface)
    uint32_t verticesNeeded = 0;  // indexed: unique vertices
    uint32_t verticesWritten = 0; // == draw vertex count (non-indexed)
    uint32_t activeCells = 0;
    bool overflow = false;       // needed > capacity (vertices or indices)
    uint32_t indicesNeeded = 0;  // indexed only
    uint32_t indicesWritten = 0; // == indexed draw index count
    // Sparse domains: bricks the activate pass found, row pairs with a cut
    // cell and (metaballs, particles) the items the found bricks list, against
    // SparseDomain::maxBricks / maxRowPairs / maxItemRefs (past any: overflow).
    // A grid that fits and runs as bricks reports its listed bricks here.
    uint32_t sparseBricksNeeded = 0;
    uint32_t sparseRowPairsNeeded = 0;
    uint32_t sparseItemRefsNeeded = 0;
    // Bricks reached by more than kMaxSparseItemsPerBrick balls or
    // kMaxSparseParticlesPerBrick particles: classified without them (no
    // triangles there; overflow).
    uint32_t sparseCrowdedBricks = 0;
    // Sparse volumes from an octree (SparseVolumeInput::OctreeLeaves): the
    // bricks its leaves marked, against SparseDomain::maxVolumeBricks (past
    // it: those bricks have no triangles; overflow).
    uint32_t sparseVolumeBricksNeeded = 0;
    // Sparse volumes: the frame's iso value lies outside the range the
    // resident bricks were uploaded for (uploadVolume): triangles only where
    // bricks were uploaded (overflow).
    bool isoOutsideUpload = false;
    // The capacities this frame ran with: vertices, indices; sparse domains'
    // maxBricks and maxRowPairs (0 on a dense grid).
    uint32_t vertexCapacity = 0;
    uint32_t indexCapacity = 0;
    uint32_t sparseBrickCapacity = 0;
    uint32_t sparseRowPairCapacity = 0;
    uint32_t sparseItemRefCapacity = 0; // sparse metaballs and particles: maxItemRefs
    // The capacities this frame ran short of (kOverflow* bits, 0: none);
    // the matching *Needed count is the size that would have held it.
    uint32_t overflowed = 0;
    // True on the first frame after the module grew its buffers: the frame
    // whose stats asked for it and the capacities before (unchanged ones
    // equal the current ones).
    bool grown = false;
    uint64_t grownAfterFrame = 0;
    uint32_t previousVertexCapacity = 0;
    uint32_t previousIndexCapacity = 0;
    uint32_t previousSparseBrickCapacity = 0;
    uint32_t previousSparseRowPairCapacity = 0;
};

// GPU times of one frame of a surface (IsoSurface::latestTimings): passes
// "<name>.<stage>" in recording order, their total, and the frame they belong
// to (see "Frame numbering" at IsoSurface).
using IsoTimings = FrameTimings;

// Capacity (vertices) that would have held `stats` with `headroom` to spare
// (e.g. 1.25), in whole triangles.
uint32_t suggestCapacity(const IsoStats& stats, float headroom = 1.25f);
// Same for the index buffer of indexed output.
uint32_t suggestIndexCapacity(const IsoStats& stats, float headroom = 1.25f);
// The largest vertexCapacity / indexCapacity a device with `limits` takes:
// one VkBuffer within maxBufferSize and maxMemoryAllocationSize, written
// through at most 16 storage bindings of maxStorageBufferRange (whole
// triangles).
uint32_t maxVertexCapacity(const DeviceLimits& limits);
uint32_t maxIndexCapacity(const DeviceLimits& limits);
// Sparse domains: the capacities that would have held `stats` with
// `headroom` to spare (at least 1 each; maxItemRefs and maxVolumeBricks 0
// where the stats counted none: keep the host's). Only the capacities: the
// other fields are the defaults. Not bounded by a device: sparse particles
// keep a block of samples per brick, so a host clamps maxBricks to
// maxSparseParticleBricks() (past it a frame overflows, reported).
SparseDomain suggestSparseCapacity(const IsoStats& stats, float headroom = 1.25f);
// The most pool slots (SparseDomain::maxRowPairs) a device holds: the pool's
// pyramid in one maxStorageBufferRange (~5.2 M slots at 128 MiB).
uint32_t maxSparseRowPairs(const DeviceLimits& limits);
// The most listed bricks (SparseDomain::maxBricks) a sparse particle
// surface holds on a device: each keeps a block of 11^3 F32 samples (5,324
// bytes) in up to 4 buffers of one maxStorageBufferRange, and 2,056 bytes of
// sub-cell run ends in one (65,280 at 128 MiB; the blocks alone: 100,836).
uint32_t maxSparseParticleBricks(const DeviceLimits& limits);
// SparseDomain::maxItemRefs as a surface of `info` on a device with `limits`
// resolves it (0: the default per brick, within one binding; a surface
// created with maxItemRefs 0 sizes and grows its own: IsoSurface::sparseDomain());
// 0 for user fields.
uint32_t sparseItemRefCapacity(const IsoSurfaceCreateInfo& info, const DeviceLimits& limits);

// One per-vertex array of a Mesh.
struct MeshAttribute {
    std::string name;
    uint32_t components = 1;
    std::vector<float> values; // positions.size() x components
};
// A CPU copy of the surface (read back for export, colliders, tests).
struct Mesh {
    std::vector<std::array<float, 3>> positions;
    std::vector<std::array<float, 3>> normals;
    std::vector<uint32_t> indices; // 3 per triangle
    // Per-vertex values (readMesh: the surfaceAttributes, in their order).
    std::vector<MeshAttribute> attributes;
};

// Merges vertices with exactly equal positions (MC emits shared edge
// vertices bit-identically); normals are averaged and renormalised;
// attributes keep the first merged vertex's values.
Mesh weldMesh(const Mesh& mesh);
// Positions, normals and faces (no attributes).
Status writeObj(const Mesh& mesh, const std::string& path);
// Binary little-endian PLY: float x,y,z,nx,ny,nz per vertex, then a float
// property per attribute component (`name` for 1 component, name_x, name_y,
// name_z, name_w for 2-4, name_0 .. for more), uchar/uint face lists.
Status writePly(const Mesh& mesh, const std::string& path);

// What create() does with a FieldSource::UserGlsl field, without creating
// GPU objects: wraps `fieldGlsl` in the module's field shader and compiles
// it with `compile` (e.g. pyramarch::compileGlsl). Compile errors come back
// as the Status (lines of fieldGlsl named as "<name>.fieldGlsl:<line>").
// Hosts can check user text up front; tests/fuzz fuzzes it.
Result<std::vector<uint32_t>> compileUserField(const std::string& fieldGlsl, const GlslCompiler& compile,
                                               const std::string& name = "iso");

// SparseVolumeInput::OctreeLeaves: the octree the host's graph builds
// before the surface's passes (the voxelizer's addPasses() outputs:
// voxel::octreeLeafInput() in pyramarch/voxelizer/iso_bridge.h). Its leaf
// level is the tile range [first, end) whose two uint32 lie in `counters`
// at byte offsets leafTilesFirst and leafTilesEnd; a leaf tile t holds
// nodes 8t .. 8t + 7, each with a uint32 in `nodeCount` (0: empty) and in
// `nodeCoord` (x | y << 10 | z << 20: the voxel). Read only.
struct OctreeLeafInput {
    BufferRef counters, nodeCount, nodeCoord;
    uint32_t leafTilesFirst = 0, leafTilesEnd = 0;
};

// Frame numbering: a surface numbers the frames it records 0, 1, 2, ...
// (one per record(), or per execute() of the graph its passes were added
// to). IsoStats::frame, statsOfFrame(), framesRecorded() and
// IsoTimings::frame all count in it; it differs from a host graph's
// RenderGraph::frameIndex() when that graph executed before the surface's
// passes were added.
//
// Lifetime: destroying an IsoSurface frees its buffers, pipelines and
// descriptor sets at once (the module never waits). Any command buffer that
// recorded its passes (record(), or a host graph after addPasses()) must have
// finished on the GPU first: the host waits (fence of every frame in flight,
// or vkDeviceWaitIdle) before destroying the surface, and must not execute a
// host graph holding its passes afterwards. Destroying it earlier is
// undefined behaviour in Vulkan terms (use-after-free on the GPU); the
// module cannot detect it because it never sees the host's fences.
class IsoSurface {
public:
    // Validates the create-info (errors name the field and limit), creates
    // buffers and pipelines. Needs no queue (host-visible uploads only).
    static Result<std::unique_ptr<IsoSurface>> create(Device& device, const IsoSurfaceCreateInfo& info);
    // Destroy only after the GPU finished every frame that used the surface,
    // and before `device`; a host graph it was added to must not execute again.
    ~IsoSurface();
    IsoSurface(const IsoSurface&) = delete;
    IsoSurface& operator=(const IsoSurface&) = delete;

    // The module's outputs as resources of the graph it was added to: a host
    // pass that draws the surface declares `.use(vertices, Access::VertexRead)`
    // and `.use(drawArgs, Access::IndirectRead)` so the graph orders it after
    // extraction (importing the same buffers again would hide the hazard).
    struct GraphOutputs {
        BufferRef vertices; // IsoVertex[vertexCapacity]
        BufferRef
            drawArgs; // VkDrawIndirectCommand at drawArgsOffset(), VkDrawIndexedIndirectCommand at drawIndexedArgsOffset()
        BufferRef indices;    // indexed output only (use with Access::IndexRead)
        BufferRef attributes; // surfaceAttributes only: attributeBuffer() (e.g. Access::VertexRead)
    };
    // Resources of the host's graph the module reads.
    struct GraphInputs {
        // ParticleInput::GpuBuffer: required, the host's import of
        // particleBuffer into the same graph (import it once; the host's
        // writing pass declares it StorageWrite or StorageReadWrite, and the
        // module's splat declares StorageRead, so the graph puts the barrier
        // between them, and the host's next-frame write after the splat).
        BufferRef particles;
        // SparseVolumeInput::OctreeLeaves: required (OctreeLeafInput).
        OctreeLeafInput octree;
    };
    // Adds this surface's passes to `graph` (once per surface: a second call,
    // or one after record(), is an ErrorCode::InvalidState error). The graph
    // must be executed once per frame; the module's buffers are imported with
    // `before` = `after` = their last use in a frame, so the graph derives
    // every barrier, also across frames.
    Result<GraphOutputs> addPasses(RenderGraph& graph, const GraphInputs& inputs = {});
    // Records one frame without a host graph (an internal graph holds the
    // passes). ParticleInput::GpuBuffer: the internal graph imports
    // particleBuffer as last written by a compute shader before this call and
    // next written by a compute shader after it (barriers on both sides are
    // recorded into `cmd`). On exit the vertex buffer is in vertex-input use,
    // the draw args in indirect-read use and the indices in index-read use
    // (the module's barriers, in `cmd`): a draw later in `cmd`, inside or
    // outside a render pass, needs no barrier for them.
    // A frame boundary: first grows the buffers whose capacities were left 0
    // where the stats of the frame framesInFlight back ask for it (see
    // IsoSurfaceCreateInfo::vertexCapacity; read vertexBuffer() and
    // indexBuffer() again after it). Growth held back by memoryBudget, the
    // allocator or a device limit returns its error once, recording nothing.
    Status record(VkCommandBuffer cmd);
    // Host graph (addPasses()), between frames once they finished: grows the
    // vertex and index buffers left at 0 to the largest needs of the stats
    // ring, within memoryBudget (sparse sizes stay as planned, but for
    // volumes from an octree: their pool, lists and row pairs left 0 grow
    // too). true: build the graph again (a new RenderGraph, addPasses() of
    // every module in it) and re-read the buffers; false: nothing to grow.
    // Past the budget or a device limit an error naming it, once; after
    // record() (which grows itself) ErrorCode::InvalidState.
    Result<bool> grow();
    // The internal graph used by record() (describe(), toDot()); timings come
    // from latestTimings().
    const RenderGraph* internalGraph() const { return internal_.get(); }

    // GPU time of this surface's passes in the newest frame whose timestamps
    // are available (never waits): per pass in recording order, the frame
    // they belong to and the total. Empty until then, and without timestamps
    // (device or RenderGraphOptions::timestamps). With addPasses(), read from
    // that graph, which must still exist.
    std::optional<IsoTimings> latestTimings() const;

    // Per-frame parameters: none recompiles anything.
    void setIsoValue(float iso) { iso_ = iso; }
    float isoValue() const { return iso_; }
    void setTime(float seconds) { time_ = seconds; }
    void setUserParams(const std::array<float, 8>& params) { user_ = params; }
    Status setMetaballs(std::span<const Metaball> balls);
    // ParticleInput::Host: the particles of the next recorded frames (kept
    // until changed). Errors (ErrorCode::InvalidArgument, or
    // CapacityExceeded past maxParticles; the message names the particle
    // index and what is wrong), after which the previous particles stay:
    // a non-finite coordinate, a weight that is negative or not finite
    // (0 is allowed: the particle adds nothing), positionStride < 12,
    // weightStride < 4 or either not a multiple of 4, positions or weights
    // null where needed.
    Status setParticles(std::span<const Particle> particles);
    Status setParticles(const ParticleArrays& particles);
    // ParticleInput::GpuBuffer: particles [0, count) of particleBuffer are
    // splatted from the next recorded frame on (kept until changed). Error
    // past maxParticles.
    Status setParticleCount(uint32_t count);
    // surfaceAttributes: the values of attribute `attribute` (its index there)
    // for the particles of the next recorded frames, kept until changed:
    // particle i's components at values[i * components ...]; particles past
    // the values given read 0. Either ParticleInput (the module copies them
    // into a ring, as setParticles does). Non-finite values are accepted (on
    // the GPU such a component adds 0). Errors: no such attribute, a size
    // not a multiple of its components, more than maxParticles particles.
    Status setParticleAttribute(uint32_t attribute, std::span<const float> values);
    // Copies the volume (dims = create-info samples) to a staging buffer of
    // its size; the next recorded frame converts it (value * scale + offset)
    // and later frames keep the field (zero before any upload). The staging
    // is released framesInFlight + 8 frames after that (kept by surfaces in
    // a host graph) and not ringed: call it only once the frame that
    // converted the previous upload has finished (framesInFlight frames on).
    Status uploadVolume(const void* data, size_t bytes, VolumeFormat format, float scale = 1.f, float offset = 0.f);
    // The same from slabs (VolumeSlabs), for iso values in [isoMin, isoMax].
    // A dense grid reads every slice into the staging buffer. A sparse domain
    // (FieldSource::Volume with sparse.enabled; uploadVolume(data, ...) above
    // keeps the bricks of the current isoValue() only) reads the volume once,
    // slab by slab, and stages only the bricks of 8^3 cells the range can cut
    // with the 11^3 samples each reads; the next recorded frame copies them
    // to the pool. Errors: the format is not sparse.volumeFormat, more
    // surface bricks than maxVolumeBricks (CapacityExceeded, with the count),
    // a read error; the surface keeps what the last successful upload a
    // frame copied (an upload not yet copied is dropped). As for the dense
    // staging: upload only once the frame that copied the previous upload
    // has finished. A frame whose iso value lies outside [isoMin, isoMax]
    // extracts only the bricks that were uploaded and reports it
    // (IsoStats::isoOutsideUpload, overflow).
    Status uploadVolume(const VolumeSlabs& volume, float isoMin, float isoMax);

    // Output. Vertex format: IsoVertex (32 bytes: vec4 position, w = cell
    // triangle count; vec4 normal). Draw with vkCmdDrawIndirect(drawArgsBuffer(), drawArgsOffset(), 1, 16).
    // Growth (capacities 0) replaces the vertex, index and attribute buffers
    // inside a record() call: read vertexBuffer() / indexBuffer() /
    // attributeBuffer() again after each record() (the frame it recorded
    // writes the ones they then return; the replaced ones stay valid until
    // framesInFlight + 8 frames later).
    const Buffer& vertexBuffer() const;
    const Buffer& drawArgsBuffer() const;
    static constexpr VkDeviceSize drawArgsOffset() { return kDrawArgsOffset; }
    // Indexed output: the index buffer (uint32) and vkCmdDrawIndexedIndirect(drawArgsBuffer(), drawIndexedArgsOffset(), 1, 20).
    const Buffer& indexBuffer() const;
    bool indexed() const; // IsoSurfaceCreateInfo::indexed
    static constexpr VkDeviceSize drawIndexedArgsOffset() { return kDrawIndexedArgsOffset; }
    static constexpr uint32_t vertexStride() { return kVertexStride; }
    uint32_t vertexCapacity() const; // whole triangles; the current size (it grows with capacities 0)
    uint32_t indexCapacity() const;  // indexed: the same for the index buffer (0 otherwise)
    // surfaceAttributes: vertex v of vertexBuffer() has attributeComponents()
    // floats at float v * attributeComponents() of attributeBuffer() (vertex
    // and storage buffer usage), attribute i from float attributeOffset(i)
    // on: for a draw, a second vertex binding of stride attributeComponents()
    // x 4 bytes. Written every frame after extraction (and mesh smoothing:
    // the values at the final positions) for the vertices written.
    const Buffer& attributeBuffer() const;
    uint32_t attributeComponents() const; // 0 without surfaceAttributes
    uint32_t attributeOffset(uint32_t attribute) const;
    // The domain create() chose: enabled with every capacity resolved (the
    // module's sizes where the create-info left 0) for a sparse domain,
    // chosen or asked for; enabled = false for the dense grid.
    SparseDomain sparseDomain() const;

    // GPU memory the surface holds, one entry per buffer (name, bytes as
    // created; "replaced": buffers growth replaced, until released), for
    // benchmarks and memory budgets. Render-graph scratch is not included.
    struct MemoryItem {
        std::string name;
        uint64_t bytes = 0;
        // The storage bindings the module's shaders reach it through: more
        // than 1 for a vertex or index buffer past one maxStorageBufferRange.
        uint32_t bindings = 1;
    };
    std::vector<MemoryItem> memoryReport() const;

    // Stats of the newest frame whose ring slot the GPU is known to be done
    // with (framesInFlight frames back); never waits. Empty until then.
    std::optional<IsoStats> latestStats() const;
    // Stats of `frame` if its ring slot still holds them; the caller must
    // know that frame has finished (e.g. after waiting on its fence).
    std::optional<IsoStats> statsOfFrame(uint64_t frame) const;
    uint64_t framesRecorded() const { return frame_; }

    // Reads the current surface back (submits and waits on the device's
    // queue: tools and tests only, not the frame path).
    Result<Mesh> readMesh(bool weld = false);
    // Read-back (submit and wait): the vertices as written; the field
    // samples where the surface keeps a field buffer (a user field with a
    // Lipschitz bound, and metaballs: only the tiles of 8^3 samples the last
    // frame read are current), else ErrorCode::InvalidState (sparse domains,
    // user fields without loops: field() runs where it is read). More in
    // pyramarch/isosurface/testing.h.
    Result<std::vector<IsoVertexData>> readVertices();
    Result<std::vector<float>> readField();
    // Indexed output: the indices as written (indicesWritten of them).
    Result<std::vector<uint32_t>> readIndices();
    // surfaceAttributes: the written vertices' values (verticesWritten x
    // attributeComponents(); empty without attributes).
    Result<std::vector<float>> readAttributes();

    struct Impl;

private:
    friend struct TestingAccess; // pyramarch/isosurface/testing.h
    IsoSurface();
    static Result<std::unique_ptr<IsoSurface>> create(Device& device, const IsoSurfaceCreateInfo& info,
                                                      const testing::Knobs& knobs);
    Result<std::vector<std::vector<uint32_t>>> readPyramid();
    Result<std::vector<uint32_t>> readDrawArgs();
    Result<std::vector<uint32_t>> readActiveCells();
    std::unique_ptr<Impl> impl_;
    std::unique_ptr<RenderGraph> internal_;
    float iso_ = 0.5f;
    float time_ = 0.f;
    std::array<float, 8> user_{};
    uint64_t frame_ = 0;     // frames recorded
    uint64_t recording_ = 0; // the frame being recorded (frame_ - 1 once its first pass ran)
};

} // namespace pyramarch::iso
