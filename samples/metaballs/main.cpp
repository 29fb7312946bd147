// Animated metaballs (up to 256) extracted on the GPU every frame.
#include "sample/app.h"

int main(int argc, char** argv) {
    sample::SampleApp app;
    app.name = "metaballs";
    app.title = "pyramarch metaballs: animated metaballs, GPU marching cubes with HistoPyramids";
    app.config.source = "metaballs";
    app.addOptions = [&app](CLI::App& cli) {
        cli.add_option("--balls", app.config.balls, "Number of metaballs (1..256, default 24)")
            ->check(CLI::Range(1u, 256u));
        cli.add_option("--cells", app.config.cells, "Grid cells per axis (default 48)")->check(CLI::Range(1u, 400u));
        cli.add_option("--iso", app.config.iso, "Iso value (default 0.35)")->check(sample::finiteFloat());
    };
    return sample::sampleMain(argc, argv, app);
}
