#include "voxelize_command.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <map>

#include "pyramarch/engine/device.h"
#include "sample/voxelize_job.h"
#ifdef PYRAMARCH_HAVE_VOXEL_REMESH
#include "sample/voxel_remesh_job.h"
#endif
#include "sample/framework.h"

using namespace pyramarch;

namespace {

// Word -> canonical word: the three builds and the words from before the rename.
std::map<std::string, std::string> octreeBuildAliases() {
    return {{"levels", "levels"},  {"root", "root"},
            {"hash", "hash"},      {"default", octreeBuildWord(voxel::testing::Knobs{}.octreeBuild)},
            {"cursors", "levels"}, {"topdown", "levels"},
            {"bottomup", "hash"}};
}

} // namespace

const char* octreeBuildWord(voxel::testing::OctreeBuild build) {
    switch (build) {
    case voxel::testing::OctreeBuild::OccupancyLevels: return "levels";
    case voxel::testing::OctreeBuild::RootDescent: return "root";
    case voxel::testing::OctreeBuild::TileHash: return "hash";
    }
    return "levels";
}

CLI::Validator octreeBuildValidator(std::initializer_list<const char*> extra) {
    std::map<std::string, std::string> words = octreeBuildAliases();
    std::string listed = "levels | root | hash", members = "levels,root,hash";
    for (const char* w : extra) {
        words[w] = w;
        listed += std::string(" | ") + w;
        members += std::string(",") + w;
    }
    return CLI::Validator(
        [words, listed](std::string& word) -> std::string {
            const auto it = words.find(word);
            if (it == words.end())
                return "unknown build '" + word + "' (" + listed + "; old words: default, cursors, topdown, bottomup)";
            word = it->second;
            return {};
        },
        "{" + members + "}");
}

voxel::testing::OctreeBuild octreeBuildFromWord(const std::string& word) {
    const std::map<std::string, std::string> aliases = octreeBuildAliases();
    const auto it = aliases.find(word);
    const std::string canonical = it == aliases.end() ? word : it->second;
    for (voxel::testing::OctreeBuild b :
         {voxel::testing::OctreeBuild::OccupancyLevels, voxel::testing::OctreeBuild::RootDescent,
          voxel::testing::OctreeBuild::TileHash})
        if (canonical == octreeBuildWord(b)) return b;
    return voxel::testing::Knobs{}.octreeBuild;
}

CLI::App* addVoxelizeCommand(CLI::App& app, VoxelizeOptions& o) {
    CLI::App* cmd = app.add_subcommand(
        "voxelize", "Voxelize a mesh into a sparse voxel octree; write the occupied leaves and stats");
    auto* mesh = cmd->add_option("--mesh", o.mesh, "Mesh file: .obj, .ply (ascii or binary), .gltf or .glb");
    auto* shape = cmd->add_option("--shape", o.shape, "Built-in shape: sphere | torus | knot | box | diamond")
                      ->check(CLI::IsMember({"sphere", "torus", "knot", "box", "diamond"}));
    mesh->excludes(shape);
    cmd->add_option("--res", o.resolution, "Voxels along the mesh's longest axis (1..1024, default 128)")
        ->check(CLI::Range(1u, 1024u));
    cmd->add_option("--out", o.out, "Occupied leaves: .ply (voxel centres, colours) or .txt (x y z r g b count)");
    cmd->add_option("--stats", o.stats, "Counters, leaf count and per-pass GPU times as JSON");
    cmd->add_flag("--thin", o.thin, "6-separating (thin) voxelization instead of conservative");
    cmd->add_flag("--solid", o.solid,
                  "Also every voxel whose centre is inside the mesh (needs a closed mesh and shaderFloat64)");
    cmd->add_option(
           "--method", o.method,
           "Large triangles: auto | gs (geometry-shader dilation) | hw (VK_EXT_conservative_rasterization) | compute "
           "(tiles for the compute path, no rasterizer)")
        ->check(CLI::IsMember({"auto", "gs", "hw", "compute"}));
    cmd->add_option("--frames", o.frames,
                    "Timed frames after the first (which carries the pipeline JIT); per-pass times are their medians "
                    "(default 1)")
        ->check(CLI::Range(1u, 1000u));
    cmd->add_option("--memory-budget", o.memoryBudgetMiB,
                    "MiB the voxelizer's buffers may grow to (default: as far as the device's buffers go), and "
                    "--remesh's surface (default: a quarter of the device's memory); one that needs more fails "
                    "(exit code 3)");
    cmd->add_option("--remesh", o.remesh,
                    "Also extract the voxels' smooth surface on the GPU from the octree every frame (a sparse "
                    "iso-surface at 0.5 over the voxel centres, no read-back) and write it: .obj or .ply, or - "
                    "to only report it");
    cmd->add_flag("--remesh-indexed", o.remeshIndexed, "--remesh with shared vertices and an index buffer");
    cmd->add_option("--buffer-limit", o.bufferLimit,
                    "Largest storage buffer the fragment list and octree pool may grow to, in bytes (default and "
                    "at most: the device's maxStorageBufferRange); a mesh that needs more exits with 3")
        ->check(CLI::Range(uint64_t(1024), uint64_t(1) << 40));
    cmd->add_flag("--validation", o.validation, "Enable the validation layer (any message fails the exit code)");
    cmd->add_option("--device", o.device, "Device index or name substring");
    return cmd;
}

