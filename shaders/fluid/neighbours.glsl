// Loop over the particles of the 27 cells around sorted particle `self`'s
// cell (the cell it was sorted into this step), in a fixed order: cells z,
// y, x ascending, particles in sorted order. Deterministic sums.
// Usage: FOR_NEIGHBOURS(self) { ... uses j ... } END_NEIGHBOURS
#define FOR_NEIGHBOURS(self)                                                          \
    {                                                                                 \
        const uint selfCell_ = sortedCell[self];                                      \
        const ivec3 cc_ = ivec3(selfCell_ % pc.gridX, (selfCell_ / pc.gridX) % pc.gridY, \
                                selfCell_ / (pc.gridX * pc.gridY));                   \
        const ivec3 lo_ = max(cc_ - 1, ivec3(0));                                     \
        const ivec3 hi_ = min(cc_ + 1, ivec3(gridDims()) - 1);                        \
        for (int z_ = lo_.z; z_ <= hi_.z; ++z_)                                       \
            for (int y_ = lo_.y; y_ <= hi_.y; ++y_) {                                 \
                const uint row_ = cellIndex(ivec3(0, y_, z_));                        \
                const uint first_ = cellStart[row_ + uint(lo_.x)];                    \
                const uint last_ = cellStart[row_ + uint(hi_.x) + 1u];                \
                for (uint j = first_; j < last_; ++j) {
#define END_NEIGHBOURS \
    }                  \
    }                  \
    }
