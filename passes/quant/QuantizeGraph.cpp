#include "passes/quant/QuantizeGraph.h"

#include "passes/quant/AutoKeepFloat.h"
#include "passes/quant/Calibrator.h"
#include "passes/quant/PlanInt8.h"
#include "passes/quant/QuantRewrites.h"

#include "Support/Error.h"
#include "Support/Hash.h"
#include "Support/Logging.h"

#include <algorithm>

namespace kiln {

llvm::StringRef quantizeModeName(QuantizeMode M) {
  switch (M) {
  case QuantizeMode::None: return "none";
  case QuantizeMode::Fp16: return "fp16";
  case QuantizeMode::Int8Dynamic: return "int8-dynamic";
  case QuantizeMode::Int8: return "int8";
  }
  return "none";
}

llvm::Optional<QuantizeMode> parseQuantizeMode(llvm::StringRef Name) {
  for (QuantizeMode M : {QuantizeMode::None, QuantizeMode::Fp16,
                         QuantizeMode::Int8Dynamic, QuantizeMode::Int8})
    if (Name == quantizeModeName(M))
      return M;
  return llvm::None;
}

uint64_t constantBytes(const Graph &G) {
  uint64_t Bytes = 0;
  for (const Node &N : G.nodes())
    if (N.isOp("const"))
      Bytes += N.getTensor("value").buffer().size();
  return Bytes;
}

llvm::Expected<std::vector<const Node *>>
resolveKeepFloat(const Graph &G, const std::vector<std::string> &Specs) {
  std::vector<const Node *> Out;
  for (const std::string &Spec : Specs) {
    if (Spec == "auto")
      continue;
    llvm::StringRef Name = llvm::StringRef(Spec).ltrim('%');
    bool Found = false;
    for (const Node &N : G.nodes()) {
      if (N.isOp("const"))
        continue;
      bool Match = N.opName() == Name;
      for (const std::string &S : N.sources())
        Match |= S == Name;
      for (const Value *R : N.results())
        Match |= !R->name().empty() && R->name() == Name;
      if (!Match)
        continue;
      Found = true;
      if (std::find(Out.begin(), Out.end(), &N) == Out.end())
        Out.push_back(&N);
    }
    if (!Found)
      return usageError("--keep-float '{0}': no node or op of that name in the "
                        "graph (give a node name from the model, a value name "
                        "from `kiln opt` output, an op name such as conv, or "
                        "auto)",
                        Spec);
  }
  return Out;
}

namespace {
/// Integer and f16 weights the rewrites created, for the report.
void reportConstants(const Graph &G, QuantizeReport &R) {
  for (const Node &N : G.nodes()) {
    bool Dq = N.isOp("dequantize"), Cast = N.isOp("cast");
    if ((!Dq && !Cast) || !N.operand(0)->constant())
      continue;
    const Value *C = N.operand(0);
    QuantizedTensorReport T;
    T.Name = C->name();
    T.Type = elementTypeName(C->type().Elem).str();
    if (Cast) {
      if (C->type().Elem != ElementType::F16)
        continue;
      T.Kind = "weight";
    } else {
      if (!C->type().Quant)
        continue;
      T.Kind = C->type().Elem == ElementType::I32 ? "bias" : "weight";
      T.Scales = C->type().Quant->Scales;
      T.ZeroPoints = C->type().Quant->ZeroPoints;
      T.Axis = C->type().Quant->Axis;
    }
    R.Tensors.push_back(std::move(T));
  }
}

void reportFloatLayers(const std::vector<FloatLayer> &Float, QuantizeReport &R) {
  for (const FloatLayer &F : Float)
    R.FloatLayers.push_back({F.N->displayName(), F.N->opName().str(), F.Reason});
}

llvm::Expected<CalibrationStats> statsFor(const Graph &G, const QuantizeOptions &O,
                                          const CalibrationDataset *Data) {
  if (!O.StatsPath.empty()) {
    auto S = readStatsFile(O.StatsPath);
    if (!S)
      return S.takeError();
    uint64_t Want = graphFingerprint(G);
    std::string Stale = staleStatsReason(*S);
    if (S->GraphHash != Want && !Stale.empty())
      return inputError("{0}: calibration statistics {1}", O.StatsPath, Stale);
    if (S->GraphHash != Want)
      return inputError("{0}: calibration statistics of a different model or "
                        "pipeline (fingerprint {1}, this graph {2}); run "
                        "`kiln calibrate` on this model with the same options",
                        O.StatsPath, hashToHex(S->GraphHash), hashToHex(Want));
    // The fingerprint says the file was made for this graph; each value
    // must then name the graph's value at its ordinal, as calibration
    // wrote it.
    std::vector<const Value *> All = valuesInOrder(G);
    for (const ObservedValue &V : S->Values)
      if (V.Ordinal >= All.size() || V.Name != reportName(*All[V.Ordinal]))
        return inputError(
            "{0}: tensor {1} ('{2}') is not this graph's value {1} ({3}); the "
            "file matches the model's fingerprint but not its values",
            O.StatsPath, V.Ordinal, V.Name,
            V.Ordinal < All.size()
                ? "'" + reportName(*All[V.Ordinal]) + "'"
                : "it has " + std::to_string(All.size()) + " values");
    if (!S->complete())
      log().warn("{}: the statistics cover {} of {} shards", O.StatsPath,
                 S->Shards.size(), S->ShardCount);
    return S;
  }
  CalibrationRunOptions RO;
  RO.Threads = O.Threads;
  RO.Bins = O.Bins;
  RO.Progress = O.Progress;
  RO.Engine = O.CalibrationEngine;
  return calibrateGraph(G, *Data, O.Data, RO);
}

llvm::Error quantizeInt8(Graph &G, const QuantizeOptions &O,
                         const std::vector<const Node *> &Kept, bool Auto,
                         QuantizeReport &R) {
  if (O.StatsPath.empty() && O.Data.Path.empty())
    return usageError("--quantize int8 needs calibration: give --calib DATA "
                      "(images, .npy/.npz, or a list) or --calib-stats FILE "
                      "(from `kiln calibrate`)");
  if (Auto && O.Data.Path.empty())
    return usageError("--keep-float auto measures the error on calibration "
                      "data: give --calib DATA too");
  std::unique_ptr<CalibrationDataset> Data;
  if (!O.Data.Path.empty()) {
    auto D = CalibrationDataset::open(G, O.Data);
    if (!D)
      return D.takeError();
    Data = std::move(*D);
  }
  auto Stats = statsFor(G, O, Data.get());
  if (!Stats)
    return Stats.takeError();
  R.Method = calibrationMethodName(O.Method.Method).str();
  R.CalibrationSamples = Stats->Samples;
  Int8PlanOptions PO;
  PO.Method = O.Method;
  for (const Node *N : Kept)
    PO.KeepFloat[N] = "--keep-float";
  if (Auto) {
    auto A = chooseLayersToKeepFloat(G, *Stats, PO, *Data, O.MinSqnrDb,
                                     O.SqnrSamples, O.Threads);
    if (!A)
      return A.takeError();
    R.AutoKeepFloat = true;
    R.TargetSqnrDb = O.MinSqnrDb;
    R.AllInt8SqnrDb = A->AllInt8SqnrDb;
    R.FinalSqnrDb = A->FinalSqnrDb;
    R.Ranking = A->Ranking;
    for (const auto &[N, Why] : A->Keep)
      PO.KeepFloat[N] = Why;
  }
  Int8Plan Plan = planInt8(G, *Stats, PO);
  if (!Plan.Refusal.empty())
    return inputError("{0}: {1}",
                      O.StatsPath.empty() ? std::string("calibration") : O.StatsPath,
                      Plan.Refusal);
  for (const PlannedActivation &A : Plan.Activations) {
    QuantizedTensorReport T;
    T.Name = reportName(*A.V);
    T.Kind = "activation";
    T.Type = "i8";
    T.Scales = {A.Quant.Scale};
    T.ZeroPoints = {A.Quant.ZeroPoint};
    T.RangeLo = A.Range.Lo;
    T.RangeHi = A.Range.Hi;
    R.Tensors.push_back(std::move(T));
  }
  reportFloatLayers(Plan.Float, R);
  R.QuantizedNodes = int64_t(Plan.QuantizedInOrder.size());
  applyInt8Plan(G, Plan);
  PassManager Own;
  return (O.Passes ? *O.Passes : Own).runPass("insert-qdq", G);
}

/// The fp16 and dynamic modes touch only weights: report the kept layers.
void reportKept(const std::vector<const Node *> &Kept, QuantizeReport &R) {
  for (const Node *N : Kept)
    R.FloatLayers.push_back({N->displayName(), N->opName().str(), "--keep-float"});
}
} // namespace

llvm::Error quantizeGraph(Graph &G, const QuantizeOptions &O,
                          QuantizeReport &R) {
  R = QuantizeReport();
  R.Mode = O.Mode;
  R.ConstantBytesBefore = R.ConstantBytesAfter = constantBytes(G);
  bool Auto = std::find(O.KeepFloat.begin(), O.KeepFloat.end(), "auto") !=
              O.KeepFloat.end();
  if (Auto && O.Mode != QuantizeMode::Int8)
    return usageError("--keep-float auto needs --quantize int8");
  if (O.Mode == QuantizeMode::None)
    return llvm::Error::success();
  // A model that arrived quantized is requantized only on request (this
  // mode): its own scales give way to calibrated ones, and the user is told.
  if (llvm::any_of(G.nodes(), [](const Node &N) {
        return N.isOp("quantize") || N.isOp("dequantize") ||
               N.isOp("dynamic_quantize");
      })) {
    PassManager Own;
    PassManager &PM = O.Passes ? *O.Passes : Own;
    if (llvm::Error E = PM.runPass("strip-qdq", G))
      return E;
    log().warn("the model arrived quantized: --quantize {0} replaces its own "
               "scales{1}; convert without --quantize to keep them",
               quantizeModeName(O.Mode),
               O.Mode == QuantizeMode::Int8 ? " with calibrated ones" : "");
  }
  for (const Node &N : G.nodes())
    if (N.isOp("quantize") || N.isOp("dequantize") || N.isOp("dynamic_quantize"))
      return inputError("the graph stays quantized after removing its "
                        "quantization (node '{0}' is {1}, whose integer result "
                        "the model uses itself); quantize the float model "
                        "instead",
                        N.displayName(), N.opName());
  // Int8: activations that no int8 output clamp applies become nodes again
  // (before --keep-float names are resolved, so `--keep-float hard_swish`
  // finds them), and calibration observes the ranges their tables need.
  if (O.Mode == QuantizeMode::Int8) {
    PassManager Own;
    if (llvm::Error E = (O.Passes ? *O.Passes : Own)
                            .runPass("unfuse-int8-activations", G))
      return E;
  }
  auto Kept = resolveKeepFloat(G, O.KeepFloat);
  if (!Kept)
    return Kept.takeError();
  NodeSet KeepSet(Kept->begin(), Kept->end());
  PassStats Stats;
  switch (O.Mode) {
  case QuantizeMode::None:
    break;
  case QuantizeMode::Fp16:
    convertWeightsToF16(G, KeepSet, Stats);
    reportKept(*Kept, R);
    break;
  case QuantizeMode::Int8Dynamic:
    insertDynamicQuant(G, KeepSet, Stats);
    R.QuantizedNodes = Stats.counts().count("quantized")
                           ? Stats.counts().at("quantized")
                           : 0;
    reportKept(*Kept, R);
    break;
  case QuantizeMode::Int8:
    if (llvm::Error E = quantizeInt8(G, O, *Kept, Auto, R))
      return E;
    break;
  }
  reportConstants(G, R);
  R.ConstantBytesAfter = constantBytes(G);
  return llvm::Error::success();
}

} // namespace kiln
