// Particle file readers and writer (particle_io.h). Everything is parsed from
// one in-memory copy of the file; nothing is allocated from a header's counts
// before the data is known to hold them.
#include "pyramarch/isosurface/particle_io.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <system_error>

namespace pyramarch::iso {

namespace {

std::string quote(std::string_view s) { return "'" + std::string(s) + "'"; }

// A coordinate as text for messages ("nan", "inf", "1e+39").
std::string numberText(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

std::string axisName(int k) { return std::string(1, "xyz"[k]); }

// .f32: the size alone decides whether the file can be read.
Status checkF32Size(std::string_view name, uint64_t size, uint64_t maxParticles) {
    if (size % 12 != 0)
        return Status::error(
            ErrorCode::ParseError,
            quote(name) + ": size " + std::to_string(size) +
                " bytes is not a multiple of 12 (float32 x, y, z per particle): " + std::to_string(size % 12) +
                " trailing bytes at byte offset " + std::to_string(size - size % 12));
    if (size / 12 > maxParticles)
        return Status::error(ErrorCode::CapacityExceeded,
                             quote(name) + ": " + std::to_string(size / 12) + " particles (" + std::to_string(size) +
                                 " bytes) exceed the limit of " + std::to_string(maxParticles) +
                                 " particles (maxParticles)");
    return {};
}

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// Splits a line into whitespace-separated tokens (views into the line).
void tokenize(std::string_view line, std::vector<std::string_view>& out) {
    out.clear();
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && isSpace(line[i])) ++i;
        const size_t start = i;
        while (i < line.size() && !isSpace(line[i])) ++i;
        if (i > start) out.push_back(line.substr(start, i - start));
    }
}

// Line cursor over text; lines end at '\n' (a '\r' before it is stripped).
struct LineReader {
    std::string_view text;
    size_t pos = 0;
    uint64_t lineNumber = 0; // of the line last returned (1-based)
    bool next(std::string_view& line) {
        if (pos >= text.size()) return false;
        const size_t end = text.find('\n', pos);
        const size_t stop = end == std::string_view::npos ? text.size() : end;
        line = text.substr(pos, stop - pos);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        pos = end == std::string_view::npos ? text.size() : end + 1;
        ++lineNumber;
        return true;
    }
};

bool blank(std::string_view line) {
    return std::all_of(line.begin(), line.end(), [](char c) { return isSpace(c); });
}

// A decimal number as T (float or double); false for anything else. A
// leading '+' is accepted; an out-of-range value gives +-inf (so it is
// reported as non-finite).
template <class T>
bool parseReal(std::string_view token, T& out) {
    const char* b = token.data();
    const char* e = b + token.size();
    if (b < e && *b == '+') ++b;
    if (b == e) return false;
    auto [ptr, ec] = std::from_chars(b, e, out, std::chars_format::general);
    if (ec == std::errc::result_out_of_range) {
        // from_chars leaves out unchanged: decide the sign and the magnitude.
        double probe = std::strtod(std::string(b, e).c_str(), nullptr);
        out = std::isfinite(probe) && std::abs(probe) < 1.0 ? T(0) : T(std::copysign(INFINITY, probe));
        return ptr == e;
    }
    return ec == std::errc() && ptr == e;
}

bool parseUnsigned(std::string_view token, uint64_t& out) {
    const char* b = token.data();
    const char* e = b + token.size();
    if (b < e && *b == '+') ++b;
    if (b == e) return false;
    auto [ptr, ec] = std::from_chars(b, e, out, 10);
    return ec == std::errc() && ptr == e;
}

// ---------------------------------------------------------------- PLY header

enum class PlyType { Int8, UInt8, Int16, UInt16, Int32, UInt32, Float32, Float64 };

struct PlyTypeName {
    const char* name;
    PlyType type;
};
constexpr PlyTypeName kPlyTypes[] = {
    {"char", PlyType::Int8},       {"int8", PlyType::Int8},       {"uchar", PlyType::UInt8},
    {"uint8", PlyType::UInt8},     {"short", PlyType::Int16},     {"int16", PlyType::Int16},
    {"ushort", PlyType::UInt16},   {"uint16", PlyType::UInt16},   {"int", PlyType::Int32},
    {"int32", PlyType::Int32},     {"uint", PlyType::UInt32},     {"uint32", PlyType::UInt32},
    {"float", PlyType::Float32},   {"float32", PlyType::Float32}, {"double", PlyType::Float64},
    {"float64", PlyType::Float64},
};

std::optional<PlyType> plyType(std::string_view name) {
    for (const auto& t : kPlyTypes)
        if (name == t.name) return t.type;
    return std::nullopt;
}

size_t plyTypeSize(PlyType t) {
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
    return 0;
}

bool plyTypeIsInteger(PlyType t) { return t != PlyType::Float32 && t != PlyType::Float64; }

struct PlyProperty {
    std::string name;
    PlyType type = PlyType::Float32; // item type for lists
    bool list = false;
    PlyType countType = PlyType::UInt8;
    std::string typeText; // as written, for messages
};

struct PlyElement {
    std::string name;
    uint64_t count = 0;
    std::vector<PlyProperty> properties;
    uint64_t headerLine = 0;
    bool hasList() const {
        return std::any_of(properties.begin(), properties.end(), [](const PlyProperty& p) { return p.list; });
    }
};

enum class PlyEncoding { Ascii, BinaryLittle, BinaryBig };

struct PlyHeader {
    PlyEncoding encoding = PlyEncoding::Ascii;
    std::vector<PlyElement> elements;
    size_t dataOffset = 0;    // first byte after "end_header\n"
    uint64_t headerLines = 0; // lines up to and including end_header
};

// Scalar value from binary data in the file's byte order.
template <class T>
T loadBinary(const uint8_t* p, bool bigEndian) {
    uint8_t b[sizeof(T)];
    std::memcpy(b, p, sizeof(T));
    if (bigEndian != (std::endian::native == std::endian::big)) std::reverse(b, b + sizeof(T));
    T v;
    std::memcpy(&v, b, sizeof(T));
    return v;
}

// A binary list count; false when negative (signed types).
bool loadCount(const uint8_t* p, PlyType t, bool bigEndian, uint64_t& out) {
    int64_t v = 0;
    switch (t) {
    case PlyType::Int8: v = loadBinary<int8_t>(p, bigEndian); break;
    case PlyType::UInt8: v = loadBinary<uint8_t>(p, bigEndian); break;
    case PlyType::Int16: v = loadBinary<int16_t>(p, bigEndian); break;
    case PlyType::UInt16: v = loadBinary<uint16_t>(p, bigEndian); break;
    case PlyType::Int32: v = loadBinary<int32_t>(p, bigEndian); break;
    case PlyType::UInt32: v = loadBinary<uint32_t>(p, bigEndian); break;
    default: return false;
    }
    if (v < 0) return false;
    out = uint64_t(v);
    return true;
}

class ParticleParser {
public:
    ParticleParser(std::span<const uint8_t> bytes, std::string_view name, uint64_t maxParticles)
        : bytes_(bytes), name_(name), maxParticles_(maxParticles) {}

