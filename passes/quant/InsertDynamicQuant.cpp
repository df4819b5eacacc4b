// quantize-dynamic-int8: dynamic int8. The weight of conv, conv_transpose,
// linear, and gemm/matmul with a constant weight becomes symmetric int8 per
// output channel (an i8 constant + dequantize); the activation it multiplies
// is quantized at run time, per tensor, by dynamic_quantize:
//   x -> dynamic_quantize{to=i8} -> (q, scale, zp) -> dequantize -> op
// so the graph computes what an int8 kernel with run-time activation
// parameters computes. Biases and everything else stay float; no calibration
// data is needed.
#include "passes/quant/QDQBuilder.h"
#include "passes/quant/QuantRewrites.h"
#include "passes/quant/QuantizableOps.h"
#include "passes/quant/WeightQuantization.h"

#include "IR/OpRegistry.h"

namespace kiln {

namespace {
/// dynamic_quantize + dequantize of X, right after X is computed.
Value *dynamicQDQ(Graph &G, Value *X) {
  Node *Before = X->producer() ? nodeAfter(X->producer())
                               : (G.nodes().empty() ? nullptr : &G.nodes().front());
  AttrMap Attrs;
  Attrs["to"] = std::string("i8");
  TensorType QT(ElementType::I8, X->type().Dims);
  Node *Q = G.createNode(OpRegistry::instance().get("dynamic_quantize"), {X},
                         {QT, TensorType(ElementType::F32, {}),
                          TensorType(ElementType::I8, {})},
                         std::move(Attrs), Before);
  Node *D = G.createNode(OpRegistry::instance().get("dequantize"),
                         {Q->result(0), Q->result(1), Q->result(2)},
                         {withoutQuant(X->type())}, {}, Before);
  if (!X->name().empty()) {
    Q->result(0)->setName(X->name() + ".q");
    Q->result(1)->setName(X->name() + ".scale");
    Q->result(2)->setName(X->name() + ".zp");
    D->result()->setName(X->name() + ".dq");
  }
  if (Node *P = X->producer()) {
    Q->setSources(P->sources());
    D->setSources(P->sources());
  }
  return D->result();
}
} // namespace

void insertDynamicQuant(Graph &G, const NodeSet &KeepFloat, PassStats &Stats) {
  std::vector<Node *> Targets;
  for (Node &N : G.nodes()) {
    Int8OpInfo Info = int8OpInfo(N);
    Value *X = N.numOperands() ? N.operand(0) : nullptr;
    if (Info.Role != Int8Role::Weighted || KeepFloat.count(&N) || !X ||
        X->type().Elem != ElementType::F32 || isConstantValue(X) ||
        !planWeightQuant(N.operand(unsigned(Info.Weight)), Info.WeightAxis))
      continue;
    Targets.push_back(&N);
  }
  std::vector<WeightCacheEntry> Weights;
  std::vector<std::pair<Value *, Value *>> Activations; // (x, dequantized)
  for (Node *N : Targets) {
    Int8OpInfo Info = int8OpInfo(*N);
    unsigned WI = unsigned(Info.Weight);
    Value *W = N->operand(WI);
    size_t Before = Weights.size();
    N->setOperand(WI, quantizeWeightFor(G, *N, WI,
                                        *planWeightQuant(W, Info.WeightAxis),
                                        Weights));
    if (Weights.size() != Before)
      Stats.add("weights");
    if (!W->hasUses() && !G.isOutput(W))
      G.erase(W->producer());
    Value *X = N->operand(0);
    Value *XD = nullptr;
    for (const auto &[From, To] : Activations)
      if (From == X)
        XD = To;
    if (!XD) {
      XD = dynamicQDQ(G, X);
      Activations.push_back({X, XD});
    }
    N->setOperand(0, XD);
    Stats.add("quantized");
  }
}

namespace {
class InsertDynamicQuant : public Pass {
public:
  llvm::Expected<bool> run(Graph &G, PassStats &Stats) override {
    PassStats Local;
    insertDynamicQuant(G, {}, Local);
    Stats.merge(Local);
    return !Local.counts().empty();
  }
};
} // namespace

std::unique_ptr<Pass> createInsertDynamicQuant() {
  return std::make_unique<InsertDynamicQuant>();
}

} // namespace kiln
