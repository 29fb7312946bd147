// An animated point cloud (100,000 particles in a curl-noise flow) splatted
// into a grid and turned into a surface every frame.
#include "sample/app.h"

int main(int argc, char** argv) {
    sample::SampleApp app;
    app.name = "pointcloud";
    app.title = "pyramarch pointcloud: particles splatted and extracted every frame";
    app.config.source = "pointcloud";
    app.addOptions = [&app](CLI::App& cli) {
        cli.add_option("--particles", app.config.particles, "Number of particles (default 100000)")
            ->check(CLI::Range(1u, 4000000u));
        cli.add_option("--cells", app.config.cells, "Grid cells per axis (default 48)")->check(CLI::Range(1u, 400u));
        cli.add_option("--iso", app.config.iso, "Iso value (default 0.5)")->check(sample::finiteFloat());
        cli.add_flag("--anisotropic", app.config.anisotropic,
                     "Anisotropic kernels (Yu & Turk 2013) stretched along each particle's neighbours");
    };
    return sample::sampleMain(argc, argv, app);
}
