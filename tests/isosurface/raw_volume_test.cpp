// iso::readRawVolume and friends (raw_volume.h): the loader behind the
// volume sample and `pyramarch iso --raw`. CPU only.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>
#include <unistd.h>

#include "pyramarch/isosurface/raw_volume.h"

using namespace pyramarch;
using namespace pyramarch::iso;

namespace {

class RawVolume : public ::testing::Test {
protected:
    std::string path =
        (std::filesystem::temp_directory_path() / ("pyramarch-raw-volume-test-" + std::to_string(::getpid()) + ".raw"))
            .string();
    void TearDown() override {
        std::error_code ec;
        std::filesystem::remove(path, ec);
    }
    void write(const void* data, size_t bytes) {
        std::ofstream f(path, std::ios::binary | std::ios::trunc);
        f.write(static_cast<const char*>(data), std::streamsize(bytes));
    }
};

TEST(RawVolumeFormat, NamesAndSizes) {
    VolumeFormat f = VolumeFormat::U8;
    EXPECT_TRUE(parseVolumeFormat("u16", f));
    EXPECT_EQ(f, VolumeFormat::U16);
    EXPECT_TRUE(parseVolumeFormat("f32", f));
    EXPECT_EQ(f, VolumeFormat::F32);
    EXPECT_TRUE(parseVolumeFormat("u8", f));
    EXPECT_EQ(f, VolumeFormat::U8);
    for (const char* bad : {"", "u32", "U8", "f64", "u8 "}) {
        EXPECT_FALSE(parseVolumeFormat(bad, f)) << bad;
        EXPECT_EQ(f, VolumeFormat::U8) << "untouched on failure";
    }
    EXPECT_EQ(volumeFormatBytes(VolumeFormat::U8), 1u);
    EXPECT_EQ(volumeFormatBytes(VolumeFormat::U16), 2u);
    EXPECT_EQ(volumeFormatBytes(VolumeFormat::F32), 4u);
    for (VolumeFormat g : {VolumeFormat::U8, VolumeFormat::U16, VolumeFormat::F32}) {
        VolumeFormat back;
        ASSERT_TRUE(parseVolumeFormat(volumeFormatName(g), back));
        EXPECT_EQ(back, g);
    }
}

TEST_F(RawVolume, ReadsExactlyTheFileOfTheDims) {
    std::vector<uint16_t> samples(3 * 4 * 5);
    for (size_t i = 0; i < samples.size(); ++i) samples[i] = uint16_t(1000 + 7 * i);
    write(samples.data(), samples.size() * 2);
    auto r = readRawVolume(path, {3, 4, 5}, VolumeFormat::U16);
    ASSERT_TRUE(r.ok()) << r.message();
    ASSERT_EQ(r->size(), samples.size() * 2);
    EXPECT_EQ(std::memcmp(r->data(), samples.data(), r->size()), 0);
    const auto range = volumeRange(r->data(), samples.size(), VolumeFormat::U16);
    EXPECT_EQ(range[0], 1000.f);
    EXPECT_EQ(range[1], float(1000 + 7 * (samples.size() - 1)));
}

TEST_F(RawVolume, WrongSizeNamesFileDimsAndBothSizes) {
    const std::string bytes(100, '\0');
    write(bytes.data(), bytes.size());
    auto r = readRawVolume(path, {4, 4, 4}, VolumeFormat::U16);
    ASSERT_FALSE(r.ok());
    const std::string m = r.message();
    EXPECT_NE(m.find(path), std::string::npos) << m;
    EXPECT_NE(m.find("100 bytes"), std::string::npos) << m;
    EXPECT_NE(m.find("4x4x4 u16"), std::string::npos) << m;
    EXPECT_NE(m.find("128"), std::string::npos) << m;
}

TEST_F(RawVolume, ErrorsAreStatusesWithMessages) {
    auto missing = readRawVolume("/nonexistent/dir/v.raw", {2, 2, 2}, VolumeFormat::U8);
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.message().find("cannot open"), std::string::npos) << missing.message();
    EXPECT_NE(missing.message().find("/nonexistent/dir/v.raw"), std::string::npos) << missing.message();

    auto dir = readRawVolume(std::filesystem::temp_directory_path().string(), {2, 2, 2}, VolumeFormat::U8);
    ASSERT_FALSE(dir.ok());
    EXPECT_NE(dir.message().find("directory"), std::string::npos) << dir.message();

    write("abcdefgh", 8);
    auto zero = readRawVolume(path, {2, 0, 4}, VolumeFormat::U8);
    ASSERT_FALSE(zero.ok());
    EXPECT_NE(zero.message().find("2x0x4"), std::string::npos) << zero.message();

    // 2^32-1 cubed does not fit any address space; no wrap-around to a small size.
    const uint32_t big = std::numeric_limits<uint32_t>::max();
    auto huge = readRawVolume(path, {big, big, big}, VolumeFormat::F32);
    ASSERT_FALSE(huge.ok());
    EXPECT_NE(huge.message().find("do not fit"), std::string::npos) << huge.message();
}

TEST(RawVolumeRange, SkipsValuesThatAreNotFinite) {
    const float v[] = {std::nanf(""), -2.5f, std::numeric_limits<float>::infinity(), 4.f,
                       -std::numeric_limits<float>::infinity()};
    const auto range = volumeRange(v, 5, VolumeFormat::F32);
    EXPECT_EQ(range[0], -2.5f);
    EXPECT_EQ(range[1], 4.f);
    const float none[] = {std::nanf(""), std::numeric_limits<float>::infinity()};
    const auto fallback = volumeRange(none, 2, VolumeFormat::F32);
    EXPECT_EQ(fallback[0], 0.f);
    EXPECT_EQ(fallback[1], 1.f);
    const uint8_t u[] = {9, 3, 200};
    const auto r8 = volumeRange(u, 3, VolumeFormat::U8);
    EXPECT_EQ(r8[0], 3.f);
    EXPECT_EQ(r8[1], 200.f);
}

} // namespace
