// The Vulkan section of `kiln inspect` on a .kiln file for the Vulkan target
// (schema 1.5, VulkanPayload): the device features the file needs, its
// kernels (SPIR-V modules) and how often each is dispatched, the dispatches
// in order (shader, operator, group counts, workgroup size, specialization
// and push constants, bindings), the buffer plan and the byte totals.
// Rendering only reads the payload; it needs no device and runs no shader.
#pragma once

#include "backends/gpu/GpuInspect.h"
#include "schema/kiln_generated.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln {

/// Without --nodes, dispatches are listed one a line up to this many.
constexpr size_t VulkanDispatchListLimit = GpuDispatchListLimit;

/// What the section counts, for the renderers and tests.
struct VulkanKernelStats {
  std::string Name;
  uint64_t SpirvBytes = 0;
  int64_t Dispatches = 0;
  /// The name of its fp16-arithmetic twin (fp16_math_variant; "" if none),
  /// which the runtime runs in its place on devices with shaderFloat16.
  std::string Fp16MathTwin;
};

struct VulkanTotals : GpuBufferTotals {
  uint64_t SpirvBytes = 0;
};

std::vector<VulkanKernelStats> vulkanKernels(const fb::VulkanPayloadT &P);
VulkanTotals vulkanTotals(const fb::ModelT &M, const fb::VulkanPayloadT &P);

/// The text section ("" when M has no Vulkan payload). Detail lists every
/// dispatch; without it only up to VulkanDispatchListLimit are listed.
std::string vulkanTextSection(const fb::ModelT &M, bool Detail);

/// The same data as JSON (null when M has no Vulkan payload). Every
/// dispatch is listed; sizes, indices and constants are numbers.
llvm::json::Value vulkanJsonSection(const fb::ModelT &M);

/// SPIR-V words as SPIRV-Tools disassembles them (spirv-dis's text, ids
/// by their debug names). Bad input when the words do not disassemble;
/// an error saying so where the build has no SPIRV-Tools.
llvm::Expected<std::string> spirvDisassembly(const std::vector<uint32_t> &Words);

/// The file's shader names, in file order, and one shader's SPIR-V
/// disassembly (`kiln inspect --kernel`; bad input for a name it lacks).
std::vector<std::string> vulkanKernelNames(const fb::ModelT &M);
llvm::Expected<std::string> vulkanKernelSource(const fb::ModelT &M,
                                               llvm::StringRef Name);

} // namespace kiln
