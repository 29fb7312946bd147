// Headless renders of the draw pass against the CPU reference mesh
// rasterised on the CPU: the silhouette (with back faces culled per the
// documented winding) must match except along its outline, so a broken draw,
// wrong culling, wrong camera or missing triangles fail here.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "mini_json.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/isosurface/surface_renderer.h"
#include "reference.h"
#include "sample/framework.h"
#include "sample/output.h"
#include "sample/scenes.h"
#include "support/gpu_test.h"

using namespace pyramarch;

namespace {

struct Mask {
    uint32_t w = 0, h = 0;
    std::vector<uint8_t> bits;
    uint8_t at(int x, int y) const { return bits[size_t(y) * w + x]; }
    size_t count() const {
        size_t n = 0;
        for (uint8_t b : bits) n += b;
        return n;
    }
};

// Rasterises the reference triangles at pixel centres with the draw pass's
// transform and culling rule (Vulkan: front = positive signed area
// a = -1/2 sum(x_i y_i+1 - x_i+1 y_i) in framebuffer coordinates, for a
// counter-clockwise front face). cullSign = +1 culls back faces, -1 culls
// front faces (the broken case), 0 culls nothing.
Mask rasterize(const std::vector<ref::Vertex>& verts, const std::array<float, 16>& m, uint32_t w, uint32_t h,
               int cullSign) {
    Mask mask{w, h, std::vector<uint8_t>(size_t(w) * h, 0)};
    for (size_t t = 0; t + 2 < verts.size(); t += 3) {
        float x[3], y[3];
        bool behind = false;
        for (int i = 0; i < 3; ++i) {
            const float* p = verts[t + i].p;
            float c[4];
            for (int r = 0; r < 4; ++r)
                c[r] = m[0 * 4 + r] * p[0] + m[1 * 4 + r] * p[1] + m[2 * 4 + r] * p[2] + m[3 * 4 + r];
            if (c[3] <= 0.f) behind = true;
            x[i] = (c[0] / c[3] * 0.5f + 0.5f) * float(w);
            y[i] = (c[1] / c[3] * 0.5f + 0.5f) * float(h);
        }
        if (behind) continue;
        const float area =
            -0.5f * ((x[0] * y[1] - x[1] * y[0]) + (x[1] * y[2] - x[2] * y[1]) + (x[2] * y[0] - x[0] * y[2]));
        if (area == 0.f) continue;
        if (cullSign > 0 && area < 0.f) continue;
        if (cullSign < 0 && area > 0.f) continue;
        const int x0 = std::max(0, int(std::floor(std::min({x[0], x[1], x[2]})))),
                  x1 = std::min(int(w) - 1, int(std::ceil(std::max({x[0], x[1], x[2]}))));
        const int y0 = std::max(0, int(std::floor(std::min({y[0], y[1], y[2]})))),
                  y1 = std::min(int(h) - 1, int(std::ceil(std::max({y[0], y[1], y[2]}))));
        for (int py = y0; py <= y1; ++py)
            for (int px = x0; px <= x1; ++px) {
                const float sx = px + 0.5f, sy = py + 0.5f;
                float e[3];
                for (int i = 0; i < 3; ++i) {
                    const int j = (i + 1) % 3;
                    e[i] = (x[j] - x[i]) * (sy - y[i]) - (y[j] - y[i]) * (sx - x[i]);
                }
                if ((e[0] >= 0 && e[1] >= 0 && e[2] >= 0) || (e[0] <= 0 && e[1] <= 0 && e[2] <= 0))
                    mask.bits[size_t(py) * w + px] = 1;
            }
    }
    return mask;
}

// Pixels that differ away from the reference outline (a 3x3 neighbourhood
// where the reference is uniform): the outline is where rasterisation rules
// and MSAA resolve may legitimately disagree.
size_t interiorMismatches(const Mask& ref, const Mask& got) {
    size_t bad = 0;
    for (int y = 0; y < int(ref.h); ++y)
        for (int x = 0; x < int(ref.w); ++x) {
            if (ref.at(x, y) == got.at(x, y)) continue;
            bool outline = false;
            for (int dy = -1; dy <= 1 && !outline; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    const int nx = x + dx, ny = y + dy;
                    if (nx < 0 || ny < 0 || nx >= int(ref.w) || ny >= int(ref.h)) continue;
                    if (ref.at(nx, ny) != ref.at(x, y)) outline = true;
                }
            bad += !outline;
        }
    return bad;
}

size_t differing(const Mask& a, const Mask& b) {
    size_t n = 0;
    for (size_t i = 0; i < a.bits.size(); ++i) n += a.bits[i] != b.bits[i];
    return n;
}

struct Field {
    ref::Grid grid;
    std::vector<float> values;
};

Field cayleyField(uint32_t cells) {
    Field f;
    f.grid.n[0] = f.grid.n[1] = f.grid.n[2] = cells + 1;
    f.values = ref::sampleField(f.grid, ref::cayley);
    return f;
}

Field sphereField(uint32_t cells) {
    Field f;
    f.grid.n[0] = f.grid.n[1] = f.grid.n[2] = cells + 1;
    f.values =
        ref::sampleField(f.grid, [](float x, float y, float z) { return ref::sphere(x, y, z, 0.f, 0.f, 0.f, 0.7f); });
    return f;
}

std::unique_ptr<sample::VolumeScene> makeVolumeScene(Device& device, const Field& f, float iso, bool twoSided = false,
                                                     bool indexed = false) {
    sample::VolumeScene::Settings s;
    s.twoSided = twoSided;
    s.indexed = indexed;
    s.samples = {f.grid.n[0], f.grid.n[1], f.grid.n[2]};
    s.iso = iso;
    s.vertexCapacity = 3u << 17;
    auto scene = sample::VolumeScene::create(device, s, f.values.data(), f.values.size() * sizeof(float),
                                             iso::VolumeFormat::F32);
    EXPECT_TRUE(scene.ok()) << scene.message();
    return scene.ok() ? std::move(scene).value() : nullptr;
}

Mask maskOf(const sample::Rgba8Image& img) {
    // Flat shading draws baseColor (green 0.42 -> sRGB ~173) over the clear
    // colour (green 0.09 -> ~84).
    Mask m{img.width, img.height, std::vector<uint8_t>(size_t(img.width) * img.height)};
    for (size_t i = 0; i < m.bits.size(); ++i) m.bits[i] = img.pixels[i * 4 + 1] > 140;
    return m;
}

class SampleRender : public test::GpuTest {};

void checkSilhouette(Device& device, uint32_t msaa, const sample::OrbitCamera& camera, bool twoSided = false,
                     bool indexed = false) {
    const Field f = cayleyField(24);
    const ref::McResult mc = ref::marchingCubes(f.grid, f.values.data(), 0.f, ref::Normals::Central);
    ASSERT_GT(mc.vertices.size(), 300u);
    auto scene = makeVolumeScene(device, f, 0.f, twoSided, indexed);
    ASSERT_TRUE(scene);
    sample::CommonOptions o;
    o.width = 160;
    o.height = 120;
    o.msaa = msaa;
    o.shading = "flat";
    auto img = sample::renderOnce(device, *scene, o, camera);
    ASSERT_TRUE(img.ok()) << img.message();
    // The frame drew what the reference extracts.
    auto stats = scene->surface().statsOfFrame(0);
    ASSERT_TRUE(stats.has_value());
    EXPECT_EQ(indexed ? stats->indicesWritten : stats->verticesWritten, mc.vertices.size());
    EXPECT_FALSE(stats->overflow);

    const auto view = camera.view(float(o.width) / float(o.height));
    const Mask expected = rasterize(mc.vertices, view.viewProj, o.width, o.height, twoSided ? 0 : +1);
    const Mask wrongWinding = rasterize(mc.vertices, view.viewProj, o.width, o.height, -1);
    const Mask got = maskOf(*img);
    const size_t pixels = size_t(o.width) * o.height;
    if (std::getenv("PYRAMARCH_DUMP")) {
        sample::Rgba8Image dump = *img;
        for (size_t i = 0; i < pixels; ++i) dump.pixels[i * 4 + 2] = expected.bits[i] ? 255 : 0;
        (void)sample::writePng("silhouette_dump.png", dump.width, dump.height, dump.pixels);
    }
    ASSERT_GT(expected.count(), pixels / 20) << "the view must show a real silhouette";
    ASSERT_LT(expected.count(), pixels * 19 / 20);
    // The check can fail: culling the wrong faces (or culling when both
    // sides should show) changes the picture well beyond the outline tolerance.
    ASSERT_GT(interiorMismatches(expected, twoSided ? rasterize(mc.vertices, view.viewProj, o.width, o.height, +1)
                                                    : wrongWinding),
              50u);
    const size_t bad = interiorMismatches(expected, got);
    EXPECT_LE(bad, 3u) << "GPU silhouette differs from the CPU reference away from the outline ("
                       << differing(expected, got) << " pixels differ in all, reference area " << expected.count()
                       << ")";
    if (bad > 3) {
        sample::Rgba8Image dump = *img;
        for (size_t i = 0; i < pixels; ++i) dump.pixels[i * 4 + 2] = expected.bits[i] ? 255 : 0;
        (void)sample::writePng("silhouette_mismatch.png", dump.width, dump.height, dump.pixels);
    }
}

// Cameras on the outside of the (open) Cayley surface, where the field is
// negative: from the inside (e.g. the +x+y+z octant) only back faces face the
// camera and culling leaves slivers.
TEST_F(SampleRender, SilhouetteMatchesCpuReference) {
    sample::OrbitCamera camera;
    camera.yaw = -0.7f;
    camera.pitch = 0.45f;
    checkSilhouette(device(), 1, camera);
}

TEST_F(SampleRender, SilhouetteMatchesFromBelowWithMsaa) {
    sample::OrbitCamera camera;
    camera.yaw = -2.2f;
    camera.pitch = -0.6f;
    camera.distance = 3.6f;
    checkSilhouette(device(), 4, camera);
}

// The host-graph path: the surface's passes and the draw pass in one graph,
// the draw declared on addPasses' outputs (the graph orders and synchronises
// extraction -> draw; sync validation is on), plain and indexed output.
void checkOneGraph(Device& device, bool indexed) {
    const Field f = cayleyField(22);
    const ref::McResult mc = ref::marchingCubes(f.grid, f.values.data(), 0.f, ref::Normals::Central);
    iso::IsoSurfaceCreateInfo info;
    info.samples = {f.grid.n[0], f.grid.n[1], f.grid.n[2]};
    info.vertexCapacity = 3u << 16;
    info.indexed = indexed;
    info.indexCapacity = indexed ? 3u << 16 : 0u;
    info.source = iso::FieldSource::Volume;
    info.isoValue = 0.f;
    auto surface = iso::IsoSurface::create(device, info);
    ASSERT_TRUE(surface.ok()) << surface.message();
    ASSERT_OK((*surface)->uploadVolume(f.values.data(), f.values.size() * 4, iso::VolumeFormat::F32));
    const uint32_t w = 128, h = 96;
    auto color =
        device.allocator().createImage({.format = VK_FORMAT_R8G8B8A8_SRGB,
                                        .extent = {w, h, 1},
                                        .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                        .name = "test.color"});
    ASSERT_TRUE(color.ok()) << color.message();
    auto renderer = iso::SurfaceRenderer::create(
        device, {.colorFormat = VK_FORMAT_R8G8B8A8_SRGB, .depthFormat = VK_FORMAT_D32_SFLOAT});
    ASSERT_TRUE(renderer.ok()) << renderer.message();
    sample::OrbitCamera camera;
    iso::SurfaceView view = camera.view(float(w) / float(h));
    view.shading = iso::SurfaceShading::Flat;
    (*renderer)->setView(view);
    {
        RenderGraph graph(&device);
        auto added = (*surface)->addPasses(graph);
        ASSERT_OK(added);
        const iso::IsoSurface::GraphOutputs out = *added;
        iso::SurfaceRenderer::GraphInputs desc;
        desc.vertices = out.vertices;
        desc.drawArgs = out.drawArgs;
        desc.indices = indexed ? out.indices : BufferRef{};
        desc.color = graph.importImage("target", *color, VK_IMAGE_LAYOUT_UNDEFINED, {Access::None},
                                       {Access::TransferSrc, PassKind::Transfer});
        desc.depth = graph.createImage("depth", {.format = VK_FORMAT_D32_SFLOAT, .extent = {w, h, 1}});
        ASSERT_OK((*renderer)->addPasses(graph, desc));
        ASSERT_OK(graph.compile());
        Status recorded;
        ASSERT_OK(submitAndWait(device, [&](VkCommandBuffer cmd) { recorded = graph.execute(cmd); }));
        ASSERT_OK(recorded);
    }
    auto stats = (*surface)->statsOfFrame(0);
    ASSERT_TRUE(stats.has_value());
    EXPECT_FALSE(stats->overflow);
    if (indexed)
        EXPECT_EQ(stats->indicesWritten, mc.vertices.size());
    else
        EXPECT_EQ(stats->verticesWritten, mc.vertices.size());
    sample::Rgba8Image img{w, h, {}};
    ASSERT_OK(readImage(device, *color, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, img.pixels));
    const Mask expected = rasterize(mc.vertices, view.viewProj, w, h, +1);
    const Mask got = maskOf(img);
    ASSERT_GT(expected.count(), size_t(w) * h / 20);
    EXPECT_LE(interiorMismatches(expected, got), 3u)
        << differing(expected, got) << " pixels differ, reference area " << expected.count();
}

TEST_F(SampleRender, DrawInTheSurfacesGraph) { checkOneGraph(device(), false); }
TEST_F(SampleRender, DrawIndexedInTheSurfacesGraph) { checkOneGraph(device(), true); }

// The samples' two-graph path with the module's indexed output (index buffer
// imported into the draw graph, vkCmdDrawIndexedIndirect).
TEST_F(SampleRender, SilhouetteMatchesWithIndexedOutput) {
    sample::OrbitCamera camera;
    checkSilhouette(device(), 1, camera, false, true);
}

// Two-sided (no culling): from the inside of the open Cayley surface the back
// faces show, and the silhouette is that of all triangles.
TEST_F(SampleRender, TwoSidedSilhouetteShowsBackFaces) {
    sample::OrbitCamera camera; // yaw 0.7, pitch 0.45 below: the +x+y+z octant, inside the surface
    camera.yaw = 0.7f;
    camera.pitch = 0.45f;
    checkSilhouette(device(), 1, camera, true);
}

// Depth test and culling: at the centre of a sphere seen along -z the visible
// surface faces the camera, so the normal-colour shows +z (blue high); with
// broken culling or depth the far side (normal -z, blue 0) would show.
TEST_F(SampleRender, SphereCentreShowsTheNearSide) {
    const Field f = sphereField(20);
    auto scene = makeVolumeScene(device(), f, 0.f);
    ASSERT_TRUE(scene);
    sample::CommonOptions o;
    o.width = 64;
    o.height = 64;
    o.shading = "normals";
    sample::OrbitCamera camera;
    camera.yaw = 0.f;
    camera.pitch = 0.f;
    camera.distance = 3.f;
    auto img = sample::renderOnce(device(), *scene, o, camera);
    ASSERT_TRUE(img.ok()) << img.message();
    const uint8_t* c = &img->pixels[(32 * 64 + 32) * 4];
    // (0.5, 0.5, 1.0) stored as sRGB: about (188, 188, 255).
    EXPECT_NEAR(c[0], 188, 12);
    EXPECT_NEAR(c[1], 188, 12);
    EXPECT_GE(c[2], 245);
    // A corner is background.
    EXPECT_LT(img->pixels[2], 100);
}

// The debug colouring: every surface pixel's hue is one of the five cell
// colours (lit, so only the dominant channels are checked).
TEST_F(SampleRender, CellTriangleColouringUsesTheFiveColours) {
    const Field f = cayleyField(16);
    auto scene = makeVolumeScene(device(), f, 0.f);
    ASSERT_TRUE(scene);
    sample::CommonOptions o;
    o.width = 96;
    o.height = 72;
    o.shading = "cells";
    auto img = sample::renderOnce(device(), *scene, o, {});
    ASSERT_TRUE(img.ok()) << img.message();
    // Background is dark grey; a surface pixel has one channel pattern of
    // blue, green, red, cyan or magenta, plus a whitish specular highlight.
    size_t surface = 0, kinds[6] = {};
    for (size_t i = 0; i < size_t(o.width) * o.height; ++i) {
        const int r = img->pixels[i * 4], g = img->pixels[i * 4 + 1], b = img->pixels[i * 4 + 2];
        if (std::max({r, g, b}) < 110) continue; // background (~79,84,94) or deep shadow
        ++surface;
        const bool R = r > std::max(g, b) * 0.6 + 40, G = g > std::max(r, b) * 0.6 + 40,
                   B = b > std::max(r, g) * 0.6 + 40;
        if (B && !R && !G)
            ++kinds[0];
        else if (G && !R && !B)
            ++kinds[1];
        else if (R && !G && !B)
            ++kinds[2];
        else if (G && B && !R)
            ++kinds[3];
        else if (R && B && !G)
            ++kinds[4];
        else
            ++kinds[5];
    }
    ASSERT_GT(surface, 500u);
    // Cayley at 16^3 has cells of 1..4 triangles: at least three colours show.
    int present = 0;
    for (int k = 0; k < 5; ++k) present += kinds[k] > 10;
    EXPECT_GE(present, 3);
    EXPECT_LT(kinds[5], surface / 5) << "too many pixels of no cell colour";
}

// Wireframe (where the device has fillModeNonSolid): edges inside the
// filled silhouette, far fewer pixels than the fill.
TEST_F(SampleRender, WireframeDrawsEdgesInsideTheSilhouette) {
    if (!device().limits().fillModeNonSolid) GTEST_SKIP() << "no fillModeNonSolid";
    const Field f = sphereField(12);
    sample::CommonOptions o;
    o.width = 96;
    o.height = 96;
    o.shading = "flat";
    auto fillScene = makeVolumeScene(device(), f, 0.f);
    ASSERT_TRUE(fillScene);
    auto fill = sample::renderOnce(device(), *fillScene, o, {});
    ASSERT_TRUE(fill.ok()) << fill.message();
    o.wireframe = true;
    auto wireScene = makeVolumeScene(device(), f, 0.f);
    ASSERT_TRUE(wireScene);
    auto wire = sample::renderOnce(device(), *wireScene, o, {});
    ASSERT_TRUE(wire.ok()) << wire.message();
    const Mask a = maskOf(*fill), b = maskOf(*wire);
    // Lines on the outline may cover pixels whose centres the fill misses:
    // count only wire pixels with no filled pixel next to them.
    size_t outside = 0;
    for (int y = 0; y < int(a.h); ++y)
        for (int x = 0; x < int(a.w); ++x) {
            if (!b.at(x, y) || a.at(x, y)) continue;
            bool near = false;
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    const int nx = x + dx, ny = y + dy;
                    if (nx >= 0 && ny >= 0 && nx < int(a.w) && ny < int(a.h) && a.at(nx, ny)) near = true;
                }
            outside += !near;
        }
    EXPECT_GT(b.count(), a.count() / 10);
    EXPECT_LT(b.count(), a.count() * 9 / 10);
    EXPECT_EQ(outside, 0u) << "wireframe pixels outside the filled silhouette";
}