    Result<ParticleSet> parse(ParticleFormat format) {
        Status s;
        switch (format) {
        case ParticleFormat::Ply: s = parsePly(); break;
        case ParticleFormat::Xyz: s = parseXyz(); break;
        case ParticleFormat::F32: s = parseF32(); break;
        case ParticleFormat::Auto: return fail("parseParticles needs an explicit format, not Auto");
        }
        if (!s) return s;
        set_.bounds = particleBounds(set_.xyz);
        return std::move(set_);
    }

private:
    std::span<const uint8_t> bytes_;
    std::string name_;
    uint64_t maxParticles_;
    ParticleSet set_;

    Status fail(const std::string& what) const {
        return Status::error(ErrorCode::ParseError, quote(name_) + ": " + what);
    }

    std::string limitText() const {
        return "the limit of " + std::to_string(maxParticles_) + " particles (maxParticles)";
    }

    // Appends one particle read as binary (float or double); `where` names it
    // for messages.
    template <class Where>
    Status add(double x, double y, double z, Where&& where) {
        const double v[3] = {x, y, z};
        float f[3];
        for (int k = 0; k < 3; ++k) {
            f[k] = float(v[k]);
            if (!std::isfinite(f[k]))
                return fail(where() + ": " + axisName(k) + " = " + numberText(v[k]) +
                            (std::isfinite(v[k]) ? " is beyond float range" : " is not finite"));
        }
        set_.xyz.insert(set_.xyz.end(), f, f + 3);
        return {};
    }

