// Every ErrorCode a host may branch on comes from a real failure of the
// library, asserted here once each (the rest of the suite asserts them
// where they belong); Unspecified is never produced: a Status without a code
// does not compile.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>
#include <unistd.h>

#include "device_lost_hook.h"
#include "pyramarch/engine/device.h"
#include "pyramarch/engine/memory.h"
#include "pyramarch/engine/transfer.h"
#include "pyramarch/isosurface/isosurface.h"
#include "pyramarch/isosurface/particle_io.h"
#include "pyramarch/isosurface/raw_volume.h"
#include "support/gpu_test.h"

using namespace pyramarch;

// The form without a code is deleted: library code cannot produce Unspecified by forgetting one.
template <class... Args>
constexpr bool kCanMakeError = requires(Args... args) {
    Status::error(args...);
};
static_assert(!kCanMakeError<std::string>);
static_assert(!kCanMakeError<const char*, VkResult>);
static_assert(kCanMakeError<ErrorCode, const char*>);

namespace {

class ErrorCodes : public test::GpuTest {
protected:
    // Records the code `what` failed with; fails the test if it did not fail.
    void saw(const std::string& what, const Status& s, ErrorCode expected) {
        ASSERT_FALSE(s.ok()) << what << " did not fail";
        EXPECT_EQ(s.code(), expected) << what << ": " << errorCodeName(s.code()) << ": " << s.message();
        EXPECT_NE(s.code(), ErrorCode::Unspecified) << what;
        EXPECT_FALSE(s.message().empty()) << what;
        seen_[s.code()] = what;
    }
    template <class T>
    void saw(const std::string& what, const Result<T>& r, ErrorCode expected) {
        saw(what, r.ok() ? Status{} : r.status(), expected);
    }
    std::map<ErrorCode, std::string> seen_;
};

AdoptInfo adoptInfoOf(Device& d) {
    AdoptInfo info;
    info.instance = d.instance();
    info.physicalDevice = d.physicalDevice();
    info.device = d.device();
    info.queueFamilyIndex = d.queueFamily();
    info.synchronization2Enabled = true;
    info.dynamicRenderingEnabled = true;
    info.debugUtilsEnabled = d.limits().debugUtils;
    info.enabledFeatures.geometryShader = d.limits().geometryShader;
    info.enabledFeatures.fragmentStoresAndAtomics = d.limits().fragmentStoresAndAtomics;
    return info;
}

} // namespace

