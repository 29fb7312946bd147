// Cayley surface (the paper's analytic benchmark: 16xyz + 4(x+y+z) - 1 over
// [-1,1]^3, iso 0) at N^3 cells: triangle counts and per-pass GPU times from
// RenderGraph::latestTimings, as JSON on stdout. Triangle counts are checked
// against the CPU reference run on the GPU's field.
//
// With --method all (default) every size runs the HistoPyramid pipeline, the
// scan baseline (seed 003) and indexed HistoPyramid output (shared vertices)
// in the same engine.
//
//   iso_bench [--frames F] [--cells N ...] [--normals forward|central|sobel] [--method pyramid|scan|indexed|all]
//             [--field cayley|metaballs|particles] [--splat scatter|gather]
//
// metaballs: 256 balls updated every frame (iso 0.5); particles: 2^20
// particles re-uploaded every frame, kernel radius 2.5 cells (iso 1).
#include <algorithm>
#include <chrono>
#include <cmath>
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
#include "support/device_policy.h"

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
    std::string fieldKind = "cayley";
    SplatMethod splat = SplatMethod::Scatter;
    enum class Variant { Pyramid, Scan, Indexed };
    std::vector<Variant> methods = {Variant::Pyramid, Variant::Scan, Variant::Indexed};
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--frames") && i + 1 < argc) frames = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--cells") && i + 1 < argc) sizes.push_back(uint32_t(std::atoi(argv[++i])));
        else if (!std::strcmp(argv[i], "--normals") && i + 1 < argc) {
            const std::string m = argv[++i];
            normals = m == "forward" ? NormalMode::Forward : m == "sobel" ? NormalMode::Sobel : NormalMode::Central;
        } else if (!std::strcmp(argv[i], "--field") && i + 1 < argc) {
            fieldKind = argv[++i];
            if (fieldKind != "cayley" && fieldKind != "metaballs" && fieldKind != "particles") return fail("unknown field " + fieldKind);
        } else if (!std::strcmp(argv[i], "--splat") && i + 1 < argc) {
            splat = std::string(argv[++i]) == "gather" ? SplatMethod::Gather : SplatMethod::Scatter;
        } else if (!std::strcmp(argv[i], "--method") && i + 1 < argc) {
            const std::string m = argv[++i];
            if (m == "pyramid") methods = {Variant::Pyramid};
            else if (m == "scan") methods = {Variant::Scan};
            else if (m == "indexed") methods = {Variant::Indexed};
        } else
            return fail(std::string("unknown argument ") + argv[i]);
    }
    if (sizes.empty()) sizes = {63, 127, 255};
    if (frames < 1) frames = 1;

    DeviceCreateInfo dci;
    dci.applicationName = "iso_bench";
    auto device = Device::create(dci);
    // Like the GPU tests: no device skips (CTest SKIP_RETURN_CODE 77), except under CI.
    if (!device) return test::noDeviceExitCode("iso_bench", device.message());
    Device& dev = *device.value();

    std::printf("{\n  \"device\": \"%s\",\n  \"driver\": \"%s\",\n  \"field\": \"%s\",\n  \"frames\": %d,\n  \"results\": [",
                dev.name().c_str(), dev.driverInfo().c_str(), fieldKind.c_str(), frames);
    size_t printed = 0;
    for (size_t si = 0; si < sizes.size(); ++si)
    for (Variant method : methods) {
        const uint32_t n = sizes[si];
        IsoSurfaceCreateInfo info;
        info.method = method == Variant::Scan ? ExtractionMethod::Scan : ExtractionMethod::HistoPyramid;
        info.indexed = method == Variant::Indexed;
        info.indexCapacity = 3u << 20;
        info.samples = {n + 1, n + 1, n + 1};
        info.normals = normals;
        info.vertexCapacity = 3u << 20;
        info.name = fieldKind;
        if (fieldKind == "cayley") {
            info.source = FieldSource::UserGlsl;
            info.fieldGlsl = kCayley;
            info.isoValue = 0.f;
        } else if (fieldKind == "metaballs") {
            info.source = FieldSource::Metaballs;
            info.maxBalls = 256;
            info.isoValue = 0.5f;
        } else {
            info.source = FieldSource::Particles;
            info.maxParticles = 1u << 20;
            info.particleRadius = 2.5f * 2.f / float(n);
            info.splat = splat;
            info.isoValue = 1.f;
        }
        auto created = IsoSurface::create(dev, info);
        if (!created) return fail(created.message());
        IsoSurface& iso = *created.value();
        const auto rnd = ref::noise(size_t(1u << 20) * 3, 2024);
        std::vector<Metaball> balls(256);
        std::vector<Particle> particles(fieldKind == "particles" ? (1u << 20) : 0);
        auto animate = [&](int f) -> Status {
            const float phase = 0.1f * float(f);
            if (fieldKind == "metaballs") {
                for (size_t i = 0; i < balls.size(); ++i) {
                    for (int k = 0; k < 3; ++k) balls[i].center[k] = 0.8f * std::sin(6.283f * rnd[i * 3 + k] + phase * float(k + 1));
                    balls[i].radius = 0.15f + 0.1f * rnd[(i * 3 + 1) % rnd.size()];
                    balls[i].strength = 1.f;
                }
                return iso.setMetaballs(balls);
            }
            if (fieldKind == "particles") {
                // A noisy sphere shell of points, drifting.
                for (size_t i = 0; i < particles.size(); ++i) {
                    float d[3], len = 0.f;
                    for (int k = 0; k < 3; ++k) {
                        d[k] = rnd[i * 3 + k] * 2.f - 1.f;
                        len += d[k] * d[k];
                    }
                    const float r = (0.6f + 0.05f * std::sin(phase + float(i % 97))) / std::sqrt(std::max(len, 1e-6f));
                    particles[i] = {{d[0] * r, d[1] * r, d[2] * r}, 0.02f};
                }
                return iso.setParticles(particles);
            }
            return {};
        };

        // Frame 0 includes pipeline JIT on lavapipe; it is reported separately.
        std::map<std::string, double> sum;
        std::vector<std::string> order;
        double wallSum = 0.0, firstWall = 0.0;
        int timed = 0;
        for (int f = 0; f <= frames; ++f) {
            if (Status a = animate(f); !a) return fail(a.message());
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
        const ref::McResult cpu = ref::marchingCubes(g, field.value().data(), info.isoValue, ref::Normals::Central);

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
        std::printf("%s\n    {\"method\": \"%s\", \"cells\": \"%ux%ux%u\", \"triangles\": %u, \"vertices\": %u, \"cpuReferenceTriangles\": %zu, \"activeCells\": %u,"
                    " \"activeFraction\": %.4f, \"overflow\": %s,\n     \"firstFrameWallMs\": %.1f, \"meanFrameWallMs\": %.2f,"
                    " \"timedFrames\": %d, \"gpuMsTotal\": %.3f, \"gpuMsExtraction\": %.3f, \"mcCellsPerSecondMillions\": %.1f,\n"
                    "     \"passes\": [%s\n     ]}",
                    printed++ ? "," : "", method == Variant::Scan ? "scan" : method == Variant::Indexed ? "histopyramid-indexed" : "histopyramid", n, n, n,
                    (method == Variant::Indexed ? stats->indicesWritten : stats->verticesWritten) / 3, stats->verticesWritten, cpu.vertices.size() / 3, stats->activeCells,
                    stats->activeCells / cells, stats->overflow ? "true" : "false", firstWall, wallSum / frames, timed, total, mc,
                    mc > 0 ? cells / (mc * 1e-3) / 1e6 : 0.0, passes.c_str());
        std::fflush(stdout);
        const uint32_t gpuCount = method == Variant::Indexed ? stats->indicesNeeded : stats->verticesNeeded;
        if (cpu.vertices.size() != gpuCount) return fail("GPU and CPU triangle counts differ");
    }
    std::printf("\n  ]\n}\n");
    return 0;
}