    // One coordinate from text, rounded once to float (from double when the
    // PLY property is a double).
    template <class Where>
    Status parseCoordinate(std::string_view token, bool asDouble, int k, Where&& where, float& out) {
        bool ok;
        if (asDouble) {
            double d = 0;
            ok = parseReal(token, d);
            out = float(d);
        } else {
            ok = parseReal(token, out);
        }
        if (!ok) return fail(where() + ": " + axisName(k) + " " + quote(token) + " is not a number");
        if (!std::isfinite(out)) {
            double d = 0;
            const bool beyond = parseReal(token, d) && std::isfinite(d);
            return fail(where() + ": " + axisName(k) + " " + quote(token) +
                        (beyond ? " is beyond float range" : " is not finite"));
        }
        return {};
    }

    // ------------------------------------------------------------ .f32
    Status parseF32() {
        const uint64_t size = bytes_.size();
        PYRAMARCH_TRY(checkF32Size(name_, size, maxParticles_));
        const uint64_t count = size / 12;
        set_.xyz.reserve(size_t(count * 3));
        for (uint64_t i = 0; i < count; ++i) {
            const uint8_t* p = bytes_.data() + i * 12;
            PYRAMARCH_TRY(
                add(loadBinary<float>(p, false), loadBinary<float>(p + 4, false), loadBinary<float>(p + 8, false),
                    [&] { return "particle " + std::to_string(i) + " (byte offset " + std::to_string(i * 12) + ")"; }));
        }
        return {};
    }

    // ------------------------------------------------------------ .xyz
    Status parseXyz() {
        std::string_view text(reinterpret_cast<const char*>(bytes_.data()), bytes_.size());
        if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3); // UTF-8 byte order mark
        LineReader lines{text};
        // A guess (16 bytes a line, "0.25 -1.5 3.125\n"), never more than
        // the cap: text lines rarely are as short as "0 0 0", and reserving
        // for that would hold up to 4x the memory the particles need.
        set_.xyz.reserve(size_t(std::min<uint64_t>(maxParticles_, bytes_.size() / 16 + 1) * 3));
        std::string_view line;
        std::vector<std::string_view> tokens;
        while (lines.next(line)) {
            const size_t hash = line.find('#');
            if (hash != std::string_view::npos) line = line.substr(0, hash);
            tokenize(line, tokens);
            if (tokens.empty()) continue;
            const auto where = [&] { return "line " + std::to_string(lines.lineNumber); };
            if (tokens.size() < 3)
                return fail(where() + ": " + std::to_string(tokens.size()) + " value" +
                            (tokens.size() == 1 ? "" : "s") + ", expected x y z");
            if (set_.count() >= maxParticles_) return fail(where() + ": more particles than " + limitText());
            float f[3];
            for (int k = 0; k < 3; ++k) PYRAMARCH_TRY(parseCoordinate(tokens[size_t(k)], false, k, where, f[k]));
            set_.xyz.insert(set_.xyz.end(), f, f + 3);
        }
        return {};
    }

