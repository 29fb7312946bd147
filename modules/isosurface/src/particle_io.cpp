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

#include <zlib.h>

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

std::string upper(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c >= 'a' && c <= 'z') c = char(c - 'a' + 'A');
    return out;
}

// ---------------------------------------------------------------- numeric types of VTK files

// Value types of legacy VTK and VTK XML arrays.
enum class NumType { I8, U8, I16, U16, I32, U32, I64, U64, F32, F64 };

size_t numTypeSize(NumType t) {
    switch (t) {
    case NumType::I8:
    case NumType::U8: return 1;
    case NumType::I16:
    case NumType::U16: return 2;
    case NumType::I32:
    case NumType::U32:
    case NumType::F32: return 4;
    case NumType::I64:
    case NumType::U64:
    case NumType::F64: return 8;
    }
    return 1;
}

double loadNum(const uint8_t* p, NumType t, bool big) {
    switch (t) {
    case NumType::I8: return loadBinary<int8_t>(p, big);
    case NumType::U8: return loadBinary<uint8_t>(p, big);
    case NumType::I16: return loadBinary<int16_t>(p, big);
    case NumType::U16: return loadBinary<uint16_t>(p, big);
    case NumType::I32: return loadBinary<int32_t>(p, big);
    case NumType::U32: return loadBinary<uint32_t>(p, big);
    case NumType::I64: return double(loadBinary<int64_t>(p, big));
    case NumType::U64: return double(loadBinary<uint64_t>(p, big));
    case NumType::F32: return loadBinary<float>(p, big);
    case NumType::F64: return loadBinary<double>(p, big);
    }
    return 0;
}

// Legacy VTK type names (case-insensitive, as written by VTK 2 to 5.1).
std::optional<NumType> legacyVtkType(std::string_view name) {
    std::string n(name);
    for (char& c : n)
        if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
    static const std::pair<const char*, NumType> kTypes[] = {
        {"char", NumType::I8},
        {"signed_char", NumType::I8},
        {"unsigned_char", NumType::U8},
        {"short", NumType::I16},
        {"unsigned_short", NumType::U16},
        {"int", NumType::I32},
        {"unsigned_int", NumType::U32},
        {"long", NumType::I64},
        {"unsigned_long", NumType::U64},
        {"vtkidtype", NumType::I64},
        {"float", NumType::F32},
        {"double", NumType::F64},
        {"vtktypeint8", NumType::I8},
        {"vtktypeuint8", NumType::U8},
        {"vtktypeint16", NumType::I16},
        {"vtktypeuint16", NumType::U16},
        {"vtktypeint32", NumType::I32},
        {"vtktypeuint32", NumType::U32},
        {"vtktypeint64", NumType::I64},
        {"vtktypeuint64", NumType::U64},
        {"vtktypefloat32", NumType::F32},
        {"vtktypefloat64", NumType::F64},
    };
    for (const auto& [s, t] : kTypes)
        if (n == s) return t;
    return std::nullopt;
}

// VTK XML type names.
std::optional<NumType> xmlVtkType(std::string_view name) {
    static const std::pair<const char*, NumType> kTypes[] = {
        {"Int8", NumType::I8},     {"UInt8", NumType::U8},    {"Int16", NumType::I16}, {"UInt16", NumType::U16},
        {"Int32", NumType::I32},   {"UInt32", NumType::U32},  {"Int64", NumType::I64}, {"UInt64", NumType::U64},
        {"Float32", NumType::F32}, {"Float64", NumType::F64}, {"Char", NumType::I8},   {"UChar", NumType::U8},
    };
    for (const auto& [s, t] : kTypes)
        if (name == s) return t;
    return std::nullopt;
}

