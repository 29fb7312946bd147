// Mesh files of the tool and samples (samples/common/src/mesh_files.cpp):
// PLY ascii and binary (both byte orders, any element order, triangle
// strips), glTF 2.0 JSON and binary (sparse accessors, extensions that
// change the geometry refused), format
// detection, and errors that name the file and the fault.
#include <gtest/gtest.h>

#include <unistd.h>

#include <array>
#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sample/mesh_files.h"

using namespace pyramarch;
using namespace pyramarch::voxel;

namespace {

std::string tempPath(const std::string& name) {
    return (std::filesystem::temp_directory_path() /
            ("pyramarch-mesh-files-" + std::to_string(::getpid()) + "-" + name))
        .string();
}

std::string writeFile(const std::string& name, const std::string& bytes) {
    const std::string path = tempPath(name);
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
}

template <class T>
void put(std::string& s, T v, bool bigEndian) {
    unsigned char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    if (bigEndian == (std::endian::native == std::endian::little))
        for (size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(b[i], b[sizeof(T) - 1 - i]);
    s.append(reinterpret_cast<const char*>(b), sizeof(T));
}

// A unit square as a quad (split into two triangles) plus a triangle, with
// colours, normals, a double coordinate and an element the loader skips.
std::string binaryPly(bool bigEndian) {
    std::string s = std::string("ply\nformat ") + (bigEndian ? "binary_big_endian" : "binary_little_endian") +
                    " 1.0\ncomment test\nelement vertex 5\nproperty float x\nproperty float y\nproperty double z\n"
                    "property float nx\nproperty float ny\nproperty float nz\n"
                    "property uchar red\nproperty uchar green\nproperty uchar blue\n"
                    "element face 2\nproperty list uchar int vertex_indices\n"
                    "element edge 1\nproperty int vertex1\nproperty list uchar uint extra\nend_header\n";
    const float p[5][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 2}};
    for (int i = 0; i < 5; ++i) {
        put<float>(s, p[i][0], bigEndian);
        put<float>(s, p[i][1], bigEndian);
        put<double>(s, p[i][2], bigEndian);
        put<float>(s, 0.f, bigEndian);
        put<float>(s, 0.f, bigEndian);
        put<float>(s, 1.f, bigEndian);
        s.push_back(char(10 * i));
        s.push_back(char(20));
        s.push_back(char(255));
    }
    s.push_back(4);
    for (int i : {0, 1, 2, 3}) put<int32_t>(s, i, bigEndian);
    s.push_back(3);
    for (int i : {0, 1, 4}) put<int32_t>(s, i, bigEndian);
    put<int32_t>(s, 7, bigEndian);
    s.push_back(1);
    put<uint32_t>(s, 9, bigEndian);
    return s;
}

void expectSquarePlusTriangle(const TriangleMesh& m) {
    ASSERT_EQ(m.positions.size(), 5u);
    ASSERT_EQ(m.indices.size(), 9u);
    EXPECT_EQ(m.indices, (std::vector<uint32_t>{0, 1, 2, 0, 2, 3, 0, 1, 4}));
    EXPECT_EQ(m.positions[4][2], 2.f);
    ASSERT_EQ(m.colors.size(), 5u);
    EXPECT_EQ(m.colors[2], packRGBA8(20, 20, 255));
    ASSERT_EQ(m.normals.size(), 5u);
    EXPECT_EQ(m.normals[1][2], 1.f);
}

std::string base64(const std::string& in) {
    static const char* t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    size_t i = 0;
    for (; i + 2 < in.size(); i += 3) {
        const uint32_t v = uint32_t(uint8_t(in[i])) << 16 | uint32_t(uint8_t(in[i + 1])) << 8 | uint8_t(in[i + 2]);
        for (int k = 3; k >= 0; --k) out.push_back(t[(v >> (6 * k)) & 63]);
    }
    if (i + 1 == in.size()) {
        const uint32_t v = uint32_t(uint8_t(in[i])) << 16;
        out += {t[(v >> 18) & 63], t[(v >> 12) & 63], '=', '='};
    } else if (i + 2 == in.size()) {
        const uint32_t v = uint32_t(uint8_t(in[i])) << 16 | uint32_t(uint8_t(in[i + 1])) << 8;
        out += {t[(v >> 18) & 63], t[(v >> 12) & 63], t[(v >> 6) & 63], '='};
    }
    return out;
}

// One triangle (positions + ushort indices) in a buffer; a node translates
// it by (10, 0, 0) and its child scales by 2.
std::string gltfBuffer() {
    std::string b;
    const float p[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    for (float f : p) put<float>(b, f, false);
    for (uint16_t i : {uint16_t(0), uint16_t(1), uint16_t(2)}) put<uint16_t>(b, i, false);
    b.append(2, '\0'); // pad to 4
    return b;
}

std::string gltfJson(const std::string& uri, size_t bytes, int badIndexAccessor = -1) {
    return R"({"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],
"nodes":[{"translation":[10,0,0],"children":[1]},{"scale":[2,2,2],"mesh":0}],
"meshes":[{"primitives":[{"attributes":{"POSITION":0},"indices":)" +
           std::to_string(badIndexAccessor >= 0 ? badIndexAccessor : 1) + R"(}]}],
"accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]},
{"bufferView":1,"componentType":5123,"count":3,"type":"SCALAR"}],
"bufferViews":[{"buffer":0,"byteOffset":0,"byteLength":36},{"buffer":0,"byteOffset":36,"byteLength":6}],
"buffers":[{)" +
           (uri.empty() ? std::string() : "\"uri\":\"" + uri + "\",") + R"("byteLength":)" + std::to_string(bytes) +
           "}]}";
}

void expectGltfTriangle(const TriangleMesh& m) {
    ASSERT_EQ(m.positions.size(), 3u);
    ASSERT_EQ(m.indices, (std::vector<uint32_t>{0, 1, 2}));
    EXPECT_EQ(m.positions[0], (std::array<float, 3>{10, 0, 0}));
    EXPECT_EQ(m.positions[1], (std::array<float, 3>{12, 0, 0}));
    EXPECT_EQ(m.positions[2], (std::array<float, 3>{10, 2, 0}));
    EXPECT_TRUE(m.colors.empty());
}

} // namespace

TEST(MeshFilesTest, AsciiPly) {
    const std::string ply = "ply\r\nformat ascii 1.0\r\nelement vertex 4\r\nproperty float x\r\nproperty float y\r\n"
                            "property float z\r\nproperty float red\r\nproperty float green\r\nproperty float blue\r\n"
                            "element face 1\r\nproperty list uchar uint vertex_index\r\nend_header\r\n"
                            "0 0 0 1 0 0\n1 0 0 1 0 0\n1 1 0 0 0.5 1\n0 1 0 0 0 0\n4 0 1 2 3\n";
    const std::string path = writeFile("ascii.ply", ply);
    auto m = sample::loadMeshFile(path);
    ASSERT_TRUE(m.ok()) << m.message();
    EXPECT_EQ(m->indices, (std::vector<uint32_t>{0, 1, 2, 0, 2, 3}));
    ASSERT_EQ(m->colors.size(), 4u);
    EXPECT_EQ(m->colors[2], packRGBA8(0, 128, 255));
    std::filesystem::remove(path);
}

TEST(MeshFilesTest, BinaryPlyBothByteOrders) {
    for (bool be : {false, true}) {
        SCOPED_TRACE(be ? "big endian" : "little endian");
        // No extension: the "ply" magic decides.
        const std::string path = writeFile(be ? "be.mesh" : "le.mesh", binaryPly(be));
        auto m = sample::loadMeshFile(path);
        ASSERT_TRUE(m.ok()) << m.message();
        expectSquarePlusTriangle(*m);
        std::filesystem::remove(path);
    }
}

TEST(MeshFilesTest, PlyErrorsNameTheFileAndTheFault) {
    struct Case {
        std::string bytes, expect;
    };
    const std::string head = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n";
    const std::vector<Case> cases = {
        {"plx\n", "does not start with the line 'ply'"},
        {"ply\nformat ascii 1.0\nelement vertex 3\n", "no 'end_header'"},
        {"ply\nformat ebcdic 1.0\nend_header\n", "unknown format"},
        {head + "property float z\nend_header\n0 0 0\n1 0 0\n", "declares 3 entries"},
        {head + "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n"
                "0 0 0\n1 0 0\n0 1 0\n3 0 1 7\n",
         "uses vertex 7"},
        {head + "end_header\n0 0\n1 0\n0 1\n", "lacks one of the properties x, y, z"},
        {head + "property float z\nend_header\n0 0 0\n1 0 0\n0 1 zz\n", "not a number"},
        {head + "property float z\nend_header\n0 0 0\n1 0 0\n0 1 0\n", "no triangles"},
        {"ply\nformat binary_little_endian 1.0\nelement vertex 1000000000\nproperty float x\nend_header\n",
         "declares 1000000000 entries"},
    };
    for (const Case& c : cases) {
        auto m = sample::parsePly(c.bytes, "bad.ply");
        ASSERT_FALSE(m.ok()) << c.expect;
        EXPECT_EQ(m.status().code(), ErrorCode::ParseError);
        EXPECT_NE(m.message().find("PLY 'bad.ply'"), std::string::npos) << m.message();
        EXPECT_NE(m.message().find(c.expect), std::string::npos) << m.message();
    }
}

// An element with no properties holds no data: any count is read at once,
// not looped over (a fuzzer found 10^13 of them hanging the reader).
TEST(MeshFilesTest, PlyElementWithoutPropertiesIsSkipped) {
    const std::string ply = "ply\nformat ascii 1.0\nelement comment_block 9000000000000\n"
                            "element vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
                            "element face 1\nproperty list uchar int vertex_indices\nend_header\n"
                            "0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n";
    auto m = sample::parsePly(ply, "empty-element.ply");
    ASSERT_TRUE(m.ok()) << m.message();
    EXPECT_EQ(m->indices, (std::vector<uint32_t>{0, 1, 2}));
    // A face element without its index list is still an error, not skipped.
    auto noList = sample::parsePly("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
                                   "property float z\nelement face 5\nend_header\n0 0 0\n1 0 0\n0 1 0\n",
                                   "bad.ply");
    ASSERT_FALSE(noList.ok());
    EXPECT_NE(noList.message().find("no list property vertex_indices"), std::string::npos) << noList.message();
}

// Any element order is valid PLY: faces before the vertices they use, with
// other properties around the index list, read the same as in the usual order.
TEST(MeshFilesTest, PlyFacesBeforeVertices) {
    for (bool binary : {false, true}) {
        SCOPED_TRACE(binary ? "binary" : "ascii");
        std::string ply = std::string("ply\nformat ") + (binary ? "binary_little_endian" : "ascii") +
                          " 1.0\nelement face 2\nproperty uchar flags\nproperty list uchar int vertex_indices\n"
                          "property float quality\nelement vertex 4\nproperty float x\nproperty float y\n"
                          "property float z\nend_header\n";
        const int faces[2][3] = {{0, 1, 2}, {0, 2, 3}};
        const float verts[4][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 5}};
        for (const auto& f : faces) {
            if (binary) {
                ply.push_back(char(9));
                ply.push_back(char(3));
                for (int i : f) put<int32_t>(ply, i, false);
                put<float>(ply, 0.5f, false);
            } else {
                ply +=
                    "9 3 " + std::to_string(f[0]) + " " + std::to_string(f[1]) + " " + std::to_string(f[2]) + " 0.5\n";
            }
        }
        for (const auto& v : verts) {
            if (binary)
                for (float c : v) put<float>(ply, c, false);
            else
                ply += std::to_string(v[0]) + " " + std::to_string(v[1]) + " " + std::to_string(v[2]) + "\n";
        }
        auto m = sample::parsePly(ply, "faces-first.ply");
        ASSERT_TRUE(m.ok()) << m.message();
        EXPECT_EQ(m->indices, (std::vector<uint32_t>{0, 1, 2, 0, 2, 3}));
        ASSERT_EQ(m->positions.size(), 4u);
        EXPECT_EQ(m->positions[3], (std::array<float, 3>{0, 1, 5}));
    }
    // The declared vertex count bounds the indices even before the vertices are read.
    auto bad = sample::parsePly("ply\nformat ascii 1.0\nelement face 1\nproperty list uchar int vertex_indices\n"
                                "element vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
                                "end_header\n3 0 1 3\n0 0 0\n1 0 0\n0 1 0\n",
                                "faces-first.ply");
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.message().find("face 0 uses vertex 3 but the file has 3 vertices"), std::string::npos)
        << bad.message();
}

// Triangle strips: every other triangle flipped to keep the strip's winding,
// -1 restarting a strip (and its parity), zero-area joins left out.
TEST(MeshFilesTest, PlyTriangleStrips) {
    const std::string ply = "ply\nformat ascii 1.0\nelement vertex 7\nproperty float x\nproperty float y\n"
                            "property float z\nelement tristrips 1\nproperty list int int vertex_indices\n"
                            "end_header\n0 0 0\n1 0 0\n0 1 0\n1 1 0\n0 0 1\n1 0 1\n0 1 1\n"
                            "11 0 1 2 3 3 -1 4 5 6 6 6\n";
    auto m = sample::parsePly(ply, "strips.ply");
    ASSERT_TRUE(m.ok()) << m.message();
    // Strip 0 1 2 3 3: (0 1 2), (2 1 3); (2 3 3) and (3 3 ...) have a repeated corner.
    // After the restart: (4 5 6); the rest repeat a corner.
    EXPECT_EQ(m->indices, (std::vector<uint32_t>{0, 1, 2, 2, 1, 3, 4, 5, 6}));
    auto bad = sample::parsePly("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
                                "property float z\nelement tristrips 1\nproperty list int int vertex_indices\n"
                                "end_header\n0 0 0\n1 0 0\n0 1 0\n4 0 1 2 -2\n",
                                "strips.ply");
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.message().find("tristrips 0 uses vertex -2"), std::string::npos) << bad.message();
}

