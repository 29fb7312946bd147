// Command-line handling shared by the samples and the pyramarch tool: CLI11
// with --help everywhere, one-line errors and a non-zero exit.
#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

#include "pyramarch/engine/status.h"

namespace sample {

// Options every sample takes.
struct CommonOptions {
    bool headless = false;
    uint32_t frames = 0; // 0: windowed runs until closed; headless renders 1
    uint32_t width = 640, height = 480;
    std::string out;   // PNG of the last frame; a '%d'-style pattern writes every frame
    std::string stats; // stats.json
    bool validation = false;
    uint32_t msaa = 1;
    std::string device;          // index or name substring
    std::string shading = "lit"; // lit | cells | normals
    bool wireframe = false;
    bool indexed = false; // shared vertices + index buffer
    bool vsync = true;
    // Windowed test aid: resizes, minimises and restores the window during
    // the run so CI exercises swapchain re-creation.
    bool exerciseResize = false;
};

void addCommonOptions(CLI::App& app, CommonOptions& options);

// Parses "WxH" (e.g. 640x480); false when malformed.
bool parseSize(const std::string& text, uint32_t& width, uint32_t& height);
// Parses "X,Y,Z" of positive integers.
bool parseTriple(const std::string& text, uint32_t out[3]);
// Parses "a,b,c" / n comma-separated floats; false when malformed or when a
// value is not finite (nan, inf, beyond float's range).
bool parseFloatTriple(const std::string& text, float out[3]);
bool parseFloatList(const std::string& text, float* out, int n);
// Parses one float; false when malformed or not finite.
bool parseFiniteFloat(const std::string& text, float& out);

// CLI11 check for every float option of the tool and the samples: the value
// must be a finite number. Errors name the option and the value:
// "--iso: 'nan' is not a finite number".
CLI::Validator finiteFloat();
// CLI11 check for "minX,minY,minZ,maxX,maxY,maxZ" world bounds: six finite
// floats with min < max on every axis.
CLI::Validator boundsSixFloats();

// Exit codes of the tool and the samples, the same for every command
// (samples/pyramarch/README.md, "Exit codes").
enum ExitCode : int {
    kExitDone = 0,     // finished; the output is complete
    kExitFailed = 1,   // a run-time failure (device, file, validation message)
    kExitUsage = 2,    // the command line is wrong (nothing was run)
    kExitOverflow = 3, // finished, but the output is truncated: a capacity overflowed
};

// Runs app.parse; on error prints one line "name: error: ..." (or the help
// text for --help) and returns the exit code to use (kExitDone after --help,
// kExitUsage on a parse error); -1 when parsing succeeded.
int parseCommandLine(CLI::App& app, int argc, char** argv);

// One-line error to stderr; returns kExitFailed (for `return fail(...)`).
int fail(const std::string& program, const std::string& message);
// One-line error from a failed Status: kExitOverflow for
// ErrorCode::CapacityExceeded (an output that did not fit), else kExitFailed.
int failWith(const std::string& program, const pyramarch::Status& status);
// One-line error about the command line; returns kExitUsage.
int usageError(const std::string& program, const std::string& message);

} // namespace sample
