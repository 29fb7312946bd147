// Layouts shared by the isosurface C++ code and its GLSL (std430; IsoGrid
// also std140: no scalar arrays). One
// definition: C++ maps the GLSL types below, GLSL includes this directly.
#ifndef PYRAMARCH_ISO_SHARED_H
#define PYRAMARCH_ISO_SHARED_H

#ifdef __cplusplus
#include <cstdint>
namespace pyramarch::iso::gpu {
using uint = uint32_t;
struct uvec2 { uint32_t x, y; };
struct uvec4 { uint32_t x, y, z, w; };
struct vec4 { float x, y, z, w; };
#define ISO_CONST inline constexpr uint32_t
#else
#define ISO_CONST const uint
#endif

// Workgroup sizes (also used by the host to size dispatches).
ISO_CONST kIsoGroupSize = 64;        // classify, field, splat, extract
// Triangles per extract invocation (sparse_extract.comp writes them in a row,
// cell by cell): CPU drivers run a SIMD batch's lanes in lock step and pay
// the top-down walk and a cell's corner samples once per lane, so many per
// invocation; GPUs want threads. The most one takes is a specialization
// constant (kIsoSpecExtractTriangles) of extraction and of the args pass that
// sizes its dispatch; both take isoExtractTrianglesFor() of the triangles
// written, so that a small surface still spreads over many groups.
ISO_CONST kIsoExtractTriangles = 2u;    // GPUs (and the fewest on any device)
ISO_CONST kIsoExtractTrianglesCpu = 32u; // CPU drivers (lavapipe): the most
// Metaballs: up to this many balls one thread evaluates a row segment of
// kIsoRowSamples samples (field_metaballs.comp); more: 4x4x4 tiles.
ISO_CONST kIsoRowBalls = 64;
ISO_CONST kIsoRowSamples = 16;
ISO_CONST kIsoBuildGroupSize = 256;  // pyramid build: 256 threads reduce 1024 elements
ISO_CONST kIsoBuildLevelsPerPass = 4; // levels written by one build dispatch
ISO_CONST kIsoMaxLevels = 20;        // 4^19 > 2^32 cells
ISO_CONST kIsoClassifyLevels = 2;    // pyramid levels above the base written by classify
ISO_CONST kIsoClassifyCells = 16;    // cells per classify thread (4^kIsoClassifyLevels)
ISO_CONST kIsoClassifyGroupSize = 128; // classify: 128 runs of 16 cells = 8 spans of 256 cells
// The scan's classify takes its runs in patches: the 8 runs one SIMD batch
// of lavapipe takes (lanes 8b..8b+7 of a group: run 16k + b of the group's
// 128, k = 0..7, a 16 x 8-cell patch of a 255-wide grid). Patch p = group
// p / 16, batch p % 16.
ISO_CONST kIsoPatchRuns = 8;
// Metaballs and user GLSL fields with a Lipschitz bound evaluate only the
// tiles of kIsoFieldTile^3 samples a listed brick may read (field_tiles.comp).
ISO_CONST kIsoFieldTile = 8;
ISO_CONST kIsoPatchesPerGroup = 16; // kIsoClassifyGroupSize / kIsoPatchRuns
// Sparse domains (IsoSurfaceCreateInfo::sparse, IsoGrid.sparse): the
// virtual grid's bricks of kIsoBrickCells^3 cells; a classify thread takes
// a row pair (2 rows of 8 cells along x, kIsoClassifyCells cells) of a
// listed brick, kIsoBrickRowPairs of them per brick, and takes a pool slot
// of the pyramid only when a cell of its pair is cut.
ISO_CONST kIsoBrickCells = 8;
ISO_CONST kIsoBrickRowPairs = 32;     // (8 / 2) x 8 row pairs per brick
ISO_CONST kIsoBricksPerGroup = 4;     // kIsoClassifyGroupSize / kIsoBrickRowPairs
ISO_CONST kIsoBuildBricks = 128;      // a grid that fits: bricks per first build group (level 3: 8 words a brick)
ISO_CONST kIsoBrickAxisBits = 10;     // brick coordinates in a list entry: 10 bits per axis
// Sparse domains: classify stages each cut pair it claims a pool slot for
// (its 6 sample rows as 2 words, its record, its level-1 sums) in
// kIsoSlotStageWords words; one pass moves it to its place in list order
// (sparse_slot_order.comp).
ISO_CONST kIsoSlotStageWords = 4;
// Metaballs and particles: the most items one brick may list. Classify and
// extraction loop over them ~6 times per invocation, and lavapipe ends every
// loop of an invocation after 65,535 iterations in all (silently): a
// brick past this gets no items (no triangles) and the frame an overflow,
// on every device, so that all give the same output.
ISO_CONST kIsoMaxBrickItems = 8192;
// Activation is coarse to fine: super-bricks of kIsoSuperBricks^3 bricks
// first, then the bricks of the listed ones only.
ISO_CONST kIsoSuperBricks = 8;
ISO_CONST kIsoSuperBrickCount = 512; // kIsoSuperBricks^3 bricks per super-brick
// Corner k of the MC tables (mc::kCornerOffset) as offset code x | y << 1 | z << 2,
// 3 bits per corner: classify and vertex_owner.glsl swap inside bits with masks, not a table.
ISO_CONST kIsoCornerCodes = 0u | 1u << 3 | 3u << 6 | 2u << 9 | 4u << 12 | 5u << 15 | 7u << 18 | 6u << 21;
// Edge e of the MC tables (mc::kEdgeCorners) as the offset codes of its two
// corners, first | second << 4, 8 bits per edge, edges 4k..4k+3 in word k:
// extraction finds an edge's samples with shifts instead of two table loads.
ISO_CONST kIsoEdgeCodes0 = 0x20323110u;
ISO_CONST kIsoEdgeCodes1 = 0x64767554u;
ISO_CONST kIsoEdgeCodes2 = 0x62735140u;

// Base level element of the edge pyramid (and of the cell pyramid's logical
// view, testing::readPyramid): count (0..15) in bits 0..3, case/bits from bit 4.
// The cell pyramid stores its level 0 as the u8 MC case (the count comes from
// isoCaseCount in common.glsl) and level 1 (max 4 x 15 = 60) as u8, 4 per word.
ISO_CONST kIsoPackedLevels = 2u;
// Triangles (0..5) of MC case c, as 3 bit planes of 256 bits: bit c & 31 of
// word c >> 5 of plane k is bit k of the count (from mc::vertexCount, checked
// by packTables at creation). isoCaseCount() picks the words with selects on
// constants: no buffer load (lavapipe loads lane by lane) and no dynamically
// indexed array (a per-invocation copy of the table).
#ifdef __cplusplus
inline constexpr uint32_t kIsoCaseTrianglePlanes[3][8] = {
    {0x96696996u, 0x69969669u, 0x69969669u, 0x96696996u, 0x69969669u, 0x96696996u, 0x96696996u, 0x69969669u},
    {0x977efee8u, 0x899f977eu, 0x0117977eu, 0x20c9c1d7u, 0xab17977eu, 0x4a090117u, 0x3281f117u, 0x135f5841u},
    {0x68800000u, 0x76606880u, 0xfee86880u, 0x5f363e28u, 0x54e86880u, 0x35f6fee8u, 0x4d7e0ee8u, 0x042027beu},
};
#else
const uint kIsoCaseTrianglePlanes[3][8] = uint[3][8](
    uint[8](0x96696996u, 0x69969669u, 0x69969669u, 0x96696996u, 0x69969669u, 0x96696996u, 0x96696996u, 0x69969669u),
    uint[8](0x977efee8u, 0x899f977eu, 0x0117977eu, 0x20c9c1d7u, 0xab17977eu, 0x4a090117u, 0x3281f117u, 0x135f5841u),
    uint[8](0x68800000u, 0x76606880u, 0xfee86880u, 0x5f363e28u, 0x54e86880u, 0x35f6fee8u, 0x4d7e0ee8u, 0x042027beu)
);
#endif
ISO_CONST kIsoCountMask = 0xFu;
ISO_CONST kIsoCaseShift = 4u;

// Particle splat accumulates kernel weights as fixed point so the sum is
// exact and order independent (integer atomics, no float atomics needed).
ISO_CONST kIsoSplatFixedOne = 65536u;
// Particle position smoothing: neighbour weights and offsets (in radii) are
// summed as integers in units of 1/kIsoSmoothFixedOne, so the sums do not
// depend on the order the sort left (determinism). Up to 2^19 neighbours
// within one radius fit the int32 sums.
ISO_CONST kIsoSmoothFixedOne = 4096u;
// Particle count/sort pushed srcLevel: re-binning the smoothed particles
// (vec4 each) instead of loading the frame's particles.
ISO_CONST kIsoRebinSmoothed = 1u;
// Anisotropic kernels: one record of 3 vec4 per sorted particle
// (particles_aniso.comp writes, particles_gather_aniso.comp reads):
// (centre xyz, weight x det G'), (G00 G01 G02 G11), (G12 G22, extent^2, 0),
// G = G' / radius in 1/world units, extent = the largest kernel axis (world).
ISO_CONST kIsoAnisoRecordVec4s = 3u;
// Mesh smoothing (IsoSurfaceCreateInfo::meshSmoothing, mesh_smooth_lists.comp
// and mesh_smooth_step.comp): per-vertex sums of neighbour offsets (cells)
// or face normals (cells^2) as int32 in units of 1/kIsoMeshFixedOne, each
// term clamped to +-kIsoMeshClamp first. A vertex of MC has at most 20
// triangles (4 cells of at most 5; all 2^16 sign patterns around an edge
// checked), 2 terms each: 40 x 2^24 < 2^31, so the sums never wrap, and
// integer sums do not depend on the order of the terms.
ISO_CONST kIsoMeshFixedOne = 65536u;
ISO_CONST kIsoMeshClamp = 256u;
// IsoPush.srcLevel of the mesh smoothing steps: what the step does.
ISO_CONST kIsoMeshStepMove = 0u;    // move by IsoPush.user0.x x the mean neighbour offset
ISO_CONST kIsoMeshStepNormals = 1u; // area-weighted normals from the positions
ISO_CONST kIsoMeshStepCopy = 2u;    // positions copied from the scratch buffer (odd step counts)
// Particle gather: samples per thread (a tile of 8 along x by 2 along y
// sharing its bin rows; measured against 8x1, 4x2, 8x4 and 16x2 on
// lavapipe), and bins per thread of the bin-start scan.
ISO_CONST kIsoGatherColumn = 8u;
ISO_CONST kIsoGatherRows = 2u;
ISO_CONST kIsoBinScanChunk = 256u;

// IsoGrid.particleLayout.z of particles without a weight (all weigh 1).
ISO_CONST kIsoNoWeight = 0xffffffffu;

// Normal modes (IsoGrid.normalMode).
ISO_CONST kIsoNormalForward = 0u;
ISO_CONST kIsoNormalCentral = 1u;
ISO_CONST kIsoNormalSobel = 2u;
ISO_CONST kIsoNormalNone = 3u; // zero normals, no gradient samples read
// Specialization constant ids (every module pipeline gets them; a shader
// that does not declare one ignores it).
ISO_CONST kIsoSpecNormalMode = 0u; // IsoGrid.normalMode, known at creation
ISO_CONST kIsoSpecIndexed = 1u;    // IsoGrid.indexed (classify: shared-vertex counts)
ISO_CONST kIsoSpecVolumeFormat = 2u; // sparse volumes: the pool's kIsoVolume* (SparseDomain::volumeFormat)
ISO_CONST kIsoSpecVolumePoolBricks = 3u; // sparse volumes: bricks per pool buffer
ISO_CONST kIsoSpecVolumePoolCount = 4u;  // sparse volumes: pool buffers in use
ISO_CONST kIsoSpecVertexSlices = 5u;     // output_slices.glsl: vertex buffer bindings in use
ISO_CONST kIsoSpecVertexSliceSize = 6u;  // ... vertices per binding
ISO_CONST kIsoSpecIndexSlices = 7u;      // ... index buffer bindings in use
ISO_CONST kIsoSpecIndexSliceSize = 8u;   // ... indices per binding
ISO_CONST kIsoSpecExtractTriangles = 9u;  // the most triangles one extract invocation takes
ISO_CONST kIsoSpecExtractMinGroups = 10u; // extract workgroups a surface keeps (isoExtractTrianglesFor)
// Extraction takes fewer triangles per invocation while it would otherwise
// run fewer workgroups than this (testing::Knobs::extractMinGroups): with
// few groups one slow worker thread holds the pass up (lavapipe hands
// groups out one at a time; measured in the one-pipeline design note).
ISO_CONST kIsoExtractMinGroups = 32u;
// Triangles per extract invocation for a surface of `triangles` written
// triangles: the largest power of two from kIsoExtractTriangles up to `most`
// that still gives at least `minGroups` (>= 1) workgroups of kIsoGroupSize
// invocations, ceil(triangles / (kIsoGroupSize t)) >= minGroups, that is
// triangles > kIsoGroupSize t (minGroups - 1); kIsoExtractTriangles where
// none does (`most` where it is fewer). The args pass sizes extraction's
// dispatch with it and extraction takes it from the same count: one choice
// for both, the C++ twin for the host and the tests.
#ifdef __cplusplus
inline constexpr uint isoExtractTrianglesFor(uint triangles, uint most, uint minGroups)
#else
uint isoExtractTrianglesFor(uint triangles, uint most, uint minGroups)
#endif
{
    uint t = most;
    while (t > kIsoExtractTriangles && triangles <= t * kIsoGroupSize * (minGroups - 1u)) t >>= 1u;
    return t;
}
// The vertex and index buffers are written through up to this many storage
// bindings each (output_slices.glsl): lavapipe's 2 GiB allocations in its
// 128 MiB bindings.
ISO_CONST kIsoOutputSlices = 16u;

// Sparse particles: the most particles one brick may list (a brick past it
// is crowded: no references, reported). lavapipe ends a shader invocation's
// loops after 65,535 iterations in all (every loop of the invocation counts
// against one limiter): the blocks pass spreads a slice's particles over
// kIsoBlockSplit threads, the border pass a brick's over its
// kIsoBorderThreads, the home list a brick's over 16 threads, and the
// per-particle passes take kIsoListUnroll (8) a trip, each under 61,440
// trips at this many.
ISO_CONST kIsoMaxParticleBrickItems = 491520u;
// Sparse particles: each listed brick's list is ordered by sub-cell
// (sparse_particles_cells.glsl): the cell table (a buffer) holds a header
// (word 0: the home particles listed), then kIsoCellWords words a listed
// brick (its kIsoCellKeys sub-cells' run ends, a word each; its homes'
// first place and one unused), then two words (particle, listed brick) per
// home particle.
ISO_CONST kIsoCellKeys = 512u;
ISO_CONST kIsoCellWords = 514u;
ISO_CONST kIsoCellHeader = 4u;
// Volume formats (IsoGrid.volumeFormat).
ISO_CONST kIsoVolumeU8 = 0u;
ISO_CONST kIsoVolumeU16 = 1u;
ISO_CONST kIsoVolumeF32 = 2u;
ISO_CONST kIsoVolumeNone = 3u; // a dense volume before any upload: zeros, no staging read
// Sparse volumes: a pool brick holds the samples a brick's cells and their
// normals read, 8b - 1 .. 8b + 9 per axis (one below, two above the brick's own).
ISO_CONST kIsoVolumeBrickSide = 11u;
ISO_CONST kIsoVolumeBrickSamples = 1331u; // kIsoVolumeBrickSide^3
// The pool spans up to this many buffers (bindings 7, 9, 10, 11), each
// within one maxStorageBufferRange.
ISO_CONST kIsoVolumePools = 4u;
// Sparse particles (sparse_particles_blocks.comp): each listed brick's block
// of the same 11^3 samples, kIsoBlockThreads threads per brick
// (kIsoBricksPerGroup bricks per group: classify's indirect dispatch); the
// brick's own 9^3 samples kIsoBlockRows rows of 9 of one z slice a thread.
ISO_CONST kIsoBlockRows = 9u;
// The brick table's word of a brick that particles reach but that has no
// block (past maxBricks, or its references did not fit).
ISO_CONST kIsoBrickDropped = 0xffffffffu;
// The blocks pass: a slice's particles split over this many threads, whose
// integer sums add up in shared memory (the same bits in any order).
ISO_CONST kIsoBlockSplit = 8u;
ISO_CONST kIsoBlockThreads = 72u;  // 9 slices x ceil(9 / kIsoBlockRows) x kIsoBlockSplit
ISO_CONST kIsoBorderThreads = 64u; // the border pass: 2 of the block's 121 rows a thread

// Marching cubes tables as the GPU reads them, packed from the C++ tables
// (modules/isosurface/src/mc_tables.cpp) at creation: the only copy.
// The MC tables the shaders read, per case: x, y the edge of vertex j in
// nibble j (15 nibbles, winding applied), z 0, w the vertex count. A uniform buffer (std140: uvec4s only):
// lavapipe gathers a divergent uniform-buffer index as a vector, where a
// storage-buffer load runs lane by lane.
struct IsoTables {
    uvec4 cases[256];
};

// Static description of one surface's grid; written once at creation.
struct IsoGrid {
    uvec4 samples;      // xyz: samples per axis; w: total samples
    uvec4 cells;        // xyz: cells per axis; w: total cells
    vec4 boundsMin;     // xyz: world position of sample (0,0,0)
    vec4 spacing;       // xyz: world distance between samples
    // Pyramid level k (a uvec4 per level, so that the grid has the same
    // layout in std140, as the uniform buffer the shaders read it from, and
    // std430): x the word (uint) where its storage starts (levels below
    // packedLevels hold 4 u8 elements per word, element i in byte i & 3 of
    // word i / 4; the others one element per word), y its element count,
    // z its first element's index over all levels (the scan's offsets buffer
    // is laid out by it), w 0.
    uvec4 levels[kIsoMaxLevels];
    uint levelCount;    // levels including the base; top = levelCount - 1
    uint vertexCapacity; // whole triangles (multiple of 3)
    uint maxGroupsX;    // maxComputeWorkGroupCount[0]
    uint normalMode;
    uint statsSlots;    // ring depth of the stats buffer
    uint maxItems;      // balls or particles per ring slot
    uint baseMask;      // pyramid build: mask of level-0 elements (count bits, or all for bin counts)
    uint indexed;       // 1: shared vertices + index buffer (edge pyramid over samples)
    uint indexCapacity; // indices, whole triangles (indexed only)
    uint itemSlotStride; // particles: elements between ring slots (maxItems; 0 for a host GPU buffer, which has no ring)
    uint scanOccupancy; // 1: ExtractionMethod::Scan (classify also writes occupancy level 1)
    uint runBounds;     // 1: classify reads per-run value bounds (volume source; one vec2 per classify run)
    uint packedLevels;  // levels stored as u8 (cell pyramid: kIsoPackedLevels, level 0 = MC case; others 0)
    uint sparseOrderSupers; // sparse: listed super-bricks the brick marks hold (min(super-bricks, maxBricks))
    uint reserved1;     // unused: keeps the vec4 members below 16-aligned
    uint anisotropic;   // 1: anisotropic particle kernels (AnisotropicKernels; gather only)
    vec4 particle;      // x: radius, y: 1/radius^2, z: position smoothing lambda (0: off), w: anisotropic isotropicRatio
    // Particle gather: bins are the cells of the sample lattice, extended by
    // binPad cells below and binReach cells above every axis (the cells whose
    // particles can reach a sample): bin = cell + binPad per axis.
    uvec4 binDims;      // bins per axis (xyz), total (w)
    // Anisotropic kernels: x neighbourhood radius (world), y largest axis
    // ratio, z largest axis (in radii), w axis of sparse particles (radii).
    vec4 aniso;
    // Particles: how one particle sits in the particle buffer, in floats:
    // x stride, y offset of x/y/z, z offset of the weight (kIsoNoWeight: 1);
    // w 1: the field pass flags its tiles holding a nonzero sample (the
    // bricks' bounds read them).
    uvec4 particleLayout;
    uvec4 binPad;       // particle gather: xyz ceil(radius / spacing): cells below a sample its kernel reaches
    uvec4 binReach;     // particle gather: xyz floor(radius / spacing): cells above
    // Particle gather: the cells below / above a sample whose (sorted)
    // particles the gather reads: binPad / binReach without position
    // smoothing; with it, those of (1 + lambda) radius (a smoothed particle
    // moves at most lambda radius), while the bins reach (2 + lambda) radius
    // so that every such particle has all its neighbours binned.
    uvec4 gatherBelow;  // xyz cells below
    uvec4 gatherAbove;  // xyz cells above
    uvec4 smoothReach;  // position smoothing: xyz ceil(radius / spacing), the neighbour bins around a particle's bin
    // Anisotropic kernels: xyz ceil(neighbourhood / spacing), the neighbour
    // bins around a particle's bin; w fewest neighbours (itself included)
    // for a stretched kernel.
    uvec4 anisoReach;
    // Index -> coordinates without integer division (lavapipe divides lane
    // by lane): n / d = divideBy(n, multiplier, shifts) (common.glsl) with
    // the host's constants for d (uintDivisor, layout.cpp). x, y:
    // multipliers for cells.x and cells.y (samples.x and samples.y); z, w:
    // their shifts (s1 | s2 << 8).
    uvec4 cellDivisors;
    uvec4 sampleDivisors;
    // Sparse domain (1 in w; else 0 and unused): xyz bricks per axis of the
    // virtual grid. The pool pyramid's levels above are over pool slots of
    // kIsoClassifyCells cells, not over the grid's cells.
    uvec4 sparse;
    // Sparse: x most bricks listed per frame, y pool slots, z total bricks
    // of the virtual grid, w metaballs and particles: most item references
    // of the listed bricks; volumes: the pool's bricks (maxVolumeBricks);
    // user fields 0.
    uvec4 sparseLimits;
    // Sparse: brick index -> coordinates (divideBy constants for the bricks
    // per axis x and y, as cellDivisors).
    uvec4 brickDivisors;
    // Sparse: super-bricks per axis (xyz) and in all (w), and their index ->
    // coordinates constants.
    uvec4 superBricks;
    uvec4 superDivisors;
    // Sparse particles with position smoothing or anisotropic kernels (else
    // 0): x how far (world units) each particle is listed around it, y how
    // far past the grid a particle still counts (particles_kernel.glsl's
    // listSamples), z how far from it its moved or stretched kernel adds
    // to a sample (sparse_particles_blocks.comp; 0: the radius).
    vec4 sparseParticleReach;
};

// Per-frame values: push constants, so changing them never touches a buffer
// the GPU may still read.
struct IsoPush {
    float iso;
    float time;
    uint itemCount;  // balls or particles this frame
    uint frame;
    uint slot;       // ring slot of this frame
    uint srcLevel;   // pyramid build: level read
    uint numLevels;  // pyramid build: levels written; mesh smoothing steps: flags (mesh_smooth_step.comp)
    uint volumeFormat; // volume source: kIsoVolume* of the current upload
    vec4 user0;      // user GLSL field parameters; volume source: x scale, y offset; mesh smoothing: x step factor
    vec4 user1;
};

// Written by the args pass (device local): indirect commands for extraction
// and drawing. Non-indexed: dispatch = extract (one thread per triangle),
// draw = VkDrawIndirectCommand.
// Indexed: dispatch = unique vertices, indexDispatch = index generation,
// drawIndexed = VkDrawIndexedIndirectCommand, draw.vertexCount = 0.
struct IsoArgs {
    uint dispatchX, dispatchY, dispatchZ, verticesWritten;
    uint vertexCount, instanceCount, firstVertex, firstInstance;   // byte 16
    uint indexDispatchX, indexDispatchY, indexDispatchZ, pad0;     // byte 32: one thread per index written
    uint indexCount, indexedInstanceCount, firstIndex, vertexOffset; // byte 48
    uint indexedFirstInstance;
    uint vertexDispatchX, vertexDispatchY, vertexDispatchZ; // byte 68: indexed, one thread per shared vertex written
};

// One slot of the stats ring (host visible).
struct IsoStatsGpu {
    uint verticesNeeded;  // indexed: unique vertices
    uint verticesWritten;
    uint activeCells;
    uint overflow;
    uint frame;
    uint valid;
    uint indicesNeeded;   // indexed only
    uint indicesWritten;
    uint sparseBricks;    // sparse: bricks listed as needed (may exceed the list's capacity)
    uint sparseSlots;     // sparse: pool slots needed
    uint sparseItemRefs;  // sparse metaballs, particles: item references needed
    uint sparseCrowdedBricks; // sparse metaballs, particles: bricks past the items one may list
    uint sparseVolumeBricks;  // sparse volumes from an octree: surface bricks needed (may exceed the pool)
};

struct IsoCounters {
    uint activeCells;
    uint sparseBricks; // sparse: bricks the activate pass found (the list's append counter)
    uint sparseSlots;  // sparse: row pairs with a cut cell (the pool's slot counter)
    uint sparseSupers; // sparse: super-bricks the coarse activate pass listed
    uint sparseItemRefs; // sparse metaballs, particles: item references of the listed bricks (their append counter)
    uint sparseCrowdedBricks; // sparse metaballs, particles: bricks past the items one may list
    uint sparseVolumeBricks;  // sparse volumes from an octree: surface bricks marked (the pool slot counter)
    uint sparseFreeSlots;     // sparse particles: block slots freed this frame (sparse_particles_slots.comp)
    uint sparseFreeTaken;     // sparse particles: of those, taken by new bricks
};

// Output vertex (32 bytes): what the draw consumes.
struct IsoVertex {
    vec4 position; // xyz world position; w: triangles emitted by this vertex's cell (debug colouring)
    vec4 normal;   // xyz unit outward normal (0 where the gradient vanishes or is not finite); w 0
};

// Metaball and particle records as the host writes them.
struct IsoBall {
    vec4 centerRadius; // xyz centre, w radius of influence
    vec4 strength;     // x strength
};

#ifdef __cplusplus
static_assert(sizeof(IsoPush) == 64, "push constants");
static_assert(kIsoMaxBrickItems * 6 + 4096 < 65535, "a brick's items looped over ~6 times stay under lavapipe's loop limit");
static_assert(kIsoMaxParticleBrickItems / kIsoBlockSplit + 2048 < 65535 &&
                  kIsoMaxParticleBrickItems / 8 + 2048 < 65535,
              "a thread of the blocks pass (and of the per-particle passes, 8 particles a trip) loops over a share of "
              "its brick's list under lavapipe's loop limit");
static_assert(kIsoCellWords == kIsoCellKeys + 2, "a sub-cell's run end takes a word");
static_assert(kIsoBuildBricks * kIsoBrickRowPairs / 4 == kIsoBuildGroupSize * 4 && kIsoClassifyLevels == 2,
              "a first build group reduces the level-3 words of kIsoBuildBricks whole bricks");
static_assert(kIsoBlockThreads ==
                  (kIsoBrickCells + 1) * ((kIsoBrickCells + kIsoBlockRows) / kIsoBlockRows) * kIsoBlockSplit,
              "sparse particle blocks: kIsoBlockSplit threads per kIsoBlockRows rows of each of the brick's 9 slices");
static_assert(sizeof(IsoTables) == 4096, "tables: 256 uvec4");
// 4 vec4 + 20 level uvec4s + 16 uints, then vec4-aligned members: the same
// offsets in std430 and std140 (no scalar arrays, vec4 members 16-aligned).
static_assert(sizeof(IsoGrid) == 64 + 320 + 64 + 48 + 80 + 16 + 16 + 32 + 96,
              "IsoGrid must match its std430 and std140 layouts (vec4 members 16-aligned)");
static_assert(sizeof(IsoArgs) == 80, "args");
static_assert(kIsoRowBalls <= 64, "kIsoRowBalls: at most 64 balls per row segment and brick bound");
static_assert(sizeof(IsoBall) == 32, "ball");
static_assert(sizeof(IsoVertex) == 32, "vertex");
} // namespace pyramarch::iso::gpu
#endif
#undef ISO_CONST
#endif
