// Per-pass GPU times and leaf counts of the voxelizer (not a test: run by
// hand). Usage: voxelizer_bench [resolution...]   (default: 128 512)
// Shapes: sphere, torus knot, a ~100k-triangle knot. Timings come from the
// render graph's timestamp queries, averaged over the frames after the
// first (which includes shader JIT on lavapipe).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "pyramarch/engine/device.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/voxelizer/shapes.h"
#include "pyramarch/voxelizer/voxelizer.h"

using namespace pyramarch;
using namespace pyramarch::voxel;

int main(int argc, char** argv) {
    std::vector<uint32_t> resolutions;
    bool cursors = true;
    for (int i = 1; i < argc; ++i) {
        if (std::string(argv[i]) == "--root") cursors = false;
        else resolutions.push_back(uint32_t(std::atoi(argv[i])));
    }
    if (resolutions.empty()) resolutions = {128, 512};
    DeviceCreateInfo di;
    di.applicationName = "voxelizer-bench";
    di.requirements.geometryShader = true;
    auto dev = Device::create(di);
    if (!dev) {
        std::fprintf(stderr, "device: %s\n", dev.message().c_str());
        return 1;
    }
    Device& device = **dev;
    std::printf("device: %s (%s), %s\n", device.name().c_str(), device.driverInfo().c_str(),
                cursors ? "fragment cursors" : "descent from the root");
    struct Shape {
        const char* name;
        TriangleMesh mesh;
    };
    std::vector<Shape> shapesList;
    shapesList.push_back({"sphere", shapes::sphere({0, 0, 0}, 1.0f, 96, 48)});
    shapesList.push_back({"knot", shapes::torusKnot({0, 0, 0}, 1.0f, 0.15f, 2, 3, 512, 24)});
    shapesList.push_back({"knot100k", shapes::denseKnot({0, 0, 0}, 1.0f, 100000)});
    for (auto& s : shapesList) shapes::colorByPosition(s.mesh);

    const int frames = 4;
    for (uint32_t r : resolutions) {
        VoxelizerCreateInfo ci;
        ci.maxResolution = r;
        ci.maxVertices = 1 << 17;
        ci.maxTriangles = 1 << 17;
        ci.fragmentCapacity = uint32_t(std::min<uint64_t>(device.limits().maxStorageBufferRange / 16, 1u << 23));
        ci.tileCapacity = uint32_t(std::min<uint64_t>(device.limits().maxStorageBufferRange / 256, 1u << 19));
        ci.fragmentCursors = cursors;
        auto v = Voxelizer::create(device, ci);
        if (!v) {
            std::fprintf(stderr, "voxelizer: %s\n", v.message().c_str());
            return 1;
        }
        for (const Shape& s : shapesList) {
            auto grid = defaultGrid(s.mesh, r);
            if (!grid) return 1;
            std::map<std::string, double> sum;
            std::vector<std::string> order;
            double wallMs = 0;
            for (int f = 0; f < frames; ++f) {
                if (!(*v)->setMesh(s.mesh, *grid)) return 1;
                Status rec;
                const auto t0 = std::chrono::steady_clock::now();
                Status st = submitAndWait(device, [&](VkCommandBuffer cmd) { rec = (*v)->record(cmd); });
                const auto t1 = std::chrono::steady_clock::now();
                if (!st || !rec) {
                    std::fprintf(stderr, "frame: %s %s\n", st.message().c_str(), rec.message().c_str());
                    return 1;
                }
                if (f == 0) continue;
                wallMs += std::chrono::duration<double, std::milli>(t1 - t0).count();
            }
            // One more empty submit so the last frame's timestamps are readable.
            (void)submitAndWait(device, [](VkCommandBuffer) {});
            for (const PassTiming& t : (*v)->latestTimings()) {
                std::string key = t.name;
                // Fold the per-level passes into one line per kind.
                const size_t dot = key.find_last_of('.');
                if (dot != std::string::npos && key.find_first_of("0123456789", dot) == dot + 1) key = key.substr(0, dot) + ".*";
                if (!sum.count(key)) order.push_back(key);
                sum[key] += t.milliseconds;
            }
            auto stats = (*v)->readStats();
            auto tree = (*v)->readOctree();
            if (!stats || !tree) return 1;
            const size_t leaves = extractLeaves(*tree).size();
            std::printf("\n%s R=%u: %zu triangles, grid %ux%ux%u, fragments %u%s, tiles %u%s, leaves %zu, wall %.1f ms/frame%s\n",
                        s.name, r, s.mesh.triangleCount(), grid->dims[0], grid->dims[1], grid->dims[2],
                        stats->fragmentsNeeded, stats->fragmentOverflow ? " (OVERFLOW)" : "", stats->tilesNeeded,
                        stats->tileOverflow ? " (OVERFLOW)" : "", leaves, wallMs / (frames - 1),
                        stats->depthOverflow ? " (DEPTH OVERFLOW)" : "");
            double total = 0;
            for (const std::string& k : order) {
                std::printf("  %-22s %9.3f ms\n", k.c_str(), sum[k]);
                total += sum[k];
            }
            std::printf("  %-22s %9.3f ms (last frame)\n", "total", total);
        }
    }
    return 0;
}
