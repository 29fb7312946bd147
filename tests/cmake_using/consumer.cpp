// A minimal host of the module: builds a two-pass graph, compiles it and
// prints the schedule; creates a device when one exists.
#include <cstdio>

#include "pyramarch/engine/device.h"
#include "pyramarch/engine/render_graph.h"

int main() {
    pyramarch::RenderGraph graph(nullptr);
    auto field = graph.createBuffer("field", {.size = 1024});
    graph.addPass("write", pyramarch::PassKind::Compute).use(field, pyramarch::Access::StorageWrite);
    graph.addPass("read", pyramarch::PassKind::Compute).use(field, pyramarch::Access::StorageRead);
    pyramarch::Status s = graph.compile();
    if (!s) {
        std::fprintf(stderr, "compile failed: %s\n", s.message().c_str());
        return 1;
    }
    std::printf("%s", graph.describe().c_str());
    auto device = pyramarch::Device::create({});
    std::printf("device: %s\n", device ? device.value()->name().c_str() : device.message().c_str());
    return 0;
}
