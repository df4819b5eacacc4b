// kiln diff: how model B differs from model A, structurally and numerically,
// with gates for CI.
//   kiln diff A B [--inputs FILE.npz | --calib PATH [--calib-limit N ...] |
//                  --samples N --seed S] [--per-layer [--isolated]]
//                 [--max-abs-err X] [--min-cosine X] [--min-sqnr DB]
//                 [--max-quanta Q]
//                 [--input-shape ...] [--top K] [--json]
// A and B are .onnx, .pt, .kir or .kiln (DiffModel.h). Structural: ops added
// and removed by type, and every node of B that stands for several nodes of
// A (provenance: loc(...) in IR, Operator.sources in .kiln), with the pass
// that explains it (a batch_norm absorbed into a conv is fuse-conv-bn...).
// Numeric: both run on the same inputs (IR in the reference interpreter,
// .kiln in the kiln runtime); per output the max absolute error, the max
// error relative to max |A|, cosine similarity and SQNR. --per-layer matches
// B's intermediate tensors to A's through provenance (a .kiln runs with
// keep_intermediates; its tensors are compared as f32 NCHW, dequantized)
// and lists each layer's SQNR, worst first, and, for an int8 layer of a
// .kiln, its max error in quanta of its output scale. --isolated (B a CPU
// .kiln) steps B's session through its operators and hands each layer A's
// values in place of its predecessors' (quantized to B's grid), so a
// layer's error is its own, not what it inherited: the check of an int8
// file against its QDQ graph that holds at any depth, where two int8
// implementations' one-quantum rounding differences compound. A failed
// gate exits 3 and names the offending output or layer.
#include "Command.h"
#include "Tooling/DiffModel.h"
#include "Tooling/DiffStructure.h"
#include "Tooling/ErrorMetrics.h"
#include "Tooling/SessionFlags.h"
#include "Driver/ModelLoader.h"
#include "Driver/QuantizeFlags.h"

#include "IR/NpyTensor.h"
#include "Support/Error.h"
#include "passes/quant/CalibrationDataset.h"
#include "Support/Npy.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <map>
#include <random>
#include <set>

