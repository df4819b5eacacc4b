// Limits on a Metal payload beyond the GPU ones (gpu/GpuLimits.h).
#pragma once

#include <cstddef>
#include <cstdint>

namespace kiln::rt::limits {

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

} // namespace kiln::rt::limits
