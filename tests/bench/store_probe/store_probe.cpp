// Store-path probe: what writing the leaf merge's output (8 words of each of
// 7 arrays per thread, 32-byte aligned) costs on the default Vulkan device
// through four kinds of store. No pyramarch code: it isolates the driver's
// store path (on lavapipe, a loop over the lanes per store).
//   store_probe THREADS SHADER.spv...   (12 runs each, alternated; the first 2 carry JIT)
// Prints one JSON line per shader: median and minimum milliseconds.
#include <volk.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#define CHECK(x)                                                                                                       \
    do {                                                                                                               \
        VkResult r_ = (x);                                                                                             \
        if (r_ != VK_SUCCESS) {                                                                                        \
            std::fprintf(stderr, "store_probe: %s failed (%d)\n", #x, int(r_));                                        \
            return 1;                                                                                                  \
        }                                                                                                              \
    } while (0)

namespace {
std::vector<char> readFile(const char* path) {
    std::ifstream f(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), {}};
}
} // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: store_probe THREADS SHADER.spv...\n");
        return 2;
    }
    const uint32_t threads = uint32_t(std::strtoul(argv[1], nullptr, 10));
    if (threads == 0 || threads > (1u << 22)) {
        std::fprintf(stderr, "store_probe: THREADS must be 1..4194304\n");
        return 2;
    }
    CHECK(volkInitialize());
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.apiVersion = VK_API_VERSION_1_3;
    VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ici.pApplicationInfo = &app;
    VkInstance instance;
    CHECK(vkCreateInstance(&ici, nullptr, &instance));
    volkLoadInstance(instance);
    uint32_t count = 1;
    VkPhysicalDevice physical;
    if (vkEnumeratePhysicalDevices(instance, &count, &physical) < 0 || count == 0) return 1;
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(physical, &props);
    float priority = 1;
    VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queueInfo.queueCount = 1;
    queueInfo.pQueuePriorities = &priority;
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    features.pNext = &f12;
    features.features.shaderInt64 = VK_TRUE;
    f12.bufferDeviceAddress = VK_TRUE;
    VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    dci.pNext = &features;
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &queueInfo;
    VkDevice device;
    CHECK(vkCreateDevice(physical, &dci, nullptr, &device));
    volkLoadDevice(device);
    VkQueue queue;
    vkGetDeviceQueue(device, 0, 0, &queue);
    VkPhysicalDeviceMemoryProperties memory;
    vkGetPhysicalDeviceMemoryProperties(physical, &memory);

    constexpr uint32_t kArrays = 7;
    VkBuffer buffers[kArrays];
    VkBufferView views[kArrays];
    VkDeviceMemory memories[kArrays];
    uint64_t addresses[kArrays];
    const VkDeviceSize bytes = VkDeviceSize(threads) * 32;
    for (uint32_t i = 0; i < kArrays; ++i) {
        VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
        bi.size = bytes;
        bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT |
                   VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
        CHECK(vkCreateBuffer(device, &bi, nullptr, &buffers[i]));
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(device, buffers[i], &req);
        uint32_t type = 0;
        while (type < memory.memoryTypeCount &&
               (!((req.memoryTypeBits >> type) & 1u) ||
                !(memory.memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)))
            ++type;
        VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
        flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
        VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        mai.pNext = &flags;
        mai.allocationSize = req.size;
        mai.memoryTypeIndex = type;
        CHECK(vkAllocateMemory(device, &mai, nullptr, &memories[i]));
        CHECK(vkBindBufferMemory(device, buffers[i], memories[i], 0));
        VkBufferDeviceAddressInfo address{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
        address.buffer = buffers[i];
        addresses[i] = vkGetBufferDeviceAddress(device, &address);
        VkBufferViewCreateInfo vi{VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO};
        vi.buffer = buffers[i];
        vi.format = VK_FORMAT_R32G32B32A32_UINT;
        vi.range = VK_WHOLE_SIZE;
        CHECK(vkCreateBufferView(device, &vi, nullptr, &views[i]));
    }

    // Two descriptor sets: the arrays as storage buffers and as storage texel buffers.
    VkDescriptorSetLayout layouts[2];
    VkDescriptorSet sets[2];
    VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kArrays},
                                     {VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER, kArrays}};
    VkDescriptorPoolCreateInfo dpi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dpi.maxSets = 2;
    dpi.poolSizeCount = 2;
    dpi.pPoolSizes = sizes;
    VkDescriptorPool pool;
    CHECK(vkCreateDescriptorPool(device, &dpi, nullptr, &pool));
    for (int s = 0; s < 2; ++s) {
        const VkDescriptorType type =
            s == 0 ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER;
        VkDescriptorSetLayoutBinding bindings[kArrays];
        for (uint32_t i = 0; i < kArrays; ++i) bindings[i] = {i, type, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
        VkDescriptorSetLayoutCreateInfo dli{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
        dli.bindingCount = kArrays;
        dli.pBindings = bindings;
        CHECK(vkCreateDescriptorSetLayout(device, &dli, nullptr, &layouts[s]));
        VkDescriptorSetAllocateInfo dai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
        dai.descriptorPool = pool;
        dai.descriptorSetCount = 1;
        dai.pSetLayouts = &layouts[s];
        CHECK(vkAllocateDescriptorSets(device, &dai, &sets[s]));
        VkDescriptorBufferInfo infos[kArrays];
        VkWriteDescriptorSet writes[kArrays];
        for (uint32_t i = 0; i < kArrays; ++i) {
            infos[i] = {buffers[i], 0, VK_WHOLE_SIZE};
            writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                         nullptr,
                         sets[s],
                         i,
                         0,
                         1,
                         type,
                         nullptr,
                         s == 0 ? &infos[i] : nullptr,
                         s == 1 ? &views[i] : nullptr};
        }
        vkUpdateDescriptorSets(device, kArrays, writes, 0, nullptr);
    }
    struct Push {
        uint32_t threads, pad;
        uint64_t address[kArrays];
    } push{threads, 0, {}};
    std::memcpy(push.address, addresses, sizeof addresses);
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(Push)};

    struct Probe {
        std::string name;
        int set;
        VkPipelineLayout layout;
        VkPipeline pipeline;
        std::vector<double> ms;
    };
    std::vector<Probe> probes;
    for (int a = 2; a < argc; ++a) {
        const std::vector<char> code = readFile(argv[a]);
        if (code.empty() || code.size() % 4) {
            std::fprintf(stderr, "store_probe: cannot read %s\n", argv[a]);
            return 1;
        }
        Probe p;
        p.name = argv[a];
        // The image variant (stores_image.spv) binds the arrays as storage texel buffers.
        p.set = std::filesystem::path(p.name).stem() == "stores_image" ? 1 : 0;
        VkPipelineLayoutCreateInfo pli{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
        pli.setLayoutCount = 1;
        pli.pSetLayouts = &layouts[p.set];
        pli.pushConstantRangeCount = 1;
        pli.pPushConstantRanges = &range;
        CHECK(vkCreatePipelineLayout(device, &pli, nullptr, &p.layout));
        VkShaderModuleCreateInfo smi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
        smi.codeSize = code.size();
        smi.pCode = reinterpret_cast<const uint32_t*>(code.data());
        VkShaderModule module;
        CHECK(vkCreateShaderModule(device, &smi, nullptr, &module));
        VkComputePipelineCreateInfo cpi{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
        cpi.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                     nullptr,
                     0,
                     VK_SHADER_STAGE_COMPUTE_BIT,
                     module,
                     "main",
                     nullptr};
        cpi.layout = p.layout;
        CHECK(vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &cpi, nullptr, &p.pipeline));
        probes.push_back(std::move(p));
    }
    VkCommandPoolCreateInfo cpi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    cpi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT; // one command buffer, re-recorded per run
    VkCommandPool commandPool;
    CHECK(vkCreateCommandPool(device, &cpi, nullptr, &commandPool));
    VkCommandBufferAllocateInfo cai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    cai.commandPool = commandPool;
    cai.commandBufferCount = 1;
    VkCommandBuffer cmd;
    CHECK(vkAllocateCommandBuffers(device, &cai, &cmd));
    const uint32_t groups = (threads + 63) / 64;
    if (groups > props.limits.maxComputeWorkGroupCount[0]) {
        std::fprintf(stderr, "store_probe: %u workgroups exceed the device's limit\n", groups);
        return 1;
    }
    for (int run = 0; run < 12; ++run)
        for (Probe& p : probes) {
            VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
            CHECK(vkBeginCommandBuffer(cmd, &begin));
            vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
            vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, 1, &sets[p.set], 0, nullptr);
            vkCmdPushConstants(cmd, p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
            vkCmdDispatch(cmd, groups, 1, 1);
            CHECK(vkEndCommandBuffer(cmd));
            VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
            submit.commandBufferCount = 1;
            submit.pCommandBuffers = &cmd;
            const auto t0 = std::chrono::steady_clock::now();
            CHECK(vkQueueSubmit(queue, 1, &submit, VK_NULL_HANDLE));
            CHECK(vkQueueWaitIdle(queue));
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            if (run >= 2) p.ms.push_back(ms);
        }
    for (Probe& p : probes) {
        std::sort(p.ms.begin(), p.ms.end());
        std::printf("{\"shader\": \"%s\", \"threads\": %u, \"words_per_thread\": %u, \"median_ms\": %.2f, "
                    "\"min_ms\": %.2f, \"device\": \"%s\"}\n",
                    p.name.c_str(), threads, 8 * kArrays, p.ms[p.ms.size() / 2], p.ms.front(), props.deviceName);
    }
    return 0;
}