TEST_F(ErrorCodes, EveryCodeComesFromARealFailure) {
    Device& d = device();
    Allocator& allocator = d.allocator();
    constexpr VkBufferUsageFlags kUsage =
        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;

    saw("a buffer of size 0", allocator.createBuffer({0, kUsage, MemoryUsage::DeviceLocal, "zero"}),
        ErrorCode::InvalidArgument);

    {
        iso::IsoSurfaceCreateInfo info;
        info.samples = {9, 9, 9};
        info.vertexCapacity = 300;
        info.source = iso::FieldSource::Metaballs;
        info.maxBalls = 2;
        auto s = iso::IsoSurface::create(d, info);
        ASSERT_OK(s);
        const std::vector<iso::Metaball> balls(3, iso::Metaball{{0.f, 0.f, 0.f}, 0.5f, 1.f});
        saw("3 metaballs for maxBalls 2", (*s)->setMetaballs(balls), ErrorCode::CapacityExceeded);
    }

    {
        iso::IsoSurfaceCreateInfo info;
        // A dense field of 16 TiB, past maxStorageBufferRange, and past a
        // sparse domain's 8192 cells per axis: the dense plan's limit error.
        info.samples = {16385, 16385, 16385};
        info.vertexCapacity = 300;
        info.source = iso::FieldSource::Particles;
        auto s = iso::IsoSurface::create(d, info);
        saw("a 16385^3 particle grid", s, ErrorCode::DeviceLimit);
        if (!s.ok()) {
            EXPECT_NE(s.message().find("maxStorageBufferRange"), std::string::npos) << s.message();
        }
    }

    {
        DeviceCreateInfo ci;
        ci.applicationName = "pyramarch-error-codes";
        ci.deviceExtensions = {"VK_PYRAMARCH_no_such_extension"};
        auto created = Device::create(ci);
        saw("a device extension that does not exist", created, ErrorCode::Unsupported);
        if (!created.ok()) {
            EXPECT_NE(created.message().find("VK_PYRAMARCH_no_such_extension"), std::string::npos);
        }
        ci.deviceExtensions.clear();
        ci.preferredDevice = "no device is called this";
        created = Device::create(ci);
        saw("a preferred device that does not exist", created, ErrorCode::NotFound);
    }

    {
        auto adopted = Device::adopt(adoptInfoOf(d)); // no queue given
        ASSERT_OK(adopted);
        saw("submitAndWait without a queue", submitAndWait(**adopted, [](VkCommandBuffer) {}), ErrorCode::InvalidState);
    }

    {
        allocator.setBudget(allocator.stats().allocatedBytes + 4096);
        auto big = allocator.createBuffer({VkDeviceSize(64) << 20, kUsage, MemoryUsage::DeviceLocal, "over budget"});
        allocator.setBudget(0);
        saw("a buffer over the budget", big, ErrorCode::OutOfMemory);
        if (!big.ok()) {
            EXPECT_EQ(big.status().vkResult(), VK_ERROR_OUT_OF_DEVICE_MEMORY);
        }
    }

    {
        std::string error;
        auto hooked = test::adoptWithLossHook(d, error);
        ASSERT_TRUE(hooked) << error;
        test::g_inject = test::Inject::Submit;
        const Status lost = submitAndWait(*hooked, [](VkCommandBuffer) {});
        test::g_inject = test::Inject::None;
        saw("a lost device", lost, ErrorCode::Vulkan);
        EXPECT_EQ(lost.vkResult(), VK_ERROR_DEVICE_LOST);
    }

    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("pyramarch-error-codes-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    saw("a particle file that does not exist", iso::readParticles((dir / "missing.ply").string()), ErrorCode::NotFound);
    saw("a raw volume that does not exist",
        iso::openRawVolumeSlabs((dir / "missing.raw").string(), {4, 4, 4}, iso::VolumeFormat::U8), ErrorCode::NotFound);
    {
        const std::string text =
            "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nend_header\nnot-a-number\n";
        saw("a PLY whose x is not a number",
            iso::parseParticles({reinterpret_cast<const uint8_t*>(text.data()), text.size()}, iso::ParticleFormat::Ply,
                                "broken.ply"),
            ErrorCode::ParseError);
    }
    {
        iso::Mesh mesh;
        mesh.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
        mesh.normals = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
        mesh.indices = {0, 1, 2};
        saw("a mesh written into a folder that does not exist",
            iso::writePly(mesh, (dir / "no-such-folder" / "mesh.ply").string()), ErrorCode::Io);
        std::filesystem::create_directories(dir / "folder.ply");
        saw("a particle file that is a folder", iso::readParticles((dir / "folder.ply").string()), ErrorCode::Io);
    }
    std::filesystem::remove_all(dir);

    for (ErrorCode code : {ErrorCode::InvalidArgument, ErrorCode::CapacityExceeded, ErrorCode::DeviceLimit,
                           ErrorCode::Unsupported, ErrorCode::InvalidState, ErrorCode::OutOfMemory, ErrorCode::Vulkan,
                           ErrorCode::NotFound, ErrorCode::ParseError, ErrorCode::Io})
        EXPECT_TRUE(seen_.count(code)) << errorCodeName(code) << " was not produced by any failure above";
    EXPECT_FALSE(seen_.count(ErrorCode::Unspecified));
}
