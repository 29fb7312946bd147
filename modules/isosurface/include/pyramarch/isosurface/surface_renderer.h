// Draw pass for an iso-surface: vkCmdDrawIndirect straight from the vertex
// buffer and draw-args buffer the isosurface module writes on the GPU, so the
// CPU never learns the triangle count. Renders into the host's attachments
// with dynamic rendering, either as a pass of a RenderGraph (the graph begins
// rendering with the attachments the pass declares) or recorded inside
// rendering the host began itself (recordDraw); or, built for the host's
// classic VkRenderPass (SurfaceRendererCreateInfo::renderPass), recorded
// inside that render pass instance (recordDraw), on a device without
// dynamic rendering.
//
//     SurfaceRendererCreateInfo info;
//     info.colorFormat = VK_FORMAT_B8G8R8A8_SRGB;
//     info.depthFormat = VK_FORMAT_D32_SFLOAT;
//     auto created = SurfaceRenderer::create(device, info);
//     if (!created) return fail(created.status());
//     auto renderer = std::move(*created);
//     renderer->addPasses(graph, {.vertices = v, .drawArgs = a, .color = c, .depth = d});
//     // per frame: renderer->setView(view); graph.execute(cmd);
//
// Winding: the module emits counter-clockwise triangles seen from outside
// (outside = decreasing field) in a right-handed world. Front face:
// VK_FRONT_FACE_COUNTER_CLOCKWISE (the default) when the projection flips y
// for Vulkan (makeSurfaceView does) or the viewport height is negative;
// VK_FRONT_FACE_CLOCKWISE when y is not flipped, or flipped twice.
//
// Synchronization: IsoSurface::record() leaves the vertex buffer in
// vertex-input use, the draw-args buffer in indirect-read use and the index
// buffer in index-read use (its own last barrier), so a draw later in the
// same command buffer needs no barrier for them; with addPasses() the graph
// orders the draw. The host synchronizes its own attachments.
#pragma once

#include <array>
#include <memory>
#include <string>

#include <vulkan/vulkan_core.h>

#include "pyramarch/engine/pipeline.h"
#include "pyramarch/engine/render_graph.h"
#include "pyramarch/engine/status.h"
#include "pyramarch/isosurface/draw_args.h"

namespace pyramarch {
class Device;
}

namespace pyramarch::iso {

enum class SurfaceShading {
    Lit,           // hemisphere ambient + Blinn-Phong
    CellTriangles, // debug: colour = triangles its cell emitted (1 blue, 2 green, 3 red, 4 cyan, 5 magenta)
    Normals,       // debug: world normal as colour
    Flat,          // baseColor unlit (masks)
};

struct SurfaceRendererCreateInfo {
    // Required. Format of the colour attachment the pass renders into.
    VkFormat colorFormat = VK_FORMAT_UNDEFINED;
    // Optional. Depth attachment format; UNDEFINED draws without depth test.
    VkFormat depthFormat = VK_FORMAT_D32_SFLOAT;
    // Sample count of the attachments (MSAA when > 1; resolve in addPass).
    VkSampleCountFlagBits samples = VK_SAMPLE_COUNT_1_BIT;
    // Cull back faces (the documented winding). Off draws both sides and
    // lights back faces with the flipped normal in a second colour (open
    // surfaces, e.g. a volume cut by its bounds).
    bool cullBackFaces = true;
    // Front face in framebuffer space: COUNTER_CLOCKWISE for a y-flipping
    // projection (makeSurfaceView), CLOCKWISE for one that keeps y (see Winding).
    VkFrontFace frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
    // Optional: build for subpass `subpass` of the host's VkRenderPass (one
    // colour attachment of colorFormat/samples, depth iff depthFormat is set)
    // instead of dynamic rendering; draw with recordDraw*() (addPasses() refuses).
    VkRenderPass renderPass = VK_NULL_HANDLE;
    uint32_t subpass = 0;
    // Also build a wireframe pipeline when the device has fillModeNonSolid
    // (and the Device was created requiring it); wireframeSupported() tells.
    bool wireframe = false;
    // Prefix of pass names; unique per graph.
    std::string name = "surface";
};

// Camera and lighting of one frame (push constants; changing it costs nothing).
struct SurfaceView {
    std::array<float, 16> viewProj{}; // column-major world -> clip, Vulkan clip space (y down, z 0..1)
    std::array<float, 3> cameraPos{0.f, 0.f, 3.f};
    std::array<float, 3> lightDir{0.4f, 0.8f, 0.45f};    // towards the light, need not be normalised
    std::array<float, 3> baseColor{0.85f, 0.42f, 0.16f}; // linear
    float ambient = 0.55f;
    float specularPower = 48.f;
    SurfaceShading shading = SurfaceShading::Lit;
    bool wireframe = false; // ignored unless wireframeSupported()
};

// Builds viewProj for a camera at `eye` looking at `target` (y up), vertical
// field of view in radians, aspect = width / height.
SurfaceView makeSurfaceView(std::array<float, 3> eye, std::array<float, 3> target, float fovY, float aspect,
                            float zNear = 0.01f, float zFar = 100.f);

// Lifetime: as for IsoSurface, the host waits until every command buffer
// that recorded the renderer's draw has finished before destroying it (the
// module never waits on the host's fences).
class SurfaceRenderer {
public:
    static Result<std::unique_ptr<SurfaceRenderer>> create(Device& device, const SurfaceRendererCreateInfo& info);
    ~SurfaceRenderer();
    SurfaceRenderer(const SurfaceRenderer&) = delete;
    SurfaceRenderer& operator=(const SurfaceRenderer&) = delete;

