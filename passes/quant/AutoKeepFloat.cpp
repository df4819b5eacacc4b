#include "passes/quant/AutoKeepFloat.h"

#include "passes/quant/GraphClone.h"
#include "passes/quant/QuantizableOps.h"
#include "passes/quant/SampleRunner.h"

#include "Interpreter/Interpreter.h"
#include "Interpreter/NodeEvaluator.h"
#include "IR/FloatFormat.h"
#include "Support/Error.h"
#include "passes/Pass.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace kiln {

double sqnrDb(double Signal, double Noise) {
  constexpr double MaxDb = 200.0;
  if (!(Noise > 0))
    return MaxDb;
  return std::min(MaxDb, 10.0 * std::log10(Signal / Noise));
}

namespace {
struct Energy {
  double Signal = 0, Noise = 0;
  void add(const Tensor &Ref, const Tensor &Got) {
    const float *R = reinterpret_cast<const float *>(Ref.buffer().data());
    const float *G = reinterpret_cast<const float *>(Got.buffer().data());
    for (int64_t I = 0; I < Ref.numElements(); ++I) {
      double D = double(R[I]) - double(G[I]);
      Signal += double(R[I]) * double(R[I]);
      Noise += D * D;
    }
  }
};

Tensor fakeQuantActivation(const Tensor &T, const AffineQuant &Q) {
  std::vector<float> V(size_t(T.numElements()));
  for (size_t I = 0; I < V.size(); ++I)
    V[I] = fakeQuantize(T.at<float>(int64_t(I)), Q);
  return Tensor::fromValues<float>(ElementType::F32, T.type().Dims, V);
}

Tensor fakeQuantWeight(const Tensor &W, const QuantParams &P) {
  std::vector<int64_t> Sizes = staticSizes(W.type().Dims);
  int64_t Inner = 1;
  if (P.isPerAxis())
    for (size_t D = size_t(P.Axis) + 1; D < Sizes.size(); ++D)
      Inner *= Sizes[D];
  std::vector<float> V(size_t(W.numElements()));
  for (int64_t I = 0; I < W.numElements(); ++I) {
    size_t C = P.isPerAxis() ? size_t(I / Inner % int64_t(P.Scales.size())) : 0;
    float S = P.Scales[C];
    V[size_t(I)] = float(quantizeScalar(W.at<float>(I), S, 0, -WeightInt8Max,
                                        WeightInt8Max)) * S;
  }
  return Tensor::fromValues<float>(ElementType::F32, W.type().Dims, V);
}

bool allF32(llvm::ArrayRef<Value *> Outputs) {
  for (const Value *V : Outputs)
    if (V->type().Elem != ElementType::F32)
      return false;
  return true;
}

struct Samples {
  std::vector<std::vector<Tensor>> Inputs, FloatOutputs;
};

/// Step 1: the float outputs, and each planned layer's own error per sample.
llvm::Error measureLayers(const Graph &G, const Int8Plan &Plan, Samples &S,
                          std::vector<std::vector<Energy>> &PerSample,
                          unsigned Threads) {
  llvm::DenseMap<const Value *, AffineQuant> Act;
  for (const PlannedActivation &A : Plan.Activations)
    Act[A.V] = A.Quant;
  std::vector<Tensor> FakeWeights; // per layer (weighted ones)
  for (const Node *N : Plan.QuantizedInOrder) {
    auto W = Plan.Weights.find(N);
    FakeWeights.push_back(
        W == Plan.Weights.end()
            ? Tensor()
            : fakeQuantWeight(*N->operand(unsigned(int8OpInfo(*N).Weight))->constant(),
                              W->second));
  }
  uint64_t Count = S.Inputs.size();
  unsigned Workers = workerCount(Threads, Count);
  std::vector<llvm::DenseMap<const Value *, Tensor>> Seen(Workers);
  std::vector<std::unique_ptr<Interpreter>> Interps;
  for (unsigned W = 0; W < Workers; ++W) {
    InterpreterOptions IO;
    IO.Threads = 1;
    auto &Map = Seen[W];
    IO.Observer = [&Map](const Node &N, llvm::ArrayRef<Tensor> R) {
      for (unsigned I = 0; I < R.size(); ++I)
        Map[N.result(I)] = R[I];
    };
    Interps.push_back(std::make_unique<Interpreter>(G, std::move(IO)));
  }
  PerSample.assign(Count, std::vector<Energy>(Plan.QuantizedInOrder.size()));
  auto Run = [&](unsigned W, uint64_t I) -> llvm::Error {
    auto &Map = Seen[W];
    Map.clear();
    for (unsigned In = 0; In < G.numInputs(); ++In)
      Map[G.input(In)] = S.Inputs[I][In];
    auto Out = Interps[W]->run(S.Inputs[I]);
    if (!Out)
      return Out.takeError();
    S.FloatOutputs[I] = std::move(*Out);
    // Only finds from here on: pointers into Map must stay valid.
    auto Find = [&](const Value *V) -> const Tensor * {
      if (V->constant())
        return V->constant();
      auto It = Map.find(V);
      return It == Map.end() ? nullptr : &It->second;
    };
    for (size_t L = 0; L < Plan.QuantizedInOrder.size(); ++L) {
      const Node &N = *Plan.QuantizedInOrder[L];
      Int8OpInfo Info = int8OpInfo(N);
      std::vector<Tensor> Owned(N.numOperands());
      std::vector<const Tensor *> Ops(N.numOperands(), nullptr);
      for (unsigned O = 0; O < N.numOperands(); ++O) {
        const Value *V = N.operand(O);
        if (!V)
          continue;
        const Tensor *T = Find(V);
        if (!T)
          return internalError("no value for '{0}'", reportName(*V));
        if (int(O) == Info.Weight)
          Ops[O] = &FakeWeights[L];
        else if (Info.isActivationOperand(O))
          Ops[O] = &(Owned[O] = fakeQuantActivation(*T, Act.lookup(V)));
        else
          Ops[O] = T;
      }
      auto R = evaluateNode(N, Ops);
      if (!R)
        return R.takeError();
      const Tensor *Ref = Find(N.result(0));
      if (!Ref)
        return internalError("no value for '{0}'", reportName(*N.result(0)));
      PerSample[I][L].add(*Ref,
                          fakeQuantActivation((*R)[0], Act.lookup(N.result(0))));
    }
    Map.clear();
    return llvm::Error::success();
  };
  S.FloatOutputs.assign(Count, {});
  return runOverSamples(Count, Workers, Run);
}

/// Step 2: output SQNR of the int8 graph with Keep in float.
llvm::Expected<double> measureInt8(const Graph &G, const CalibrationStats &Stats,
                                   const Int8PlanOptions &Base,
                                   const std::vector<const Node *> &Keep,
                                   const Samples &S, unsigned Threads) {
  GraphCopy C = cloneGraph(G);
  Int8PlanOptions Opts;
  Opts.Method = Base.Method;
  for (const auto &[N, Why] : Base.KeepFloat)
    Opts.KeepFloat[C.map(N)] = Why;
  for (const Node *N : Keep)
    Opts.KeepFloat[C.map(N)] = "auto";
  applyInt8Plan(*C.G, planInt8(*C.G, Stats, Opts));
  PassStats Ignored;
  auto Changed = findPass("insert-qdq")->Create()->run(*C.G, Ignored);
  if (!Changed)
    return Changed.takeError();
  uint64_t Count = S.Inputs.size();
  unsigned Workers = workerCount(Threads, Count);
  std::vector<std::unique_ptr<Interpreter>> Interps;
  for (unsigned W = 0; W < Workers; ++W)
    Interps.push_back(std::make_unique<Interpreter>(*C.G, InterpreterOptions{1, {}}));
  std::vector<std::vector<Energy>> PerSample(Count,
                                             std::vector<Energy>(G.outputs().size()));
  auto Run = [&](unsigned W, uint64_t I) -> llvm::Error {
    auto Out = Interps[W]->run(S.Inputs[I]);
    if (!Out)
      return Out.takeError();
    for (size_t O = 0; O < Out->size(); ++O)
      PerSample[I][O].add(S.FloatOutputs[I][O], (*Out)[O]);
    return llvm::Error::success();
  };
  if (llvm::Error E = runOverSamples(Count, Workers, Run))
    return E;
  double Worst = 1e300;
  for (size_t O = 0; O < G.outputs().size(); ++O) {
    Energy Sum; // in sample order: the same result on every run
    for (const auto &PS : PerSample) {
      Sum.Signal += PS[O].Signal;
      Sum.Noise += PS[O].Noise;
    }
    Worst = std::min(Worst, sqnrDb(Sum.Signal, Sum.Noise));
  }
  return Worst;
}

std::string formatDb(double Db) {
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "%.2f", Db);
  return Buf;
}
} // namespace