TEST(MeshFilesTest, GltfJsonWithDataUriAndExternalBuffer) {
    const std::string buf = gltfBuffer();
    auto inl = sample::parseGltf(gltfJson("data:application/octet-stream;base64," + base64(buf), buf.size()),
                                 "inline.gltf", false);
    ASSERT_TRUE(inl.ok()) << inl.message();
    expectGltfTriangle(*inl);
    // A .gltf next to its .bin, through loadMeshFile.
    const std::string bin = writeFile("tri.bin", buf);
    const std::string path =
        writeFile("tri.gltf", gltfJson(std::filesystem::path(bin).filename().string(), buf.size()));
    auto ext = sample::loadMeshFile(path);
    ASSERT_TRUE(ext.ok()) << ext.message();
    expectGltfTriangle(*ext);
    std::filesystem::remove(bin);
    std::filesystem::remove(path);
}

TEST(MeshFilesTest, GltfBinary) {
    std::string json = gltfJson("", gltfBuffer().size());
    while (json.size() % 4) json.push_back(' ');
    const std::string buf = gltfBuffer();
    std::string glb = "glTF";
    put<uint32_t>(glb, 2, false);
    put<uint32_t>(glb, uint32_t(12 + 8 + json.size() + 8 + buf.size()), false);
    put<uint32_t>(glb, uint32_t(json.size()), false);
    glb += "JSON" + json;
    put<uint32_t>(glb, uint32_t(buf.size()), false);
    glb += std::string("BIN") + '\0' + buf;
    const std::string path = writeFile("tri.glb", glb);
    auto m = sample::loadMeshFile(path);
    ASSERT_TRUE(m.ok()) << m.message();
    expectGltfTriangle(*m);
    std::filesystem::remove(path);
}

