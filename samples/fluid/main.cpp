// A dam break simulated with position-based fluids (Macklin & Mueller 2013)
// on the GPU and surfaced every frame, all in one render graph: the
// particles never leave the GPU (the isosurface splats the simulation's
// buffer, ParticleInput::GpuBuffer).
#include "fluid_sim.h"
#include "sample/app.h"

int main(int argc, char** argv) {
    sample::SampleApp app;
    fluid::FluidSettings settings;
    app.name = "fluid";
    app.title = "pyramarch fluid: a PBF dam break simulated and surfaced on the GPU every frame";
    app.config.source = "fluid";
    app.config.particles = settings.particles;
    std::string kernel = "isotropic";
    std::string collider;
    app.addOptions = [&](CLI::App& cli) {
        cli.add_option("--particles", app.config.particles, "Number of particles (default 100000)")
            ->check(CLI::Range(1u, fluid::kMaxParticles));
        cli.add_option("--iterations", settings.iterations, "Solver iterations per step (default 4)")
            ->check(CLI::Range(1u, fluid::kMaxIterations));
        cli.add_option("--steps-per-frame", settings.stepsPerFrame,
                       "Simulation steps per drawn frame (default 1; more shows the flow faster)")
            ->check(CLI::Range(1u, fluid::kMaxStepsPerFrame));
        cli.add_option("--dt", settings.dt, "Fixed time step in seconds (default 1/120)")
            ->check(sample::finiteFloat())
            ->check(CLI::Range(1e-5f, 0.1f));
        cli.add_option("--xsph", settings.xsph, "XSPH viscosity c in [0, 1] (default 0.05; 0: off)")
            ->check(sample::finiteFloat())
            ->check(CLI::Range(0.f, 1.f));
        cli.add_option("--threshold", app.config.surfaceThreshold,
                       "Surface iso value as a fraction of the rest density (default 0.6)")
            ->check(sample::finiteFloat())
            ->check(CLI::Range(0.01f, 2.f));
        cli.add_option("--kernel", kernel,
                       "Surface kernel: isotropic | smoothed (particle position smoothing 0.5 before the splat) | "
                       "anisotropic (Yu & Turk's stretched kernels from each particle's neighbours)")
            ->check(CLI::IsMember({"isotropic", "smoothed", "anisotropic"}));
        cli.add_option("--mesh-smoothing", app.config.meshSmoothing,
                       "Taubin smoothing of the extracted mesh on the GPU, N iterations (default 0: off; at most "
                       "64); recomputes area-weighted normals and switches on shared vertices (indexed output)")
            ->check(CLI::Range(0u, 64u));
        cli.add_option("--voxel", settings.voxelSize, "Surface grid spacing in particle spacings (default 1)")
            ->check(sample::finiteFloat())
            ->check(CLI::Range(0.25f, 8.f));
        cli.add_option(
            "--collider", collider,
            "An obstacle in the water's path: a closed mesh (.obj, .ply, .gltf, .glb) or a built-in shape "
            "(bunny, sphere, torus, knot, box, diamond), 0.5 m across, standing on the floor; voxelized solid on "
            "the GPU every frame (default: none)");
        cli.add_option("--collider-res", settings.colliderResolution,
                       "Collider voxels along the box's 2 m side (default 64)")
            ->check(CLI::Range(fluid::kMinColliderResolution, fluid::kMaxColliderResolution));
    };
    app.prepare = [&](sample::SceneConfig& config) -> pyramarch::Status {
        config.particleSmoothing = kernel == "smoothed" ? 0.5f : 0.f;
        config.anisotropic = kernel == "anisotropic";
        if (!collider.empty()) {
            PYRAMARCH_TRY_ASSIGN(settings.collider, fluid::loadCollider(collider));
        }
        return {};
    };
    app.makeScene = [&settings](pyramarch::Device& device, const sample::SceneConfig& config) {
        return fluid::makeFluidScene(device, config, settings);
    };
    return sample::sampleMain(argc, argv, app);
}
