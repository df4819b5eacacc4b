#include "passes/quant/PlanInt8.h"

#include "passes/FusionSupport.h"
#include "passes/quant/QuantizableOps.h"
#include "passes/quant/WeightQuantization.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

namespace kiln {

bool isFloatLayer(const Node &N) {
  if (N.isOp("const") || N.isOp("quantize") || N.isOp("dequantize") ||
      N.numResults() == 0)
    return false;
  return isFloatType(N.result(0)->type().Elem);
}

namespace {

/// The inputs over which activation N's output changes: below Lo (above Hi)
/// it gives f(Lo) (f(Hi)). An int8 value read only by such activations may
/// be clamped to that domain with no loss: the range spent on a hard_swish
/// input's negative tail (all 0 after it) is the positive side's resolution.
/// None for an activation that never saturates exactly.
llvm::Optional<ActivationRange> saturationFreeDomain(const Node &N) {
  const double Inf = std::numeric_limits<double>::infinity();
  if (N.isOp("hard_sigmoid")) {
    double Alpha = N.getFloat("alpha"), Beta = N.getFloat("beta");
    if (!(Alpha > 0) || !std::isfinite(Beta))
      return llvm::None;
    return ActivationRange{-Beta / Alpha, (1 - Beta) / Alpha};
  }
  auto A = matchActivation(N);
  if (!A)
    return llvm::None;
  switch (A->Kind) {
  case ActivationKind::HardSwish:
    return ActivationRange{-3, Inf};
  case ActivationKind::Relu:
    return ActivationRange{0, Inf};
  case ActivationKind::Clip:
    return ActivationRange{A->Min, A->Max};
  default:
    return llvm::None;
  }
}

/// Range R of value V narrowed to the domain every user of V saturates
/// outside of; R unchanged when some user (or the graph's outputs) needs
/// all of it.
ActivationRange narrowedForUsers(const Graph &G, const Value *V,
                                 ActivationRange R) {
  if (G.isOutput(V) || !V->hasUses())
    return R;
  llvm::Optional<ActivationRange> Needed; // the union of users' domains
  for (const Use &U : V->uses()) {
    auto D = U.Index == 0 ? saturationFreeDomain(*U.User) : llvm::None;
    if (!D)
      return R;
    Needed = Needed ? ActivationRange{std::min(Needed->Lo, D->Lo),
                                      std::max(Needed->Hi, D->Hi)}
                    : *D;
  }
  double Lo = Needed->Lo, Hi = Needed->Hi;
  ActivationRange N{std::max(R.Lo, Lo), std::min(R.Hi, Hi)};
  return N.Lo < N.Hi ? N : R;
}

class Planner {
public:
  Planner(const Graph &G, const CalibrationStats &Stats,
          const Int8PlanOptions &Opts)
      : G(G), Opts(Opts) {
    std::vector<const Value *> All = valuesInOrder(G);
    for (uint32_t I = 0; I < All.size(); ++I)
      if (const ObservedValue *O = Stats.find(I))
        // Values that were only ever NaN or infinite count as observed:
        // an int8 layer that produces them is refused (whyNotQuantizable),
        // not quietly kept in float.
        if (O->Observer.count() > 0 || O->Observer.nonFiniteCount() > 0)
          Observed[All[I]] = &O->Observer;
  }

