#include "sample/mesh_files.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <vector>

#include <tiny_gltf.h>

namespace sample {

using namespace pyramarch;

namespace {

using voxel::TriangleMesh;

Status parseError(const std::string& format, const std::string& name, const std::string& what) {
    return Status::error(ErrorCode::ParseError, format + " '" + name + "': " + what);
}

std::string lower(std::string s) {
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// A value of type T from its bytes in host order (both readers; PLY has
// already swapped them to it).
template <class T>
T loadBytes(const unsigned char* b) {
    T v;
    std::memcpy(&v, b, sizeof(T));
    return v;
}

// ----------------------------------------------------------------- PLY ----

enum class PlyType : uint8_t { Int8, UInt8, Int16, UInt16, Int32, UInt32, Float32, Float64 };

std::optional<PlyType> plyType(const std::string& t) {
    if (t == "char" || t == "int8") return PlyType::Int8;
    if (t == "uchar" || t == "uint8") return PlyType::UInt8;
    if (t == "short" || t == "int16") return PlyType::Int16;
    if (t == "ushort" || t == "uint16") return PlyType::UInt16;
    if (t == "int" || t == "int32") return PlyType::Int32;
    if (t == "uint" || t == "uint32") return PlyType::UInt32;
    if (t == "float" || t == "float32") return PlyType::Float32;
    if (t == "double" || t == "float64") return PlyType::Float64;
    return std::nullopt;
}

size_t plySize(PlyType t) {
    switch (t) {
    case PlyType::Int8:
    case PlyType::UInt8: return 1;
    case PlyType::Int16:
    case PlyType::UInt16: return 2;
    case PlyType::Int32:
    case PlyType::UInt32:
    case PlyType::Float32: return 4;
    case PlyType::Float64: return 8;
    }
    return 1;
}

struct PlyProperty {
    std::string name;
    PlyType type = PlyType::Float32;
    bool list = false;
    PlyType countType = PlyType::UInt8;
};

struct PlyElement {
    std::string name;
    uint64_t count = 0;
    std::vector<PlyProperty> props;
};

enum class PlyFormat { Ascii, BinaryLE, BinaryBE };

// Reads values one at a time from the body, ascii or binary.
class PlyReader {
public:
    PlyReader(std::string_view body, PlyFormat format) : body_(body), format_(format) {}

    // False at the end of the data or on a malformed number.
    bool read(PlyType type, double& out) {
        if (format_ == PlyFormat::Ascii) return readAscii(type, out);
        const size_t n = plySize(type);
        if (body_.size() - pos_ < n) return false;
        unsigned char b[8];
        std::memcpy(b, body_.data() + pos_, n);
        pos_ += n;
        if ((format_ == PlyFormat::BinaryBE) == (std::endian::native == std::endian::little)) std::reverse(b, b + n);
        switch (type) {
        case PlyType::Int8: out = double(int8_t(b[0])); break;
        case PlyType::UInt8: out = double(b[0]); break;
        case PlyType::Int16: out = double(loadBytes<int16_t>(b)); break;
        case PlyType::UInt16: out = double(loadBytes<uint16_t>(b)); break;
        case PlyType::Int32: out = double(loadBytes<int32_t>(b)); break;
        case PlyType::UInt32: out = double(loadBytes<uint32_t>(b)); break;
        case PlyType::Float32: out = double(loadBytes<float>(b)); break;
        case PlyType::Float64: out = loadBytes<double>(b); break;
        }
        return true;
    }
    size_t remaining() const { return body_.size() - pos_; }
    size_t line() const { return line_; }
    bool ascii() const { return format_ == PlyFormat::Ascii; }

private:
    bool readAscii(PlyType type, double& out) {
        while (pos_ < body_.size() && std::isspace(static_cast<unsigned char>(body_[pos_]))) {
            if (body_[pos_] == '\n') ++line_;
            ++pos_;
        }
        size_t end = pos_;
        while (end < body_.size() && !std::isspace(static_cast<unsigned char>(body_[end]))) ++end;
        if (end == pos_) return false;
        const char* first = body_.data() + pos_;
        const char* last = body_.data() + end;
        pos_ = end;
        if (type == PlyType::Float32 || type == PlyType::Float64) {
            auto [p, ec] = std::from_chars(first, last, out);
            return ec == std::errc() && p == last;
        }
        int64_t v = 0;
        auto [p, ec] = std::from_chars(first, last, v);
        if (ec != std::errc() || p != last) return false;
        out = double(v);
        return true;
    }

    std::string_view body_;
    PlyFormat format_;
    size_t pos_ = 0;
    size_t line_ = 1;
};

// A triangle strip's triangles, every other one flipped so that all keep
// the strip's winding. Triangles with a repeated corner are left out: in
// strips they are the zero-area joins between runs, not surface, and the
// voxelizer would mark the voxels along them.
void addStrip(TriangleMesh& mesh, const std::vector<uint32_t>& strip) {
    for (size_t j = 2; j < strip.size(); ++j) {
        const uint32_t a = strip[j - 2], b = strip[j - 1], c = strip[j];
        if (a == b || b == c || a == c) continue;
        const bool odd = (j % 2) == 1;
        mesh.indices.push_back(odd ? b : a);
        mesh.indices.push_back(odd ? a : b);
        mesh.indices.push_back(c);
    }
}

} // namespace

Result<TriangleMesh> parsePly(std::string_view bytes, const std::string& name) {
    auto fail = [&](const std::string& what) { return parseError("PLY", name, what); };
    // Header: lines up to "end_header".
    size_t pos = 0;
    size_t lineNo = 0;
    auto nextLine = [&](std::string& line) {
        if (pos >= bytes.size()) return false;
        size_t end = bytes.find('\n', pos);
        if (end == std::string_view::npos) end = bytes.size();
        line.assign(bytes.substr(pos, end - pos));
        if (!line.empty() && line.back() == '\r') line.pop_back();
        pos = std::min(end + 1, bytes.size());
        ++lineNo;
        return true;
    };
    std::string line;
    if (!nextLine(line) || line != "ply") return fail("does not start with the line 'ply'");
    std::optional<PlyFormat> format;
    std::vector<PlyElement> elements;
    bool ended = false;
    while (nextLine(line)) {
        std::vector<std::string> w;
        for (size_t i = 0; i < line.size();) {
            while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
            size_t j = i;
            while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j]))) ++j;
            if (j > i) w.emplace_back(line.substr(i, j - i));
            i = j;
        }
        const std::string at = "header line " + std::to_string(lineNo) + ": ";
        if (w.empty() || w[0] == "comment" || w[0] == "obj_info") continue;
        if (w[0] == "end_header") {
            ended = true;
            break;
        }
        if (w[0] == "format") {
            if (w.size() != 3 || w[2] != "1.0") return fail(at + "expected 'format <kind> 1.0'");
            if (w[1] == "ascii")
                format = PlyFormat::Ascii;
            else if (w[1] == "binary_little_endian")
                format = PlyFormat::BinaryLE;
            else if (w[1] == "binary_big_endian")
                format = PlyFormat::BinaryBE;
            else
                return fail(at + "unknown format '" + w[1] + "'");
        } else if (w[0] == "element") {
            if (w.size() != 3) return fail(at + "expected 'element <name> <count>'");
            PlyElement e;
            e.name = w[1];
            auto [p, ec] = std::from_chars(w[2].data(), w[2].data() + w[2].size(), e.count);
            if (ec != std::errc() || p != w[2].data() + w[2].size())
                return fail(at + "element count '" + w[2] + "' is not a number");
            elements.push_back(std::move(e));
        } else if (w[0] == "property") {
            if (elements.empty()) return fail(at + "property before any element");
            PlyProperty prop;
            if (w.size() == 5 && w[1] == "list") {
                auto ct = plyType(w[2]);
                auto it = plyType(w[3]);
                if (!ct || !it) return fail(at + "unknown list type");
                if (*ct == PlyType::Float32 || *ct == PlyType::Float64)
                    return fail(at + "list count type must be an integer");
                prop.list = true;
                prop.countType = *ct;
                prop.type = *it;
                prop.name = w[4];
            } else if (w.size() == 3) {
                auto t = plyType(w[1]);
                if (!t) return fail(at + "unknown property type '" + w[1] + "'");
                prop.type = *t;
                prop.name = w[2];
            } else {
                return fail(at + "expected 'property <type> <name>' or 'property list <type> <type> <name>'");
            }
            elements.back().props.push_back(std::move(prop));
        } else {
            return fail(at + "unknown keyword '" + w[0] + "'");
        }
    }
    if (!ended) return fail("the header has no 'end_header' line");
    if (!format) return fail("the header has no 'format' line");

    PlyReader reader(bytes.substr(pos), *format);
    TriangleMesh mesh;
    // Faces may come before the vertices (any element order is valid PLY):
    // indices are checked against the vertex element's declared count.
    uint64_t vertexCount = 0;
    for (const PlyElement& e : elements)
        if (e.name == "vertex") {
            vertexCount = e.count;
            break;
        }
    bool haveVertices = false, haveFaces = false, haveStrips = false;
    bool colorsAreFloat = false;
    for (const PlyElement& e : elements) {
        // Every value takes at least one byte (binary) or two characters
        // (ascii), so a count beyond that cannot be honest: refuse it before
        // allocating anything.
        uint64_t minBytes = 0;
        for (const PlyProperty& p : e.props) minBytes += reader.ascii() ? 2 : plySize(p.list ? p.countType : p.type);
        if (minBytes > 0 && e.count > reader.remaining() / minBytes)
            return fail("element '" + e.name + "' declares " + std::to_string(e.count) + " entries but the file has " +
                        std::to_string(reader.remaining()) + " bytes left");
        // An element without properties holds no data whatever its count
        // (and looping over a count of 10^13 would never end).
        if (e.props.empty() && e.name != "vertex" && e.name != "face") continue;
        const bool isVertex = e.name == "vertex" && !haveVertices;
        const bool isFace = e.name == "face" && !haveFaces;
        // Triangle strips (some scanner exports): one index list per strip,
        // -1 restarting it.
        const bool isStrips = e.name == "tristrips" && !haveStrips;
        int px = -1, py = -1, pz = -1, pr = -1, pg = -1, pb = -1, pnx = -1, pny = -1, pnz = -1, pidx = -1;
        for (size_t i = 0; i < e.props.size(); ++i) {
            const PlyProperty& p = e.props[i];
            const int ii = int(i);
            if (p.list) {
                if ((isFace || isStrips) && (p.name == "vertex_indices" || p.name == "vertex_index") && pidx < 0)
                    pidx = ii;
                continue;
            }
            if (p.name == "x")
                px = ii;
            else if (p.name == "y")
                py = ii;
            else if (p.name == "z")
                pz = ii;
            else if (p.name == "red" || p.name == "r")
                pr = ii;
            else if (p.name == "green" || p.name == "g")
                pg = ii;
            else if (p.name == "blue" || p.name == "b")
                pb = ii;
            else if (p.name == "nx")
                pnx = ii;
            else if (p.name == "ny")
                pny = ii;
            else if (p.name == "nz")
                pnz = ii;
        }
        if (isVertex) {
            if (px < 0 || py < 0 || pz < 0) return fail("element 'vertex' lacks one of the properties x, y, z");
            haveVertices = true;
            mesh.positions.resize(size_t(e.count));
            const bool colours = pr >= 0 && pg >= 0 && pb >= 0;
            const bool normals = pnx >= 0 && pny >= 0 && pnz >= 0;
            if (colours) {
                mesh.colors.resize(size_t(e.count));
                colorsAreFloat =
                    e.props[size_t(pr)].type == PlyType::Float32 || e.props[size_t(pr)].type == PlyType::Float64;
            }
            if (normals) mesh.normals.resize(size_t(e.count));
            std::vector<double> v(e.props.size());
            for (uint64_t k = 0; k < e.count; ++k) {
                for (size_t i = 0; i < e.props.size(); ++i) {
                    const PlyProperty& p = e.props[i];
                    if (p.list) {
                        double n = 0, dummy = 0;
                        if (!reader.read(p.countType, n) || n < 0)
                            return fail("vertex " + std::to_string(k) + ": bad list '" + p.name + "'");
                        for (uint64_t j = 0; j < uint64_t(n); ++j)
                            if (!reader.read(p.type, dummy))
                                return fail("vertex " + std::to_string(k) + ": list '" + p.name + "' is cut short");
                        continue;
                    }
                    if (!reader.read(p.type, v[i]))
                        return fail(
                            "vertex " + std::to_string(k) + ": property '" + p.name +
                            (reader.remaining() == 0 ? "' is missing (the file ends)" : "' is not a number") +
                            (reader.ascii() ? " (line " + std::to_string(reader.line()) + " of the data)" : ""));
                }
                mesh.positions[k] = {float(v[size_t(px)]), float(v[size_t(py)]), float(v[size_t(pz)])};
                if (colours) {
                    auto ch = [&](int i) {
                        double c = v[size_t(i)];
                        if (colorsAreFloat) c *= 255.0;
                        return uint32_t(std::lround(std::clamp(std::isfinite(c) ? c : 0.0, 0.0, 255.0)));
                    };
                    mesh.colors[k] = voxel::packRGBA8(ch(pr), ch(pg), ch(pb));
                }
                if (normals) mesh.normals[k] = {float(v[size_t(pnx)]), float(v[size_t(pny)]), float(v[size_t(pnz)])};
            }
            continue;
        }
        if (isFace || isStrips) {
            if (pidx < 0) return fail("element '" + e.name + "' has no list property vertex_indices");
            (isFace ? haveFaces : haveStrips) = true;
        }
        std::vector<uint32_t> poly;
        for (uint64_t k = 0; k < e.count; ++k) {
            for (size_t i = 0; i < e.props.size(); ++i) {
                const PlyProperty& p = e.props[i];
                double n = 0, x = 0;
                if (!p.list) {
                    if (!reader.read(p.type, x))
                        return fail(e.name + " " + std::to_string(k) + ": property '" + p.name + "' is missing or bad");
                    continue;
                }
                if (!reader.read(p.countType, n) || n < 0 || n > double(reader.remaining()))
                    return fail(e.name + " " + std::to_string(k) + ": bad length of list '" + p.name + "'");
                const bool indices = int(i) == pidx;
                poly.clear();
                for (uint64_t j = 0; j < uint64_t(n); ++j) {
                    if (!reader.read(p.type, x))
                        return fail(e.name + " " + std::to_string(k) + ": list '" + p.name + "' is cut short");
                    if (!indices) continue;
                    if (isStrips && x == -1) {
                        addStrip(mesh, poly);
                        poly.clear();
                        continue;
                    }
                    if (!(x >= 0 && x < double(vertexCount)) || x != std::floor(x))
                        return fail(e.name + " " + std::to_string(k) + " uses vertex " + std::to_string(int64_t(x)) +
                                    " but the file has " + std::to_string(vertexCount) + " vertices");
                    poly.push_back(uint32_t(x));
                }
                if (!indices) continue;
                if (isStrips) {
                    addStrip(mesh, poly);
                    continue;
                }
                // Polygons as fans; a face of fewer than 3 corners has no area.
                for (size_t j = 2; j < poly.size(); ++j) {
                    mesh.indices.push_back(poly[0]);
                    mesh.indices.push_back(poly[j - 1]);
                    mesh.indices.push_back(poly[j]);
                }
            }
        }
    }
    if (!haveVertices) return fail("no 'vertex' element");
    if (mesh.indices.empty())
        return fail("no triangles (no 'face' or 'tristrips' element, or only faces of fewer than 3 corners)");
    return mesh;
}