bool isWhite(uint8_t c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

// count items of `each` bytes fit in `left` bytes (no overflow).
bool fits(uint64_t count, uint64_t each, uint64_t left) { return each == 0 || count <= left / each; }

// Deflate expands at most 1032:1; a zlib or gzip stream cannot inflate to more.
constexpr uint64_t kMaxInflateRatio = 1032;

// ---------------------------------------------------------------- base64

int base64Value(uint8_t c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

// Bytes read in order from raw data or from base64 text decoded on demand
// (groups of four characters, whitespace skipped; '=' padding may end any
// group, so separately encoded header and data decode as one stream).
class ByteSource {
public:
    ByteSource(std::span<const uint8_t> data, bool base64) : data_(data), base64_(base64) {}
    // The next n bytes (valid until the next call); an empty error text on
    // success, else what went wrong.
    std::string take(uint64_t n, const uint8_t*& out) {
        if (!base64_) {
            if (n > data_.size() - pos_)
                return "needs " + std::to_string(n) + " bytes, " + std::to_string(data_.size() - pos_) + " left";
            out = data_.data() + pos_;
            pos_ += size_t(n);
            return {};
        }
        if (n > maxLeft())
            return "needs " + std::to_string(n) + " bytes, the base64 text holds at most " + std::to_string(maxLeft());
        buf_.erase(buf_.begin(), buf_.begin() + std::ptrdiff_t(used_));
        used_ = 0;
        while (buf_.size() < n) {
            int v[4];
            int got = 0;
            while (got < 4 && pos_ < data_.size()) {
                const uint8_t c = data_[pos_];
                if (isWhite(c)) {
                    ++pos_;
                    continue;
                }
                if (c == '=') {
                    v[got++] = -2;
                    ++pos_;
                    continue;
                }
                const int b = base64Value(c);
                if (b < 0) {
                    if (got == 0 && c == '<')
                        return "base64 text ends after " + std::to_string(buf_.size()) + " of " + std::to_string(n) +
                               " bytes";
                    return "character " + quote(std::string(1, char(c))) + " is not base64";
                }
                v[got++] = b;
                ++pos_;
            }
            if (got == 0)
                return "base64 text ends after " + std::to_string(buf_.size()) + " of " + std::to_string(n) + " bytes";
            if (got < 4 || v[0] < 0 || v[1] < 0 || (v[2] == -2 && v[3] != -2)) return "a broken base64 group";
            const uint32_t w = uint32_t(v[0]) << 18 | uint32_t(v[1]) << 12 | uint32_t(std::max(v[2], 0)) << 6 |
                               uint32_t(std::max(v[3], 0));
            buf_.push_back(uint8_t(w >> 16));
            if (v[2] >= 0) buf_.push_back(uint8_t(w >> 8));
            if (v[2] >= 0 && v[3] >= 0) buf_.push_back(uint8_t(w));
        }
        out = buf_.data();
        used_ = size_t(n);
        return {};
    }
    // An upper bound of the bytes left (for size checks before allocating).
    uint64_t maxLeft() const {
        const uint64_t rest = data_.size() - pos_;
        return base64_ ? (buf_.size() - used_) + rest / 4 * 3 + 3 : rest;
    }
    size_t position() const { return pos_; }

private:
    std::span<const uint8_t> data_;
    bool base64_;
    size_t pos_ = 0;
    std::vector<uint8_t> buf_;
    size_t used_ = 0;
};

// ---------------------------------------------------------------- zlib

// Inflates a gzip (or zlib) stream, concatenated gzip members included, into
// at most maxBytes bytes; an error text, empty on success.
std::string inflateAll(std::span<const uint8_t> in, uint64_t maxBytes, std::vector<uint8_t>& out) {
    z_stream z{};
    if (inflateInit2(&z, 15 + 32) != Z_OK) return "zlib inflateInit2 failed";
    z.next_in = const_cast<Bytef*>(in.data());
    std::string err;
    size_t inLeft = in.size();
    const size_t chunk = 1 << 20;
    while (true) {
        const uInt feed = uInt(std::min<size_t>(inLeft, 1u << 30));
        z.avail_in = feed;
        if (out.size() >= maxBytes) {
            err = "more than " + std::to_string(maxBytes) + " bytes after decompression (maxBytes)";
            break;
        }
        const size_t old = out.size();
        const size_t grow = size_t(std::min<uint64_t>(chunk, maxBytes - old));
        out.resize(old + grow);
        z.next_out = out.data() + old;
        z.avail_out = uInt(grow);
        const int rc = inflate(&z, Z_NO_FLUSH);
        out.resize(old + grow - z.avail_out);
        inLeft -= feed - z.avail_in;
        if (rc == Z_STREAM_END) {
            // Another gzip member may follow (trailing zero padding ends it).
            const uint8_t* rest = z.next_in;
            if (inLeft >= 2 && rest[0] == 0x1f && rest[1] == 0x8b) {
                if (inflateReset(&z) != Z_OK) {
                    err = "zlib inflateReset failed";
                    break;
                }
                continue;
            }
            break;
        }
        if (rc == Z_BUF_ERROR && inLeft == 0) {
            err = "the compressed stream is truncated (at compressed byte offset " + std::to_string(in.size()) + ")";
            break;
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            err = std::string("the compressed data is corrupt (zlib: ") + (z.msg ? z.msg : "error") +
                  ", at compressed byte offset " + std::to_string(in.size() - inLeft) + ")";
            break;
        }
    }
    inflateEnd(&z);
    return err;
}

// One zlib block of a VTK XML array, of exactly `size` bytes when inflated.
std::string inflateBlock(const uint8_t* in, uint64_t inSize, uint8_t* out, uint64_t size) {
    uLongf got = uLongf(size);
    const int rc = uncompress(out, &got, in, uLong(inSize));
    if (rc != Z_OK)
        return std::string("zlib: ") + (rc == Z_BUF_ERROR ? "the block inflates to more than its size or is truncated"
                                        : rc == Z_DATA_ERROR ? "corrupt data"
                                                             : "error " + std::to_string(rc));
    if (got != size) return "the block inflates to " + std::to_string(got) + " bytes, not " + std::to_string(size);
    return {};
}

// ---------------------------------------------------------------- a tiny XML scanner (VTK XML files)

struct XmlTag {
    std::string_view name;
    bool end = false;       // </name>
    bool selfClose = false; // <name ... />
    std::vector<std::pair<std::string_view, std::string_view>> attrs;
    size_t begin = 0, after = 0; // '<' and the byte after '>'
    std::string_view attr(std::string_view key) const {
        for (const auto& [k, v] : attrs)
            if (k == key) return v;
        return {};
    }
    bool has(std::string_view key) const {
        for (const auto& [k, v] : attrs)
            if (k == key) return true;
        return false;
    }
};

bool isNameChar(char c) { return !(isWhite(uint8_t(c)) || c == '/' || c == '>' || c == '=' || c == '<'); }

// The next tag at or after pos (comments, <?...?> and <!...> skipped); false
// at the end of the text or on an error (error then says what, at which byte).
bool nextXmlTag(std::string_view text, size_t& pos, XmlTag& tag, std::string& error) {
    while (true) {
        const size_t lt = text.find('<', pos);
        if (lt == std::string_view::npos) return false;
        auto skipTo = [&](std::string_view endMark) {
            const size_t e = text.find(endMark, lt);
            if (e == std::string_view::npos) {
                error = "unterminated markup at byte offset " + std::to_string(lt);
                return false;
            }
            pos = e + endMark.size();
            return true;
        };
        if (text.substr(lt, 4) == "<!--") {
            if (!skipTo("-->")) return false;
            continue;
        }
        if (text.substr(lt, 2) == "<?") {
            if (!skipTo("?>")) return false;
            continue;
        }
        if (text.substr(lt, 2) == "<!") {
            if (!skipTo(">")) return false;
            continue;
        }
        tag = XmlTag{};
        tag.begin = lt;
        size_t i = lt + 1;
        if (i < text.size() && text[i] == '/') {
            tag.end = true;
            ++i;
        }
        const size_t nameStart = i;
        while (i < text.size() && isNameChar(text[i])) ++i;
        tag.name = text.substr(nameStart, i - nameStart);
        if (tag.name.empty()) {
            error = "a tag without a name at byte offset " + std::to_string(lt);
            return false;
        }
        while (true) {
            while (i < text.size() && isWhite(uint8_t(text[i]))) ++i;
            if (i >= text.size()) {
                error = "tag <" + std::string(tag.name) + "> at byte offset " + std::to_string(lt) + " is not closed";
                return false;
            }
            if (text[i] == '>') {
                tag.after = i + 1;
                break;
            }
            if (text[i] == '/' && i + 1 < text.size() && text[i + 1] == '>') {
                tag.selfClose = true;
                tag.after = i + 2;
                break;
            }
            const size_t keyStart = i;
            while (i < text.size() && isNameChar(text[i])) ++i;
            const std::string_view key = text.substr(keyStart, i - keyStart);
            while (i < text.size() && isWhite(uint8_t(text[i]))) ++i;
            if (key.empty() || i >= text.size() || text[i] != '=') {
                error = "tag <" + std::string(tag.name) + "> at byte offset " + std::to_string(lt) +
                        ": an attribute without '=\"value\"' at byte offset " + std::to_string(i);
                return false;
            }
            ++i;
            while (i < text.size() && isWhite(uint8_t(text[i]))) ++i;
            if (i >= text.size() || (text[i] != '"' && text[i] != '\'')) {
                error = "tag <" + std::string(tag.name) + "> at byte offset " + std::to_string(lt) + ": attribute " +
                        quote(key) + " has no quoted value";
                return false;
            }
            const char q = text[i];
            const size_t close = text.find(q, i + 1);
            if (close == std::string_view::npos) {
                error = "tag <" + std::string(tag.name) + "> at byte offset " + std::to_string(lt) + ": attribute " +
                        quote(key) + " is not closed";
                return false;
            }
            tag.attrs.emplace_back(key, text.substr(i + 1, close - i - 1));
            i = close + 1;
        }
        pos = tag.after;
        return true;
    }
}

class ParticleParser {
public:
    ParticleParser(std::span<const uint8_t> bytes, std::string_view name, const ParticleReadOptions& options)
        : bytes_(bytes), name_(name), maxParticles_(options.maxParticles), options_(options) {}

    Result<ParticleSet> parse(ParticleFormat format) {
        Status s;
        switch (format) {
        case ParticleFormat::Ply: s = parsePly(); break;
        case ParticleFormat::Xyz: s = parseXyz(); break;
        case ParticleFormat::F32: s = parseF32(); break;
        case ParticleFormat::Vtk: s = parseVtk(); break;
        case ParticleFormat::Vtu: s = parseVtu(); break;
        case ParticleFormat::Bgeo: s = parseBgeo(); break;
        case ParticleFormat::Auto:
            return Status::error(ErrorCode::InvalidArgument,
                                 quote(name_) + ": parseParticles needs an explicit format, not Auto");
        }
        if (!s) return s;
        PYRAMARCH_TRY(finish());
        return std::move(set_);
    }

private:
    std::span<const uint8_t> bytes_;
    std::string name_;
    uint64_t maxParticles_;
    const ParticleReadOptions& options_;
    ParticleSet set_;
    // Every numeric point attribute the file has (for the error naming a
    // missing one), and the ones read, in file order.
    std::vector<std::string> seen_;
    std::vector<ParticleAttribute> attrs_;

    Status fail(const std::string& what) const {
        return Status::error(ErrorCode::ParseError, quote(name_) + ": " + what);
    }
    Status failLimit(const std::string& what) const {
        return Status::error(ErrorCode::CapacityExceeded, quote(name_) + ": " + what);
    }
    bool dropNonFinite() const { return options_.nonFinite == NonFinitePolicy::Drop; }

    // A point attribute the file has: true when the caller wants it read.
    bool wants(std::string_view attributeName) {
        if (std::find(seen_.begin(), seen_.end(), attributeName) == seen_.end()) seen_.emplace_back(attributeName);
        return options_.allAttributes || std::find(options_.attributes.begin(), options_.attributes.end(),
                                                   attributeName) != options_.attributes.end();
    }
    // The attribute being read (appended to when a later piece has it again).
    ParticleAttribute* attributeSlot(std::string_view attributeName, uint32_t components) {
        for (auto& a : attrs_)
            if (a.name == attributeName) return a.components == components ? &a : nullptr;
        attrs_.push_back({std::string(attributeName), components, {}});
        return &attrs_.back();
    }

    // Drops the particles the options do not keep (with their attribute
    // values), orders the attributes as asked and computes the bounds.
    Status finish() {
        const size_t n = set_.count();
        for (const auto& a : attrs_)
            if (a.values.size() != n * a.components)
                return fail("point attribute " + quote(a.name) + " has " +
                            std::to_string(a.values.size() / std::max(a.components, 1u)) + " values for " +
                            std::to_string(n) + " points");
        size_t kept = 0;
        for (size_t i = 0; i < n; ++i) {
            const float* p = set_.xyz.data() + i * 3;
            if (!(std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2]))) {
                ++set_.dropped.nonFinite;
                continue;
            }
            if (options_.box && !options_.box->contains(p[0], p[1], p[2])) {
                ++set_.dropped.outsideBox;
                continue;
            }
            if (kept != i) {
                std::copy(p, p + 3, set_.xyz.data() + kept * 3);
                for (auto& a : attrs_)
                    std::copy_n(a.values.data() + i * a.components, a.components,
                                a.values.data() + kept * a.components);
            }
            ++kept;
        }
        set_.xyz.resize(kept * 3);
        for (auto& a : attrs_) a.values.resize(kept * a.components);
        if (options_.allAttributes) {
            set_.attributes = std::move(attrs_);
        } else {
            for (const std::string& want : options_.attributes) {
                auto it = std::find_if(attrs_.begin(), attrs_.end(),
                                       [&](const ParticleAttribute& a) { return a.name == want; });
                if (it == attrs_.end()) {
                    std::string have;
                    for (const auto& h : seen_) have += (have.empty() ? "" : ", ") + quote(h);
                    return Status::error(ErrorCode::NotFound, quote(name_) + ": no point attribute " + quote(want) +
                                                                  " (the file has " +
                                                                  (have.empty() ? std::string("none") : have) + ")");
                }
                if (std::none_of(set_.attributes.begin(), set_.attributes.end(),
                                 [&](const ParticleAttribute& a) { return a.name == want; }))
                    set_.attributes.push_back(std::move(*it));
            }
        }
        set_.bounds = particleBounds(set_.xyz);
        return {};
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
            if (!std::isfinite(f[k]) && !dropNonFinite())
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
        if (!std::isfinite(out) && !dropNonFinite()) {
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
            if (set_.count() >= maxParticles_) return failLimit(where() + ": more particles than " + limitText());
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
        // The vertex element's other scalar properties: attributes.
        plyAttr_.assign(vertex->properties.size(), -1);
        for (size_t i = 0; i < vertex->properties.size(); ++i) {
            const PlyProperty& p = vertex->properties[i];
            if (p.list || int(i) == xyz[0] || int(i) == xyz[1] || int(i) == xyz[2] || !wants(p.name)) continue;
            attributeSlot(p.name, 1);
            plyAttr_[i] = int(attrs_.size()) - 1;
        }
        if (vertex->count > maxParticles_)
            return failLimit("element 'vertex' (header line " + std::to_string(vertex->headerLine) + ") declares " +
                             std::to_string(vertex->count) + " vertices, more than " + limitText());
        if (header.encoding == PlyEncoding::Ascii) return parsePlyAscii(header, xyz);
        return parsePlyBinary(header, xyz, header.encoding == PlyEncoding::BinaryBig);
    }

    std::vector<int> plyAttr_; // per vertex property: index in attrs_, or -1

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
                    if (isVertex) {
                        for (int k = 0; k < 3; ++k)
                            if (int(pi) == xyz[k])
                                PYRAMARCH_TRY(parseCoordinate(tok[t], p.type == PlyType::Float64, k, where, v[k]));
                        if (plyAttr_[pi] >= 0) {
                            double d = 0;
                            if (!parseReal(tok[t], d))
                                return fail(where() + ": property " + quote(p.name) + " " + quote(tok[t]) +
                                            " is not a number");
                            attrs_[size_t(plyAttr_[pi])].values.push_back(float(d));
                        }
                    }
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
        switch (t) {
        case PlyType::Int8: return loadBinary<int8_t>(p, big);
        case PlyType::UInt8: return loadBinary<uint8_t>(p, big);
        case PlyType::Int16: return loadBinary<int16_t>(p, big);
        case PlyType::UInt16: return loadBinary<uint16_t>(p, big);
        case PlyType::Int32: return loadBinary<int32_t>(p, big);
        case PlyType::UInt32: return loadBinary<uint32_t>(p, big);
        case PlyType::Float32: return loadBinary<float>(p, big);
        case PlyType::Float64: return loadBinary<double>(p, big);
        }
        return 0;
    }

    Status parsePlyBinary(const PlyHeader& header, const int xyz[3], bool big) {
        const uint64_t size = bytes_.size();
        uint64_t pos = header.dataOffset;
        for (const PlyElement& e : header.elements) {
            const bool isVertex = e.name == "vertex";
            if (!e.hasList()) {
                uint64_t recordSize = 0;
                uint64_t offsets[3] = {0, 0, 0};
                std::vector<std::pair<uint64_t, size_t>> attrOffsets; // (offset in record, property)
                for (size_t pi = 0; pi < e.properties.size(); ++pi) {
                    for (int k = 0; k < 3; ++k)
                        if (isVertex && int(pi) == xyz[k]) offsets[k] = recordSize;
                    if (isVertex && plyAttr_[pi] >= 0) attrOffsets.emplace_back(recordSize, pi);
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
                    for (const auto& [off, pi] : attrOffsets)
                        attrs_[size_t(plyAttr_[pi])].values.reserve(size_t(e.count));
                    for (uint64_t r = 0; r < e.count; ++r) {
                        const uint8_t* rec = bytes_.data() + pos + r * recordSize;
                        for (const auto& [off, pi] : attrOffsets)
                            attrs_[size_t(plyAttr_[pi])].values.push_back(
                                float(loadReal(rec + off, e.properties[pi].type, big)));
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
                    if (isVertex) {
                        for (int k = 0; k < 3; ++k)
                            if (int(pi) == xyz[k]) v[k] = loadReal(bytes_.data() + pos, p.type, big);
                        if (plyAttr_[pi] >= 0)
                            attrs_[size_t(plyAttr_[pi])].values.push_back(
                                float(loadReal(bytes_.data() + pos, p.type, big)));
                    }
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

    // Positions read as floats (binary formats): with NonFinitePolicy::Error
    // the first non-finite one from particle `first` on is an error.
    template <class Where>
    Status checkFinite(size_t first, Where&& where) {
        if (dropNonFinite()) return {};
        for (size_t i = first; i < set_.count(); ++i)
            for (int k = 0; k < 3; ++k) {
                const float v = set_.xyz[i * 3 + size_t(k)];
                if (!std::isfinite(v))
                    return fail(where(i) + ": " + axisName(k) + " = " + numberText(v) +
                                " is not finite (or beyond float range)");
            }
        return {};
    }

    // ------------------------------------------------------------ legacy VTK
    size_t vpos_ = 0;
    bool vtkBinary_ = false;
    int vtkMajor_ = 0;

    std::string vtkWhere(size_t offset) const {
        if (vtkBinary_) return "byte offset " + std::to_string(offset);
        const auto end = bytes_.begin() + std::ptrdiff_t(std::min(offset, bytes_.size()));
        return "line " + std::to_string(1 + std::count(bytes_.begin(), end, uint8_t('\n')));
    }
    // The rest of the current line.
    bool rawLine(std::string_view& line, size_t& lineAt) {
        if (vpos_ >= bytes_.size()) return false;
        lineAt = vpos_;
        const auto* b = reinterpret_cast<const char*>(bytes_.data());
        const void* nl = std::memchr(b + vpos_, '\n', bytes_.size() - vpos_);
        const size_t end = nl ? size_t(static_cast<const char*>(nl) - b) : bytes_.size();
        line = std::string_view(b + vpos_, end - vpos_);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        vpos_ = nl ? end + 1 : end;
        return true;
    }
    // The next non-blank line.
    bool vtkLine(std::string_view& line, size_t& lineAt) {
        while (vpos_ < bytes_.size() && isWhite(bytes_[vpos_])) ++vpos_;
        return rawLine(line, lineAt);
    }

    // `count` values of type t: ASCII tokens or big-endian binary; into
    // `out` (nullptr: read past).
    Status vtkValues(uint64_t count, NumType t, size_t at, const std::string& what, std::vector<float>* out) {
        const uint64_t left = bytes_.size() - vpos_;
        if (!vtkBinary_) {
            if (!fits(count, 2, left + 1))
                return fail(vtkWhere(at) + ": " + what + " declares " + std::to_string(count) +
                            " values, the file has " + std::to_string(left) + " bytes left");
            if (out) out->reserve(out->size() + size_t(count));
            const auto* b = reinterpret_cast<const char*>(bytes_.data());
            for (uint64_t i = 0; i < count; ++i) {
                while (vpos_ < bytes_.size() && isWhite(bytes_[vpos_])) ++vpos_;
                if (vpos_ >= bytes_.size())
                    return fail(vtkWhere(at) + ": " + what + ": the data ends after " + std::to_string(i) + " of " +
                                std::to_string(count) + " values");
                const size_t s = vpos_;
                while (vpos_ < bytes_.size() && !isWhite(bytes_[vpos_])) ++vpos_;
                if (!out) continue;
                const std::string_view tok(b + s, vpos_ - s);
                double d = 0;
                if (!parseReal(tok, d))
                    return fail(vtkWhere(s) + ": " + what + " value " + std::to_string(i) + " " + quote(tok) +
                                " is not a number");
                out->push_back(float(d));
            }
            return {};
        }
        const uint64_t size = numTypeSize(t);
        if (!fits(count, size, left))
            return fail(vtkWhere(at) + ": " + what + ": " + std::to_string(count) + " values of " +
                        std::to_string(size) + " bytes from byte offset " + std::to_string(vpos_) + ", the file has " +
                        std::to_string(left) + " bytes left (truncated)");
        if (out) {
            out->reserve(out->size() + size_t(count));
            const uint8_t* p = bytes_.data() + vpos_;
            for (uint64_t i = 0; i < count; ++i) out->push_back(float(loadNum(p + i * size, t, true)));
        }
        vpos_ += size_t(count * size);
        return {};
    }

    Status parseVtk() {
        std::string_view line;
        size_t at = 0;
        std::vector<std::string_view> tok;
        if (!rawLine(line, at) || !line.starts_with("# vtk DataFile Version"))
            return fail("not a legacy VTK file (the first line is not '# vtk DataFile Version ...')");
        tokenize(line, tok);
        if (tok.size() >= 5 && !tok[4].empty() && tok[4][0] >= '0' && tok[4][0] <= '9') vtkMajor_ = tok[4][0] - '0';
        if (!rawLine(line, at)) return fail("the VTK header ends after the first line (no title line)");
        if (!vtkLine(line, at)) return fail("the VTK header has no ASCII / BINARY line");
        tokenize(line, tok);
        const std::string enc = tok.empty() ? "" : upper(tok[0]);
        if (enc == "BINARY")
            vtkBinary_ = true;
        else if (enc != "ASCII")
            return fail("line 3: expected ASCII or BINARY, got " + quote(line));

        bool haveDataset = false, havePoints = false;
        uint64_t points = 0;
        enum class Mode { None, Point, Cell } mode = Mode::None;
        uint64_t modeCount = 0;
        auto count = [&](std::string_view t, uint64_t& v) { return parseUnsigned(t, v); };
        while (vtkLine(line, at)) {
            tokenize(line, tok);
            const std::string key = upper(tok[0]);
            const auto where = [&] { return vtkWhere(at); };
            auto expectTokens = [&](size_t lo, size_t hi, const char* form) -> Status {
                if (tok.size() < lo || tok.size() > hi)
                    return fail(where() + ": expected '" + form + "', got " + quote(line));
                return {};
            };
            auto type = [&](std::string_view t, NumType& out) -> Status {
                const auto nt = legacyVtkType(t);
                if (!nt)
                    return fail(where() + ": data type " + quote(t) +
                                " is not read (a numeric type: float, double, int, ...)");
                out = *nt;
                return {};
            };
            if (key == "DATASET") {
                PYRAMARCH_TRY(expectTokens(2, 2, "DATASET <type>"));
                const std::string ds = upper(tok[1]);
                if (ds != "POLYDATA" && ds != "UNSTRUCTURED_GRID")
                    return fail(where() + ": DATASET " + std::string(tok[1]) +
                                " is not a point set (POLYDATA or UNSTRUCTURED_GRID)");
                if (haveDataset) return fail(where() + ": a second DATASET");
                haveDataset = true;
                continue;
            }
            if (!haveDataset) return fail(where() + ": " + quote(tok[0]) + " before the DATASET line");
            if (key == "POINTS") {
                PYRAMARCH_TRY(expectTokens(3, 3, "POINTS <n> <type>"));
                if (havePoints) return fail(where() + ": a second POINTS section");
                if (!count(tok[1], points))
                    return fail(where() + ": POINTS count " + quote(tok[1]) + " is not a non-negative integer");
                if (points > maxParticles_)
                    return failLimit(where() + ": POINTS declares " + std::to_string(points) + " points, more than " +
                                     limitText());
                NumType t;
                PYRAMARCH_TRY(type(tok[2], t));
                if (!fits(points, 3, std::numeric_limits<uint64_t>::max()))
                    return fail(where() + ": POINTS count too large");
                PYRAMARCH_TRY(vtkValues(points * 3, t, at, "POINTS", &set_.xyz));
                PYRAMARCH_TRY(checkFinite(0, [&](size_t i) { return where() + ": point " + std::to_string(i); }));
                havePoints = true;
                continue;
            }
            if (key == "VERTICES" || key == "LINES" || key == "POLYGONS" || key == "TRIANGLE_STRIPS" ||
                key == "CELLS") {
                PYRAMARCH_TRY(expectTokens(3, 3, "<cells> <n> <size>"));
                uint64_t n = 0, size = 0;
                if (!count(tok[1], n) || !count(tok[2], size))
                    return fail(where() + ": " + key + " counts are not non-negative integers");
                if (vtkMajor_ >= 5) { // OFFSETS <type> n values, CONNECTIVITY <type> size values
                    for (const char* part : {"OFFSETS", "CONNECTIVITY"}) {
                        size_t partAt = 0;
                        if (!vtkLine(line, partAt)) return fail(where() + ": " + key + " without " + part);
                        tokenize(line, tok);
                        if (tok.size() != 2 || upper(tok[0]) != part)
                            return fail(vtkWhere(partAt) + ": expected '" + part + " <type>' (VTK 5 cells), got " +
                                        quote(line));
                        NumType t;
                        PYRAMARCH_TRY(type(tok[1], t));
                        PYRAMARCH_TRY(vtkValues(std::string_view(part) == "OFFSETS" ? n : size, t, partAt,
                                                key + " " + part, nullptr));
                    }
                } else {
                    PYRAMARCH_TRY(vtkValues(size, NumType::I32, at, key, nullptr));
                }
                continue;
            }
            if (key == "CELL_TYPES") {
                PYRAMARCH_TRY(expectTokens(2, 2, "CELL_TYPES <n>"));
                uint64_t n = 0;
                if (!count(tok[1], n))
                    return fail(where() + ": CELL_TYPES count " + quote(tok[1]) + " is not a non-negative integer");
                PYRAMARCH_TRY(vtkValues(n, NumType::I32, at, key, nullptr));
                continue;
            }
            if (key == "POINT_DATA" || key == "CELL_DATA") {
                PYRAMARCH_TRY(expectTokens(2, 2, "POINT_DATA <n>"));
                if (!count(tok[1], modeCount))
                    return fail(where() + ": " + key + " count " + quote(tok[1]) + " is not a non-negative integer");
                if (key == "POINT_DATA") {
                    if (!havePoints) return fail(where() + ": POINT_DATA before POINTS");
                    if (modeCount != points)
                        return fail(where() + ": POINT_DATA " + std::to_string(modeCount) + " for " +
                                    std::to_string(points) + " points");
                }
                mode = key == "POINT_DATA" ? Mode::Point : Mode::Cell;
                continue;
            }
            if (key == "METADATA") { // INFORMATION / COMPONENT_NAMES lines up to a blank line
                while (rawLine(line, at))
                    if (blank(line)) break;
                continue;
            }
            // Arrays: FIELD (dataset level or of POINT_DATA / CELL_DATA) and the attributes.
            if (key == "FIELD") {
                PYRAMARCH_TRY(expectTokens(3, 3, "FIELD <name> <arrays>"));
                uint64_t arrays = 0;
                if (!count(tok[2], arrays) || arrays > bytes_.size() - vpos_)
                    return fail(where() + ": FIELD array count " + quote(tok[2]) + " is not a count the file can hold");
                for (uint64_t a = 0; a < arrays; ++a) {
                    size_t arrayAt = 0;
                    if (!vtkLine(line, arrayAt))
                        return fail(where() + ": FIELD ends after " + std::to_string(a) + " of " +
                                    std::to_string(arrays) + " arrays");
                    tokenize(line, tok);
                    if (tok.size() == 1 && upper(tok[0]) == "NULL_ARRAY") continue;
                    uint64_t comps = 0, tuples = 0;
                    if (tok.size() != 4 || !count(tok[1], comps) || !count(tok[2], tuples))
                        return fail(vtkWhere(arrayAt) + ": expected '<name> <components> <tuples> <type>', got " +
                                    quote(line));
                    NumType t;
                    const std::string name(tok[0]);
                    const auto nt = legacyVtkType(tok[3]);
                    if (!nt)
                        return fail(vtkWhere(arrayAt) + ": FIELD array " + quote(name) + " has type " + quote(tok[3]) +
                                    ", not a numeric type the reader can read past");
                    t = *nt;
                    if (!fits(tuples, std::max<uint64_t>(comps, 1), bytes_.size()))
                        return fail(vtkWhere(arrayAt) + ": FIELD array " + quote(name) + " is larger than the file");
                    const bool attribute = mode == Mode::Point && tuples == points && wants(name);
                    PYRAMARCH_TRY(vtkAttribute(name, comps, tuples, t, arrayAt, attribute));
                }
                continue;
            }
            uint64_t comps = 0;
            std::string_view typeName;
            bool uchar = false; // COLOR_SCALARS, LOOKUP_TABLE: unsigned char when binary, float when ASCII
            if (key == "SCALARS") {
                PYRAMARCH_TRY(expectTokens(3, 4, "SCALARS <name> <type> [components]"));
                comps = 1;
                if (tok.size() == 4 && (!count(tok[3], comps) || comps < 1 || comps > 4))
                    return fail(where() + ": SCALARS components " + quote(tok[3]) + " is not 1 to 4");
                typeName = tok[2];
            } else if (key == "VECTORS" || key == "NORMALS") {
                PYRAMARCH_TRY(expectTokens(3, 3, "VECTORS <name> <type>"));
                comps = 3;
                typeName = tok[2];
            } else if (key == "TEXTURE_COORDINATES") {
                PYRAMARCH_TRY(expectTokens(4, 4, "TEXTURE_COORDINATES <name> <dim> <type>"));
                if (!count(tok[2], comps) || comps < 1 || comps > 3)
                    return fail(where() + ": TEXTURE_COORDINATES dimension " + quote(tok[2]) + " is not 1 to 3");
                typeName = tok[3];
            } else if (key == "TENSORS" || key == "TENSORS6") {
                PYRAMARCH_TRY(expectTokens(3, 3, "TENSORS <name> <type>"));
                comps = key == "TENSORS" ? 9 : 6;
                typeName = tok[2];
            } else if (key == "COLOR_SCALARS") {
                PYRAMARCH_TRY(expectTokens(3, 3, "COLOR_SCALARS <name> <values>"));
                if (!count(tok[2], comps) || comps < 1 || comps > 16)
                    return fail(where() + ": COLOR_SCALARS values " + quote(tok[2]) + " is not 1 to 16");
                uchar = true;
            } else if (key == "LOOKUP_TABLE") {
                PYRAMARCH_TRY(expectTokens(3, 3, "LOOKUP_TABLE <name> <size>"));
                uint64_t size = 0;
                if (!count(tok[2], size))
                    return fail(where() + ": LOOKUP_TABLE size " + quote(tok[2]) + " is not a non-negative integer");
                if (!fits(size, 4, bytes_.size())) return fail(where() + ": LOOKUP_TABLE is larger than the file");
                PYRAMARCH_TRY(
                    vtkValues(size * 4, vtkBinary_ ? NumType::U8 : NumType::F32, at, "LOOKUP_TABLE", nullptr));
                continue;
            } else {
                return fail(where() + ": unknown keyword " + quote(tok[0]));
            }
            if (mode == Mode::None) return fail(where() + ": " + key + " before POINT_DATA or CELL_DATA");
            const std::string name(tok[1]);
            NumType t = vtkBinary_ ? NumType::U8 : NumType::F32;
            if (!uchar) PYRAMARCH_TRY(type(typeName, t));
            if (key == "SCALARS") { // an optional LOOKUP_TABLE <name> line
                const size_t save = vpos_;
                size_t ltAt = 0;
                if (!(vtkLine(line, ltAt) && upper(line.substr(0, 12)) == "LOOKUP_TABLE")) vpos_ = save;
            }
            if (!fits(modeCount, comps, bytes_.size()))
                return fail(where() + ": " + key + " " + quote(name) + " is larger than the file");
            PYRAMARCH_TRY(
                vtkAttribute(name, comps, modeCount, t, at, mode == Mode::Point && wants(name), uchar && vtkBinary_));
        }
        if (!haveDataset) return fail("no DATASET line");
        if (!havePoints) return fail("no POINTS section");
        return {};
    }

    // One array of POINT_DATA / CELL_DATA / FIELD: read as an attribute or past.
    Status vtkAttribute(const std::string& name, uint64_t comps, uint64_t tuples, NumType t, size_t at, bool attribute,
                        bool unitBytes = false) {
        const std::string what = "array " + quote(name);
        if (!attribute) return vtkValues(tuples * comps, t, at, what, nullptr);
        if (comps < 1 || comps > 16)
            return fail(vtkWhere(at) + ": " + what + " has " + std::to_string(comps) +
                        " components (1 to 16 are read)");
        for (const auto& a : attrs_)
            if (a.name == name) return fail(vtkWhere(at) + ": a second point attribute " + quote(name));
        ParticleAttribute* slot = attributeSlot(name, uint32_t(comps));
        PYRAMARCH_TRY(vtkValues(tuples * comps, t, at, what, &slot->values));
        if (unitBytes)
            for (float& v : slot->values) v /= 255.f;
        return {};
    }

    // ------------------------------------------------------------ VTK XML
    struct VtuArray {
        std::string name, typeText, format;
        std::optional<NumType> type;
        uint64_t components = 1;
        uint64_t offset = 0;
        std::string text; // inline data (ascii numbers or base64)
        size_t at = 0;    // byte offset of the <DataArray> tag
    };
    struct VtuPiece {
        uint64_t points = 0;
        size_t at = 0;
        std::optional<VtuArray> positions;
        std::vector<VtuArray> attributes;
    };
    bool vtuBig_ = false, vtuHeader64_ = false, vtuZlib_ = false, vtuAppendedBase64_ = false;
    size_t vtuAppended_ = std::string_view::npos; // first byte after '_'

    Status parseVtu() {
        const std::string_view text(reinterpret_cast<const char*>(bytes_.data()), bytes_.size());
        size_t pos = 0;
        XmlTag tag;
        std::string err;
        std::vector<VtuPiece> pieces;
        std::vector<std::string_view> stack;
        std::string_view dataset;
        uint64_t total = 0;
        while (nextXmlTag(text, pos, tag, err)) {
            const std::string at = "byte offset " + std::to_string(tag.begin);
            if (tag.end) {
                if (stack.empty() || stack.back() != tag.name)
                    return fail(at + ": </" + std::string(tag.name) + "> closes " +
                                (stack.empty() ? std::string("nothing") : "<" + std::string(stack.back()) + ">"));
                stack.pop_back();
                continue;
            }
            if (dataset.empty()) {
                if (tag.name != "VTKFile")
                    return fail("not a VTK XML file (the first element is <" + std::string(tag.name) +
                                ">, not <VTKFile>)");
                dataset = tag.attr("type");
                if (dataset != "UnstructuredGrid" && dataset != "PolyData")
                    return fail(at + ": VTKFile type " + quote(dataset) +
                                " is not a point set (UnstructuredGrid or PolyData)");
                const std::string_view order = tag.attr("byte_order"), header = tag.attr("header_type"),
                                       compressor = tag.attr("compressor");
                if (order == "BigEndian")
                    vtuBig_ = true;
                else if (!order.empty() && order != "LittleEndian")
                    return fail(at + ": byte_order " + quote(order) + " (LittleEndian or BigEndian)");
                if (header == "UInt64")
                    vtuHeader64_ = true;
                else if (!header.empty() && header != "UInt32")
                    return fail(at + ": header_type " + quote(header) + " (UInt32 or UInt64)");
                if (compressor == "vtkZLibDataCompressor")
                    vtuZlib_ = true;
                else if (!compressor.empty())
                    return fail(at + ": compressor " + quote(compressor) +
                                " is not read (vtkZLibDataCompressor or none)");
            }
            const std::string_view parent = stack.empty() ? std::string_view() : stack.back();
            if (tag.name == "Piece" && parent == dataset && stack.size() == 2) {
                VtuPiece p;
                p.at = tag.begin;
                if (!parseUnsigned(tag.attr("NumberOfPoints"), p.points))
                    return fail(at + ": Piece NumberOfPoints " + quote(tag.attr("NumberOfPoints")) +
                                " is not a non-negative integer");
                if (p.points > maxParticles_ - std::min(total, maxParticles_) || total + p.points > maxParticles_)
                    return failLimit(at + ": NumberOfPoints " + std::to_string(p.points) + " makes more points than " +
                                     limitText());
                total += p.points;
                pieces.push_back(std::move(p));
            } else if (tag.name == "DataArray" && (parent == "Points" || parent == "PointData") && stack.size() >= 2 &&
                       stack[stack.size() - 2] == "Piece" && !pieces.empty()) {
                VtuArray a;
                a.at = tag.begin;
                a.name = tag.attr("Name");
                a.typeText = tag.attr("type");
                a.type = xmlVtkType(a.typeText);
                a.format = tag.attr("format");
                if (tag.has("NumberOfComponents") && !parseUnsigned(tag.attr("NumberOfComponents"), a.components))
                    return fail(at + ": DataArray " + quote(a.name) + " NumberOfComponents " +
                                quote(tag.attr("NumberOfComponents")) + " is not a count");
                if (a.format == "appended" && !parseUnsigned(tag.attr("offset"), a.offset))
                    return fail(at + ": appended DataArray " + quote(a.name) + " has offset " +
                                quote(tag.attr("offset")) + ", not a byte offset");
                if (!tag.selfClose) {
                    // The array's own text; child elements (InformationKey, ...) are read past.
                    int depth = 0;
                    size_t p = tag.after;
                    while (true) {
                        const size_t lt = text.find('<', p);
                        if (lt == std::string_view::npos) return fail(at + ": <DataArray> is not closed");
                        if (depth == 0) a.text.append(text.substr(p, lt - p));
                        XmlTag child;
                        size_t q = lt;
                        if (!nextXmlTag(text, q, child, err))
                            return fail(err.empty() ? at + ": <DataArray> is not closed" : err);
                        p = child.after;
                        if (child.end) {
                            if (depth == 0) break;
                            --depth;
                        } else if (!child.selfClose) {
                            ++depth;
                        }
                    }
                    pos = p;
                }
                VtuPiece& piece = pieces.back();
                if (parent == "Points") {
                    if (piece.positions) return fail(at + ": a second Points DataArray in the Piece");
                    piece.positions = std::move(a);
                } else {
                    piece.attributes.push_back(std::move(a));
                }
                continue;
            } else if (tag.name == "AppendedData") {
                const std::string_view enc = tag.attr("encoding");
                if (enc == "base64")
                    vtuAppendedBase64_ = true;
                else if (enc != "raw")
                    return fail(at + ": AppendedData encoding " + quote(enc) + " (raw or base64)");
                size_t u = tag.after;
                while (u < bytes_.size() && isWhite(bytes_[u])) ++u;
                if (u >= bytes_.size() || bytes_[u] != '_') return fail(at + ": AppendedData does not start with '_'");
                vtuAppended_ = u + 1;
                break; // the rest is data (raw bytes may hold '<')
            }
            if (!tag.selfClose) stack.push_back(tag.name);
        }
        if (!err.empty()) return fail(err);
        if (dataset.empty()) return fail("not a VTK XML file (no <VTKFile> element)");
        if (pieces.empty()) return fail("no <Piece> in the " + std::string(dataset));
        for (const VtuPiece& piece : pieces) {
            const std::string pieceAt = "Piece at byte offset " + std::to_string(piece.at);
            if (!piece.positions) {
                if (piece.points == 0) continue;
                return fail(pieceAt + " has no Points DataArray");
            }
            const VtuArray& pa = *piece.positions;
            if (pa.components != 3)
                return fail(pieceAt + ": Points has " + std::to_string(pa.components) + " components, not 3");
            const size_t first = set_.count();
            PYRAMARCH_TRY(vtuDecode(pa, piece.points, set_.xyz));
            PYRAMARCH_TRY(
                checkFinite(first, [&](size_t i) { return pieceAt + ": point " + std::to_string(i - first); }));
            for (const VtuArray& a : piece.attributes) {
                if (!wants(a.name)) continue;
                const std::string where = "DataArray " + quote(a.name) + " (byte offset " + std::to_string(a.at) + ")";
                if (!a.type)
                    return fail(where + ": type " + quote(a.typeText) + " is not a numeric type the reader reads");
                if (a.components < 1 || a.components > 16)
                    return fail(where + ": " + std::to_string(a.components) + " components (1 to 16 are read)");
                ParticleAttribute* slot = attributeSlot(a.name, uint32_t(a.components));
                if (!slot) return fail(where + ": another piece has " + quote(a.name) + " with other components");
                if (slot->values.size() != first * slot->components)
                    return fail(where + ": point attribute " + quote(a.name) +
                                " is missing in an earlier piece or repeated");
                PYRAMARCH_TRY(vtuDecode(a, piece.points, slot->values));
            }
        }
        return {};
    }

    // One DataArray's tuples x components values, appended to out.
    Status vtuDecode(const VtuArray& a, uint64_t tuples, std::vector<float>& out) {
        const std::string where = "DataArray " + quote(a.name) + " (byte offset " + std::to_string(a.at) + ")";
        if (!a.type) return fail(where + ": type " + quote(a.typeText) + " is not a numeric type the reader reads");
        if (!fits(tuples, a.components * 8, std::numeric_limits<uint64_t>::max()))
            return fail(where + ": too many values");
        const uint64_t count = tuples * a.components;
        if (a.format == "ascii") {
            const std::string_view t = a.text;
            if (!fits(count, 2, t.size() + 1))
                return fail(where + ": " + std::to_string(count) + " values, the text has " + std::to_string(t.size()) +
                            " bytes");
            out.reserve(out.size() + size_t(count));
            size_t p = 0;
            for (uint64_t i = 0; i <= count; ++i) {
                while (p < t.size() && isWhite(uint8_t(t[p]))) ++p;
                if (p >= t.size()) {
                    if (i == count) break;
                    return fail(where + ": " + std::to_string(i) + " of " + std::to_string(count) + " values");
                }
                const size_t s = p;
                while (p < t.size() && !isWhite(uint8_t(t[p]))) ++p;
                if (i == count) return fail(where + ": more than the " + std::to_string(count) + " values it declares");
                double d = 0;
                if (!parseReal(t.substr(s, p - s), d))
                    return fail(where + ": value " + std::to_string(i) + " " + quote(t.substr(s, p - s)) +
                                " is not a number");
                out.push_back(float(d));
            }
            return {};
        }
        std::optional<ByteSource> src;
        if (a.format == "binary") {
            src.emplace(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(a.text.data()), a.text.size()), true);
        } else if (a.format == "appended") {
            if (vtuAppended_ == std::string_view::npos) return fail(where + ": appended data but no <AppendedData>");
            if (a.offset > bytes_.size() - vtuAppended_)
                return fail(where + ": offset " + std::to_string(a.offset) + " is past the end of the file");
            src.emplace(bytes_.subspan(vtuAppended_ + size_t(a.offset)), vtuAppendedBase64_);
        } else {
            return fail(where + ": format " + quote(a.format) + " (ascii, binary or appended)");
        }
        const uint64_t hs = vtuHeader64_ ? 8 : 4;
        const uint64_t ts = numTypeSize(*a.type);
        const uint64_t want = count * ts;
        auto word = [&](const uint8_t* p) {
            return vtuHeader64_ ? loadBinary<uint64_t>(p, vtuBig_) : uint64_t(loadBinary<uint32_t>(p, vtuBig_));
        };
        const uint8_t* p = nullptr;
        std::vector<uint8_t> inflated;
        auto take = [&](uint64_t n, const char* what) -> Status {
            const std::string e = src->take(n, p);
            if (!e.empty()) return fail(where + ": " + what + ": " + e + " (truncated?)");
            return {};
        };
        if (!vtuZlib_) {
            PYRAMARCH_TRY(take(hs, "the size header"));
            const uint64_t n = word(p);
            if (n != want)
                return fail(where + ": the header says " + std::to_string(n) + " bytes, " + std::to_string(tuples) +
                            " tuples of " + std::to_string(a.components) + " " + a.typeText + " are " +
                            std::to_string(want));
            PYRAMARCH_TRY(take(n, "the data"));
        } else {
            PYRAMARCH_TRY(take(3 * hs, "the compression header"));
            const uint64_t blocks = word(p), blockSize = word(p + hs), lastSize = word(p + 2 * hs);
            if (!fits(blocks, hs, src->maxLeft()))
                return fail(where + ": " + std::to_string(blocks) + " compressed blocks, more than the file holds");
            uint64_t total = 0;
            if (blocks > 0) {
                const uint64_t last = lastSize ? lastSize : blockSize;
                if (!fits(blocks - 1, std::max<uint64_t>(blockSize, 1), std::numeric_limits<uint64_t>::max() - last))
                    return fail(where + ": block sizes overflow");
                total = (blocks - 1) * blockSize + last;
                if (last > blockSize)
                    return fail(where + ": the last block (" + std::to_string(last) +
                                " bytes) is larger than the block size " + std::to_string(blockSize));
            }
            if (total != want)
                return fail(where + ": the compression header says " + std::to_string(total) + " bytes, " +
                            std::to_string(tuples) + " tuples of " + std::to_string(a.components) + " " + a.typeText +
                            " are " + std::to_string(want));
            PYRAMARCH_TRY(take(blocks * hs, "the compressed block sizes"));
            std::vector<uint64_t> sizes(static_cast<size_t>(blocks));
            uint64_t compressed = 0;
            for (uint64_t b = 0; b < blocks; ++b) {
                sizes[size_t(b)] = word(p + b * hs);
                if (sizes[size_t(b)] > src->maxLeft())
                    return fail(where + ": compressed block " + std::to_string(b) +
                                " is larger than the rest of the file");
                compressed += sizes[size_t(b)];
            }
            if (compressed > src->maxLeft())
                return fail(where + ": " + std::to_string(compressed) +
                            " compressed bytes, more than the rest of the file");
            if (want > options_.maxBytes)
                return failLimit(where + ": " + std::to_string(want) +
                                 " bytes after decompression, more than maxBytes");
            for (uint64_t b = 0; b < blocks; ++b) {
                const uint64_t size = b + 1 == blocks && lastSize ? lastSize : blockSize;
                if (size > sizes[size_t(b)] * kMaxInflateRatio + 64)
                    return fail(where + ": block " + std::to_string(b) + " cannot inflate from " +
                                std::to_string(sizes[size_t(b)]) + " to " + std::to_string(size) + " bytes");
            }
            inflated.resize(size_t(want));
            uint64_t filled = 0;
            for (uint64_t b = 0; b < blocks; ++b) {
                const uint64_t size = b + 1 == blocks && lastSize ? lastSize : blockSize;
                PYRAMARCH_TRY(take(sizes[size_t(b)], "a compressed block"));
                const std::string e = inflateBlock(p, sizes[size_t(b)], inflated.data() + filled, size);
                if (!e.empty())
                    return fail(where + ": compressed block " + std::to_string(b) + " of " + std::to_string(blocks) +
                                ": " + e);
                filled += size;
            }
            p = inflated.data();
        }
        out.reserve(out.size() + size_t(count));
        for (uint64_t i = 0; i < count; ++i) out.push_back(float(loadNum(p + i * ts, *a.type, vtuBig_)));
        return {};
    }

    // ------------------------------------------------------------ BGEO
    Status parseBgeo() {
        std::vector<uint8_t> inflated;
        std::span<const uint8_t> b = bytes_;
        const bool gz = b.size() >= 2 && b[0] == 0x1f && b[1] == 0x8b;
        if (gz) {
            const std::string e = inflateAll(b, options_.maxBytes, inflated);
            if (!e.empty()) {
                if (e.find("maxBytes") != std::string::npos) return failLimit("gzip: " + e);
                return fail("gzip: " + e);
            }
            b = inflated;
        }
        const std::string off = gz ? "decompressed byte offset " : "byte offset ";
        if (b.size() >= 4 && std::memcmp(b.data(), "\x7fNSJ", 4) == 0)
            return fail("a binary-JSON BGEO file (Houdini 12 and later): only the classic BGEO V5 format is read "
                        "(convert it, e.g. to .vtk or .ply)");
        if (b.size() < 4 || std::memcmp(b.data(), "Bgeo", 4) != 0)
            return fail(std::string("not a BGEO file (no 'Bgeo' at the start") +
                        (gz ? " of the decompressed data" : "") + "; Blosc-compressed .bgeo.sc files are not read)");
        constexpr size_t kHeader = 4 + 1 + 4 + 8 * 4;
        if (b.size() < kHeader)
            return fail("the BGEO header is truncated (" + std::to_string(kHeader) + " bytes, the file has " +
                        std::to_string(b.size()) + ")");
        auto i32 = [&](size_t at) { return loadBinary<int32_t>(b.data() + at, true); };
        if (i32(5) != 5)
            return fail("BGEO version " + std::to_string(i32(5)) + " at " + off + "5: only version 5 is read");
        static const char* kFields[8] = {
            "points",           "primitives",        "point groups",         "primitive groups",
            "point attributes", "vertex attributes", "primitive attributes", "detail attributes"};
        int32_t h[8];
        for (int k = 0; k < 8; ++k) {
            h[k] = i32(9 + size_t(k) * 4);
            if (h[k] < 0)
                return fail("BGEO header: " + std::string(kFields[k]) + " count " + std::to_string(h[k]) +
                            " is negative (" + off + std::to_string(9 + k * 4) + ")");
        }
        const uint64_t points = uint64_t(h[0]);
        if (points > maxParticles_)
            return failLimit("the BGEO header declares " + std::to_string(points) + " points, more than " +
                             limitText());
        size_t pos = kHeader;
        struct Def {
            std::string name;
            uint32_t size = 0;
            int32_t type = 0;
            int slot = -1;
        };
        std::vector<Def> defs;
        const uint64_t nDefs = uint64_t(h[4]);
        if (!fits(nDefs, 8, b.size() - pos))
            return fail("BGEO header: " + std::to_string(nDefs) + " point attributes, more than the file holds");
        auto need = [&](uint64_t n, const std::string& what) -> Status {
            if (n > b.size() - pos)
                return fail(what + " is truncated at " + off + std::to_string(pos) + " (needs " + std::to_string(n) +
                            " bytes, " + std::to_string(b.size() - pos) + " left)");
            return {};
        };
        uint64_t recordSize = 16; // P: x y z w
        for (uint64_t d = 0; d < nDefs; ++d) {
            const std::string what = "point attribute definition " + std::to_string(d);
            const size_t at = pos;
            PYRAMARCH_TRY(need(2, what));
            const uint16_t len = loadBinary<uint16_t>(b.data() + pos, true);
            pos += 2;
            PYRAMARCH_TRY(need(uint64_t(len) + 6, what));
            Def def;
            def.name.assign(reinterpret_cast<const char*>(b.data() + pos), len);
            pos += len;
            def.size = loadBinary<uint16_t>(b.data() + pos, true);
            def.type = loadBinary<int32_t>(b.data() + pos + 2, true);
            pos += 6;
            if (def.type == 2 || def.type == 4)
                return fail(what + " " + quote(def.name) + " (" + off + std::to_string(at) +
                            ") is a string attribute: only float, int and vector attributes are read");
            if (def.type != 0 && def.type != 1 && def.type != 5)
                return fail(what + " " + quote(def.name) + " (" + off + std::to_string(at) + ") has unknown type " +
                            std::to_string(def.type));
            PYRAMARCH_TRY(need(uint64_t(def.size) * 4, what + " " + quote(def.name) + " defaults"));
            pos += size_t(def.size) * 4;
            if (wants(def.name)) {
                if (def.size < 1 || def.size > 16)
                    return fail(what + " " + quote(def.name) + " has " + std::to_string(def.size) +
                                " components (1 to 16 are read)");
                for (const auto& a : attrs_)
                    if (a.name == def.name) return fail(what + ": a second point attribute " + quote(def.name));
                attributeSlot(def.name, def.size);
                def.slot = int(attrs_.size()) - 1;
            }
            recordSize += uint64_t(def.size) * 4;
            defs.push_back(std::move(def));
        }
        if (!fits(points, recordSize, b.size() - pos))
            return fail(std::to_string(points) + " point records of " + std::to_string(recordSize) + " bytes from " +
                        off + std::to_string(pos) + ", the data has " + std::to_string(b.size() - pos) +
                        " bytes left (truncated)");
        set_.xyz.reserve(size_t(points * 3));
        for (const Def& d : defs)
            if (d.slot >= 0) attrs_[size_t(d.slot)].values.reserve(size_t(points * d.size));
        for (uint64_t i = 0; i < points; ++i) {
            const uint8_t* r = b.data() + pos + i * recordSize;
            for (int k = 0; k < 3; ++k) set_.xyz.push_back(loadBinary<float>(r + k * 4, true));
            r += 16;
            for (const Def& d : defs) {
                if (d.slot >= 0) {
                    auto& v = attrs_[size_t(d.slot)].values;
                    for (uint32_t c = 0; c < d.size; ++c)
                        v.push_back(d.type == 1 ? float(loadBinary<int32_t>(r + c * 4, true))
                                                : loadBinary<float>(r + c * 4, true));
                }
                r += size_t(d.size) * 4;
            }
        }
        return checkFinite(0, [&](size_t i) {
            return "point record " + std::to_string(i) + " (" + off + std::to_string(pos + i * recordSize) + ")";
        });
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

const ParticleAttribute* ParticleSet::attribute(std::string_view name) const {
    for (const auto& a : attributes)
        if (a.name == name) return &a;
    return nullptr;
}

uint64_t cropParticles(ParticleSet& set, const ParticleBox& box) {
    const size_t n = set.count();
    // Only attributes that hold a value tuple per particle move with them.
    std::vector<ParticleAttribute*> moved;
    for (auto& a : set.attributes)
        if (a.components > 0 && a.values.size() == n * a.components) moved.push_back(&a);
    size_t kept = 0;
    for (size_t i = 0; i < n; ++i) {
        const float* p = set.xyz.data() + i * 3;
        if (!box.contains(p[0], p[1], p[2])) continue;
        if (kept != i) {
            std::copy(p, p + 3, set.xyz.data() + kept * 3);
            for (ParticleAttribute* a : moved)
                std::copy_n(a->values.data() + i * a->components, a->components,
                            a->values.data() + kept * a->components);
        }
        ++kept;
    }
    set.xyz.resize(kept * 3);
    for (ParticleAttribute* a : moved) a->values.resize(kept * a->components);
    set.bounds = particleBounds(set.xyz);
    set.dropped.outsideBox += n - kept;
    return n - kept;
}

const char* particleFormatName(ParticleFormat format) {
    switch (format) {
    case ParticleFormat::Auto: return "auto";
    case ParticleFormat::Ply: return "ply";
    case ParticleFormat::Xyz: return "xyz";
    case ParticleFormat::F32: return "f32";
    case ParticleFormat::Vtk: return "vtk";
    case ParticleFormat::Vtu: return "vtu";
    case ParticleFormat::Bgeo: return "bgeo";
    }
    return "?";
}

namespace {
constexpr const char* kKnownExtensions = ".ply, .xyz, .f32, .vtk, .vtu, .vtp, .bgeo, .bgeo.gz or .bgeo.sz";

std::optional<ParticleFormat> formatOfExtension(std::string_view path) {
    const std::string name = lower(std::filesystem::path(path).filename().string());
    const std::string ext = lower(std::filesystem::path(path).extension().string());
    if (ext == ".ply") return ParticleFormat::Ply;
    if (ext == ".xyz") return ParticleFormat::Xyz;
    if (ext == ".f32") return ParticleFormat::F32;
    if (ext == ".vtk") return ParticleFormat::Vtk;
    if (ext == ".vtu" || ext == ".vtp") return ParticleFormat::Vtu;
    if (ext == ".bgeo" || name.ends_with(".bgeo.gz") || name.ends_with(".bgeo.sz") || name.ends_with(".bgeo.sc"))
        return ParticleFormat::Bgeo;
    return std::nullopt;
}

std::string unknownExtension(std::string_view path) {
    const std::string ext = lower(std::filesystem::path(path).extension().string());
    return quote(path) + ": unknown particle file extension " + quote(ext.empty() ? "(none)" : ext) + " (" +
           kKnownExtensions + "; or name the format explicitly)";
}
} // namespace

Result<ParticleFormat> particleFormatFromPath(std::string_view path) {
    if (auto f = formatOfExtension(path)) return *f;
    return Status::error(ErrorCode::ParseError, unknownExtension(path));
}

ParticleFormat particleFormatFromBytes(std::span<const uint8_t> bytes) {
    const std::string_view t(reinterpret_cast<const char*>(bytes.data()), std::min<size_t>(bytes.size(), 64));
    if (t.starts_with("ply\n") || t.starts_with("ply\r\n")) return ParticleFormat::Ply;
    if (t.starts_with("# vtk DataFile")) return ParticleFormat::Vtk;
    std::string_view x = t;
    if (x.starts_with("\xEF\xBB\xBF")) x.remove_prefix(3);
    while (!x.empty() && isWhite(uint8_t(x.front()))) x.remove_prefix(1);
    if (x.starts_with("<?xml") || x.starts_with("<VTKFile")) return ParticleFormat::Vtu;
    if (t.starts_with("Bgeo") || t.starts_with("\x7fNSJ") || t.starts_with("\x1f\x8b")) return ParticleFormat::Bgeo;
    return ParticleFormat::Auto;
}

Result<ParticleSet> parseParticles(std::span<const uint8_t> bytes, std::string_view name,
                                   const ParticleReadOptions& options) {
    ParticleFormat format = options.format;
    if (format == ParticleFormat::Auto) {
        format = particleFormatFromBytes(bytes);
        if (format == ParticleFormat::Auto)
            return Status::error(ErrorCode::ParseError,
                                 quote(name) + ": not a particle file this reader recognises by its first bytes (PLY, "
                                               "legacy VTK, VTK XML, BGEO; .xyz and .f32 need their extension)");
    }
    return ParticleParser(bytes, name, options).parse(format);
}

Result<ParticleSet> parseParticles(std::span<const uint8_t> bytes, ParticleFormat format, std::string_view name,
                                   uint64_t maxParticles) {
    ParticleReadOptions options;
    options.format = format;
    options.maxParticles = maxParticles;
    return ParticleParser(bytes, name, options).parse(format);
}

Result<ParticleSet> readParticles(const std::string& path, const ParticleReadOptions& options) {
    ParticleFormat format = options.format;
    if (format == ParticleFormat::Auto) format = formatOfExtension(path).value_or(ParticleFormat::Auto);
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
    if (format == ParticleFormat::Auto) {
        format = particleFormatFromBytes(bytes);
        if (format == ParticleFormat::Auto)
            return Status::error(ErrorCode::ParseError,
                                 unknownExtension(path) + ", and its first bytes match none of the formats");
    }
    ParticleReadOptions o = options;
    o.format = format;
    return ParticleParser(bytes, path, o).parse(format);
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
