// The NNAPI target's registry entry (backends/Targets.def): lower at the
// requested feature level (--nnapi-feature-level, default the lowest that
// works), write the .kiln file atomically, and report the NNAPI model.
#include "backends/Target.h"
#include "backends/TargetMetadata.h"
#include "backends/common/KilnWriter.h"
#include "backends/nnapi/NnapiDescribe.h"
#include "backends/nnapi/NnapiInspect.h"
#include "backends/nnapi/NnapiTarget.h"

#include "Support/Error.h"
#include "passes/Pipelines.h"
#include "schema/nnapi/NeuralNetworksApi.h"

#include "llvm/ADT/StringExtras.h"

namespace kiln {

namespace {

/// What the model arrived with, unless --quantize replaced it.
llvm::Optional<ArrivedQuantized> arrivedAs(const EmitRequest &R) {
  return arrivedQuantized(R.Passes,
                          R.Quantize && R.Quantize->Mode != QuantizeMode::None);
}

/// A model that arrived with static int8 layers (its own scales).
bool arrivesStaticInt8(const EmitRequest &R) {
  auto A = arrivedAs(R);
  return A && A->KeptScales > 0;
}

class NnapiConvertReport final : public TargetReport {
public:
  NnapiConvertReport(const EmitRequest &R, NnapiCompileResult C,
                     uint64_t FileBytes, std::string Precision)
      : Input(R.Input), Output(R.Output), Pipeline(R.Pipeline),
        C(std::move(C)), FileBytes(FileBytes),
        Precision(std::move(Precision)),
        Int8((R.Quantize && R.Quantize->Mode == QuantizeMode::Int8) ||
             arrivesStaticInt8(R)),
        Arrived(arrivedAs(R)) {}

  void print(llvm::raw_ostream &OS, bool Stats) const override {
    OS << Input << " -> " << Output << " (target nnapi, " << Pipeline << ")\n"
       << "  feature level: " << C.FeatureLevel
       << (C.FeatureLevel >= nnapi::FeatureLevel6
               ? " (NNAPI feature level 6, Android 13; "
               : " (Android API level; ")
       << "lowered for " << C.LoweredLevel << ")\n"
       << "  operations:    " << C.Operations << " (";
    bool First = true;
    for (const auto &[Name, N] : C.OperationCounts) {
      OS << (First ? "" : ", ") << Name << " " << N;
      First = false;
    }
    OS << ")\n  operands:      " << C.Operands << "\n"
       << "  on the host:   " << C.HostOperators
       << " layout/quantize conversions of the graph inputs and outputs\n"
       << "  precision:     " << Precision << "\n";
    if (Int8)
      OS << "  int8 -> float: " << conversions()
         << " QUANTIZE/DEQUANTIZE inside the NNAPI model"
         << (C.FloatIslands.empty() ? "" : " (--stats says why)") << "\n";
    if (Arrived)
      OS << "  arrived:       " << Arrived->summary() << "\n";
    OS << "  file:          " << FileBytes << " bytes\n";
    if (!Stats)
      return;
    if (!C.FloatIslands.empty()) {
      OS << "left int8 for float:\n";
      for (const std::string &Why : C.FloatIslands)
        OS << "  " << Why << "\n";
    }
    const auto *P = C.Module.Model.payload.AsNnapiPayload();
    OS << "NNAPI operations:\n";
    for (size_t I = 0; I < P->operations.size(); ++I) {
      const auto &Op = *P->operations[I];
      OS << "  " << I << " " << nnapi::describeOperation(*P, Op);
      if (Op.operator_ >= 0)
        OS << "  [" << C.Module.Model.operators[size_t(Op.operator_)]->name
           << "]";
      OS << "\n";
    }
  }

  llvm::json::Object json() const override {
    llvm::json::Object Ops;
    for (const auto &[Name, N] : C.OperationCounts)
      Ops[Name] = N;
    return llvm::json::Object{{"input", Input},
                              {"output", Output},
                              {"target", "nnapi"},
                              {"pipeline", Pipeline},
                              {"feature_level", C.FeatureLevel},
                              {"lowered_level", C.LoweredLevel},
                              {"operations", int64_t(C.Operations)},
                              {"operation_counts", std::move(Ops)},
                              {"operands", int64_t(C.Operands)},
                              {"host_operators", int64_t(C.HostOperators)},
                              {"precision", Precision},
                              {"quantize_conversions", conversions()},
                              {"float_islands",
                               llvm::json::Array(C.FloatIslands)},
                              {"file_bytes", int64_t(FileBytes)},
                              {"arrived_quantized",
                               Arrived ? llvm::json::Value(llvm::json::Object{
                                             {"layers_kept_scales", Arrived->KeptScales},
                                             {"layers_kept_float", Arrived->KeptFloat},
                                             {"layers_dynamic_int8", Arrived->Dynamic}})
                                       : llvm::json::Value(nullptr)}};
  }

private:
  /// QUANTIZE and DEQUANTIZE operations inside the NNAPI model (the
  /// graph's own input and output conversions run on the host).
  int64_t conversions() const {
    int64_t N = 0;
    for (const char *Name : {"QUANTIZE", "DEQUANTIZE"}) {
      auto It = C.OperationCounts.find(Name);
      N += It == C.OperationCounts.end() ? 0 : It->second;
    }
    return N;
  }

