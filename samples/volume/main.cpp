// Volume viewer: a raw volume file (or an analytic field when none is
// given), iso slider, OBJ/PLY export of the current surface.
#include <cstdio>
#include <filesystem>

#include <imgui.h>

#include "pyramarch/engine/vulkan_functions.h"
#include "pyramarch/isosurface/raw_volume.h"
#include "sample/app.h"

using namespace pyramarch;

namespace {

Status exportMesh(Device& device, sample::Scene& scene, const std::string& path, bool weld) {
    // readMesh submits on the device's queue: let the frames in flight finish.
    device.vk().vkDeviceWaitIdle(device.device());
    auto mesh = scene.surface().readMesh(weld);
    if (!mesh) return mesh.status();
    const std::string ext = std::filesystem::path(path).extension().string();
    Status s = ext == ".obj" ? iso::writeObj(*mesh, path) : iso::writePly(*mesh, path);
    if (s)
        std::printf("wrote %s (%zu vertices, %zu triangles)\n", path.c_str(), mesh->positions.size(),
                    mesh->indices.size() / 3);
    return s;
}

} // namespace

int main(int argc, char** argv) {
    sample::SampleApp app;
    app.name = "volume";
    app.title = "pyramarch volume: raw volume viewer with iso slider and mesh export";
    app.config.source = "cayley";
    std::string raw, dims, type = "u8", exportPath;
    bool weld = false;
    app.addOptions = [&](CLI::App& cli) {
        cli.add_option("--raw", raw,
                       "Raw volume file (little-endian, x fastest); without it an analytic field is shown");
        cli.add_option("--dims", dims, "Samples per axis X,Y,Z of --raw");
        cli.add_option("--type", type, "Sample type of --raw: u8 | u16 | f32")
            ->check(CLI::IsMember({"u8", "u16", "f32"}));
        cli.add_option("--iso", app.config.iso, "Iso value (default: middle of the value range)")
            ->check(sample::finiteFloat());
        cli.add_option("--field", app.config.source, "Analytic field when no --raw: cayley | sphere | gyroid")
            ->check(CLI::IsMember({"cayley", "sphere", "gyroid"}));
        cli.add_option("--cells", app.config.cells, "Grid cells per axis of the analytic field (default 48)")
            ->check(CLI::Range(1u, 400u));
        cli.add_option("--export", exportPath, "Headless: write the surface of the last frame (.ply or .obj)");
        cli.add_flag("--weld", weld, "Merge equal vertices in exported meshes");
    };
    app.prepare = [&](sample::SceneConfig& c) -> Status {
        if (!exportPath.empty()) {
            const std::string ext = std::filesystem::path(exportPath).extension().string();
            if (ext != ".ply" && ext != ".obj")
                return Status::error(ErrorCode::InvalidArgument,
                                     "--export must end in .ply or .obj, got '" + exportPath + "'");
        }
        if (raw.empty()) {
            if (!dims.empty()) return Status::error(ErrorCode::InvalidArgument, "--dims needs --raw");
            return {};
        }
        uint32_t d[3];
        if (dims.empty() || !sample::parseTriple(dims, d))
            return Status::error(ErrorCode::InvalidArgument, "--raw needs --dims X,Y,Z (samples per axis)");
        iso::VolumeFormat f;
        iso::parseVolumeFormat(type, f);
        auto data = iso::readRawVolume(raw, {d[0], d[1], d[2]}, f);
        if (!data) return data.status();
        c.source = "volume";
        c.volume = std::make_shared<const std::vector<uint8_t>>(std::move(data).value());
        c.volumeDims = {d[0], d[1], d[2]};
        c.volumeFormat = f;
        return {};
    };
    app.panel = [&](Device& device, sample::Scene& scene) {
        static char path[256] = "surface.ply";
        ImGui::Separator();
        ImGui::InputText("file", path, sizeof path);
        ImGui::Checkbox("weld", &weld);
        if (ImGui::Button("export PLY/OBJ")) {
            Status s = exportMesh(device, scene, path, weld);
            if (!s) std::fprintf(stderr, "volume: export failed: %s\n", s.message().c_str());
        }
    };
    app.afterHeadless = [&](Device& device, sample::Scene& scene) -> Status {
        if (exportPath.empty()) return {};
        return exportMesh(device, scene, exportPath, weld);
    };
    return sample::sampleMain(argc, argv, app);
}
