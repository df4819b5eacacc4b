// Quantized graphs on the CPU target: folded and narrow constants, the int8
// pattern test, and the quantize / dequantize / dynamic_quantize rules
// (what and why: QuantLowering.h).
#include "backends/kilnops/QuantLowering.h"

#include "IR/ops/FusedActivation.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>

namespace kiln {

namespace {

bool isConst(const Value *V) { return V && V->constant(); }

/// The quantization of dequantize node D: scales and zero points from its
/// constant operands, along its axis.
llvm::Optional<QuantParams> dequantizeParams(const Node &D) {
  if (D.numOperands() < 2 || !isConst(D.operand(1)))
    return llvm::None;
  QuantParams Q;
  const Tensor &S = *D.operand(1)->constant();
  for (int64_t I = 0; I < S.numElements(); ++I)
    Q.Scales.push_back(float(S.asDouble(I)));
  if (D.numOperands() > 2 && D.operand(2)) {
    if (!isConst(D.operand(2)))
      return llvm::None;
    const Tensor &Z = *D.operand(2)->constant();
    for (int64_t I = 0; I < Z.numElements(); ++I)
      Q.ZeroPoints.push_back(Z.asInt(I));
  } else {
    Q.ZeroPoints.assign(Q.Scales.size(), 0);
  }
  if (Q.ZeroPoints.size() != Q.Scales.size() || Q.Scales.empty())
    return llvm::None;
  if (Q.Scales.size() > 1 || S.type().rank() > 0)
    Q.Axis = D.hasAttr("axis") ? D.getInt("axis") : 1;
  if (Q.Axis < 0 && Q.Scales.size() > 1)
    return llvm::None;
  return Q;
}

/// cast(f16 const -> f32) or dequantize(i8/i32 const): the stored constant.
const Node *narrowingNode(const Value *V) {
  const Node *P = V ? V->producer() : nullptr;
  if (!P || P->numOperands() == 0 || !isConst(P->operand(0)) ||
      V->type().Elem != ElementType::F32)
    return nullptr;
  ElementType In = P->operand(0)->type().Elem;
  if (P->isOp("cast") && In == ElementType::F16)
    return P;
  if (P->isOp("dequantize") && (In == ElementType::I8 || In == ElementType::I32) &&
      dequantizeParams(*P))
    return P;
  return nullptr;
}

std::unique_ptr<Tensor> fold(const Node &P) {
  const Tensor &In = *P.operand(0)->constant();
  int64_t N = In.numElements();
  std::vector<float> Out(static_cast<size_t>(N));
  if (P.isOp("cast")) {
    const uint8_t *B = In.buffer().data();
    for (int64_t I = 0; I < N; ++I) {
      uint16_t H;
      std::memcpy(&H, B + I * 2, 2);
      Out[size_t(I)] = halfToFloat(H);
    }
  } else {
    QuantParams Q = *dequantizeParams(P);
    std::vector<int64_t> Dims = staticSizes(In.type().Dims);
    int64_t Inner = 1, Dim = 1;
    if (Q.Axis >= 0 && size_t(Q.Axis) < Dims.size()) {
      Dim = Dims[size_t(Q.Axis)];
      for (size_t I = size_t(Q.Axis) + 1; I < Dims.size(); ++I)
        Inner *= Dims[I];
    }
    for (int64_t I = 0; I < N; ++I) {
      size_t C = Q.Scales.size() == 1 ? 0 : size_t((I / Inner) % Dim);
      Out[size_t(I)] = float((In.asDouble(I) - double(Q.ZeroPoints[C])) *
                             double(Q.Scales[C]));
    }
  }
  return std::make_unique<Tensor>(Tensor::fromValues<float>(
      ElementType::F32, In.type().Dims, llvm::ArrayRef<float>(Out)));
}

bool perTensorInt8(const Value *V) {
  const auto &T = V->type();
  return T.Elem == ElementType::I8 && T.Quant && !T.Quant->isPerAxis() &&
         T.Quant->Scales.size() == 1;
}

/// V = dequantize(i8 activation per tensor)?
bool isDequantizedInt8(const Value *V) {
  const Node *P = V ? V->producer() : nullptr;
  return P && P->isOp("dequantize") && !isConst(P->operand(0)) &&
         perTensorInt8(P->operand(0));
}

} // namespace

bool isReshapeLike(const Node &N) {
  llvm::StringRef Op = N.opName();
  return (Op == "flatten" || Op == "reshape" || Op == "squeeze" ||
          Op == "unsqueeze" || Op == "identity") &&
         N.numResults() == 1;
}

bool isInt8Move(const Node &N) {
  if (N.isOp("slice"))
    return N.numResults() == 1 && sliceOptionsOf(N).hasValue();
  return isReshapeLike(N) || N.isOp("split") ||
         ((N.isOp("transpose") || N.isOp("concat")) && N.numResults() == 1);
}

namespace {
llvm::Error lowerInt8Transpose(const Node &N, LoweringContext &Ctx) {
  int32_t In = int8Operand(Ctx, N.operand(0), false);
  const Value *QV = N.result()->uses()[0].User->result();
  int32_t Out = Ctx.transpose(In, transposePermOf(N),
                              QV->name().empty() ? "transposed" : QV->name(),
                              canonicalLayout(size_t(QV->type().rank())));
  Ctx.define(QV, Out, false);
  return llvm::Error::success();
}

/// Like the float concat, on the i8 tensors behind the dequantizes.
llvm::Error lowerInt8Concat(const Node &N, LoweringContext &Ctx) {
  return emitConcat(
      N, Ctx,
      [&](const Value *V) { return Ctx.hasNhwc(V->producer()->operand(0)); },
      [&](const Value *V, bool Nhwc) { return int8Operand(Ctx, V, Nhwc); },
      [&](bool Nhwc) { return int8Result(Ctx, N, Nhwc); });
}

/// One SLICE of the i8 input per result, like the float split.
llvm::Error lowerInt8Split(const Node &N, LoweringContext &Ctx) {
  auto Slices = splitSlicesOf(N);
  if (!Slices)
    return Slices.takeError();
  int32_t In = int8Operand(Ctx, N.operand(0), false);
  for (unsigned R = 0; R < N.numResults(); ++R) {
    const Value *QV = N.result(R)->uses()[0].User->result();
    int32_t Out = Ctx.resultTensor(QV, false);
    Ctx.addOp(fb::OpKind::SLICE, {In}, {Out}, optionsOf((*Slices)[R]),
              fb::Engine::REFERENCE);
    Ctx.define(QV, Out, false);
  }
  return llvm::Error::success();
}

llvm::Error lowerInt8Slice(const Node &N, LoweringContext &Ctx) {
  int32_t In = int8Operand(Ctx, N.operand(0), false);
  int32_t Out = int8Result(Ctx, N, false);
  Ctx.addOp(fb::OpKind::SLICE, {In}, {Out}, optionsOf(*sliceOptionsOf(N)),
            fb::Engine::REFERENCE);
  return llvm::Error::success();
}

/// split: every result's only use quantizes it with the input's parameters.
bool isInt8Split(const Node &N) {
  if (!isDequantizedInt8(N.operand(0)))
    return false;
  QuantParams In = int8ParamsOf(N.operand(0)->producer()->operand(0));
  for (const Value *R : N.results()) {
    if (R->numUses() != 1 || N.graph()->isOutput(R))
      return false;
    const Node *Q = R->uses()[0].User;
    if (!Q->isOp("quantize") || !perTensorInt8(Q->result()) ||
        !(int8ParamsOf(Q->result()) == In))
      return false;
  }
  return true;
}
} // namespace

llvm::Error lowerInt8Move(const Node &N, LoweringContext &Ctx) {
  if (N.isOp("split"))
    return lowerInt8Split(N, Ctx);
  if (N.isOp("slice"))
    return lowerInt8Slice(N, Ctx);
  if (N.isOp("transpose"))
    return lowerInt8Transpose(N, Ctx);
  if (N.isOp("concat"))
    return lowerInt8Concat(N, Ctx);
  int32_t In = int8Operand(Ctx, N.operand(0), false);
  const Value *QV = N.result()->uses()[0].User->result();
  std::vector<int64_t> Sizes = staticSizes(QV->type().Dims);
  int32_t Out = Ctx.reshape(In, Sizes, QV->name().empty() ? "value" : QV->name(),
                            canonicalLayout(Sizes.size()));
  Ctx.define(QV, Out, false);
  return llvm::Error::success();
}

bool isNarrowingNode(const Node &N) {
  return N.numResults() == 1 && narrowingNode(N.result()) == &N;
}

/// V after the identity chain that passes a value on unchanged.
static const Value *throughIdentities(const Value *V) {
  while (V && !V->constant() && V->producer() &&
         V->producer()->isOp("identity"))
    V = V->producer()->operand(0);
  return V;
}

bool isConstantOrFolded(const Value *V) {
  V = throughIdentities(V);
  return V && (V->constant() || narrowingNode(V));
}

llvm::Optional<double> constantScalar(const Value *V) {
  V = throughIdentities(V);
  if (!V)
    return llvm::None;
  if (const Tensor *T = V->constant())
    return T->numElements() == 1 ? llvm::Optional<double>(T->asDouble(0))
                                 : llvm::None;
  const Node *P = narrowingNode(V);
  if (!P || numElements(V->type().Dims).getValueOr(0) != 1)
    return llvm::None;
  return fold(*P)->asDouble(0);
}

const Tensor *ConstantFolds::constantOf(const Value *V) {
  V = throughIdentities(V);
  if (!V)
    return nullptr;
  if (const Tensor *T = V->constant())
    return T;
  const Node *P = narrowingNode(V);
  if (!P)
    return nullptr;
  std::unique_ptr<Tensor> &Slot = Folded[V];
  if (!Slot)
    Slot = fold(*P);
  return Slot.get();
}

llvm::Optional<NarrowWeight> narrowWeightOf(const Value *V) {
  const Node *P = narrowingNode(V);
  if (!P)
    return llvm::None;
  NarrowWeight W{P->operand(0)->constant(), llvm::None};
  if (P->isOp("dequantize"))
    W.Quant = dequantizeParams(*P);
  return W;
}

QuantParams int8ParamsOf(const Value *V) { return *V->type().Quant; }

bool isInt8Table(const Node &N, const LoweringOptions &Opts) {
  static const char *const Ops[] = {"sigmoid",    "tanh", "hard_sigmoid",
                                    "hard_swish", "elu",  "leaky_relu",
                                    "relu",       "clip"};
  return Opts.Int8Elementwise &&
         std::any_of(std::begin(Ops), std::end(Ops),
                     [&](const char *Op) { return N.isOp(Op); });
}

namespace {
/// The i8 value behind V = dequantize(i8), or null.
const Value *dequantizedSource(const Value *V) {
  const Node *P = V->producer();
  return P && P->isOp("dequantize") && V->numUses() == 1 ? P->operand(0)
                                                          : nullptr;
}
} // namespace

const Node *siluSigmoidOf(const Node &N, const LoweringOptions &Opts) {
  if (!Opts.Int8Elementwise || !N.isOp("mul") || N.numOperands() != 2)
    return nullptr;
  for (unsigned I = 0; I < 2; ++I) {
    // x's dequantize also feeds the sigmoid: any number of uses.
    const Node *DX = N.operand(I)->producer();
    const Value *X = DX && DX->isOp("dequantize") ? DX->operand(0) : nullptr;
    const Value *Q = dequantizedSource(N.operand(1 - I));
    if (!X || !Q || Q->numUses() != 1 || !Q->producer() ||
        !Q->producer()->isOp("quantize"))
      continue;
    const Value *S = Q->producer()->operand(0);
    const Node *Sigmoid = S->producer();
    if (!Sigmoid || !Sigmoid->isOp("sigmoid") || S->numUses() != 1 ||
        Sigmoid->graph()->isOutput(S))
      continue;
    const Node *D = Sigmoid->operand(0)->producer();
    if (D && D->isOp("dequantize") && D->operand(0) == X)
      return Sigmoid;
  }
  return nullptr;
}

bool isAbsorbedSigmoid(const Node &N, const LoweringOptions &Opts) {
  if (!N.isOp("sigmoid") || N.result()->numUses() != 1)
    return false;
  const Node *Q = N.result()->uses()[0].User;
  if (!Q->isOp("quantize") || Q->result()->numUses() != 1)
    return false;
  const Node *D = Q->result()->uses()[0].User;
  if (!D->isOp("dequantize") || D->result()->numUses() != 1)
    return false;
  const Node *Mul = D->result()->uses()[0].User;
  return siluSigmoidOf(*Mul, Opts) == &N && isInt8Pattern(*Mul, Opts);
}

bool isInt8Pattern(const Node &N, const LoweringOptions &Opts) {
  llvm::StringRef Op = N.opName();
  if (Op == "split")
    return isInt8Split(N);
  bool Weighted = Op == "conv" || Op == "linear";
  bool Moves = isInt8Move(N);
  bool Binary = Op == "add" || (Op == "mul" && Opts.Int8Elementwise);
  bool Table = isInt8Table(N, Opts);
  // A product of two activations (attention's q k^T and p v).
  bool MatMul = Op == "matmul" && N.operand(0)->type().rank() >= 2 &&
                N.operand(1)->type().rank() >= 2;
  if (!Weighted && !Moves && !Binary && !Table && !MatMul &&
      Op != "max_pool" && Op != "global_avg_pool")
    return false;
  if (N.numResults() != 1 || N.result()->numUses() != 1 ||
      N.graph()->isOutput(N.result()))
    return false;
  const Node *Q = N.result()->uses()[0].User;
  if (!Q->isOp("quantize") || !perTensorInt8(Q->result()))
    return false;
  if (N.operand(0)->type().rank() != 4 && Op != "linear" && !Binary &&
      !Table && !Moves && !MatMul)
    return false;
  if (N.hasAttr("activation")) {
    ActivationKind K = readFusedActivation(N).Kind;
    if (K != ActivationKind::None && K != ActivationKind::Relu &&
        K != ActivationKind::Clip)
      return false;
  }
  unsigned Activations = Binary || MatMul ? 2
                         : Op == "concat" ? N.numOperands()
                                          : 1;
  for (unsigned I = 0; I < Activations; ++I)
    if (!isDequantizedInt8(N.operand(I)))
      return false;
  // Moves and max pooling copy int8 values: the same parameters in and out.
  if (Op == "max_pool" || Moves) {
    for (unsigned I = 0; I < Activations; ++I)
      if (!(int8ParamsOf(N.operand(I)->producer()->operand(0)) ==
            int8ParamsOf(Q->result())))
        return false;
    return true;
  }
  if (!Weighted)
    return true;
  auto W = narrowWeightOf(N.operand(1));
  int64_t OutChannels = N.operand(1)->type().Dims[0].size();
  if (!W || !W->Quant || W->Stored->type().Elem != ElementType::I8 ||
      W->Quant->Axis != 0 || int64_t(W->Quant->Scales.size()) != OutChannels)
    return false;
  for (int64_t Z : W->Quant->ZeroPoints)
    if (Z != 0)
      return false;
  if (N.numOperands() > 2 && N.operand(2)) {
    auto B = narrowWeightOf(N.operand(2));
    if (!B || !B->Quant || B->Stored->type().Elem != ElementType::I32)
      return false;
  }
  return true;
}

void setQuantParams(LoweringContext &Ctx, int32_t Index, const QuantParams &Q) {
  auto P = std::make_unique<fb::QuantParamsT>();
  P->scale = Q.Scales;
  // All-zero zero points are left out (the schema reads none as zeros).
  if (std::any_of(Q.ZeroPoints.begin(), Q.ZeroPoints.end(),
                  [](int64_t Z) { return Z != 0; }))
    P->zero_point = Q.ZeroPoints;
  P->axis = int32_t(Q.Axis);
  Ctx.module().Model.tensors[size_t(Index)]->quant = std::move(P);
}

int32_t int8Operand(LoweringContext &Ctx, const Value *V, bool Nhwc) {
  const Value *I8 = V->producer()->operand(0);
  return Nhwc ? Ctx.nhwc(I8) : Ctx.canonical(I8);
}

int32_t int8Result(LoweringContext &Ctx, const Node &N, bool Nhwc) {
  const Value *QV = N.result()->uses()[0].User->result();
  int32_t T = Ctx.resultTensor(QV, Nhwc);
  Ctx.define(QV, T, Nhwc);
  return T;
}

int32_t packedNarrowConvWeight(LoweringContext &Ctx, const Value *W,
                               const NarrowWeight &NW, bool Depthwise) {
  std::vector<int64_t> S = staticSizes(W->type().Dims); // [O, I, kh, kw]
  int64_t O = S[0], I = S[1], KH = S[2], KW = S[3], Taps = KH * KW;
  ElementType Elem = NW.Stored->type().Elem;
  size_t E = elementSize(Elem);
  const uint8_t *Src = NW.Stored->buffer().data();
  std::vector<uint8_t> Out(size_t(O * I * Taps) * E);
  uint8_t *Dst = Out.data();
  if (Depthwise) { // [O, 1, kh, kw] -> [1, kh, kw, O]
    for (int64_t Oc = 0; Oc < O; ++Oc)
      for (int64_t T = 0; T < Taps; ++T)
        std::memcpy(Dst + size_t(T * O + Oc) * E, Src + size_t(Oc * Taps + T) * E, E);
  } else { // [O, I, kh, kw] -> [O, kh, kw, I]
    for (int64_t Oc = 0; Oc < O; ++Oc)
      for (int64_t T = 0; T < Taps; ++T)
        for (int64_t Ic = 0; Ic < I; ++Ic, Dst += E)
          std::memcpy(Dst, Src + size_t((Oc * I + Ic) * Taps + T) * E, E);
  }
  std::string Name = (W->name().empty() ? "weight" : W->name()) +
                     (Depthwise ? ".hwo" : ".ohwi");
  int32_t T = Ctx.addConstant(
      Name, Elem,
      Depthwise ? std::vector<int64_t>{1, KH, KW, O}
                : std::vector<int64_t>{O, KH, KW, I},
      Depthwise ? fb::Layout::HWO : fb::Layout::OHWI,
      Buffer::own(std::move(Out)));
  if (NW.Quant) {
    QuantParams Q = *NW.Quant;
    if (Q.Axis >= 0)
      Q.Axis = Depthwise ? 3 : 0; // the output channel axis, per layout
    setQuantParams(Ctx, T, Q);
  }
  return T;
}

int32_t narrowConstant(LoweringContext &Ctx, const Value *V,
                       const NarrowWeight &NW, fb::Layout Layout) {
  std::vector<int64_t> S = staticSizes(V->type().Dims);
  int32_t T = Ctx.addConstant(V->name().empty() ? "constant" : V->name(),
                              NW.Stored->type().Elem, S, Layout,
                              NW.Stored->buffer());
  if (NW.Quant)
    setQuantParams(Ctx, T, *NW.Quant);
  return T;
}

int32_t int8Bias(LoweringContext &Ctx, const Value *V, const NarrowWeight &NW) {
  if (!Ctx.options().OmitInt8BiasScales)
    return narrowConstant(Ctx, V, NW, fb::Layout::PLAIN);
  NarrowWeight Unscaled{NW.Stored, llvm::None};
  return narrowConstant(Ctx, V, Unscaled, fb::Layout::PLAIN);
}

//===-- Rules ---------------------------------------------------------------===//

namespace {

KilnOpSupport checkQuantize(const Node &N) {
  if (N.operand(0)->type().Elem != ElementType::F32 ||
      !perTensorInt8(N.result()))
    return notSupported("only f32 to i8 with one scale and zero point "
                        "(per tensor) runs on the CPU target");
  return supported();
}

llvm::Error lowerQuantize(const Node &N, LoweringContext &Ctx) {
  const Value *X = N.operand(0);
  if (X->producer() && isInt8Pattern(*X->producer(), Ctx.options()))
    return llvm::Error::success(); // the int8 operator defined the result
  if (X->producer() && fusedInputQuantize(*X->producer()) == &N)
    return llvm::Error::success(); // PIXELS_TO_TENSOR wrote it
  bool Nhwc = Ctx.hasNhwc(X) && !Ctx.hasCanonical(X);
  int32_t In = Nhwc ? Ctx.nhwc(X) : Ctx.canonical(X);
  int32_t Out = Ctx.resultTensor(N.result(), Nhwc);
  Ctx.addOp(fb::OpKind::QUANTIZE, {In}, {Out},
            optionsOf(fb::QuantizeOptionsT()), fb::Engine::XNNPACK);
  Ctx.define(N.result(), Out, Nhwc);
  return llvm::Error::success();
}

bool fromDynamicQuantize(const Node &N) {
  const Node *P = N.operand(0)->producer();
  return P && P->isOp("dynamic_quantize") && N.operand(0)->resultIndex() == 0;
}

KilnOpSupport checkDequantize(const Node &N) {
  if (narrowingNode(N.result()) || fromDynamicQuantize(N))
    return supported();
  if (N.result()->type().Elem != ElementType::F32 || !perTensorInt8(N.operand(0)))
    return notSupported("only i8 with one scale and zero point (per tensor) "
                        "to f32 runs on the CPU target");
  return supported();
}

llvm::Error lowerDequantize(const Node &N, LoweringContext &Ctx) {
  const Value *Y = N.result();
  if (narrowingNode(Y))
    return llvm::Error::success(); // a constant, written where it is used
  if (fromDynamicQuantize(N)) {
    // int8-dynamic: the activation stays f32 (no qd8 kernels to run it).
    const Value *X = N.operand(0)->producer()->operand(0);
    if (Ctx.hasNhwc(X))
      Ctx.define(Y, Ctx.nhwc(X), true);
    if (Ctx.hasCanonical(X) || !Ctx.hasNhwc(X))
      Ctx.define(Y, Ctx.canonical(X), false);
    return llvm::Error::success();
  }
  bool Needed = N.graph()->isOutput(Y);
  for (const Use &U : Y->uses())
    Needed |= !isInt8Pattern(*U.User, Ctx.options());
  if (!Needed)
    return llvm::Error::success();
  const Value *X = N.operand(0);
  bool Nhwc = Ctx.hasNhwc(X) && !Ctx.hasCanonical(X);
  int32_t In = Nhwc ? Ctx.nhwc(X) : Ctx.canonical(X);
  int32_t Out = Ctx.resultTensor(Y, Nhwc);
  Ctx.addOp(fb::OpKind::DEQUANTIZE, {In}, {Out},
            optionsOf(fb::QuantizeOptionsT()), fb::Engine::XNNPACK);
  Ctx.define(Y, Out, Nhwc);
  return llvm::Error::success();
}

KilnOpSupport checkDynamicQuantize(const Node &N) {
  for (unsigned R = 0; R < N.numResults(); ++R) {
    if (N.graph()->isOutput(N.result(R)))
      return notSupported("its result '{0}' is a graph output; only "
                          "dynamic_quantize -> dequantize runs on the CPU target",
                          N.result(R)->name());
    for (const Use &U : N.result(R)->uses())
      if (!U.User->isOp("dequantize") || U.User->operand(0) != N.result(0))
        return notSupported("its results feed '{0}'; only dynamic_quantize -> "
                            "dequantize runs on the CPU target",
                            U.User->opName());
  }
  return supported();
}

llvm::Error lowerNothing(const Node &, LoweringContext &) {
  return llvm::Error::success();
}

const CpuOpRule QuantRules[] = {
    {"quantize", checkQuantize, lowerQuantize},
    {"dequantize", checkDequantize, lowerDequantize},
    {"dynamic_quantize", checkDynamicQuantize, lowerNothing},
};

} // namespace

llvm::ArrayRef<CpuOpRule> quantRules() { return QuantRules; }

} // namespace kiln
