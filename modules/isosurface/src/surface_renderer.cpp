#include "pyramarch/isosurface/surface_renderer.h"

#include <cmath>

#include "pyramarch/engine/device.h"
#include "pyramarch/engine/vulkan_functions.h"

#include "isosurface/surface_shared.h"

namespace pyramarch::iso {

static_assert(sizeof(gpu::SurfaceVec4) * 2 == kVertexStride, "surface.vert reads the module's vertex layout");

namespace {
const uint32_t kSurfaceVertSpv[] =
#include "shaders/isosurface/surface.vert.spv.inc"
    ;
const uint32_t kSurfaceFragSpv[] =
#include "shaders/isosurface/surface.frag.spv.inc"
    ;

std::array<float, 3> sub(std::array<float, 3> a, std::array<float, 3> b) {
    return {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
}
std::array<float, 3> cross(std::array<float, 3> a, std::array<float, 3> b) {
    return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
float dot(std::array<float, 3> a, std::array<float, 3> b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
std::array<float, 3> normalize(std::array<float, 3> a) {
    const float l = std::sqrt(dot(a, a));
    return l > 0.f ? std::array<float, 3>{a[0] / l, a[1] / l, a[2] / l} : a;
}
} // namespace

SurfaceView makeSurfaceView(std::array<float, 3> eye, std::array<float, 3> target, float fovY, float aspect,
                            float zNear, float zFar) {
    // Right-handed look-at; Vulkan projection with y flipped and depth 0..1,
    // which keeps counter-clockwise (seen from outside) as the front face.
    const std::array<float, 3> f = normalize(sub(target, eye));
    std::array<float, 3> up{0.f, 1.f, 0.f};
    if (std::fabs(dot(f, up)) > 0.999f) up = {0.f, 0.f, 1.f};
    const std::array<float, 3> s = normalize(cross(f, up));
    const std::array<float, 3> u = cross(s, f);
    float view[16] = {s[0], u[0], -f[0], 0, s[1],         u[1],         -f[1],       0,
                      s[2], u[2], -f[2], 0, -dot(s, eye), -dot(u, eye), dot(f, eye), 1};
    const float t = 1.f / std::tan(fovY * 0.5f);
    float proj[16] = {};
    proj[0] = t / aspect;
    proj[5] = -t;
    proj[10] = zFar / (zNear - zFar);
    proj[11] = -1.f;
    proj[14] = zNear * zFar / (zNear - zFar);
    SurfaceView v;
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) {
            float sum = 0.f;
            for (int k = 0; k < 4; ++k) sum += proj[k * 4 + r] * view[c * 4 + k];
            v.viewProj[c * 4 + r] = sum;
        }
    v.cameraPos = eye;
    return v;
}

Result<std::unique_ptr<SurfaceRenderer>> SurfaceRenderer::create(Device& device,
                                                                 const SurfaceRendererCreateInfo& info) {
    if (info.colorFormat == VK_FORMAT_UNDEFINED)
        return Status::error(ErrorCode::InvalidArgument, "SurfaceRenderer: colorFormat is required");
    if (info.frontFace != VK_FRONT_FACE_COUNTER_CLOCKWISE && info.frontFace != VK_FRONT_FACE_CLOCKWISE)
        return Status::error(ErrorCode::InvalidArgument, "SurfaceRenderer: frontFace must be COUNTER_CLOCKWISE or "
                                                         "CLOCKWISE");
    std::unique_ptr<SurfaceRenderer> r(new SurfaceRenderer());
    r->device_ = &device;
    r->info_ = info;
    GraphicsPipelineDesc desc;
    desc.vertexSpirv = kSurfaceVertSpv;
    desc.fragmentSpirv = kSurfaceFragSpv;
    const std::string fillName = info.name + ".fill";
    desc.name = fillName.c_str();
    desc.layout.pushConstantBytes = sizeof(gpu::SurfacePush);
    desc.layout.stages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
    desc.vertexStride = kVertexStride;
    desc.attributes = {{0, VK_FORMAT_R32G32B32A32_SFLOAT, 0}, {1, VK_FORMAT_R32G32B32A32_SFLOAT, 16}};
    desc.cullMode = info.cullBackFaces ? VK_CULL_MODE_BACK_BIT : VK_CULL_MODE_NONE;
    desc.frontFace = info.frontFace;
    desc.depthTest = desc.depthWrite = info.depthFormat != VK_FORMAT_UNDEFINED;
    desc.depthCompare = VK_COMPARE_OP_LESS_OR_EQUAL;
    desc.colorFormats = {info.colorFormat};
    desc.depthFormat = info.depthFormat;
    desc.samples = info.samples;
    desc.renderPass = info.renderPass;
    desc.subpass = info.subpass;
    auto fill = GraphicsPipeline::create(device, desc);
    if (!fill) return fill.status().withContext("SurfaceRenderer: fill pipeline: ");
    r->fill_ = std::move(fill).value();
    if (info.wireframe && device.limits().fillModeNonSolid) {
        const std::string wireName = info.name + ".wireframe";
        desc.name = wireName.c_str();
        desc.polygonMode = VK_POLYGON_MODE_LINE;
        auto wire = GraphicsPipeline::create(device, desc);
        if (!wire) return wire.status().withContext("SurfaceRenderer: wireframe pipeline: ");
        r->wireframe_ = std::move(wire).value();
    }
    return r;
}

SurfaceRenderer::~SurfaceRenderer() = default;

Result<SurfaceRenderer::GraphOutputs> SurfaceRenderer::addPasses(RenderGraph& graph, const GraphInputs& desc) {
    if (info_.renderPass)
        return Status::error(ErrorCode::InvalidState,
                             "SurfaceRenderer '" + info_.name +
                                 "': addPasses: the renderer was built for the host's VkRenderPass; record it with "
                                 "recordDraw() inside that render pass");
    if (!desc.vertices.valid() || !desc.drawArgs.valid() || !desc.color.valid())
        return Status::error(ErrorCode::InvalidArgument,
                             "SurfaceRenderer '" + info_.name + "': addPasses needs vertices, drawArgs and color");
    if (info_.depthFormat != VK_FORMAT_UNDEFINED && !desc.depth.valid())
        return Status::error(ErrorCode::InvalidArgument,
                             "SurfaceRenderer '" + info_.name +
                                 "': addPasses: the renderer was created with a depth format but no depth "
                                 "image was given");
    AttachmentDesc color;
    color.load = desc.colorLoad;
    color.clear.color = {{desc.clearColor[0], desc.clearColor[1], desc.clearColor[2], desc.clearColor[3]}};
    color.resolveTarget = desc.resolve;
    PassBuilder pass = graph.addPass(info_.name + ".draw", PassKind::Graphics);
    // The graph binds the fill pipeline; record() switches to the wireframe
    // one (same layout) when the view asks for it.
    pass.pipeline(fill_)
        .use(desc.vertices, Access::VertexRead)
        .use(desc.drawArgs, Access::IndirectRead)
        .colorAttachment(desc.color, color);
    if (desc.indices.valid()) pass.use(desc.indices, Access::IndexRead);
    if (desc.depth.valid()) {
        AttachmentDesc depth;
        depth.load = LoadOp::Clear;
        depth.store = false;
        depth.clear.depthStencil = {1.f, 0};
        pass.depthAttachment(desc.depth, depth);
    }
    const BufferRef vertices = desc.vertices, args = desc.drawArgs, indices = desc.indices;
    const VkDeviceSize offset = desc.drawArgsOffset, indexedOffset = desc.drawIndexedArgsOffset;
    pass.record([this, vertices, args, indices, offset, indexedOffset](PassContext& ctx) {
        if (indices.valid())
            recordDrawIndexed(ctx.cmd, ctx.buffer(vertices), ctx.buffer(indices), ctx.buffer(args), indexedOffset);
        else
            recordDraw(ctx.cmd, ctx.buffer(vertices), ctx.buffer(args), offset);
    });
    return GraphOutputs{desc.resolve.valid() ? desc.resolve : desc.color};
}

void SurfaceRenderer::recordDraw(VkCommandBuffer cmd, VkBuffer vertices, VkBuffer drawArgs,
                                 VkDeviceSize drawArgsOffset) const {
    bind(cmd, vertices);
    device_->vk().vkCmdDrawIndirect(cmd, drawArgs, drawArgsOffset, 1, sizeof(VkDrawIndirectCommand));
}

void SurfaceRenderer::recordDrawIndexed(VkCommandBuffer cmd, VkBuffer vertices, VkBuffer indices, VkBuffer drawArgs,
                                        VkDeviceSize drawIndexedArgsOffset) const {
    bind(cmd, vertices);
    device_->vk().vkCmdBindIndexBuffer(cmd, indices, 0, VK_INDEX_TYPE_UINT32);
    device_->vk().vkCmdDrawIndexedIndirect(cmd, drawArgs, drawIndexedArgsOffset, 1,
                                           sizeof(VkDrawIndexedIndirectCommand));
}

void SurfaceRenderer::bind(VkCommandBuffer cmd, VkBuffer vertices) const {
    const VolkDeviceTable& vk = device_->vk();
    const GraphicsPipeline& p = view_.wireframe && wireframeSupported() ? wireframe_ : fill_;
    gpu::SurfacePush pc{};
    for (int i = 0; i < 16; ++i) pc.viewProj.m[i] = view_.viewProj[i];
    pc.cameraPos = {view_.cameraPos[0], view_.cameraPos[1], view_.cameraPos[2], 1.f};
    const std::array<float, 3> l = normalize(view_.lightDir);
    pc.lightDir = {l[0], l[1], l[2], view_.specularPower};
    pc.baseColor = {view_.baseColor[0], view_.baseColor[1], view_.baseColor[2], view_.ambient};
    switch (view_.shading) {
    case SurfaceShading::Lit: pc.flags.x = gpu::kSurfaceShadeLit; break;
    case SurfaceShading::CellTriangles: pc.flags.x = gpu::kSurfaceShadeCellTriangles; break;
    case SurfaceShading::Normals: pc.flags.x = gpu::kSurfaceShadeNormals; break;
    case SurfaceShading::Flat: pc.flags.x = gpu::kSurfaceShadeFlat; break;
    }
    pc.flags.y = info_.cullBackFaces ? 0u : 1u;
    vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, p.pipeline());
    vk.vkCmdPushConstants(cmd, p.layout(), VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof(pc),
                          &pc);
    const VkDeviceSize zero = 0;
    vk.vkCmdBindVertexBuffers(cmd, 0, 1, &vertices, &zero);
}

} // namespace pyramarch::iso
