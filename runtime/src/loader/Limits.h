// Limits on what a .kiln file may describe. They bound the work and memory
// the loader spends on an untrusted file before it rejects it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kiln::rt::limits {

/// Tensor rank (XNNPACK's own limit is 6).
constexpr size_t MaxRank = 8;
/// Symbolic dims a batch-polymorphic file may name (schema 1.9).
constexpr size_t MaxSymbols = 6;
constexpr size_t MaxTensors = size_t(1) << 20;
constexpr size_t MaxOperators = size_t(1) << 20;
constexpr size_t MaxOperatorInputs = 4096;
/// Bytes of one tensor (1 TiB: element counts times sizes never overflow).
constexpr uint64_t MaxTensorBytes = uint64_t(1) << 40;
/// Inner blocks of a BLOCKED tensor (oneDNN's DNNL_MAX_NDIMS).
constexpr size_t MaxInnerBlocks = 12;
/// Kernel sizes, strides, dilations and paddings of spatial operators.
constexpr uint32_t MaxSpatialParam = uint32_t(1) << 24;
/// Vulkan payloads (VulkanPayloadVerifier.cpp): SPIR-V modules, their
/// words, buffers, dispatches and the storage buffers one dispatch binds.
constexpr size_t MaxVulkanShaders = 4096;
constexpr size_t MaxSpirvWords = size_t(1) << 24;
constexpr size_t MaxVulkanBuffers = 4096;
/// Bytes of one Vulkan buffer (64 GiB).
constexpr uint64_t MaxVulkanBufferBytes = uint64_t(1) << 36;
constexpr size_t MaxVulkanDispatches = size_t(1) << 20;
constexpr size_t MaxVulkanBindings = 64;
/// Workgroups per dimension of one dispatch: every Vulkan device allows
/// this many (the minimum of maxComputeWorkGroupCount).
constexpr uint32_t MaxVulkanGroupCount = 65535;
/// Bytes of push constants (the minimum of maxPushConstantsSize).
constexpr uint32_t MaxVulkanPushBytes = 128;
/// Metal payloads (MetalPayloadVerifier.cpp): buffer argument slots of a
/// compute function, threads per threadgroup and threadgroup memory every
/// Metal GPU allows, and bytes of one kernel's MSL.
constexpr uint32_t MetalBufferSlots = 31;
constexpr uint32_t MaxMetalThreadsPerGroup = 1024;
constexpr uint32_t MaxMetalThreadgroupMemory = 32768;
constexpr size_t MaxMslBytes = size_t(1) << 20;
/// Binding offsets of a Metal dispatch (float4 alignment; kiln writes 256),
/// and the largest function constant index ([[function_constant(n)]] is a
/// 16-bit index).
constexpr uint64_t MetalBindingAlignment = 16;
constexpr uint32_t MaxMetalFunctionConstantId = 65535;
/// FlatBuffers verifier: nesting depth and number of tables.
constexpr uint32_t MaxDepth = 64;
constexpr uint32_t MaxTables = 10'000'000;

} // namespace kiln::rt::limits