  Int8Plan run() {
    for (const Node &N : G.nodes())
      if (isFloatLayer(N)) {
        std::string Why = whyNotQuantized(N);
        if (Why.empty()) {
          P.Quantized.insert(&N);
          P.QuantizedInOrder.push_back(&N);
        } else {
          P.Float.push_back({&N, Why});
        }
      }
    planActivations();
    for (const Node *N : P.QuantizedInOrder) {
      Int8OpInfo Info = int8OpInfo(*N);
      if (Info.Role == Int8Role::Weighted)
        P.Weights[N] = *planWeightQuant(N->operand(unsigned(Info.Weight)),
                                        Info.WeightAxis);
    }
    return std::move(P);
  }

private:
  /// Empty when N can be int8; otherwise the reason it stays float.
  std::string whyNotQuantized(const Node &N) {
    auto Kept = Opts.KeepFloat.find(&N);
    if (Kept != Opts.KeepFloat.end())
      return Kept->second;
    Int8OpInfo Info = int8OpInfo(N);
    if (Info.Role == Int8Role::None)
      return "op '" + N.opName().str() + "' has no int8 form";
    if (N.result(0)->type().Elem != ElementType::F32)
      return "its result is not f32";
    // A same-scale op's results all take its input's parameters (split).
    if (Info.Role != Int8Role::SameScale)
      for (unsigned R = 1; R < N.numResults(); ++R)
        if (N.result(R)->hasUses() || G.isOutput(N.result(R)))
          return "it has several results in use";
    for (unsigned I : Info.Activations) {
      const Value *V = I < N.numOperands() ? N.operand(I) : nullptr;
      if (!V)
        return "an activation operand is absent";
      if (isConstantValue(V))
        return "operand '" + reportName(*V) + "' is a constant, not an activation";
      if (V->type().Elem != ElementType::F32)
        return "operand '" + reportName(*V) + "' is not f32";
      if (!hasRange(V))
        return "no calibration statistics for '" + reportName(*V) + "'";
    }
    if (Info.Role != Int8Role::SameScale && !Observed.count(N.result(0)))
      return "no calibration statistics for its result";
    // A value mixing ranges far apart (a float concat of them, or a
    // reshape, slice or concat of such a value) is no better at one scale
    // in a later op: the op stays float, and a movement op passes the mix on.
    for (unsigned I : Info.Activations) {
      auto It = MixedBy.find(N.operand(I));
      if (It == MixedBy.end())
        continue;
      if (Info.Role == Int8Role::SameScale || N.isOp("concat"))
        for (const Value *R : N.results())
          MixedBy[R] = It->second;
      return "operand '" + reportName(*N.operand(I)) + "' holds values of "
             "ranges far apart (concatenated by '" + It->second + "')";
    }
    if (N.isOp("concat"))
      if (std::string Why = concatRangesApart(N); !Why.empty()) {
        MixedBy[N.result(0)] = N.displayName();
        return Why;
      }
    if (N.isOp("add") || N.isOp("sub"))
      if (std::string Why = sumRangesApart(N); !Why.empty())
        return Why;
    if (N.isOp("mul"))
      if (std::string Why = summedRightAfter(N); !Why.empty())
        return Why;
    if (Info.Role == Int8Role::Weighted &&
        !planWeightQuant(N.operand(unsigned(Info.Weight)), Info.WeightAxis))
      return "its weight is not an f32 constant";
    return "";
  }

  /// Why an int8 concat would crush one of its inputs, or "": its inputs
  /// share one scale (classOf), so one whose calibrated range is a small
  /// part of the union keeps few of the 256 levels. A YOLO head concatenates
  /// box sizes in pixels (hundreds) with scores in [0, 1]: at one scale the
  /// scores would all round to 0.
  std::string concatRangesApart(const Node &N) const {
    constexpr double MaxSpread = 16; // the narrowest keeps 16 levels or more
    double Lo = 0, Hi = 0, Narrowest = std::numeric_limits<double>::infinity();
    const Value *NarrowestV = nullptr;
    for (const Value *X : N.operands()) {
      auto It = Observed.find(X);
      if (It == Observed.end())
        continue;
      ActivationRange R = chooseRange(*It->second, Opts.Method);
      Lo = std::min(Lo, R.Lo);
      Hi = std::max(Hi, R.Hi);
      if (R.Hi - R.Lo < Narrowest) {
        Narrowest = R.Hi - R.Lo;
        NarrowestV = X;
      }
    }
    if (!NarrowestV || (Hi - Lo) <= MaxSpread * Narrowest)
      return "";
    char Buf[160];
    std::snprintf(Buf, sizeof(Buf),
                  "its inputs' ranges are %.3g apart: operand '%s' spans "
                  "%.3g of the union's %.3g, too few of one int8 scale's "
                  "256 levels",
                  (Hi - Lo) / std::max(Narrowest, 1e-30),
                  reportName(*NarrowestV).c_str(), Narrowest, Hi - Lo);
    return Buf;
  }

