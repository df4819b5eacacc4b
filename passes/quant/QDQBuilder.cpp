#include "passes/quant/QDQBuilder.h"

#include "IR/OpRegistry.h"

namespace kiln {

Node *nodeAfter(Node *N) {
  auto It = std::next(N->getIterator());
  return It == N->graph()->nodes().end() ? nullptr : &*It;
}

TensorType withoutQuant(TensorType T) {
  T.Quant = llvm::None;
  return T;
}

void setConstantType(Value *C, const TensorType &T) {
  Node *N = C->producer();
  const Tensor &Old = N->getTensor("value");
  N->setAttr("value", Tensor(T, Old.buffer()));
  C->setType(T);
}

static Value *scaleConstant(Graph &G, const QuantParams &P, Node *Before,
                            const std::string &Name) {
  Shape Dims = P.isPerAxis() ? makeShape({int64_t(P.Scales.size())}) : Shape{};
  return G.createConstant(
      Tensor::fromValues<float>(ElementType::F32, Dims, P.Scales), Name, Before);
}

static std::string suffixed(const Value *V, const char *Suffix) {
  return V->name().empty() ? std::string() : V->name() + Suffix;
}

QDQPair insertQDQ(Graph &G, Value *V, const QuantParams &P, Node *Before) {
  const OpRegistry &R = OpRegistry::instance();
  Value *S = scaleConstant(G, P, Before, suffixed(V, ".scale"));
  int8_t Zp = int8_t(P.ZeroPoints[0]);
  Value *Z = G.createConstant(
      Tensor::fromValues<int8_t>(ElementType::I8, Shape{}, llvm::makeArrayRef(Zp)),
      suffixed(V, ".zp"), Before);
  TensorType QT(ElementType::I8, V->type().Dims);
  QT.Quant = P;
  Node *Q = G.createNode(R.get("quantize"), {V, S, Z}, {QT}, {}, Before);
  Q->result()->setName(suffixed(V, ".q"));
  Node *D = G.createNode(R.get("dequantize"), {Q->result(), S, Z},
                         {withoutQuant(V->type())}, {}, Before);
  D->result()->setName(suffixed(V, ".dq"));
  if (Node *Producer = V->producer()) {
    Q->setSources(Producer->sources());
    D->setSources(Producer->sources());
  }
  return {Q->result(), D->result()};
}

Value *insertDequantizedConstant(Graph &G, Tensor Q, const QuantParams &P,
                                 ElementType FloatElem, Node *Before,
                                 const std::string &Name) {
  TensorType T = Q.type();
  T.Quant = P;
  Value *C = G.createConstant(Tensor(T, Q.buffer()), Name, Before);
  Value *S = scaleConstant(G, P, Before, Name.empty() ? "" : Name + ".scale");
  AttrMap Attrs;
  if (P.isPerAxis())
    Attrs["axis"] = P.Axis;
  Node *D = G.createNode(OpRegistry::instance().get("dequantize"), {C, S},
                         {TensorType(FloatElem, T.Dims)}, std::move(Attrs),
                         Before);
  D->result()->setName(Name.empty() ? "" : Name + ".dq");
  return D->result();
}

} // namespace kiln
