#include "tool_cli.h"

#include <filesystem>

#include "sample/cli.h"

namespace sample {

int parseToolCommandLine(int argc, const char* const* argv, ToolOptions& options) {
    CLI::App app{"pyramarch: GPU marching cubes with HistoPyramids (Vulkan)", "pyramarch"};
    app.require_subcommand(1);
    CLI::App* info = app.add_subcommand("info", "List Vulkan devices, the chosen one, and the features and limits that matter");
    info->add_option("--device", options.infoDevice, "Device index or name substring");

    DemoOptions& demo = options.demo;
    CLI::App* demoCmd = app.add_subcommand("demo", "Render the metaballs and point-cloud scenes headless to PNG frames and print per-pass GPU times");
    demoCmd->add_option("--out-dir", demo.outDir, "Output folder (default demo-out)");
    demoCmd->add_option("--frames", demo.frames, "Frames per scene (default 36, 30 fps of animation)")->check(CLI::Range(1u, 100000u));
    demoCmd->add_option("--size", demo.size, "Image size WxH (default 480x320)")->type_name("WxH");
    demoCmd->add_option("--msaa", demo.msaa, "Samples per pixel (1, 2, 4, 8)")
        // CLI11 2.1's numeric IsMember lets an empty value through as 0 (found
        // by tests/fuzz: `--msaa ""`); Range rejects it first.
        ->check(CLI::Range(1u, 8u))
        ->check(CLI::IsMember({1u, 2u, 4u, 8u}));
    demoCmd->add_option("--cells", demo.cells, "Grid cells per axis (default 48)")->check(CLI::Range(1u, 512u));
    demoCmd->add_option("--particles", demo.particles, "Point-cloud particles (default 100000)")->check(CLI::Range(1u, 4000000u));
    demoCmd->add_option("--balls", demo.balls, "Metaballs (1..256, default 24)")->check(CLI::Range(1u, 256u));
    demoCmd
        ->add_option_function<std::string>(
            "--splat",
            [&demo](const std::string& s) {
                demo.splat = s == "gather" ? pyramarch::iso::SplatMethod::Gather : pyramarch::iso::SplatMethod::Scatter;
            },
            "Point cloud splat: scatter (atomics, default) | gather (binned)")
        ->check(CLI::IsMember({"scatter", "gather"}));
    demoCmd->add_option("--scenes", demo.scenes, "Scenes to render (metaballs, pointcloud)")
        ->check(CLI::IsMember({"metaballs", "pointcloud"}))
        ->delimiter(',');
    demoCmd->add_option("--shading", demo.shading, "lit | cells | normals")->check(CLI::IsMember({"lit", "cells", "normals"}));
    demoCmd->add_flag("--validation", demo.validation, "Enable the validation layer (any message fails the exit code)");
    demoCmd->add_option("--device", demo.device, "Device index or name substring");

    IsoOptions& iso = options.iso;
    CLI::App* isoCmd = app.add_subcommand("iso", "Extract an iso-surface from a field or a raw volume and write PLY/OBJ");
    isoCmd->add_option("--field", iso.field, "cayley | sphere | gyroid | metaballs")->check(CLI::IsMember({"cayley", "sphere", "gyroid", "metaballs"}));
    isoCmd->add_option("--cells", iso.cells, "Cells per axis X,Y,Z for --field (samples = cells + 1; default 64,64,64)");
    isoCmd->add_option("--bounds", iso.bounds, "World bounds minX,minY,minZ,maxX,maxY,maxZ (default -1,-1,-1,1,1,1)")
        ->check(sample::boundsSixFloats());
    isoCmd->add_option("--raw", iso.raw, "Raw volume file (little-endian, x fastest)");
    isoCmd->add_option("--dims", iso.dims, "Samples per axis X,Y,Z of --raw");
    isoCmd->add_option("--type", iso.type, "Sample type of --raw: u8 | u16 | f32")->check(CLI::IsMember({"u8", "u16", "f32"}));
    isoCmd->add_option_function<float>("--iso", [&iso](const float& v) { iso.iso = v; iso.isoGiven = true; },
                                       "Iso value (inside is greater; default 0 for analytic fields, 0.5 for volumes)")
        ->check(sample::finiteFloat());
    isoCmd->add_option("--normals", iso.normals, "forward | central | sobel")->check(CLI::IsMember({"forward", "central", "sobel"}));
    isoCmd->add_option("--out", iso.out, "Mesh output: .ply (binary little-endian) or .obj");
    isoCmd->add_flag("--weld", iso.weld, "Merge equal vertices in the output mesh");
    isoCmd->add_option("--stats", iso.stats, "Write triangle counts and per-pass GPU times as JSON");
    isoCmd->add_option("--capacity", iso.capacity, "Vertex capacity (default: guessed, retried once on overflow)");
    isoCmd->add_option("--repeat", iso.repeat, "Extract N times and report the last one's GPU times (default 2: the first carries JIT)")
        ->check(CLI::Range(1u, 1000u));
    isoCmd->add_flag("--validation", iso.validation, "Enable the validation layer (any message fails the exit code)");
    isoCmd->add_option("--device", iso.device, "Device index or name substring");

    CLI::App* voxelizeCmd = addVoxelizeCommand(app, options.voxelize);
    CLI::App* benchCmd = pyramarch::bench::addBenchCommand(app, options.bench);

    const int parsed = parseCommandLine(app, argc, const_cast<char**>(argv));
    if (parsed >= 0) return parsed;
    options.command = *info ? "info" : *demoCmd ? "demo" : *voxelizeCmd ? "voxelize" : *benchCmd ? "bench" : "iso";
    if (options.command == "iso" && !iso.out.empty()) {
        const std::string ext = std::filesystem::path(iso.out).extension().string();
        if (ext != ".ply" && ext != ".obj") return fail("pyramarch iso", "--out must end in .ply or .obj, got '" + iso.out + "'");
    }
    return -1;
}

} // namespace sample
