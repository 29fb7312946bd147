// The fluid's collider (predict.comp and delta.comp, binding 5): a solid
// voxel grid the voxelizer writes in the same graph (its dense grid of a
// solid voxelization, one float per voxel, x fastest, 1 = solid). A
// particle whose voxel is solid is projected out to the nearest free voxel
// face along the grid's axes: from its voxel, each of the six directions
// is walked to the first free voxel (not past the grid), and the particle
// moves along the axis of the shortest walk to that free voxel's face, a
// small fraction of a voxel (kColliderSkin) inside it. Positions outside the
// grid, in a free voxel, or with no free voxel along any axis stay as they
// are. Mirrored by samples/fluid/fluid_sim.cpp (collidePoint).
layout(set = 0, binding = 5, std430) readonly buffer SolidBuf { float solid[]; };

const float kColliderSkin = 1.0 / 64.0; // voxels inside the free voxel

bool solidVoxel(ivec3 c) {
    return solid[(uint(c.z) * pc.colliderDimY + uint(c.y)) * pc.colliderDimX + uint(c.x)] > 0.5;
}

vec3 collide(vec3 p) {
    if (pc.colliderOn == 0u) return p;
    const vec3 origin = vec3(pc.colliderOriginX, pc.colliderOriginY, pc.colliderOriginZ);
    const ivec3 dims = ivec3(pc.colliderDimX, pc.colliderDimY, pc.colliderDimZ);
    const vec3 g = (p - origin) / pc.colliderVoxel;
    const vec3 f = floor(g);
    // Outside the grid (or NaN: the comparisons fail) nothing is solid.
    if (!(all(greaterThanEqual(f, vec3(0.0))) && all(lessThan(f, vec3(dims))))) return p;
    const ivec3 c = ivec3(f);
    if (!solidVoxel(c)) return p;
    float best = 3.0e38;
    int bestAxis = -1;
    float bestCoord = 0.0;
    // Directions in a fixed order (+y, -y, +x, -x, +z, -z); the first of equal walks wins.
    for (int d = 0; d < 6; ++d) {
        const int axis = d < 2 ? 1 : d < 4 ? 0 : 2;
        const int s = (d & 1) == 0 ? 1 : -1;
        ivec3 q = c;
        for (int k = 1; k <= dims[axis]; ++k) {
            q[axis] = c[axis] + s * k;
            if (q[axis] < 0 || q[axis] >= dims[axis]) break;
            if (!solidVoxel(q)) {
                // The face between q and the solid voxel before it, in voxels.
                const float face = s > 0 ? float(q[axis]) : float(q[axis] + 1);
                const float dist = abs(face - g[axis]);
                if (dist < best) {
                    best = dist;
                    bestAxis = axis;
                    bestCoord = face + float(s) * kColliderSkin;
                }
                break;
            }
        }
    }
    if (bestAxis < 0) return p;
    vec3 out_ = p;
    out_[bestAxis] = origin[bestAxis] + bestCoord * pc.colliderVoxel;
    return out_;
}