    // ------------------------------------------------------------ PLY
    Status parseHeader(PlyHeader& header) {
        const std::string_view text(reinterpret_cast<const char*>(bytes_.data()), bytes_.size());
        LineReader lines{text};
        std::string_view line;
        std::vector<std::string_view> tok;
        if (!lines.next(line) || line != "ply") return fail("not a PLY file (the first line is not 'ply')");
        bool haveFormat = false;
        while (true) {
            if (!lines.next(line)) return fail("the PLY header has no end_header line");
            const auto where = [&] { return "header line " + std::to_string(lines.lineNumber); };
            tokenize(line, tok);
            if (tok.empty()) continue;
            const std::string_view key = tok[0];
            if (key == "comment" || key == "obj_info") continue;
            if (key == "end_header") {
                if (tok.size() != 1) return fail(where() + ": text after end_header");
                break;
            }
            if (key == "format") {
                if (haveFormat) return fail(where() + ": a second format line");
                if (tok.size() != 3) return fail(where() + ": expected 'format <encoding> 1.0'");
                if (tok[1] == "ascii")
                    header.encoding = PlyEncoding::Ascii;
                else if (tok[1] == "binary_little_endian")
                    header.encoding = PlyEncoding::BinaryLittle;
                else if (tok[1] == "binary_big_endian")
                    header.encoding = PlyEncoding::BinaryBig;
                else
                    return fail(where() + ": unknown PLY encoding " + quote(tok[1]) +
                                " (ascii, binary_little_endian, binary_big_endian)");
                if (tok[2] != "1.0") return fail(where() + ": PLY version " + quote(tok[2]) + ", only 1.0 is known");
                haveFormat = true;
                continue;
            }
            if (!haveFormat) return fail(where() + ": " + quote(key) + " before the format line");
            if (key == "element") {
                if (tok.size() != 3) return fail(where() + ": expected 'element <name> <count>'");
                PlyElement e;
                e.name = tok[1];
                e.headerLine = lines.lineNumber;
                if (!parseUnsigned(tok[2], e.count))
                    return fail(where() + ": element " + quote(tok[1]) + " has count " + quote(tok[2]) +
                                ", not a non-negative integer");
                for (const auto& other : header.elements)
                    if (other.name == e.name) return fail(where() + ": a second element " + quote(e.name));
                header.elements.push_back(std::move(e));
                continue;
            }
            if (key == "property") {
                if (header.elements.empty()) return fail(where() + ": property before any element");
                PlyElement& e = header.elements.back();
                PlyProperty p;
                if (tok.size() >= 2 && tok[1] == "list") {
                    if (tok.size() != 5)
                        return fail(where() + ": expected 'property list <count type> <item type> <name>'");
                    const auto ct = plyType(tok[2]);
                    const auto it = plyType(tok[3]);
                    if (!ct) return fail(where() + ": unknown property type " + quote(tok[2]));
                    if (!it) return fail(where() + ": unknown property type " + quote(tok[3]));
                    if (!plyTypeIsInteger(*ct))
                        return fail(where() + ": list count type " + quote(tok[2]) + " is not an integer type");
                    p.list = true;
                    p.countType = *ct;
                    p.type = *it;
                    p.name = tok[4];
                    p.typeText = "list " + std::string(tok[2]) + " " + std::string(tok[3]);
                } else {
                    if (tok.size() != 3) return fail(where() + ": expected 'property <type> <name>'");
                    const auto t = plyType(tok[1]);
                    if (!t) return fail(where() + ": unknown property type " + quote(tok[1]));
                    p.type = *t;
                    p.name = tok[2];
                    p.typeText = tok[1];
                }
                for (const auto& other : e.properties)
                    if (other.name == p.name)
                        return fail(where() + ": element " + quote(e.name) + " has a second property " + quote(p.name));
                e.properties.push_back(std::move(p));
                continue;
            }
            return fail(where() + ": unknown header keyword " + quote(key));
        }
        if (!haveFormat) return fail("the PLY header has no format line");
        header.dataOffset = lines.pos;
        header.headerLines = lines.lineNumber;
        return {};
    }

    // Index of x, y, z in the vertex element; errors for missing or unusable ones.
    Status findXyz(const PlyElement& vertex, int xyz[3]) {
        for (int k = 0; k < 3; ++k) {
            const std::string name(1, "xyz"[k]);
            xyz[k] = -1;
            for (size_t i = 0; i < vertex.properties.size(); ++i)
                if (vertex.properties[i].name == name) xyz[k] = int(i);
            if (xyz[k] < 0)
                return fail("element 'vertex' (header line " + std::to_string(vertex.headerLine) +
                            ") has no property " + quote(name));
            const PlyProperty& p = vertex.properties[size_t(xyz[k])];
            if (p.list || (p.type != PlyType::Float32 && p.type != PlyType::Float64))
                return fail("property " + quote(name) + " of element 'vertex' has type " + quote(p.typeText) +
                            "; x, y and z must be float or double");
        }
        return {};
    }