// ---------------------------------------------------------------- glTF ----

namespace {

using Mat4 = std::array<double, 16>; // column major, as glTF stores it

Mat4 identity() { return {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}; }

Mat4 mul(const Mat4& a, const Mat4& b) {
    Mat4 r{};
    for (int c = 0; c < 4; ++c)
        for (int rr = 0; rr < 4; ++rr) {
            double s = 0;
            for (int k = 0; k < 4; ++k) s += a[size_t(k * 4 + rr)] * b[size_t(c * 4 + k)];
            r[size_t(c * 4 + rr)] = s;
        }
    return r;
}

Mat4 nodeMatrix(const tinygltf::Node& n) {
    if (n.matrix.size() == 16) {
        Mat4 m;
        std::copy(n.matrix.begin(), n.matrix.end(), m.begin());
        return m;
    }
    Mat4 t = identity(), r = identity(), s = identity();
    if (n.translation.size() == 3) {
        t[12] = n.translation[0];
        t[13] = n.translation[1];
        t[14] = n.translation[2];
    }
    if (n.rotation.size() == 4) {
        const double x = n.rotation[0], y = n.rotation[1], z = n.rotation[2], w = n.rotation[3];
        r = {1 - 2 * (y * y + z * z),
             2 * (x * y + z * w),
             2 * (x * z - y * w),
             0,
             2 * (x * y - z * w),
             1 - 2 * (x * x + z * z),
             2 * (y * z + x * w),
             0,
             2 * (x * z + y * w),
             2 * (y * z - x * w),
             1 - 2 * (x * x + y * y),
             0,
             0,
             0,
             0,
             1};
    }
    if (n.scale.size() == 3) {
        s[0] = n.scale[0];
        s[5] = n.scale[1];
        s[10] = n.scale[2];
    }
    return mul(t, mul(r, s));
}

// One component of type `componentType` (one whose size
// GetComponentSizeInBytes knows) at `q` as a double, normalised integers
// scaled to 0..1 / -1..1 when `normalized`.
double decodeComponent(const unsigned char* q, int componentType, bool normalized) {
    switch (componentType) {
    case TINYGLTF_COMPONENT_TYPE_BYTE: {
        const double v = loadBytes<int8_t>(q);
        return normalized ? std::max(v / 127.0, -1.0) : v;
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return normalized ? *q / 255.0 : double(*q);
    case TINYGLTF_COMPONENT_TYPE_SHORT: {
        const double v = loadBytes<int16_t>(q);
        return normalized ? std::max(v / 32767.0, -1.0) : v;
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
        const double v = loadBytes<uint16_t>(q);
        return normalized ? v / 65535.0 : v;
    }
    case TINYGLTF_COMPONENT_TYPE_INT: return loadBytes<int32_t>(q);
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: return loadBytes<uint32_t>(q);
    case TINYGLTF_COMPONENT_TYPE_FLOAT: return loadBytes<float>(q);
    default: return loadBytes<double>(q); // TINYGLTF_COMPONENT_TYPE_DOUBLE
    }
}

// The bytes [offset, offset + bytes) of buffer view `view`, or null when
// the view, its buffer or the range does not exist.
const unsigned char* viewBytes(const tinygltf::Model& model, int view, uint64_t offset, uint64_t bytes) {
    if (view < 0 || size_t(view) >= model.bufferViews.size()) return nullptr;
    const tinygltf::BufferView& bv = model.bufferViews[size_t(view)];
    if (bv.buffer < 0 || size_t(bv.buffer) >= model.buffers.size()) return nullptr;
    const std::vector<unsigned char>& buf = model.buffers[size_t(bv.buffer)].data;
    if (bv.byteOffset > buf.size() || bv.byteLength > buf.size() - bv.byteOffset || offset > bv.byteLength ||
        bytes > bv.byteLength - offset)
        return nullptr;
    return buf.data() + bv.byteOffset + offset;
}

// The most elements an accessor without a buffer view may declare (its
// elements are zeros, or a sparse accessor's few substitutions).
constexpr size_t kMaxViewlessElements = size_t(1) << 24;

// Reads accessor `index` as `comps` doubles per element, checking every
// bound: the buffer view's elements (zeros without one, glTF 2.0 3.6.2.3),
// then a sparse accessor's substitutions (3.6.2.3, "Sparse accessors").
Status readAccessor(const tinygltf::Model& model, int index, int wantType, std::vector<double>& out, size_t& count,
                    const std::string& what) {
    if (index < 0 || size_t(index) >= model.accessors.size())
        return Status::error(ErrorCode::ParseError, what + ": accessor " + std::to_string(index) + " does not exist");
    const tinygltf::Accessor& a = model.accessors[size_t(index)];
    const std::string self = what + ": accessor " + std::to_string(index);
    if (a.type != wantType && !(wantType == TINYGLTF_TYPE_VEC3 && a.type == TINYGLTF_TYPE_VEC4))
        return Status::error(ErrorCode::ParseError, self + " has the wrong type");
    const int comps = tinygltf::GetNumComponentsInType(uint32_t(a.type));
    const int csize = tinygltf::GetComponentSizeInBytes(uint32_t(a.componentType));
    if (comps <= 0 || csize <= 0) return Status::error(ErrorCode::ParseError, self + " has a bad component type");
    count = a.count;
    if (count > (uint64_t(1) << 32)) return Status::error(ErrorCode::ParseError, self + " has over 2^32 elements");
    const size_t elem = size_t(comps) * size_t(csize);
    // Element `i` of `out` from its packed components at `src`.
    auto decodeElement = [&](const unsigned char* src, size_t i) {
        for (int c = 0; c < comps; ++c)
            out[i * size_t(comps) + size_t(c)] =
                decodeComponent(src + size_t(c) * size_t(csize), a.componentType, a.normalized);
    };
    if (a.bufferView < 0) {
        // All zeros but for a sparse accessor's values: nothing in the file
        // bounds the count, so a limit does.
        if (count > kMaxViewlessElements)
            return Status::error(ErrorCode::ParseError, self + " has " + std::to_string(count) +
                                                            " elements and no buffer view (at most " +
                                                            std::to_string(kMaxViewlessElements) + ")");
        out.assign(count * size_t(comps), 0.0);
    } else if (count > 0) {
        if (size_t(a.bufferView) >= model.bufferViews.size())
            return Status::error(ErrorCode::ParseError,
                                 what + ": buffer view " + std::to_string(a.bufferView) + " does not exist");
        const size_t stride = model.bufferViews[size_t(a.bufferView)].byteStride
                                  ? model.bufferViews[size_t(a.bufferView)].byteStride
                                  : elem;
        if (stride < elem)
            return Status::error(ErrorCode::ParseError,
                                 what + ": byte stride " + std::to_string(stride) + " below the element size");
        const unsigned char* p = viewBytes(model, a.bufferView, a.byteOffset, uint64_t(stride) * (count - 1) + elem);
        if (!p) return Status::error(ErrorCode::ParseError, self + " reaches past its buffer view or buffer");
        out.assign(count * size_t(comps), 0.0);
        for (size_t i = 0; i < count; ++i) decodeElement(p + i * stride, i);
    } else {
        out.clear();
    }
    if (!a.sparse.isSparse) return {};
    // Sparse: `count` (element index, value) pairs, each array tightly packed
    // in its own buffer view.
    const uint64_t n = uint64_t(std::max(a.sparse.count, 0));
    if (a.sparse.count < 1 || n > count)
        return Status::error(ErrorCode::ParseError, self + ": sparse count " + std::to_string(a.sparse.count) +
                                                        " outside 1.." + std::to_string(count));
    const int it = a.sparse.indices.componentType;
    if (it != TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE && it != TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT &&
        it != TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT)
        return Status::error(ErrorCode::ParseError, self + ": sparse indices must be unsigned integers");
    const size_t isize = size_t(tinygltf::GetComponentSizeInBytes(uint32_t(it)));
    const unsigned char* ip =
        viewBytes(model, a.sparse.indices.bufferView, uint64_t(std::max(a.sparse.indices.byteOffset, 0)), n * isize);
    const unsigned char* vp =
        viewBytes(model, a.sparse.values.bufferView, uint64_t(std::max(a.sparse.values.byteOffset, 0)), n * elem);
    if (!ip || !vp || a.sparse.indices.byteOffset < 0 || a.sparse.values.byteOffset < 0)
        return Status::error(ErrorCode::ParseError, self + ": sparse indices or values reach past their buffer view");
    for (uint64_t k = 0; k < n; ++k) {
        const double e = decodeComponent(ip + k * isize, it, false);
        if (!(e < double(count)))
            return Status::error(ErrorCode::ParseError, self + ": sparse index " + std::to_string(uint64_t(e)) +
                                                            " of " + std::to_string(count) + " elements");
        decodeElement(vp + k * elem, size_t(e));
    }
    return {};
}

Status addPrimitive(const tinygltf::Model& model, const tinygltf::Primitive& prim, const Mat4& m, TriangleMesh& mesh,
                    bool& anyColour, bool& anyNormal, const std::string& what) {
    if (prim.mode != TINYGLTF_MODE_TRIANGLES && prim.mode != TINYGLTF_MODE_TRIANGLE_STRIP &&
        prim.mode != TINYGLTF_MODE_TRIANGLE_FAN && prim.mode != -1)
        return {}; // points and lines have no triangles
    auto pos = prim.attributes.find("POSITION");
    if (pos == prim.attributes.end()) return Status::error(ErrorCode::ParseError, what + ": no POSITION attribute");
    // A Draco primitive keeps its data in the extension; an accessor without
    // a buffer view would otherwise read as zeros (glTF 2.0, 3.6.2.3). (A
    // meshopt file without uncompressed data must require its extension,
    // which parseGltf refuses by name.)
    if (prim.extensions.count("KHR_draco_mesh_compression") && pos->second >= 0 &&
        size_t(pos->second) < model.accessors.size() && model.accessors[size_t(pos->second)].bufferView < 0)
        return Status::error(ErrorCode::ParseError,
                             what + " is compressed (KHR_draco_mesh_compression), which this reader does not decode");
    std::vector<double> p;
    size_t nv = 0;
    PYRAMARCH_TRY(readAccessor(model, pos->second, TINYGLTF_TYPE_VEC3, p, nv, what + " POSITION"));
    if (model.accessors[size_t(pos->second)].type != TINYGLTF_TYPE_VEC3)
        return Status::error(ErrorCode::ParseError, what + ": POSITION is not a VEC3");
    const size_t base = mesh.positions.size();
    if (base + nv > std::numeric_limits<uint32_t>::max())
        return Status::error(ErrorCode::ParseError, what + ": more than 2^32 vertices");
    for (size_t i = 0; i < nv; ++i) {
        const double x = p[3 * i], y = p[3 * i + 1], z = p[3 * i + 2];
        mesh.positions.push_back({float(m[0] * x + m[4] * y + m[8] * z + m[12]),
                                  float(m[1] * x + m[5] * y + m[9] * z + m[13]),
                                  float(m[2] * x + m[6] * y + m[10] * z + m[14])});
    }
    // Normals by the inverse transpose of the upper 3x3 (its cofactors).
    std::vector<std::array<float, 3>> normals(nv, {0.f, 0.f, 0.f});
    auto nrm = prim.attributes.find("NORMAL");
    if (nrm != prim.attributes.end()) {
        std::vector<double> n;
        size_t cnt = 0;
        PYRAMARCH_TRY(readAccessor(model, nrm->second, TINYGLTF_TYPE_VEC3, n, cnt, what + " NORMAL"));
        const int comps = tinygltf::GetNumComponentsInType(uint32_t(model.accessors[size_t(nrm->second)].type));
        if (cnt != nv) return Status::error(ErrorCode::ParseError, what + ": NORMAL count differs from POSITION count");
        auto a = [&](int r, int c) { return m[size_t(c * 4 + r)]; };
        double cof[3][3];
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) {
                const int r1 = (r + 1) % 3, r2 = (r + 2) % 3, c1 = (c + 1) % 3, c2 = (c + 2) % 3;
                cof[r][c] = a(r1, c1) * a(r2, c2) - a(r1, c2) * a(r2, c1);
            }
        for (size_t i = 0; i < nv; ++i) {
            const double* v = &n[i * size_t(comps)];
            normals[i] = {float(cof[0][0] * v[0] + cof[0][1] * v[1] + cof[0][2] * v[2]),
                          float(cof[1][0] * v[0] + cof[1][1] * v[1] + cof[1][2] * v[2]),
                          float(cof[2][0] * v[0] + cof[2][1] * v[1] + cof[2][2] * v[2])};
        }
        anyNormal = true;
    }
    std::vector<uint32_t> colours(nv, voxel::packRGBA8(255, 255, 255));
    auto col = prim.attributes.find("COLOR_0");
    if (col != prim.attributes.end()) {
        std::vector<double> c;
        size_t cnt = 0;
        PYRAMARCH_TRY(readAccessor(model, col->second, TINYGLTF_TYPE_VEC3, c, cnt, what + " COLOR_0"));
        const int comps = tinygltf::GetNumComponentsInType(uint32_t(model.accessors[size_t(col->second)].type));
        if (cnt != nv)
            return Status::error(ErrorCode::ParseError, what + ": COLOR_0 count differs from POSITION count");
        auto ch = [](double v) {
            return uint32_t(std::lround(std::clamp(std::isfinite(v) ? v : 0.0, 0.0, 1.0) * 255.0));
        };
        for (size_t i = 0; i < nv; ++i) {
            const double* v = &c[i * size_t(comps)];
            colours[i] = voxel::packRGBA8(ch(v[0]), ch(v[1]), ch(v[2]));
        }
        anyColour = true;
    }
    mesh.normals.insert(mesh.normals.end(), normals.begin(), normals.end());
    mesh.colors.insert(mesh.colors.end(), colours.begin(), colours.end());
    std::vector<uint32_t> idx;
    if (prim.indices >= 0) {
        std::vector<double> ix;
        size_t cnt = 0;
        PYRAMARCH_TRY(readAccessor(model, prim.indices, TINYGLTF_TYPE_SCALAR, ix, cnt, what + " indices"));
        const int ct = model.accessors[size_t(prim.indices)].componentType;
        if (ct != TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE && ct != TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT &&
            ct != TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT)
            return Status::error(ErrorCode::ParseError, what + ": indices must be unsigned integers");
        idx.reserve(cnt);
        for (size_t i = 0; i < cnt; ++i) {
            if (!(ix[i] < double(nv)))
                return Status::error(ErrorCode::ParseError, what + ": index " + std::to_string(uint64_t(ix[i])) +
                                                                " of " + std::to_string(nv) + " vertices");
            idx.push_back(uint32_t(ix[i]));
        }
    } else {
        idx.resize(nv);
        for (size_t i = 0; i < nv; ++i) idx[i] = uint32_t(i);
    }
    auto tri = [&](uint32_t a, uint32_t b, uint32_t c) {
        mesh.indices.push_back(uint32_t(base) + a);
        mesh.indices.push_back(uint32_t(base) + b);
        mesh.indices.push_back(uint32_t(base) + c);
    };
    if (prim.mode == TINYGLTF_MODE_TRIANGLE_STRIP) {
        for (size_t i = 2; i < idx.size(); ++i)
            if (i % 2 == 0)
                tri(idx[i - 2], idx[i - 1], idx[i]);
            else
                tri(idx[i - 1], idx[i - 2], idx[i]);
    } else if (prim.mode == TINYGLTF_MODE_TRIANGLE_FAN) {
        for (size_t i = 2; i < idx.size(); ++i) tri(idx[0], idx[i - 1], idx[i]);
    } else {
        for (size_t i = 0; i + 2 < idx.size(); i += 3) tri(idx[i], idx[i + 1], idx[i + 2]);
    }
    return {};
}

// Images are not needed: accept them undecoded.
bool skipImage(tinygltf::Image*, const int, std::string*, std::string*, int, int, const unsigned char*, int, void*) {
    return true;
}

} // namespace

