// The CPU target's convert report (CpuConvertReport.h). The text and JSON
// are the contract CI scripts read: keys and lines only ever get added.
#include "backends/cpu/CpuConvertReport.h"
#include "backends/cpu/CpuQuantReport.h"

#include "Support/Hash.h"

#include <algorithm>

namespace kiln {

namespace {

using OpHistogram = std::map<std::string, int64_t>;

int64_t total(const OpHistogram &H) {
  int64_t N = 0;
  for (const auto &KV : H)
    N += KV.second;
  return N;
}

/// "conv 3, relu 2": most frequent first, ties in name order.
std::string histogramText(const OpHistogram &H) {
  std::vector<std::pair<std::string, int64_t>> Sorted(H.begin(), H.end());
  std::stable_sort(Sorted.begin(), Sorted.end(),
                   [](const auto &A, const auto &B) { return A.second > B.second; });
  std::string S;
  for (const auto &[Op, Count] : Sorted)
    S += (S.empty() ? "" : ", ") + Op + " " + std::to_string(Count);
  return S;
}

llvm::json::Object histogramJson(const OpHistogram &H) {
  llvm::json::Object J;
  for (const auto &[Op, Count] : H)
    J[Op] = Count;
  return J;
}

/// null for a float model; else the layers that keep the model's scales
/// and those kept float.
llvm::json::Value arrivedQuantizedJson(const std::vector<PassSummary> &Passes,
                                       QuantizeMode Mode) {
  auto A = arrivedQuantized(Passes, Mode != QuantizeMode::None);
  if (!A)
    return nullptr;
  return llvm::json::Object{{"layers_kept_scales", A->KeptScales},
                            {"layers_kept_float", A->KeptFloat},
                            {"layers_dynamic_int8", A->Dynamic}};
}

class CpuConvertReport final : public TargetReport {
public:
  CpuConvertReport(KilnOpsResult C, CpuConvertFacts F)
      : Compiled(std::move(C)), Facts(std::move(F)) {
    for (const KilnOpsNodeReport &N : Compiled.Nodes)
      for (const auto &Op : N.Ops)
        (Op.second == "xnnpack" ? Xnnpack : Reference) += 1;
    for (const Segment &S : Compiled.Module.Segments)
      WeightBytes += S.size();
    Quantized = Facts.Quantize.Mode != QuantizeMode::None;
    if (Quantized)
      FloatLayers = floatLayersOnCpu(Facts.Quantize, Compiled);
  }

  void print(llvm::raw_ostream &OS, bool Stats) const override {
    const EmitRequest &R = Facts.Request;
    OS << R.Input << " -> " << R.Output << " (target cpu, " << R.Pipeline
       << ")\n";
    OS << "  ops before: " << total(R.OpsBefore) << " ("
       << histogramText(R.OpsBefore) << ")\n";
    OS << "  ops after:  " << total(R.OpsAfter) << " ("
       << histogramText(R.OpsAfter) << ")\n";
    OS << "  passes:     ";
    for (size_t I = 0; I < R.Passes.size(); ++I)
      OS << (I ? ", " : "") << R.Passes[I].Name;
    OS << (R.Passes.empty() ? "none\n" : "\n");
    OS << "  operators:  " << Xnnpack + Reference << " (" << Xnnpack
       << " XNNPACK, " << Reference << " reference)\n";
    OS << "  file:       " << Facts.FileBytes << " bytes (" << WeightBytes
       << " bytes of weights in " << Compiled.Module.Segments.size()
       << " segments)\n";
    const PrepackReport &P = Facts.Prepacked;
    if (Facts.Prepack == "native")
      OS << "  prepack:    " << P.Tensors << " weights blocked for oneDNN"
         << (P.Tensors ? " on " + P.Isa : std::string()) << " ("
         << P.PaddingBytes << " bytes of padding)\n";
    if (Quantized)
      printQuantizeSummary(OS, Facts.Quantize, Compiled, FloatLayers, Stats);
    if (auto A = arrivedQuantized(R.Passes, Quantized))
      OS << "  arrived:    " << A->summary() << "\n";
    if (!Stats)
      return;
    OS << "passes:\n";
    for (const auto *List : {&R.Passes, &R.QuantizePasses})
      for (const PassSummary &S : *List) {
        OS << "  " << S.Name << ":";
        if (S.Counts.empty())
          OS << " no change";
        for (const auto &[What, N] : S.Counts)
          OS << ' ' << N << ' ' << What;
        OS << '\n';
      }
    OS << "kernels:\n";
    for (const KilnOpsNodeReport &N : Compiled.Nodes) {
      OS << "  " << N.Op << " '" << N.Node << "':";
      for (size_t I = 0; I < N.Ops.size(); ++I)
        OS << (I ? "," : "") << ' ' << N.Ops[I].first << " ["
           << N.Ops[I].second << "]";
      OS << (N.Ops.empty() ? " (no operator)\n" : "\n");
    }
  }