llvm::Expected<AutoKeepFloatResult>
chooseLayersToKeepFloat(const Graph &G, const CalibrationStats &Stats,
                        const Int8PlanOptions &Base,
                        const CalibrationDataset &Data, double TargetDb,
                        uint64_t SampleLimit, unsigned Threads) {
  if (!allF32(G.outputs()))
    return inputError("--keep-float auto measures SQNR on f32 outputs; this "
                      "graph has outputs of other types");
  Samples S;
  uint64_t Count = std::min<uint64_t>(std::max<uint64_t>(SampleLimit, 1), Data.size());
  for (uint64_t I = 0; I < Count; ++I) {
    auto In = Data.load(I);
    if (!In)
      return In.takeError();
    S.Inputs.push_back(std::move(*In));
  }
  Int8Plan Plan = planInt8(G, Stats, Base);
  std::vector<std::vector<Energy>> PerSample;
  if (llvm::Error E = measureLayers(G, Plan, S, PerSample, Threads))
    return E;

  AutoKeepFloatResult R;
  std::vector<std::pair<double, size_t>> Order; // (layer SQNR, plan index)
  for (size_t L = 0; L < Plan.QuantizedInOrder.size(); ++L) {
    Energy Sum;
    for (const auto &PS : PerSample) {
      Sum.Signal += PS[L].Signal;
      Sum.Noise += PS[L].Noise;
    }
    Order.push_back({sqnrDb(Sum.Signal, Sum.Noise), L});
  }
  std::stable_sort(Order.begin(), Order.end(),
                   [](const auto &A, const auto &B) { return A.first < B.first; });
  std::vector<const Node *> Ranked;
  for (const auto &[Db, L] : Order) {
    const Node *N = Plan.QuantizedInOrder[L];
    Ranked.push_back(N);
    R.Ranking.push_back({N->displayName(), N->opName().str(), Db});
  }

  auto Measure = [&](size_t K) {
    return measureInt8(G, Stats, Base,
                       std::vector<const Node *>(Ranked.begin(), Ranked.begin() + long(K)),
                       S, Threads);
  };
  auto All = Measure(0);
  if (!All)
    return All.takeError();
  R.AllInt8SqnrDb = R.FinalSqnrDb = *All;
  if (*All >= TargetDb)
    return R;
  // The smallest K reaching the target (keeping every layer float always
  // does: the graph is then the float one).
  size_t Lo = 0, Hi = Ranked.size();
  double HiDb = 200.0;
  while (Hi - Lo > 1) {
    size_t Mid = (Lo + Hi) / 2;
    auto Db = Measure(Mid);
    if (!Db)
      return Db.takeError();
    if (*Db >= TargetDb) {
      Hi = Mid;
      HiDb = *Db;
    } else {
      Lo = Mid;
    }
  }
  if (Hi == Ranked.size()) {
    auto Db = Measure(Hi);
    if (!Db)
      return Db.takeError();
    HiDb = *Db;
  }
  // Then give back to int8, least sensitive first, every kept layer the
  // target can spare: no single layer left in float could be int8.
  std::vector<const Node *> Kept(Ranked.begin(), Ranked.begin() + long(Hi));
  std::vector<double> KeptDb;
  for (size_t K = 0; K < Hi; ++K)
    KeptDb.push_back(R.Ranking[K].LayerSqnrDb);
  for (size_t K = Kept.size(); K-- > 0;) {
    std::vector<const Node *> Fewer = Kept;
    Fewer.erase(Fewer.begin() + long(K));
    auto Db = measureInt8(G, Stats, Base, Fewer, S, Threads);
    if (!Db)
      return Db.takeError();
    if (*Db >= TargetDb) {
      Kept = std::move(Fewer);
      KeptDb.erase(KeptDb.begin() + long(K));
      HiDb = *Db;
    }
  }
  R.FinalSqnrDb = HiDb;
  for (size_t K = 0; K < Kept.size(); ++K)
    R.Keep[Kept[K]] =
        "--keep-float auto: layer SQNR " + formatDb(KeptDb[K]) + " dB; " +
        std::to_string(Kept.size()) + " layer(s) kept float reach " +
        formatDb(HiDb) + " dB (target " + formatDb(TargetDb) + ", all int8 " +
        formatDb(R.AllInt8SqnrDb) + ")";
  return R;
}

} // namespace kiln