TEST(MeshFilesTest, GltfErrors) {
    const std::string buf = gltfBuffer();
    const std::string uri = "data:application/octet-stream;base64," + base64(buf);
    auto badAccessor = sample::parseGltf(gltfJson(uri, buf.size(), 5), "bad.gltf", false);
    ASSERT_FALSE(badAccessor.ok());
    EXPECT_NE(badAccessor.message().find("glTF 'bad.gltf'"), std::string::npos) << badAccessor.message();
    EXPECT_NE(badAccessor.message().find("out of bounds"), std::string::npos) << badAccessor.message();
    auto notJson = sample::parseGltf("{ nope", "bad.gltf", false);
    ASSERT_FALSE(notJson.ok());
    EXPECT_NE(notJson.message().find("glTF 'bad.gltf'"), std::string::npos);
    auto shortGlb = sample::parseGltf("glTF\x02", "bad.glb", true);
    ASSERT_FALSE(shortGlb.ok());
    EXPECT_NE(shortGlb.message().find("glTF binary 'bad.glb'"), std::string::npos);
}

// Geometry this reader cannot decode is refused, not read as zeros: a
// required extension it does not support, and a compressed primitive whose
// positions have no buffer view (a one-voxel mesh at the origin before).
TEST(MeshFilesTest, GltfExtensionsThatChangeTheGeometry) {
    const std::string buf = gltfBuffer();
    const std::string uri = "data:application/octet-stream;base64," + base64(buf);
    const std::string plain = gltfJson(uri, buf.size());
    auto withRequired = [&](const std::string& ext) {
        std::string j = plain;
        j.insert(1, R"("extensionsUsed":[")" + ext + R"("],"extensionsRequired":[")" + ext + R"("],)");
        return j;
    };
    for (const char* ext : {"KHR_draco_mesh_compression", "EXT_meshopt_compression", "EXT_mesh_gpu_instancing"}) {
        auto m = sample::parseGltf(withRequired(ext), "required.gltf", false);
        ASSERT_FALSE(m.ok()) << ext;
        EXPECT_NE(m.message().find(std::string("requires the extension ") + ext), std::string::npos) << m.message();
    }
    // Required extensions that leave the geometry alone are read past.
    for (const char* ext : {"KHR_mesh_quantization", "KHR_materials_variants", "KHR_texture_transform"}) {
        auto m = sample::parseGltf(withRequired(ext), "required.gltf", false);
        ASSERT_TRUE(m.ok()) << ext << ": " << m.message();
        expectGltfTriangle(*m);
    }
    // Draco only used (not required), its positions without a buffer view.
    std::string draco = plain;
    const std::string from = R"({"attributes":{"POSITION":0},)";
    ASSERT_NE(draco.find(from), std::string::npos);
    draco.replace(draco.find(from), from.size(),
                  R"({"extensions":{"KHR_draco_mesh_compression":{"bufferView":0,"attributes":{"POSITION":0}}},)"
                  R"("attributes":{"POSITION":0},)");
    const std::string view = R"({"bufferView":0,"componentType":5126)";
    ASSERT_NE(draco.find(view), std::string::npos);
    draco.replace(draco.find(view), view.size(), R"({"componentType":5126)");
    auto m = sample::parseGltf(draco, "draco.gltf", false);
    ASSERT_FALSE(m.ok());
    EXPECT_NE(m.message().find("is compressed (KHR_draco_mesh_compression)"), std::string::npos) << m.message();
}

