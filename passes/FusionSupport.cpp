// Helpers shared by the fusion passes; see FusionSupport.h.
#include "passes/FusionSupport.h"

#include "IR/ShapeInference.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace kiln {

bool hasSingleUse(const Graph &G, const Value *V) {
  return V && V->numUses() == 1 && !G.isOutput(V);
}

bool isFloatConstant(const Value *V) {
  return V && V->constant() && isFloatType(V->type().Elem) &&
         !V->type().Quant && V->type().isStatic();
}

llvm::Optional<std::vector<double>> floatConstant(const Value *V) {
  if (!isFloatConstant(V))
    return llvm::None;
  return constantFloats(V);
}

Tensor makeFloatTensor(ElementType Elem, llvm::ArrayRef<int64_t> Sizes,
                       llvm::ArrayRef<double> Values) {
  Shape S = makeShape(Sizes);
  switch (Elem) {
  case ElementType::F64:
    return Tensor::fromValues<double>(Elem, S, Values);
  case ElementType::F16:
  case ElementType::BF16: {
    std::vector<uint16_t> H;
    H.reserve(Values.size());
    for (double V : Values)
      H.push_back(Elem == ElementType::F16 ? floatToHalf(float(V))
                                           : floatToBf16(float(V)));
    return Tensor::fromValues<uint16_t>(Elem, S, H);
  }
  default: { // f32, written straight into the tensor's bytes
    std::vector<uint8_t> Bytes(Values.size() * sizeof(float));
    for (size_t I = 0; I < Values.size(); ++I) {
      float F = float(Values[I]);
      std::memcpy(Bytes.data() + I * sizeof(float), &F, sizeof F);
    }
    return Tensor(TensorType(ElementType::F32, std::move(S)),
                  Buffer::own(std::move(Bytes)));
  }
  }
}

void eraseUnusedConstants(Graph &G, std::vector<Value *> Vs) {
  std::sort(Vs.begin(), Vs.end());
  Vs.erase(std::unique(Vs.begin(), Vs.end()), Vs.end());
  for (Value *V : Vs)
    if (V && V->constant() && !V->hasUses() && !G.isOutput(V))
      G.erase(V->producer());
}

void absorbConsumer(Graph &G, Node &Producer, Node &Consumer) {
  Value *From = Consumer.result(), *To = Producer.result();
  if (!From->name().empty())
    To->setName(From->name());
  G.replaceAllUsesWith(From, To);
  Producer.addSources(Consumer);
  G.erase(&Consumer);
}

void fuseActivationInto(Graph &G, Node &Producer, Node &Act,
                        const FusedActivation &A) {
  for (auto &KV : A.toAttrs())
    Producer.setAttr(KV.first, KV.second);
  std::vector<Value *> Bounds(Act.operands().begin() + 1,
                              Act.operands().end());
  absorbConsumer(G, Producer, Act);
  eraseUnusedConstants(G, std::move(Bounds));
}

llvm::Optional<ChannelwiseProducer>
ChannelwiseProducer::match(const Node &N) {
  bool Conv = N.isOp("conv"), ConvT = N.isOp("conv_transpose");
  bool Linear = N.isOp("linear"), Gemm = N.isOp("gemm");
  if (!(Conv || ConvT || Linear || Gemm) || N.numResults() != 1 ||
      !readFusedActivation(N).isNone() ||
      !isFloatType(N.result()->type().Elem))
    return llvm::None;
  ChannelwiseProducer P;
  P.N = const_cast<Node *>(&N);
  // The weight is read when (and only if) it is rescaled: a model's weights
  // are never held as doubles all at once (issue 55: every linear layer of
  // an MLP matches before any is rewritten).
  const Value *W = N.operand(1);
  if (!isFloatConstant(W))
    return llvm::None;
  for (const Dim &D : W->type().Dims)
    P.WeightSizes.push_back(D.size());
  const std::vector<int64_t> &WS = P.WeightSizes;
  int64_t Numel = W->constant()->numElements();
  if (Numel == 0 || WS.size() < 2)
    return llvm::None;
  if (Conv || Linear) { // [out, in...]
    P.Channels = WS[0];
    P.Inner = Numel / WS[0];
  } else if (ConvT) { // [C, M/G, k...]
    P.Groups = N.getInt("group");
    if (P.Groups < 1 || WS[0] % P.Groups)
      return llvm::None;
    P.InPerGroup = WS[0] / P.Groups;
    P.OutPerGroup = WS[1];
    P.Channels = WS[1] * P.Groups;
    P.Inner = Numel / (WS[0] * WS[1]);
  } else { // gemm: b is [K, N], or [N, K] with trans_b
    if (WS.size() != 2 || N.result()->type().rank() != 2)
      return llvm::None;
    bool TransB = N.getInt("trans_b") != 0;
    P.Channels = TransB ? WS[0] : WS[1];
    P.Inner = TransB ? WS[1] : 1;
  }

  // The bias, one value per channel (a gemm's c times beta).
  P.Bias.assign(size_t(P.Channels), 0.0);
  const Value *B = N.numOperands() > 2 ? N.operand(2) : nullptr;
  if (B) {
    auto BV = floatConstant(B);
    if (!BV)
      return llvm::None;
    const Shape &BS = B->type().Dims;
    // Per channel: [C], or one value ([], [1], [1, 1]); a gemm's c may also
    // be a row [1, C]. Anything that varies along rows does not fold. An
    // empty c means no c.
    bool OneValue = BV->size() == 1;
    bool PerChannel = int64_t(BV->size()) == P.Channels &&
                      (BS.size() == 1 || (Gemm && BS.size() == 2 &&
                                          BS[0].size() == 1));
    bool Empty = Gemm && BV->empty();
    if (!OneValue && !PerChannel && !Empty)
      return llvm::None;
    double Beta = Gemm ? N.getFloat("beta") : 1.0;
    for (int64_t C = 0; C < P.Channels && !Empty; ++C)
      P.Bias[size_t(C)] = Beta * (*BV)[OneValue ? 0 : size_t(C)];
  }
  return P;
}

