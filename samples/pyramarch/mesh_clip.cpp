#include "mesh_clip.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>
#include <vector>

namespace sample {

namespace {

struct Vert {
    std::array<float, 3> p;
    std::array<float, 3> n;
    int64_t index; // the mesh's vertex, -1 for a cut point
};

struct BitsHash {
    size_t operator()(const std::array<uint32_t, 3>& k) const {
        return size_t(k[0]) * 73856093u ^ size_t(k[1]) * 19349663u ^ size_t(k[2]) * 83492791u;
    }
};

bool lessPos(const std::array<float, 3>& a, const std::array<float, 3>& b) {
    return a[0] != b[0] ? a[0] < b[0] : a[1] != b[1] ? a[1] < b[1] : a[2] < b[2];
}

} // namespace

MeshClipStats clipMeshToBox(pyramarch::iso::Mesh& mesh, const std::array<float, 3>& lo,
                            const std::array<float, 3>& hi) {
    MeshClipStats stats;
    const bool haveNormals = mesh.normals.size() == mesh.positions.size();
    auto inside = [&](const std::array<float, 3>& p) {
        for (int k = 0; k < 3; ++k)
            if (!(p[size_t(k)] >= lo[size_t(k)] && p[size_t(k)] <= hi[size_t(k)])) return false;
        return true;
    };
    std::vector<std::array<float, 3>> newPositions, newNormals;
    std::unordered_map<std::array<uint32_t, 3>, uint32_t, BitsHash> cutPoints;
    std::vector<uint32_t> indices;
    indices.reserve(mesh.indices.size());
    const uint32_t firstNew = uint32_t(mesh.positions.size());
    std::vector<Vert> poly, next;
    for (size_t t = 0; t + 2 < mesh.indices.size(); t += 3) {
        const uint32_t ids[3] = {mesh.indices[t], mesh.indices[t + 1], mesh.indices[t + 2]};
        const auto& a = mesh.positions[ids[0]];
        const auto& b = mesh.positions[ids[1]];
        const auto& c = mesh.positions[ids[2]];
        if (inside(a) && inside(b) && inside(c)) {
            indices.insert(indices.end(), ids, ids + 3);
            ++stats.kept;
            continue;
        }
        // Wholly beyond one face: removed without cutting.
        bool beyond = false;
        for (int k = 0; k < 3 && !beyond; ++k) {
            const size_t K = size_t(k);
            beyond = (a[K] < lo[K] && b[K] < lo[K] && c[K] < lo[K]) || (a[K] > hi[K] && b[K] > hi[K] && c[K] > hi[K]);
        }
        if (beyond) {
            ++stats.removed;
            continue;
        }
        poly.clear();
        for (uint32_t id : ids)
            poly.push_back({mesh.positions[id], haveNormals ? mesh.normals[id] : std::array<float, 3>{0.f, 0.f, 0.f},
                            int64_t(id)});
        // Six planes: distance >= 0 inside.
        for (int plane = 0; plane < 6 && poly.size() >= 3; ++plane) {
            const size_t k = size_t(plane / 2);
            const bool upper = plane % 2 == 1;
            auto dist = [&](const Vert& v) { return upper ? hi[k] - v.p[k] : v.p[k] - lo[k]; };
            next.clear();
            for (size_t i = 0; i < poly.size(); ++i) {
                const Vert& cur = poly[i];
                const Vert& nxt = poly[(i + 1) % poly.size()];
                const float dc = dist(cur), dn = dist(nxt);
                if (dc >= 0.f) next.push_back(cur);
                if ((dc >= 0.f) != (dn >= 0.f)) {
                    // The cut point from the edge's ends in one order (shared edges cut alike).
                    const bool swap = lessPos(nxt.p, cur.p);
                    const Vert& e0 = swap ? nxt : cur;
                    const Vert& e1 = swap ? cur : nxt;
                    const float d0 = dist(e0), d1 = dist(e1);
                    const float s = d0 / (d0 - d1);
                    Vert v;
                    v.index = -1;
                    for (size_t j = 0; j < 3; ++j) {
                        v.p[j] = e0.p[j] + s * (e1.p[j] - e0.p[j]);
                        v.n[j] = e0.n[j] + s * (e1.n[j] - e0.n[j]);
                    }
                    v.p[k] = upper ? hi[k] : lo[k]; // exactly on the face
                    next.push_back(v);
                }
            }
            poly.swap(next);
        }
        // Consecutive equal points (a vertex on a face) collapse.
        next.clear();
        for (const Vert& v : poly)
            if (next.empty() || next.back().p != v.p) next.push_back(v);
        while (next.size() > 1 && next.front().p == next.back().p) next.pop_back();
        if (next.size() < 3) {
            ++stats.removed;
            continue;
        }
        ++stats.cut;
        std::vector<uint32_t> ring;
        for (const Vert& v : next) {
            if (v.index >= 0) {
                ring.push_back(uint32_t(v.index));
                continue;
            }
            std::array<uint32_t, 3> key;
            std::memcpy(key.data(), v.p.data(), sizeof key);
            auto [it, added] = cutPoints.try_emplace(key, firstNew + uint32_t(newPositions.size()));
            if (added) {
                newPositions.push_back(v.p);
                std::array<float, 3> n = v.n;
                const float len = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
                if (len > 0.f)
                    for (float& x : n) x /= len;
                newNormals.push_back(n);
            }
            ring.push_back(it->second);
        }
        for (size_t i = 1; i + 1 < ring.size(); ++i) indices.insert(indices.end(), {ring[0], ring[i], ring[i + 1]});
    }
    mesh.positions.insert(mesh.positions.end(), newPositions.begin(), newPositions.end());
    if (haveNormals) mesh.normals.insert(mesh.normals.end(), newNormals.begin(), newNormals.end());
    // Only the vertices the triangles use, in their order.
    std::vector<uint32_t> remap(mesh.positions.size(), UINT32_MAX);
    std::vector<std::array<float, 3>> positions, normals;
    for (uint32_t& i : indices) {
        if (remap[i] == UINT32_MAX) {
            remap[i] = uint32_t(positions.size());
            positions.push_back(mesh.positions[i]);
            if (haveNormals) normals.push_back(mesh.normals[i]);
        }
        i = remap[i];
    }
    mesh.positions = std::move(positions);
    mesh.normals = std::move(normals);
    mesh.indices = std::move(indices);
    return stats;
}

} // namespace sample