Result<TriangleMesh> parseGltf(std::string_view bytes, const std::string& name, bool binary,
                               const std::string& baseDir) {
    const std::string kind = binary ? "glTF binary" : "glTF";
    if (bytes.size() > std::numeric_limits<unsigned int>::max())
        return parseError(kind, name, "the file is over 4 GiB");
    tinygltf::TinyGLTF loader;
    loader.SetImageLoader(skipImage, nullptr);
    tinygltf::Model model;
    std::string err, warn;
    bool ok = false;
    if (binary) {
        ok = loader.LoadBinaryFromMemory(&model, &err, &warn, reinterpret_cast<const unsigned char*>(bytes.data()),
                                         static_cast<unsigned int>(bytes.size()), baseDir);
    } else {
        ok = loader.LoadASCIIFromString(&model, &err, &warn, bytes.data(), static_cast<unsigned int>(bytes.size()),
                                        baseDir);
    }
    if (!ok) {
        while (!err.empty() && (err.back() == '\n' || err.back() == '\r')) err.pop_back();
        return parseError(kind, name, err.empty() ? std::string("the loader refused the file") : err);
    }
    // A loader must refuse an extension the file requires and it does not
    // support (glTF 2.0, 3.12). Quantized attributes are read here;
    // materials, textures and lights do not change the geometry; anything
    // else required (compression, instancing) would.
    for (const std::string& ext : model.extensionsRequired) {
        const bool geometryUnchanged = ext.rfind("KHR_materials_", 0) == 0 || ext.rfind("KHR_texture_", 0) == 0 ||
                                       ext.rfind("EXT_texture_", 0) == 0 || ext == "KHR_lights_punctual";
        if (ext != "KHR_mesh_quantization" && !geometryUnchanged)
            return parseError(kind, name, "requires the extension " + ext + ", which this reader does not support");
    }
    TriangleMesh mesh;
    bool anyColour = false, anyNormal = false;
    // Nodes depth first from the scene roots (or every root); a node met
    // twice (a cycle) is refused.
    std::vector<int> roots;
    const int sceneIndex = model.defaultScene >= 0 ? model.defaultScene : (model.scenes.empty() ? -1 : 0);
    if (sceneIndex >= 0 && size_t(sceneIndex) < model.scenes.size()) {
        roots = model.scenes[size_t(sceneIndex)].nodes;
    } else {
        std::vector<uint8_t> isChild(model.nodes.size(), 0);
        for (const tinygltf::Node& n : model.nodes)
            for (int c : n.children)
                if (c >= 0 && size_t(c) < model.nodes.size()) isChild[size_t(c)] = 1;
        for (size_t i = 0; i < model.nodes.size(); ++i)
            if (!isChild[i]) roots.push_back(int(i));
    }
    std::vector<uint8_t> seen(model.nodes.size(), 0);
    std::vector<std::pair<int, Mat4>> stack;
    for (auto it = roots.rbegin(); it != roots.rend(); ++it) stack.emplace_back(*it, identity());
    while (!stack.empty()) {
        auto [ni, parent] = stack.back();
        stack.pop_back();
        if (ni < 0 || size_t(ni) >= model.nodes.size())
            return parseError(kind, name, "node " + std::to_string(ni) + " does not exist");
        if (seen[size_t(ni)])
            return parseError(kind, name,
                              "node " + std::to_string(ni) + " is reached twice (a cycle or a shared child)");
        seen[size_t(ni)] = 1;
        const tinygltf::Node& node = model.nodes[size_t(ni)];
        const Mat4 m = mul(parent, nodeMatrix(node));
        if (node.mesh >= 0) {
            if (size_t(node.mesh) >= model.meshes.size())
                return parseError(kind, name,
                                  "node " + std::to_string(ni) + " uses mesh " + std::to_string(node.mesh) + " of " +
                                      std::to_string(model.meshes.size()));
            const tinygltf::Mesh& gm = model.meshes[size_t(node.mesh)];
            for (size_t p = 0; p < gm.primitives.size(); ++p) {
                const std::string what = "mesh " + std::to_string(node.mesh) + " primitive " + std::to_string(p);
                Status s = addPrimitive(model, gm.primitives[p], m, mesh, anyColour, anyNormal, what);
                if (!s.ok()) return parseError(kind, name, s.message());
            }
        }
        for (auto it = node.children.rbegin(); it != node.children.rend(); ++it) stack.emplace_back(*it, m);
    }
    if (!anyColour) mesh.colors.clear();
    if (!anyNormal) mesh.normals.clear();
    if (mesh.indices.empty()) return parseError(kind, name, "no triangles in the scene");
    return mesh;
}

