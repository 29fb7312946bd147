// CPU tests of the particle readers/writer, sequence expansion, the particle
// grid helper and the splashsurf conventions (particle_io.h, particle_grid.h).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "pyramarch/isosurface/particle_grid.h"
#include "pyramarch/isosurface/particle_io.h"

#include <zlib.h>

namespace {

using namespace pyramarch::iso;
using pyramarch::Result;
namespace fs = std::filesystem;

// A scratch directory per test, removed afterwards.
class ParticleFiles : public ::testing::Test {
protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        dir_ = fs::temp_directory_path() / ("pyramarch-particles-" + std::to_string(::getpid()) + "-" + info->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override {
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }
    std::string write(const std::string& name, const std::string& bytes) {
        const fs::path p = dir_ / name;
        fs::create_directories(p.parent_path());
        std::ofstream f(p, std::ios::binary | std::ios::trunc);
        f.write(bytes.data(), std::streamsize(bytes.size()));
        return p.string();
    }
    // Reads `bytes` as file `name`; the error message when it fails.
    Result<ParticleSet> read(const std::string& name, const std::string& bytes, ParticleReadOptions options = {}) {
        return readParticles(write(name, bytes), options);
    }
    fs::path dir_;
};

// Binary data in either byte order.
struct Bin {
    std::string bytes;
    bool big = false;
    template <class T>
    Bin& put(T v) {
        char b[sizeof(T)];
        std::memcpy(b, &v, sizeof(T));
        if (big != (std::endian::native == std::endian::big)) std::reverse(b, b + sizeof(T));
        bytes.append(b, sizeof(T));
        return *this;
    }
};

// Expects a failure whose message contains every piece.
void expectError(const Result<ParticleSet>& r, std::initializer_list<std::string> pieces) {
    ASSERT_FALSE(r.ok()) << "expected an error containing '" << *pieces.begin() << "'";
    for (const auto& p : pieces)
        EXPECT_NE(r.message().find(p), std::string::npos) << "'" << p << "' not in: " << r.message();
}

const std::string kAsciiHeader = "ply\nformat ascii 1.0\n";
// Non-finite positions as errors (the default drops and counts them).
const ParticleReadOptions kStrict{.nonFinite = NonFinitePolicy::Error};

// ------------------------------------------------------------------ formats

TEST_F(ParticleFiles, AsciiPlyFloatWithExtraPropertiesAndComments) {
    const std::string ply = "ply\r\nformat ascii 1.0\r\ncomment made by hand\r\nobj_info test\r\nelement vertex 3\r\n"
                            "property float nx\r\nproperty float x\r\nproperty float32 y\r\nproperty uchar red\r\n"
                            "property float z\r\nend_header\r\n"
                            "9 1 2 255 3\r\n"
                            "9 -1.5 +0.25 0 1e-3\r\n"
                            "\r\n"
                            "9 4 5 7 -6\r\n";
    auto r = read("a.ply", ply);
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r->count(), 3u);
    EXPECT_EQ(r->xyz, (std::vector<float>{1.f, 2.f, 3.f, -1.5f, 0.25f, 1e-3f, 4.f, 5.f, -6.f}));
    EXPECT_EQ(r->bounds.min, (std::array<float, 3>{-1.5f, 0.25f, -6.f}));
    EXPECT_EQ(r->bounds.max, (std::array<float, 3>{4.f, 5.f, 3.f}));
}

TEST_F(ParticleFiles, AsciiPlyDoubleWithFacesBeforeAndAfter) {
    const std::string ply = kAsciiHeader +
                            "element face 2\nproperty list uchar int vertex_indices\nproperty uchar flags\n"
                            "element vertex 2\nproperty double x\nproperty float64 y\nproperty double z\n"
                            "property list uint8 float weights\n"
                            "element edge 1\nproperty int vertex1\nproperty int vertex2\n"
                            "end_header\n"
                            "3 0 1 2 7\n"
                            "0 9\n"
                            "0.1 0.2 0.3 2 0.5 0.5\n"
                            "1e2 -2e2 3e2 0\n"
                            "0 1\n";
    auto r = read("faces.ply", ply);
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r->xyz, (std::vector<float>{float(0.1), float(0.2), float(0.3), 100.f, -200.f, 300.f}));
}

std::string binaryHeader(bool big, const std::string& body) {
    return std::string("ply\nformat ") + (big ? "binary_big_endian" : "binary_little_endian") + " 1.0\n" + body +
           "end_header\n";
}

TEST_F(ParticleFiles, BinaryPlyFloatAndDoubleBothByteOrders) {
    for (bool big : {false, true}) {
        SCOPED_TRACE(big ? "big endian" : "little endian");
        // float x y z among other properties, then a face element with lists.
        Bin d{.big = big};
        const float pts[2][3] = {{1.f, -2.f, 3.5f}, {0.125f, 1e-20f, -7.f}};
        for (const auto& p : pts) d.put<uint8_t>(200).put(p[0]).put<double>(42.0).put(p[1]).put<int16_t>(-3).put(p[2]);
        d.put<uint8_t>(3).put<int32_t>(0).put<int32_t>(1).put<int32_t>(1).put<uint16_t>(9);
        d.put<uint8_t>(0).put<uint16_t>(9);
        const std::string header = binaryHeader(big, "element vertex 2\nproperty uchar red\nproperty float x\n"
                                                     "property double density\nproperty float y\nproperty short id\n"
                                                     "property float z\nelement face 2\n"
                                                     "property list uchar int vertex_indices\nproperty ushort tag\n");
        auto r = read(big ? "f_be.ply" : "f_le.ply", header + d.bytes);
        ASSERT_TRUE(r.ok()) << r.message();
        EXPECT_EQ(r->xyz, (std::vector<float>{1.f, -2.f, 3.5f, 0.125f, 1e-20f, -7.f}));

        // double x y z (aliases), a list inside the vertex element, faces first.
        Bin e{.big = big};
        e.put<uint8_t>(2).put<uint32_t>(5).put<uint32_t>(6); // face 0
        const double dp[2][3] = {{0.1, 0.2, 0.3}, {-1e10, 2.5, 1e-3}};
        for (const auto& p : dp) e.put(p[0]).put<uint8_t>(1).put<float>(9.f).put(p[1]).put(p[2]);
        const std::string header2 = binaryHeader(big, "element face 1\nproperty list uint8 uint32 vertex_indices\n"
                                                      "element vertex 2\nproperty float64 x\n"
                                                      "property list uchar float32 extra\nproperty float64 y\n"
                                                      "property float64 z\n");
        auto r2 = read(big ? "d_be.ply" : "d_le.ply", header2 + e.bytes);
        ASSERT_TRUE(r2.ok()) << r2.message();
        EXPECT_EQ(r2->xyz, (std::vector<float>{float(0.1), float(0.2), float(0.3), -1e10f, 2.5f, float(1e-3)}));
    }
}

TEST_F(ParticleFiles, XyzTextWithCommentsBlankLinesAndExtraColumns) {
    const std::string xyz = "# particles\n"
                            "\n"
                            "1 2 3\n"
                            "  -4.5\t5e1   6 0.1 0.2 0.3 anything   # normal and colour ignored\r\n"
                            "   \t\n"
                            "7 8 9 # trailing comment\n"
                            "#1 2 3\n"
                            "10 11 12"; // no final newline
    auto r = read("p.xyz", xyz);
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r->xyz, (std::vector<float>{1, 2, 3, -4.5f, 50, 6, 7, 8, 9, 10, 11, 12}));
    EXPECT_EQ(r->bounds.min, (std::array<float, 3>{-4.5f, 2.f, 3.f}));
    EXPECT_EQ(r->bounds.max, (std::array<float, 3>{10.f, 50.f, 12.f}));
}

TEST_F(ParticleFiles, XyzWithByteOrderMark) {
    auto r = read("bom.xyz", "\xEF\xBB\xBF"
                             "1 2 3\n4 5 6\n");
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r->xyz, (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST_F(ParticleFiles, RawFloat32) {
    Bin d;
    const std::vector<float> v = {1.f, 2.f, 3.f, -0.5f, 1e30f, -1e-30f};
    for (float f : v) d.put(f);
    auto r = read("p.f32", d.bytes);
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r->xyz, v);
    auto empty = read("empty.f32", "");
    ASSERT_TRUE(empty.ok()) << empty.message();
    EXPECT_EQ(empty->count(), 0u);
    EXPECT_TRUE(empty->bounds.empty());
}

TEST_F(ParticleFiles, FormatFromExtensionOrExplicit) {
    EXPECT_EQ(particleFormatFromPath("a/b.PLY").value(), ParticleFormat::Ply);
    EXPECT_EQ(particleFormatFromPath("b.Xyz").value(), ParticleFormat::Xyz);
    EXPECT_EQ(particleFormatFromPath("dir.ply/b.f32").value(), ParticleFormat::F32);
    auto unknown = particleFormatFromPath("frames/p.txt");
    ASSERT_FALSE(unknown.ok());
    EXPECT_NE(unknown.message().find("frames/p.txt"), std::string::npos) << unknown.message();
    EXPECT_NE(unknown.message().find("'.txt'"), std::string::npos) << unknown.message();
    EXPECT_FALSE(particleFormatFromPath("noext").ok());

    // The override wins over the extension.
    auto r = read("p.txt", "1 2 3\n", {.format = ParticleFormat::Xyz});
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r->count(), 1u);
    expectError(read("q.txt", "1 2 3\n"), {"q.txt", "unknown particle file extension"});
    expectError(read("r.xyz", "1 2 3\n", {.format = ParticleFormat::Ply}), {"r.xyz", "not a PLY file"});
    EXPECT_STREQ(particleFormatName(ParticleFormat::F32), "f32");
}

