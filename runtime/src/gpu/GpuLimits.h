// Limits on the GPU payloads (Vulkan and Metal, gpu/GpuBuffersVerifier.h):
// they bound the work and memory the loader spends on an untrusted file.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kiln::rt::limits {

/// What a Vulkan or Metal payload may hold (the two share the buffer,
/// dispatch and binding tables): modules or kernels, buffers and their
/// bytes (64 GiB), dispatches, the storage buffers one dispatch binds.
constexpr size_t MaxVulkanShaders = 4096;
constexpr size_t MaxVulkanBuffers = 4096;
constexpr uint64_t MaxVulkanBufferBytes = uint64_t(1) << 36;
constexpr size_t MaxVulkanDispatches = size_t(1) << 20;
constexpr size_t MaxVulkanBindings = 64;
/// Workgroups per dimension of one dispatch: every Vulkan device allows
/// this many (the minimum of maxComputeWorkGroupCount).
constexpr uint32_t MaxVulkanGroupCount = 65535;
/// A workgroup's size: what every Vulkan device allows (the minimums of
/// maxComputeWorkGroupSize and maxComputeWorkGroupInvocations); kiln's
/// kernels use 64 x 1 x 1 and 8 x 8 x 1.
constexpr uint32_t MaxWorkgroupSize[3] = {128, 128, 64};
constexpr uint32_t MaxWorkgroupInvocations = 128;
/// Invocations one dispatch may run beyond the bytes it binds: kiln's
/// kernels run one invocation per output element (at least a byte of a
/// binding each), rounded up to whole workgroups of 64 and, past 65535
/// groups, to whole rows of a 65535 x Y grid: at most 64 x 65535 more.
constexpr uint64_t InvocationSlack = uint64_t(1) << 23;
/// Invocations a whole file may run per inference.
constexpr uint64_t MaxFileInvocations = uint64_t(1) << 36;

/// Bytes of push constants (the minimum of maxPushConstantsSize).
constexpr uint32_t MaxVulkanPushBytes = 128;

/// Bytes the executors allocate past every buffer's size. A kernel's bounds
/// checks (backends/gpu/kernels/common.glsl) read element 0 of a binding
/// shorter than one element (length 0): at most 16 bytes (a vec4) from the
/// binding's start, which lies inside the buffer, so the read stays inside
/// the allocation.
constexpr uint64_t GpuBufferSlackBytes = 16;

} // namespace kiln::rt::limits
