// insert-qdq: the static int8 rewrite. It reads the plan from the IR: a float
// value whose type carries q(scale, zp) is an activation to quantize; a float
// constant with q(axis=..., scale=[...]) is a weight to quantize. A node with
// an int8 form (QuantizableOps.h) is quantized when its activation operands,
// its result and (for conv, linear...) its weight are all annotated. Then:
//   x -> quantize -> dequantize -> op        (once per annotated value)
//   w: f32 const -> i8 const -> dequantize   (per output channel, symmetric)
//   b: f32 const -> i32 const -> dequantize  with scale s_x * s_w[c]
// A consumer reads the dequantized value when it is quantized itself or the
// producer is (an int8 op's output is int8); other float consumers keep the
// float value. Annotations on float values are removed. Runs after fusion, so
// conv+relu is one quantized op; annotations come from calibration
// (planInt8Quantization) or, in tests, from the .kir text.
#include "passes/Pass.h"
#include "passes/ValueReplacement.h"
#include "passes/quant/CalibrationStats.h"
#include "passes/quant/Int8Scheme.h"
#include "passes/quant/QDQBuilder.h"
#include "passes/quant/QuantizableOps.h"
#include "passes/quant/WeightQuantization.h"

#include "Support/Error.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <cmath>

namespace kiln {

namespace {
bool isFloatActivation(const Value *V) {
  return V && isFloatType(V->type().Elem) && !isConstantValue(V);
}

llvm::Error checkActivationAnnotation(const Value &V) {
  const QuantParams &P = *V.type().Quant;
  bool Ok = !P.isPerAxis() && P.Scales.size() == 1 && P.ZeroPoints.size() == 1 &&
            std::isfinite(P.Scales[0]) && P.Scales[0] > 0 &&
            P.ZeroPoints[0] >= Int8Min && P.ZeroPoints[0] <= Int8Max;
  if (Ok)
    return llvm::Error::success();
  return inputError("value '%{0}' {1}: an activation to quantize needs one "
                    "positive finite scale and a zero point in [-128, 127]",
                    reportName(V), toString(V.type()));
}

class InsertQDQ : public Pass {
public:
  llvm::Expected<bool> run(Graph &G, PassStats &Stats) override {
    for (const Value *V : valuesOf(G))
      if (V->type().Quant && isFloatActivation(V))
        if (llvm::Error E = checkActivationAnnotation(*V))
          return E;
    for (Node &N : G.nodes())
      if (isQuantizable(N))
        Quantized.insert(&N);
    bool Changed = false;
    // Weights and biases first: they only touch the quantized nodes' operands.
    for (Node &N : G.nodes())
      if (Quantized.count(&N) && int8OpInfo(N).Role == Int8Role::Weighted) {
        quantizeWeightAndBias(G, N, Stats);
        Changed = true;
      }
    for (Value *V : valuesOf(G))
      if (V->type().Quant && isFloatActivation(V))
        Changed |= insertPair(G, V, Stats);
    Changed |= stripFloatAnnotations(G);
    if (!Quantized.empty())
      Stats.add("quantized", int64_t(Quantized.size()));
    return Changed;
  }

private:
  static std::vector<Value *> valuesOf(Graph &G) {
    std::vector<Value *> Out = G.inputs();
    for (Node &N : G.nodes())
      for (Value *V : N.results())
        Out.push_back(V);
    return Out;
  }

  static bool annotated(const Value *V) {
    return isFloatActivation(V) && V->type().Quant.hasValue();
  }

  bool isQuantizable(const Node &N) const {
    Int8OpInfo Info = int8OpInfo(N);
    if (Info.Role == Int8Role::None || N.numResults() < 1 ||
        !annotated(N.result(0)))
      return false;
    // A same-scale op (split) needs every result annotated; others have
    // one result in use.
    for (unsigned R = 1; R < N.numResults(); ++R)
      if (Info.Role == Int8Role::SameScale
              ? !annotated(N.result(R))
              : N.result(R)->hasUses() || N.graph()->isOutput(N.result(R)))
        return false;
    for (unsigned I : Info.Activations)
      if (I >= N.numOperands() || !annotated(N.operand(I)))
        return false;
    if (Info.Role == Int8Role::Weighted)
      return matchWeight(N, Info).hasValue();
    return true;
  }

  void quantizeWeightAndBias(Graph &G, Node &N, PassStats &Stats) {
    Int8OpInfo Info = int8OpInfo(N);
    Value *W = N.operand(unsigned(Info.Weight));
    auto It = WeightCache.find(W);
    if (It == WeightCache.end()) {
      QuantizedWeightValue QW = quantizeAnnotatedWeight(G, W, &N);
      It = WeightCache.insert({W, QW}).first;
      Stats.add("weights");
    }
    N.setOperand(unsigned(Info.Weight), It->second.Dequantized);
    if (Info.Bias >= 0 && unsigned(Info.Bias) < N.numOperands())
      if (Value *B = N.operand(unsigned(Info.Bias)))
        if (Value *DB = quantizeBias(G, B, N.operand(0)->type().Quant->Scales[0],
                                     It->second.Scales, &N)) {
          N.setOperand(unsigned(Info.Bias), DB);
          eraseIfDeadConstant(G, B);
          Stats.add("biases");
        }
    eraseIfDeadConstant(G, W);
  }

  /// Puts quantize -> dequantize after V and routes V's uses; false when no
  /// use needs the dequantized value.
  bool insertPair(Graph &G, Value *V, PassStats &Stats) {
    bool ProducerQ = V->producer() && Quantized.count(V->producer());
    std::vector<Use> Routed;
    for (const Use &U : V->uses())
      if (ProducerQ || (Quantized.count(U.User) &&
                        int8OpInfo(*U.User).isActivationOperand(U.Index)))
        Routed.push_back(U);
    bool Output = ProducerQ && G.isOutput(V);
    if (Routed.empty() && !Output)
      return false;
    Node *Before = V->producer() ? nodeAfter(V->producer())
                                 : (G.nodes().empty() ? nullptr : &G.nodes().front());
    QDQPair P = insertQDQ(G, V, *V->type().Quant, Before);
    for (const Use &U : Routed)
      U.User->setOperand(U.Index, P.Dequantized);
    if (Output) {
      for (unsigned I = 0; I < G.outputs().size(); ++I)
        if (G.outputs()[I] == V)
          G.setOutput(I, P.Dequantized);
      std::string Name = V->name();
      if (!Name.empty()) {
        V->setName(Name + ".f32");
        P.Dequantized->setName(Name);
      }
    }
    Stats.add("qdq-pairs");
    return true;
  }

  bool stripFloatAnnotations(Graph &G) {
    bool Changed = false;
    for (Value *V : valuesOf(G)) {
      if (!V->type().Quant || !isFloatType(V->type().Elem))
        continue;
      if (isConstantValue(V))
        setConstantType(V, withoutQuant(V->type()));
      else
        V->setType(withoutQuant(V->type()));
      Changed = true;
    }
    return Changed;
  }

  llvm::DenseSet<const Node *> Quantized;
  llvm::DenseMap<Value *, QuantizedWeightValue> WeightCache;
};
} // namespace

std::unique_ptr<Pass> createInsertQDQ() { return std::make_unique<InsertQDQ>(); }

} // namespace kiln
