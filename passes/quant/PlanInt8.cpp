#include "passes/quant/PlanInt8.h"

#include "passes/quant/QuantizableOps.h"
#include "passes/quant/WeightQuantization.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

namespace kiln {

bool isFloatLayer(const Node &N) {
  if (N.isOp("const") || N.isOp("quantize") || N.isOp("dequantize") ||
      N.numResults() == 0)
    return false;
  return isFloatType(N.result(0)->type().Elem);
}

namespace {
class Planner {
public:
  Planner(const Graph &G, const CalibrationStats &Stats,
          const Int8PlanOptions &Opts)
      : G(G), Opts(Opts) {
    std::vector<const Value *> All = valuesInOrder(G);
    for (uint32_t I = 0; I < All.size(); ++I)
      if (const ObservedValue *O = Stats.find(I))
        if (O->Observer.count() > 0)
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
    if (Info.Role == Int8Role::Weighted &&
        !planWeightQuant(N.operand(unsigned(Info.Weight)), Info.WeightAxis))
      return "its weight is not an f32 constant";
    return "";
  }

  /// V has statistics, or is the result of an int8 same-scale op (whose
  /// input's parameters it takes).
  bool hasRange(const Value *V) const {
    if (Observed.count(V))
      return true;
    const Node *Prod = V->producer();
    return Prod && P.Quantized.count(Prod) &&
           int8OpInfo(*Prod).Role == Int8Role::SameScale;
  }

  /// V's parameters are its producer's input's: the result of an int8
  /// same-scale op (max_pool, reshape, transpose, ...).
  bool inheritsParameters(const Value *V) const {
    const Node *Prod = V->producer();
    return Prod && P.Quantized.count(Prod) &&
           int8OpInfo(*Prod).Role == Int8Role::SameScale;
  }

  void planActivations() {
    llvm::DenseMap<const Value *, bool> Needed;
    for (const Node *N : P.QuantizedInOrder) {
      for (unsigned I : int8OpInfo(*N).Activations)
        Needed[N->operand(I)] = true;
      Needed[N->result(0)] = true;
    }
    // Own ranges first, then concat inputs take their concat's, then the
    // same-scale results inherit (in graph order, so chains resolve).
    for (const Value *V : valuesInOrder(G)) {
      if (!Needed.count(V))
        continue;
      PlannedActivation A;
      A.V = V;
      if (!inheritsParameters(V)) {
        A.Range = chooseRange(*Observed[V], Opts.Method);
        A.Quant = activationQuant(A.Range.Lo, A.Range.Hi);
      }
      Index[V] = P.Activations.size();
      P.Activations.push_back(A);
    }
    shareConcatParameters();
    for (PlannedActivation &A : P.Activations)
      if (inheritsParameters(A.V)) {
        const PlannedActivation &In =
            P.Activations[Index[A.V->producer()->operand(0)]];
        A.Range = In.Range;
        A.Quant = In.Quant;
      }
  }

  /// An int8 concat whose inputs carry its output's parameters is a plain
  /// copy (what XNNPACK, TFLite and NNAPI run); with others each input
  /// would need requantizing. So the inputs take the concat's range, which
  /// covers theirs (the output holds their values). Not when an input
  /// inherits its parameters, or already shares another concat's, or is a
  /// concat result whose inputs share its: that concat stays requantizing.
  void shareConcatParameters() {
    llvm::DenseMap<const Value *, const Node *> SharedWith;
    for (const Node *N : P.QuantizedInOrder) {
      if (!N->isOp("concat"))
        continue;
      const Value *Y = N->result(0);
      bool Shareable = !SharedWith.count(Y);
      for (const Value *X : N->operands())
        Shareable &= !inheritsParameters(X) && !SharedWith.count(X) &&
                     !IsSharedConcatResult.count(X);
      if (!Shareable)
        continue;
      const PlannedActivation Out = P.Activations[Index[Y]];
      for (const Value *X : N->operands()) {
        PlannedActivation &A = P.Activations[Index[X]];
        A.Range = Out.Range;
        A.Quant = Out.Quant;
        SharedWith[X] = N;
      }
      IsSharedConcatResult.insert(Y);
    }
  }

  llvm::DenseMap<const Value *, size_t> Index;
  llvm::DenseSet<const Value *> IsSharedConcatResult;
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
