#include "sample/cli.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace sample {

bool parseSize(const std::string& text, uint32_t& width, uint32_t& height) {
    unsigned w = 0, h = 0;
    char tail = 0;
    if (std::sscanf(text.c_str(), "%ux%u%c", &w, &h, &tail) != 2) return false;
    if (w == 0 || h == 0 || w > 16384 || h > 16384) return false;
    width = w;
    height = h;
    return true;
}

bool parseTriple(const std::string& text, uint32_t out[3]) {
    long long v[3];
    char tail = 0;
    if (std::sscanf(text.c_str(), "%lld,%lld,%lld%c", &v[0], &v[1], &v[2], &tail) != 3) return false;
    for (int i = 0; i < 3; ++i) {
        if (v[i] <= 0 || v[i] > (1ll << 20)) return false;
        out[i] = uint32_t(v[i]);
    }
    return true;
}

bool parseFiniteFloat(const std::string& text, float& out) {
    if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return false;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size()) return false;
    const float f = static_cast<float>(v);
    if (!std::isfinite(v) || !std::isfinite(f)) return false;
    out = f;
    return true;
}

bool parseFloatList(const std::string& text, float* out, int n) {
    size_t start = 0;
    for (int i = 0; i < n; ++i) {
        const size_t comma = text.find(',', start);
        const bool last = i == n - 1;
        if (last != (comma == std::string::npos)) return false;
        if (!parseFiniteFloat(text.substr(start, last ? std::string::npos : comma - start), out[i])) return false;
        start = comma + 1;
    }
    return true;
}

bool parseFloatTriple(const std::string& text, float out[3]) { return parseFloatList(text, out, 3); }

CLI::Validator finiteFloat() {
    return CLI::Validator(
        [](std::string& s) -> std::string {
            float v;
            if (!parseFiniteFloat(s, v)) return "'" + s + "' is not a finite number";
            return {};
        },
        "FLOAT");
}

CLI::Validator boundsSixFloats() {
    return CLI::Validator(
        [](std::string& s) -> std::string {
            float b[6];
            if (!parseFloatList(s, b, 6))
                return "expected six finite numbers minX,minY,minZ,maxX,maxY,maxZ, got '" + s + "'";
            for (int a = 0; a < 3; ++a)
                if (!(b[a] < b[a + 3])) return "min must be below max on every axis, got '" + s + "'";
            return {};
        },
        "MIN3,MAX3");
}

void addCommonOptions(CLI::App& app, CommonOptions& o) {
    app.add_flag("--headless", o.headless, "Render offscreen without a window (writes --out / --stats)");
    app.add_option("--frames", o.frames,
                   "Frames to render, then exit (headless default 1; windowed default: until closed)")
        ->check(CLI::Range(1u, 1000000u));
    app.add_option_function<std::string>(
           "--size",
           [&o](const std::string& s) {
               if (!parseSize(s, o.width, o.height))
                   throw CLI::ValidationError("--size", "expected WxH, e.g. 640x480, got '" + s + "'");
           },
           "Image / window size WxH (default 640x480)")
        ->type_name("WxH");
    app.add_option("--out", o.out,
                   "PNG of the last frame (a pattern with %d, e.g. frame_%04d.png, writes every frame)");
    app.add_option("--stats", o.stats,
                   "Write per-frame, per-pass GPU times, triangle counts and overflow flags as JSON");
    app.add_flag("--validation", o.validation,
                 "Enable the Vulkan validation layer; any validation message fails the exit code");
    app.add_option("--msaa", o.msaa, "Samples per pixel (1, 2, 4, 8)")
        // CLI11 2.1's numeric IsMember lets an empty value through as 0 (found
        // by tests/fuzz: `--msaa ""`); Range rejects it first.
        ->check(CLI::Range(1u, 8u))
        ->check(CLI::IsMember({1u, 2u, 4u, 8u}));
    app.add_option("--device", o.device, "Vulkan device index or name substring (default: best, or PYRAMARCH_DEVICE)");
    app.add_option("--shading", o.shading,
                   "lit | cells (triangles per cell: 1 blue 2 green 3 red 4 cyan 5 magenta) | normals")
        ->check(CLI::IsMember({"lit", "cells", "normals"}));
    app.add_flag("--wireframe", o.wireframe, "Wireframe (where the device has fillModeNonSolid)");
    app.add_flag("--indexed", o.indexed,
                 "Shared vertices + index buffer (vkCmdDrawIndexedIndirect); cell colouring shows white");
    app.add_flag("!--no-vsync", o.vsync, "Windowed: present without waiting for vertical blank");
    app.add_flag("--exercise-resize", o.exerciseResize,
                 "Windowed: resize, minimise and restore the window while running (tests)");
}

int parseCommandLine(CLI::App& app, int argc, char** argv) {
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e); // CLI::Success
        // CLI11 prints multi-line hints; one line is what scripts and users need.
        std::fprintf(stderr, "%s: error: %s (see --help)\n", app.get_name().c_str(), e.what());
        return kExitUsage;
    }
    return -1;
}

int fail(const std::string& program, const std::string& message) {
    std::string line = message;
    for (char& c : line)
        if (c == '\n') c = ' ';
    std::fprintf(stderr, "%s: error: %s\n", program.c_str(), line.c_str());
    return kExitFailed;
}

int failWith(const std::string& program, const pyramarch::Status& status) {
    fail(program, status.message());
    return status.code() == pyramarch::ErrorCode::CapacityExceeded ? kExitOverflow : kExitFailed;
}

int usageError(const std::string& program, const std::string& message) {
    fail(program, message);
    return kExitUsage;
}

} // namespace sample