TEST_F(ParticleFiles, WriterRoundTrip) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-100.f, 100.f);
    std::vector<float> xyz(3 * 1000);
    for (float& f : xyz) f = u(rng);
    xyz[0] = -0.f;
    xyz[1] = std::numeric_limits<float>::denorm_min();
    xyz[2] = std::numeric_limits<float>::max();
    const std::string path = (dir_ / "out.ply").string();
    ASSERT_TRUE(writeParticlesPly(path, xyz).ok());
    auto r = readParticles(path);
    ASSERT_TRUE(r.ok()) << r.message();
    ASSERT_EQ(r->xyz.size(), xyz.size());
    EXPECT_EQ(std::memcmp(r->xyz.data(), xyz.data(), xyz.size() * sizeof(float)), 0);
    // Binary little endian, float x y z, exactly header + 12 bytes a particle.
    const auto bytes = encodeParticlesPly(xyz);
    const std::string text(bytes.begin(), bytes.end());
    EXPECT_EQ(text.rfind("ply\nformat binary_little_endian 1.0\n", 0), 0u);
    EXPECT_EQ(bytes.size() - (text.find("end_header\n") + 11), 12000u);
    // Empty set.
    ASSERT_TRUE(writeParticlesPly(path, {}).ok());
    auto e = readParticles(path);
    ASSERT_TRUE(e.ok()) << e.message();
    EXPECT_EQ(e->count(), 0u);
    // Unwritable path.
    auto bad = writeParticlesPly((dir_ / "missing" / "x.ply").string(), xyz);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.message().find("missing/x.ply"), std::string::npos) << bad.message();
}

// ------------------------------------------------------------------ errors

TEST_F(ParticleFiles, MissingOrUnreadableFile) {
    expectError(readParticles((dir_ / "nope.ply").string()), {"nope.ply", "cannot open", "No such file"});
    fs::create_directories(dir_ / "d.xyz");
    expectError(readParticles((dir_ / "d.xyz").string()), {"d.xyz", "directory"});
}

TEST_F(ParticleFiles, PlyHeaderErrors) {
    const std::string v = "element vertex 1\nproperty float x\nproperty float y\nproperty float z\n";
    expectError(read("a.ply", "plx\n"), {"a.ply", "not a PLY file"});
    expectError(read("b.ply", kAsciiHeader + v), {"b.ply", "no end_header"});
    expectError(read("c.ply", "ply\nformat ascii 2.0\nend_header\n"), {"c.ply", "header line 2", "version"});
    expectError(read("d.ply", "ply\nformat binary_middle_endian 1.0\nend_header\n"),
                {"d.ply", "header line 2", "binary_middle_endian"});
    expectError(read("e.ply", "ply\n" + v + "end_header\n"), {"e.ply", "header line 2", "before the format line"});
    expectError(read("f.ply", kAsciiHeader + "element vertex 1\nproperty float x\nproperty float16 y\nend_header\n"),
                {"f.ply", "header line 5", "unknown property type 'float16'"});
    expectError(read("g.ply", kAsciiHeader + "element vertex 1\nproperty list float int x\nend_header\n"),
                {"g.ply", "header line 4", "not an integer type"});
    expectError(read("h.ply", kAsciiHeader + "element vertex 1\nproperty float x\nproperty float z\nend_header\n0 0\n"),
                {"h.ply", "element 'vertex'", "no property 'y'"});
    expectError(
        read("i.ply", kAsciiHeader +
                          "element vertex 1\nproperty int x\nproperty float y\nproperty float z\nend_header\n1 2 3\n"),
        {"i.ply", "'x'", "type 'int'", "float or double"});
    expectError(
        read("j.ply",
             kAsciiHeader +
                 "element vertex 1\nproperty list uchar float x\nproperty float y\nproperty float z\nend_header\n"),
        {"j.ply", "'x'", "list uchar float"});
    expectError(read("k.ply", kAsciiHeader + "element face 0\nproperty list uchar int vertex_indices\nend_header\n"),
                {"k.ply", "no element 'vertex'"});
    expectError(read("l.ply", kAsciiHeader + "element vertex -3\nend_header\n"), {"l.ply", "header line 3", "'-3'"});
    expectError(read("m.ply", kAsciiHeader + v + "property float x\nend_header\n"),
                {"m.ply", "header line 7", "second property 'x'"});
    expectError(read("n.ply", kAsciiHeader + "property float x\nend_header\n"),
                {"n.ply", "header line 3", "before any element"});
    expectError(read("o.ply", kAsciiHeader + v + "bogus line\nend_header\n"), {"o.ply", "header line 7", "'bogus'"});
}

TEST_F(ParticleFiles, AsciiPlyDataErrors) {
    const std::string h = kAsciiHeader + "element vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
                                         "element face 1\nproperty list uchar int vertex_indices\nend_header\n";
    // Header: 9 lines; vertex records on lines 10..12, the face on line 13.
    expectError(read("nan.ply", h + "0 0 0\n1 nan 2\n0 0 0\n3 0 1 2\n", kStrict),
                {"nan.ply", "line 11 (element 'vertex' record 1)", "y 'nan' is not finite"});
    expectError(read("inf.ply", h + "0 0 0\n1 1 2\n-inf 0 0\n3 0 1 2\n", kStrict),
                {"inf.ply", "line 12", "record 2", "x '-inf'"});
    expectError(read("big.ply", h + "0 0 0\n1 1 2\n0 0 1e39\n3 0 1 2\n", kStrict),
                {"big.ply", "line 12", "z '1e39' is beyond float range"});
    expectError(read("word.ply", h + "0 0 0\n1 one 2\n"), {"word.ply", "line 11", "y 'one' is not a number"});
    expectError(read("short.ply", h + "0 0 0\n1 1\n"),
                {"short.ply", "line 11 (element 'vertex' record 1)", "property 'z' is missing"});
    expectError(read("long.ply", h + "0 0 0\n1 1 1 1\n"), {"long.ply", "line 11", "4 values, the header declares 3"});
    expectError(read("few.ply", h + "0 0 0\n1 1 1\n"),
                {"few.ply", "ends at line 11", "2 of 3 records of element 'vertex'"});
    expectError(read("list.ply", h + "0 0 0\n1 1 1\n2 2 2\n4 0 1 2\n"),
                {"list.ply", "line 13 (element 'face' record 0)", "declares 4 items", "3 values left"});
    expectError(read("count.ply", h + "0 0 0\n1 1 1\n2 2 2\n-1 0 1 2\n"), {"count.ply", "line 13", "list count '-1'"});
    expectError(read("more.ply", h + "0 0 0\n1 1 1\n2 2 2\n3 0 1 2\n\n5 5 5\n"),
                {"more.ply", "line 15", "data after the last record"});
    // A double property beyond float range.
    expectError(read("dbl.ply",
                     kAsciiHeader + "element vertex 1\nproperty double x\nproperty double y\nproperty double z\n"
                                    "end_header\n1e300 0 0\n",
                     kStrict),
                {"dbl.ply", "line 8", "x '1e300' is beyond float range"});
}

TEST_F(ParticleFiles, BinaryPlyDataErrors) {
    const std::string v = "element vertex 3\nproperty float x\nproperty float y\nproperty float z\n";
    const std::string h = binaryHeader(false, v);
    const size_t dataStart = h.size();
    Bin d;
    for (int i = 0; i < 9; ++i) d.put(float(i));
    // Truncated: the last record is 4 bytes short.
    expectError(
        read("trunc.ply", h + d.bytes.substr(0, 32)),
        {"trunc.ply", "truncated in element 'vertex' record 2 of 3", "byte offset " + std::to_string(dataStart + 24)});
    // Too many bytes: counts do not match.
    expectError(read("extra.ply", h + d.bytes + "xyz"),
                {"extra.ply", "3 bytes after the last record", "byte offset " + std::to_string(dataStart + 36)});
    // NaN and a double beyond float range.
    Bin n = d;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::memcpy(n.bytes.data() + 16, &nan, 4); // record 1, y
    expectError(read("nan.ply", h + n.bytes, kStrict),
                {"nan.ply", "element 'vertex' record 1 (byte offset " + std::to_string(dataStart + 12) + ")",
                 "y = nan is not finite"});
    Bin dd{.big = true};
    dd.put(1.0).put(2.0).put(1e300);
    expectError(read("dbl.ply",
                     binaryHeader(true, "element vertex 1\nproperty double x\nproperty double y\nproperty double z\n") +
                         dd.bytes,
                     kStrict),
                {"dbl.ply", "record 0", "z = 1e+300 is beyond float range"});
    // Truncated inside a list element, and a negative list count.
    const std::string hf = binaryHeader(false, v + "element face 2\nproperty list char int vertex_indices\n");
    Bin f = d;
    f.put<int8_t>(3).put<int32_t>(0).put<int32_t>(1).put<int32_t>(2).put<int8_t>(3).put<int32_t>(0);
    expectError(read("face.ply", hf + f.bytes), {"face.ply", "truncated in element 'face' record 1 of 2",
                                                 "byte offset " + std::to_string(hf.size() + 36 + 13)});
    Bin g = d;
    g.put<int8_t>(-1);
    expectError(read("neg.ply", hf + g.bytes), {"neg.ply", "element 'face' record 0", "negative list count"});
}

