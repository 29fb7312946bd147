#include "sample/app.h"

#include <atomic>
#include <cstdio>

namespace sample {

using namespace pyramarch;

int parseSampleCommandLine(int argc, const char* const* argv, SampleApp& app, CommonOptions& options) {
    CLI::App cli{app.title, app.name};
    addCommonOptions(cli, options);
    if (app.addOptions) app.addOptions(cli);
    const int parsed = parseCommandLine(cli, argc, const_cast<char**>(argv));
    if (parsed >= 0) return parsed;
    app.config.indexed = options.indexed;
    if (app.prepare) {
        Status s = app.prepare(app.config);
        if (!s) return fail(app.name, s.message());
    }
    if (!options.headless) {
        if (!options.out.empty() && !options.frames)
            return fail(app.name, "windowed --out needs --frames N (the frame to capture)");
        if (isFramePattern(options.out)) return fail(app.name, "windowed --out takes one file name, not a %d pattern");
    }
    return -1;
}

int sampleMain(int argc, char** argv, SampleApp& app) {
    CommonOptions options;
    const int parsed = parseSampleCommandLine(argc, argv, app, options);
    if (parsed >= 0) return parsed;
    if (!options.headless) return runWindowed(options, app);

    std::atomic<uint32_t> messages{0};
    auto device = createSampleDevice(options, &messages);
    if (!device) return fail(app.name, device.message());
    auto scene = app.makeScene ? app.makeScene(**device, app.config) : makeScene(**device, app.config);
    if (!scene) return fail(app.name, scene.message());
    StatsRecorder stats;
    stats.setInfo("sample", app.name);
    stats.setInfo("device", (*device)->name());
    stats.setInfo("source", app.config.source);
    stats.setInfo("cells", std::to_string(app.config.cells));
    OrbitCamera camera;
    camera.distance = 2.7f * (*scene)->viewRadius();
    Status s = runHeadless(**device, **scene, options, stats, {}, camera);
    if (!s) return fail(app.name, s.message());
    if (app.afterHeadless) {
        s = app.afterHeadless(**device, **scene);
        if (!s) return fail(app.name, s.message());
    }
    const auto& frames = stats.frames();
    if (!frames.empty() && frames.back().haveSurfaceStats)
        std::printf("%s: %zu frame(s), %u triangles in the last%s\n", app.name.c_str(), frames.size(),
                    frames.back().triangles, frames.back().overflow ? " (OVERFLOW)" : "");
    std::printf("%s", stats.table(frames.size() > 1 ? 1 : 0).c_str());
    if (messages) return fail(app.name, std::to_string(messages.load()) + " validation message(s)");
    return 0;
}

} // namespace sample
