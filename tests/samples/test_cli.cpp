// The pyramarch tool and the samples' command lines: --help, one-line errors
// with a non-zero exit, and `pyramarch iso` output checked against the CPU
// reference mesh.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "mesh_clip.h"
#include "mini_json.h"
#include "pyramarch/isosurface/particle_io.h"
#include "reference.h"
#include "sample/cli.h"
#include "tool_cli.h"
#include "support/device_policy.h"
#include "support/run_command.h"

namespace {

using CmdResult = pyramarch::test::CommandResult;

CmdResult run(const std::string& args, const std::string& tool = PYRAMARCH_TOOL) {
    return pyramarch::test::runCommand(tool, args);
}

// Lines of stderr that carry an error (progress lines may precede it).
size_t errorLines(const std::string& s) {
    size_t n = 0, start = 0;
    while (start < s.size()) {
        size_t end = s.find('\n', start);
        if (end == std::string::npos) end = s.size();
        n += s.substr(start, end - start).find("error") != std::string::npos;
        start = end + 1;
    }
    return n;
}

TEST(SampleCli, ParsesSizesAndTriples) {
    uint32_t w = 0, h = 0;
    EXPECT_TRUE(sample::parseSize("640x480", w, h));
    EXPECT_EQ(w, 640u);
    EXPECT_EQ(h, 480u);
    EXPECT_FALSE(sample::parseSize("640", w, h));
    EXPECT_FALSE(sample::parseSize("0x10", w, h));
    EXPECT_FALSE(sample::parseSize("10x10x", w, h));
    EXPECT_FALSE(sample::parseSize("-5x10", w, h));
    uint32_t t[3];
    EXPECT_TRUE(sample::parseTriple("37,50,23", t));
    EXPECT_EQ(t[2], 23u);
    EXPECT_FALSE(sample::parseTriple("1,2", t));
    EXPECT_FALSE(sample::parseTriple("1,0,2", t));
    EXPECT_FALSE(sample::parseTriple("1,2,3,4", t));
}

TEST(SampleCli, HelpOnEveryCommand) {
    for (const char* cmd : {"--help", "info --help", "demo --help", "iso --help", "voxelize --help", "bench --help"}) {
        const CmdResult r = run(cmd);
        EXPECT_EQ(r.code, 0) << cmd;
        EXPECT_NE(r.out.find("Options"), std::string::npos) << cmd << ": " << r.out;
    }
}

TEST(SampleCli, BadArgumentsGiveOneLineErrors) {
    for (const char* cmd :
         {"", "bogus", "demo --size 12", "demo --frames 0", "demo --fluid-frames 0", "demo --fluid-particles 0",
          "demo --fluid-steps 0", "demo --fluid-steps 17", "demo --scenes teapot", "iso --field teapot",
          "iso --field sphere --cells 0,4,4", "iso --field sphere --cells 4,4",
          "iso --raw /nonexistent/file --dims 4,4,4", "iso --raw x.raw", "iso", "iso --field sphere --out mesh.stl",
          "iso --field sphere --bounds 1,1,1,0,0,0", "iso --field sphere --type u32"}) {
        const CmdResult r = run(cmd);
        EXPECT_NE(r.code, 0) << "'" << cmd << "' should fail";
        EXPECT_EQ(errorLines(r.err), 1u) << "'" << cmd << "' stderr: " << r.err;
        std::string last = r.err;
        while (!last.empty() && last.back() == '\n') last.pop_back();
        last = last.substr(last.rfind('\n') == std::string::npos ? 0 : last.rfind('\n') + 1);
        EXPECT_NE(last.find("error"), std::string::npos) << "the error is the last line: " << r.err;
        EXPECT_NE(r.err.find("error"), std::string::npos) << cmd << ": " << r.err;
    }
}

// The exit codes of samples/pyramarch/README.md ("Exit codes"), the same for
// every command: 0 done, 1 failed, 2 usage (CLI11's own codes, such as 105
// for a value out of range, are not passed on), 3 overflow (below, on the GPU).
TEST(SampleCli, ExitCodesAreTheTable) {
    for (const char* cmd : {"--help", "info --help", "demo --help", "iso --help", "voxelize --help", "bench --help"})
        EXPECT_EQ(run(cmd).code, sample::kExitDone) << cmd;
    for (const char* cmd :
         {"", "bogus", "info --bogus", "demo --frames 0", "demo --size 12", "demo --capacity x", "iso",
          "iso --field teapot", "iso --field sphere --cells 4,4", "iso --field sphere --bounds 1,1,1,0,0,0",
          "iso --field sphere --lipschitz 2", "voxelize", "voxelize --res 0", "voxelize --res 5000 --shape sphere",
          "voxelize --shape sphere --method xyz", "voxelize --shape sphere --buffer-limit 16", "bench --strategy bogus",
          "bench --sizes 0x", "bench --buffer-limit 0"}) {
        const CmdResult r = run(cmd);
        EXPECT_EQ(r.code, sample::kExitUsage) << "'" << cmd << "': " << r.err;
        EXPECT_EQ(errorLines(r.err), 1u) << "'" << cmd << "' stderr: " << r.err;
    }
    // A run-time failure before any device: the file is not there.
    const CmdResult missing = run("iso --raw /nonexistent/file.raw --dims 4,4,4");
    EXPECT_EQ(missing.code, sample::kExitFailed) << missing.err;
    EXPECT_NE(missing.err.find("/nonexistent/file.raw"), std::string::npos) << missing.err;
}

// Exit code 3 from every command that extracts: the output is written,
// bounded, and says OVERFLOW; 1 for a failure once a device runs.
TEST(SampleCliGpu, OverflowExitCodeIsTheSameForEveryCommand) {
    const CmdResult iso = run("iso --field sphere --cells 16,16,16 --capacity 30 --repeat 1");
    PYRAMARCH_FAIL_OR_SKIP_IF_TOOL_HAS_NO_DEVICE(iso);
    EXPECT_EQ(iso.code, sample::kExitOverflow) << iso.err;
    EXPECT_NE(iso.out.find("OVERFLOW"), std::string::npos) << iso.out;
    const CmdResult done = run("iso --field sphere --cells 16,16,16 --repeat 1");
    EXPECT_EQ(done.code, sample::kExitDone) << done.err;
    const auto dir = std::filesystem::temp_directory_path() / ("pyramarch-exit-" + std::to_string(::getpid()));
    const CmdResult demo = run(
        "demo --scenes metaballs --frames 1 --size 32x24 --cells 16 --balls 4 --capacity 30 --out-dir " + dir.string());
    EXPECT_EQ(demo.code, sample::kExitOverflow) << demo.err;
    EXPECT_NE(demo.out.find("OVERFLOW"), std::string::npos) << demo.out;
    std::filesystem::remove_all(dir);
    // bench and voxelize: the capacities grow from the stats up to the
    // largest buffer, here --buffer-limit (2 KiB) instead of the device's
    // maxStorageBufferRange: the module's own overflow counters report what
    // did not fit, as on a device whose range is that small.
    const CmdResult benchIso = run("bench --groups iso --field sphere --sizes 16 --strategy histopyramid --frames 1 "
                                   "--buffer-limit 2048");
    EXPECT_EQ(benchIso.code, sample::kExitOverflow) << benchIso.err;
    EXPECT_NE(benchIso.out.find("OVERFLOW"), std::string::npos) << benchIso.out;
    const CmdResult benchVox =
        run("bench --groups voxelizer --meshes sphere --resolutions 16 --frames 1 --buffer-limit 2048");
    EXPECT_EQ(benchVox.code, sample::kExitOverflow) << benchVox.err;
    EXPECT_NE(benchVox.out.find("OVERFLOW"), std::string::npos) << benchVox.out;
    const CmdResult voxOverflow = run("voxelize --shape sphere --res 16 --buffer-limit 2048");
    EXPECT_EQ(voxOverflow.code, sample::kExitOverflow) << voxOverflow.err;
    EXPECT_EQ(errorLines(voxOverflow.err), 1u) << voxOverflow.err;
    EXPECT_NE(voxOverflow.err.find("voxel fragments exceed"), std::string::npos) << voxOverflow.err;
    const CmdResult voxDone = run("voxelize --shape sphere --res 16");
    EXPECT_EQ(voxDone.code, sample::kExitDone) << voxDone.err;
    const CmdResult voxelize = run("voxelize --mesh /nonexistent/mesh.obj --res 8");
    EXPECT_EQ(voxelize.code, sample::kExitFailed) << voxelize.err;
    EXPECT_EQ(errorLines(voxelize.err), 1u) << voxelize.err;
}

TEST(SampleCli, SamplesHaveHelpAndOneLineErrors) {
    const std::string metaballs = SAMPLE_METABALLS, pointcloud = SAMPLE_POINTCLOUD, volume = SAMPLE_VOLUME,
                      fluid = SAMPLE_FLUID;
    for (const std::string& tool : {metaballs, pointcloud, volume, fluid}) {
        const CmdResult r = run("--help", tool);
        EXPECT_EQ(r.code, 0) << tool;
        EXPECT_NE(r.out.find("--headless"), std::string::npos) << tool << ": " << r.out;
    }
    const std::pair<std::string, std::string> bad[] = {{metaballs, "--size 12"},
                                                       {metaballs, "--balls 300"},
                                                       {metaballs, "--msaa 3"},
                                                       {metaballs, "--shading pink"},
                                                       {pointcloud, "--splat gather"}, // a measured variant: bench only
                                                       {pointcloud, "--particles 0"},
                                                       {fluid, "--particles 0"},
                                                       {fluid, "--particles 4000001"},
                                                       {fluid, "--iterations 0"},
                                                       {fluid, "--kernel blobby"},
                                                       {fluid, "--xsph 2"},
                                                       {fluid, "--dt 1"},
                                                       {fluid, "--collider-res 4"},
                                                       {fluid, "--collider /nonexistent/collider.obj"},
                                                       {volume, "--raw /tmp --headless"},
                                                       {volume, "--dims 4,4,4 --headless"},
                                                       {volume, "--export a.stl --headless"},
                                                       {volume, "--raw /nonexistent.raw --dims 4,4,4 --headless"}};
    for (const auto& [tool, args] : bad) {
        const CmdResult r = run(args, tool);
        EXPECT_NE(r.code, 0) << tool << " " << args;
        EXPECT_EQ(errorLines(r.err), 1u) << tool << " " << args << ": " << r.err;
    }
}

TEST(SampleCli, ParsesOnlyFiniteFloats) {
    float v = 0.f;
    EXPECT_TRUE(sample::parseFiniteFloat("0.25", v));
    EXPECT_EQ(v, 0.25f);
    EXPECT_TRUE(sample::parseFiniteFloat("-3e2", v));
    for (const char* bad :
         {"nan", "NaN", "-nan", "inf", "-inf", "infinity", "1e40", "-1e39", "", " 1", "1 ", "1,2", "0x", "abc"})
        EXPECT_FALSE(sample::parseFiniteFloat(bad, v)) << "'" << bad << "'";
    float b[6];
    EXPECT_TRUE(sample::parseFloatList("-1,-1,-1,1,1,1", b, 6));
    EXPECT_EQ(b[5], 1.f);
    EXPECT_FALSE(sample::parseFloatList("-1,-1,nan,1,1,1", b, 6));
    EXPECT_FALSE(sample::parseFloatList("-1,-1,-1,1,1,inf", b, 6));
    EXPECT_FALSE(sample::parseFloatList("-1,-1,-1,1,1", b, 6));
    EXPECT_FALSE(sample::parseFloatList("-1,-1,-1,1,1,1,1", b, 6));
    float t[3];
    EXPECT_TRUE(sample::parseFloatTriple("1,2.5,-3", t));
    EXPECT_FALSE(sample::parseFloatTriple("1,nan,3", t));
}

// `--iso nan` once wrote an empty mesh with exit 0.
// Every float option rejects values that are not finite, naming the option
// and the value in one error line, before any device is touched.
TEST(SampleCli, FloatOptionsMustBeFinite) {
    const std::string tool = PYRAMARCH_TOOL, metaballs = SAMPLE_METABALLS, pointcloud = SAMPLE_POINTCLOUD,
                      volume = SAMPLE_VOLUME, fluid = SAMPLE_FLUID;
    struct Bad {
        std::string tool, args, option, value;
    };
    const Bad bad[] = {
        {tool, "iso --field sphere --iso nan", "--iso", "nan"},
        {tool, "iso --field sphere --iso inf", "--iso", "inf"},
        {tool, "iso --field sphere --iso -inf", "--iso", "-inf"},
        {tool, "iso --field sphere --iso 1e40", "--iso", "1e40"},
        {tool, "iso --field sphere --bounds -1,-1,nan,1,1,1", "--bounds", "nan"},
        {tool, "iso --field sphere --bounds -inf,-1,-1,1,1,1", "--bounds", "-inf"},
        {tool, "iso --field sphere --bounds 0,0,0,1,1,1e39", "--bounds", "1e39"},
        {metaballs, "--headless --iso nan", "--iso", "nan"},
        {pointcloud, "--headless --iso inf", "--iso", "inf"},
        {volume, "--headless --iso nan", "--iso", "nan"},
        {fluid, "--headless --threshold nan", "--threshold", "nan"},
        {fluid, "--headless --dt inf", "--dt", "inf"},
    };
    for (const Bad& b : bad) {
        const CmdResult r = run(b.args, b.tool);
        const std::string what = b.tool + " " + b.args;
        EXPECT_NE(r.code, 0) << what << ": " << r.err;
        EXPECT_EQ(errorLines(r.err), 1u) << what << ": " << r.err;
        EXPECT_NE(r.err.find(b.option), std::string::npos) << what << ": " << r.err;
        EXPECT_NE(r.err.find(b.value), std::string::npos) << what << ": " << r.err;
        EXPECT_NE(r.err.find("finite"), std::string::npos) << what << ": " << r.err;
    }
}

TEST(SampleCli, RawVolumeOfTheWrongSizeIsNamed) {
    const auto path =
        std::filesystem::temp_directory_path() / ("pyramarch-cli-raw-" + std::to_string(::getpid()) + ".raw");
    {
        std::ofstream f(path, std::ios::binary);
        f << std::string(100, '\0');
    }
    const CmdResult r = run("iso --raw " + path.string() + " --dims 4,4,4 --type u16");
    std::filesystem::remove(path);
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("128"), std::string::npos) << r.err; // 4*4*4*2 bytes expected
}

