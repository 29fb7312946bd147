// Files the samples write: PNG frames and the stats JSON.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "pyramarch/engine/render_graph.h"
#include "pyramarch/engine/status.h"

namespace sample {

// Writes tightly packed RGBA8 pixels as PNG (stb_image_write).
pyramarch::Status writePng(const std::string& path, uint32_t width, uint32_t height, const std::vector<uint8_t>& rgba);

// Expands a printf-style frame pattern ("frame_%04d.png"); a path without
// '%' is returned unchanged.
std::string framePath(const std::string& pattern, uint32_t frame);
bool isFramePattern(const std::string& path);

// `s` as a quoted JSON string (quotes, backslashes and control characters escaped).
std::string jsonString(const std::string& s);

struct FrameStats {
    uint64_t frame = 0;
    double time = 0.0; // animation time (s)
    std::vector<pyramarch::PassTiming> passes;
    bool haveSurfaceStats = false;
    uint32_t triangles = 0;       // drawn
    uint32_t trianglesNeeded = 0; // what the surface needed (> triangles on overflow)
    uint32_t activeCells = 0;
    bool overflow = false;
    // More keys of this frame's JSON object: name -> JSON value text (a
    // number, an array, a quoted string), written as given.
    std::vector<std::pair<std::string, std::string>> extra;
    // Sum of the passes' GPU times ("gpuMs" in the JSON).
    double gpuMs() const;
};

class StatsRecorder {
public:
    void add(FrameStats frame) { frames_.push_back(std::move(frame)); }
    const std::vector<FrameStats>& frames() const { return frames_; }
    // Sets (or replaces) one info entry; entries keep the order they were first set in.
    void setInfo(std::string key, std::string value) {
        for (auto& [k, v] : info_)
            if (k == key) {
                v = std::move(value);
                return;
            }
        info_.emplace_back(std::move(key), std::move(value));
    }
    // {"info": {...}, "frames": [{"frame", "time", "passes": {"name": ms}, "gpuMs", "triangles", ...}], "summary": {...},
    //  "gpuMs": mean over the frames of each frame's total GPU time}
    std::string json() const;
    pyramarch::Status write(const std::string& path) const;
    // Mean / min / max per pass over the recorded frames, in pass order.
    struct PassSummary {
        std::string name;
        double meanMs = 0, minMs = 0, maxMs = 0;
        uint32_t samples = 0;
    };
    std::vector<PassSummary> summary(size_t skipFirst = 0) const;
    // A text table of summary() (for the terminal).
    std::string table(size_t skipFirst = 0) const;

private:
    std::vector<FrameStats> frames_;
    std::vector<std::pair<std::string, std::string>> info_;
};

} // namespace sample
