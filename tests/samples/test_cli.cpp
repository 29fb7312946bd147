// The pyramarch tool and the samples' command lines: --help, one-line errors
// with a non-zero exit, and `pyramarch iso` output checked against the CPU
// reference mesh.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include "reference.h"
#include "sample/cli.h"
#include "support/device_policy.h"
#include "support/run_command.h"

namespace {

using CmdResult = pyramarch::test::CommandResult;

CmdResult run(const std::string& args, const std::string& tool = PYRAMARCH_TOOL) { return pyramarch::test::runCommand(tool, args); }

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
    for (const char* cmd : {"--help", "info --help", "demo --help", "iso --help"}) {
        const CmdResult r = run(cmd);
        EXPECT_EQ(r.code, 0) << cmd;
        EXPECT_NE(r.out.find("Options"), std::string::npos) << cmd << ": " << r.out;
    }
}

TEST(SampleCli, BadArgumentsGiveOneLineErrors) {
    for (const char* cmd : {"", "bogus", "demo --size 12", "demo --frames 0", "demo --scenes teapot", "iso --field teapot",
                            "iso --field sphere --cells 0,4,4", "iso --field sphere --cells 4,4", "iso --raw /nonexistent/file --dims 4,4,4",
                            "iso --raw x.raw", "iso", "iso --field sphere --out mesh.stl", "iso --field sphere --bounds 1,1,1,0,0,0",
                            "iso --field sphere --type u32"}) {
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

TEST(SampleCli, SamplesHaveHelpAndOneLineErrors) {
    const std::string metaballs = SAMPLE_METABALLS, pointcloud = SAMPLE_POINTCLOUD, volume = SAMPLE_VOLUME;
    for (const std::string& tool : {metaballs, pointcloud, volume}) {
        const CmdResult r = run("--help", tool);
        EXPECT_EQ(r.code, 0) << tool;
        EXPECT_NE(r.out.find("--headless"), std::string::npos) << tool << ": " << r.out;
    }
    const std::pair<std::string, std::string> bad[] = {
        {metaballs, "--size 12"},        {metaballs, "--balls 300"},         {metaballs, "--msaa 3"},
        {metaballs, "--shading pink"},   {pointcloud, "--splat foo"},        {pointcloud, "--particles 0"},
        {volume, "--raw /tmp --headless"}, {volume, "--dims 4,4,4 --headless"}, {volume, "--export a.stl --headless"},
        {volume, "--raw /nonexistent.raw --dims 4,4,4 --headless"}};
    for (const auto& [tool, args] : bad) {
        const CmdResult r = run(args, tool);
        EXPECT_NE(r.code, 0) << tool << " " << args;
        EXPECT_EQ(errorLines(r.err), 1u) << tool << " " << args << ": " << r.err;
    }
}

TEST(SampleCli, RawVolumeOfTheWrongSizeIsNamed) {
    const auto path = std::filesystem::temp_directory_path() / ("pyramarch-cli-raw-" + std::to_string(::getpid()) + ".raw");
    {
        std::ofstream f(path, std::ios::binary);
        f << std::string(100, '\0');
    }
    const CmdResult r = run("iso --raw " + path.string() + " --dims 4,4,4 --type u16");
    std::filesystem::remove(path);
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.err.find("128"), std::string::npos) << r.err; // 4*4*4*2 bytes expected
}

// `pyramarch demo` (small) with validation: frames and stats of both scenes
// land in the output folder and the timing table is printed.
TEST(SampleCliGpu, DemoWritesFramesStatsAndTable) {
    const auto dir = std::filesystem::temp_directory_path() / ("pyramarch-demo-" + std::to_string(::getpid()));
    const CmdResult r = run("demo --frames 3 --size 64x48 --cells 12 --particles 5000 --validation --out-dir " + dir.string());
    PYRAMARCH_FAIL_OR_SKIP_IF_TOOL_HAS_NO_DEVICE(r);
    ASSERT_EQ(r.code, 0) << r.err;
    for (const char* scene : {"metaballs", "pointcloud"}) {
        for (int f = 0; f < 3; ++f) {
            char name[64];
            std::snprintf(name, sizeof name, "%s_%04d.png", scene, f);
            EXPECT_TRUE(std::filesystem::is_regular_file(dir / name)) << name;
        }
        EXPECT_GT(std::filesystem::file_size(dir / (std::string(scene) + "_stats.json")), 100u);
        EXPECT_NE(r.out.find(std::string(scene) + ".extract"), std::string::npos) << r.out;
    }
    EXPECT_NE(r.out.find("surface.draw"), std::string::npos) << r.out;
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

} // namespace