    Status parsePly() {
        PlyHeader header;
        PYRAMARCH_TRY(parseHeader(header));
        const PlyElement* vertex = nullptr;
        for (const auto& e : header.elements)
            if (e.name == "vertex") vertex = &e;
        if (!vertex) return fail("the PLY header declares no element 'vertex'");
        int xyz[3];
        PYRAMARCH_TRY(findXyz(*vertex, xyz));
        if (vertex->count > maxParticles_)
            return fail("element 'vertex' (header line " + std::to_string(vertex->headerLine) + ") declares " +
                        std::to_string(vertex->count) + " vertices, more than " + limitText());
        if (header.encoding == PlyEncoding::Ascii) return parsePlyAscii(header, xyz);
        return parsePlyBinary(header, xyz, header.encoding == PlyEncoding::BinaryBig);
    }

    Status parsePlyAscii(const PlyHeader& header, const int xyz[3]) {
        const std::string_view text(reinterpret_cast<const char*>(bytes_.data()), bytes_.size());
        LineReader lines{text, header.dataOffset, header.headerLines};
        std::vector<std::string_view> tok;
        std::string_view line;
        for (const PlyElement& e : header.elements) {
            if (e.properties.empty()) continue; // records without values take no line
            const bool isVertex = e.name == "vertex";
            if (isVertex) // a record is at least "0 0 0\n"
                set_.xyz.reserve(size_t(std::min<uint64_t>(e.count, (bytes_.size() - header.dataOffset) / 6 + 1) * 3));
            for (uint64_t r = 0; r < e.count; ++r) {
                do {
                    if (!lines.next(line))
                        return fail("the data ends at line " + std::to_string(lines.lineNumber) + " after " +
                                    std::to_string(r) + " of " + std::to_string(e.count) + " records of element " +
                                    quote(e.name) + " (header line " + std::to_string(e.headerLine) + ")");
                } while (blank(line));
                tokenize(line, tok);
                const auto where = [&] {
                    return "line " + std::to_string(lines.lineNumber) + " (element " + quote(e.name) + " record " +
                           std::to_string(r) + ")";
                };
                size_t t = 0;
                float v[3] = {0.f, 0.f, 0.f};
                for (size_t pi = 0; pi < e.properties.size(); ++pi) {
                    const PlyProperty& p = e.properties[pi];
                    if (t >= tok.size())
                        return fail(where() + ": " + std::to_string(tok.size()) + " values, property " + quote(p.name) +
                                    " is missing");
                    if (p.list) {
                        uint64_t n = 0;
                        if (!parseUnsigned(tok[t], n))
                            return fail(where() + ": list count " + quote(tok[t]) + " of property " + quote(p.name) +
                                        " is not a non-negative integer");
                        ++t;
                        if (n > tok.size() - t)
                            return fail(where() + ": list " + quote(p.name) + " declares " + std::to_string(n) +
                                        " items, the line has " + std::to_string(tok.size() - t) + " values left");
                        t += size_t(n);
                        continue;
                    }
                    if (isVertex)
                        for (int k = 0; k < 3; ++k)
                            if (int(pi) == xyz[k])
                                PYRAMARCH_TRY(parseCoordinate(tok[t], p.type == PlyType::Float64, k, where, v[k]));
                    ++t;
                }
                if (t != tok.size())
                    return fail(where() + ": " + std::to_string(tok.size()) + " values, the header declares " +
                                std::to_string(t));
                if (isVertex) set_.xyz.insert(set_.xyz.end(), v, v + 3);
            }
        }
        while (lines.next(line))
            if (!blank(line))
                return fail("line " + std::to_string(lines.lineNumber) +
                            ": data after the last record the header declares");
        return {};
    }