Result<MeshFormat> meshFormat(const std::string& path, std::string_view head) {
    if (head.substr(0, 4) == "ply\n" || head.substr(0, 5) == "ply\r\n") return MeshFormat::Ply;
    if (head.substr(0, 4) == "glTF") return MeshFormat::Glb;
    const std::string ext = lower(std::filesystem::path(path).extension().string());
    if (ext == ".obj") return MeshFormat::Obj;
    if (ext == ".ply") return MeshFormat::Ply;
    if (ext == ".gltf") return MeshFormat::Gltf;
    if (ext == ".glb") return MeshFormat::Glb;
    size_t i = 0;
    while (i < head.size() && std::isspace(static_cast<unsigned char>(head[i]))) ++i;
    if (i < head.size() && head[i] == '{') return MeshFormat::Gltf;
    return Status::error(ErrorCode::ParseError,
                         "mesh '" + path + "': unknown format (expected .obj, .ply, .gltf or .glb)");
}

Result<TriangleMesh> loadMeshFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status::error(ErrorCode::NotFound, "mesh '" + path + "': cannot open the file");
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) return Status::error(ErrorCode::Io, "mesh '" + path + "': read error");
    PYRAMARCH_TRY_ASSIGN(MeshFormat format, meshFormat(path, std::string_view(bytes).substr(0, 64)));
    switch (format) {
    case MeshFormat::Obj: return voxel::loadObj(path);
    case MeshFormat::Ply: return parsePly(bytes, path);
    case MeshFormat::Gltf: {
        const std::string dir = std::filesystem::path(path).parent_path().string();
        return parseGltf(bytes, path, false, dir.empty() ? "." : dir);
    }
    case MeshFormat::Glb: {
        const std::string dir = std::filesystem::path(path).parent_path().string();
        return parseGltf(bytes, path, true, dir.empty() ? "." : dir);
    }
    }
    return Status::error(ErrorCode::ParseError, "mesh '" + path + "': unknown format");
}

} // namespace sample
