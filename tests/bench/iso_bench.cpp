// Cayley surface (the paper's analytic benchmark: 16xyz + 4(x+y+z) - 1 over
// [-1,1]^3, iso 0) at N^3 cells: triangle counts and per-pass GPU times from
// RenderGraph::latestTimings, as JSON on stdout. Triangle counts are checked
// against the CPU reference run on the GPU's field.
//
// With --method both (default) every size runs the HistoPyramid pipeline and
// the scan baseline (seed 003) in the same engine.
//
//   iso_bench [--frames F] [--cells N ...] [--normals forward|central|sobel] [--method pyramid|scan|both]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "pyramarch/engine/device.h"
#include "pyramarch/engine/render_graph.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/isosurface/isosurface.h"
#include "reference.h"

using namespace pyramarch;
using namespace pyramarch::iso;

namespace {
constexpr const char* kCayley = "float field(vec3 p) { return 16.0 * p.x * p.y * p.z + 4.0 * (p.x + p.y + p.z) - 1.0; }\n";

int fail(const std::string& what) {
    std::fprintf(stderr, "iso_bench: %s\n", what.c_str());
    return 1;
}
} // namespace

int main(int argc, char** argv) {
    int frames = 10;
    std::vector<uint32_t> sizes;
    NormalMode normals = NormalMode::Central;
    std::vector<ExtractionMethod> methods = {ExtractionMethod::HistoPyramid, ExtractionMethod::Scan};
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--frames") && i + 1 < argc) frames = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--cells") && i + 1 < argc) sizes.push_back(uint32_t(std::atoi(argv[++i])));
        else if (!std::strcmp(argv[i], "--normals") && i + 1 < argc) {
            const std::string m = argv[++i];
            normals = m == "forward" ? NormalMode::Forward : m == "sobel" ? NormalMode::Sobel : NormalMode::Central;
        } else if (!std::strcmp(argv[i], "--method") && i + 1 < argc) {
            const std::string m = argv[++i];
            if (m == "pyramid") methods = {ExtractionMethod::HistoPyramid};
            else if (m == "scan") methods = {ExtractionMethod::Scan};
        } else
            return fail(std::string("unknown argument ") + argv[i]);
    }
    if (sizes.empty()) sizes = {63, 127, 255};
    if (frames < 1) frames = 1;

    DeviceCreateInfo dci;
    dci.applicationName = "iso_bench";
    auto device = Device::create(dci);
    if (!device) return fail(device.message());
    Device& dev = *device.value();

    std::printf("{\n  \"device\": \"%s\",\n  \"driver\": \"%s\",\n  \"frames\": %d,\n  \"results\": [", dev.name().c_str(),
                dev.driverInfo().c_str(), frames);
    size_t printed = 0;
    for (size_t si = 0; si < sizes.size(); ++si)
    for (ExtractionMethod method : methods) {
        const uint32_t n = sizes[si];
        IsoSurfaceCreateInfo info;
        info.method = method;
        info.samples = {n + 1, n + 1, n + 1};
        info.source = FieldSource::UserGlsl;
        info.fieldGlsl = kCayley;
        info.isoValue = 0.f;
        info.normals = normals;
        info.vertexCapacity = 3u << 20;
        info.name = "cayley";
        auto created = IsoSurface::create(dev, info);
        if (!created) return fail(created.message());
        IsoSurface& iso = *created.value();

        // Frame 0 includes pipeline JIT on lavapipe; it is reported separately.
        std::map<std::string, double> sum;
        std::vector<std::string> order;
        double wallSum = 0.0, firstWall = 0.0;
        int timed = 0;
        for (int f = 0; f <= frames; ++f) {
            Status inner;
            const auto t0 = std::chrono::steady_clock::now();
            Status s = submitAndWait(dev, [&](VkCommandBuffer cmd) { inner = iso.record(cmd); });
            const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            if (!s) return fail(s.message());
            if (!inner) return fail(inner.message());
            if (f == 0) {
                firstWall = wall;
                continue;
            }
            wallSum += wall;
            const RenderGraph* g = iso.internalGraph();
            if (g->latestTimingsFrame() != uint64_t(f)) continue;
            for (const PassTiming& t : g->latestTimings()) {
                if (!sum.count(t.name)) order.push_back(t.name);
                sum[t.name] += t.milliseconds;
            }
            ++timed;
        }
        const auto stats = iso.statsOfFrame(iso.framesRecorded() - 1);
        if (!stats) return fail("no stats");
        auto field = iso.readField();
        if (!field) return fail(field.message());
        ref::Grid g;
        for (int a = 0; a < 3; ++a) g.n[a] = n + 1;
        const ref::McResult cpu = ref::marchingCubes(g, field.value().data(), 0.f, ref::Normals::Central);

        double total = 0.0, mc = 0.0;
        std::string passes;
        for (const std::string& name : order) {
            const double ms = timed ? sum[name] / timed : 0.0;
            total += ms;
            if (name.find(".field") == std::string::npos) mc += ms;
            char buf[160];
            std::snprintf(buf, sizeof(buf), "%s\n        {\"pass\": \"%s\", \"ms\": %.3f}", passes.empty() ? "" : ",", name.c_str(), ms);
            passes += buf;
        }
        const double cells = double(n) * n * n;
        std::printf("%s\n    {\"method\": \"%s\", \"cells\": \"%ux%ux%u\", \"triangles\": %u, \"cpuReferenceTriangles\": %zu, \"activeCells\": %u,"
                    " \"activeFraction\": %.4f, \"overflow\": %s,\n     \"firstFrameWallMs\": %.1f, \"meanFrameWallMs\": %.2f,"
                    " \"timedFrames\": %d, \"gpuMsTotal\": %.3f, \"gpuMsExtraction\": %.3f, \"mcCellsPerSecondMillions\": %.1f,\n"
                    "     \"passes\": [%s\n     ]}",
                    printed++ ? "," : "", method == ExtractionMethod::Scan ? "scan" : "histopyramid", n, n, n, stats->verticesWritten / 3, cpu.vertices.size() / 3, stats->activeCells,
                    stats->activeCells / cells, stats->overflow ? "true" : "false", firstWall, wallSum / frames, timed, total, mc,
                    mc > 0 ? cells / (mc * 1e-3) / 1e6 : 0.0, passes.c_str());
        std::fflush(stdout);
        if (cpu.vertices.size() != stats->verticesNeeded) return fail("GPU and CPU triangle counts differ");
    }
    std::printf("\n  ]\n}\n");
    return 0;
}
