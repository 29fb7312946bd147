// A sparse domain of metaballs: the balls the activate passes listed for
// each brick, as classify and extraction read them
// (sparse_metaball_field.glsl; particles' references are read by
// sparse_particles_blocks.comp). Needs `grid`.
#ifndef ISO_SPARSE_ITEM_REFS_GLSL
#define ISO_SPARSE_ITEM_REFS_GLSL

// Per listed brick i: words 2i, 2i + 1 its first reference and count; the
// references from word 2 * sparseLimits.x.
layout(set = 0, binding = 8, std430) readonly buffer BrickItemsBuf { uint brickItems[]; };

// The references of the brick being read: set by isoSparseUseBrick().
uint isoBrickFirstRef, isoBrickRefCount;

// No per-frame values: isoBeginUserFrame() of user_field.glsl does nothing here.
void isoBeginUserFrame() {}

// The brick whose items the field sums next (a listed brick's index).
void isoSparseUseBrick(uint listedBrick) {
    isoBrickFirstRef = 2u * grid.sparseLimits.x + brickItems[2u * listedBrick];
    isoBrickRefCount = brickItems[2u * listedBrick + 1u];
}

// The j-th item of the brick being read.
uint isoBrickItem(uint j) { return brickItems[isoBrickFirstRef + j]; }

#endif
