// A CT-like test volume for the sparse volume benchmarks: a
// head phantom of nested ellipsoids (air 0, skin and brain ~40-90, skull
// ~200, a few bright inclusions) with +-6 of hash noise, written slice by
// slice as little-endian u8 (or f32 with --f32) so that volumes larger than
// memory can be made. The skull's surfaces at iso ~128 cross a few percent
// of the bricks; the noise keeps every brick non-uniform, as a scan's are.
//
//   build/tests/bench/ct_phantom OUT.raw N [--f32]    (N^3 samples)
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {
struct Ellipsoid {
    float c[3], r[3], value; // value replaces what lies inside
};
// Outer to inner: later ones overwrite.
const Ellipsoid kHead[] = {
    {{0.f, 0.f, 0.f}, {0.72f, 0.92f, 0.85f}, 45.f},      // skin
    {{0.f, 0.f, 0.f}, {0.69f, 0.89f, 0.82f}, 205.f},     // skull
    {{0.f, -0.02f, 0.f}, {0.64f, 0.84f, 0.77f}, 70.f},   // brain
    {{0.22f, 0.1f, 0.1f}, {0.11f, 0.31f, 0.2f}, 30.f},   // ventricle
    {{-0.22f, 0.1f, 0.1f}, {0.16f, 0.41f, 0.22f}, 30.f}, // ventricle
    {{0.f, 0.35f, -0.2f}, {0.21f, 0.25f, 0.2f}, 95.f},   // tissue
    {{0.06f, -0.6f, 0.3f}, {0.05f, 0.05f, 0.05f}, 180.f}, {{-0.08f, -0.6f, -0.3f}, {0.04f, 0.02f, 0.04f}, 190.f},
    {{0.f, -0.1f, 0.62f}, {0.06f, 0.06f, 0.06f}, 240.f},
};

float phantom(float x, float y, float z) {
    float v = 0.f;
    for (const Ellipsoid& e : kHead) {
        const float dx = (x - e.c[0]) / e.r[0], dy = (y - e.c[1]) / e.r[1], dz = (z - e.c[2]) / e.r[2];
        if (dx * dx + dy * dy + dz * dz <= 1.f) v = e.value;
    }
    return v;
}
} // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: ct_phantom OUT.raw N [--f32]\n");
        return 2;
    }
    const uint32_t n = uint32_t(std::stoul(argv[2]));
    const bool f32 = argc > 3 && std::strcmp(argv[3], "--f32") == 0;
    if (n < 2) return 2;
    std::FILE* f = std::fopen(argv[1], "wb");
    if (!f) {
        std::perror(argv[1]);
        return 1;
    }
    std::vector<uint8_t> slice(size_t(n) * n * (f32 ? 4 : 1));
    for (uint32_t z = 0; z < n; ++z) {
        for (uint32_t y = 0; y < n; ++y)
            for (uint32_t x = 0; x < n; ++x) {
                const float s = 2.f / float(n - 1);
                float v = phantom(-1.f + s * float(x), -1.f + s * float(y), -1.f + s * float(z));
                const uint32_t h = (x * 73856093u) ^ (y * 19349663u) ^ (z * 83492791u);
                if (v > 0.f) v += float((h >> 7) % 13u) - 6.f;
                const size_t i = x + size_t(n) * y;
                if (f32)
                    std::memcpy(&slice[4 * i], &v, 4);
                else
                    slice[i] = uint8_t(v < 0.f ? 0.f : v > 255.f ? 255.f : v);
            }
        if (std::fwrite(slice.data(), 1, slice.size(), f) != slice.size()) {
            std::perror(argv[1]);
            return 1;
        }
    }
    return std::fclose(f) == 0 ? 0 : 1;
}
