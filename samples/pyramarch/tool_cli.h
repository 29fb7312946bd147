// Command line of the pyramarch tool, separate from running the commands so
// tests and the fuzzer (tests/fuzz) can parse without touching a device.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pyramarch/isosurface/isosurface.h"
#include "bench.h"
#include "voxelize_command.h"

namespace sample {

struct DemoOptions {
    std::string outDir = "demo-out";
    uint32_t frames = 36;
    std::string size = "480x320";
    uint32_t msaa = 1;
    bool validation = false;
    std::string device;
    std::string shading = "lit";
    std::vector<std::string> scenes{"metaballs", "pointcloud"};
    uint32_t cells = 48;
    uint32_t particles = 100000;
    uint32_t balls = 24;
    pyramarch::iso::SplatMethod splat = pyramarch::iso::SplatMethod::Scatter;
};

struct IsoOptions {
    std::string field;
    std::string raw;
    std::string cells = "64,64,64";
    std::string dims;
    std::string type = "u8";
    std::string bounds = "-1,-1,-1,1,1,1";
    float iso = 0.f;
    bool isoGiven = false;
    std::string normals = "central";
    std::string out;
    std::string stats;
    bool weld = false;
    bool validation = false;
    std::string device;
    uint32_t capacity = 0;
    uint32_t repeat = 2;
};

struct ToolOptions {
    std::string command; // info | demo | iso | voxelize | bench
    std::string infoDevice;
    DemoOptions demo;
    IsoOptions iso;
    VoxelizeOptions voxelize;
    pyramarch::bench::BenchOptions bench;
};

// Parses argv (argv[0] is the program) into `options` and checks what can be
// checked without a device (--out extension). Returns -1 when the command
// should run, else the exit code (0 after --help); errors are one line on stderr.
int parseToolCommandLine(int argc, const char* const* argv, ToolOptions& options);

} // namespace sample