  /// Why an int8 add or sub would crush an operand, or "": its result
  /// takes one scale, so an operand whose calibrated range is a small part
  /// of the result's keeps few of the 256 levels. A transformer adds its
  /// attention mask (0 or -10000) to scores of a few units: at the sum's
  /// scale every score would round to the same value, and the softmax after
  /// it would attend uniformly (a trained BERT-style encoder fell to chance
  /// accuracy). A residual add, whose operands and sum have like ranges,
  /// stays int8.
  std::string sumRangesApart(const Node &N) const {
    constexpr double MaxSpread = 16; // as concatRangesApart
    auto Result = Observed.find(N.result(0));
    if (Result == Observed.end())
      return "";
    ActivationRange Y = chooseRange(*Result->second, Opts.Method);
    for (const Value *X : N.operands()) {
      auto It = Observed.find(X);
      if (It == Observed.end())
        continue;
      ActivationRange R = chooseRange(*It->second, Opts.Method);
      double Width = R.Hi - R.Lo, Sum = Y.Hi - Y.Lo;
      if (Sum <= MaxSpread * Width)
        continue;
      char Buf[200];
      std::snprintf(Buf, sizeof(Buf),
                    "operand '%s' spans %.3g of its result's %.3g, too few "
                    "of one int8 scale's 256 levels (an attention mask's "
                    "add)",
                    reportName(*X).c_str(), Width, Sum);
      return Buf;
    }
    return "";
  }

  /// Why an int8 mul would round what is summed right after, or "": a mul
  /// read only by reduce_sum or reduce_mean (which run in float) is the
  /// terms of a sum. Rounding each term to int8 at the products' scale
  /// loses what one rounding of the sum keeps: a matmul expanded for a
  /// target without one (expand-matmul: a broadcast mul and a reduce_sum
  /// over k) lost 11 dB on a trained BERT-style encoder through NNAPI,
  /// and a layer norm's variance (expand-layer-norm) is such a mean.
  std::string summedRightAfter(const Node &N) const {
    const Value *Y = N.result(0);
    if (!Y->hasUses() || G.isOutput(Y))
      return "";
    for (const Use &U : Y->uses())
      if (!U.User->isOp("reduce_sum") && !U.User->isOp("reduce_mean"))
        return "";
    return "its products are summed right after by '" +
           Y->uses().front().User->displayName() +
           "' (" + Y->uses().front().User->opName().str() +
           "): int8 would round each term before the sum";
  }

  /// V has statistics, or is the result of an int8 same-scale op (whose
  /// input's parameters it takes).
  bool hasRange(const Value *V) const {
    return Observed.count(V) || inheritsParameters(V);
  }

  /// V's parameters are its producer's input's: a result of an int8
  /// same-scale op (max_pool, reshape, transpose, split, ...).
  bool inheritsParameters(const Value *V) const {
    const Node *Prod = V->producer();
    return Prod && P.Quantized.count(Prod) &&
           int8OpInfo(*Prod).Role == Int8Role::SameScale;
  }

  /// Values that must share one set of parameters, as classes of a
  /// union-find over P.Activations: a same-scale op's results and its input
  /// (the op moves int8 values), and an int8 concat's inputs and output (a
  /// concat of i8 tensors is a plain copy only then, which is what XNNPACK,
  /// TFLite and NNAPI run). Each class takes the union of the ranges its
  /// members have of their own (the results of same-scale ops have none), so
  /// nothing in it is clipped harder than alone. Without concats a class is
  /// one value and the values inheriting from it, as before.
  size_t classOf(size_t I) {
    while (Parent[I] != I)
      I = Parent[I] = Parent[Parent[I]];
    return I;
  }
  void join(const Value *A, const Value *B) {
    size_t RA = classOf(Index[A]), RB = classOf(Index[B]);
    if (RA != RB)
      Parent[std::max(RA, RB)] = std::min(RA, RB);
  }