TEST_F(ParticleFiles, HostileCountsAllocateNothing) {
    const std::string xyzProps = "property float x\nproperty float y\nproperty float z\n";
    // Over the limit: refused from the header.
    expectError(read("huge.ply", binaryHeader(false, "element vertex 1000000000000\n" + xyzProps)),
                {"huge.ply", "header line 3", "1000000000000 vertices", "maxParticles"});
    expectError(read("small.ply", kAsciiHeader + "element vertex 3\n" + xyzProps + "end_header\n1 1 1\n2 2 2\n3 3 3\n",
                     {.maxParticles = 2}),
                {"small.ply", "3 vertices", "limit of 2 particles"});
    // Within an unlimited cap, the data decides: truncated, nothing reserved from the count.
    const uint64_t unlimited = std::numeric_limits<uint64_t>::max();
    expectError(read("trunc.ply", binaryHeader(false, "element vertex 1152921504606846976\n" + xyzProps) + "abcd",
                     {.maxParticles = unlimited}),
                {"trunc.ply", "truncated in element 'vertex' record 0 of 1152921504606846976"});
    expectError(read("faces.ply",
                     binaryHeader(false, "element vertex 0\n" + xyzProps +
                                             "element face 18446744073709551615\n"
                                             "property list uint int vertex_indices\n") +
                         std::string("\xff\xff\xff\xff", 4),
                     {.maxParticles = unlimited}),
                {"faces.ply", "truncated in element 'face' record 0"});
    expectError(read("ascii.ply",
                     kAsciiHeader + "element vertex 1152921504606846976\n" + xyzProps + "end_header\n1 2 3\n",
                     {.maxParticles = unlimited}),
                {"ascii.ply", "ends at line", "1 of 1152921504606846976 records"});
    // An element without properties takes no data, whatever its count.
    auto ok = read("empty_elem.ply", kAsciiHeader + "element nothing 1000000000000000\nelement vertex 1\n" + xyzProps +
                                         "end_header\n1 2 3\n");
    ASSERT_TRUE(ok.ok()) << ok.message();
    EXPECT_EQ(ok->count(), 1u);
    // .f32 and .xyz over the limit.
    expectError(read("p.f32", std::string(36, '\0'), {.maxParticles = 2}),
                {"p.f32", "3 particles (36 bytes)", "limit of 2"});
    expectError(read("p.xyz", "1 1 1\n2 2 2\n# x\n3 3 3\n", {.maxParticles = 2}), {"p.xyz", "line 4", "limit of 2"});
}

TEST_F(ParticleFiles, XyzAndF32Errors) {
    expectError(read("two.xyz", "1 2 3\n\n4 5\n"), {"two.xyz", "line 3", "2 values, expected x y z"});
    expectError(read("nan.xyz", "1 2 3\n# c\n4 NaN 6\n", kStrict), {"nan.xyz", "line 3", "y 'NaN' is not finite"});
    expectError(read("inf.xyz", "inf 2 3\n", kStrict), {"inf.xyz", "line 1", "x 'inf'"});
    expectError(read("word.xyz", "1 2 3x\n"), {"word.xyz", "line 1", "z '3x' is not a number"});
    expectError(read("comma.xyz", "1,2,3\n"), {"comma.xyz", "line 1", "1 value,"});
    expectError(read("odd.f32", std::string(13, '\0')),
                {"odd.f32", "not a multiple of 12", "1 trailing bytes at byte offset 12"});
    Bin d;
    d.put(1.f).put(2.f).put(3.f).put(4.f).put(std::numeric_limits<float>::infinity()).put(6.f);
    expectError(read("inf.f32", d.bytes, kStrict), {"inf.f32", "particle 1 (byte offset 12)", "y = inf is not finite"});
}

TEST(ParticleParse, InMemoryNeedsAFormat) {
    const uint8_t b[] = {'1', ' ', '2', ' ', '3'};
    auto r = parseParticles(b, ParticleFormat::Xyz, "mem");
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r->count(), 1u);
    auto a = parseParticles(b, ParticleFormat::Auto, "mem");
    ASSERT_FALSE(a.ok());
    EXPECT_NE(a.message().find("'mem'"), std::string::npos) << a.message();
}

// ------------------------------------------------------------------ VTK, VTK XML, BGEO

// Four particles and two attributes, written by the helpers below in each format.
struct Cloud {
    std::vector<float> xyz{0.f, 0.f, 0.f, 1.f, 2.f, 3.f, -1.5f, 0.25f, 8.f, 1e-3f, -2.f, 4.5f};
    std::vector<float> velocity{1, 0, 0, 0, 1, 0, 0, 0, 1, 0.5f, 0.5f, -0.5f};
    std::vector<float> density{1000.f, 998.5f, 1001.25f, 750.f};
    size_t count() const { return xyz.size() / 3; }
};

std::string base64(const std::string& in) {
    static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    for (size_t i = 0; i < in.size(); i += 3) {
        const uint32_t n = uint32_t(uint8_t(in[i])) << 16 |
                           (i + 1 < in.size() ? uint32_t(uint8_t(in[i + 1])) << 8 : 0) |
                           (i + 2 < in.size() ? uint32_t(uint8_t(in[i + 2])) : 0);
        out += k[n >> 18 & 63];
        out += k[n >> 12 & 63];
        out += i + 1 < in.size() ? k[n >> 6 & 63] : '=';
        out += i + 2 < in.size() ? k[n & 63] : '=';
    }
    return out;
}

std::string zlibCompress(const std::string& in) {
    uLongf size = compressBound(uLong(in.size()));
    std::string out(size, '\0');
    EXPECT_EQ(compress2(reinterpret_cast<Bytef*>(out.data()), &size, reinterpret_cast<const Bytef*>(in.data()),
                        uLong(in.size()), 6),
              Z_OK);
    out.resize(size);
    return out;
}