// Sparse accessors: substitutions over a buffer view's elements, or over
// zeros without one; their indices and counts are checked.
TEST(MeshFilesTest, GltfSparseAccessors) {
    // Bytes 0..35 positions, 36..41 indices (+2 pad), 44..45 a sparse index
    // (+2 pad), 48..59 its value, 60..95 a second set of positions for the
    // view-less accessor's substitutions (indices 0, 1, 2 at 96..101).
    std::string b = gltfBuffer();
    put<uint16_t>(b, 2, false);
    b.append(2, '\0');
    for (float f : {0.f, 3.f, 0.f}) put<float>(b, f, false);
    for (float f : {5.f, 0.f, 0.f, 6.f, 0.f, 0.f, 5.f, 1.f, 0.f}) put<float>(b, f, false);
    for (uint16_t i : {uint16_t(0), uint16_t(1), uint16_t(2)}) put<uint16_t>(b, i, false);
    b.append(2, '\0');
    const std::string uri = "data:application/octet-stream;base64," + base64(b);
    auto gltf = [&](const std::string& positionAccessor) {
        return R"({"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],"nodes":[{"mesh":0}],
"meshes":[{"primitives":[{"attributes":{"POSITION":0},"indices":1}]}],
"accessors":[)" +
               positionAccessor +
               R"(,{"bufferView":1,"componentType":5123,"count":3,"type":"SCALAR"}],
"bufferViews":[{"buffer":0,"byteOffset":0,"byteLength":36},{"buffer":0,"byteOffset":36,"byteLength":6},
{"buffer":0,"byteOffset":44,"byteLength":2},{"buffer":0,"byteOffset":48,"byteLength":12},
{"buffer":0,"byteOffset":60,"byteLength":36},{"buffer":0,"byteOffset":96,"byteLength":6}],
"buffers":[{"uri":")" +
               uri + R"(","byteLength":)" + std::to_string(b.size()) + "}]}";
    };
    const std::string oneSubstitution =
        R"("sparse":{"count":1,"indices":{"bufferView":2,"componentType":5123},"values":{"bufferView":3}})";
    auto over = sample::parseGltf(
        gltf(R"({"bufferView":0,"componentType":5126,"count":3,"type":"VEC3",)" + oneSubstitution + "}"), "sparse.gltf",
        false);
    ASSERT_TRUE(over.ok()) << over.message();
    ASSERT_EQ(over->positions.size(), 3u);
    EXPECT_EQ(over->positions[1], (std::array<float, 3>{1, 0, 0}));
    EXPECT_EQ(over->positions[2], (std::array<float, 3>{0, 3, 0})); // substituted
    auto viewless =
        sample::parseGltf(gltf(R"({"componentType":5126,"count":3,"type":"VEC3","sparse":{"count":3,)"
                               R"("indices":{"bufferView":5,"componentType":5123},"values":{"bufferView":4}}})"),
                          "sparse.gltf", false);
    ASSERT_TRUE(viewless.ok()) << viewless.message();
    EXPECT_EQ(viewless->positions[0], (std::array<float, 3>{5, 0, 0}));
    EXPECT_EQ(viewless->positions[2], (std::array<float, 3>{5, 1, 0}));
    struct Bad {
        std::string accessor, expect;
    };
    const std::vector<Bad> bad = {
        // Index 2 of 2 elements.
        {R"({"bufferView":0,"componentType":5126,"count":2,"type":"VEC3",)" + oneSubstitution + "}",
         "sparse index 2 of 2"},
        // More substitutions than elements.
        {R"({"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","sparse":{"count":4,)"
         R"("indices":{"bufferView":5,"componentType":5123},"values":{"bufferView":4}}})",
         "sparse count 4"},
        // Values past their view (3 substitutions, a view of one value).
        {R"({"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","sparse":{"count":3,)"
         R"("indices":{"bufferView":5,"componentType":5123},"values":{"bufferView":3}}})",
         "reach past their buffer view"},
        // Signed indices.
        {R"({"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","sparse":{"count":1,)"
         R"("indices":{"bufferView":2,"componentType":5122},"values":{"bufferView":3}}})",
         "unsigned"},
        // A count no buffer bounds.
        {R"({"componentType":5126,"count":400000000,"type":"VEC3"})", "no buffer view (at most"},
    };
    for (const Bad& c : bad) {
        auto m = sample::parseGltf(gltf(c.accessor), "bad-sparse.gltf", false);
        ASSERT_FALSE(m.ok()) << c.expect;
        EXPECT_NE(m.message().find(c.expect), std::string::npos) << m.message();
    }
}

TEST(MeshFilesTest, FormatDetection) {
    EXPECT_EQ(*sample::meshFormat("a.bin", "ply\nformat"), sample::MeshFormat::Ply);
    EXPECT_EQ(*sample::meshFormat("a.obj", "glTF\x02"), sample::MeshFormat::Glb);
    EXPECT_EQ(*sample::meshFormat("A.OBJ", "v 0 0 0"), sample::MeshFormat::Obj);
    EXPECT_EQ(*sample::meshFormat("x.GLTF", "{"), sample::MeshFormat::Gltf);
    EXPECT_EQ(*sample::meshFormat("noext", "  {\"asset\""), sample::MeshFormat::Gltf);
    auto unknown = sample::meshFormat("mesh.stl", "solid x");
    ASSERT_FALSE(unknown.ok());
    EXPECT_NE(unknown.message().find("mesh 'mesh.stl'"), std::string::npos);
    auto missing = sample::loadMeshFile(tempPath("does-not-exist.ply"));
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.status().code(), ErrorCode::NotFound);
    EXPECT_NE(missing.message().find("does-not-exist.ply"), std::string::npos);
}
