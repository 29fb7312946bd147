// The sparse brick size question, counted on the CPU: how many bricks of
// B^3 cells a surface crosses on grids far past one storage buffer, and what
// a sparse layout would keep resident for them against a dense grid. The
// fields are the bench's (`pyramarch bench --field sphere|cayley|gyroid`,
// bounds [-1, 1]^3, sample i at -1 + 2 i / cells); a brick is active when
// its (B + 1)^3 samples hold both signs (the samples are connected, so some
// edge between them changes sign, and every such edge is a brick cell's).
// Bricks the field's Lipschitz bound keeps off the iso value are not
// sampled; --selftest checks that pruning against a full count. Also
// counted: the rows of B cells (along x, inside a brick) that hold a cut
// cell, the slots of a pool that compacts rows rather than bricks.
//
//   build/tests/bench/brick_census [--field sphere|cayley|gyroid] [--cells N] [--bricks 4,8,16] [--selftest]
//
// Prints one JSON line per (field, cells, brick size).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

double field(const std::string& f, double x, double y, double z) {
    if (f == "sphere") return 0.8 - std::sqrt(x * x + y * y + z * z);
    if (f == "cayley") return 16.0 * x * y * z + 4.0 * (x + y + z) - 1.0;
    const double k = 6.28318530718;
    return std::sin(k * x) * std::cos(k * y) + std::sin(k * y) * std::cos(k * z) + std::sin(k * z) * std::cos(k * x);
}

// The bench's constants (samples/pyramarch/bench.cpp, fieldLipschitz).
double lipschitz(const std::string& f) { return f == "sphere" ? 1.0 : f == "cayley" ? 34.65 : 15.40; }

struct Census {
    uint64_t bricks = 0, sampledBricks = 0, activeBricks = 0, cutCells = 0;
    // Rows of B cells along x inside active bricks with a cut cell: the
    // slots of a pool that compacts rows instead of whole bricks.
    uint64_t activeRows = 0;
};

// Counts over the grid's bricks (the last brick of an axis may be shorter).
Census count(const std::string& f, uint32_t cells, uint32_t b, bool prune) {
    const uint32_t nb = (cells + b - 1) / b;
    const double h = 2.0 / cells, halfDiag = 0.5 * std::sqrt(3.0) * b * h * 1.0001, L = lipschitz(f);
    std::atomic<uint32_t> nextSlab{0};
    std::vector<Census> perThread(std::max(1u, std::thread::hardware_concurrency()));
    auto work = [&](Census& c) {
        std::vector<double> v(size_t(b + 1) * (b + 1) * (b + 1));
        for (uint32_t bz; (bz = nextSlab++) < nb;)
            for (uint32_t by = 0; by < nb; ++by)
                for (uint32_t bx = 0; bx < nb; ++bx) {
                    ++c.bricks;
                    const uint32_t x0 = bx * b, y0 = by * b, z0 = bz * b;
                    const uint32_t ex = std::min(b, cells - x0), ey = std::min(b, cells - y0),
                                   ez = std::min(b, cells - z0);
                    if (prune) {
                        const double cx = -1.0 + (x0 + 0.5 * ex) * h, cy = -1.0 + (y0 + 0.5 * ey) * h,
                                     cz = -1.0 + (z0 + 0.5 * ez) * h;
                        if (std::abs(field(f, cx, cy, cz)) > L * halfDiag) continue;
                    }
                    ++c.sampledBricks;
                    bool inside = false, outside = false;
                    for (uint32_t z = 0; z <= ez; ++z)
                        for (uint32_t y = 0; y <= ey; ++y)
                            for (uint32_t x = 0; x <= ex; ++x) {
                                const double s =
                                    field(f, -1.0 + (x0 + x) * h, -1.0 + (y0 + y) * h, -1.0 + (z0 + z) * h);
                                v[x + (b + 1) * (y + (b + 1) * z)] = s;
                                (s >= 0.0 ? inside : outside) = true;
                            }
                    if (!(inside && outside)) continue;
                    ++c.activeBricks;
                    for (uint32_t z = 0; z < ez; ++z)
                        for (uint32_t y = 0; y < ey; ++y) {
                            uint64_t rowCut = 0;
                            for (uint32_t x = 0; x < ex; ++x) {
                                int in = 0;
                                for (uint32_t k = 0; k < 8; ++k)
                                    in +=
                                        v[(x + (k & 1)) + (b + 1) * ((y + (k >> 1 & 1)) + (b + 1) * (z + (k >> 2)))] >=
                                        0.0;
                                rowCut += in != 0 && in != 8;
                            }
                            c.cutCells += rowCut;
                            c.activeRows += rowCut != 0;
                        }
                }
    };
    std::vector<std::thread> threads;
    for (Census& c : perThread) threads.emplace_back(work, std::ref(c));
    for (auto& t : threads) t.join();
    Census total;
    for (const Census& c : perThread) {
        total.bricks += c.bricks;
        total.sampledBricks += c.sampledBricks;
        total.activeBricks += c.activeBricks;
        total.cutCells += c.cutCells;
        total.activeRows += c.activeRows;
    }
    return total;
}

std::vector<uint32_t> parseList(const char* s) {
    std::vector<uint32_t> out;
    for (const char* p = s; *p;) {
        char* end = nullptr;
        out.push_back(uint32_t(std::strtoul(p, &end, 10)));
        p = *end == ',' ? end + 1 : end;
        if (end == p && *p) break;
    }
    return out;
}

} // namespace