std::string gzipCompress(const std::string& in) {
    z_stream z{};
    EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    std::string out(deflateBound(&z, uLong(in.size())) + 32, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = uInt(in.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = uInt(out.size());
    EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

// Legacy VTK: unstructured grid with one vertex cell per particle, density as
// SCALARS (double), velocity as a FIELD array; version 4 cells or 5 offsets.
std::string writeLegacyVtk(const Cloud& c, bool binary, int version) {
    const size_t n = c.count();
    std::string s = "# vtk DataFile Version " + std::string(version >= 5 ? "5.1" : "4.2") + "\nmade by a test\n" +
                    (binary ? "BINARY" : "ASCII") + "\nDATASET UNSTRUCTURED_GRID\n";
    s += "FIELD FieldData 1\nTIME 1 1 double\n";
    Bin b{.big = true};
    auto values = [&](const std::vector<float>& v, bool asDouble) {
        if (binary) {
            Bin d{.big = true};
            for (float f : v) asDouble ? (void)d.put(double(f)) : (void)d.put(f);
            s += d.bytes + "\n";
        } else {
            for (float f : v) {
                char buf[32];
                std::snprintf(buf, sizeof buf, "%.9g ", double(f));
                s += buf;
            }
            s += "\n";
        }
    };
    values({0.5f}, true);
    s += "POINTS " + std::to_string(n) + " float\n";
    values(c.xyz, false);
    auto ints = [&](std::vector<int32_t> v, const char* type) {
        if (binary) {
            Bin d{.big = true};
            for (int32_t i : v) std::string(type) == "vtktypeint64" ? (void)d.put(int64_t(i)) : (void)d.put(i);
            s += d.bytes + "\n";
        } else {
            for (int32_t i : v) s += std::to_string(i) + " ";
            s += "\n";
        }
    };
    if (version >= 5) {
        s += "CELLS " + std::to_string(n + 1) + " " + std::to_string(n) + "\nOFFSETS vtktypeint64\n";
        std::vector<int32_t> off, conn;
        for (size_t i = 0; i <= n; ++i) off.push_back(int32_t(i));
        for (size_t i = 0; i < n; ++i) conn.push_back(int32_t(i));
        ints(off, "vtktypeint64");
        s += "CONNECTIVITY vtktypeint64\n";
        ints(conn, "vtktypeint64");
    } else {
        s += "CELLS " + std::to_string(n) + " " + std::to_string(2 * n) + "\n";
        std::vector<int32_t> cells;
        for (size_t i = 0; i < n; ++i) cells.insert(cells.end(), {1, int32_t(i)});
        ints(cells, "int");
    }
    s += "CELL_TYPES " + std::to_string(n) + "\n";
    ints(std::vector<int32_t>(n, 1), "int");
    s += "POINT_DATA " + std::to_string(n) + "\nSCALARS density double 1\nLOOKUP_TABLE default\n";
    values(c.density, true);
    s += "FIELD FieldData 1\nvelocity 3 " + std::to_string(n) + " float\n";
    values(c.velocity, false);
    s += "CELL_DATA " + std::to_string(n) + "\nSCALARS cell_id int\nLOOKUP_TABLE default\n";
    ints(std::vector<int32_t>(n, 7), "int");
    return s;
}

// VTK XML: how the arrays are stored.
struct VtuStyle {
    std::string format = "ascii"; // ascii | binary | appended
    bool base64Appended = false;
    bool zlib = false;
    bool header64 = false;
    bool big = false;
    size_t blockSize = 16; // zlib blocks (small: several per array)
};

std::string writeVtu(const Cloud& c, const VtuStyle& st) {
    const size_t n = c.count();
    std::string appended;
    // One array's payload (header + data) as stored.
    auto payload = [&](const std::string& raw) {
        Bin h{.big = st.big};
        auto word = [&](uint64_t v) { st.header64 ? (void)h.put(v) : (void)h.put(uint32_t(v)); };
        if (!st.zlib) {
            word(raw.size());
            return std::pair<std::string, std::string>(h.bytes, raw);
        }
        std::vector<std::string> blocks;
        for (size_t i = 0; i < raw.size(); i += st.blockSize)
            blocks.push_back(zlibCompress(raw.substr(i, st.blockSize)));
        word(blocks.size());
        word(st.blockSize);
        word(raw.size() % st.blockSize);
        std::string data;
        for (const auto& b : blocks) {
            word(b.size());
            data += b;
        }
        return std::pair<std::string, std::string>(h.bytes, data);
    };
    auto array = [&](const std::string& type, const std::string& name, int comps, const std::vector<float>& v) {
        std::string tag = "<DataArray type=\"" + type + "\" Name=\"" + name + "\" NumberOfComponents=\"" +
                          std::to_string(comps) + "\" format=\"" + st.format + "\"";
        Bin raw{.big = st.big};
        for (float f : v) {
            if (type == "Float64")
                raw.put(double(f));
            else if (type == "Int64")
                raw.put(int64_t(f));
            else
                raw.put(f);
        }
        if (st.format == "ascii") {
            std::string text;
            for (float f : v) {
                char buf[32];
                std::snprintf(buf, sizeof buf, "%.9g ", double(f));
                text += buf;
            }
            return tag + ">\n" + text +
                   "\n<InformationKey name=\"R\" location=\"x\"><Value "
                   "index=\"0\">99</Value></InformationKey>\n</DataArray>\n";
        }
        const auto [header, data] = payload(raw.bytes);
        // zlib: VTK encodes the header and the blocks separately; plain: together.
        const std::string encoded = st.zlib ? base64(header) + base64(data) : base64(header + data);
        if (st.format == "binary") return tag + ">\n    " + encoded + "\n</DataArray>\n";
        tag += " offset=\"" + std::to_string(appended.size()) + "\"/>\n";
        appended += st.base64Appended ? encoded : header + data;
        return tag;
    };
    std::vector<float> ids;
    for (size_t i = 0; i < n; ++i) ids.push_back(float(i + 1));
    std::string s = "<?xml version=\"1.0\"?>\n<!-- a test file -->\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" "
                    "byte_order=\"" +
                    std::string(st.big ? "BigEndian" : "LittleEndian") + "\" header_type=\"" +
                    (st.header64 ? "UInt64" : "UInt32") + "\"" +
                    (st.zlib ? " compressor=\"vtkZLibDataCompressor\"" : "") +
                    ">\n<UnstructuredGrid>\n<Piece NumberOfPoints=\"" + std::to_string(n) + "\" NumberOfCells=\"0\">\n";
    s += "<PointData>\n" + array("Float64", "velocity", 3, c.velocity) + array("Float32", "density", 1, c.density) +
         array("Int64", "id", 1, ids) + "</PointData>\n";
    s += "<Points>\n" + array("Float32", "Points", 3, c.xyz) + "</Points>\n";
    s += "<Cells>\n<DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\"></DataArray>\n</Cells>\n";
    s += "</Piece>\n</UnstructuredGrid>\n";
    if (st.format == "appended")
        s += "<AppendedData encoding=\"" + std::string(st.base64Appended ? "base64" : "raw") + "\">\n   _" + appended +
             "\n</AppendedData>\n";
    return s + "</VTKFile>\n";
}

// BGEO V5: P (x y z w), then velocity (vector 3), density (float), id (int).
std::string writeBgeo(const Cloud& c) {
    Bin b{.big = true};
    b.bytes = "BgeoV";
    b.put<int32_t>(5).put<int32_t>(int32_t(c.count())).put<int32_t>(0).put<int32_t>(0).put<int32_t>(0);
    b.put<int32_t>(3).put<int32_t>(0).put<int32_t>(0).put<int32_t>(0);
    auto def = [&](const std::string& name, uint16_t size, int32_t type) {
        b.put<uint16_t>(uint16_t(name.size()));
        b.bytes += name;
        b.put<uint16_t>(size).put<int32_t>(type);
        for (uint16_t i = 0; i < size; ++i) b.put<int32_t>(0);
    };
    def("velocity", 3, 5);
    def("density", 1, 0);
    def("id", 1, 1);
    for (size_t i = 0; i < c.count(); ++i) {
        b.put(c.xyz[i * 3]).put(c.xyz[i * 3 + 1]).put(c.xyz[i * 3 + 2]).put(1.f);
        b.put(c.velocity[i * 3]).put(c.velocity[i * 3 + 1]).put(c.velocity[i * 3 + 2]);
        b.put(c.density[i]).put<int32_t>(int32_t(i + 1));
    }
    b.bytes += std::string("\x00\xff", 2);
    return b.bytes;
}

const ParticleReadOptions kAttributes{.attributes = {"velocity", "density"}};

// Parses bytes in memory (no file): the truncation loops.
Result<ParticleSet> parseInMemory(const std::string& name, const std::string& bytes, ParticleFormat format) {
    ParticleReadOptions o = kAttributes;
    o.format = format;
    return parseParticles(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), name, o);
}

void expectCloud(const Result<ParticleSet>& r, const Cloud& c, bool withAttributes = true) {
    ASSERT_TRUE(r.ok()) << r.message();
    ASSERT_EQ(r->count(), c.count());
    for (size_t i = 0; i < c.xyz.size(); ++i) EXPECT_EQ(r->xyz[i], c.xyz[i]) << i;
    EXPECT_EQ(r->bounds.min[2], 0.f);
    EXPECT_EQ(r->bounds.max[2], 8.f);
    if (!withAttributes) return;
    ASSERT_EQ(r->attributes.size(), 2u);
    EXPECT_EQ(r->attributes[0].name, "velocity");
    EXPECT_EQ(r->attributes[0].components, 3u);
    EXPECT_EQ(r->attributes[0].values, c.velocity);
    const ParticleAttribute* d = r->attribute("density");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->components, 1u);
    EXPECT_EQ(d->values, c.density);
}

TEST_F(ParticleFiles, LegacyVtkAsciiAndBinaryVersions4And5) {
    const Cloud c;
    for (bool binary : {false, true})
        for (int version : {4, 5}) {
            SCOPED_TRACE(std::string(binary ? "binary" : "ascii") + " version " + std::to_string(version));
            const std::string name = std::string(binary ? "b" : "a") + std::to_string(version) + ".vtk";
            expectCloud(read(name, writeLegacyVtk(c, binary, version), kAttributes), c);
            // Without attributes asked for: positions only.
            expectCloud(read(name, writeLegacyVtk(c, binary, version)), c, false);
        }
}

TEST_F(ParticleFiles, VtuEveryEncoding) {
    const Cloud c;
    std::vector<VtuStyle> styles;
    styles.push_back({});
    for (const char* format : {"binary", "appended"})
        for (bool zlib : {false, true})
            for (bool header64 : {false, true}) {
                styles.push_back({.format = format, .zlib = zlib, .header64 = header64});
                if (std::string(format) == "appended")
                    styles.push_back({.format = format, .base64Appended = true, .zlib = zlib, .header64 = header64});
            }
    styles.push_back({.format = "appended", .zlib = true, .big = true});
    styles.push_back({.format = "binary", .big = true, .blockSize = 7});
    for (const VtuStyle& st : styles) {
        SCOPED_TRACE(st.format + (st.base64Appended ? " base64" : "") + (st.zlib ? " zlib" : "") +
                     (st.header64 ? " UInt64" : " UInt32") + (st.big ? " big-endian" : ""));
        auto all = read("p.vtu", writeVtu(c, st), {.allAttributes = true});
        ASSERT_TRUE(all.ok()) << all.message();
        ASSERT_EQ(all->attributes.size(), 3u);
        EXPECT_EQ(all->attributes[2].name, "id");
        EXPECT_EQ(all->attributes[2].values, (std::vector<float>{1, 2, 3, 4}));
        expectCloud(read("p.vtu", writeVtu(c, st), kAttributes), c);
    }
}

TEST_F(ParticleFiles, VtuPiecesAppendInOrder) {
    const std::string piece1 = "<Piece NumberOfPoints=\"1\"><PointData><DataArray type=\"Float32\" Name=\"rho\" "
                               "format=\"ascii\">7</DataArray></PointData><Points><DataArray type=\"Float32\" "
                               "NumberOfComponents=\"3\" format=\"ascii\">1 2 3</DataArray></Points></Piece>";
    const std::string piece2 = "<Piece NumberOfPoints=\"2\"><Points><DataArray type=\"Float64\" "
                               "NumberOfComponents=\"3\" format=\"ascii\">4 5 6 7 8 9</DataArray></Points><PointData>"
                               "<DataArray type=\"Int32\" Name=\"rho\" format=\"ascii\">-1 -2</DataArray></PointData>"
                               "</Piece>";
    auto r = read("two.vtp", "<VTKFile type=\"PolyData\"><PolyData>" + piece1 + piece2 + "</PolyData></VTKFile>",
                  {.attributes = {"rho"}});
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r->xyz, (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
    EXPECT_EQ(r->attributes[0].values, (std::vector<float>{7, -1, -2}));
    // A piece without the attribute: an error, not values out of step.
    const std::string piece3 = "<Piece NumberOfPoints=\"1\"><Points><DataArray type=\"Float32\" "
                               "NumberOfComponents=\"3\" format=\"ascii\">0 0 0</DataArray></Points></Piece>";
    expectError(read("gap.vtp", "<VTKFile type=\"PolyData\"><PolyData>" + piece3 + piece1 + "</PolyData></VTKFile>",
                     {.attributes = {"rho"}}),
                {"gap.vtp", "'rho'", "missing in an earlier piece"});
}

TEST_F(ParticleFiles, LegacyVtkEveryAttributeKind) {
    const std::string vtk = "# vtk DataFile Version 5.1\nkinds\nASCII\nDATASET POLYDATA\nPOINTS 2 double\n"
                            "0 0 0 1 1 1\nMETADATA\nINFORMATION 0\n\n"
                            "POINT_DATA 2\nSCALARS s float 2\n1 2 3 4\nNORMALS n float\n0 0 1 0 1 0\n"
                            "TEXTURE_COORDINATES uv 2 float\n0.5 0.5 1 1\nTENSORS t double\n"
                            "1 0 0 0 1 0 0 0 1 2 0 0 0 2 0 0 0 2\nLOOKUP_TABLE lut 2\n0 0 0 1 1 1 1 1\n"
                            "COLOR_SCALARS c 3\n0 0.5 1 1 0.5 0\nFIELD f 1\nids 1 2 unsigned_long\n10 11\n";
    auto r = read("kinds.vtk", vtk, {.allAttributes = true});
    ASSERT_TRUE(r.ok()) << r.message();
    ASSERT_EQ(r->count(), 2u);
    std::vector<std::pair<std::string, uint32_t>> got;
    for (const auto& a : r->attributes) got.emplace_back(a.name, a.components);
    EXPECT_EQ(got, (std::vector<std::pair<std::string, uint32_t>>{
                       {"s", 2}, {"n", 3}, {"uv", 2}, {"t", 9}, {"c", 3}, {"ids", 1}}));
    EXPECT_EQ(r->attribute("s")->values, (std::vector<float>{1, 2, 3, 4}));
    EXPECT_EQ(r->attribute("t")->values[9], 2.f);
    EXPECT_EQ(r->attribute("c")->values, (std::vector<float>{0, 0.5f, 1, 1, 0.5f, 0}));
    EXPECT_EQ(r->attribute("ids")->values, (std::vector<float>{10, 11}));
    expectError(read("early.vtk", "# vtk DataFile Version 3.0\nt\nASCII\nDATASET POLYDATA\nSCALARS s float\n"),
                {"early.vtk", "line 5", "before POINT_DATA or CELL_DATA"});
}

TEST_F(ParticleFiles, BgeoPlainAndGzip) {
    const Cloud c;
    const std::string bgeo = writeBgeo(c);
    expectCloud(read("p.bgeo", bgeo, kAttributes), c);
    expectCloud(read("p.bgeo.sz", gzipCompress(bgeo), kAttributes), c);
    expectCloud(read("p.bgeo.gz", gzipCompress(bgeo) + gzipCompress(""), kAttributes), c); // two gzip members
    auto id = read("p.bgeo", bgeo, {.attributes = {"id"}});
    ASSERT_TRUE(id.ok()) << id.message();
    EXPECT_EQ(id->attributes[0].values, (std::vector<float>{1, 2, 3, 4}));
}

TEST_F(ParticleFiles, FormatFromMagicWhenTheExtensionIsUnknown) {
    const Cloud c;
    expectCloud(read("p.dat", writeBgeo(c)), c, false);
    expectCloud(read("p.data", gzipCompress(writeBgeo(c))), c, false);
    expectCloud(read("p.txt", writeLegacyVtk(c, false, 4)), c, false);
    expectCloud(read("p.xml", writeVtu(c, {})), c, false);
    EXPECT_EQ(particleFormatFromBytes(encodeParticlesPly(c.xyz)), ParticleFormat::Ply);
    expectError(read("p.dat", "1 2 3\n"),
                {"p.dat", "unknown particle file extension '.dat'", ".vtk", ".bgeo", "first bytes match none"});
    auto e = read("p.dat", "1 2 3\n");
    EXPECT_EQ(e.code(), pyramarch::ErrorCode::ParseError);
}

TEST_F(ParticleFiles, SplashsurfDataFiles) {
    const fs::path data = PYRAMARCH_TEST_DATA "/splashsurf";
    auto vtk = readParticles((data / "cube_8_particles.vtk").string());
    auto vtu = readParticles((data / "cube_8_particles.vtu").string(), {.allAttributes = true});
    ASSERT_TRUE(vtk.ok()) << vtk.message();
    ASSERT_TRUE(vtu.ok()) << vtu.message();
    ASSERT_EQ(vtk->count(), 8u);
    ASSERT_EQ(vtu->count(), 8u);
    for (size_t i = 0; i < 24; ++i) EXPECT_NEAR(vtk->xyz[i], vtu->xyz[i], 1e-6) << i; // the same cube in both formats
    ASSERT_EQ(vtu->attributes.size(), 4u);
    EXPECT_EQ(vtu->attributes[0].name, "velocity");
    EXPECT_EQ(vtu->attributes[0].components, 3u);

    // Compressed appended and uncompressed base64 appended: the same particles.
    auto zlib = readParticles((data / "fluid_250_particles.vtu").string(), {.attributes = {"density"}});
    auto b64 = readParticles((data / "fluid_encoded_250_particles.vtu").string(), {.attributes = {"density"}});
    ASSERT_TRUE(zlib.ok()) << zlib.message();
    ASSERT_TRUE(b64.ok()) << b64.message();
    ASSERT_EQ(zlib->count(), 250u);
    EXPECT_EQ(zlib->xyz, b64->xyz);
    EXPECT_EQ(zlib->attributes[0].values, b64->attributes[0].values);
    const auto [lo, hi] = std::minmax_element(b64->attributes[0].values.begin(), b64->attributes[0].values.end());
    EXPECT_NEAR(*lo, 520.7889195, 1e-3); // the file's RangeMin / RangeMax
    EXPECT_NEAR(*hi, 1021.4625624, 1e-3);

    auto free = readParticles((data / "free_particles_125_particles.vtk").string());
    ASSERT_TRUE(free.ok()) << free.message();
    EXPECT_EQ(free->count(), 125u);
    auto bgeo = readParticles((data / "dam_break_frame_9_6859_particles.bgeo").string(), {.allAttributes = true});
    ASSERT_TRUE(bgeo.ok()) << bgeo.message();
    EXPECT_EQ(bgeo->count(), 6859u);
    EXPECT_EQ(bgeo->attributes.size(), 3u);
    EXPECT_FALSE(bgeo->bounds.empty());
}

TEST_F(ParticleFiles, MissingAttributeNamesTheOnesTheFileHas) {
    const Cloud c;
    auto r = read("p.bgeo", writeBgeo(c), {.attributes = {"pressure"}});
    expectError(r, {"p.bgeo", "no point attribute 'pressure'", "'velocity', 'density', 'id'"});
    EXPECT_EQ(r.code(), pyramarch::ErrorCode::NotFound);
    expectError(read("p.vtk", writeLegacyVtk(c, true, 4), {.attributes = {"cell_id"}}),
                {"no point attribute 'cell_id'", "'density', 'velocity'"});
    // PLY: the vertex element's scalar properties.
    auto ply = read("p.ply",
                    kAsciiHeader + "element vertex 2\nproperty float x\nproperty float y\nproperty float z\n"
                                   "property uchar red\nproperty double rho\nend_header\n1 2 3 255 1.5\n4 5 6 7 -2\n",
                    {.attributes = {"rho", "red"}});
    ASSERT_TRUE(ply.ok()) << ply.message();
    EXPECT_EQ(ply->attributes[0].values, (std::vector<float>{1.5f, -2.f}));
    EXPECT_EQ(ply->attributes[1].values, (std::vector<float>{255.f, 7.f}));
}

TEST_F(ParticleFiles, NonFiniteAndBoxedParticlesAreDroppedAndCounted) {
    Cloud c;
    c.xyz[4] = std::numeric_limits<float>::quiet_NaN(); // particle 1
    c.xyz[8] = std::numeric_limits<float>::infinity();  // particle 2
    for (const auto& [name, bytes] : {std::pair<std::string, std::string>{"p.bgeo", writeBgeo(c)},
                                      {"p.vtu", writeVtu(c, {.format = "appended", .zlib = true})},
                                      {"p.vtk", writeLegacyVtk(c, true, 4)}}) {
        SCOPED_TRACE(name);
        auto r = read(name, bytes, kAttributes);
        ASSERT_TRUE(r.ok()) << r.message();
        EXPECT_EQ(r->count(), 2u);
        EXPECT_EQ(r->dropped.nonFinite, 2u);
        EXPECT_EQ(r->xyz, (std::vector<float>{0, 0, 0, 1e-3f, -2, 4.5f}));
        // The attributes keep step with the positions.
        EXPECT_EQ(r->attribute("density")->values, (std::vector<float>{1000.f, 750.f}));
        EXPECT_EQ(r->attribute("velocity")->values, (std::vector<float>{1, 0, 0, 0.5f, 0.5f, -0.5f}));
        expectError(read(name, bytes, kStrict), {name, "point", "not finite"});
    }
    // A stray particle far away: the box keeps the others.
    Cloud far;
    far.xyz[4] = 1e38f;
    ParticleReadOptions boxed = kAttributes;
    boxed.box = ParticleBox{{-2.f, -3.f, -1.f}, {1.f, 2.f, 8.f}};
    auto r = read("far.bgeo", writeBgeo(far), boxed);
    ASSERT_TRUE(r.ok()) << r.message();
    EXPECT_EQ(r->count(), 3u);
    EXPECT_EQ(r->dropped.outsideBox, 1u);
    EXPECT_EQ(r->dropped.nonFinite, 0u);
    EXPECT_EQ(r->bounds.max[1], 0.25f);
    EXPECT_EQ(r->attribute("density")->values, (std::vector<float>{1000.f, 1001.25f, 750.f}));
    // cropParticles on a set already read.
    auto all = read("far.bgeo", writeBgeo(far), kAttributes);
    ASSERT_TRUE(all.ok());
    EXPECT_EQ(cropParticles(*all, *boxed.box), 1u);
    EXPECT_EQ(all->xyz, r->xyz);
    EXPECT_EQ(all->attributes[0].values, r->attributes[0].values);
    EXPECT_EQ(all->dropped.outsideBox, 1u);
}

TEST_F(ParticleFiles, MalformedVtk) {
    const Cloud c;
    const std::string good = writeLegacyVtk(c, true, 4);
    expectError(read("a.vtk", "# vtk DataFile Version 3.0\nt\nASCII\nDATASET STRUCTURED_POINTS\n"),
                {"a.vtk", "line 4", "STRUCTURED_POINTS is not a point set"});
    expectError(read("b.vtk", "# vtk DataFile Version 3.0\nt\nUTF16\n"), {"b.vtk", "expected ASCII or BINARY"});
    expectError(read("c.vtk", "not vtk\n"), {"c.vtk", "not a legacy VTK file"});
    expectError(read("d.vtk", "# vtk DataFile Version 3.0\nt\nASCII\nDATASET POLYDATA\nPOINTS 3 float\n1 2 3 4 5\n"),
                {"d.vtk", "line 5", "POINTS declares 9 values"});
    expectError(read("e.vtk", "# vtk DataFile Version 3.0\nt\nASCII\nDATASET POLYDATA\nPOINTS 1 float\n1 2 x\n"),
                {"e.vtk", "line 6", "'x' is not a number"});
    expectError(
        read("f.vtk", "# vtk DataFile Version 3.0\nt\nASCII\nDATASET POLYDATA\nPOINTS 1 float\n1 2 3\nBOGUS 3\n"),
        {"f.vtk", "line 7", "unknown keyword 'BOGUS'"});
    expectError(read("g.vtk", "# vtk DataFile Version 3.0\nt\nASCII\nDATASET POLYDATA\nPOINTS 1 string\n"),
                {"g.vtk", "'string' is not read"});
    expectError(
        read("h.vtk", "# vtk DataFile Version 3.0\nt\nASCII\nDATASET POLYDATA\nPOINTS 1 float\n1 2 3\nPOINT_DATA 2\n"),
        {"h.vtk", "POINT_DATA 2 for 1 points"});
    // Every truncation of the binary file: an error naming the file, never a crash.
    for (size_t cut = 0; cut + 1 < good.size(); ++cut) {
        auto r = parseInMemory("t.vtk", good.substr(0, cut), ParticleFormat::Vtk);
        if (!r.ok()) {
            EXPECT_NE(r.message().find("t.vtk"), std::string::npos) << r.message();
        }
    }
    // Hostile counts: refused before allocating.
    expectError(read("huge.vtk", "# vtk DataFile Version 3.0\nt\nBINARY\nDATASET POLYDATA\nPOINTS 4000000000 float\n",
                     {.maxParticles = std::numeric_limits<uint64_t>::max()}),
                {"huge.vtk", "byte offset", "truncated"});
    expectError(read("limit.vtk", "# vtk DataFile Version 3.0\nt\nBINARY\nDATASET POLYDATA\nPOINTS 4000000000 float\n"),
                {"limit.vtk", "4000000000 points", "maxParticles"});
    expectError(read("cells.vtk",
                     "# vtk DataFile Version 3.0\nt\nBINARY\nDATASET POLYDATA\nPOINTS 0 float\n\nVERTICES 1 "
                     "18446744073709551615\n"),
                {"cells.vtk", "VERTICES", "truncated"});
}

TEST_F(ParticleFiles, MalformedVtu) {
    const Cloud c;
    const std::string good = writeVtu(c, {.format = "appended", .zlib = true});
    expectError(read("a.vtu", "<?xml version=\"1.0\"?>\n<VTKFile type=\"ImageData\">\n"),
                {"a.vtu", "'ImageData' is not a point set"});
    expectError(read("b.vtu", "<VTKFile type=\"PolyData\" compressor=\"vtkLZ4DataCompressor\">"),
                {"b.vtu", "vtkLZ4DataCompressor", "is not read"});
    expectError(read("c.vtu", "<VTKFile type=\"PolyData\"><PolyData></PolyData></VTKFile>"), {"c.vtu", "no <Piece>"});
    expectError(read("d.vtu",
                     "<VTKFile type=\"PolyData\"><PolyData><Piece NumberOfPoints=\"2\"><Points><DataArray "
                     "type=\"Float32\" NumberOfComponents=\"3\" format=\"ascii\">1 2 3 4 5</DataArray></Points>"
                     "</Piece></PolyData></VTKFile>"),
                {"d.vtu", "DataArray", "6 values, the text has 9 bytes"});
    expectError(read("e.vtu",
                     "<VTKFile type=\"PolyData\"><PolyData><Piece NumberOfPoints=\"1\"><Points><DataArray "
                     "type=\"Float32\" NumberOfComponents=\"3\" format=\"binary\">AAAA!AAA</DataArray></Points>"
                     "</Piece></PolyData></VTKFile>"),
                {"e.vtu", "not base64"});
    expectError(read("f.vtu", "<VTKFile type=\"PolyData\" x=1>"), {"f.vtu", "no quoted value"});
    // A corrupt zlib block.
    std::string bad = good;
    bad[bad.size() - 40] ^= 0x55;
    auto r = read("g.vtu", bad, kAttributes);
    if (!r.ok()) {
        EXPECT_NE(r.message().find("g.vtu"), std::string::npos) << r.message();
    }
    // Every truncation: an error naming the file, never a crash.
    // (Cut after the appended data, only closing tags are lost: all particles read.)
    for (size_t cut = 0; cut + 1 < good.size(); ++cut) {
        auto t = parseInMemory("t.vtu", good.substr(0, cut), ParticleFormat::Vtu);
        if (t.ok()) {
            EXPECT_EQ(t->count(), c.count()) << cut;
        } else {
            EXPECT_NE(t.message().find("t.vtu"), std::string::npos) << t.message();
        }
    }
    // A block header claiming more than zlib can inflate from the data.
    Bin h;
    h.put<uint32_t>(1).put<uint32_t>(1u << 30).put<uint32_t>(89478485u * 12).put<uint32_t>(4);
    const std::string huge = "<VTKFile type=\"PolyData\" compressor=\"vtkZLibDataCompressor\"><PolyData><Piece "
                             "NumberOfPoints=\"89478485\"><Points><DataArray type=\"Float32\" NumberOfComponents=\"3\" "
                             "format=\"appended\" offset=\"0\"/></Points></Piece></PolyData><AppendedData "
                             "encoding=\"raw\">_" +
                             h.bytes + "abcd</AppendedData></VTKFile>";
    expectError(read("h.vtu", huge, {.maxParticles = std::numeric_limits<uint64_t>::max()}),
                {"h.vtu", "cannot inflate"});
}

TEST_F(ParticleFiles, MalformedBgeo) {
    const Cloud c;
    const std::string good = writeBgeo(c);
    expectError(read("a.bgeo", "Hgeo"), {"a.bgeo", "not a BGEO file"});
    expectError(read("b.bgeo", std::string("\x7fNSJ", 4) + "rest"), {"b.bgeo", "binary-JSON BGEO"});
    std::string v6 = good;
    v6[8] = 6;
    expectError(read("c.bgeo", v6), {"c.bgeo", "version 6", "only version 5"});
    std::string neg = good;
    neg[9] = char(0xff);
    expectError(read("d.bgeo", neg), {"d.bgeo", "points count", "negative"});
    for (size_t cut = 0; cut + 3 < good.size(); ++cut) {
        auto r = parseInMemory("t.bgeo", good.substr(0, cut), ParticleFormat::Bgeo);
        ASSERT_FALSE(r.ok()) << cut;
        EXPECT_NE(r.message().find("t.bgeo"), std::string::npos) << r.message();
    }
    const std::string gz = gzipCompress(good);
    expectError(read("e.bgeo.gz", gz.substr(0, gz.size() / 2)), {"e.bgeo.gz", "gzip", "truncated"});
    // A string attribute, and decompression past maxBytes.
    Bin s{.big = true};
    s.bytes = "BgeoV";
    s.put<int32_t>(5).put<int32_t>(1).put<int32_t>(0).put<int32_t>(0).put<int32_t>(0).put<int32_t>(1);
    s.put<int32_t>(0).put<int32_t>(0).put<int32_t>(0).put<uint16_t>(4);
    s.bytes += "name";
    s.put<uint16_t>(1).put<int32_t>(4);
    expectError(read("f.bgeo", s.bytes), {"f.bgeo", "'name'", "string attribute"});
    auto big = read("g.bgeo.gz", gzipCompress(good + std::string(1 << 16, '\0')), {.maxBytes = 4096});
    expectError(big, {"g.bgeo.gz", "maxBytes"});
    EXPECT_EQ(big.code(), pyramarch::ErrorCode::CapacityExceeded);
}

// ------------------------------------------------------------------ sequences

TEST_F(ParticleFiles, SequenceExpansionSortsNumerically) {
    for (const char* n : {"fluid_10.ply", "fluid_2.ply", "fluid_1.ply", "fluid_x.ply", "fluid_.ply", "fluid_3.ply.bak",
                          "other_4.ply", "fluid_5.xyz"})
        write(std::string("frames/") + n, "");
    fs::create_directories(dir_ / "frames" / "fluid_7.ply"); // a directory, not a frame
    const std::string pattern = (dir_ / "frames" / "fluid_{}.ply").string();
    EXPECT_TRUE(isSequencePattern(pattern));
    auto r = expandSequence(pattern);
    ASSERT_TRUE(r.ok()) << r.message();
    ASSERT_EQ(r->size(), 3u);
    const uint64_t want[] = {1, 2, 10};
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_EQ((*r)[i].index, want[i]);
        EXPECT_EQ((*r)[i].indexText, std::to_string(want[i]));
        EXPECT_EQ((*r)[i].path, (dir_ / "frames" / ("fluid_" + std::to_string(want[i]) + ".ply")).string());
        EXPECT_TRUE(fs::exists((*r)[i].path));
    }
}

TEST_F(ParticleFiles, SequenceZeroPaddedAndOutputNames) {
    for (const char* n : {"f0009.xyz", "f0010.xyz", "f0100.xyz", "f0000.xyz"}) write(n, "");
    const std::string pattern = (dir_ / "f{}.xyz").string();
    auto r = expandSequence(pattern);
    ASSERT_TRUE(r.ok()) << r.message();
    ASSERT_EQ(r->size(), 4u);
    EXPECT_EQ((*r)[0].index, 0u);
    EXPECT_EQ((*r)[1].indexText, "0009");
    EXPECT_EQ((*r)[3].index, 100u);
    EXPECT_EQ((*r)[3].path, (dir_ / "f0100.xyz").string());
    EXPECT_EQ(sequencePath("meshes/fluid_{}.ply", (*r)[1].indexText), "meshes/fluid_0009.ply");
    EXPECT_EQ(sequencePath("plain.ply", "7"), "plain.ply");
    EXPECT_FALSE(isSequencePattern("plain.ply"));

    // A relative pattern without a directory lists the working directory.
    const auto cwd = fs::current_path();
    fs::current_path(dir_);
    auto rel = expandSequence("f{}.xyz");
    fs::current_path(cwd);
    ASSERT_TRUE(rel.ok()) << rel.message();
    EXPECT_EQ((*rel)[0].path, "f0000.xyz");
}

TEST_F(ParticleFiles, SequenceErrors) {
    auto expectSeqError = [](const Result<std::vector<SequenceFrame>>& r, std::initializer_list<std::string> pieces) {
        ASSERT_FALSE(r.ok());
        for (const auto& p : pieces)
            EXPECT_NE(r.message().find(p), std::string::npos) << "'" << p << "' not in: " << r.message();
    };
    write("a_1.ply", "");
    write("a_01.ply", "");
    write("b_99999999999999999999999.ply", "");
    const std::string d = dir_.string();
    expectSeqError(expandSequence(d + "/a_1.ply"), {"a_1.ply", "no '{}'"});
    expectSeqError(expandSequence(d + "/a_{}_{}.ply"), {"more than one '{}'"});
    expectSeqError(expandSequence(d + "/{}/a.ply"), {"file name, not the directory"});
    expectSeqError(expandSequence(d + "/missing/a_{}.ply"), {"missing/a_{}.ply", "cannot list directory"});
    expectSeqError(expandSequence(d + "/c_{}.ply"), {"c_{}.ply", "no file", "'c_<digits>.ply'"});
    expectSeqError(expandSequence(d + "/a_{}.ply"), {"a_01.ply", "a_1.ply", "same index 1"});
    expectSeqError(expandSequence(d + "/b_{}.ply"), {"b_99999999999999999999999.ply", "64 bits"});
}

// ------------------------------------------------------------------ grid

TEST(ParticleGridTest, SpacingIsTheVoxelSizeAndPaddingCovers) {
    ParticleBounds b;
    b.add(0.f, 0.f, 0.f);
    b.add(1.f, 2.f, 3.f);
    for (bool align : {false, true}) {
        SCOPED_TRACE(align ? "aligned" : "not aligned");
        auto g = particleGrid(b, 0.1f, 0.25f, {.alignToVoxel = align});
        ASSERT_TRUE(g.ok()) << g.message();
        EXPECT_EQ(g->voxelSize, 0.1f);
        for (int k = 0; k < 3; ++k) {
            const double lo = g->boundsMin[size_t(k)], hi = g->boundsMax[size_t(k)];
            const uint32_t n = g->samples[size_t(k)];
            EXPECT_LE(lo, double(b.min[size_t(k)]) - 0.25);
            EXPECT_GE(hi, double(b.max[size_t(k)]) + 0.25);
            // Spacing as the GPU computes it: (max - min) / (N - 1).
            EXPECT_NEAR((hi - lo) / (n - 1), 0.1, 1e-6);
            // No more than one extra cell beyond what the padding needs.
            EXPECT_LT(hi - lo, (b.max[size_t(k)] - b.min[size_t(k)]) + 0.5 + 2 * 0.1 + 1e-6);
            if (align) {
                const double steps = lo / 0.1f;
                EXPECT_NEAR(steps, std::round(steps), 1e-4) << "first sample not on the voxel lattice";
            } else {
                EXPECT_EQ(g->boundsMin[size_t(k)], b.min[size_t(k)] - 0.25f);
            }
        }
        EXPECT_EQ(g->totalSamples, uint64_t(g->samples[0]) * g->samples[1] * g->samples[2]);
    }
    // Not aligned, exact numbers: x spans 1.5 = 15 cells, y 25, z 35.
    auto g = particleGrid(b, 0.1f, 0.25f, {.alignToVoxel = false});
    EXPECT_EQ(g->samples, (std::array<uint32_t, 3>{16, 26, 36}));
    // Aligned: the origin snaps down to -0.3 (x), so one more sample at most.
    auto a = particleGrid(b, 0.1f, 0.25f);
    EXPECT_NEAR(a->boundsMin[0], -0.3f, 1e-6);
    // A single particle without padding still gets 2 samples per axis.
    ParticleBounds one;
    one.add(5.f, 5.f, 5.f);
    auto s = particleGrid(one, 1.f, 0.f, {.alignToVoxel = false});
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(s->samples, (std::array<uint32_t, 3>{2, 2, 2}));
    EXPECT_EQ(s->boundsMin[0], 5.f);
    EXPECT_EQ(s->boundsMax[0], 6.f);
    // Bounds from xyz.
    const std::vector<float> xyz = {1, 2, 3, -1, 5, 0, 2, 2, 2};
    const ParticleBounds pb = particleBounds(xyz);
    EXPECT_EQ(pb.min, (std::array<float, 3>{-1, 2, 0}));
    EXPECT_EQ(pb.max, (std::array<float, 3>{2, 5, 3}));
}

TEST(ParticleGridTest, CoversBoundsThatDoNotRoundToFloats) {
    // The grid rounds outwards: min - padding and max + padding are inside it.
    ParticleBounds odd;
    odd.add(0.1f, -1000.3f, 12345.678f);
    odd.add(0.7f, -999.9f, 12399.1f);
    for (bool align : {false, true}) {
        auto g = particleGrid(odd, 0.013f, 0.0371f, {.alignToVoxel = align});
        ASSERT_TRUE(g.ok()) << g.message();
        for (int k = 0; k < 3; ++k) {
            EXPECT_LE(double(g->boundsMin[size_t(k)]), double(odd.min[size_t(k)]) - double(0.0371f));
            EXPECT_GE(double(g->boundsMax[size_t(k)]), double(odd.max[size_t(k)]) + double(0.0371f));
            const double spacing =
                (double(g->boundsMax[size_t(k)]) - g->boundsMin[size_t(k)]) / (g->samples[size_t(k)] - 1);
            EXPECT_NEAR(spacing, 0.013, 0.013 * 1e-4);
        }
    }
}

TEST(ParticleGridTest, Errors) {
    auto expectGridError = [](const Result<ParticleGrid>& r, const std::string& piece) {
        ASSERT_FALSE(r.ok()) << piece;
        EXPECT_NE(r.message().find(piece), std::string::npos) << r.message();
    };
    ParticleBounds b;
    expectGridError(particleGrid(b, 1.f, 0.f), "empty (no particles)");
    b.add(0.f, 0.f, 0.f);
    b.add(1.f, 1.f, 1.f);
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    expectGridError(particleGrid(b, 0.f, 0.f), "voxel size 0 must be finite and > 0");
    expectGridError(particleGrid(b, -1.f, 0.f), "voxel size -1");
    expectGridError(particleGrid(b, nan, 0.f), "voxel size nan");
    expectGridError(particleGrid(b, inf, 0.f), "voxel size inf");
    expectGridError(particleGrid(b, 1.f, -0.5f), "padding -0.5 must be finite and >= 0");
    expectGridError(particleGrid(b, 1.f, nan), "padding nan");
    ParticleBounds bad = b;
    bad.max[1] = nan;
    expectGridError(particleGrid(bad, 1.f, 0.f), "not finite");
    ParticleBounds inverted;
    inverted.min = {1, 1, 1};
    inverted.max = {0, 2, 2};
    expectGridError(particleGrid(inverted, 1.f, 0.f), "exceeds max");
    // Per axis past 2^32 samples.
    ParticleBounds wide;
    wide.add(0.f, 0.f, 0.f);
    wide.add(1e6f, 1.f, 1.f);
    expectGridError(particleGrid(wide, 1e-4f, 0.f), "x extent");
    // In total past 2^32 (2001^3), whatever maxSamples says.
    ParticleBounds cube;
    cube.add(0.f, 0.f, 0.f);
    cube.add(2000.f, 2000.f, 2000.f);
    expectGridError(particleGrid(cube, 1.f, 0.f, {.maxSamples = std::numeric_limits<uint64_t>::max()}),
                    "exceed 2^32 - 1 samples");
    // The caller's limit: 11^3 = 1331 > 1000.
    ParticleBounds ten;
    ten.add(0.f, 0.f, 0.f);
    ten.add(10.f, 10.f, 10.f);
    expectGridError(particleGrid(ten, 1.f, 0.f, {.alignToVoxel = false, .maxSamples = 1000}), "1331 samples");
    expectGridError(particleGrid(ten, 1.f, 0.f, {.alignToVoxel = false, .maxSamples = 1000}), "maxSamples");
    EXPECT_TRUE(particleGrid(ten, 1.f, 0.f, {.alignToVoxel = false, .maxSamples = 1331}).ok());
    // Padding that leaves float range.
    ParticleBounds far;
    far.add(-3e38f, 0.f, 0.f);
    far.add(3e38f, 1.f, 1.f);
    expectGridError(particleGrid(far, 1e30f, 3e38f), "leave float range");
}

// ------------------------------------------------------------------ conventions

TEST(ParticleConventions, RestDensityIsTheFieldAtALatticeParticle) {
    EXPECT_EQ(kernelSupportRadius(0.05f, 2.f), 0.2f);
    EXPECT_EQ(kernelSupportRadius(0.05f), 0.2f);
    // L = 2: 1 + 6 (3/4)^3 + 12 (1/2)^3 + 8 (1/4)^3.
    EXPECT_DOUBLE_EQ(particleRestDensity(2.f).value(), 5.15625);
    EXPECT_DOUBLE_EQ(particleRestDensity(2.f, 3.f).value(), 3 * 5.15625);
    EXPECT_DOUBLE_EQ(particleRestDensity(1.f).value(), 1.0);
    EXPECT_DOUBLE_EQ(particleRestDensity(0.5f).value(), 1.0);
    // A lattice of spacing 2r around a particle at the origin: the field
    // there, evaluated as the GPU does, is the rest density (r cancels).
    for (float r : {0.05f, 0.5f, 3.f})
        for (float L : {1.5f, 2.f, 2.5f, 3.f}) {
            SCOPED_TRACE("r " + std::to_string(r) + " L " + std::to_string(L));
            const int n = int(std::ceil(L)) + 1;
            std::vector<float> lattice;
            for (int z = -n; z <= n; ++z)
                for (int y = -n; y <= n; ++y)
                    for (int x = -n; x <= n; ++x)
                        lattice.insert(lattice.end(), {2 * r * float(x), 2 * r * float(y), 2 * r * float(z)});
            const float h = kernelSupportRadius(r, L);
            const double field = particleFieldAt({0.f, 0.f, 0.f}, lattice, h);
            const double rest = particleRestDensity(L).value();
            // Each term is truncated to 1/65536 (and rounded in float).
            const double terms = double(lattice.size() / 3);
            EXPECT_NEAR(field, rest, terms / 65536.0 + 1e-5 * rest);
            EXPECT_LE(field, rest + 1e-5 * rest);
        }
    // The iso value: T times the rest density.
    EXPECT_FLOAT_EQ(particleIsoValue(0.6f).value(), float(0.6 * 5.15625));
    EXPECT_FLOAT_EQ(particleIsoValue(0.6f, 2.f).value(), 0.6f * float(particleRestDensity(2.f).value()));
    EXPECT_FLOAT_EQ(particleIsoValue(0.5f, 3.f, 2.f).value(), float(0.5 * particleRestDensity(3.f, 2.f).value()));
    EXPECT_FLOAT_EQ(particleIsoValue().value(), float(kDefaultSurfaceThreshold * 5.15625));
}

TEST(ParticleConventions, Errors) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (float L : {0.f, -1.f, nan, 1000.f}) {
        auto r = particleRestDensity(L);
        ASSERT_FALSE(r.ok());
        EXPECT_NE(r.message().find("smoothing length"), std::string::npos) << r.message();
    }
    EXPECT_NE(particleRestDensity(2.f, -1.f).message().find("weight -1"), std::string::npos);
    EXPECT_NE(particleRestDensity(2.f, nan).message().find("weight nan"), std::string::npos);
    EXPECT_TRUE(particleRestDensity(kMaxSmoothingLength).ok());
    for (float t : {0.f, -0.5f, nan}) {
        auto r = particleIsoValue(t);
        ASSERT_FALSE(r.ok());
        EXPECT_NE(r.message().find("surface threshold"), std::string::npos) << r.message();
    }
    EXPECT_NE(particleIsoValue(0.6f, 0.f).message().find("smoothing length"), std::string::npos);
}

TEST(ParticleConventions, FieldAtMatchesTheKernel) {
    // One particle: w (1 - d^2/h^2)^3 truncated to 1/65536; 0 at and past h.
    const std::vector<float> one = {1.f, 2.f, 3.f};
    EXPECT_DOUBLE_EQ(particleFieldAt({1.f, 2.f, 3.f}, one, 0.5f), 1.0);
    EXPECT_DOUBLE_EQ(particleFieldAt({1.f, 2.f, 3.f}, one, 0.5f, 2.f), 2.0);
    EXPECT_NEAR(particleFieldAt({1.25f, 2.f, 3.f}, one, 0.5f), 0.421875, 1.0 / 65536);
    EXPECT_EQ(particleFieldAt({1.5f, 2.f, 3.f}, one, 0.5f), 0.0);
    EXPECT_EQ(particleFieldAt({9.f, 2.f, 3.f}, one, 0.5f), 0.0);
}

} // namespace
