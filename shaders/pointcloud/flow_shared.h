// Layout shared by the pointcloud scene's particle flow (C++ and GLSL).
#ifndef PYRAMARCH_FLOW_SHARED_H
#define PYRAMARCH_FLOW_SHARED_H

#ifdef __cplusplus
#include <cstdint>
namespace sample::gpu {
using uint = uint32_t;
#define FLOW_CONST inline constexpr uint32_t
#else
#define FLOW_CONST const uint
#endif

FLOW_CONST kFlowGroupSize = 64;

// Per-frame step: push constants, so the host never touches a buffer the GPU reads.
struct FlowPush {
    float time;     // flow time at the start of the step
    float dt;       // step length (0: particles stay)
    uint count;     // particles to move
    uint groupsX;   // dispatch width (2D fold past maxComputeWorkGroupCount[0])
};

#ifdef __cplusplus
static_assert(sizeof(FlowPush) == 16, "push constants");
} // namespace sample::gpu
#endif
#undef FLOW_CONST
#endif