int main(int argc, char** argv) {
    std::vector<std::string> fields;
    std::vector<uint32_t> cellsList, bricks{4, 8, 16};
    bool selftest = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--field" && i + 1 < argc)
            fields.push_back(argv[++i]);
        else if (a == "--cells" && i + 1 < argc)
            cellsList = parseList(argv[++i]);
        else if (a == "--bricks" && i + 1 < argc)
            bricks = parseList(argv[++i]);
        else if (a == "--selftest")
            selftest = true;
        else {
            std::fprintf(stderr, "usage: brick_census [--field sphere|cayley|gyroid] [--cells N,...] [--bricks B,...] "
                                 "[--selftest]\n");
            return 2;
        }
    }
    if (fields.empty()) fields = {"sphere", "cayley", "gyroid"};
    if (cellsList.empty()) cellsList = {255};
    for (const std::string& f : fields)
        if (f != "sphere" && f != "cayley" && f != "gyroid") {
            std::fprintf(stderr, "brick_census: unknown field '%s'\n", f.c_str());
            return 2;
        }
    for (uint32_t c : cellsList)
        for (uint32_t b : bricks)
            if (c == 0 || c > 4095 || b == 0 || b > 64) {
                std::fprintf(stderr, "brick_census: cells must be in 1..4095 and bricks in 1..64\n");
                return 2;
            }
    int failures = 0;
    for (const std::string& f : fields)
        for (uint32_t cells : cellsList)
            for (uint32_t b : bricks) {
                const Census c = count(f, cells, b, true);
                if (selftest) {
                    const Census full = count(f, cells, b, false);
                    if (full.activeBricks != c.activeBricks || full.cutCells != c.cutCells ||
                        full.activeRows != c.activeRows) {
                        std::fprintf(
                            stderr, "brick_census: %s %u^3 B=%u: pruned %llu bricks / %llu cells, full %llu / %llu\n",
                            f.c_str(), cells, b, (unsigned long long)c.activeBricks, (unsigned long long)c.cutCells,
                            (unsigned long long)full.activeBricks, (unsigned long long)full.cutCells);
                        ++failures;
                    }
                }
                // Resident bytes per active brick for a sparse layout that keeps
                // float samples with a 1-sample apron on each side (central
                // normals read one past the brick), a case byte per cell and a
                // quarter word per cell of pyramid above it (the dense module's
                // ~1.33 bytes per cell), and a 4-byte slot per brick of the table.
                const double samples = double(b + 3) * (b + 3) * (b + 3);
                const double perBrick = samples * 4.0 + double(b) * b * b * (1.0 + 1.0 / 3.0);
                const double table = double(c.bricks) * 4.0;
                const double denseSamples = std::pow(double(cells) + 1.0, 3.0);
                const double dense = denseSamples * 4.0 + std::pow(double(cells), 3.0) * (1.0 + 1.0 / 3.0);
                // A fused field (analytic or user GLSL evaluated in the passes)
                // stores no samples: a pool of its active bricks keeps case
                // bytes and pyramid per cell and an 8-byte brick record, and
                // activation lists the Lipschitz candidates (8 bytes each,
                // the sampled bricks here). A pool of rows keeps B case bytes
                // and pyramid per active row and a 4-byte record (candidate
                // index and row), fed by the same candidate list.
                const double cellBytes = 1.0 + 1.0 / 3.0;
                const double candidates = double(c.sampledBricks) * 8.0;
                const double fusedBrickPool =
                    double(c.activeBricks) * (double(b) * b * b * cellBytes + 8.0) + candidates;
                const double fusedRowPool = double(c.activeRows) * (double(b) * cellBytes + 4.0) + candidates;
                std::printf(
                    "{\"field\": \"%s\", \"cells\": %u, \"brick\": %u, \"bricks\": %llu, \"sampledBricks\": %llu, "
                    "\"activeBricks\": %llu, \"activeFraction\": %.5f, \"cutCells\": %llu, "
                    "\"cutCellsPerActiveBrick\": %.1f, \"activeRows\": %llu, \"cutCellsPerActiveRow\": %.2f, "
                    "\"bytesPerActiveBrick\": %.0f, \"tableBytes\": %.0f, "
                    "\"residentBytes\": %.0f, \"denseBytes\": %.0f, \"residentOverDense\": %.5f, "
                    "\"fusedBrickPoolBytes\": %.0f, \"fusedRowPoolBytes\": %.0f}\n",
                    f.c_str(), cells, b, (unsigned long long)c.bricks, (unsigned long long)c.sampledBricks,
                    (unsigned long long)c.activeBricks, double(c.activeBricks) / double(c.bricks),
                    (unsigned long long)c.cutCells, c.activeBricks ? double(c.cutCells) / double(c.activeBricks) : 0.0,
                    (unsigned long long)c.activeRows, c.activeRows ? double(c.cutCells) / double(c.activeRows) : 0.0,
                    perBrick, table, perBrick * double(c.activeBricks) + table, dense,
                    (perBrick * double(c.activeBricks) + table) / dense, fusedBrickPool, fusedRowPool);
                std::fflush(stdout);
            }
    return failures ? 1 : 0;
}
