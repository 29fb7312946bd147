// The pyramid layout question, its expansion half measured alone: the
// per-triangle top-down walk (most of extraction's time on lavapipe) over
// count pyramids of fan-out 4 (the module's), 5 (Dyken's HP5: 4 stored
// children, the 5th implied) and 8, built on the CPU from a real surface's
// per-cell triangle counts (Cayley or a sphere, as `pyramarch bench`), each
// walked on the GPU by shaders/bench/pyramid_walk.comp and checked against
// the CPU's cell of every triangle. Prints one JSON line per fan-out.
//
//   build/tests/bench/pyramid_walk_bench [--cells N] [--field cayley|sphere] [--reps R] [--validation]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "pyramarch/engine/device.h"
#include "pyramarch/engine/memory.h"
#include "pyramarch/engine/pipeline.h"
#include "pyramarch/engine/render_graph.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/isosurface/mc_tables.h"

using namespace pyramarch;

namespace {

const uint32_t kWalkSpv[] =
#include "shaders/bench/pyramid_walk.comp.spv.inc"
    ;

struct Params {
    uint32_t info[4];
    uint32_t levelRecord[24];
};

// Triangles per cell of the field's surface at iso 0 (x fastest), samples on [-1, 1]^3.
std::vector<uint32_t> triangleCounts(uint32_t cells, const std::string& field) {
    const uint32_t n = cells + 1;
    std::vector<float> f(size_t(n) * n * n);
    for (uint32_t z = 0; z < n; ++z)
        for (uint32_t y = 0; y < n; ++y)
            for (uint32_t x = 0; x < n; ++x) {
                const float p[3] = {2.f * x / cells - 1.f, 2.f * y / cells - 1.f, 2.f * z / cells - 1.f};
                const float v = field == "sphere"
                                    ? 0.6f - std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2])
                                    : -(16.f * p[0] * p[1] * p[2] + 4.f * (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) -
                                        1.f); // Cayley: 1 - 4 r^2 - 16 xyz
                f[x + n * (y + size_t(n) * z)] = v;
            }
    std::vector<uint32_t> counts(size_t(cells) * cells * cells);
    for (uint32_t z = 0; z < cells; ++z)
        for (uint32_t y = 0; y < cells; ++y)
            for (uint32_t x = 0; x < cells; ++x) {
                uint32_t mcCase = 0;
                for (int c = 0; c < 8; ++c) {
                    const int* o = iso::mc::kCornerOffset[c];
                    if (f[(x + o[0]) + n * ((y + o[1]) + size_t(n) * (z + o[2]))] >= 0.f) mcCase |= 1u << c;
                }
                counts[x + cells * (y + size_t(cells) * z)] = uint32_t(iso::mc::vertexCount(mcCase)) / 3;
            }
    return counts;
}

struct Pyramid {
    std::vector<uint32_t> records;     // uvec4 records, all levels
    std::vector<uint32_t> levelRecord; // first record of each level's nodes, bottom up
    uint32_t top = 0;                  // the top node's count
};

Pyramid build(const std::vector<uint32_t>& base, uint32_t fanOut) {
    Pyramid p;
    const uint32_t perNode = fanOut == 8 ? 2 : 1;
    std::vector<uint32_t> level = base;
    while (true) {
        const size_t nodes = (level.size() + fanOut - 1) / fanOut;
        p.levelRecord.push_back(uint32_t(p.records.size() / 4));
        std::vector<uint32_t> up(nodes, 0);
        for (size_t j = 0; j < nodes; ++j) {
            uint32_t rec[8] = {};
            for (uint32_t k = 0; k < fanOut; ++k) {
                const size_t i = j * fanOut + k;
                const uint32_t v = i < level.size() ? level[i] : 0;
                if (k < 4 * perNode) rec[k] = v; // fan-out 5: the 5th child is implied
                up[j] += v;
            }
            p.records.insert(p.records.end(), rec, rec + 4 * perNode);
        }
        level = std::move(up);
        if (level.size() == 1) break;
    }
    p.top = level[0];
    return p;
}

int fail(const Status& s) {
    std::fprintf(stderr, "pyramid_walk_bench: %s\n", s.message().c_str());
    return 1;
}

} // namespace

