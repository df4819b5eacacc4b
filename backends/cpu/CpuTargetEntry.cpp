// The CPU target's registry entry (backends/Targets.def): lowering to the
// kiln runtime's CPU operators (lowerToKilnOps), optional native weight
// prepacking, and the .kiln file, written in place from the module's
// segments with the source hash last and checked by the driver's verifier
// before it replaces the output.
#include "backends/Target.h"
#include "backends/TargetMetadata.h"
#include "backends/common/KilnWriter.h"
#include "backends/cpu/CpuConvertReport.h"
#include "backends/kilnops/KilnOps.h"
#include "backends/cpu/NativePrepack.h"

#include "Support/Error.h"
#include "passes/Pipelines.h"

#include "llvm/Support/Path.h"

namespace kiln {

namespace {

std::string optionOr(const EmitRequest &R, const std::string &Name,
                     const std::string &Default) {
  auto It = R.Options.find(Name);
  return It == R.Options.end() ? Default : It->second;
}

llvm::Expected<std::unique_ptr<TargetReport>> emitCpu(const Graph &G,
                                                      const EmitRequest &R) {
  auto Compiled = lowerToKilnOps(G);
  if (!Compiled)
    return addContext(Compiled.takeError(), R.Input);
  CpuConvertFacts Facts;
  Facts.Request = R;
  if (R.Quantize)
    Facts.Quantize = *R.Quantize;
  Facts.Request.Quantize = nullptr; // the report reads Facts.Quantize
  Facts.Prepack = optionOr(R, "prepack", "portable");
  if (Facts.Prepack == "native") {
    auto P = prepackForThisCpu(Compiled->Module);
    if (!P)
      return addContext(P.takeError(), R.Input);
    Facts.Prepacked = *P;
  }
  if (llvm::Error E = emitKilnModule(
          R, Facts.Quantize.Mode, Compiled->Module, Facts.FileBytes,
          [&] { return Facts.Prepacked.conversionError(); }))
    return E;
  Facts.SourceHash = R.SourceHash ? R.SourceHash() : 0;
  return makeCpuConvertReport(std::move(*Compiled), std::move(Facts));
}

/// A float CPU file runs a forward LSTM or GRU whole, on oneDNN's LSTM and
/// GRU primitives (3.3x the unrolled form's speed on the keyword-spotting
/// LSTM). A
/// quantized one keeps unroll-recurrence: int8 and int8-dynamic quantize the
/// unrolled linears, fp16 stores them in half, and `kiln calibrate`
/// describes the int8 graph. So does a pipeline whose quantization is not
/// known yet (`kiln opt --pass-record`), which every mode can continue from.
std::map<std::string, std::string>
cpuPassVariants(const std::map<std::string, std::string> &Options) {
  auto It = Options.find("quantize");
  if (It != Options.end() && It->second == "none")
    return {{"unroll-recurrence", "unroll-recurrence-keep-lstm-gru"}};
  return {};
}

} // namespace

Target cpuTarget() {
  Target T;
  T.Name = "cpu";
  T.FusedPatterns = {
      "conv + add (+ relu): one oneDNN convolution with a sum post-op, at 1 "
      "thread",
      "linear + gelu: one oneDNN inner product with a GELU post-op, at 1 "
      "thread",
      "conv/linear/matmul + relu, clip, hard_swish, ...: fuse-activation"};
  T.Description = "the kiln runtime on CPUs (x86-64, aarch64): oneDNN, "
                  "XNNPACK and portable reference kernels";
  T.Status = TargetStatus::Works;
  T.FileTarget = int(fb::Target::CPU);
  T.PolymorphicFiles = true;
  T.SupportedOps = kilnOpsSupportedOps;
  T.Check = checkKilnOpsGraph;
  T.Pipeline = pipelineForRuntimeTarget;
  T.PassVariants = cpuPassVariants;
  T.Emit = emitCpu;
  return T;
}

} // namespace kiln
