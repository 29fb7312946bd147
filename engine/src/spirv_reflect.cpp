// Set 0's descriptor types read from SPIR-V, so that a pipeline layout
// cannot disagree with the shader it is made for (PipelineLayoutDesc::
// bindingsFromSpirv). Only what a descriptor's type depends on is parsed:
// decorations (DescriptorSet, Binding, Block, BufferBlock), types (pointers,
// arrays, structs, images, sampled images) and variables. Buffers only: the
// render graph binds nothing else.
#include <string>
#include <unordered_map>

#include "pyramarch/engine/pipeline.h"

namespace pyramarch {

namespace {

// SPIR-V opcodes, decorations and storage classes used below (SPIR-V 1.6 spec, section 3).
enum : uint32_t {
    OpTypeImage = 25,
    OpTypeSampledImage = 27,
    OpTypeArray = 28,
    OpTypeRuntimeArray = 29,
    OpTypeStruct = 30,
    OpTypePointer = 32,
    OpVariable = 59,
    OpDecorate = 71,
};
enum : uint32_t {
    DecorationBlock = 2,
    DecorationBufferBlock = 3,
    DecorationBinding = 33,
    DecorationDescriptorSet = 34
};
enum : uint32_t { StorageUniformConstant = 0, StorageUniform = 2, StorageStorageBuffer = 12 };
constexpr uint32_t kDimBuffer = 5;
constexpr uint32_t kSpirvMagic = 0x07230203u;

struct TypeInfo {
    uint32_t op = 0;
    uint32_t a = 0, b = 0; // pointer: storage class, pointee; array: element; image: dim, sampled; sampled image: image
};

} // namespace

Result<std::vector<VkDescriptorType>> reflectSet0Bindings(std::span<const uint32_t> spirv, const char* name) {
    const std::string who = std::string("SPIR-V of '") + (name ? name : "") + "'";
    if (spirv.size() < 5 || spirv[0] != kSpirvMagic)
        return Status::error(ErrorCode::InvalidArgument, who + " is not a SPIR-V module");
    std::unordered_map<uint32_t, TypeInfo> types;
    std::unordered_map<uint32_t, uint32_t> set, binding;  // variable id -> decoration
    std::unordered_map<uint32_t, uint32_t> blockKind;     // struct id -> Block / BufferBlock
    std::vector<std::pair<uint32_t, uint32_t>> variables; // (id, pointer type)
    for (size_t at = 5; at < spirv.size();) {
        const uint32_t words = spirv[at] >> 16, op = spirv[at] & 0xffffu;
        if (words == 0 || at + words > spirv.size())
            return Status::error(ErrorCode::InvalidArgument,
                                 who + " has a malformed instruction at word " + std::to_string(at));
        const uint32_t* w = &spirv[at];
        switch (op) {
        case OpDecorate:
            if (words >= 4 && w[2] == DecorationBinding) binding[w[1]] = w[3];
            if (words >= 4 && w[2] == DecorationDescriptorSet) set[w[1]] = w[3];
            if (words >= 3 && (w[2] == DecorationBlock || w[2] == DecorationBufferBlock)) blockKind[w[1]] = w[2];
            break;
        case OpTypeImage:
            if (words >= 9) types[w[1]] = {op, w[3], w[7]};
            break;
        case OpTypeSampledImage:
        case OpTypeArray:
        case OpTypeRuntimeArray:
            if (words >= 3) types[w[1]] = {op, w[2]};
            break;
        case OpTypeStruct: types[w[1]] = {op}; break;
        case OpTypePointer:
            if (words >= 4) types[w[1]] = {op, w[2], w[3]};
            break;
        case OpVariable:
            if (words >= 4) variables.emplace_back(w[2], w[1]);
            break;
        default: break;
        }
        at += words;
    }
    std::vector<VkDescriptorType> out;
    std::vector<bool> seen;
    for (const auto& [id, pointerType] : variables) {
        auto b = binding.find(id);
        if (b == binding.end()) continue; // not a descriptor (inputs, workgroup memory, ...)
        const uint32_t s = set.count(id) ? set[id] : 0;
        if (s != 0)
            return Status::error(ErrorCode::InvalidArgument,
                                 who + " uses descriptor set " + std::to_string(s) + " (only set 0 is supported)");
        const TypeInfo ptr = types[pointerType];
        uint32_t pointee = ptr.b;
        while (types[pointee].op == OpTypeArray || types[pointee].op == OpTypeRuntimeArray) pointee = types[pointee].a;
        const TypeInfo t = types[pointee];
        VkDescriptorType type = VK_DESCRIPTOR_TYPE_MAX_ENUM;
        if (ptr.a == StorageStorageBuffer) {
            type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        } else if (ptr.a == StorageUniform) {
            type = blockKind[pointee] == DecorationBufferBlock ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
                                                               : VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
        } else if (ptr.a == StorageUniformConstant) {
            // Texel buffers: a storage image (imageBuffer) or a sampled one
            // (samplerBuffer, with or without its sampler type) of Dim Buffer.
            if (t.op == OpTypeImage && t.a == kDimBuffer)
                type = t.b == 2 ? VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER : VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
            else if (t.op == OpTypeSampledImage && types[t.a].a == kDimBuffer)
                type = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
        }
        if (type == VK_DESCRIPTOR_TYPE_MAX_ENUM)
            return Status::error(ErrorCode::Unsupported,
                                 who + ": binding " + std::to_string(b->second) +
                                     " is not a buffer (reflection covers storage, uniform and texel buffers)");
        if (b->second >= out.size()) {
            out.resize(b->second + 1, VK_DESCRIPTOR_TYPE_MAX_ENUM);
            seen.resize(b->second + 1, false);
        }
        if (seen[b->second] && out[b->second] != type)
            return Status::error(ErrorCode::InvalidArgument,
                                 who + ": binding " + std::to_string(b->second) + " is declared with two types");
        out[b->second] = type;
        seen[b->second] = true;
    }
    return out;
}

} // namespace pyramarch
