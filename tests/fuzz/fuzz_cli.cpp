#include <cmath>
#include <string>
#include <vector>

#include "fuzz_targets.h"
#include "sample/app.h"
#include "sample/cli.h"
#include "tool_cli.h"

namespace pyramarch::fuzz {

int commandLine(const uint8_t* data, size_t size) {
    if (size == 0 || size > 2048) return 0;
    const bool tool = (data[0] & 1) == 0;
    std::vector<std::string> args{tool ? "pyramarch" : "sample"};
    std::string cur;
    for (size_t i = 1; i < size; ++i) {
        if (data[i] == '\n') {
            args.push_back(cur);
            cur.clear();
        } else {
            cur.push_back(char(data[i]));
        }
    }
    if (size > 1) args.push_back(cur);
    if (args.size() > 64) return 0;
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    argv.push_back(nullptr);
    const int argc = int(args.size());

    if (tool) {
        sample::ToolOptions o;
        const int rc = sample::parseToolCommandLine(argc, argv.data(), o);
        FUZZ_CHECK(rc >= -1, "negative exit code");
        if (rc != -1) return 0;
        FUZZ_CHECK(o.command == "info" || o.command == "demo" || o.command == "iso" || o.command == "voxelize" ||
                       o.command == "bench",
                   "parsed without a command");
        FUZZ_CHECK(o.demo.frames >= 1 && o.demo.frames <= 100000, "--frames outside its range");
        FUZZ_CHECK(o.demo.cells >= 1 && o.demo.cells <= 512, "--cells outside its range");
        FUZZ_CHECK(o.demo.balls >= 1 && o.demo.balls <= 256, "--balls outside its range");
        FUZZ_CHECK(o.demo.msaa == 1 || o.demo.msaa == 2 || o.demo.msaa == 4 || o.demo.msaa == 8,
                   "--msaa not a valid count");
        for (const auto& s : o.demo.scenes)
            FUZZ_CHECK(s == "metaballs" || s == "pointcloud" || s == "fluid" || s == "channel",
                       "--scenes accepted an unknown scene");
        FUZZ_CHECK(o.demo.channelCells >= 63 && o.demo.channelCells <= pyramarch::iso::kMaxSparseCellsPerAxis,
                   "--channel-cells outside its range");
        FUZZ_CHECK(o.demo.channelBalls >= 1 && o.demo.channelBalls <= 1024, "--channel-balls outside its range");
        FUZZ_CHECK(o.demo.fluidFrames >= 1 && o.demo.fluidFrames <= 100000, "--fluid-frames outside its range");
        FUZZ_CHECK(o.demo.fluidParticles >= 1 && o.demo.fluidParticles <= 4000000,
                   "--fluid-particles outside its range");
        FUZZ_CHECK(std::isfinite(o.iso.iso), "--iso accepted a value that is not finite");
        {
            float b[6];
            FUZZ_CHECK(sample::parseFloatList(o.iso.bounds, b, 6),
                       "--bounds accepted a value that is not six finite numbers");
            for (int a = 0; a < 3; ++a) FUZZ_CHECK(b[a] < b[a + 3], "--bounds accepted min >= max");
        }
        if (o.command == "iso") {
            const int sources =
                !o.iso.field.empty() + !o.iso.raw.empty() + !o.iso.glsl.empty() + !o.iso.particles.empty();
            FUZZ_CHECK(sources == 1, "iso accepted no source or several of --field, --raw, --glsl, --particles");
            if (!o.iso.particles.empty()) {
                FUZZ_CHECK(std::isfinite(o.iso.particleRadius) && o.iso.particleRadius > 0.f,
                           "--particle-radius accepted a value <= 0 or not finite");
                FUZZ_CHECK(std::isfinite(o.iso.smoothingLength) && o.iso.smoothingLength > 0.f &&
                               o.iso.smoothingLength <= 64.f,
                           "--smoothing-length accepted a value outside (0, 64]");
                FUZZ_CHECK(std::isfinite(o.iso.surfaceThreshold) && o.iso.surfaceThreshold > 0.f,
                           "--surface-threshold accepted a value <= 0");
                FUZZ_CHECK(std::isfinite(o.iso.voxelSize) && o.iso.voxelSize >= 0.f,
                           "--voxel-size accepted a negative or non-finite value");
                FUZZ_CHECK(!(o.iso.isoGiven && o.iso.thresholdGiven), "--iso and --surface-threshold together");
                const bool inSeq = o.iso.particles.find("{}") != std::string::npos,
                           outSeq = o.iso.out.find("{}") != std::string::npos;
                FUZZ_CHECK(o.iso.out.empty() || inSeq == outSeq, "a sequence --out without {} or {} for one file");
            }
        }
        FUZZ_CHECK(o.voxelize.resolution >= 1 && o.voxelize.resolution <= 1024, "--res outside 1..1024");
        FUZZ_CHECK(o.voxelize.mesh.empty() || o.voxelize.shape.empty(), "--mesh and --shape together");
        FUZZ_CHECK(o.voxelize.method == "auto" || o.voxelize.method == "gs" || o.voxelize.method == "hw",
                   "--method accepted an unknown value");
        // Aliases (bottomup, cursors, ...) are normalised to the build's name by the parser.
        const std::string& bb = o.bench.octreeBuild;
        FUZZ_CHECK(bb == "levels" || bb == "root" || bb == "hash" || bb == "both" || bb == "all",
                   "bench --octree-build kept an unknown word");
        return 0;
    }
    // The samples' shared options plus a prepare() like the volume sample's:
    // the options every sample takes.
    sample::SampleApp app;
    app.name = "sample";
    app.title = "fuzzed sample";
    sample::CommonOptions o;
    const int rc = sample::parseSampleCommandLine(argc, argv.data(), app, o);
    FUZZ_CHECK(rc >= -1, "negative exit code");
    if (rc != -1) return 0;
    FUZZ_CHECK(o.width >= 1 && o.width <= 16384 && o.height >= 1 && o.height <= 16384, "--size outside 1..16384");
    FUZZ_CHECK(o.msaa == 1 || o.msaa == 2 || o.msaa == 4 || o.msaa == 8, "--msaa not a valid count");
    FUZZ_CHECK(o.shading == "lit" || o.shading == "cells" || o.shading == "normals",
               "--shading accepted an unknown mode");
    FUZZ_CHECK(o.frames <= 1000000, "--frames outside its range");
    return 0;
}

} // namespace pyramarch::fuzz