    Status truncated(const PlyElement& e, uint64_t record, uint64_t offset) const {
        return fail("binary data truncated in element " + quote(e.name) + " record " + std::to_string(record) + " of " +
                    std::to_string(e.count) + " (byte offset " + std::to_string(offset) + ", the file has " +
                    std::to_string(bytes_.size()) + " bytes)");
    }

    double loadReal(const uint8_t* p, PlyType t, bool big) const {
        return t == PlyType::Float32 ? double(loadBinary<float>(p, big)) : loadBinary<double>(p, big);
    }

    Status parsePlyBinary(const PlyHeader& header, const int xyz[3], bool big) {
        const uint64_t size = bytes_.size();
        uint64_t pos = header.dataOffset;
        for (const PlyElement& e : header.elements) {
            const bool isVertex = e.name == "vertex";
            if (!e.hasList()) {
                uint64_t recordSize = 0;
                uint64_t offsets[3] = {0, 0, 0};
                for (size_t pi = 0; pi < e.properties.size(); ++pi) {
                    for (int k = 0; k < 3; ++k)
                        if (isVertex && int(pi) == xyz[k]) offsets[k] = recordSize;
                    recordSize += plyTypeSize(e.properties[pi].type);
                }
                if (recordSize == 0) continue;
                const uint64_t left = size - pos;
                if (e.count > left / recordSize) {
                    const uint64_t whole = left / recordSize; // first record that does not fit
                    return truncated(e, whole, pos + whole * recordSize);
                }
                if (isVertex) {
                    set_.xyz.reserve(size_t(e.count * 3));
                    for (uint64_t r = 0; r < e.count; ++r) {
                        const uint8_t* rec = bytes_.data() + pos + r * recordSize;
                        double v[3];
                        for (int k = 0; k < 3; ++k)
                            v[k] = loadReal(rec + offsets[k], e.properties[size_t(xyz[k])].type, big);
                        PYRAMARCH_TRY(add(v[0], v[1], v[2], [&] {
                            return "element 'vertex' record " + std::to_string(r) + " (byte offset " +
                                   std::to_string(pos + r * recordSize) + ")";
                        }));
                    }
                }
                pos += e.count * recordSize;
                continue;
            }
            // Records with lists: walked one by one; each takes at least one
            // byte (the count), so the loop is bounded by the file size.
            for (uint64_t r = 0; r < e.count; ++r) {
                const uint64_t start = pos;
                double v[3] = {0, 0, 0};
                for (size_t pi = 0; pi < e.properties.size(); ++pi) {
                    const PlyProperty& p = e.properties[pi];
                    if (p.list) {
                        const uint64_t cs = plyTypeSize(p.countType);
                        if (size - pos < cs) return truncated(e, r, start);
                        uint64_t n = 0;
                        if (!loadCount(bytes_.data() + pos, p.countType, big, n))
                            return fail("element " + quote(e.name) + " record " + std::to_string(r) + " (byte offset " +
                                        std::to_string(pos) + "): negative list count in property " + quote(p.name));
                        pos += cs;
                        const uint64_t is = plyTypeSize(p.type);
                        if (n > (size - pos) / is) return truncated(e, r, start);
                        pos += n * is;
                        continue;
                    }
                    const uint64_t s = plyTypeSize(p.type);
                    if (size - pos < s) return truncated(e, r, start);
                    if (isVertex)
                        for (int k = 0; k < 3; ++k)
                            if (int(pi) == xyz[k]) v[k] = loadReal(bytes_.data() + pos, p.type, big);
                    pos += s;
                }
                if (isVertex)
                    PYRAMARCH_TRY(add(v[0], v[1], v[2], [&] {
                        return "element 'vertex' record " + std::to_string(r) + " (byte offset " +
                               std::to_string(start) + ")";
                    }));
            }
        }
        if (pos != size)
            return fail(std::to_string(size - pos) + " bytes after the last record the header declares (byte offset " +
                        std::to_string(pos) + "): the header's counts do not match the data");
        return {};
    }
};

struct FileCloser {
    void operator()(FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<FILE, FileCloser>;

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
    return out;
}

} // namespace

