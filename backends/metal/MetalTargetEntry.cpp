// The Metal target's registry entry (backends/Targets.def): compile, write
// the .kiln file atomically (checked by the driver's verifier before it
// replaces the output), and report kernels, dispatches and bytes.
#include "backends/Target.h"
#include "backends/TargetMetadata.h"
#include "backends/common/KilnWriter.h"
#include "backends/gpu/GpuDispatchLowering.h"
#include "backends/metal/MetalInspect.h"
#include "backends/metal/MetalTarget.h"
#include "backends/metal/MslTranslation.h"

#include "Support/Error.h"
#include "passes/Pipelines.h"

namespace kiln {

namespace {

class MetalConvertReport final : public TargetReport {
public:
  MetalConvertReport(const EmitRequest &R, MetalCompileResult C,
                     uint64_t FileBytes)
      : Input(R.Input), Output(R.Output), Pipeline(R.Pipeline),
        C(std::move(C)), FileBytes(FileBytes) {
    for (const auto &KV : R.OpsBefore)
      OpsBefore += KV.second;
  }

  void print(llvm::raw_ostream &OS, bool Stats) const override {
    OS << Input << " -> " << Output << " (target metal, " << Pipeline << ")\n"
       << "  operators:  " << C.Operators << " (" << OpsBefore
       << " source nodes)\n"
       << "  dispatches: " << C.Dispatches << " (";
    bool First = true;
    for (const auto &[Kernel, N] : C.Kernels) {
      OS << (First ? "" : ", ") << Kernel << " " << N;
      First = false;
    }
    OS << ")\n  kernels:    " << C.Kernels.size() << " MSL "
       << metal::MslVersion / 10000 << "." << metal::MslVersion / 100 % 100
       << " sources, " << C.MslBytes << " bytes\n"
       << "  memory:     " << C.WeightBytes << " bytes of weights, "
       << C.ArenaBytes << " bytes of activations\n"
       << "  file:       " << FileBytes << " bytes\n";
    if (C.Fp16)
      OS << "  precision:  half weights and activations, half arithmetic "
            "where the kernel has an fp16-arithmetic variant; graph inputs "
            "and outputs f32\n";
    (void)Stats;
  }

  llvm::json::Object json() const override {
    llvm::json::Object Kernels;
    for (const auto &[Kernel, N] : C.Kernels)
      Kernels[Kernel] = N;
    return llvm::json::Object{{"input", Input},
                              {"output", Output},
                              {"target", "metal"},
                              {"pipeline", Pipeline},
                              {"operators", int64_t(C.Operators)},
                              {"dispatches", int64_t(C.Dispatches)},
                              {"kernels", std::move(Kernels)},
                              {"msl_version", int64_t(metal::MslVersion)},
                              {"msl_bytes", int64_t(C.MslBytes)},
                              {"weight_bytes", int64_t(C.WeightBytes)},
                              {"arena_bytes", int64_t(C.ArenaBytes)},
                              {"file_bytes", int64_t(FileBytes)},
                              {"fp16", C.Fp16}};
  }

private:
  std::string Input, Output, Pipeline;
  MetalCompileResult C;
  uint64_t FileBytes;
  int64_t OpsBefore = 0;
};

llvm::Expected<std::unique_ptr<TargetReport>>
emitMetal(const Graph &G, const EmitRequest &R) {
  QuantizeMode Mode = R.Quantize ? R.Quantize->Mode : QuantizeMode::None;
  if (llvm::Error E = refuseGpuInt8(R, Mode, "Metal"))
    return E;
  auto Compiled = compileForMetal(G, Mode == QuantizeMode::Fp16);
  if (!Compiled)
    return addContext(Compiled.takeError(), R.Input);
  uint64_t FileBytes = 0;
  if (llvm::Error E = emitKilnModule(R, Mode, Compiled->Module, FileBytes))
    return E;
  return std::make_unique<MetalConvertReport>(R, std::move(*Compiled),
                                              FileBytes);
}

} // namespace

Target metalTarget() {
  Target T;
  T.TakesInt8 = false;
  T.Name = "metal";
  T.FusedPatterns = gpuFusedPatterns();
  T.Description = "Apple GPUs through Metal (iOS 12+, macOS 10.14+): MSL "
                  "kernels translated from the Vulkan target's SPIR-V, run "
                  "by the kiln runtime built on Apple";
  T.Status = TargetStatus::Works;
  T.FileTarget = int(fb::Target::METAL);
  T.SupportedOps = metalSupportedOps;
  T.Check = checkMetalGraph;
  T.Pipeline = pipelineForRuntimeTarget;
  T.Emit = emitMetal;
  T.Inspect.Text = metalTextSection;
  T.Inspect.Json = metalJsonSection;
  T.Inspect.KernelNames = metalKernelNames;
  T.Inspect.KernelSource = metalKernelSource;
  T.Inspect.RunsEveryOperator = true;
  return T;
}

} // namespace kiln