  llvm::json::Object json() const override {
    const EmitRequest &R = Facts.Request;
    llvm::json::Array Passes, Nodes;
    for (const PassSummary &S : R.Passes) {
      llvm::json::Object Counts;
      for (const auto &[What, N] : S.Counts)
        Counts[What] = N;
      Passes.push_back(llvm::json::Object{
          {"name", S.Name}, {"changed", S.Changed}, {"stats", std::move(Counts)}});
    }
    for (const KilnOpsNodeReport &N : Compiled.Nodes) {
      llvm::json::Array Ops;
      for (const auto &Op : N.Ops)
        Ops.push_back(llvm::json::Object{{"kind", Op.first}, {"engine", Op.second}});
      Nodes.push_back(llvm::json::Object{
          {"node", N.Node}, {"op", N.Op}, {"operators", std::move(Ops)}});
    }
    const PrepackReport &P = Facts.Prepacked;
    llvm::json::Object Report{
        {"input", R.Input},
        {"output", R.Output},
        {"target", "cpu"},
        {"pipeline", R.Pipeline},
        {"passes", std::move(Passes)},
        {"ops_before", histogramJson(R.OpsBefore)},
        {"ops_after", histogramJson(R.OpsAfter)},
        {"nodes_before", total(R.OpsBefore)},
        {"nodes_after", total(R.OpsAfter)},
        {"operators", int64_t(Xnnpack + Reference)},
        {"xnnpack_operators", int64_t(Xnnpack)},
        {"reference_operators", int64_t(Reference)},
        {"nodes", std::move(Nodes)},
        {"file_bytes", int64_t(Facts.FileBytes)},
        {"weight_bytes", int64_t(WeightBytes)},
        {"source_hash", hashToHex(Facts.SourceHash)},
        {"arrived_quantized", arrivedQuantizedJson(R.Passes, Facts.Quantize.Mode)},
        {"prepack", llvm::json::Object{{"mode", Facts.Prepack},
                                       {"blocked_weights", P.Tensors},
                                       {"isa", P.Isa},
                                       {"padding_bytes",
                                        int64_t(P.PaddingBytes)}}}};
    if (Quantized)
      Report["quantize"] = quantizeJson(Facts.Quantize, Compiled, FloatLayers);
    return Report;
  }

private:
  KilnOpsResult Compiled;
  CpuConvertFacts Facts;
  size_t Xnnpack = 0, Reference = 0, WeightBytes = 0;
  bool Quantized = false;
  std::vector<FloatLayerReport> FloatLayers;
};

} // namespace

std::unique_ptr<TargetReport> makeCpuConvertReport(KilnOpsResult Compiled,
                                                   CpuConvertFacts Facts) {
  return std::make_unique<CpuConvertReport>(std::move(Compiled),
                                            std::move(Facts));
}

} // namespace kiln
