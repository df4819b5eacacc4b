// The GPU dispatch lowering, shared by the Vulkan and Metal targets:
// compiles an optimized IR graph into a module whose payload holds the
// SPIR-V kernels the model uses and one dispatch record per kernel launch
// (a VulkanPayload), for an executor that knows no operator. The Vulkan
// target writes it as it is; the Metal target translates its kernels to MSL.
// The graph is first lowered to kiln operators (backends/kilnops: resolved
// padding, fused clamps, NHWC), then each operator to dispatches on C4
// activations (VulkanLowering.h).
#pragma once

#include "backends/common/KilnModule.h"
#include "IR/Graph.h"

#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace kiln {

struct GpuDispatchResult {
  KilnModule Module;
  /// Operators of the kiln graph (after fusion) and dispatches.
  size_t Operators = 0, Dispatches = 0;
  uint64_t ArenaBytes = 0, WeightBytes = 0, SpirvBytes = 0;
  /// Kernel name -> dispatches using it.
  std::map<std::string, int64_t> Kernels;
  bool Fp16 = false;
  /// Fp16: the fp16-arithmetic twins stored beside the kernels, and the
  /// dispatches that run one on a device with shaderFloat16.
  size_t Fp16MathTwins = 0;
  int64_t Fp16MathDispatches = 0;
};

/// Lists every node the Vulkan target cannot run in one bad-input error.
llvm::Error checkGpuGraph(const Graph &G);
/// The IR ops the Vulkan target runs, sorted.
std::vector<std::string> gpuSupportedOps();
/// The chains the lowering runs as one dispatch (Target::FusedPatterns).
std::vector<std::string> gpuFusedPatterns();
/// Fp16 (--quantize fp16): weights and activations fp16 in memory, fp32
/// arithmetic in the kernels, fp16 in their twins (run where the device has
/// shaderFloat16); graph inputs and outputs stay f32.
llvm::Expected<GpuDispatchResult> lowerToGpuDispatches(const Graph &G,
                                                     bool Fp16 = false);

} // namespace kiln