TEST_F(SampleRender, HeadlessRunWritesPngsAndStats) {
    sample::MetaballSettings ms;
    ms.cells = 20;
    ms.balls = 8;
    auto scene = sample::MetaballScene::create(device(), ms);
    ASSERT_TRUE(scene.ok()) << scene.message();
    const auto dir = std::filesystem::temp_directory_path() / ("pyramarch-sample-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    sample::CommonOptions o;
    o.headless = true;
    o.frames = 3;
    o.width = 64;
    o.height = 48;
    o.out = (dir / "f_%02d.png").string();
    o.stats = (dir / "stats.json").string();
    sample::StatsRecorder stats;
    ASSERT_OK(sample::runHeadless(device(), **scene, o, stats));
    for (int f = 0; f < 3; ++f) {
        std::ifstream png(dir / ("f_0" + std::to_string(f) + ".png"), std::ios::binary);
        ASSERT_TRUE(png) << "frame " << f << " missing";
        unsigned char head[24];
        png.read(reinterpret_cast<char*>(head), 24);
        ASSERT_TRUE(png);
        EXPECT_EQ(0, std::memcmp(head, "\x89PNG\r\n\x1a\n", 8));
        const uint32_t w = uint32_t(head[16]) << 24 | head[17] << 16 | head[18] << 8 | head[19];
        const uint32_t h = uint32_t(head[20]) << 24 | head[21] << 16 | head[22] << 8 | head[23];
        EXPECT_EQ(w, 64u);
        EXPECT_EQ(h, 48u);
    }
    std::ifstream in(o.stats);
    std::stringstream text;
    text << in.rdbuf();
    minijson::Value v;
    minijson::Parser p(text.str());
    ASSERT_TRUE(p.parse(v)) << p.error();
    const minijson::Value& frames = v["frames"];
    ASSERT_EQ(frames.type, minijson::Value::Array);
    ASSERT_EQ(frames.a.size(), 3u);
    for (const minijson::Value& fr : frames.a) {
        EXPECT_EQ(fr["triangles"].type, minijson::Value::Number);
        EXPECT_GT(fr["triangles"].n, 0);
        EXPECT_EQ(fr["overflow"].type, minijson::Value::Bool);
        EXPECT_FALSE(fr["overflow"].b);
        ASSERT_EQ(fr["passes"].type, minijson::Value::Object);
        EXPECT_TRUE(fr["passes"].has("surface.draw"));
        EXPECT_TRUE(fr["passes"].has("metaballs.extract"));
        for (const auto& [name, ms] : fr["passes"].o) EXPECT_GE(ms.n, 0.0) << name;
    }
    // The recorder's triangle counts are the surface's own stats.
    EXPECT_EQ(uint32_t(frames.a[2]["triangles"].n), stats.frames()[2].triangles);
    std::filesystem::remove_all(dir);
}

// The pointcloud scene moves its particles with a compute pass in the same
// graph as the splat and extraction. Frames are recorded back to back into
// one command buffer (sync validation sees the flow write of a frame after
// the splat read of the one before), then: the particles match the CPU
// version of the same steps, and the field is the brute-force splat of the
// particles the GPU holds.
TEST_F(SampleRender, PointCloudMovesParticlesOnTheGpu) {
    sample::PointCloudSettings ps;
    ps.cells = 20;
    ps.particles = 20000;
    auto created = sample::PointCloudScene::create(device(), ps);
    ASSERT_TRUE(created.ok()) << created.message();
    sample::PointCloudScene& scene = **created;
    RenderGraph graph(&device());
    ASSERT_OK(scene.addPasses(graph));
    ASSERT_OK(graph.compile());

    std::vector<iso::Particle> cpu = sample::PointCloudScene::initialParticles(ps);
    const std::vector<iso::Particle> start = cpu;
    uint32_t frame = 0;
    for (int submit = 0; submit < 3; ++submit) {
        Status inner;
        ASSERT_OK(submitAndWait(device(), [&](VkCommandBuffer cmd) {
            for (int k = 0; k < 3 && inner.ok(); ++k, ++frame) {
                // A stall before the last submission exercises the dt clamp.
                const double t = frame / 30.0 + (submit == 2 ? 0.5 : 0.0);
                ASSERT_OK(scene.update(t));
                sample::PointCloudScene::advectCpu(cpu, scene.stepTime(), scene.stepDt());
                inner = graph.execute(cmd);
            }
        }));
        ASSERT_OK(inner);
    }
    auto gpu = readBufferAs<iso::Particle>(device(), scene.particleBuffer(), ps.particles);
    ASSERT_TRUE(gpu.ok()) << gpu.message();
    float maxErr = 0.f, maxMove = 0.f;
    for (size_t i = 0; i < cpu.size(); ++i)
        for (int a = 0; a < 3; ++a) {
            maxErr = std::max(maxErr, std::fabs(gpu.value()[i].position[a] - cpu[i].position[a]));
            maxMove = std::max(maxMove, std::fabs(cpu[i].position[a] - start[i].position[a]));
            ASSERT_EQ(gpu.value()[i].weight, ps.weight);
        }
    // The flow must really move them (else the comparison proves nothing);
    // GPU and CPU differ only in sin/cos rounding over 9 steps.
    EXPECT_GT(maxMove, 0.02f);
    EXPECT_LT(maxErr, 1e-4f) << "largest coordinate difference after " << frame << " steps";

    iso::IsoSurface& surface = scene.surface();
    ref::Grid g;
    for (int a = 0; a < 3; ++a) {
        g.n[a] = ps.cells + 1;
        g.min[a] = -1.f;
        g.max[a] = 1.f;
    }
    std::vector<ref::Particle> refPs;
    for (const iso::Particle& p : gpu.value())
        refPs.push_back({{p.position[0], p.position[1], p.position[2]}, p.weight});
    std::vector<uint32_t> touching;
    const auto expect = ref::splatBruteForce(g, refPs, ps.radius, &touching);
    auto field = surface.readField();
    ASSERT_TRUE(field.ok()) << field.message();
    for (size_t i = 0; i < expect.size(); ++i)
        ASSERT_NEAR(field.value()[i], expect[i], (float(touching[i]) + 1.f) / 65536.f + 1e-5f * expect[i])
            << "sample " << i;
    const ref::McResult mc = ref::marchingCubes(g, field.value().data(), surface.isoValue(), ref::Normals::Central);
    auto stats = surface.statsOfFrame(surface.framesRecorded() - 1);
    ASSERT_TRUE(stats.has_value());
    EXPECT_GT(mc.vertices.size(), 300u);
    EXPECT_EQ(stats->verticesNeeded, mc.vertices.size());
}

TEST_F(SampleRender, OverflowIsReportedNotDrawnPastCapacity) {
    const Field f = sphereField(24);
    sample::VolumeScene::Settings s;
    s.samples = {f.grid.n[0], f.grid.n[1], f.grid.n[2]};
    s.vertexCapacity = 300; // far below the sphere's need
    auto scene = sample::VolumeScene::create(device(), s, f.values.data(), f.values.size() * 4, iso::VolumeFormat::F32);
    ASSERT_TRUE(scene.ok()) << scene.message();
    sample::CommonOptions o;
    o.width = 64;
    o.height = 64;
    o.frames = 1;
    sample::StatsRecorder stats;
    ASSERT_OK(sample::runHeadless(device(), **scene, o, stats));
    ASSERT_EQ(stats.frames().size(), 1u);
    EXPECT_TRUE(stats.frames()[0].overflow);
    EXPECT_EQ(stats.frames()[0].triangles, 100u);
    EXPECT_GT(stats.frames()[0].trianglesNeeded, 100u);
}

} // namespace
