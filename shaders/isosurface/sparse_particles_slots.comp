#version 460
// Sparse particles: the block pool's slots stay with their bricks from
// frame to frame (field_particles_sparse.cpp), so that a brick the particles keep reaching
// keeps its block and only the bricks that come and go take and free slots:
// an animated fluid does not re-pool every brick each frame. Between the
// activate pass (this frame's brick list) and the blocks passes, three
// modes (pc.srcLevel):
// 0, <name>.sparse.slots.keep (a thread per listed brick): a brick whose
//    slot (its table word) still names it as owner keeps it, stamped with
//    this frame; the others wait for mode 2.
// 1, <name>.sparse.slots.free (a thread per slot of maxBricks): a slot no
//    listed brick kept this frame is free: its owner is cleared and it is
//    appended to the free list.
// 2, <name>.sparse.slots.assign (a thread per listed brick without one):
//    the next free slot, owned by the brick from now on. Listed bricks <=
//    maxBricks = kept + free, so a free slot is always there.
// Listed brick i's slot goes to brickSlots[i], what the blocks passes,
// classify and extraction read. The order of the free list follows the
// atomics: slots, like the list, reach the output only as its order.
#include "isosurface/common.glsl"

layout(local_size_x = kIsoBricksPerGroup) in;

layout(set = 0, binding = 0, std140) uniform GridBuf { IsoGrid grid; };
layout(set = 0, binding = 1, std430) buffer CountersBuf { IsoCounters counters; };
layout(set = 0, binding = 2, std430) readonly buffer BrickListBuf { uint bricks[]; };
// Per brick of the virtual grid: its slot when it last had one (checked
// against the slot's owner: never cleared).
layout(set = 0, binding = 3, std430) buffer SlotOfBrickBuf { uint slotOfBrick[]; };
// Per slot: x its owner brick + 1 (0: none), y the frame stamp (frame + 1)
// of its last use. Zero at creation.
layout(set = 0, binding = 4, std430) buffer SlotStateBuf { uvec2 slotState[]; };
layout(set = 0, binding = 5, std430) buffer FreeSlotsBuf { uint freeSlots[]; };
layout(set = 0, binding = 6, std430) buffer BrickSlotsBuf { uint brickSlots[]; };

const uint kNoSlot = 0xffffffffu;

uint tableIndex(uint packed) {
    const uint mask = (1u << kIsoBrickAxisBits) - 1u;
    const uvec3 b = uvec3(packed & mask, (packed >> kIsoBrickAxisBits) & mask, packed >> (2 * kIsoBrickAxisBits));
    return b.x + grid.sparse.x * (b.y + grid.sparse.y * b.z);
}

void main() {
    const uint thread = linearGroup() * kIsoBricksPerGroup + gl_LocalInvocationIndex;
    const uint mode = isoOpaque(pc.srcLevel);
    const uint capacity = grid.sparseLimits.x;
    const uint listed = min(counters.sparseBricks, capacity);
    const uint stamp = pc.frame + 1u;
    // One structured if/else chain (see sparse_activate.glsl).
    if (mode == 1u) {
        if (thread < capacity && slotState[thread].y != stamp) {
            slotState[thread].x = 0u;
            freeSlots[atomicAdd(counters.sparseFreeSlots, 1u)] = thread;
        }
    } else if (thread < listed) {
        const uint b = tableIndex(bricks[thread]);
        if (mode == 0u) {
            const uint s = slotOfBrick[b];
            const bool kept = s < capacity && slotState[s].x == b + 1u;
            if (kept) slotState[s].y = stamp;
            brickSlots[thread] = kept ? s : kNoSlot;
        } else if (brickSlots[thread] == kNoSlot) {
            const uint s = freeSlots[atomicAdd(counters.sparseFreeTaken, 1u)];
            slotState[s] = uvec2(b + 1u, stamp);
            slotOfBrick[b] = s;
            brickSlots[thread] = s;
        }
    }
}
