// Test and debug entry points of the isosurface module. Not part of the
// stable API: for tests, tools and benchmarks; they may change in any
// release. The read-backs submit and wait on the device's queue (call them
// after the recorded frame finished).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pyramarch/engine/device.h"
#include "pyramarch/isosurface/isosurface.h"

namespace pyramarch::iso::testing {

// How vertices find their place in the vertex buffer. Same triangles
// either way; `pyramarch bench` compares the two.
enum class ExtractionMethod {
    // Default: one thread per output vertex walks the pyramid top-down.
    HistoPyramid,
    // The CUDA marchingCubes sample's baseline (docs/algorithms.md):
    // exclusive scans of cell occupancy and vertex counts, compaction of the
    // active cells, then one thread per active cell writes its vertices. A
    // dense grid only; no indexed output, no fused user field.
    Scan,
};

// How particles become the field. Both sum the same 16.16 fixed-point
// kernel terms as integers: the same field to the bit.
enum class SplatMethod {
    // Default: Gather on CPU drivers (and devices of unknown type), where
    // particleSmoothing, SphCubicSpline or anisotropic kernels need it,
    // and where the scatter would not fit; else Scatter (sparse: Scatter).
    Auto,
    // One thread per particle adds its kernel to the samples it covers with
    // integer atomics into an accumulator.
    Scatter,
    // Counting sort of the particles into bins of one sample cell, then one
    // thread per tile of 8 x 2 samples sums the particles its radius reaches
    // (no atomics on the field); (samples + padding) x 8 bytes of bins and
    // 20 bytes per particle.
    Gather,
};

// Where a UserGlsl field is evaluated.
enum class FieldEvaluation {
    // Default: Fused with the HistoPyramid unless field() contains a loop
    // (probed in its SPIR-V at creation), else Buffer; Buffer with the scan.
    Auto,
    // A field pass stores every sample (with a Lipschitz bound: the samples
    // the listed bricks read) in a field buffer; readField() reads it.
    Buffer,
    // No field pass and no buffer: classify and extraction call field() at
    // the samples they read (the snippet must not declare specialization
    // constants 0 or 1). Same cases and triangles as Buffer up to the
    // compiler's rounding of the snippet in another shader. HistoPyramid only.
    Fused,
};

struct Knobs {
    // The measured variants (the defaults are what IsoSurface::create runs).
    ExtractionMethod extraction = ExtractionMethod::HistoPyramid;
    SplatMethod splat = SplatMethod::Auto;                   // FieldSource::Particles
    FieldEvaluation fieldEvaluation = FieldEvaluation::Auto; // FieldSource::UserGlsl
    // Output buffers a surface with vertexCapacity / indexCapacity 0 starts
    // with (vertices and indices; 0 = the module's start), so tests grow
    // them from a tiny size.
    uint32_t startOutputCapacity = 0;
    // Listed bricks a sparse domain with maxBricks 0 starts with (row pairs
    // left 0: 8 a brick; metaball references left 0: 4 a brick; 0 = the
    // module's start).
    uint32_t startSparseBricks = 0;
    // Folds dispatches at this many groups along x instead of the device's
    // maxComputeWorkGroupCount[0] (0 = the device limit), so tests exercise
    // the fold on small grids.
    uint32_t maxGroupsX = 0;
    // Extraction keeps at least this many workgroups before it takes more
    // triangles per invocation (0 = gpu::kIsoExtractMinGroups; 1: always
    // the device's most, so tests run long runs on small grids).
    uint32_t extractMinGroups = 0;
    // One atomic per thread for classify's active-cell count and activate's
    // list append, even where the device could aggregate them per subgroup:
    // the fallback path, compared bit for bit with the default.
    bool perThreadAtomics = false;
    // Read the field and the pyramid (and the particle gather's bins and
    // particles) through storage buffers even where texel buffers (the default
    // within maxTexelBufferElements) would cover them: the fallback path,
    // compared bit for bit with the default.
    bool storageReads = false;
    // Bounded user GLSL and metaballs: evaluate every sample but keep the
    // brick list (not only the tiles the listed bricks read): the reference
    // for those tiles, with the same list even where a user's bound lies.
    bool denseField = false;
    // Sparse volumes: at most this many bricks per pool buffer (0 = what one
    // binding's range holds), so tests spread a small pool over several.
    uint32_t volumePoolBricks = 0;
    // At most this many bytes per storage binding of the vertex and index
    // buffers (0 = one maxStorageBufferRange; whole elements, aligned), so
    // tests spread a small surface over several bindings.
    uint64_t outputSliceBytes = 0;
    // A surface without sparse.enabled is planned dense as if the device's
    // maxStorageBufferRange were at most this many bytes (0 = the device's),
    // so tests reach the sparse domain the module falls back to at small sizes.
    uint64_t denseRangeBytes = 0;
    // The device-local heap a memory budget of 0 takes a quarter of (0 = the
    // device's; without a device, as in planLayout(), the budget is 1 GiB).
    uint64_t deviceLocalHeapBytes = 0;
};

// FieldSource::Particles: the splat `surface` runs (SplatMethod::Auto
// resolved at creation; Scatter or Gather). Other sources: Auto.
SplatMethod splatMethod(const IsoSurface& surface);

// Whether `surface`'s grid runs on the direct brick table (a grid that fits,
// not the scan): its triangles come in brick
// order (bricks of 8^3 cells x fastest, then row pairs, then cells) and its
// pyramid is over every brick's row pairs.
bool directBricks(const IsoSurface& surface);

// What IsoSurface::create plans for `info` on a device with `limits`,
// without a device (pure, no Vulkan calls): the pyramid and buffer sizes, or
// the error create() would return (same message and ErrorCode).
struct LayoutPlan {
    std::vector<uint32_t> pyramidLevelSizes; // level 0 = one element per cell, last = 1
    uint64_t fieldBytes = 0;
    uint64_t pyramidBytes = 0;
    uint64_t vertexBytes = 0;
    uint32_t vertexCapacity = 0; // whole triangles
    // The storage bindings the shaders write the vertex / index buffer
    // through, and the elements each covers.
    uint32_t vertexSlices = 1, vertexSliceElements = 0;
    uint64_t indexBytes = 0; // indexed output only
    uint32_t indexSlices = 1, indexSliceElements = 0;
    uint32_t maxGroupsX = 0;               // where dispatches fold
    SplatMethod splat = SplatMethod::Auto; // particles: the method SplatMethod::Auto resolved to
    bool texelReads = false;               // extraction reads the field and pyramid as texel buffers
    // The domain planned: enabled with the capacities resolved (see
    // IsoSurface::sparseDomain()), or enabled = false for the dense grid.
    SparseDomain sparse;
};
Result<LayoutPlan> planLayout(const IsoSurfaceCreateInfo& info, const DeviceLimits& limits, const Knobs& knobs = {},
                              const std::string& deviceName = "planned device");

// IsoSurface::create with test knobs.
Result<std::unique_ptr<IsoSurface>> create(Device& device, const IsoSurfaceCreateInfo& info, const Knobs& knobs);
// The x size dispatches are folded at (the knob, or the device limit).
uint32_t maxGroupsX(const IsoSurface& surface);
// Triangles per extract invocation of `surface` when it writes `triangles`
// triangles (gpu::isoExtractTrianglesFor with the surface's most, many on
// CPU drivers and gpu::kIsoExtractTriangles on GPUs, and Knobs::extractMinGroups).
uint32_t extractTriangles(const IsoSurface& surface, uint32_t triangles);
// n / d computed as the shaders do (multiply-high and shifts with the
// constants the module puts in the grid for d), for checking them exhaustively.
uint32_t divideLikeTheGpu(uint32_t n, uint32_t d);
// Whether classify and activate aggregate their atomics per subgroup.
bool subgroupAtomics(const IsoSurface& surface);
// Whether extraction reads the field and the pyramid through texel buffers.
bool texelReads(const IsoSurface& surface);
// Whether the particle gather's density pass and isotropic gather read the
// bin starts and the particles through texel buffers.
bool particleTexelReads(const IsoSurface& surface);
// Whether the bricked SPH density pass reads the sub-cells, the references
// and the particles through texel buffers (the module's own particle ring).
bool sparseTexelReads(const IsoSurface& surface);

// The pyramid levels, decoded to 32 bits (level 0 = count | case << 4 per cell;
// the GPU stores levels 0 and 1 as u8). Error if a u8 level has nonzero bytes
// past its end. In cell order (the scan) volume sources store a classify run
// (16 cells) whose value bounds lie entirely at/above the iso value as zeros,
// not case 255.
Result<std::vector<std::vector<uint32_t>>> readPyramid(IsoSurface& surface);
// The args buffer as words: IsoArgs of shaders/isosurface/iso_shared.h (dispatch,
// draw at IsoSurface::drawArgsOffset(), index dispatch, indexed draw at
// IsoSurface::drawIndexedArgsOffset()).
Result<std::vector<uint32_t>> readDrawArgs(IsoSurface& surface);
// ExtractionMethod::Scan: the compacted active-cell list (cell indices in
// order), as long as the occupancy total.
Result<std::vector<uint32_t>> readActiveCells(IsoSurface& surface);
// FieldSource::Volume in cell order (the scan): per classify run (the 16 consecutive cells, x
// fastest, one classify thread takes) 4 floats: (min, max) of the samples
// of its cells in its first row of cells, then (min, max) of its cells past
// that row ((+inf, -inf) for a run that ends in its first row); NaN samples
// count as -infinity. Written once per upload.
Result<std::vector<float>> readRunBounds(IsoSurface& surface);

// Sparse particles: each brick the last recorded frame listed (its list
// entry: 10-bit brick coordinates per axis) with the block slot it got,
// sorted by entry. A brick listed in consecutive frames keeps its slot
// (sparse_particles_slots.comp). InvalidState for other surfaces.
struct BlockSlot {
    uint32_t brick = 0, slot = 0;
};
Result<std::vector<BlockSlot>> readBlockSlots(IsoSurface& surface);
// Sparse particles: the block of pool slot `slot` as the last recorded frame
// left it: kIsoVolumeBrickSamples floats, the samples 8b - 1 .. 8b + 9 of
// its brick b per axis, x fastest (sparse_particles_blocks.comp).
Result<std::vector<float>> readParticleBlock(IsoSurface& surface, uint32_t slot);
// Fills the field buffer with `bits` (submit and wait): for checking that a
// user field evaluated by tiles (Lipschitz bound) never reads a sample it
// did not evaluate in the same frame.
Status poisonField(IsoSurface& surface, uint32_t bits);
// The tiles of kIsoFieldTile^3 samples (x fastest) the last frame's user
// field pass evaluated, sorted; an error without a Lipschitz bound.
Result<std::vector<uint32_t>> readFieldTiles(IsoSurface& surface);
// SplatMethod::Gather with particleSmoothing > 0: the binned particles as the
// sort left them (x, y, z, weight; maxParticles records, the binned ones
// first) and, in the same order, the smoothed particles of the last frame.
// On a sparse domain: no `sorted`; the smoothed particles by index in the
// frame (weight 0 where the particle's home brick was not listed).
struct SmoothedParticles {
    std::vector<float> sorted, smoothed;
};
Result<SmoothedParticles> readSmoothedParticles(IsoSurface& surface);
// ParticleKernel::SphCubicSpline: the density pass's records of the last
// frame (x, y, z, volume V_j; the first `binned` of maxParticles records, in
// the order of the particles it read: the sort's, or with particleSmoothing
// the re-binning's). On a sparse domain: one volume per particle of the
// frame, by its index (binned = maxParticles; 0 where its home brick was
// not listed).
struct ParticleVolumes {
    std::vector<float> volumes;
    uint32_t binned = 0;
};
Result<ParticleVolumes> readParticleVolumes(IsoSurface& surface);
// Anisotropic kernels: the binned particles as the sort left them (x, y, z,
// weight; the first `binned` of maxParticles records) and, in the same
// order, their kernel records (kIsoAnisoRecordVec4s x 4 floats each:
// centre xyz, weight x det G'; G00 G01 G02 G11; G12 G22 extent^2 0, G in
// 1/world units) of the last frame. On a sparse domain: no `sorted`, the
// records by particle index in the frame (binned = maxParticles; zero where
// the particle's home brick was not listed).
struct AnisotropicKernelRecords {
    std::vector<float> sorted, kernels;
    uint32_t binned = 0;
};
Result<AnisotropicKernelRecords> readAnisotropicKernels(IsoSurface& surface);
// SplatMethod::Gather: the bins of the last frame's counting sort (with
// particleSmoothing, of the re-binning of the smoothed particles). `dims`
// bins per axis, x fastest; a particle in sample cell i of an axis (i may
// be negative or past the samples) is in bin i + pad of that axis. `starts`
// (dims product + 1 words): the exclusive prefix of the bins' particle
// counts, the number binned last. InvalidState error without the gather.
struct GatherBins {
    std::array<uint32_t, 3> dims{}, pad{};
    std::vector<uint32_t> starts;
};
Result<GatherBins> readGatherBins(IsoSurface& surface);

} // namespace pyramarch::iso::testing