  std::string Input, Output, Pipeline;
  NnapiCompileResult C;
  uint64_t FileBytes;
  std::string Precision;
  bool Int8;
  llvm::Optional<ArrivedQuantized> Arrived;
};

llvm::Expected<int32_t> featureLevelOption(const EmitRequest &R) {
  auto It = R.Options.find("nnapi-feature-level");
  if (It == R.Options.end() || It->second.empty() || It->second == "auto")
    return 0;
  int32_t Level = 0;
  if (!llvm::to_integer(It->second, Level) || !nnapi::isFeatureLevel(Level))
    return usageError("--nnapi-feature-level {0}: expected 27, 28, 29, 30 or "
                      "31 (the Android API level), 1000006 (NNAPI feature "
                      "level 6, Android 13), or auto",
                      It->second);
  return Level;
}

/// At feature level 6 a matmul of two computed tensors is BATCH_MATMUL:
/// expand-matmul's composition (MUL and REDUCE_SUM) is for the levels
/// below. A bad level is left to featureLevelOption's error.
std::vector<std::string>
nnapiPassesNotNeeded(const std::map<std::string, std::string> &Options) {
  auto It = Options.find("nnapi-feature-level");
  int32_t Level = 0;
  if (It != Options.end() && llvm::to_integer(It->second, Level) &&
      nnapi::isFeatureLevel(Level) && Level >= nnapi::FeatureLevel6)
    return {"expand-matmul"};
  return {};
}

/// From feature level 29 a forward LSTM runs whole, as
/// UNIDIRECTIONAL_SEQUENCE_LSTM: unroll-recurrence-keep-lstm leaves it
/// (and unrolls the rest) where unroll-recurrence would unroll it.
std::map<std::string, std::string>
nnapiPassVariants(const std::map<std::string, std::string> &Options) {
  auto It = Options.find("nnapi-feature-level");
  int32_t Level = 0;
  if (It != Options.end() && llvm::to_integer(It->second, Level) &&
      nnapi::isFeatureLevel(Level) && Level >= 29)
    return {{"unroll-recurrence", "unroll-recurrence-keep-lstm"}};
  return {};
}

llvm::Expected<std::unique_ptr<TargetReport>>
emitNnapi(const Graph &G, const EmitRequest &R) {
  QuantizeMode Mode = R.Quantize ? R.Quantize->Mode : QuantizeMode::None;
  if (Mode == QuantizeMode::Int8Dynamic)
    return inputError("{0}: NNAPI has no dynamic int8; convert with "
                      "--quantize int8 (calibrated), fp16 or none",
                      R.Input);
  auto Level = featureLevelOption(R);
  if (!Level)
    return Level.takeError();
  auto Compiled = compileForNnapi(G, *Level, Mode == QuantizeMode::Fp16);
  if (!Compiled)
    return addContext(Compiled.takeError(), R.Input);
  uint64_t FileBytes = 0;
  if (llvm::Error E = emitKilnModule(R, Mode, Compiled->Module, FileBytes))
    return E;
  std::string Precision =
      Mode == QuantizeMode::Int8 || arrivesStaticInt8(R)
          ? (Compiled->LoweredLevel >= 30
                 ? "int8 (TENSOR_QUANT8_ASYMM_SIGNED activations, per-channel "
                   "weights)"
                 : "int8 (TENSOR_QUANT8_ASYMM activations with the zero point "
                   "shifted by 128, per-channel weights)")
      : Mode == QuantizeMode::Fp16
          ? "fp32 operands, computation relaxed to fp16"
      : arrivedAs(R) && arrivedAs(R)->Dynamic
          ? "fp32 (the model's dynamic int8 layers run in float: NNAPI has "
            "no dynamic quantization)"
          : "fp32";
  return std::make_unique<NnapiConvertReport>(R, std::move(*Compiled),
                                              FileBytes, Precision);
}

} // namespace

Target nnapiTarget() {
  Target T;
  T.Name = "nnapi";
  T.Description = "Android NPUs, DSPs and GPUs through the Neural Networks "
                  "API (feature levels 27-31 and 6): an NNAPI model in the file, "
                  "built and run by the kiln runtime";
  T.Status = TargetStatus::Works;
  T.FileTarget = int(fb::Target::NNAPI);
  T.SupportedOps = nnapiSupportedOps;
  T.Check = checkNnapiGraph;
  T.Pipeline = pipelineForNnapiTarget;
  T.PassesNotNeeded = nnapiPassesNotNeeded;
  T.PassVariants = nnapiPassVariants;
  T.Emit = emitNnapi;
  T.Inspect.Text = nnapiTextSection;
  T.Inspect.Json = nnapiJsonSection;
  return T;
}

} // namespace kiln