int runVoxelize(const VoxelizeOptions& o) {
    const std::string prog = "pyramarch voxelize";
    if (o.mesh.empty() && o.shape.empty())
        return sample::usageError(prog, "give --mesh file (.obj, .ply, .gltf, .glb) or --shape name");
    sample::VoxelizeJob job;
    job.meshPath = o.mesh;
    job.shape = o.shape;
    job.resolution = o.resolution;
    job.outPath = o.out;
    job.statsPath = o.stats;
    job.timedFrames = 1 + o.frames;
    job.memoryBudget = uint64_t(o.memoryBudgetMiB) << 20;
    job.solid = o.solid;
    job.bufferLimit = o.bufferLimit;
    if (o.solid && o.thin)
        return sample::fail(prog, "--solid and --thin do not combine (solid adds to the conservative surface)");
    job.mode = o.thin ? voxel::VoxelMode::Thin : voxel::VoxelMode::Conservative;
    job.method = o.method == "gs"        ? voxel::ConservativeMethod::GeometryShader
                 : o.method == "hw"      ? voxel::ConservativeMethod::Hardware
                 : o.method == "compute" ? voxel::ConservativeMethod::Compute
                                         : voxel::ConservativeMethod::Auto;
    sample::CommonOptions co;
    co.validation = o.validation;
    co.device = o.device;
    std::atomic<uint32_t> messages{0};
    auto device = sample::createSampleDevice(co, &messages);
    if (!device) return sample::fail(prog, device.message());
    std::fprintf(stderr, "voxelizing %s at R=%u ...\n", o.mesh.empty() ? o.shape.c_str() : o.mesh.c_str(),
                 o.resolution);
    auto r = sample::runVoxelizeJob(**device, job);
    if (!r) return sample::failWith(prog, r.status());
    const voxel::VoxelStats& s = r->stats;
    std::printf("grid %ux%ux%u, %u triangles (%u skipped), %u fragment records, %u octree tiles, %zu leaves\n",
                r->grid.dims[0], r->grid.dims[1], r->grid.dims[2], s.triangles, s.skippedTriangles, s.fragmentsNeeded,
                s.tilesNeeded, r->leaves.size());
    double total = 0;
    for (const PassTiming& t : r->timings) total += t.milliseconds;
    std::printf("GPU time %.3f ms over %zu passes%s\n", total, r->timings.size(),
                r->attempts > 1 ? " (buffers grown after an overflowed frame)" : "");
    if (r->frameMilliseconds.size() > 1) {
        std::printf("(sum of per-pass medians of %zu frames; frame totals", r->frameMilliseconds.size());
        for (double ms : r->frameMilliseconds) std::printf(" %.1f", ms);
        std::printf(" ms)\n");
    }
    if (o.solid) std::printf("solid: %u interior voxels\n", s.solidInterior);
    if (!o.out.empty()) std::printf("wrote %s\n", o.out.c_str());
    bool truncated = false; // --remesh: the surface did not fit the device's largest output buffers
    if (!o.remesh.empty()) {
#ifdef PYRAMARCH_HAVE_VOXEL_REMESH
        sample::RemeshJob remesh;
        remesh.outPath = o.remesh == "-" ? std::string() : o.remesh;
        remesh.indexed = o.remeshIndexed;
        remesh.timedFrames = std::max(1u, o.frames);
        remesh.memoryBudget = uint64_t(o.memoryBudgetMiB) << 20;
        auto m = sample::runRemeshJob(**device, job, *r, remesh);
        if (!m) return sample::failWith(prog, m.status());
        const auto mib = [](uint64_t bytes) { return double(bytes) / double(1u << 20); };
        std::printf("remesh: %u triangles; %u surface bricks of %llu (%u cut by iso 0.5), %u row pairs; resident "
                    "%.2f MiB (+ %.2f MiB vertices and indices) of a %.1f MiB budget, a dense field and pyramid: "
                    "%.1f MiB; grown after %u frame(s)\n",
                    m->triangles, m->surfaceBricks, static_cast<unsigned long long>(m->bricks), m->listedBricks,
                    m->rowPairs, mib(m->residentBytes), mib(m->outputBytes), mib(m->budgetBytes), mib(m->denseBytes),
                    m->growths);
        double voxelMs = 0, isoMs = 0;
        for (const PassTiming& t : m->timings) (t.name.rfind("remesh.", 0) == 0 ? isoMs : voxelMs) += t.milliseconds;
        std::printf("remesh GPU time per frame %.3f ms: voxelizer %.3f ms, surface %.3f ms (medians of %zu frames%s)\n",
                    voxelMs + isoMs, voxelMs, isoMs, m->frameMilliseconds.size(),
                    m->growths > 0 ? ", after the growth" : "");
        std::vector<PassTiming> slowest;
        for (const PassTiming& t : m->timings)
            if (t.name.rfind("remesh.", 0) == 0) slowest.push_back(t);
        std::sort(slowest.begin(), slowest.end(),
                  [](const PassTiming& a, const PassTiming& b) { return a.milliseconds > b.milliseconds; });
        std::printf("remesh passes:");
        for (size_t i = 0; i < std::min<size_t>(6, slowest.size()); ++i)
            std::printf(" %s %.2f ms", slowest[i].name.c_str(), slowest[i].milliseconds);
        std::printf("\n");
        if (m->truncated) {
            truncated = true;
            std::printf("remesh: the output buffers hold %u of the %u triangles (the device's largest; "
                        "--remesh-indexed shares vertices)\n",
                        m->trianglesWritten, m->triangles);
        }
        if (!remesh.outPath.empty()) std::printf("wrote %s\n", remesh.outPath.c_str());
#else
        return sample::fail(prog, "--remesh needs the isosurface module (not built)");
#endif
    }
    if (messages) return sample::fail(prog, std::to_string(messages.load()) + " validation message(s)");
    return truncated ? sample::kExitOverflow : sample::kExitDone;
}
