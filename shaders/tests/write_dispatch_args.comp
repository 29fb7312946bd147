#version 460
// Turns an element count into a VkDispatchIndirectCommand for 64-wide groups.
layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 0) readonly buffer Count { uint count; } src;
layout(std430, set = 0, binding = 1) writeonly buffer Args { uint x, y, z; } args;
void main() {
    args.x = (src.count + 63u) / 64u;
    args.y = 1u;
    args.z = 1u;
}