// `pyramarch demo` (small) with validation: frames and stats of every scene
// (the fluid with its own frame count, around the built-in bunny) land in
// the output folder and the timing table is printed.
TEST(SampleCliGpu, DemoWritesFramesStatsAndTable) {
    const auto dir = std::filesystem::temp_directory_path() / ("pyramarch-demo-" + std::to_string(::getpid()));
    const CmdResult r =
        run("demo --frames 3 --size 64x48 --cells 12 --particles 5000 --fluid-frames 2 --fluid-particles 3000 "
            "--fluid-steps 2 --collider bunny "
            "--channel-cells 255 --channel-balls 12 --validation --out-dir " +
            dir.string());
    PYRAMARCH_FAIL_OR_SKIP_IF_TOOL_HAS_NO_DEVICE(r);
    ASSERT_EQ(r.code, 0) << r.err;
    for (const char* scene : {"metaballs", "pointcloud", "channel"}) {
        for (int f = 0; f < 3; ++f) {
            char name[64];
            std::snprintf(name, sizeof name, "%s_%04d.png", scene, f);
            EXPECT_TRUE(std::filesystem::is_regular_file(dir / name)) << name;
        }
        EXPECT_GT(std::filesystem::file_size(dir / (std::string(scene) + "_stats.json")), 100u);
        EXPECT_NE(r.out.find(std::string(scene) + ".extract"), std::string::npos) << r.out;
    }
    for (int f = 0; f < 3; ++f) {
        char name[64];
        std::snprintf(name, sizeof name, "fluid_%04d.png", f);
        EXPECT_EQ(std::filesystem::is_regular_file(dir / name), f < 2) << name;
    }
    EXPECT_GT(std::filesystem::file_size(dir / "fluid_stats.json"), 100u);
    // The simulation and the surface of the fluid are passes of one frame.
    EXPECT_NE(r.out.find("pbf.lambda.0"), std::string::npos) << r.out;
    // Two simulation steps per drawn frame (--fluid-steps 2): the second step's passes.
    EXPECT_NE(r.out.find("pbf.step2.lambda.0"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("3000 particles, 2 steps a frame, collider bunny"), std::string::npos) << r.out;
    // The built-in bunny, voxelized solid in the fluid's graph (no file).
    EXPECT_NE(r.out.find("vox.solid_flip"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("fluid.extract"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("surface.draw"), std::string::npos) << r.out;
    // The channel's metaballs on a sparse domain: its passes and its memory against a dense grid.
    EXPECT_NE(r.out.find("channel.sparse.activate"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("255x15x15 cells, 12 balls"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("channel: resident"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("OVERFLOW"), std::string::npos) << r.out;
    std::filesystem::remove_all(dir);
}

// `pyramarch iso` on the GPU (validation on) writes the PLY the CPU reference
// predicts: same triangle count, positions inside the bounds.
TEST(SampleCliGpu, IsoWritesPlyMatchingTheReference) {
    const auto path = std::filesystem::temp_directory_path() / ("pyramarch-cli-" + std::to_string(::getpid()) + ".ply");
    const CmdResult r = run("iso --field cayley --cells 20,17,23 --validation --out " + path.string());
    PYRAMARCH_FAIL_OR_SKIP_IF_TOOL_HAS_NO_DEVICE(r);
    ASSERT_EQ(r.code, 0) << r.err;
    pyramarch::ref::Grid g;
    g.n[0] = 21;
    g.n[1] = 18;
    g.n[2] = 24;
    const auto field = pyramarch::ref::sampleField(g, pyramarch::ref::cayley);
    const auto mc = pyramarch::ref::marchingCubes(g, field.data(), 0.f, pyramarch::ref::Normals::Central);

    std::ifstream f(path, std::ios::binary);
    ASSERT_TRUE(f);
    std::string line;
    size_t vertices = 0, faces = 0;
    std::getline(f, line);
    ASSERT_EQ(line, "ply");
    while (std::getline(f, line) && line != "end_header") {
        std::sscanf(line.c_str(), "element vertex %zu", &vertices);
        std::sscanf(line.c_str(), "element face %zu", &faces);
        if (line.rfind("format", 0) == 0) {
            EXPECT_EQ(line, "format binary_little_endian 1.0");
        }
    }
    EXPECT_EQ(faces, mc.vertices.size() / 3);
    ASSERT_GT(vertices, 0u);
    std::vector<float> v(vertices * 6);
    f.read(reinterpret_cast<char*>(v.data()), std::streamsize(v.size() * 4));
    ASSERT_TRUE(f);
    for (size_t i = 0; i < vertices; ++i)
        for (int a = 0; a < 3; ++a) {
            EXPECT_GE(v[i * 6 + a], -1.0001f);
            EXPECT_LE(v[i * 6 + a], 1.0001f);
        }
    EXPECT_NE(r.out.find("triangles: " + std::to_string(mc.vertices.size() / 3)), std::string::npos) << r.out;
    std::filesystem::remove(path);
}

// --- pyramarch iso --particles / --glsl ----------------------------------------

// Parses a tool command line the way the tool does (no device, no files).
int parseTool(const std::vector<std::string>& args, sample::ToolOptions& o) {
    std::vector<const char*> argv{"pyramarch"};
    for (const auto& a : args) argv.push_back(a.c_str());
    argv.push_back(nullptr);
    return sample::parseToolCommandLine(int(argv.size() - 1), argv.data(), o);
}

TEST(ToolCliParse, ParticleOptionsAndDefaults) {
    sample::ToolOptions o;
    ASSERT_EQ(parseTool({"iso", "--particles", "p.f32", "--particle-radius", "0.01"}, o), -1);
    EXPECT_EQ(o.iso.particles, "p.f32");
    EXPECT_EQ(o.iso.particleRadius, 0.01f);
    EXPECT_EQ(o.iso.smoothingLength, 2.f);   // splashsurf's default
    EXPECT_EQ(o.iso.surfaceThreshold, 0.6f); // splashsurf's default
    EXPECT_EQ(o.iso.voxelSize, 0.f);         // 0: the particle radius
    EXPECT_EQ(o.iso.particleSmoothing, 0.f); // off
    EXPECT_EQ(o.iso.particleKernel, "sph");  // splashsurf's field
    EXPECT_EQ(o.iso.cubeSize, 0.f);          // 0: --voxel-size
    sample::ToolOptions g;
    ASSERT_EQ(parseTool({"iso", "--particles", "f_{}.ply", "--particle-radius", "0.5", "--smoothing-length", "1.5",
                         "--voxel-size", "0.25", "--surface-threshold", "0.5", "--particle-kernel", "count", "--out",
                         "m_{}.ply", "--stats", "s.json"},
                        g),
              -1);
    EXPECT_EQ(g.iso.smoothingLength, 1.5f);
    EXPECT_EQ(g.iso.voxelSize, 0.25f);
    EXPECT_EQ(g.iso.surfaceThreshold, 0.5f);
    EXPECT_EQ(g.iso.particleKernel, "count");
    sample::ToolOptions cs;
    ASSERT_EQ(parseTool({"iso", "--particles", "p.f32", "--particle-radius", "0.02", "--cube-size", "0.75"}, cs), -1);
    EXPECT_EQ(cs.iso.cubeSize, 0.75f);
    sample::ToolOptions sm;
    ASSERT_EQ(
        parseTool({"iso", "--particles", "p.f32", "--particle-radius", "0.01", "--particle-smoothing", "0.5"}, sm), -1);
    EXPECT_EQ(sm.iso.particleSmoothing, 0.5f);
    sample::ToolOptions an;
    ASSERT_EQ(parseTool({"iso", "--particles", "p.f32", "--particle-radius", "0.01", "--anisotropic"}, an), -1);
    EXPECT_TRUE(an.iso.anisotropic);
    EXPECT_FALSE(sm.iso.anisotropic);
    sample::ToolOptions gl;
    ASSERT_EQ(parseTool({"iso", "--glsl", "f.glsl", "--cells", "8,8,8"}, gl), -1);
    EXPECT_EQ(gl.iso.glsl, "f.glsl");
    EXPECT_EQ(gl.iso.lipschitz, 0.f); // dense classify unless the user bounds the field
    sample::ToolOptions li;
    ASSERT_EQ(parseTool({"iso", "--glsl", "f.glsl", "--lipschitz", "34.7"}, li), -1);
    EXPECT_EQ(li.iso.lipschitz, 34.7f);
    // The measured variants are the bench's options, not the tool's.
    for (const std::vector<std::string>& measured :
         {std::vector<std::string>{"iso", "--glsl", "f.glsl", "--field-evaluation", "buffer"},
          {"iso", "--particles", "p.f32", "--particle-radius", "0.01", "--splat", "scatter"},
          {"demo", "--splat", "gather"}}) {
        sample::ToolOptions m;
        EXPECT_GT(parseTool(measured, m), 0) << measured[1];
    }
    // The bench's GLSL fields carry their own constants unless told off.
    sample::ToolOptions be;
    ASSERT_EQ(parseTool({"bench", "--groups", "iso"}, be), -1);
    EXPECT_EQ(be.bench.lipschitz, "auto");
    ASSERT_EQ(parseTool({"bench", "--lipschitz", "off"}, be), -1);
    EXPECT_EQ(be.bench.lipschitz, "off");
    sample::ToolOptions bad;
    EXPECT_GT(parseTool({"bench", "--lipschitz", "2"}, bad), 0);
}

TEST(ToolCliParse, MeshSmoothing) {
    sample::ToolOptions off;
    ASSERT_EQ(parseTool({"iso", "--field", "sphere"}, off), -1);
    EXPECT_EQ(off.iso.meshSmoothing, 0u);
    // Any source; the weights default to the module's.
    sample::ToolOptions f;
    ASSERT_EQ(parseTool({"iso", "--field", "sphere", "--mesh-smoothing", "10"}, f), -1);
    EXPECT_EQ(f.iso.meshSmoothing, 10u);
    EXPECT_EQ(f.iso.meshLambda, pyramarch::iso::MeshSmoothing{}.lambda);
    EXPECT_EQ(f.iso.meshMu, pyramarch::iso::MeshSmoothing{}.mu);
    sample::ToolOptions p;
    ASSERT_EQ(parseTool({"iso", "--particles", "p.f32", "--particle-radius", "0.01", "--mesh-smoothing", "3",
                         "--mesh-smoothing-lambda", "0.5", "--mesh-smoothing-mu", "0"},
                        p),
              -1);
    EXPECT_EQ(p.iso.meshSmoothing, 3u);
    EXPECT_EQ(p.iso.meshLambda, 0.5f);
    EXPECT_EQ(p.iso.meshMu, 0.f);
    const std::vector<std::vector<std::string>> bad = {
        {"iso", "--field", "sphere", "--mesh-smoothing", "65"},
        {"iso", "--field", "sphere", "--mesh-smoothing", "-1"},
        {"iso", "--field", "sphere", "--mesh-smoothing", "x"},
        {"iso", "--field", "sphere", "--mesh-smoothing", "2", "--mesh-smoothing-lambda", "0"},
        {"iso", "--field", "sphere", "--mesh-smoothing", "2", "--mesh-smoothing-lambda", "1.5"},
        {"iso", "--field", "sphere", "--mesh-smoothing", "2", "--mesh-smoothing-lambda", "nan"},
        {"iso", "--field", "sphere", "--mesh-smoothing", "2", "--mesh-smoothing-mu", "0.1"},
        {"iso", "--field", "sphere", "--mesh-smoothing", "2", "--mesh-smoothing-mu", "-2"},
        {"iso", "--field", "sphere", "--mesh-smoothing", "2", "--mesh-smoothing-mu", "inf"},
        {"iso", "--field", "sphere", "--mesh-smoothing-mu", "-0.5"}, // weights without iterations
    };
    for (const auto& args : bad) {
        sample::ToolOptions o;
        std::string line;
        for (const auto& a : args) line += a + " ";
        EXPECT_GT(parseTool(args, o), 0) << line;
    }
}

TEST(ToolCliParse, BenchOctreeBuild) {
    // The octree builds are measurement variants (pyramarch/voxelizer/testing.h):
    // bench selects them, voxelize runs the default.
    for (const char* option : {"--octree-build", "--triangle-path", "--small-voxels", "--storage-reads"}) {
        sample::ToolOptions bad;
        EXPECT_NE(parseTool({"voxelize", "--shape", "knot", option, "1"}, bad), -1) << option;
    }
    EXPECT_EQ(octreeBuildFromWord("default"), pyramarch::voxel::testing::Knobs{}.octreeBuild);
    // The three builds, and the words from before the rename as aliases,
    // normalised by the parser.
    const std::pair<const char*, const char*> words[] = {
        {"levels", "levels"},  {"root", "root"},      {"hash", "hash"},     {"default", "levels"},
        {"cursors", "levels"}, {"topdown", "levels"}, {"bottomup", "hash"},
    };
    for (const auto& [word, build] : words) {
        sample::ToolOptions b;
        ASSERT_EQ(parseTool({"bench", "--octree-build", word}, b), -1) << word;
        EXPECT_EQ(b.bench.octreeBuild, build) << word;
    }
    EXPECT_EQ(octreeBuildFromWord("levels"), pyramarch::voxel::testing::OctreeBuild::OccupancyLevels);
    EXPECT_EQ(octreeBuildFromWord("root"), pyramarch::voxel::testing::OctreeBuild::RootDescent);
    EXPECT_EQ(octreeBuildFromWord("hash"), pyramarch::voxel::testing::OctreeBuild::TileHash);
    EXPECT_EQ(octreeBuildFromWord("bottomup"), pyramarch::voxel::testing::OctreeBuild::TileHash);
    // bench also runs several builds.
    for (const char* several : {"both", "all"}) {
        sample::ToolOptions b;
        ASSERT_EQ(parseTool({"bench", "--octree-build", several}, b), -1) << several;
        EXPECT_EQ(b.bench.octreeBuild, several);
    }
    sample::ToolOptions d2;
    ASSERT_EQ(parseTool({"bench"}, d2), -1);
    EXPECT_EQ(d2.bench.octreeBuild, "levels");
    for (const char* word : {"sideways", "TileHash", ""}) {
        sample::ToolOptions bad;
        EXPECT_NE(parseTool({"bench", "--octree-build", word}, bad), -1) << word;
    }
}

TEST(ToolCliParse, ParticleConflictsAreErrors) {
    const std::vector<std::vector<std::string>> bad = {
        {"iso", "--particles", "p.ply", "--particle-radius", "0.1", "--field", "sphere"},
        {"iso", "--particles", "p.ply", "--particle-radius", "0.1", "--raw", "v.raw"},
        {"iso", "--particles", "p.ply", "--particle-radius", "0.1", "--glsl", "f.glsl"},
        {"iso", "--glsl", "f.glsl", "--field", "sphere"},
        {"iso", "--glsl", "f.glsl", "--lipschitz", "-1"},
        {"iso", "--glsl", "f.glsl", "--lipschitz", "nan"},
        {"iso", "--glsl", "f.glsl", "--lipschitz", "inf"},
        {"iso", "--field", "sphere", "--lipschitz", "1"},
        {"iso", "--particles", "p.ply"}, // no radius
        {"iso", "--particles", "p.ply", "--particle-radius", "0"},
        {"iso", "--particles", "p.ply", "--particle-radius", "-1"},
        {"iso", "--particles", "p.ply", "--particle-radius", "nan"},
        {"iso", "--particles", "p.ply", "--particle-radius", "0.1", "--voxel-size", "0"},
        {"iso", "--particles", "p.ply", "--particle-radius", "0.1", "--smoothing-length", "0"},
        {"iso", "--particles", "p.ply", "--particle-radius", "0.1", "--smoothing-length", "100"},
        {"iso", "--particles", "p.ply", "--particle-radius", "0.1", "--surface-threshold", "0"},
        {"iso", "--particles", "p.ply", "--particle-radius", "0.1", "--surface-threshold", "0.5", "--iso", "2"},
        {"iso", "--particles", "p.ply", "--particle-radius", "0.1", "--bounds", "0,0,0,1,1,1"},
        {"iso", "--particles", "p.ply", "--particle-radius", "0.1", "--cells", "8,8,8"},
        {"iso", "--particles", "p.ply", "--particle-radius", "0.1", "--particle-smoothing", "nan"},
        {"iso", "--particles", "p.ply", "--particle-radius", "0.1", "--particle-smoothing", "-0.1"},
        {"iso", "--particles", "p.ply", "--particle-radius", "0.1", "--particle-smoothing", "1.5"},
        {"iso", "--field", "sphere", "--particle-smoothing", "0.5"},
        {"iso", "--particles", "p.ply", "--particle-radius", "0.1", "--particle-kernel", "magic"},
        {"iso", "--particles", "p.ply", "--particle-radius", "0.1", "--cube-size", "0"},
        {"iso", "--particles", "p.ply", "--particle-radius", "0.1", "--cube-size", "1", "--voxel-size", "0.1"},
        {"iso", "--field", "sphere", "--particle-kernel", "count"},
        {"iso", "--field", "sphere", "--anisotropic"},
        {"iso", "--particles", "f_{}.ply", "--particle-radius", "0.1", "--out",
         "m.ply"}, // a sequence needs {} in --out
        {"iso", "--particles", "f.ply", "--particle-radius", "0.1", "--out", "m_{}.ply"}, // one file, one mesh
        {"iso", "--field", "sphere", "--out", "m_{}.ply"},
        {"iso", "--field", "sphere", "--particle-radius", "0.1"},
    };
    for (const auto& args : bad) {
        sample::ToolOptions o;
        std::string line;
        for (const auto& a : args) line += a + " ";
        EXPECT_GT(parseTool(args, o), 0) << line;
    }
}

std::filesystem::path tempPath(const std::string& name) {
    return std::filesystem::temp_directory_path() / ("pyramarch-cli-" + std::to_string(::getpid()) + "-" + name);
}

std::string slurpFile(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

// --mesh-smoothing switches on indexed output: the same triangles as the
// reference, the smoothing passes in the table, no validation message.
TEST(SampleCliGpu, IsoMeshSmoothingKeepsTheTriangles) {
    const auto path = tempPath("smooth.ply");
    const CmdResult r =
        run("iso --field cayley --cells 20,17,23 --mesh-smoothing 3 --validation --out " + path.string());
    PYRAMARCH_FAIL_OR_SKIP_IF_TOOL_HAS_NO_DEVICE(r);
    ASSERT_EQ(r.code, 0) << r.err;
    pyramarch::ref::Grid g;
    g.n[0] = 21;
    g.n[1] = 18;
    g.n[2] = 24;
    const auto field = pyramarch::ref::sampleField(g, pyramarch::ref::cayley);
    const auto mc = pyramarch::ref::marchingCubes(g, field.data(), 0.f, pyramarch::ref::Normals::Central);
    EXPECT_NE(r.out.find("triangles: " + std::to_string(mc.vertices.size() / 3)), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("iso.mesh.smooth.2.mu"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("iso.mesh.smooth.normals"), std::string::npos) << r.out;
    const std::string ply = slurpFile(path);
    EXPECT_NE(ply.find("element face " + std::to_string(mc.vertices.size() / 3)), std::string::npos);
    std::filesystem::remove(path);
}

// Particles on a cubic lattice of spacing 2r inside a sphere of radius R
// (a fluid ball at rest in splashsurf's terms).
std::vector<float> sphereParticles(float R, float r, float shiftX = 0.f) {
    std::vector<float> xyz;
    const float s = 2.f * r;
    const int n = int(R / s) + 1;
    for (int i = -n; i <= n; ++i)
        for (int j = -n; j <= n; ++j)
            for (int k = -n; k <= n; ++k) {
                const float x = float(i) * s, y = float(j) * s, z = float(k) * s;
                if (x * x + y * y + z * z <= R * R) xyz.insert(xyz.end(), {x + shiftX, y, z});
            }
    return xyz;
}

// Vertices (x, y, z) of a binary little-endian PLY the tool wrote.
std::vector<std::array<float, 3>> readPlyVertices(const std::filesystem::path& path) {
    std::ifstream f(path, std::ios::binary);
    std::string line;
    size_t vertices = 0;
    while (std::getline(f, line) && line != "end_header") std::sscanf(line.c_str(), "element vertex %zu", &vertices);
    std::vector<float> v(vertices * 6);
    f.read(reinterpret_cast<char*>(v.data()), std::streamsize(v.size() * 4));
    std::vector<std::array<float, 3>> out;
    if (!f) return out;
    for (size_t i = 0; i < vertices; ++i) out.push_back({v[i * 6], v[i * 6 + 1], v[i * 6 + 2]});
    return out;
}

// Errors before or without a device: one error line, naming the file and,
// where the readers know it, the line or element; never a crash.
TEST(SampleCliGpu, ParticleErrorsNameTheFile) {
    const auto nanPly = tempPath("nan.ply"), badPly = tempPath("bad.ply"), empty = tempPath("empty.xyz"),
               badGlsl = tempPath("bad.glsl");
    std::ofstream(nanPly)
        << "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\nproperty float z\nend_header\n"
           "0 0 0\n1 one 2\n";
    std::ofstream(badPly) << "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nend_header\n0\n";
    std::ofstream(empty) << "";
    std::ofstream(badGlsl) << "float field(vec3 p) {\n  return 0.5 - length(p)\n}\n";
    struct Bad {
        std::string args;
        std::vector<std::string> mentions;
    };
    const Bad bad[] = {
        {"iso --particles /nonexistent/p.ply --particle-radius 0.1", {"/nonexistent/p.ply"}},
        {"iso --particles " + nanPly.string() + " --particle-radius 0.1", {nanPly.string(), "line 9", "not a number"}},
        {"iso --particles " + badPly.string() + " --particle-radius 0.1", {badPly.string(), "'y'"}},
        {"iso --particles " + empty.string() + " --particle-radius 0.1", {empty.string(), "no particles"}},
        {"iso --particles '/nonexistent/f_{}.ply' --particle-radius 0.1", {"/nonexistent/"}},
        {"iso --particles 'f_{}.ply' --particle-radius 0.1 --out m.ply", {"--out", "{}"}},
        {"iso --particles p.ply --particle-radius 0.1 --field sphere", {"--field", "--particles"}},
        {"iso --glsl " + badGlsl.string() + " --cells 8,8,8", {badGlsl.string() + ":3"}},
        {"iso --glsl /nonexistent/f.glsl", {"/nonexistent/f.glsl"}},
    };
    for (const Bad& b : bad) {
        const CmdResult r = run(b.args);
        PYRAMARCH_FAIL_OR_SKIP_IF_TOOL_HAS_NO_DEVICE(r);
        EXPECT_NE(r.code, 0) << b.args;
        EXPECT_EQ(errorLines(r.err), 1u) << b.args << ": " << r.err;
        for (const auto& m : b.mentions)
            EXPECT_NE(r.err.find(m), std::string::npos) << b.args << ": " << r.err << " should name " << m;
    }
    // A voxel size that gives a grid past what any domain holds (over 2^32
    // samples, past 8,192 cells an axis): one error naming the way out, at
    // once, no crash. (Grids that only miss the dense limits go sparse.)
    const auto ball = tempPath("ball.f32");
    const auto xyz = sphereParticles(0.5f, 0.025f);
    {
        std::ofstream f(ball, std::ios::binary);
        f.write(reinterpret_cast<const char*>(xyz.data()), std::streamsize(xyz.size() * 4));
    }
    const CmdResult big = run("iso --particles " + ball.string() + " --particle-radius 0.025 --voxel-size 0.0001");
    PYRAMARCH_FAIL_OR_SKIP_IF_TOOL_HAS_NO_DEVICE(big);
    EXPECT_NE(big.code, 0);
    EXPECT_EQ(errorLines(big.err), 1u) << big.err;
    EXPECT_NE(big.err.find("samples"), std::string::npos) << big.err;
    EXPECT_NE(big.err.find("--voxel-size"), std::string::npos) << big.err;
    for (const auto& p : {nanPly, badPly, empty, badGlsl, ball}) std::filesystem::remove(p);
}

// Particles sampling a sphere of radius R: the surface lies within about one
// particle radius of the sphere, and the stats name the particle count,
// grid, iso value and the GPU time in total.
TEST(SampleCliGpu, ParticlesOfASphereGiveASphere) {
    const float R = 0.5f, r = 0.025f;
    const auto xyz = sphereParticles(R, r);
    const size_t count = xyz.size() / 3;
    const auto in = tempPath("sphere.ply"), out = tempPath("sphere-mesh.ply"), stats = tempPath("sphere.json");
    ASSERT_TRUE(pyramarch::iso::writeParticlesPly(in.string(), xyz));
    // The neighbour count and the SPH field (the default), with position
    // smoothing (it shrinks the sphere by less than a particle radius) and
    // anisotropic kernels.
    for (const char* splat : {"--particle-kernel count", "", "--particle-smoothing 0.5", "--anisotropic",
                              "--anisotropic --particle-smoothing 0.5"}) {
        const CmdResult res = run("iso --particles " + in.string() + " --particle-radius 0.025 " + std::string(splat) +
                                  " --validation --out " + out.string() + " --stats " + stats.string());
        PYRAMARCH_FAIL_OR_SKIP_IF_TOOL_HAS_NO_DEVICE(res);
        ASSERT_EQ(res.code, 0) << res.err;
        const auto v = readPlyVertices(out);
        ASSERT_GT(v.size(), 1000u) << splat;
        double sum = 0, lo = 1e9, hi = 0;
        for (const auto& p : v) {
            const double d = std::sqrt(double(p[0]) * p[0] + double(p[1]) * p[1] + double(p[2]) * p[2]);
            sum += d;
            lo = std::min(lo, d);
            hi = std::max(hi, d);
        }
        const double mean = sum / double(v.size());
        EXPECT_NEAR(mean, R, r) << splat;
        EXPECT_GT(lo, R - 1.5 * r) << splat;
        EXPECT_LT(hi, R + 1.5 * r) << splat;

        minijson::Value j;
        minijson::Parser parser(slurpFile(stats));
        ASSERT_TRUE(parser.parse(j)) << parser.error();
        ASSERT_EQ(j["frames"].a.size(), 1u);
        const minijson::Value& f = j["frames"].a[0];
        EXPECT_EQ(f["particles"].n, double(count));
        ASSERT_EQ(f["grid"].a.size(), 3u);
        EXPECT_GE(f["grid"].a[0].n, 2 * R / r); // covers the particles and the kernel support
        const bool count = std::string(splat).find("count") != std::string::npos;
        EXPECT_NEAR(f["iso_value"].n, count ? 0.6 * 5.15625 : 0.6, 1e-4) << splat;
        EXPECT_GT(f["gpuMs"].n, 0.0);
        double passes = 0;
        for (const auto& [name, ms] : f["passes"].o) passes += ms.n;
        EXPECT_NEAR(f["gpuMs"].n, passes, 1e-3 + 1e-4 * passes);
        EXPECT_GT(j["gpuMs"].n, 0.0);
        EXPECT_FALSE(f["overflow"].b);
        // Smoothing has its own pass, unless the anisotropic pass (the same
        // neighbourhood) does it; the anisotropic pass runs when asked.
        const bool aniso = std::string(splat).find("anisotropic") != std::string::npos;
        const bool smoothed = !aniso && std::string(splat).find("smoothing") != std::string::npos;
        bool smoothPass = false, anisoPass = false;
        for (const auto& [name, ms] : f["passes"].o) {
            smoothPass = smoothPass || name.find("particles.smooth") != std::string::npos;
            anisoPass = anisoPass || name.find("particles.aniso") != std::string::npos;
        }
        EXPECT_EQ(smoothPass, smoothed) << splat;
        EXPECT_EQ(anisoPass, aniso) << splat;
    }
    for (const auto& p : {in, out, stats}) std::filesystem::remove(p);
}

// A ball of ~6,600 particles on a coarse voxel: every brick near its centre
// lists thousands (past the 3,840 the SPH density on bricks once took, and
// left empty as crowded): both kernels give a surface, no crowded brick
// named, exit code 0.
TEST(SampleCliGpu, ParticleLongBrickListsAreNotCrowded) {
    const auto in = tempPath("crowded.ply");
    ASSERT_TRUE(pyramarch::iso::writeParticlesPly(in.string(), sphereParticles(0.35f, 0.015f)));
    for (const char* kernel : {"sph", "count"}) {
        SCOPED_TRACE(kernel);
        const CmdResult res =
            run("iso --particles " + in.string() +
                " --particle-radius 0.02 --voxel-size 0.04 --sparse --repeat 1 --particle-kernel " + kernel);
        PYRAMARCH_FAIL_OR_SKIP_IF_TOOL_HAS_NO_DEVICE(res);
        EXPECT_EQ(res.code, 0) << res.out << res.err;
        EXPECT_EQ(res.out.find("crowded bricks"), std::string::npos) << res.out;
    }
    std::filesystem::remove(in);
}

// A sequence of three frames (the ball moving along x) gives three meshes
// named by the frames' numbers and one stats entry per frame.
TEST(SampleCliGpu, ParticleSequenceGivesOneMeshPerFrame) {
    const auto dir = tempPath("seq");
    std::filesystem::create_directories(dir / "frames");
    for (int f = 0; f < 3; ++f) {
        const auto xyz = sphereParticles(0.25f, 0.025f, 0.2f * float(f));
        ASSERT_TRUE(pyramarch::iso::writeParticlesPly(
            (dir / "frames" / ("fluid_00" + std::to_string(f) + ".ply")).string(), xyz));
    }
    const std::string in = (dir / "frames" / "fluid_{}.ply").string(), out = (dir / "meshes" / "fluid_{}.ply").string();
    const CmdResult res = run("iso --particles '" + in + "' --particle-radius 0.025 --validation --repeat 1 --out '" +
                              out + "' --stats " + (dir / "s.json").string());
    PYRAMARCH_FAIL_OR_SKIP_IF_TOOL_HAS_NO_DEVICE(res);
    ASSERT_EQ(res.code, 0) << res.err;
    EXPECT_NE(res.err.find("frame 3/3"), std::string::npos) << res.err; // one line per frame when stderr is no terminal
    // --stats: each frame's line on stdout too.
    for (int f = 0; f < 3; ++f)
        EXPECT_NE(res.out.find("frame " + std::to_string(f) + ": fluid_00" + std::to_string(f) + ".ply: "),
                  std::string::npos)
            << res.out;
    size_t triangles = 0;
    for (int f = 0; f < 3; ++f) {
        const auto mesh = dir / "meshes" / ("fluid_00" + std::to_string(f) + ".ply");
        ASSERT_TRUE(std::filesystem::is_regular_file(mesh)) << mesh;
        const auto v = readPlyVertices(mesh);
        ASSERT_GT(v.size(), 100u);
        double cx = 0;
        for (const auto& p : v) cx += p[0];
        EXPECT_NEAR(cx / double(v.size()), 0.2 * f, 0.01) << "frame " << f;
        // Same particles shifted by whole voxels: the same surface.
        if (f == 0) triangles = v.size();
        EXPECT_EQ(v.size(), triangles) << "frame " << f;
    }
    minijson::Value j;
    minijson::Parser parser(slurpFile(dir / "s.json"));
    ASSERT_TRUE(parser.parse(j)) << parser.error();
    ASSERT_EQ(j["frames"].a.size(), 3u);
    for (size_t f = 0; f < 3; ++f) {
        EXPECT_EQ(j["frames"].a[f]["frame"].n, double(f));
        EXPECT_GT(j["frames"].a[f]["gpuMs"].n, 0.0);
    }
    std::filesystem::remove_all(dir);
}

// ------------------------------------------------------------------ particle file formats and domain boxes

TEST(ToolCliParse, DomainBoxesAndAttributes) {
    sample::ToolOptions o;
    ASSERT_EQ(parseTool({"iso", "--particles", "p.vtk", "--particle-radius", "0.1", "--particle-aabb-min", "-1,-2,-3",
                         "--particle-aabb-max", "1,2,3", "--mesh-aabb-min", "0,0,0", "--mesh-aabb-max", "1,1,1",
                         "--out", "m.ply", "--attributes", "velocity,density"},
                        o),
              -1);
    EXPECT_EQ(o.iso.particleAabbMin, "-1,-2,-3");
    EXPECT_EQ(o.iso.meshAabbMax, "1,1,1");
    EXPECT_EQ(o.iso.attributes, (std::vector<std::string>{"velocity", "density"}));
    sample::ToolOptions i;
    ASSERT_EQ(parseTool({"iso", "--particles", "p.vtk", "--particle-radius", "0.1", "--interpolate-attributes",
                         "velocity,density", "--out", "m.ply"},
                        i),
              -1);
    EXPECT_EQ(i.iso.interpolateAttributes, (std::vector<std::string>{"velocity", "density"}));
    // --mesh-aabb with any source.
    sample::ToolOptions f;
    EXPECT_EQ(
        parseTool(
            {"iso", "--field", "sphere", "--mesh-aabb-min", "0,0,0", "--mesh-aabb-max", "1,1,1", "--out", "m.ply"}, f),
        -1);
    const std::vector<std::vector<std::string>> bad = {
        {"iso", "--particles", "p.ply", "--particle-radius", "0.1", "--particle-aabb-min", "0,0,0"}, // no max
        {"iso", "--particles", "p.ply", "--particle-radius", "0.1", "--particle-aabb-min", "0,0", "--particle-aabb-max",
         "1,1,1"},
        {"iso", "--particles", "p.ply", "--particle-radius", "0.1", "--particle-aabb-min", "0,nan,0",
         "--particle-aabb-max", "1,1,1"},
        {"iso", "--particles", "p.ply", "--particle-radius", "0.1", "--particle-aabb-min", "2,0,0",
         "--particle-aabb-max", "1,1,1"}, // min > max
        {"iso", "--particles", "p.ply", "--particle-radius", "0.1", "--mesh-aabb-min", "0,0,0", "--mesh-aabb-max",
         "1,1,1"}, // no --out
        {"iso", "--field", "sphere", "--particle-aabb-min", "0,0,0", "--particle-aabb-max", "1,1,1"},
        {"iso", "--field", "sphere", "--attributes", "velocity"},
        {"iso", "--field", "sphere", "--interpolate-attributes", "velocity"},
        {"iso", "--particles", "p.ply", "--particle-radius", "0.1", "--interpolate-attributes", "density", "--out",
         "m.obj"},
        {"iso", "--particles", "p.ply", "--particle-radius", "0.1", "--interpolate-attributes", "density",
         "--particle-kernel", "count"},
        {"iso", "--particles", "p.ply", "--particle-radius", "0.1", "--interpolate-attributes", "density", "--out",
         "m.ply", "--mesh-aabb-min", "0,0,0", "--mesh-aabb-max", "1,1,1"},
    };
    for (const auto& args : bad) {
        sample::ToolOptions b;
        std::string line;
        for (const auto& a : args) line += a + " ";
        EXPECT_GT(parseTool(args, b), 0) << line;
    }
}

// A square of two triangles across x = 0.5: the half inside stays, the cut
// edge's points are shared, nothing leaves the box.
TEST(MeshClip, CutsAtTheBoxAndSharesCutPoints) {
    pyramarch::iso::Mesh m;
    m.positions = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {5, 5, 5}, {6, 5, 5}, {5, 6, 5}};
    m.normals.assign(m.positions.size(), {0, 0, 1});
    m.indices = {0, 1, 2, 0, 2, 3, 4, 5, 6};
    const sample::MeshClipStats s = sample::clipMeshToBox(m, {-1, -1, -1}, {0.5f, 2, 2});
    EXPECT_EQ(s.kept, 0u);
    EXPECT_EQ(s.cut, 2u);
    EXPECT_EQ(s.removed, 1u);
    double area = 0;
    for (size_t t = 0; t < m.indices.size(); t += 3) {
        const auto& a = m.positions[m.indices[t]];
        const auto& b = m.positions[m.indices[t + 1]];
        const auto& c = m.positions[m.indices[t + 2]];
        area += 0.5 * std::fabs((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]));
    }
    EXPECT_NEAR(area, 0.5, 1e-6); // the half of the unit square with x <= 0.5
    for (const auto& p : m.positions) EXPECT_LE(p[0], 0.5f);
    // Vertices: (0,0), (0,1), (0.5,0), (0.5,1), (0.5,0.5) from the shared diagonal.
    EXPECT_EQ(m.positions.size(), 5u);
    EXPECT_EQ(m.normals.size(), 5u);
    for (const auto& n : m.normals) EXPECT_FLOAT_EQ(n[2], 1.f);
    // A mesh inside is unchanged.
    pyramarch::iso::Mesh in = m;
    const auto all = sample::clipMeshToBox(in, {-1, -1, -1}, {1, 1, 1});
    EXPECT_EQ(all.kept, m.indices.size() / 3);
    EXPECT_EQ(in.indices, m.indices);
}

// The sphere of particles in legacy VTK (binary), VTK XML (ascii) and gzip
// BGEO: the same surface as from PLY.
std::string bigEndianFloats(const std::vector<float>& v) {
    std::string s;
    for (float f : v) {
        uint32_t u;
        std::memcpy(&u, &f, 4);
        for (int k = 3; k >= 0; --k) s += char(u >> (8 * k) & 0xff);
    }
    return s;
}

size_t trianglesOf(const std::string& out) {
    const size_t at = out.find("triangles: ");
    return at == std::string::npos ? 0 : std::stoul(out.substr(at + 11));
}

TEST(SampleCliGpu, ParticleFormatsGiveTheSameSurface) {
    const auto xyz = sphereParticles(0.2f, 0.025f);
    const size_t n = xyz.size() / 3;
    const auto dir = tempPath("formats");
    std::filesystem::create_directories(dir);
    ASSERT_TRUE(pyramarch::iso::writeParticlesPly((dir / "p.ply").string(), xyz));
    std::ofstream(dir / "p.vtk", std::ios::binary)
        << "# vtk DataFile Version 4.2\nsphere\nBINARY\nDATASET POLYDATA\n"
        << "POINTS " << n << " float\n"
        << bigEndianFloats(xyz) << "\nPOINT_DATA " << n << "\nSCALARS density float\nLOOKUP_TABLE default\n"
        << bigEndianFloats(std::vector<float>(n, 1000.f)) << "\n";
    {
        std::ofstream f(dir / "p.vtu");
        f << "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\"><PolyData><Piece NumberOfPoints=\"" << n
          << "\"><Points><DataArray type=\"Float32\" NumberOfComponents=\"3\" format=\"ascii\">";
        char buf[32];
        for (float v : xyz) {
            std::snprintf(buf, sizeof buf, "%.9g ", double(v));
            f << buf;
        }
        f << "</DataArray></Points></Piece></PolyData></VTKFile>\n";
    }
    {
        // BGEO V5 with no attributes (P and its w), gzip-compressed.
        std::string b = "BgeoV";
        const int32_t header[9] = {5, int32_t(n), 0, 0, 0, 0, 0, 0, 0};
        for (int32_t h : header) b += bigEndianFloats({std::bit_cast<float>(h)});
        for (size_t i = 0; i < n; ++i) b += bigEndianFloats({xyz[i * 3], xyz[i * 3 + 1], xyz[i * 3 + 2], 1.f});
        gzFile gz = gzopen((dir / "p.bgeo.sz").c_str(), "wb");
        ASSERT_NE(gz, nullptr);
        ASSERT_EQ(gzwrite(gz, b.data(), unsigned(b.size())), int(b.size()));
        gzclose(gz);
    }
    size_t reference = 0;
    for (const char* file : {"p.ply", "p.vtk", "p.vtu", "p.bgeo.sz"}) {
        const std::string extra = std::string(file) == "p.vtk" ? " --attributes density" : "";
        const CmdResult r = run("iso --particles " + (dir / file).string() +
                                " --particle-radius 0.025 --repeat 1 "
                                "--validation" +
                                extra);
        PYRAMARCH_FAIL_OR_SKIP_IF_TOOL_HAS_NO_DEVICE(r);
        ASSERT_EQ(r.code, 0) << file << ": " << r.err;
        EXPECT_NE(r.out.find("particles: " + std::to_string(n) + ","), std::string::npos) << file << ": " << r.out;
        if (!reference) reference = trianglesOf(r.out);
        EXPECT_GT(reference, 100u);
        EXPECT_EQ(trianglesOf(r.out), reference) << file;
    }
    // A missing attribute names those the file has.
    const CmdResult miss =
        run("iso --particles " + (dir / "p.vtk").string() + " --particle-radius 0.025 --attributes velocity");
    EXPECT_NE(miss.code, 0);
    EXPECT_NE(miss.err.find("no point attribute 'velocity' (the file has 'density')"), std::string::npos) << miss.err;
    std::filesystem::remove_all(dir);
}

// A stray particle at y = 1e38: a clear error suggesting --particle-aabb,
// and with the box the surface of the rest, the particle counted outside.
// A NaN particle is dropped and counted. --mesh-aabb clips the mesh.
TEST(SampleCliGpu, DomainBoxesKeepTheFluidAndClipTheMesh) {
    auto xyz = sphereParticles(0.2f, 0.025f);
    const size_t n = xyz.size() / 3;
    const auto dir = tempPath("boxes");
    std::filesystem::create_directories(dir);
    ASSERT_TRUE(pyramarch::iso::writeParticlesPly((dir / "ball.ply").string(), xyz));
    auto stray = xyz;
    stray.insert(stray.end(), {0.f, 1e38f, 0.f, std::nanf(""), 0.f, 0.f});
    ASSERT_TRUE(pyramarch::iso::writeParticlesPly((dir / "stray.ply").string(), stray));
    const std::string common = " --particle-radius 0.025 --repeat 1 --validation";

    const CmdResult ball = run("iso --particles " + (dir / "ball.ply").string() + common);
    PYRAMARCH_FAIL_OR_SKIP_IF_TOOL_HAS_NO_DEVICE(ball);
    ASSERT_EQ(ball.code, 0) << ball.err;

    const CmdResult err = run("iso --particles " + (dir / "stray.ply").string() + common);
    EXPECT_NE(err.code, 0);
    EXPECT_EQ(errorLines(err.err), 1u) << err.err;
    EXPECT_NE(err.err.find("stray.ply"), std::string::npos) << err.err;
    EXPECT_NE(err.err.find("--particle-aabb-min"), std::string::npos) << err.err;
    EXPECT_NE(err.err.find("1e+38"), std::string::npos) << err.err;

    const auto stats = dir / "s.json", mesh = dir / "m.ply";
    const CmdResult boxed = run("iso --particles " + (dir / "stray.ply").string() + common +
                                " --particle-aabb-min -1,-1,-1 --particle-aabb-max 1,1,1 --stats " + stats.string() +
                                " --mesh-aabb-min -1,-1,-1 --mesh-aabb-max 1,0.0125,1 --out " + mesh.string());
    ASSERT_EQ(boxed.code, 0) << boxed.err;
    EXPECT_NE(boxed.out.find("particles: " + std::to_string(n) + " (1 non-finite dropped, 1 outside --particle-aabb)"),
              std::string::npos)
        << boxed.out;
    EXPECT_EQ(trianglesOf(boxed.out), trianglesOf(ball.out));
    EXPECT_NE(boxed.out.find("mesh clipped to --mesh-aabb"), std::string::npos) << boxed.out;
    const auto v = readPlyVertices(mesh);
    ASSERT_GT(v.size(), 50u);
    float top = -1.f;
    for (const auto& p : v) top = std::max(top, p[1]);
    // Nothing above the box, and the cut (half a voxel above a cell face: it
    // crosses triangles) lies on its face.
    EXPECT_LE(top, 0.0125f);
    EXPECT_GT(top, 0.0125f - 1e-6f);
    minijson::Value j;
    minijson::Parser parser(slurpFile(stats));
    ASSERT_TRUE(parser.parse(j)) << parser.error();
    const minijson::Value& f = j["frames"].a[0];
    EXPECT_EQ(f["particles"].n, double(n));
    EXPECT_EQ(f["particles_non_finite"].n, 1.0);
    EXPECT_EQ(f["particles_outside_box"].n, 1.0);
    EXPECT_GT(f["mesh_triangles_cut"].n, 0.0);
    EXPECT_GT(f["mesh_triangles_removed"].n, 0.0);
    std::filesystem::remove_all(dir);
}

// --glsl: the user's field function gives the surface of the same analytic
// field sampled on the CPU (--field sphere is 0.8 - |p|).
TEST(SampleCliGpu, GlslFieldFromAFile) {
    const auto glsl = tempPath("sphere.glsl");
    std::ofstream(glsl) << "// the tool's sphere\nfloat field(vec3 p) {\n    return 0.8 - length(p);\n}\n";
    const CmdResult g = run("iso --glsl " + glsl.string() + " --cells 24,24,24 --validation");
    PYRAMARCH_FAIL_OR_SKIP_IF_TOOL_HAS_NO_DEVICE(g);
    // A signed distance: L = 1 skips patches, same triangles.
    const CmdResult l = run("iso --glsl " + glsl.string() + " --cells 24,24,24 --lipschitz 1 --validation");
    std::filesystem::remove(glsl);
    if (g.err.find("shader_compiler") != std::string::npos)
        GTEST_SKIP() << "built without the shader compiler: " << g.err;
    ASSERT_EQ(g.code, 0) << g.err;
    const CmdResult f = run("iso --field sphere --cells 24,24,24");
    ASSERT_EQ(f.code, 0) << f.err;
    auto triangles = [](const std::string& out) {
        unsigned t = 0;
        const size_t p = out.find("triangles: ");
        if (p != std::string::npos) std::sscanf(out.c_str() + p, "triangles: %u", &t);
        return t;
    };
    EXPECT_GT(triangles(g.out), 100u) << g.out;
    ASSERT_EQ(l.code, 0) << l.err;
    EXPECT_EQ(triangles(l.out), triangles(g.out)) << l.out;
    EXPECT_NEAR(double(triangles(g.out)), double(triangles(f.out)), 0.01 * triangles(f.out)) << g.out << f.out;
}

} // namespace

// --- pyramarch iso --sparse ----------------------------------------------------

TEST(ToolCliParse, SparseOptionsAndConflicts) {
    sample::ToolOptions f;
    ASSERT_EQ(parseTool({"iso", "--field", "cayley", "--cells", "2047,2047,2047", "--sparse"}, f), -1);
    EXPECT_TRUE(f.iso.sparse);
    EXPECT_EQ(f.iso.memoryBudgetMiB, 0u);
    sample::ToolOptions g;
    ASSERT_EQ(parseTool({"iso", "--glsl", "f.glsl", "--lipschitz", "2", "--sparse", "--memory-budget", "900"}, g), -1);
    EXPECT_EQ(g.iso.memoryBudgetMiB, 900u);
    sample::ToolOptions m;
    ASSERT_EQ(parseTool({"iso", "--field", "metaballs", "--cells", "2047,2047,2047", "--sparse"}, m), -1);
    EXPECT_TRUE(m.iso.sparse);
    sample::ToolOptions p;
    ASSERT_EQ(parseTool({"iso", "--particles", "p.ply", "--particle-radius", "0.1", "--sparse"}, p), -1);
    EXPECT_TRUE(p.iso.sparse);
    // Smoothing and anisotropic kernels run on bricks too.
    sample::ToolOptions pa;
    ASSERT_EQ(parseTool({"iso", "--particles", "p.ply", "--particle-radius", "0.1", "--sparse", "--anisotropic",
                         "--particle-smoothing", "0.5"},
                        pa),
              -1);
    EXPECT_TRUE(pa.iso.sparse && pa.iso.anisotropic);
    sample::ToolOptions r;
    ASSERT_EQ(parseTool({"iso", "--raw", "v.raw", "--dims", "4,4,4", "--sparse"}, r), -1);
    EXPECT_TRUE(r.iso.sparse);
    const std::vector<std::vector<std::string>> bad = {
        {"iso", "--field", "metaballs", "--sparse", "--lipschitz", "1"},
        // The module sizes and grows its pools: no option names them.
        {"iso", "--field", "sphere", "--sparse", "--sparse-bricks", "10"},
        {"iso", "--field", "sphere", "--sparse", "--sparse-row-pairs", "10"},
    };
    for (const auto& args : bad) {
        sample::ToolOptions o;
        std::string line;
        for (const auto& a : args) line += a + " ";
        EXPECT_GT(parseTool(args, o), 0) << line;
    }
}

// The sparse domain gives the dense path's triangles with capacities the
// module sizes and grows, keeps a given --capacity (its overflow reported),
// names a budget too small, prints resident memory, and at 2047^3, with no
// flag, runs where no dense grid fits.
TEST(SampleCliGpu, IsoSparseMatchesTheDensePath) {
    const CmdResult dense = run("iso --field cayley --cells 40,33,37 --validation");
    PYRAMARCH_FAIL_OR_SKIP_IF_TOOL_HAS_NO_DEVICE(dense);
    ASSERT_EQ(dense.code, 0) << dense.err;
    const auto triangles = [](const std::string& out) {
        const size_t at = out.find("triangles: ");
        return at == std::string::npos ? std::string() : out.substr(at, out.find(',', at) - at);
    };
    ASSERT_FALSE(triangles(dense.out).empty()) << dense.out;
    const CmdResult sparse = run("iso --field cayley --cells 40,33,37 --validation --sparse");
    ASSERT_EQ(sparse.code, 0) << sparse.err;
    EXPECT_EQ(triangles(sparse.out), triangles(dense.out)) << sparse.out;
    EXPECT_NE(sparse.out.find("sparse: "), std::string::npos) << sparse.out;
    EXPECT_EQ(sparse.out.find("OVERFLOW"), std::string::npos) << sparse.out;
    // Mesh smoothing post-processes the indexed mesh of either domain: the same triangles.
    const CmdResult smoothDense = run("iso --field cayley --cells 40,33,37 --validation --mesh-smoothing 3");
    const CmdResult smoothSparse = run("iso --field cayley --cells 40,33,37 --validation --sparse --mesh-smoothing 3");
    ASSERT_EQ(smoothDense.code, 0) << smoothDense.err;
    ASSERT_EQ(smoothSparse.code, 0) << smoothSparse.err;
    EXPECT_EQ(triangles(smoothSparse.out), triangles(smoothDense.out)) << smoothSparse.out;
    EXPECT_EQ(triangles(smoothSparse.out), triangles(dense.out)) << smoothSparse.out;
    // A --capacity is a cap: the overflow is a bounded, reported result.
    const CmdResult fixed = run("iso --field cayley --cells 40,33,37 --validation --sparse --capacity 30");
    ASSERT_EQ(fixed.code, sample::kExitOverflow) << fixed.err;
    EXPECT_NE(fixed.out.find("OVERFLOW"), std::string::npos) << fixed.out;
    // A budget under the starting buffers: a named error, no crash.
    const CmdResult tight = run("iso --field cayley --cells 40,33,37 --validation --sparse --memory-budget 1");
    EXPECT_NE(tight.code, 0);
    EXPECT_NE(tight.err.find("memoryBudget"), std::string::npos) << tight.err;
    // The help names no internal pool.
    const CmdResult help = run("iso --help");
    EXPECT_EQ(help.out.find("--sparse-"), std::string::npos) << help.out;
    EXPECT_NE(help.out.find("--memory-budget"), std::string::npos) << help.out;

    // Metaballs: the balls' ranges list the bricks (no GLSL, no compiler),
    // each brick's balls are counted and printed.
    const CmdResult denseBalls = run("iso --field metaballs --cells 30,90,26 --validation");
    ASSERT_EQ(denseBalls.code, 0) << denseBalls.err;
    const CmdResult sparseBalls = run("iso --field metaballs --cells 30,90,26 --validation --sparse");
    ASSERT_EQ(sparseBalls.code, 0) << sparseBalls.err;
    ASSERT_FALSE(triangles(denseBalls.out).empty()) << denseBalls.out;
    EXPECT_EQ(triangles(sparseBalls.out), triangles(denseBalls.out)) << sparseBalls.out;
    EXPECT_NE(sparseBalls.out.find("ball references in the listed bricks"), std::string::npos) << sparseBalls.out;
    EXPECT_EQ(sparseBalls.out.find("OVERFLOW"), std::string::npos) << sparseBalls.out;

    // Particles: the bricks their kernels reach, the dense splat's field.
    const auto ply = tempPath("sparse-sphere.ply");
    ASSERT_TRUE(pyramarch::iso::writeParticlesPly(ply.string(), sphereParticles(0.5f, 0.05f)));
    // Both kernels: the SPH field (the default) and the neighbour count.
    for (const std::string kernel : {"sph", "count"}) {
        const std::string cmd =
            "iso --particles " + ply.string() + " --particle-radius 0.05 --particle-kernel " + kernel + " --validation";
        const CmdResult denseParticles = run(cmd);
        ASSERT_EQ(denseParticles.code, 0) << denseParticles.err;
        const CmdResult sparseParticles = run(cmd + " --sparse");
        ASSERT_EQ(sparseParticles.code, 0) << sparseParticles.err;
        ASSERT_FALSE(triangles(denseParticles.out).empty()) << denseParticles.out;
        EXPECT_EQ(triangles(sparseParticles.out), triangles(denseParticles.out)) << kernel << sparseParticles.out;
        EXPECT_NE(sparseParticles.out.find("particle references in the listed bricks"), std::string::npos)
            << sparseParticles.out;
    }
    std::filesystem::remove(ply);

    // No flag: the dense grid does not fit, the module lays it out in bricks and sizes them.
    const CmdResult big = run("iso --field sphere --cells 2047,2047,2047 --repeat 1");
    ASSERT_EQ(big.code, big.out.find("OVERFLOW") != std::string::npos ? sample::kExitOverflow : 0) << big.err;
    EXPECT_NE(big.out.find("sparse: "), std::string::npos) << big.out;
    EXPECT_NE(big.out.find("active cells: 12637418"), std::string::npos) << big.out; // brick_census's count
    EXPECT_NE(big.out.find("a dense grid: 42.7 GiB"), std::string::npos) << big.out;
}

// Raw volumes on a sparse domain: `--sparse` (and with `--indexed`) gives
// the dense path's triangles, and a file whose dense field would not fit one storage buffer
// goes sparse by itself (read slab by slab), finding every cut cell.
TEST(SampleCliGpu, IsoRawVolumeSparse) {
    const auto writeBall = [](const std::filesystem::path& path, uint32_t n, float radius) {
        std::ofstream f(path, std::ios::binary);
        std::vector<char> slice(size_t(n) * n);
        for (uint32_t z = 0; z < n; ++z) {
            for (uint32_t y = 0; y < n; ++y)
                for (uint32_t x = 0; x < n; ++x) {
                    const float dx = float(x) - 0.45f * float(n), dy = float(y) - 0.52f * float(n),
                                dz = float(z) - 0.5f * float(n);
                    const float v = 255.f - 128.f / radius * std::sqrt(dx * dx + dy * dy + dz * dz);
                    slice[x + size_t(n) * y] = char(uint8_t(std::clamp(v, 0.f, 255.f)));
                }
            f.write(slice.data(), std::streamsize(slice.size()));
        }
        return bool(f);
    };
    const auto triangles = [](const std::string& out) {
        const size_t at = out.find("triangles: ");
        return at == std::string::npos ? std::string() : out.substr(at, out.find('\n', at) - at);
    };
    const auto small = tempPath("ball48.raw");
    ASSERT_TRUE(writeBall(small, 48, 15.f));
    const std::string args = "iso --raw " + small.string() + " --dims 48,48,48 --type u8 --iso 120.5 --validation";
    const CmdResult dense = run(args);
    PYRAMARCH_FAIL_OR_SKIP_IF_TOOL_HAS_NO_DEVICE(dense);
    ASSERT_EQ(dense.code, 0) << dense.err;
    const CmdResult sparse = run(args + " --sparse");
    ASSERT_EQ(sparse.code, 0) << sparse.err;
    ASSERT_FALSE(triangles(dense.out).empty()) << dense.out;
    EXPECT_EQ(triangles(sparse.out), triangles(dense.out)) << sparse.out;
    EXPECT_NE(sparse.out.find("sparse volume: "), std::string::npos) << sparse.out;
    const CmdResult indexed = run(args + " --sparse --indexed");
    ASSERT_EQ(indexed.code, 0) << indexed.err;
    EXPECT_EQ(triangles(indexed.out), triangles(dense.out)) << indexed.out;
    std::filesystem::remove(small);

    // 330^3 samples: a 144 MiB float field, past lavapipe's 128 MiB binding.
    const uint32_t n = 330;
    const auto large = tempPath("ball330.raw");
    ASSERT_TRUE(writeBall(large, n, 60.f));
    const CmdResult big = run("iso --raw " + large.string() + " --dims 330,330,330 --type u8 --iso 120.5");
    std::filesystem::remove(large);
    ASSERT_EQ(big.code, 0) << big.err;
    // A device whose storage buffers hold the 144 MiB field runs it dense:
    // the same cut cells either way.
    if (big.err.find("exceeds maxStorageBufferRange") != std::string::npos) {
        EXPECT_NE(big.out.find("sparse volume: "), std::string::npos) << big.out;
    }
    EXPECT_EQ(big.out.find("OVERFLOW"), std::string::npos) << big.out;
    // The CPU's cut cells, on the samples the file holds.
    std::vector<uint8_t> v(size_t(n) * n * n);
    for (uint32_t z = 0; z < n; ++z)
        for (uint32_t y = 0; y < n; ++y)
            for (uint32_t x = 0; x < n; ++x) {
                const float dx = float(x) - 0.45f * float(n), dy = float(y) - 0.52f * float(n),
                            dz = float(z) - 0.5f * float(n);
                const float value = 255.f - 128.f / 60.f * std::sqrt(dx * dx + dy * dy + dz * dz);
                v[x + size_t(n) * (y + size_t(n) * z)] = uint8_t(std::clamp(value, 0.f, 255.f));
            }
    uint64_t cut = 0;
    for (uint32_t z = 0; z + 1 < n; ++z)
        for (uint32_t y = 0; y + 1 < n; ++y)
            for (uint32_t x = 0; x + 1 < n; ++x) {
                int inside = 0;
                for (int k = 0; k < 8; ++k)
                    inside +=
                        v[(x + (k & 1)) + size_t(n) * ((y + ((k >> 1) & 1)) + size_t(n) * (z + (k >> 2)))] >= 120.5f;
                cut += inside != 0 && inside != 8;
            }
    EXPECT_NE(big.out.find("active cells: " + std::to_string(cut)), std::string::npos) << big.out;
}

// --interpolate-attributes: a VTK file's velocity (vector) and density
// (scalar), constant over the particles, come back at every vertex of the
// written PLY (velocity_x .. density; normalised weights), soup and with
// mesh smoothing; a name the file lacks names the file and the attribute.
TEST(SampleCliGpu, InterpolatedAttributesReachThePly) {
    const auto xyz = sphereParticles(0.2f, 0.025f);
    const size_t n = xyz.size() / 3;
    const auto dir = tempPath("attributes");
    std::filesystem::create_directories(dir);
    std::vector<float> velocity;
    for (size_t i = 0; i < n; ++i) velocity.insert(velocity.end(), {1.f, -2.f, 0.5f});
    const std::string vtk = (dir / "p.vtk").string();
    std::ofstream(vtk, std::ios::binary) << "# vtk DataFile Version 4.2\nsphere\nBINARY\nDATASET POLYDATA\n"
                                         << "POINTS " << n << " float\n"
                                         << bigEndianFloats(xyz) << "\nPOINT_DATA " << n << "\nVECTORS velocity float\n"
                                         << bigEndianFloats(velocity)
                                         << "\nSCALARS density float\nLOOKUP_TABLE default\n"
                                         << bigEndianFloats(std::vector<float>(n, 1000.f)) << "\n";
    for (const char* extra : {"", " --mesh-smoothing 2"}) {
        const std::string out = (dir / "m.ply").string();
        const CmdResult r = run("iso --particles " + vtk + " --particle-radius 0.025 --repeat 1 --validation " +
                                "--interpolate-attributes velocity,density --out " + out + extra);
        PYRAMARCH_FAIL_OR_SKIP_IF_TOOL_HAS_NO_DEVICE(r);
        ASSERT_EQ(r.code, 0) << extra << ": " << r.err;
        pyramarch::iso::ParticleReadOptions opt;
        opt.attributes = {"velocity_x", "velocity_y", "velocity_z", "density"};
        auto mesh = pyramarch::iso::readParticles(out, opt);
        ASSERT_TRUE(mesh.ok()) << mesh.message();
        ASSERT_GT(mesh->count(), 100u) << extra;
        const float expect[4] = {1.f, -2.f, 0.5f, 1000.f};
        for (size_t a = 0; a < 4; ++a)
            for (float v : mesh->attributes[a].values)
                ASSERT_NEAR(v, expect[a], 1e-5f * std::fabs(expect[a])) << extra << " " << opt.attributes[a];
    }
    const CmdResult miss = run("iso --particles " + vtk + " --particle-radius 0.025 --interpolate-attributes nope");
    EXPECT_NE(miss.code, 0);
    EXPECT_NE(miss.err.find(vtk), std::string::npos) << miss.err;
    EXPECT_NE(miss.err.find("no point attribute 'nope'"), std::string::npos) << miss.err;
    // Not with an .obj output (no vertex properties there).
    const CmdResult obj = run("iso --particles " + vtk + " --particle-radius 0.025 --interpolate-attributes density " +
                              "--out " + (dir / "m.obj").string());
    EXPECT_NE(obj.code, 0);
    EXPECT_NE(obj.err.find("--out must end in .ply"), std::string::npos) << obj.err;
    std::filesystem::remove_all(dir);
}
