// lowerToGpuDispatches: the CPU target's lowering to kiln operators, then the
// Vulkan lowering of those operators to dispatches.
#include "backends/gpu/GpuDispatchLowering.h"
#include "backends/kilnops/KilnOps.h"
#include "backends/gpu/VulkanLowering.h"

#include <algorithm>

namespace kiln {

std::vector<std::string> gpuFusedPatterns() {
  return {"attention: matmul(q, k^T), scalar scales, up to two added biases, "
          "softmax, matmul(., v): one dispatch for every head (attention.comp)",
          "lstm cell: an unrolled LSTM step's sigmoids, tanhs and state "
          "update: one dispatch (lstm_cell.comp)",
          "gru cell: an unrolled GRU step's gates, candidate and update: one "
          "dispatch (gru_cell.comp)"};
}

std::vector<std::string> gpuSupportedOps() {
  // The IR ops whose kiln operators have no Vulkan kernel yet. Gather,
  // cast and the comparisons run where an integer graph input feeds them
  // (token ids, masks: IndexLowering.cpp, docs/targets.md); an lstm runs
  // unrolled, its steps' cells one dispatch each (RecurrentCellLowering.cpp).
  static const char *const Missing[] = {
      "argmax", "argmin", "conv_transpose", "dequantize",
      "dynamic_quantize", "gru", "lstm", "pad", "quantize", "where"};
  std::vector<std::string> Ops;
  for (const std::string &Op : kilnOpsSupportedOps())
    if (std::find(std::begin(Missing), std::end(Missing), Op) == std::end(Missing))
      Ops.push_back(Op);
  return Ops;
}

llvm::Expected<GpuDispatchResult> lowerToGpuDispatches(const Graph &G,
                                                     bool Fp16) {
  auto Lowered = lowerToKilnOps(G);
  if (!Lowered)
    return Lowered.takeError();
  vulkan::Lowering L(Lowered->Module, Fp16);
  auto Module = L.run();
  if (!Module)
    return Module.takeError();
  GpuDispatchResult R;
  R.Module = std::move(*Module);
  R.Fp16 = Fp16;
  R.Operators = R.Module.Model.operators.size();
  const auto *P = R.Module.Model.payload.AsVulkanPayload();
  R.Dispatches = P->dispatches.size();
  for (const auto &B : P->buffers)
    if (B->kind == fb::VulkanBufferKind::ARENA)
      R.ArenaBytes += B->size;
  for (const Segment &S : R.Module.Segments)
    R.WeightBytes += S.size();
  for (const auto &S : P->shaders)
    R.SpirvBytes += S->spirv.size() * 4;
  for (const auto &D : P->dispatches) {
    R.Kernels[P->shaders[D->shader]->name] += 1;
    if (P->shaders[D->shader]->fp16_math_variant >= 0)
      ++R.Fp16MathDispatches;
  }
  for (const auto &S : P->shaders)
    if (S->fp16_math_variant >= 0)
      ++R.Fp16MathTwins;
  return R;
}

llvm::Error checkGpuGraph(const Graph &G) {
  auto R = lowerToGpuDispatches(G);
  return R ? llvm::Error::success() : R.takeError();
}

} // namespace kiln
