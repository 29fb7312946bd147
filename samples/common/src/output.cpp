#include "sample/output.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_WRITE_NO_STDIO_FAILURE_MESSAGES
#include <stb/stb_image_write.h>

namespace sample {

using pyramarch::ErrorCode;
using pyramarch::Status;

Status writePng(const std::string& path, uint32_t width, uint32_t height, const std::vector<uint8_t>& rgba) {
    if (rgba.size() != size_t(width) * height * 4)
        return Status::error(ErrorCode::InvalidArgument, "writing " + path + ": expected " +
                                                             std::to_string(size_t(width) * height * 4) +
                                                             " bytes of RGBA, got " + std::to_string(rgba.size()));
    if (!stbi_write_png(path.c_str(), int(width), int(height), 4, rgba.data(), int(width * 4)))
        return Status::error(ErrorCode::Io, "cannot write PNG " + path);
    return {};
}

bool isFramePattern(const std::string& path) { return path.find('%') != std::string::npos; }

std::string framePath(const std::string& pattern, uint32_t frame) {
    if (!isFramePattern(pattern)) return pattern;
    std::vector<char> buf(pattern.size() + 32);
    std::snprintf(buf.data(), buf.size(), pattern.c_str(), frame);
    return buf.data();
}

namespace {
std::string escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (static_cast<unsigned char>(c) < 0x20) {
            char b[8];
            std::snprintf(b, sizeof b, "\\u%04x", c);
            out += b;
            continue;
        }
        out += c;
    }
    return out;
}
std::string num(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.6g", v);
    return b;
}
} // namespace

std::string jsonString(const std::string& s) { return "\"" + escape(s) + "\""; }

double FrameStats::gpuMs() const {
    double total = 0;
    for (const pyramarch::PassTiming& t : passes) total += t.milliseconds;
    return total;
}

std::string StatsRecorder::json() const {
    std::ostringstream o;
    o << "{\n  \"info\": {";
    for (size_t i = 0; i < info_.size(); ++i)
        o << (i ? ", " : "") << "\"" << escape(info_[i].first) << "\": \"" << escape(info_[i].second) << "\"";
    o << "},\n  \"frames\": [";
    for (size_t f = 0; f < frames_.size(); ++f) {
        const FrameStats& s = frames_[f];
        o << (f ? ",\n    " : "\n    ") << "{\"frame\": " << s.frame << ", \"time\": " << num(s.time)
          << ", \"passes\": {";
        for (size_t p = 0; p < s.passes.size(); ++p)
            o << (p ? ", " : "") << "\"" << escape(s.passes[p].name) << "\": " << num(s.passes[p].milliseconds);
        o << "}, \"gpuMs\": " << num(s.gpuMs());
        if (s.haveSurfaceStats)
            o << ", \"triangles\": " << s.triangles << ", \"triangles_needed\": " << s.trianglesNeeded
              << ", \"active_cells\": " << s.activeCells << ", \"overflow\": " << (s.overflow ? "true" : "false");
        else
            o << ", \"triangles\": null, \"overflow\": null";
        for (const auto& [key, value] : s.extra) o << ", \"" << escape(key) << "\": " << value;
        o << "}";
    }
    o << "\n  ],\n  \"summary\": {";
    const auto sum = summary();
    for (size_t i = 0; i < sum.size(); ++i)
        o << (i ? ", " : "") << "\"" << escape(sum[i].name) << "\": {\"mean_ms\": " << num(sum[i].meanMs)
          << ", \"min_ms\": " << num(sum[i].minMs) << ", \"max_ms\": " << num(sum[i].maxMs)
          << ", \"frames\": " << sum[i].samples << "}";
    double gpu = 0;
    for (const FrameStats& f : frames_) gpu += f.gpuMs();
    o << "},\n  \"gpuMs\": " << num(frames_.empty() ? 0.0 : gpu / double(frames_.size())) << "\n}\n";
    return o.str();
}

Status StatsRecorder::write(const std::string& path) const {
    std::ofstream f(path, std::ios::binary);
    if (!f) return Status::error(ErrorCode::Io, "cannot open " + path + " for writing");
    f << json();
    if (!f) return Status::error(ErrorCode::Io, "cannot write " + path);
    return {};
}

std::vector<StatsRecorder::PassSummary> StatsRecorder::summary(size_t skipFirst) const {
    std::vector<PassSummary> out;
    for (size_t f = std::min(skipFirst, frames_.size()); f < frames_.size(); ++f)
        for (const pyramarch::PassTiming& t : frames_[f].passes) {
            auto it = std::find_if(out.begin(), out.end(), [&](const PassSummary& s) { return s.name == t.name; });
            if (it == out.end()) {
                out.push_back({t.name, 0.0, std::numeric_limits<double>::max(), 0.0, 0});
                it = out.end() - 1;
            }
            it->meanMs += t.milliseconds;
            it->minMs = std::min(it->minMs, t.milliseconds);
            it->maxMs = std::max(it->maxMs, t.milliseconds);
            ++it->samples;
        }
    for (PassSummary& s : out) s.meanMs /= std::max(1u, s.samples);
    return out;
}

std::string StatsRecorder::table(size_t skipFirst) const {
    const auto sum = summary(skipFirst);
    size_t width = 4;
    for (const PassSummary& s : sum) width = std::max(width, s.name.size());
    std::ostringstream o;
    char line[256];
    std::snprintf(line, sizeof line, "  %-*s %10s %10s %10s %7s\n", int(width), "pass", "mean ms", "min ms", "max ms",
                  "frames");
    o << line;
    double total = 0;
    for (const PassSummary& s : sum) {
        std::snprintf(line, sizeof line, "  %-*s %10.3f %10.3f %10.3f %7u\n", int(width), s.name.c_str(), s.meanMs,
                      s.minMs, s.maxMs, s.samples);
        o << line;
        total += s.meanMs;
    }
    std::snprintf(line, sizeof line, "  %-*s %10.3f\n", int(width), "total", total);
    o << line;
    return o.str();
}

} // namespace sample