namespace kiln {

namespace {

struct DiffOptions {
  std::string A, B, Inputs;
  std::vector<std::string> InputShapes;
  unsigned Samples = 1, Seed = 0, Top = 20;
  bool PerLayer = false, Isolated = false, Json = false;
  std::optional<double> MaxAbsErr, MinCosine, MinSqnr, MaxQuanta;
  CalibrationFlags Calib; // --calib PATH as the inputs
  CompiledModel::SessionSettings Session; // Vulkan flags for .kiln sides
};

/// Inputs: from an .npz (by name, or the only array for a single input),
/// from calibration data (--calib), or seeded uniform [-1, 1] samples for
/// every static float input.
llvm::Expected<std::vector<std::vector<Tensor>>>
makeSamples(const DiffOptions &O, const DiffModel &A, const DiffModel &B) {
  std::vector<std::vector<Tensor>> Samples;
  const std::vector<CompiledIo> &Inputs = A.inputs();
  if (!O.Calib.Path.empty()) {
    const Graph *G = A.graph() ? A.graph() : B.graph();
    if (!G)
      return usageError("--calib reads samples for an IR model's inputs; give "
                        "A or B as .onnx, .pt or .kir (or use --inputs)");
    auto DataOpts = makeCalibrationDataOptions(O.Calib);
    if (!DataOpts)
      return DataOpts.takeError();
    auto Data = CalibrationDataset::open(*G, *DataOpts);
    if (!Data)
      return Data.takeError();
    for (uint64_t I = 0; I < (*Data)->size(); ++I) {
      auto In = (*Data)->load(I);
      if (!In)
        return In.takeError();
      Samples.push_back(std::move(*In));
    }
    if (Samples.empty())
      return inputError("{0}: no samples", O.Calib.Path);
    return Samples;
  }
  if (!O.Inputs.empty()) {
    auto Npz = readNpzFile(O.Inputs);
    if (!Npz)
      return Npz.takeError();
    std::vector<Tensor> In;
    for (const CompiledIo &V : Inputs) {
      const NpyArray *Found = nullptr;
      for (const auto &[Name, Arr] : *Npz)
        if (Name == V.Name || (Inputs.size() == 1 && Npz->size() == 1))
          Found = &Arr;
      if (!Found)
        return inputError("{0}: no array named '{1}'", O.Inputs, V.Name);
      In.push_back(tensorFromNpy(*Found));
    }
    Samples.push_back(std::move(In));
    return Samples;
  }
  std::mt19937 Rng(O.Seed);
  std::uniform_real_distribution<float> Dist(-1.0f, 1.0f);
  for (unsigned S = 0; S < O.Samples; ++S) {
    std::vector<Tensor> In;
    for (const CompiledIo &V : Inputs) {
      const TensorType &T = V.Type;
      if (!T.isStatic() || T.Elem != ElementType::F32)
        return usageError("input '{0}' is {1}: random samples need static f32 "
                          "inputs; fix the shape with --input-shape or give "
                          "--inputs FILE.npz",
                          V.Name, toString(T));
      std::vector<float> Vals(size_t(numElements(T.Dims).getValueOr(0)));
      for (float &X : Vals)
        X = Dist(Rng);
      In.push_back(Tensor::fromValues<float>(ElementType::F32, T.Dims, Vals));
    }
    Samples.push_back(std::move(In));
  }
  return Samples;
}

/// T in real units: f32 as it is, int8/uint8 levels of a value quantized
/// per tensor (Type, the IR's declared type) dequantized; nullopt for
/// anything else.
std::optional<Tensor> realValues(const Tensor &T, const TensorType *Type) {
  ElementType E = T.type().Elem;
  if (E == ElementType::F32)
    return T;
  if (!Type)
    return std::nullopt;
  const auto &Q = Type->Quant;
  if ((E != ElementType::I8 && E != ElementType::U8) || !Q || Q->isPerAxis() ||
      Q->Scales.size() != 1 || !T.type().isStatic())
    return std::nullopt;
  double Zero = Q->ZeroPoints.empty() ? 0.0 : double(Q->ZeroPoints[0]);
  std::vector<float> Real(size_t(T.numElements()));
  for (size_t I = 0; I < Real.size(); ++I)
    Real[I] = float((T.asDouble(int64_t(I)) - Zero) * double(Q->Scales[0]));
  return Tensor::fromValues<float>(ElementType::F32, T.type().Dims, Real);
}

struct LayerError {
  std::string Name, Op, AName;
  ErrorMetrics M;
  size_t Order = 0; // position of the B node in B
  /// Max error in quanta of B's int8 output (an int8 layer of a .kiln,
  /// or the dequantize that ends one); nullopt for a float layer.
  std::optional<double> MaxQuanta;

