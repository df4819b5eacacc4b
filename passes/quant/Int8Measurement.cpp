// Measuring int8 error on calibration samples, for --keep-float auto: each
// planned layer alone (fake-quantized inputs, weights and output, evaluated
// with the reference kernels against its float result) and the whole int8
// graph (insert-qdq on a copy) against the float outputs. Sums are kept per
// sample and added in sample order, so results do not depend on threads.
#include "passes/quant/Int8Measurement.h"

#include "passes/quant/GraphClone.h"
#include "passes/quant/QuantizableOps.h"
#include "passes/quant/SampleRunner.h"

#include "Interpreter/Interpreter.h"
#include "Interpreter/NodeEvaluator.h"
#include "Support/Error.h"
#include "passes/Pass.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>
#include <cmath>

namespace kiln {

double sqnrDb(double Signal, double Noise) {
  constexpr double MaxDb = 200.0;
  if (!(Noise > 0))
    return MaxDb;
  return std::min(MaxDb, 10.0 * std::log10(Signal / Noise));
}

void Energy::add(const Tensor &Ref, const Tensor &Got) {
  const float *R = reinterpret_cast<const float *>(Ref.buffer().data());
  const float *G = reinterpret_cast<const float *>(Got.buffer().data());
  for (int64_t I = 0; I < Ref.numElements(); ++I) {
    double D = double(R[I]) - double(G[I]);
    Signal += double(R[I]) * double(R[I]);
    Noise += D * D;
  }
}

namespace {
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

} // namespace

llvm::Error measureLayers(const Graph &G, const Int8Plan &Plan, MeasuredSamples &S,
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

llvm::Expected<double> measureInt8(const Graph &G, const CalibrationStats &Stats,
                                   const Int8PlanOptions &Base,
                                   const std::vector<const Node *> &Keep,
                                   const MeasuredSamples &S, unsigned Threads) {
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

} // namespace kiln
