// main() of a sample: common options, then headless (offscreen frames to
// PNG + stats) or windowed (GLFW swapchain + ImGui panel).
#pragma once

#include <functional>
#include <string>

#include "sample/framework.h"
#include "sample/scenes.h"

namespace sample {

struct SampleApp {
    std::string name;   // program name for messages
    std::string title;  // window title / help text
    SceneConfig config; // initial scene
    // Sample-specific options (added to the same CLI11 app).
    std::function<void(CLI::App&)> addOptions;
    // After parsing: validate and finish the config (e.g. load a raw file).
    std::function<Status(SceneConfig&)> prepare;
    // Windowed: extra panel widgets (e.g. export buttons). The GPU is idle
    // while it runs only if it calls vkDeviceWaitIdle itself.
    std::function<void(pyramarch::Device&, Scene&)> panel;
    // Headless: after the frames (e.g. export the mesh).
    std::function<Status(pyramarch::Device&, Scene&)> afterHeadless;
    // Windowed: what the window shows. Unset: the iso scene of `config` with
    // its panel (field source, grid, normals, shading). Called again after a
    // view's ui() asked for re-creation; on failure the loop reports the
    // error and calls it once more, so a factory should fall back to its last
    // working settings.
    std::function<Result<std::unique_ptr<WindowView>>(pyramarch::Device&, const RenderTarget&, ExtraPasses)> makeView;
    // Headless and windowed: the scene of `config` when the sample has its
    // own (e.g. the fluid simulation) instead of makeScene's field sources.
    // The window then shows the scene's own panel without the field-source
    // combo and grid slider (the scene sizes its grid itself).
    std::function<Result<std::unique_ptr<Scene>>(pyramarch::Device&, const SceneConfig&)> makeScene;
};

int sampleMain(int argc, char** argv, SampleApp& app);

// The parsing half of sampleMain (common + sample options, then prepare()),
// callable without a device: returns -1 when the sample should run, else the
// exit code. Used by sampleMain and tests/fuzz.
int parseSampleCommandLine(int argc, const char* const* argv, SampleApp& app, CommonOptions& options);

// The windowed loop; returns the process exit code.
int runWindowed(const CommonOptions& options, SampleApp& app);

} // namespace sample