int main(int argc, char** argv) {
    uint32_t cells = 255, reps = 7;
    std::string field = "cayley";
    bool validation = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--cells" && i + 1 < argc)
            cells = uint32_t(std::stoul(argv[++i]));
        else if (a == "--field" && i + 1 < argc)
            field = argv[++i];
        else if (a == "--reps" && i + 1 < argc)
            reps = uint32_t(std::stoul(argv[++i]));
        else if (a == "--validation")
            validation = true;
        else
            return std::fprintf(stderr, "usage: %s [--cells N] [--field cayley|sphere] [--reps R] [--validation]\n",
                                argv[0]),
                   2;
    }
    if (cells < 1 || cells > 511 || (field != "cayley" && field != "sphere") || reps < 1)
        return std::fprintf(stderr, "pyramid_walk_bench: --cells 1..511, --field cayley|sphere, --reps >= 1\n"), 2;
    auto device = Device::create({.applicationName = "pyramid_walk_bench", .enableValidation = validation});
    if (!device) return fail(device.status());
    Device& dev = **device;
    const std::vector<uint32_t> counts = triangleCounts(cells, field);
    std::vector<uint32_t> firstTriangle(counts.size() + 1, 0); // the CPU's cell of every triangle
    for (size_t c = 0; c < counts.size(); ++c) firstTriangle[c + 1] = firstTriangle[c] + counts[c];
    const uint32_t triangles = firstTriangle.back();
    int status = 0;
    for (uint32_t fanOut : {4u, 5u, 8u}) {
        const Pyramid p = build(counts, fanOut);
        if (p.levelRecord.size() > 24) return std::fprintf(stderr, "pyramid_walk_bench: too many levels\n"), 1;
        const VkDeviceSize recordBytes = p.records.size() * 4, outBytes = std::max<VkDeviceSize>(triangles, 1) * 4;
        auto records = dev.allocator().createBuffer(
            {recordBytes, VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
             MemoryUsage::DeviceLocal, "walk.records"});
        auto out = dev.allocator().createBuffer({outBytes,
                                                 VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                                 MemoryUsage::DeviceLocal, "walk.cells"});
        if (!records) return fail(records.status());
        if (!out) return fail(out.status());
        if (Status s = uploadBuffer(dev, *records, p.records.data(), recordBytes); !s) return fail(s);
        ComputePipelineDesc desc{.spirv = kWalkSpv, .name = "pyramid_walk", .specialization = {{0, fanOut}}};
        desc.layout.bindingsFromSpirv = true;
        desc.layout.pushConstantBytes = sizeof(Params);
        auto pipeline = ComputePipeline::create(dev, desc);
        if (!pipeline) return fail(pipeline.status());
        Params params{};
        const uint32_t groups = (triangles + 63) / 64, gx = std::max(1u, std::min(groups, 65535u));
        params.info[0] = triangles;
        params.info[1] = uint32_t(p.levelRecord.size());
        params.info[2] = p.top;
        params.info[3] = gx;
        for (size_t l = 0; l < p.levelRecord.size(); ++l) params.levelRecord[l] = p.levelRecord[l];
        RenderGraph graph(&dev, {.timestamps = false});
        const ExternalUse uploaded{Access::TransferDst, PassKind::Transfer};
        BufferRef rec = graph.importBuffer("records", *records, uploaded, {Access::None}, true);
        BufferRef cellsRef =
            graph.importBuffer("cells", *out, {Access::None}, {Access::TransferSrc, PassKind::Transfer});
        graph.addPass("walk", PassKind::Compute)
            .pipeline(*pipeline)
            .texel(0, rec, VK_FORMAT_R32G32B32A32_UINT, Access::SampledRead)
            .storage(1, cellsRef, Access::StorageWrite)
            .record([&](PassContext& ctx) {
                ctx.pushConstants(params);
                if (triangles) ctx.dispatch(gx, (groups + gx - 1) / gx);
            });
        if (Status s = graph.compile(); !s) return fail(s);
        std::vector<double> ms;
        for (uint32_t r = 0; r <= reps; ++r) { // the first carries the JIT
            Status recorded;
            const auto t0 = std::chrono::steady_clock::now();
            Status ran = submitAndWait(dev, [&](VkCommandBuffer cmd) { recorded = graph.execute(cmd); });
            const double t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            if (!ran) return fail(ran);
            if (!recorded) return fail(recorded);
            if (r > 0) ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        auto got = readBufferAs<uint32_t>(dev, *out, triangles);
        if (!got) return fail(got.status());
        size_t wrong = 0;
        for (uint32_t t = 0; t < triangles; ++t) {
            const uint32_t cell =
                uint32_t(std::upper_bound(firstTriangle.begin(), firstTriangle.end(), t) - firstTriangle.begin()) - 1;
            wrong += got.value()[t] != cell;
        }
        if (wrong) status = 1;
        std::printf(
            "{\"bench\": \"pyramid_walk\", \"fanOut\": %u, \"field\": \"%s\", \"cells\": %u, \"triangles\": %u, "
            "\"levels\": %zu, \"recordBytes\": %llu, \"wallMsMedian\": %.3f, \"wallMsMin\": %.3f, "
            "\"wrongCells\": %zu, \"device\": \"%s\", \"command\": \"pyramid_walk_bench --cells %u --field %s "
            "--reps %u\"}\n",
            fanOut, field.c_str(), cells, triangles, p.levelRecord.size(), (unsigned long long)recordBytes,
            ms[ms.size() / 2], ms.front(), wrong, dev.name().c_str(), cells, field.c_str(), reps);
    }
    return status;
}