const char* particleFormatName(ParticleFormat format) {
    switch (format) {
    case ParticleFormat::Auto: return "auto";
    case ParticleFormat::Ply: return "ply";
    case ParticleFormat::Xyz: return "xyz";
    case ParticleFormat::F32: return "f32";
    }
    return "?";
}

Result<ParticleFormat> particleFormatFromPath(std::string_view path) {
    const std::string ext = lower(std::filesystem::path(path).extension().string());
    if (ext == ".ply") return ParticleFormat::Ply;
    if (ext == ".xyz") return ParticleFormat::Xyz;
    if (ext == ".f32") return ParticleFormat::F32;
    return Status::error(ErrorCode::InvalidArgument, quote(path) + ": unknown particle file extension " +
                                                         quote(ext.empty() ? "(none)" : ext) +
                                                         " (.ply, .xyz or .f32; or name the format explicitly)");
}

Result<ParticleSet> parseParticles(std::span<const uint8_t> bytes, ParticleFormat format, std::string_view name,
                                   uint64_t maxParticles) {
    return ParticleParser(bytes, name, maxParticles).parse(format);
}

Result<ParticleSet> readParticles(const std::string& path, const ParticleReadOptions& options) {
    ParticleFormat format = options.format;
    if (format == ParticleFormat::Auto) {
        auto f = particleFormatFromPath(path);
        if (!f) return f.status();
        format = *f;
    }
    std::error_code ec;
    const auto st = std::filesystem::status(path, ec);
    if (std::filesystem::is_directory(st))
        return Status::error(ErrorCode::Io, "cannot read " + quote(path) + ": it is a directory");
    File file(std::fopen(path.c_str(), "rb"));
    if (!file)
        return Status::error(errno == ENOENT ? ErrorCode::NotFound : ErrorCode::Io,
                             "cannot open " + quote(path) + ": " + std::strerror(errno));
    const uint64_t size = std::filesystem::file_size(path, ec);
    if (ec) return Status::error(ErrorCode::Io, "cannot read the size of " + quote(path) + ": " + ec.message());
    // Checked before reading: a huge raw file is refused without loading it.
    if (format == ParticleFormat::F32) PYRAMARCH_TRY(checkF32Size(path, size, options.maxParticles));
    if (size > std::numeric_limits<size_t>::max() / 2)
        return Status::error(ErrorCode::Io, quote(path) + ": " + std::to_string(size) + " bytes is too large to read");
    std::vector<uint8_t> bytes(static_cast<size_t>(size));
    if (size > 0 && std::fread(bytes.data(), 1, bytes.size(), file.get()) != bytes.size())
        return Status::error(ErrorCode::Io,
                             "reading " + quote(path) + " failed" +
                                 (std::ferror(file.get()) ? std::string(": ") + std::strerror(errno)
                                                          : std::string(": it is shorter than its size")));
    return parseParticles(bytes, format, path, options.maxParticles);
}

std::vector<uint8_t> encodeParticlesPly(std::span<const float> xyz) {
    const size_t count = xyz.size() / 3;
    const std::string header = "ply\nformat binary_little_endian 1.0\ncomment pyramarch particles\nelement vertex " +
                               std::to_string(count) +
                               "\nproperty float x\nproperty float y\nproperty float z\nend_header\n";
    std::vector<uint8_t> out(header.size() + count * 12);
    std::memcpy(out.data(), header.data(), header.size());
    uint8_t* p = out.data() + header.size();
    for (size_t i = 0; i < count * 3; ++i, p += 4) {
        uint8_t b[4];
        std::memcpy(b, &xyz[i], 4);
        if constexpr (std::endian::native == std::endian::big) std::reverse(b, b + 4);
        std::memcpy(p, b, 4);
    }
    return out;
}

Status writeParticlesPly(const std::string& path, std::span<const float> xyz) {
    const std::vector<uint8_t> bytes = encodeParticlesPly(xyz);
    File f(std::fopen(path.c_str(), "wb"));
    if (!f) return Status::error(ErrorCode::Io, "cannot open " + quote(path) + " for writing: " + std::strerror(errno));
    if (std::fwrite(bytes.data(), 1, bytes.size(), f.get()) != bytes.size())
        return Status::error(ErrorCode::Io, "writing " + quote(path) + " failed: " + std::strerror(errno));
    if (std::fclose(f.release()) != 0)
        return Status::error(ErrorCode::Io, "writing " + quote(path) + " failed: " + std::strerror(errno));
    return {};
}

