#include "tool_cli.h"

#include <filesystem>
#include <tuple>

#include "pyramarch/isosurface/particle_io.h"
#include "sample/cli.h"
#include "sample/scenes.h"

namespace sample {

namespace {

// What the parser can check of `pyramarch iso` without a device or files.
int checkIsoOptions(const IsoOptions& iso) {
    const std::string prog = "pyramarch iso";
    std::string sources;
    int count = 0;
    for (const auto& [name, value] : {std::pair<const char*, const std::string*>{"--field", &iso.field},
                                      {"--raw", &iso.raw},
                                      {"--glsl", &iso.glsl},
                                      {"--particles", &iso.particles}})
        if (!value->empty()) {
            sources += std::string(count ? " and " : "") + name;
            ++count;
        }
    if (count == 0) return fail(prog, "give one of --field, --raw, --glsl or --particles");
    if (count > 1) return fail(prog, "give only one of --field, --raw, --glsl or --particles, got " + sources);
    if (!iso.out.empty()) {
        const std::string ext = std::filesystem::path(iso.out).extension().string();
        if (ext != ".ply" && ext != ".obj") return fail(prog, "--out must end in .ply or .obj, got '" + iso.out + "'");
    }
    if (iso.lipschitzGiven && iso.glsl.empty())
        return fail(prog, "--lipschitz applies to --glsl only (the other sources bound their patches themselves)");
    if (!(iso.lipschitz >= 0.f)) return fail(prog, "--lipschitz must be >= 0 (0: classify every patch)");
    if (iso.sparse) {
        if (iso.glsl.empty() && iso.particles.empty() && iso.raw.empty() && !sample::isAnalyticField(iso.field) &&
            iso.field != "metaballs")
            return fail(prog, "--sparse applies to --field sphere|cayley|gyroid|metaballs, --glsl (a GLSL field "
                              "with a Lipschitz bound), --raw and --particles, got " +
                                  std::string(iso.field.empty() ? "another source" : "--field " + iso.field));
    }
    if (iso.meshSmoothing > 64) return fail(prog, "--mesh-smoothing must be at most 64 iterations");
    if (!(iso.meshLambda > 0.f && iso.meshLambda <= 1.f))
        return fail(prog, "--mesh-smoothing-lambda must be in (0, 1]");
    if (!(iso.meshMu >= -1.f && iso.meshMu <= 0.f))
        return fail(prog, "--mesh-smoothing-mu must be in [-1, 0] (0: plain Laplacian)");
    if (iso.meshWeightsGiven && iso.meshSmoothing == 0)
        return fail(prog, "--mesh-smoothing-lambda and --mesh-smoothing-mu need --mesh-smoothing N > 0");
    // Domain boxes: min and max together, three finite numbers each, min <= max.
    for (const auto& [name, lo, hi] : {std::tuple<const char*, const std::string*, const std::string*>{
                                           "--particle-aabb", &iso.particleAabbMin, &iso.particleAabbMax},
                                       {"--mesh-aabb", &iso.meshAabbMin, &iso.meshAabbMax}}) {
        if (lo->empty() && hi->empty()) continue;
        const std::string n(name);
        if (lo->empty() || hi->empty()) return fail(prog, n + "-min and " + n + "-max go together");
        float a[3], b[3];
        if (!parseFloatList(*lo, a, 3))
            return fail(prog, n + "-min: expected three finite numbers x,y,z, got '" + *lo + "'");
        if (!parseFloatList(*hi, b, 3))
            return fail(prog, n + "-max: expected three finite numbers x,y,z, got '" + *hi + "'");
        for (int k = 0; k < 3; ++k)
            if (!(a[k] <= b[k])) return fail(prog, n + "-min must not exceed " + n + "-max on any axis");
    }
    if (!iso.meshAabbMin.empty() && iso.out.empty())
        return fail(prog, "--mesh-aabb-min/max clip the written mesh: give --out");
    if (iso.particles.empty() && (!iso.particleAabbMin.empty() || !iso.attributes.empty()))
        return fail(prog, "--particle-aabb-min/max and --attributes apply to --particles only");
    if (!iso.interpolateAttributes.empty()) {
        if (iso.particles.empty()) return fail(prog, "--interpolate-attributes applies to --particles only");
        if (!iso.out.empty() && std::filesystem::path(iso.out).extension() != ".ply")
            return fail(prog, "--interpolate-attributes writes PLY vertex properties: --out must end in .ply");
        if (!iso.meshAabbMin.empty())
            return fail(prog, "--interpolate-attributes and --mesh-aabb-min/max do not go together (the clip's new "
                              "vertices would have no values)");
        if (iso.particleKernel != "sph")
            return fail(prog, "--interpolate-attributes needs --particle-kernel sph (its weights are the SPH "
                              "density pass's particle volumes)");
        for (const std::string& name : iso.interpolateAttributes)
            if (name.empty()) return fail(prog, "--interpolate-attributes: an empty attribute name");
    }
    const bool outPattern = pyramarch::iso::isSequencePattern(iso.out);
    if (iso.particles.empty()) {
        if (iso.particleOptionsGiven)
            return fail(prog, "--particle-radius, --smoothing-length, --voxel-size, --cube-size, "
                              "--surface-threshold, --particle-kernel, --particle-smoothing and "
                              "--anisotropic apply to --particles only");
        if (outPattern)
            return fail(prog, "--out '" + iso.out + "' has {} but only a --particles sequence writes several meshes");
        if (!iso.raw.empty() && iso.cellsGiven)
            return fail(prog, "--cells does not apply to --raw (its samples are --dims)");
        if (iso.raw.empty() && (iso.dimsGiven || iso.typeGiven))
            return fail(prog, "--dims and --type apply to --raw only");
        return -1;
    }
    // --particles
    if (iso.cellsGiven || iso.boundsGiven || iso.dimsGiven || iso.typeGiven)
        return fail(prog, "--cells, --bounds, --dims and --type do not apply to --particles: the grid is the "
                          "particles' bounds padded by "
                          "the kernel support, sampled every --voxel-size");
    if (!(iso.particleRadius > 0.f))
        return fail(prog, "--particles needs --particle-radius R > 0 (world units, about half the particle spacing)");
    if (!(iso.smoothingLength > 0.f) || iso.smoothingLength > pyramarch::iso::kMaxSmoothingLength)
        return fail(prog, "--smoothing-length must be > 0 and at most " +
                              std::to_string(int(pyramarch::iso::kMaxSmoothingLength)) + " particle radii");
    if (iso.voxelSizeGiven && !(iso.voxelSize > 0.f)) return fail(prog, "--voxel-size must be > 0");
    if (iso.cubeSizeGiven && !(iso.cubeSize > 0.f)) return fail(prog, "--cube-size must be > 0 (particle radii)");
    if (iso.cubeSizeGiven && iso.voxelSizeGiven) return fail(prog, "give --cube-size or --voxel-size, not both");
    if (!(iso.surfaceThreshold > 0.f))
        return fail(prog, "--surface-threshold must be > 0 (a fraction of the rest density)");
    if (iso.isoGiven && iso.thresholdGiven) return fail(prog, "give --surface-threshold or --iso, not both");
    if (!(iso.particleSmoothing >= 0.f && iso.particleSmoothing <= 1.f))
        return fail(prog, "--particle-smoothing must be in [0, 1] (0: off)");
    const bool inPattern = pyramarch::iso::isSequencePattern(iso.particles);
    if (inPattern && !iso.out.empty() && !outPattern)
        return fail(prog, "--particles '" + iso.particles +
                              "' is a sequence: --out needs {} for the frame number (e.g. 'meshes/fluid_{}.ply')");
    if (!inPattern && outPattern)
        return fail(prog, "--out '" + iso.out + "' has {} but --particles '" + iso.particles + "' is one file");
    return -1;
}

} // namespace

int parseToolCommandLine(int argc, const char* const* argv, ToolOptions& options) {
    CLI::App app{"pyramarch: GPU marching cubes with HistoPyramids (Vulkan)", "pyramarch"};
    app.require_subcommand(1);
    CLI::App* info =
        app.add_subcommand("info", "List Vulkan devices, the chosen one, and the features and limits that matter");
    info->add_option("--device", options.infoDevice, "Device index or name substring");

    DemoOptions& demo = options.demo;
    CLI::App* demoCmd = app.add_subcommand(
        "demo",
        "Render the metaballs, point-cloud, fluid and channel scenes headless to PNG frames and print per-pass GPU "
        "times");
    demoCmd->add_option("--out-dir", demo.outDir, "Output folder (default demo-out)");
    demoCmd->add_option("--frames", demo.frames, "Frames per scene (default 36, 30 fps of animation)")
        ->check(CLI::Range(1u, 100000u));
    demoCmd->add_option("--size", demo.size, "Image size WxH (default 960x540)")->type_name("WxH");
    demoCmd
        ->add_option("--msaa", demo.msaa, "Samples per pixel (1, 2, 4, 8)")
        // CLI11 2.1's numeric IsMember lets an empty value through as 0 (found
        // by tests/fuzz: `--msaa ""`); Range rejects it first.
        ->check(CLI::Range(1u, 8u))
        ->check(CLI::IsMember({1u, 2u, 4u, 8u}));
    demoCmd->add_option("--cells", demo.cells, "Grid cells per axis (default 48)")->check(CLI::Range(1u, 512u));
    demoCmd->add_option("--particles", demo.particles, "Point-cloud particles (default 100000)")
        ->check(CLI::Range(1u, 4000000u));
    demoCmd->add_option("--balls", demo.balls, "Metaballs (1..256, default 24)")->check(CLI::Range(1u, 256u));
    demoCmd->add_option("--capacity", demo.capacity,
                        "Vertex capacity of the metaballs and pointcloud scenes (default 0: the scene's own)");
    demoCmd
        ->add_option("--fluid-frames", demo.fluidFrames,
                     "Frames of the fluid scene (default 30, each --fluid-steps PBF steps of 1/120 s)")
        ->check(CLI::Range(1u, 100000u));
    demoCmd
        ->add_option("--fluid-steps", demo.fluidSteps,
                     "Simulation steps per drawn fluid frame (1.." + std::to_string(kMaxDemoFluidSteps) +
                         ", default 4)")
        ->check(CLI::Range(1u, kMaxDemoFluidSteps));
    demoCmd->add_option("--fluid-particles", demo.fluidParticles, "Fluid particles (default 100000)")
        ->check(CLI::Range(1u, 4000000u));
    demoCmd->add_option(
        "--collider", demo.fluidCollider,
        "Obstacle of the fluid scene: a built-in shape (bunny, sphere, torus, knot, box, diamond) or a closed "
        "mesh file (.obj, .ply, .gltf, .glb), 0.5 m across on the floor in the wave's path, voxelized "
        "solid on the GPU every frame; none: no obstacle (default sphere)");
    demoCmd
        ->add_option("--channel-cells", demo.channelCells,
                     "Cells along the channel scene (default 2047; across: (cells + 1) / 16 - 1)")
        ->check(CLI::Range(63u, pyramarch::iso::kMaxSparseCellsPerAxis));
    demoCmd->add_option("--channel-balls", demo.channelBalls, "Metaballs of the channel scene (1..1024, default 96)")
        ->check(CLI::Range(1u, 1024u));
    demoCmd
        ->add_option("--scenes", demo.scenes,
                     "Scenes to render (metaballs, pointcloud, fluid, channel: metaballs on a sparse domain)")
        ->check(CLI::IsMember({"metaballs", "pointcloud", "fluid", "channel"}))
        ->delimiter(',');
    demoCmd->add_option("--shading", demo.shading, "lit | cells | normals")
        ->check(CLI::IsMember({"lit", "cells", "normals"}));
    demoCmd->add_flag("--validation", demo.validation, "Enable the validation layer (any message fails the exit code)");
    demoCmd->add_option("--device", demo.device, "Device index or name substring");

    IsoOptions& iso = options.iso;
    CLI::App* isoCmd = app.add_subcommand(
        "iso",
        "Extract an iso-surface from a field, a raw volume, a GLSL field function or particles and write PLY/OBJ");
    isoCmd->add_option("--field", iso.field, "cayley | sphere | gyroid | metaballs")
        ->check(CLI::IsMember({"cayley", "sphere", "gyroid", "metaballs"}));
    CLI::Option* cellsOpt = isoCmd->add_option(
        "--cells", iso.cells, "Cells per axis X,Y,Z for --field and --glsl (samples = cells + 1; default 64,64,64)");
    CLI::Option* boundsOpt =
        isoCmd
            ->add_option("--bounds", iso.bounds,
                         "World bounds minX,minY,minZ,maxX,maxY,maxZ of --field and --glsl (default -1,-1,-1,1,1,1)")
            ->check(sample::boundsSixFloats());
    isoCmd->add_option("--raw", iso.raw, "Raw volume file (little-endian, x fastest)");
    CLI::Option* dimsOpt = isoCmd->add_option("--dims", iso.dims, "Samples per axis X,Y,Z of --raw");
    CLI::Option* typeOpt = isoCmd->add_option("--type", iso.type, "Sample type of --raw: u8 | u16 | f32")
                               ->check(CLI::IsMember({"u8", "u16", "f32"}));
    isoCmd->add_option("--glsl", iso.glsl,
                       "File with a GLSL field function `float field(vec3 p)` (inside is greater; may use iso_time), "
                       "sampled over --cells "
                       "within --bounds; compile errors name the file's lines");
    CLI::Option* lipschitzOpt =
        isoCmd
            ->add_option("--lipschitz", iso.lipschitz,
                         "Lipschitz constant L of the --glsl field over --bounds (|f(a) - f(b)| <= L |a - b|; 1 for a "
                         "signed distance): classify skips the patches f(centre) +- L x half diagonal keeps off the "
                         "iso value, same triangles. Default 0: every patch. A too small L loses triangles")
            ->check(sample::finiteFloat());
    isoCmd->add_option(
        "--particles", iso.particles,
        "Particle file: PLY point set (ascii/binary, float/double x,y,z), .xyz text, raw float32 xyz (.f32), legacy "
        "VTK (.vtk, ascii/binary), VTK XML (.vtu/.vtp, ascii/base64/appended, zlib) or Houdini BGEO V5 (.bgeo, "
        ".bgeo.gz, .bgeo.sz; gzip or not); an unknown extension is recognised by the file's first bytes. Or a "
        "sequence 'frames/fluid_{}.vtk' ({} = frame number, then --out needs {} too). Particles with a NaN or "
        "infinite coordinate are dropped and counted. The grid is the particles' bounds padded by the kernel "
        "support, sampled every --voxel-size");
    auto boxOption = [&](const char* name, std::string& value, const char* help) {
        isoCmd->add_option(name, value, help)->type_name("X,Y,Z");
    };
    boxOption("--particle-aabb-min", iso.particleAabbMin,
              "With --particle-aabb-max: keep only the particles inside the box (bounds included); how many were "
              "outside is printed and in --stats (particles_outside_box). Keeps a stray particle from blowing up the "
              "grid");
    boxOption("--particle-aabb-max", iso.particleAabbMax, "Upper corner of --particle-aabb-min's box");
    boxOption("--mesh-aabb-min", iso.meshAabbMin,
              "With --mesh-aabb-max: clip the output mesh to the box on the CPU (triangles crossing a face are cut "
              "along it, those outside removed), as splashsurf does. Any source; needs --out");
    boxOption("--mesh-aabb-max", iso.meshAabbMax, "Upper corner of --mesh-aabb-min's box");
    isoCmd
        ->add_option("--attributes", iso.attributes,
                     "Point attributes the particle files must have, read with the positions (e.g. "
                     "velocity,density): a missing one is an error naming those the file has")
        ->delimiter(',');
    isoCmd
        ->add_option("--interpolate-attributes", iso.interpolateAttributes,
                     "Point attributes of the particle files (e.g. velocity,density) interpolated onto the surface "
                     "vertices on the GPU with the SPH weights (splashsurf's --interpolate_attributes, normalised) "
                     "and written as PLY vertex properties (velocity_x, velocity_y, velocity_z, density). Needs "
                     "--particle-kernel sph; with --mesh-smoothing, the values at the smoothed positions")
        ->delimiter(',');
    auto particleOption = [&](const char* name, float& value, const char* help) {
        return isoCmd
            ->add_option_function<float>(
                name,
                [&iso, &value](const float& v) {
                    value = v;
                    iso.particleOptionsGiven = true;
                },
                help)
            ->check(sample::finiteFloat());
    };
    particleOption("--particle-radius", iso.particleRadius,
                   "Particle radius R in world units (splashsurf's meaning: about half the particle spacing). Required "
                   "with --particles");
    particleOption("--smoothing-length", iso.smoothingLength,
                   "Smoothing length L in particle radii (default 2): kernel support 2 L R, about L particle spacings");
    particleOption("--voxel-size", iso.voxelSize, "Grid spacing in world units (default: the particle radius R)")
        ->each([&iso](const std::string&) { iso.voxelSizeGiven = true; });
    particleOption("--cube-size", iso.cubeSize,
                   "Grid spacing in particle radii (splashsurf's --cube-size): --voxel-size = C x R")
        ->each([&iso](const std::string&) { iso.cubeSizeGiven = true; });
    particleOption("--surface-threshold", iso.surfaceThreshold,
                   "Surface threshold T as a fraction of the rest density (default 0.6 as in splashsurf); iso value = "
                   "T x rest density (--particle-kernel sph: the rest density is 1, so the iso value is T)")
        ->each([&iso](const std::string&) { iso.thresholdGiven = true; });
    particleOption("--particle-smoothing", iso.particleSmoothing,
                   "Particle position smoothing lambda in [0, 1] (Yu & Turk 2013's Laplacian step, on the GPU): each "
                   "particle moves lambda of the way to the weighted mean of its neighbours within the kernel "
                   "support before the splat. Default 0 (off); 0.5 flattens faces of regular particles, shrinks "
                   "convex parts (modules/isosurface/README.md)");
    isoCmd->add_flag_function(
        "--anisotropic",
        [&iso](int64_t) {
            iso.anisotropic = true;
            iso.particleOptionsGiven = true;
        },
        "Anisotropic kernels (Yu & Turk 2013, on the GPU): each particle's kernel is stretched along the "
        "principal axes of its neighbours (weighted covariance within 1.5 kernel supports), flat on flat "
        "fluid; with --particle-smoothing the kernels sit at the smoothed positions. Costs a pass "
        "(modules/isosurface/README.md)");
    isoCmd
        ->add_option_function<std::string>(
            "--particle-kernel",
            [&iso](const std::string& v) {
                iso.particleKernel = v;
                iso.particleOptionsGiven = true;
            },
            "What a particle adds to the field: sph (default; splashsurf's field, sum_j V_j W(|x - x_j|) with the "
            "cubic spline W and each particle's volume V_j from its neighbours' density: ~1 inside the fluid, lone "
            "particles stay as droplets) | count (w (1 - d^2/h^2)^3, a weighted neighbour count)")
        ->check(CLI::IsMember({"sph", "count"}));
    isoCmd
        ->add_option_function<float>(
            "--iso",
            [&iso](const float& v) {
                iso.iso = v;
                iso.isoGiven = true;
            },
            "Iso value (inside is greater; default 0 for analytic fields and --glsl, 0.35 for metaballs, 0.5 for "
            "volumes; with --particles, instead of --surface-threshold, in field units: --particle-kernel sph the "
            "fluid's "
            "volume fraction, ~1 inside; count a weighted neighbour count)")
        ->check(sample::finiteFloat());
    isoCmd->add_flag("--indexed", iso.indexed,
                     "Indexed output: one vertex per cut edge of the grid, shared by its triangles, and an index "
                     "buffer (--capacity then counts unique vertices: 6 indices each). Any source, dense or --sparse");
    isoCmd->add_option("--mesh-smoothing", iso.meshSmoothing,
                       "Smooth the extracted mesh on the GPU: N iterations (at most 64) of Taubin's lambda|mu "
                       "smoothing, which flattens bumps without shrinking the surface; normals are recomputed from "
                       "the smoothed mesh (area-weighted), except with --normals none. Switches on indexed output "
                       "(shared vertices: --capacity then counts unique vertices, and the index buffer holds 6 "
                       "per vertex). Any source. Default 0 (off)");
    auto meshWeight = [&](const char* name, float& value, const char* help) {
        isoCmd
            ->add_option_function<float>(
                name,
                [&iso, &value](const float& v) {
                    value = v;
                    iso.meshWeightsGiven = true;
                },
                help)
            ->check(sample::finiteFloat());
    };
    meshWeight("--mesh-smoothing-lambda", iso.meshLambda,
               "Taubin's lambda in (0, 1] (default 0.7): the shrinking step's factor");
    meshWeight("--mesh-smoothing-mu", iso.meshMu,
               "Taubin's mu in [-1, 0] (default -0.72): the inflating step's factor; 0 gives plain Laplacian "
               "smoothing, which shrinks the surface");
    isoCmd->add_option("--normals", iso.normals, "forward | central | sobel | none (zero normals, cheaper)")
        ->check(CLI::IsMember({"forward", "central", "sobel", "none"}));
    isoCmd->add_option(
        "--out", iso.out,
        "Mesh output: .ply (binary little-endian) or .obj; with a --particles sequence a pattern with {}");
    isoCmd->add_flag("--weld", iso.weld, "Merge equal vertices in the output mesh");
    isoCmd->add_option("--stats", iso.stats,
                       "Write triangle counts, per-pass GPU times and their total gpuMs as JSON (one entry per frame); "
                       "with a --particles sequence it is rewritten after every frame and each frame's figures are "
                       "printed as a line");
    isoCmd->add_option("--capacity", iso.capacity,
                       "Most vertices the surface may hold (a hard cap: past it the frame reports the overflow; "
                       "default 0: the module sizes the buffers and grows them from frame to frame)");
    isoCmd->add_option("--memory-budget", iso.memoryBudgetMiB,
                       "MiB the surface's GPU buffers may grow to (default 0: three quarters of the device's "
                       "largest device-local heap)");
    isoCmd->add_flag("--sparse", iso.sparse,
                     "Sparse domain: only the 8^3-cell bricks the field's Lipschitz bound cannot rule out are "
                     "classified and only row pairs with a cut cell are kept, so --cells may go to 8192 per axis "
                     "(e.g. 2047,2047,2047); prints resident memory against a dense grid. --field sphere|cayley|"
                     "gyroid (their GLSL), metaballs, --glsl (with --lipschitz: only the bricks the bound cannot "
                     "rule out; without: every brick), --particles, or --raw (only the bricks near the iso value "
                     "are read into memory and uploaded). A hint: a grid whose dense layout does not fit the "
                     "device goes sparse by itself");
    isoCmd
        ->add_option("--repeat", iso.repeat,
                     "Extract N times and report the last one's GPU times (default 2: the first carries JIT)")
        ->check(CLI::Range(1u, 1000u));
    isoCmd->add_flag("--validation", iso.validation, "Enable the validation layer (any message fails the exit code)");
    isoCmd->add_option("--device", iso.device, "Device index or name substring");

    CLI::App* voxelizeCmd = addVoxelizeCommand(app, options.voxelize);
    CLI::App* benchCmd = pyramarch::bench::addBenchCommand(app, options.bench);

    const int parsed = parseCommandLine(app, argc, const_cast<char**>(argv));
    if (parsed >= 0) return parsed;
    options.command = *info ? "info" : *demoCmd ? "demo" : *voxelizeCmd ? "voxelize" : *benchCmd ? "bench" : "iso";
    if (options.command == "iso") {
        iso.cellsGiven = cellsOpt->count() > 0;
        iso.boundsGiven = boundsOpt->count() > 0;
        iso.dimsGiven = dimsOpt->count() > 0;
        iso.typeGiven = typeOpt->count() > 0;
        iso.lipschitzGiven = lipschitzOpt->count() > 0;
        const int bad = checkIsoOptions(iso);
        if (bad >= 0) return kExitUsage; // every check there is about the command line
    }
    return -1;
}

} // namespace sample