int64_t ChannelwiseProducer::resultAxis() const {
  return N->isOp("linear") ? N->result()->type().rank() - 1 : 1;
}

int64_t ChannelwiseProducer::channelOf(int64_t I) const {
  if (!N->isOp("conv_transpose"))
    return (I / Inner) % Channels;
  int64_t In = I / (OutPerGroup * Inner), M = (I / Inner) % OutPerGroup;
  return (In / InPerGroup) * OutPerGroup + M;
}

void ChannelwiseProducer::applyAffine(Graph &G, llvm::ArrayRef<double> Scale,
                                      llvm::ArrayRef<double> Shift) {
  std::vector<double> NewB(static_cast<size_t>(Channels));
  for (size_t C = 0; C < NewB.size(); ++C)
    NewB[C] = Bias[C] * Scale[C] + Shift[C];

  Value *OldW = N->operand(1);
  Value *OldB = N->numOperands() > 2 ? N->operand(2) : nullptr;
  ElementType Elem = OldW->type().Elem;
  // A pure shift (add/sub) keeps the weight as it is, unread.
  bool Unscaled = std::all_of(Scale.begin(), Scale.end(),
                              [](double S) { return S == 1.0; });
  Value *W = OldW;
  if (!Unscaled) {
    const Tensor &Old = *OldW->constant();
    std::vector<double> NewW(size_t(Old.numElements()));
    for (size_t I = 0; I < NewW.size(); ++I)
      NewW[I] = Old.asDouble(int64_t(I)) * Scale[size_t(channelOf(int64_t(I)))];
    W = G.createConstant(makeFloatTensor(Elem, WeightSizes, NewW),
                         OldW->name(), N);
  }
  Value *B = G.createConstant(
      makeFloatTensor(OldB ? OldB->type().Elem : Elem, {Channels}, NewB),
      OldB ? OldB->name() : "", N);
  N->setOperand(1, W);
  if (N->numOperands() > 2)
    N->setOperand(2, B);
  else
    N->addOperand(B);
  if (N->isOp("gemm"))
    N->removeAttr("beta"); // beta is folded into c
  eraseUnusedConstants(G, {OldW, OldB});
}

llvm::Optional<FusedActivation> matchActivation(const Node &N) {
  FusedActivation A;
  if (N.numResults() != 1 || N.numOperands() < 1)
    return llvm::None;
  if (N.isOp("relu")) {
    A.Kind = ActivationKind::Relu;
  } else if (N.isOp("hard_swish")) {
    A.Kind = ActivationKind::HardSwish;
  } else if (N.isOp("leaky_relu")) {
    A.Kind = ActivationKind::LeakyRelu;
    A.Alpha = N.getFloat("alpha");
    if (!std::isfinite(A.Alpha))
      return llvm::None;
  } else if (N.isOp("clip")) {
    A.Kind = ActivationKind::Clip;
    A.Min = N.getFloat("min");
    A.Max = N.getFloat("max");
    for (unsigned I = 1; I < N.numOperands(); ++I) {
      if (!N.operand(I))
        continue;
      auto V = floatConstant(N.operand(I));
      if (!V || V->size() != 1)
        return llvm::None;
      (I == 1 ? A.Min : A.Max) = (*V)[0];
    }
    if (std::isnan(A.Min) || std::isnan(A.Max) || A.Min > A.Max)
      return llvm::None;
  } else {
    return llvm::None;
  }
  return A;
}

} // namespace kiln