    // The graph resources the draw reads and renders into: the module's outputs as the graph
    // knows them, i.e. IsoSurface::addPasses(graph)'s GraphOutputs when the
    // surface's passes are in the same graph (importing the same buffers a second
    // time would hide the extraction -> draw hazard from the graph).
    struct GraphInputs {
        BufferRef vertices;                            // required: IsoVertex array (32-byte stride)
        BufferRef drawArgs;                            // required: holds a VkDrawIndirectCommand at drawArgsOffset
        VkDeviceSize drawArgsOffset = kDrawArgsOffset; // IsoSurface::drawArgsOffset()
        // Optional: indexed output (uint32 indices); the draw then reads a
        // VkDrawIndexedIndirectCommand at drawIndexedArgsOffset. The module writes
        // w = 0 in indexed vertices, so the per-cell colouring shows white.
        BufferRef indices;
        VkDeviceSize drawIndexedArgsOffset = kDrawIndexedArgsOffset; // IsoSurface::drawIndexedArgsOffset()
        ImageRef color;   // required: colour attachment (MSAA image when samples > 1)
        ImageRef depth;   // required when depthFormat != UNDEFINED
        ImageRef resolve; // optional: single-sample resolve target of `color`
        LoadOp colorLoad = LoadOp::Clear;
        std::array<float, 4> clearColor{0.08f, 0.09f, 0.11f, 1.f};
    };
    struct GraphOutputs {
        ImageRef color; // the image holding the drawn surface (the resolve target with MSAA)
    };
    // Adds the graphics pass "<name>.draw" to `graph` (the graph begins
    // rendering with the declared attachments and clears/loads them).
    // Missing inputs are an ErrorCode::InvalidArgument error; a renderer
    // built for a renderPass is an ErrorCode::InvalidState error. The renderer
    // holds no per-graph state, so it may draw in several graphs (e.g. a new
    // graph after a resize); a second pass in the same graph needs another
    // SurfaceRendererCreateInfo::name (pass names are unique per graph).
    Result<GraphOutputs> addPasses(RenderGraph& graph, const GraphInputs& inputs);
    // For hosts with their own rendering: records bind + push + draw inside
    // rendering the host began (vkCmdBeginRendering with attachments of the
    // create-info formats, or vkCmdBeginRenderPass of the create-info's
    // renderPass at its subpass); the host sets viewport and scissor. After
    // IsoSurface::record() in the same command buffer no barrier is needed
    // (see Synchronization); buffers written otherwise the host makes
    // readable as vertex input and indirect commands first.
    void recordDraw(VkCommandBuffer cmd, VkBuffer vertices, VkBuffer drawArgs, VkDeviceSize drawArgsOffset) const;
    // Indexed output: vkCmdDrawIndexedIndirect with a VkDrawIndexedIndirectCommand at drawIndexedArgsOffset.
    void recordDrawIndexed(VkCommandBuffer cmd, VkBuffer vertices, VkBuffer indices, VkBuffer drawArgs,
                           VkDeviceSize drawIndexedArgsOffset) const;

    void setView(const SurfaceView& view) { view_ = view; }
    const SurfaceView& view() const { return view_; }
    bool wireframeSupported() const { return wireframe_.pipeline() != VK_NULL_HANDLE; }

private:
    SurfaceRenderer() = default;
    void bind(VkCommandBuffer cmd, VkBuffer vertices) const;
    Device* device_ = nullptr;
    SurfaceRendererCreateInfo info_;
    GraphicsPipeline fill_;
    GraphicsPipeline wireframe_;
    SurfaceView view_;
};

} // namespace pyramarch::iso