// ---------------------------------------------------------------- sequences

bool isSequencePattern(std::string_view pattern) { return pattern.find("{}") != std::string_view::npos; }

std::string sequencePath(std::string_view pattern, std::string_view indexText) {
    const size_t at = pattern.find("{}");
    if (at == std::string_view::npos) return std::string(pattern);
    std::string out(pattern.substr(0, at));
    out += indexText;
    out += pattern.substr(at + 2);
    return out;
}

Result<std::vector<SequenceFrame>> expandSequence(const std::string& pattern) {
    const size_t at = pattern.find("{}");
    if (at == std::string::npos)
        return Status::error(ErrorCode::InvalidArgument, "sequence pattern " + quote(pattern) + " has no '{}'");
    if (pattern.find("{}", at + 2) != std::string::npos)
        return Status::error(ErrorCode::InvalidArgument,
                             "sequence pattern " + quote(pattern) + " has more than one '{}'");
    const size_t slash = pattern.find_last_of('/');
    if (slash != std::string::npos && slash > at)
        return Status::error(ErrorCode::InvalidArgument, "sequence pattern " + quote(pattern) +
                                                             ": '{}' must be in the file name, not the directory");
    const std::string dirText = slash == std::string::npos ? std::string() : pattern.substr(0, slash + 1);
    const std::string prefix = pattern.substr(dirText.size(), at - dirText.size());
    const std::string suffix = pattern.substr(at + 2);
    const std::filesystem::path dir = dirText.empty() ? std::filesystem::path(".") : std::filesystem::path(dirText);

    std::error_code ec;
    std::filesystem::directory_iterator it(dir, ec);
    if (ec)
        return Status::error(ErrorCode::NotFound, "sequence pattern " + quote(pattern) + ": cannot list directory " +
                                                      quote(dir.string()) + ": " + ec.message());
    std::vector<SequenceFrame> frames;
    for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
        if (ec) break;
        const std::string name = it->path().filename().string();
        if (name.size() <= prefix.size() + suffix.size()) continue;
        if (name.compare(0, prefix.size(), prefix) != 0) continue;
        if (name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
        const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
        if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
        std::error_code fe;
        if (!std::filesystem::is_regular_file(it->path(), fe)) continue;
        SequenceFrame f;
        auto [ptr, pe] = std::from_chars(digits.data(), digits.data() + digits.size(), f.index, 10);
        if (pe != std::errc() || ptr != digits.data() + digits.size())
            return Status::error(ErrorCode::InvalidArgument, "sequence pattern " + quote(pattern) + ": the index of " +
                                                                 quote(name) + " does not fit in 64 bits");
        f.indexText = digits;
        f.path = sequencePath(pattern, digits);
        frames.push_back(std::move(f));
    }
    if (ec)
        return Status::error(ErrorCode::Io, "sequence pattern " + quote(pattern) + ": listing " + quote(dir.string()) +
                                                " failed: " + ec.message());
    if (frames.empty())
        return Status::error(ErrorCode::NotFound, "sequence pattern " + quote(pattern) + ": no file in " +
                                                      quote(dir.string()) + " matches " +
                                                      quote(prefix + "<digits>" + suffix));
    std::sort(frames.begin(), frames.end(), [](const SequenceFrame& a, const SequenceFrame& b) {
        return a.index != b.index ? a.index < b.index : a.indexText < b.indexText;
    });
    for (size_t i = 1; i < frames.size(); ++i)
        if (frames[i].index == frames[i - 1].index)
            return Status::error(ErrorCode::InvalidArgument,
                                 "sequence pattern " + quote(pattern) + ": " + quote(frames[i - 1].path) + " and " +
                                     quote(frames[i].path) + " have the same index " + std::to_string(frames[i].index));
    return frames;
}

} // namespace pyramarch::iso
