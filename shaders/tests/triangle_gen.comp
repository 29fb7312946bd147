#version 460
// Writes one triangle's vertices and its VkDrawIndirectCommand on the GPU.
layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 0) writeonly buffer Vertices { vec4 positions[]; } verts;
layout(std430, set = 0, binding = 1) writeonly buffer Draw { uint vertexCount, instanceCount, firstVertex, firstInstance; } draw;
void main() {
    verts.positions[0] = vec4(-0.5, -0.5, 0.0, 1.0);
    verts.positions[1] = vec4(0.5, -0.5, 0.0, 1.0);
    verts.positions[2] = vec4(0.0, 0.5, 0.0, 1.0);
    draw.vertexCount = 3u;
    draw.instanceCount = 1u;
    draw.firstVertex = 0u;
    draw.firstInstance = 0u;
}
