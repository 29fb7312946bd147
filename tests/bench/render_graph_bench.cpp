// CPU-side cost of the render graph: compiling a graph of N passes (what a
// host pays when the structure changes) and describing it.
#include <benchmark/benchmark.h>

#include <string>

#include "pyramarch/engine/render_graph.h"

using namespace pyramarch;

namespace {

// A chain of compute passes with side reads, a graphics pass every tenth
// pass and a persistent counter touched throughout: realistic hazards.
void buildGraph(RenderGraph& g, int passes) {
    std::vector<BufferRef> buffers;
    for (int i = 0; i <= passes; ++i) buffers.push_back(g.createBuffer("b" + std::to_string(i), {.size = 4096}));
    BufferRef counter = g.createBuffer("counter", {.size = 4, .lifetime = Lifetime::Persistent});
    ImageRef color = g.createImage("color", {.format = VK_FORMAT_R8G8B8A8_UNORM, .extent = {256, 256, 1}});
    g.addPass("seed", PassKind::Compute).use(buffers[0], Access::StorageWrite);
    for (int i = 1; i < passes; ++i) {
        if (i % 10 == 0) {
            g.addPass("draw" + std::to_string(i), PassKind::Graphics)
                .use(buffers[i - 1], Access::VertexRead)
                .use(buffers[i - 1], Access::IndirectRead)
                .colorAttachment(color, {.load = LoadOp::Load});
            g.addPass("copy" + std::to_string(i), PassKind::Compute)
                .use(buffers[i - 1], Access::StorageRead)
                .use(buffers[i], Access::StorageWrite);
        } else {
            g.addPass("p" + std::to_string(i), PassKind::Compute)
                .use(buffers[i - 1], Access::StorageRead)
                .use(i > 1 ? buffers[i - 2] : buffers[0], Access::StorageRead)
                .use(counter, Access::StorageReadWrite)
                .use(buffers[i], Access::StorageWrite);
        }
    }
}

void BM_CompileGraph(benchmark::State& state) {
    const int passes = static_cast<int>(state.range(0));
    RenderGraph g(nullptr);
    buildGraph(g, passes);
    for (auto _ : state) {
        Status s = g.compile();
        if (!s) state.SkipWithError(s.message().c_str());
        benchmark::DoNotOptimize(g.schedule().passes.data());
    }
    state.counters["passes"] = static_cast<double>(g.passCount());
    size_t barriers = 0;
    for (const auto& sp : g.schedule().passes) barriers += sp.barriers.size();
    state.counters["barriers"] = static_cast<double>(barriers);
}
BENCHMARK(BM_CompileGraph)->Arg(10)->Arg(50)->Arg(200)->Unit(benchmark::kMicrosecond);

void BM_DeclareAndCompileGraph(benchmark::State& state) {
    for (auto _ : state) {
        RenderGraph g(nullptr);
        buildGraph(g, static_cast<int>(state.range(0)));
        Status s = g.compile();
        if (!s) state.SkipWithError(s.message().c_str());
    }
}
BENCHMARK(BM_DeclareAndCompileGraph)->Arg(50)->Unit(benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();
