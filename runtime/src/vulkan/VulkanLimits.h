// Limits on a Vulkan payload beyond the GPU ones (gpu/GpuLimits.h).
#pragma once

#include <cstddef>
#include <cstdint>

namespace kiln::rt::limits {

/// 32-bit words of one SPIR-V module.
constexpr size_t MaxSpirvWords = size_t(1) << 24;

} // namespace kiln::rt::limits