  void mergeWorst(const LayerError &O) {
    M.mergeWorst(O.M);
    if (O.MaxQuanta)
      MaxQuanta = std::max(MaxQuanta.value_or(0), *O.MaxQuanta);
  }
};

/// Runs A and B on one sample; compares outputs and, with PerLayer, every
/// layer of B whose provenance reaches a node of A. Each side's layers come
/// from IR nodes or .kiln operators (DiffModel::LayerValue); several may
/// carry one source (a .kiln's layout transposes, quantize/dequantize): a
/// source of A keeps all its values, a layer of B is compared with the last
/// one of the same size, and for each A source the last B layer wins.
/// Isolated: that last B layer's output is then replaced by the A value it
/// was compared with, so the layers after it run on A's values.
llvm::Error runSample(DiffModel &A, DiffModel &B,
                      llvm::ArrayRef<Tensor> In, bool PerLayer, bool Isolated,
                      std::vector<ErrorMetrics> &Outputs,
                      std::map<std::string, LayerError> &Layers) {
  llvm::StringMap<std::vector<Tensor>> AValues; // A source name -> values
  llvm::StringMap<size_t> AOrder;
  size_t Index = 0;
  llvm::StringMap<std::string> AByName; // source name -> A op
  for (const DiffNode &N : A.nodes())
    for (const std::string &Src : N.Sources) {
      AOrder.try_emplace(Src, Index++);
      AByName.try_emplace(Src, N.Op);
    }
  // The source of A a B layer stands for: the latest in A's order.
  auto BestSource = [&](const std::vector<std::string> &Sources) {
    const std::string *Best = nullptr;
    for (const std::string &Src : Sources) {
      auto It = AOrder.find(Src);
      if (It != AOrder.end() && (!Best || It->second > AOrder[*Best]))
        Best = &Src;
    }
    return Best;
  };
  // Isolated: the last B operator that stands for each source.
  llvm::StringMap<size_t> LastOperator;
  if (Isolated) {
    std::vector<std::vector<std::string>> Ops = B.operatorSources();
    for (size_t Op = 0; Op < Ops.size(); ++Op)
      if (const std::string *Best = BestSource(Ops[Op]))
        LastOperator[*Best] = Op;
  }
  // The A value a B layer is compared with: the last of its source's values
  // of the same size.
  auto Reference = [&](const DiffModel::LayerValue &L,
                       const std::string *&Best) -> const Tensor * {
    Best = BestSource(L.Sources);
    if (!Best || !AValues.count(*Best))
      return nullptr;
    const std::vector<Tensor> &Candidates = AValues[*Best];
    for (auto It = Candidates.rbegin(); It != Candidates.rend(); ++It)
      if (It->numElements() == L.Value.numElements())
        return &*It;
    return nullptr;
  };
  // Isolated: A's values in real units by value name. A .kiln tensor keeps
  // the name of the IR value it was lowered from, which pins a B layer to
  // its A value more closely than provenance: an unfused activation and
  // the conv before it share their sources, not their names.
  llvm::StringMap<Tensor> ANamed;
  auto Named = [&](const DiffModel::LayerValue &L) -> const Tensor * {
    auto It = ANamed.find(L.ValueName);
    return It != ANamed.end() && It->second.numElements() == L.Value.numElements()
               ? &It->second
               : nullptr;
  };
  DiffModel::LayerObserver AObserver, BObserver;
  DiffModel::LayerSubstitute BSubstitute;
  if (PerLayer)
    AObserver = [&](const DiffModel::LayerValue &L) {
      // B's layers are dequantized: A's int8/uint8 levels too, so that a
      // uint8 model compares with the int8 file kiln made of it.
      std::optional<Tensor> Real = realValues(L.Value, L.IrType);
      for (const std::string &Src : L.Sources)
        AValues[Src].push_back(Real ? *Real : L.Value);
      if (Isolated && Real)
        ANamed.insert_or_assign(L.ValueName, std::move(*Real));
    };
  auto RA = A.run(In, AObserver);
  if (!RA)
    return addContext(RA.takeError(), "running A");
  std::map<std::string, LayerError> Current; // by A name: last B layer wins
  // A source's int8 quantum, from the last int8 B layer that stands for it:
  // the dequantize that ends an int8 layer keeps its errors exactly.
  llvm::StringMap<double> Quantum;
  if (PerLayer)
    BObserver = [&](const DiffModel::LayerValue &L) {
      if (const Tensor *Ref = Isolated ? Named(L) : nullptr) {
        // Its own row, named by the value, with B's operator kind.
        if (std::optional<ErrorMetrics> M = compareTensors(L.Value, *Ref)) {
          std::optional<double> MaxQuanta;
          if (L.Quantum)
            MaxQuanta = M->MaxAbs / *L.Quantum;
          Current["%" + L.ValueName] = {"%" + L.ValueName, L.Op, L.ValueName,
                                        *M, L.Order, MaxQuanta};
        }
        return;
      }
      const std::string *Best = nullptr;
      const Tensor *Ref = Reference(L, Best);
      if (!Ref)
        return;
      // An IR model's integer levels in real units, as A's are.
      std::optional<Tensor> Real = realValues(L.Value, L.IrType);
      std::optional<ErrorMetrics> M = compareTensors(Real ? *Real : L.Value, *Ref);
      if (!M)
        return;
      if (L.Quantum)
        Quantum[*Best] = *L.Quantum;
      std::optional<double> MaxQuanta;
      if (Quantum.count(*Best))
        MaxQuanta = M->MaxAbs / Quantum[*Best];
      // Named by the ops of A it stands for ("conv+relu"); B's node there
      // may be the dequantize that ends a quantized layer.
      // (A .kiln names a fused group once: "conv_2d", not "conv_2d+conv_2d".)
      std::string Op, Last;
      for (const std::string &Src : L.Sources) {
        auto ANode = AByName.find(Src);
        if (ANode != AByName.end() && ANode->second != Last) {
          Op += (Op.empty() ? "" : "+") + ANode->second;
          Last = ANode->second;
        }
      }
      if (Op.empty())
        Op = L.Op;
      Current[*Best] = {L.Name, Op, *Best, *M, L.Order, MaxQuanta};
    };
  if (Isolated)
    BSubstitute = [&](const DiffModel::LayerValue &L) -> const Tensor * {
      if (const Tensor *Ref = Named(L))
        return Ref;
      const std::string *Best = nullptr;
      const Tensor *Ref = Reference(L, Best);
      return Ref && LastOperator.lookup(*Best) == L.Order ? Ref : nullptr;
    };
  auto RB = B.run(In, BObserver, BSubstitute);
  if (!RB)
    return addContext(RB.takeError(), "running B");
  if (RA->size() != RB->size())
    return inputError("A has {0} outputs and B has {1}", RA->size(), RB->size());
  for (size_t I = 0; I < RA->size(); ++I) {
    auto M = compareTensors((*RB)[I], (*RA)[I]);
    if (!M)
      return inputError("output {0} has {1} elements in A and {2} in B", I,
                        (*RA)[I].numElements(), (*RB)[I].numElements());
    if (Outputs.size() <= I)
      Outputs.push_back(*M);
    else
      Outputs[I].mergeWorst(*M);
  }
  for (auto &[Name, L] : Current) {
    auto It = Layers.find(Name);
    if (It == Layers.end())
      Layers[Name] = L;
    else
      It->second.mergeWorst(L);
  }
  return llvm::Error::success();
}

std::string fmtDb(double D) {
  if (std::isinf(D))
    return D > 0 ? "inf" : "-inf";
  return llvm::formatv("{0:f1}", D).str();
}

llvm::json::Value metricsJson(const ErrorMetrics &M) {
  auto Num = [](double D) -> llvm::json::Value {
    if (std::isinf(D))
      return D > 0 ? "inf" : "-inf";
    return D;
  };
  // A NaN metric prints as null (formatJson); non_finite_a and _b count the
  // NaN and infinite values of each side, which the metrics leave out.
  return llvm::json::Object{{"max_abs", M.MaxAbs},
                            {"max_rel", Num(M.MaxRel)},
                            {"cosine", M.Cosine},
                            {"sqnr_db", Num(M.SqnrDb)},
                            {"all_finite", M.allFinite()},
                            {"non_finite_a", M.RefNonFinite},
                            {"non_finite_b", M.NonFinite}};
}

/// "12 NaN/inf values in B, none in A" where either side has any, else "".
std::string nonFiniteText(const ErrorMetrics &M) {
  if (M.NonFinite == 0 && M.RefNonFinite == 0)
    return "";
  auto Count = [](int64_t N) {
    return N ? llvm::formatv("{0} NaN/inf value{1}", N, N == 1 ? "" : "s").str()
             : std::string("none");
  };
  return Count(M.NonFinite) + " in B, " + Count(M.RefNonFinite) + " in A (of " +
         std::to_string(M.Elements) + ")";
}

/// The first gate M violates, as text, or "".
/// Comparisons are written so that a NaN metric fails: no gate passes on
/// values that are not numbers, on either side.
std::string violatedGate(const DiffOptions &O, const ErrorMetrics &M) {
  bool Gated = O.MaxAbsErr || O.MinCosine || O.MinSqnr || O.MaxQuanta;
  if (Gated && (M.NonFinite || M.RefNonFinite))
    return nonFiniteText(M) + ": a gate cannot pass on values that are not numbers";
  if (O.MaxAbsErr && !(M.MaxAbs <= *O.MaxAbsErr))
    return llvm::formatv("max abs error {0:e2} > {1:e2}", M.MaxAbs, *O.MaxAbsErr).str();
  if (O.MinCosine && !(M.Cosine >= *O.MinCosine))
    return llvm::formatv("cosine {0:f6} < {1:f6}", M.Cosine, *O.MinCosine).str();
  if (O.MinSqnr && !(M.SqnrDb >= *O.MinSqnr))
    return llvm::formatv("SQNR {0} dB < {1} dB", fmtDb(M.SqnrDb), *O.MinSqnr).str();
  return "";
}

/// The first gate layer L violates, as text, or "".
std::string violatedGate(const DiffOptions &O, const LayerError &L) {
  // Both sides are dequantized in f32: a whole quantum reads as 1 +- 1e-5.
  if (O.MaxQuanta && L.MaxQuanta && !(*L.MaxQuanta <= *O.MaxQuanta + 1e-3))
    return llvm::formatv("{0:f2} quanta > {1}", *L.MaxQuanta, *O.MaxQuanta).str();
  return violatedGate(O, L.M);
}

llvm::Error runDiff(const DiffOptions &O) {
  auto LoadOpts = makeLoadOptions(O.InputShapes);
  if (!LoadOpts)
    return LoadOpts.takeError();
  auto A = DiffModel::load(O.A, LoadOpts->InputShapes);
  if (!A)
    return A.takeError();
  auto B = DiffModel::load(O.B, LoadOpts->InputShapes);
  if (!B)
    return B.takeError();
  A->setSessionSettings(O.Session);
  B->setSessionSettings(O.Session);
  if (O.Isolated && !B->isCompiled())
    return usageError("--isolated runs B's layers on A's values: B must be a "
                      ".kiln file (CPU target), not {0}",
                      O.B);
  if (O.Isolated && B->target() != "cpu")
    return usageError("--isolated steps through B's operators one at a time, "
                      "which only the CPU target does; {0} is a {1} file",
                      O.B, B->target());
  bool PerLayer = O.PerLayer || O.Isolated;
  int Sources = !O.Inputs.empty() + !O.Calib.Path.empty();
  if (Sources > 1)
    return usageError("give either --inputs or --calib, not both");
  if (A->inputs().size() != B->inputs().size())
    return inputError("{0} has {1} inputs and {2} has {3}", O.A,
                      A->inputs().size(), O.B, B->inputs().size());
  DiffStructure S = compareStructure(*A, *B);
  auto Samples = makeSamples(O, *A, *B);
  if (!Samples)
    return Samples.takeError();
  std::vector<ErrorMetrics> Outputs;
  std::map<std::string, LayerError> LayerMap;
  for (const auto &In : *Samples)
    if (llvm::Error E =
            runSample(*A, *B, In, PerLayer, O.Isolated, Outputs, LayerMap))
      return E;
  std::vector<LayerError> Layers;
  for (auto &[Name, L] : LayerMap)
    Layers.push_back(L);
  // Worst first; within 0.1 dB the earlier layer first, since an error
  // that enters at one layer and propagates unchanged ties with its users.
  // A NaN SQNR sorts first, as the worst (and keeps the order strict).
  auto SortKey = [](double D) { return std::isnan(D) ? -INFINITY : D; };
  std::stable_sort(Layers.begin(), Layers.end(), [&](const auto &X, const auto &Y) {
    double SX = SortKey(X.M.SqnrDb), SY = SortKey(Y.M.SqnrDb);
    bool Tie = SX == SY || (std::isfinite(SX) && std::isfinite(SY) &&
                          std::fabs(SX - SY) < 0.1);
    return Tie ? X.Order < Y.Order : SX < SY;
  });

  // Gates. Layers in B's order come first: the first one to fail is where
  // the error enters (the layers after it mostly inherit it); then outputs.
  std::vector<std::string> Failures;
  std::vector<const LayerError *> InOrder;
  for (const LayerError &L : Layers)
    InOrder.push_back(&L);
  std::stable_sort(InOrder.begin(), InOrder.end(),
                   [](const auto *X, const auto *Y) { return X->Order < Y->Order; });
  for (const LayerError *L : InOrder) {
    std::string G = violatedGate(O, *L);
    if (!G.empty())
      Failures.push_back("layer '" + L->Name + "' (" + L->Op + "): " + G);
  }
  for (size_t I = 0; I < Outputs.size(); ++I) {
    std::string G = violatedGate(O, Outputs[I]);
    if (!G.empty())
      Failures.push_back("output '" + B->outputNames()[I] + "': " + G);
  }

  std::string SampleText =
      !O.Calib.Path.empty()
          ? llvm::formatv("{0} sample(s) from {1}", Samples->size(), O.Calib.Path).str()
      : O.Inputs.empty()
          ? llvm::formatv("{0} seeded random sample(s), seed {1}", O.Samples, O.Seed).str()
          : "inputs from " + O.Inputs;
  if (O.Json) {
    llvm::json::Object Added, Removed;
    std::set<std::string> AllOps;
    for (const auto &[Op, N] : S.OpsA)
      AllOps.insert(Op);
    for (const auto &[Op, N] : S.OpsB)
      AllOps.insert(Op);
    for (const std::string &Op : AllOps) {
      int64_t D = (S.OpsB.count(Op) ? S.OpsB.at(Op) : 0) -
                  (S.OpsA.count(Op) ? S.OpsA.at(Op) : 0);
      if (D > 0)
        Added[Op] = D;
      else if (D < 0)
        Removed[Op] = -D;
    }
    llvm::json::Object Passes;
    for (const auto &[Pass, What] : S.ByPass) {
      llvm::json::Object W;
      for (const auto &[K, N] : What)
        W[K] = N;
      Passes[Pass] = std::move(W);
    }
    llvm::json::Array Fusions;
    for (const Fusion &F : S.Fusions) {
      llvm::json::Array Abs;
      for (const auto &[Name, Op] : F.Absorbed)
        Abs.push_back(llvm::json::Object{{"name", Name}, {"op", Op}});
      Fusions.push_back(llvm::json::Object{{"node", F.Name},
                                           {"op", F.Op},
                                           {"absorbed", std::move(Abs)}});
    }
    llvm::json::Array Outs, LayerArr, Fail;
    for (size_t I = 0; I < Outputs.size(); ++I) {
      llvm::json::Object M = *metricsJson(Outputs[I]).getAsObject();
      M["name"] = B->outputNames()[I];
      Outs.push_back(std::move(M));
    }
    for (const LayerError &L : Layers) {
      llvm::json::Object M = *metricsJson(L.M).getAsObject();
      M["name"] = L.Name;
      M["op"] = L.Op;
      M["matches"] = L.AName;
      if (L.MaxQuanta)
        M["max_quanta"] = *L.MaxQuanta;
      LayerArr.push_back(std::move(M));
    }
    for (const std::string &F : Failures)
      Fail.push_back(F);
    llvm::json::Object R{{"a", O.A}, {"b", O.B}, {"samples", SampleText},
                         {"ops_added", std::move(Added)},
                         {"ops_removed", std::move(Removed)},
                         {"passes", std::move(Passes)},
                         {"fusions", std::move(Fusions)},
                         {"outputs", std::move(Outs)},
                         {"gate_failures", std::move(Fail)}};
    if (PerLayer) {
      R["layers"] = std::move(LayerArr);
      llvm::json::Array Unread;
      for (const std::string &Name : B->unreadLayers())
        Unread.push_back(Name);
      R["unread_layers"] = std::move(Unread);
      R["isolated"] = O.Isolated;
      if (O.Isolated) {
        R["substituted_layers"] = int64_t(B->substitutedLayers());
        llvm::json::Array Refused;
        for (const std::string &Name : B->unsubstitutedLayers())
          Refused.push_back(Name);
        R["unsubstituted_layers"] = std::move(Refused);
      }
    }
    printJson(std::move(R));
  } else {
    llvm::raw_ostream &OS = commandOut();
    int64_t NA = 0, NB = 0;
    for (const auto &[Op, N] : S.OpsA)
      NA += N;
    for (const auto &[Op, N] : S.OpsB)
      NB += N;
    OS << "structure: A has " << NA << " ops, B has " << NB
       << " (constants not counted)\n";
    std::set<std::string> AllOps;
    for (const auto &[Op, N] : S.OpsA)
      AllOps.insert(Op);
    for (const auto &[Op, N] : S.OpsB)
      AllOps.insert(Op);
    for (const std::string &Op : AllOps) {
      int64_t CA = S.OpsA.count(Op) ? S.OpsA.at(Op) : 0;
      int64_t CB = S.OpsB.count(Op) ? S.OpsB.at(Op) : 0;
      if (CA != CB)
        OS << llvm::formatv("  {0,-24} {1,5} -> {2,-5} ({3}{4})\n", Op, CA, CB,
                            CB > CA ? "+" : "", CB - CA);
    }
    if (!S.ByPass.empty())
      OS << "how A became B:\n";
    for (const auto &[Pass, What] : S.ByPass)
      for (const auto &[K, N] : What)
        OS << "  " << Pass << ": " << N << " " << K << "\n";
    if (!S.Fusions.empty())
      OS << "fused nodes:\n";
    for (const Fusion &F : S.Fusions) {
      OS << "  " << F.Op << " '" << F.Name << "' absorbed";
      for (const auto &[Name, Op] : F.Absorbed)
        OS << " " << Op << " '" << Name << "'";
      OS << "\n";
    }
    OS << "numeric (" << SampleText << "):\n";
    OS << llvm::formatv("  {0,-24} {1,10} {2,10} {3,10} {4,9}\n", "output",
                        "max_abs", "max_rel", "cosine", "SQNR dB");
    for (size_t I = 0; I < Outputs.size(); ++I)
      OS << llvm::formatv("  {0,-24} {1,10:e2} {2,10:e2} {3,10:f6} {4,9}\n",
                          B->outputNames()[I], Outputs[I].MaxAbs,
                          Outputs[I].MaxRel, Outputs[I].Cosine,
                          fmtDb(Outputs[I].SqnrDb));
    for (size_t I = 0; I < Outputs.size(); ++I)
      if (std::string N = nonFiniteText(Outputs[I]); !N.empty())
        OS << "  output '" << B->outputNames()[I] << "': " << N
           << "; the metrics above leave them out\n";
    if (PerLayer) {
      OS << "per layer, worst SQNR first (" << Layers.size()
         << " layers matched through provenance"
         << (O.Isolated ? llvm::formatv("; isolated: {0} layers of B ran on A's "
                                        "values",
                                        B->substitutedLayers())
                              .str()
                        : "")
         << "):\n";
      OS << llvm::formatv("  {0,-40} {1,-16} {2,10} {3,10} {4,9} {5,7}\n",
                          "layer (B)", "op", "max_abs", "cosine", "SQNR dB",
                          "quanta");
      auto Quanta = [](const LayerError &L) {
        return L.MaxQuanta ? llvm::formatv("{0:f2}", *L.MaxQuanta).str() : "-";
      };
      for (size_t I = 0; I < Layers.size() && I < O.Top; ++I)
        OS << llvm::formatv("  {0,-40} {1,-16} {2,10:e2} {3,10:f6} {4,9} {5,7}\n",
                            Layers[I].Name, Layers[I].Op, Layers[I].M.MaxAbs,
                            Layers[I].M.Cosine, fmtDb(Layers[I].M.SqnrDb),
                            Quanta(Layers[I]));
      if (!Layers.empty())
        OS << "worst layer: '" << Layers[0].Name << "' (" << Layers[0].Op
           << "), SQNR " << fmtDb(Layers[0].M.SqnrDb) << " dB\n";
      const LayerError *MostQuanta = nullptr;
      size_t Int8Layers = 0;
      for (const LayerError &L : Layers)
        if (L.MaxQuanta) {
          ++Int8Layers;
          if (!MostQuanta || *L.MaxQuanta > *MostQuanta->MaxQuanta)
            MostQuanta = &L;
        }
      if (MostQuanta)
        OS << llvm::formatv("int8 layers: {0}, worst {1:f2} quanta at '{2}' "
                            "({3})\n",
                            Int8Layers, *MostQuanta->MaxQuanta,
                            MostQuanta->Name, MostQuanta->Op);
      else if (!S.BHasProvenance)
        OS << "  none: B carries no provenance (written with "
              "--strip-provenance, or a .kiln older than schema 1.2)\n";
      const std::vector<std::string> &Refused = B->unsubstitutedLayers();
      if (!Refused.empty()) {
        OS << Refused.size() << " layer" << (Refused.size() == 1 ? "" : "s")
           << " of B could not take A's values (shape or type), so the layers "
              "after them are not isolated from them:";
        for (const std::string &Name : Refused)
          OS << " '" << Name << "'";
        OS << "\n";
      }
      const std::vector<std::string> &Unread = B->unreadLayers();
      if (!Unread.empty()) {
        OS << Unread.size() << " layer" << (Unread.size() == 1 ? "" : "s")
           << " of B could not be read back from its session, not compared:";
        for (const std::string &Name : Unread)
          OS << " '" << Name << "'";
        OS << "\n";
      }
    }
  }
  if (!Failures.empty())
    return linesError(ExitCode::GateFailed, "gate failed: ", Failures);
  return llvm::Error::success();
}

} // namespace

Command addDiffCommand(CLI::App &App) {
  auto O = std::make_shared<DiffOptions>();
  CLI::App *Sub = App.add_subcommand(
      "diff", "compare two models: ops added/removed, fusions and the passes "
              "behind them, output and per-layer error, with CI gates (exit 3)");
  Sub->add_option("a", O->A, "the reference model (.onnx, .pt, .kir, .kiln)")
      ->required();
  Sub->add_option("b", O->B, "the model to check against it")->required();
  addInputShapeOption(*Sub, O->InputShapes);
  Sub->add_option("--inputs", O->Inputs, "run on the arrays of this .npz");
  Sub->add_option("--samples", O->Samples,
                  "else run on N seeded uniform [-1, 1] samples (default 1)")
      ->check(CLI::Range(1u, 10000u));
  Sub->add_option("--seed", O->Seed, "seed of the random samples (default 0)");
  addCalibrationFlags(*Sub, O->Calib, /*Threads=*/false); // --calib PATH: samples
  Sub->add_flag("--per-layer", O->PerLayer,
                "compare every intermediate tensor matched through provenance");
  Sub->add_flag("--isolated", O->Isolated,
                "per layer, each layer of B (a CPU .kiln) runs on A's values "
                "instead of its predecessors': its own error, not the one it "
                "inherits (implies --per-layer)");
  Sub->add_option("--top", O->Top, "layers listed with --per-layer (default 20)");
  Sub->add_option("--max-abs-err", O->MaxAbsErr, "gate: max absolute error");
  Sub->add_option("--min-cosine", O->MinCosine, "gate: minimum cosine similarity");
  Sub->add_option("--min-sqnr", O->MinSqnr, "gate: minimum SQNR in dB");
  Sub->add_option("--max-quanta", O->MaxQuanta,
                  "gate: max error of each int8 layer of B, in quanta of its "
                  "output scale (with --per-layer or --isolated)");
  Sub->add_flag("--json", O->Json, "print the full report as JSON");
  O->Session.Threads = 0;
  Sub->add_option("--threads", O->Session.Threads,
                  ".kiln: worker threads (0: all cores; oneDNN runs "
                  "single-threaded sessions only)");
  addSessionFlags(*Sub, O->Session, ".kiln: ");
  return {Sub, [O]() { return runDiff(*O); }};
}

} // namespace kiln
