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
    expectError(read("nan.ply", h + "0 0 0\n1 nan 2\n0 0 0\n3 0 1 2\n"),
                {"nan.ply", "line 11 (element 'vertex' record 1)", "y 'nan' is not finite"});
    expectError(read("inf.ply", h + "0 0 0\n1 1 2\n-inf 0 0\n3 0 1 2\n"),
                {"inf.ply", "line 12", "record 2", "x '-inf'"});
    expectError(read("big.ply", h + "0 0 0\n1 1 2\n0 0 1e39\n3 0 1 2\n"),
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
    expectError(read("dbl.ply", kAsciiHeader +
                                    "element vertex 1\nproperty double x\nproperty double y\nproperty double z\n"
                                    "end_header\n1e300 0 0\n"),
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
    expectError(read("nan.ply", h + n.bytes),
                {"nan.ply", "element 'vertex' record 1 (byte offset " + std::to_string(dataStart + 12) + ")",
                 "y = nan is not finite"});
    Bin dd{.big = true};
    dd.put(1.0).put(2.0).put(1e300);
    expectError(read("dbl.ply",
                     binaryHeader(true, "element vertex 1\nproperty double x\nproperty double y\nproperty double z\n") +
                         dd.bytes),
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
    expectError(read("nan.xyz", "1 2 3\n# c\n4 NaN 6\n"), {"nan.xyz", "line 3", "y 'NaN' is not finite"});
    expectError(read("inf.xyz", "inf 2 3\n"), {"inf.xyz", "line 1", "x 'inf'"});
    expectError(read("word.xyz", "1 2 3x\n"), {"word.xyz", "line 1", "z '3x' is not a number"});
    expectError(read("comma.xyz", "1,2,3\n"), {"comma.xyz", "line 1", "1 value,"});
    expectError(read("odd.f32", std::string(13, '\0')),
                {"odd.f32", "not a multiple of 12", "1 trailing bytes at byte offset 12"});
    Bin d;
    d.put(1.f).put(2.f).put(3.f).put(4.f).put(std::numeric_limits<float>::infinity()).put(6.f);
    expectError(read("inf.f32", d.bytes), {"inf.f32", "particle 1 (byte offset 12)", "y = inf is not finite"});
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
