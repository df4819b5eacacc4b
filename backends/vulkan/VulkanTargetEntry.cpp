// The Vulkan target's registry entry (backends/Targets.def): compile, write
// the .kiln file atomically (checked by the driver's verifier before it
// replaces the output), and report kernels, dispatches and bytes.
#include "backends/Target.h"
#include "backends/TargetMetadata.h"
#include "backends/common/KilnWriter.h"
#include "backends/gpu/GpuDispatchLowering.h"
#include "backends/vulkan/VulkanInspect.h"

#include "Support/Error.h"
#include "passes/Pipelines.h"

namespace kiln {

namespace {

class VulkanConvertReport final : public TargetReport {
public:
  VulkanConvertReport(const EmitRequest &R, GpuDispatchResult C,
                      uint64_t FileBytes)
      : Input(R.Input), Output(R.Output), Pipeline(R.Pipeline),
        C(std::move(C)), FileBytes(FileBytes) {
    for (const auto &KV : R.OpsBefore)
      OpsBefore += KV.second;
  }

  void print(llvm::raw_ostream &OS, bool Stats) const override {
    OS << Input << " -> " << Output << " (target vulkan, " << Pipeline << ")\n"
       << "  operators:  " << C.Operators << " (" << OpsBefore
       << " source nodes)\n"
       << "  dispatches: " << C.Dispatches << " (";
    bool First = true;
    for (const auto &[Kernel, N] : C.Kernels) {
      OS << (First ? "" : ", ") << Kernel << " " << N;
      First = false;
    }
    OS << ")\n  kernels:    " << C.Kernels.size() << " SPIR-V modules";
    if (C.Fp16MathTwins)
      OS << " (+" << C.Fp16MathTwins << " fp16-arithmetic twin"
         << (C.Fp16MathTwins == 1 ? "" : "s") << ")";
    OS << ", " << C.SpirvBytes << " bytes\n"
       << "  memory:     " << C.WeightBytes << " bytes of weights, "
       << C.ArenaBytes << " bytes of activations\n"
       << "  file:       " << FileBytes << " bytes\n";
    if (C.Fp16)
      OS << "  precision:  fp16 weights and activations, fp16 arithmetic in "
         << C.Fp16MathDispatches << " of " << C.Dispatches
         << " dispatches where the device has shaderFloat16, fp32 "
            "otherwise (needs storageBuffer16BitAccess); graph inputs and "
            "outputs f32\n";
    (void)Stats;
  }

  llvm::json::Object json() const override {
    llvm::json::Object Kernels;
    for (const auto &[Kernel, N] : C.Kernels)
      Kernels[Kernel] = N;
    return llvm::json::Object{{"input", Input},
                              {"output", Output},
                              {"target", "vulkan"},
                              {"pipeline", Pipeline},
                              {"operators", int64_t(C.Operators)},
                              {"dispatches", int64_t(C.Dispatches)},
                              {"kernels", std::move(Kernels)},
                              {"spirv_bytes", int64_t(C.SpirvBytes)},
                              {"weight_bytes", int64_t(C.WeightBytes)},
                              {"arena_bytes", int64_t(C.ArenaBytes)},
                              {"file_bytes", int64_t(FileBytes)},
                              {"fp16", C.Fp16},
                              {"fp16_math_dispatches", C.Fp16MathDispatches}};
  }

private:
  std::string Input, Output, Pipeline;
  GpuDispatchResult C;
  uint64_t FileBytes;
  int64_t OpsBefore = 0;
};

llvm::Expected<std::unique_ptr<TargetReport>>
emitVulkan(const Graph &G, const EmitRequest &R) {
  QuantizeMode Mode = R.Quantize ? R.Quantize->Mode : QuantizeMode::None;
  if (llvm::Error E = refuseGpuInt8(R, Mode, "Vulkan"))
    return E;
  auto Compiled = lowerToGpuDispatches(G, Mode == QuantizeMode::Fp16);
  if (!Compiled)
    return addContext(Compiled.takeError(), R.Input);
  uint64_t FileBytes = 0;
  if (llvm::Error E = emitKilnModule(R, Mode, Compiled->Module, FileBytes))
    return E;
  return std::make_unique<VulkanConvertReport>(R, std::move(*Compiled),
                                               FileBytes);
}

} // namespace

Target vulkanTarget() {
  Target T;
  T.TakesInt8 = false;
  T.Name = "vulkan";
  T.FusedPatterns = gpuFusedPatterns();
  T.Description = "GPUs through Vulkan 1.1 (Android, Linux): SPIR-V kernels "
                  "and dispatch records in the file, run by the kiln runtime";
  T.Status = TargetStatus::Works;
  T.FileTarget = int(fb::Target::VULKAN);
  T.SupportedOps = gpuSupportedOps;
  T.Check = checkGpuGraph;
  T.Pipeline = pipelineForRuntimeTarget;
  T.Emit = emitVulkan;
  T.Inspect.Text = vulkanTextSection;
  T.Inspect.Json = vulkanJsonSection;
  T.Inspect.KernelNames = vulkanKernelNames;
  T.Inspect.KernelSource = vulkanKernelSource;
  T.Inspect.RunsEveryOperator = true;
  return T;
}

} // namespace kiln
