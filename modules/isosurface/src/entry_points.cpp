// Create-infos for the common sources (isosurface.h): the source and what it
// needs, every other field at its default. No checks here: create() validates.
#include <utility>

#include "pyramarch/isosurface/isosurface.h"
#include "pyramarch/isosurface/particle_grid.h"

namespace pyramarch::iso {

IsoSurfaceCreateInfo metaballSurface(const std::array<uint32_t, 3>& samples, uint32_t maxBalls, float isoValue) {
    IsoSurfaceCreateInfo info;
    info.samples = samples;
    info.source = FieldSource::Metaballs;
    info.maxBalls = maxBalls;
    info.isoValue = isoValue;
    return info;
}

IsoSurfaceCreateInfo particleSurface(const std::array<uint32_t, 3>& samples, const std::array<float, 3>& boundsMin,
                                     const std::array<float, 3>& boundsMax, uint32_t maxParticles, float particleRadius,
                                     float isoValue) {
    IsoSurfaceCreateInfo info;
    info.samples = samples;
    info.boundsMin = boundsMin;
    info.boundsMax = boundsMax;
    info.source = FieldSource::Particles;
    info.maxParticles = maxParticles;
    info.particleRadius = particleRadius;
    info.isoValue = isoValue;
    return info;
}

IsoSurfaceCreateInfo particleSurface(const ParticleGrid& grid, uint32_t maxParticles, float particleRadius,
                                     float isoValue) {
    return particleSurface(grid.samples, grid.boundsMin, grid.boundsMax, maxParticles, particleRadius, isoValue);
}

IsoSurfaceCreateInfo volumeSurface(const std::array<uint32_t, 3>& samples, float isoValue) {
    IsoSurfaceCreateInfo info;
    info.samples = samples;
    info.source = FieldSource::Volume;
    info.isoValue = isoValue;
    return info;
}

IsoSurfaceCreateInfo userFieldSurface(const std::array<uint32_t, 3>& samples, std::string fieldGlsl,
                                      GlslCompiler compileGlsl, float lipschitz, float isoValue) {
    IsoSurfaceCreateInfo info;
    info.samples = samples;
    info.source = FieldSource::UserGlsl;
    info.fieldGlsl = std::move(fieldGlsl);
    info.compileGlsl = std::move(compileGlsl);
    info.lipschitz = lipschitz;
    info.isoValue = isoValue;
    return info;
}

} // namespace pyramarch::iso
