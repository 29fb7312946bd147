// GPU-assisted validation switched on the layer's own way (ctest sets
// VK_LAYER_ENABLES, or VK_LAYER_SETTINGS_PATH to a vk_layer_settings.txt
// with khronos_validation.enables), not through PYRAMARCH_GPU_AV: the module
// recognizes it and keeps push descriptors off, which the 1.3.239 layer
// reports as uninitialized descriptors on every pass. A frame of a surface
// then runs without a message.
#include <gtest/gtest.h>

#include <cstdlib>

#include "pyramarch/engine/device.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/isosurface/isosurface.h"
#include "reference.h"
#include "support/device_policy.h"
#include "support/gpu_test.h"

using namespace pyramarch;

TEST(GpuAvLayerSettings, FrameWithoutMessages) {
    const char* enables = std::getenv("VK_LAYER_ENABLES");
    const char* settings = std::getenv("VK_LAYER_SETTINGS_PATH");
    ASSERT_TRUE(enables || settings) << "run through ctest: it sets VK_LAYER_ENABLES or VK_LAYER_SETTINGS_PATH";
    ::unsetenv("PYRAMARCH_GPU_AV"); // only the layer's own switch
    test::ValidationLog log;
    DeviceCreateInfo info = test::validatedDeviceInfo("pyramarch-gpuav-layer-settings", log);
    info.gpuAssistedValidation = false;
    auto device = Device::create(info);
    if (!device) PYRAMARCH_FAIL_OR_SKIP_NO_DEVICE(device.message());
    EXPECT_TRUE(device.value()->gpuAssistedValidation());
    EXPECT_FALSE(device.value()->limits().pushDescriptors);
    {
        iso::IsoSurfaceCreateInfo si;
        si.samples = {9, 9, 9}; // GPU-AV runs shaders several times slower
        si.vertexCapacity = 1u << 12;
        si.isoValue = 0.5f;
        auto surface = iso::IsoSurface::create(*device.value(), si);
        ASSERT_TRUE(surface.ok()) << surface.message();
        const iso::Metaball ball{{0.f, 0.f, 0.f}, 0.8f, 1.f, {}};
        ASSERT_TRUE(surface.value()->setMetaballs({&ball, 1}).ok());
        Status recorded;
        ASSERT_TRUE(
            submitAndWait(*device.value(), [&](VkCommandBuffer cmd) { recorded = surface.value()->record(cmd); }).ok());
        ASSERT_TRUE(recorded.ok()) << recorded.message();
        auto mesh = surface.value()->readMesh();
        ASSERT_TRUE(mesh.ok()) << mesh.message();
        ref::Grid g;
        g.n[0] = g.n[1] = g.n[2] = 9;
        const auto field = ref::metaballs(g, {{{0.f, 0.f, 0.f}, 0.8f, 1.f}});
        EXPECT_EQ(mesh.value().indices.size(),
                  ref::marchingCubes(g, field.data(), 0.5f, ref::Normals::Central).vertices.size());
    }
    device.value().reset();
    for (const std::string& m : log.take()) ADD_FAILURE() << "validation: " << m;
}