  void planActivations() {
    llvm::DenseMap<const Value *, bool> Needed;
    for (const Node *N : P.QuantizedInOrder) {
      Int8OpInfo Info = int8OpInfo(*N);
      for (unsigned I : Info.Activations)
        Needed[N->operand(I)] = true;
      if (Info.Role == Int8Role::SameScale)
        for (const Value *R : N->results())
          Needed[R] = true;
      else
        Needed[N->result(0)] = true;
    }
    std::vector<bool> OwnRange;
    for (const Value *V : valuesInOrder(G)) {
      if (!Needed.count(V))
        continue;
      PlannedActivation A;
      A.V = V;
      OwnRange.push_back(!inheritsParameters(V));
      if (OwnRange.back()) {
        A.Range = narrowedForUsers(G, V, chooseRange(*Observed[V], Opts.Method));
        if (std::string Why = whyNotQuantizable(*Observed[V]);
            !Why.empty() && P.Refusal.empty())
          P.Refusal = "tensor '" + reportName(*V) + "': " + Why;
      }
      Index[V] = P.Activations.size();
      Parent.push_back(Parent.size());
      P.Activations.push_back(A);
    }
    for (const Node *N : P.QuantizedInOrder) {
      if (int8OpInfo(*N).Role == Int8Role::SameScale)
        for (const Value *R : N->results())
          join(R, N->operand(0));
      else if (N->isOp("concat"))
        for (const Value *X : N->operands())
          join(X, N->result(0));
    }
    std::map<size_t, ActivationRange> ClassRange;
    for (size_t I = 0; I < P.Activations.size(); ++I) {
      if (!OwnRange[I])
        continue;
      const ActivationRange &R = P.Activations[I].Range;
      auto It = ClassRange.try_emplace(classOf(I), R).first;
      It->second.Lo = std::min(It->second.Lo, R.Lo);
      It->second.Hi = std::max(It->second.Hi, R.Hi);
    }
    for (size_t I = 0; I < P.Activations.size(); ++I) {
      PlannedActivation &A = P.Activations[I];
      A.Range = ClassRange.at(classOf(I));
      A.Quant = activationQuant(A.Range.Lo, A.Range.Hi);
    }
  }

  /// Values that mix ranges far apart, with the concat that mixed them.
  llvm::DenseMap<const Value *, std::string> MixedBy;
  llvm::DenseMap<const Value *, size_t> Index;
  std::vector<size_t> Parent; // union-find over P.Activations
  const Graph &G;
  const Int8PlanOptions &Opts;
  llvm::DenseMap<const Value *, const TensorObserver *> Observed;
  Int8Plan P;
};
} // namespace

Int8Plan planInt8(const Graph &G, const CalibrationStats &Stats,
                  const Int8PlanOptions &Opts) {
  return Planner(G, Stats, Opts).run();
}

void applyInt8Plan(Graph &G, const Int8Plan &Plan) {
  for (const PlannedActivation &A : Plan.Activations) {
    Value *V = const_cast<Value *>(A.V);
    TensorType T = V->type();
    T.Quant = perTensorParams(A.Quant);
    V->setType(T);
  }
  // One annotated copy of each weight per set of parameters, shared by the
  // quantized nodes that use it (the bytes are shared, not copied).
  std::vector<std::pair<Value *, Value *>> Copies; // (float weight, copy)
  for (const Node *CN : Plan.QuantizedInOrder) {
    auto It = Plan.Weights.find(CN);
    if (It == Plan.Weights.end())
      continue;
    Node *N = const_cast<Node *>(CN);
    unsigned WI = unsigned(int8OpInfo(*N).Weight);
    Value *W = N->operand(WI);
    Value *Annotated = nullptr;
    for (const auto &[From, Copy] : Copies)
      if (From == W && *Copy->type().Quant == It->second)
        Annotated = Copy;
    if (!Annotated) {
      TensorType T = W->type();
      T.Quant = It->second;
      Annotated = G.createConstant(Tensor(T, W->constant()->buffer()),
                                   W->name(), N);
      Copies.push_back({W, Annotated});
    }
    N->setOperand(WI, Annotated);
  }
  std::set<Value *> Originals; // the float weights nobody reads any more go
  for (const auto &Copy : Copies)
    Originals.insert(Copy.first);
  for (Node &N : llvm::make_early_inc_range(G.nodes()))
    if (N.isOp("const") && Originals.count(N.result()) &&
        !N.result()->hasUses() && !G.isOutput(N.result()))
      G.erase(&N);
}

} // namespace kiln
