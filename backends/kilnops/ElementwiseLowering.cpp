// Elementwise ops -> BINARY / UNARY / PRELU / SOFTMAX. They run in whatever
// layout their input already has, so a chain conv -> add -> relu -> conv
// stays NHWC: a binary op goes NHWC when a non-constant operand already is
// and every other operand can follow (rank-4 values get a transpose,
// constants are permuted at compile time). Inference batch_norm that no
// pass folded becomes a multiply and an add by per-channel constants:
// scale = gamma / sqrt(var + eps), shift = beta - mean * scale.
#include "backends/kilnops/QuantLowering.h"
#include "backends/kilnops/KilnOpRules.h"

#include <array>
#include <cmath>

namespace kiln {

namespace {

std::vector<int64_t> sizesOf(const Value *V) {
  return staticSizes(V->type().Dims);
}

/// True when the node's value should be computed in NHWC: its result is
/// rank 4, some non-constant operand is already NHWC, and every operand is
/// either rank 4 or a constant of rank <= 4.
bool preferNhwc(const Node &N, const LoweringContext &Ctx) {
  if (N.result()->type().rank() != 4)
    return false;
  bool AnyNhwc = false;
  for (const Value *V : N.operands()) {
    if (!V)
      continue;
    if (Ctx.constantOf(V)) {
      if (V->type().rank() > 4)
        return false;
      continue;
    }
    if (V->type().rank() != 4)
      return false;
    AnyNhwc |= Ctx.hasNhwc(V);
  }
  return AnyNhwc;
}

/// A constant of rank <= 4 broadcast against a rank-4 NCHW value, as an
/// NHWC constant: padded with leading 1s, then permuted.
int32_t constantInNhwc(LoweringContext &Ctx, const Value *V) {
  if (V->type().rank() == 4)
    return Ctx.nhwc(V);
  std::vector<int64_t> S = sizesOf(V);
  S.insert(S.begin(), 4 - S.size(), 1);
  const Tensor &T = *Ctx.constantOf(V);
  size_t ElemSize = elementSize(T.type().Elem);
  std::string Name = (V->name().empty() ? "const" : V->name()) + ".nhwc";
  return Ctx.addConstant(Name, T.type().Elem, toNhwcShape(S), fb::Layout::NHWC,
                         Buffer::own(permuteToNhwc(T.buffer().bytes(), S,
                                                   ElemSize)));
}

int32_t operandIn(LoweringContext &Ctx, const Value *V, bool Nhwc) {
  if (!Nhwc)
    return Ctx.canonical(V);
  return Ctx.constantOf(V) ? constantInNhwc(Ctx, V) : Ctx.nhwc(V);
}

//===-- Binary ------------------------------------------------------------===//

fb::BinaryOp binaryOpOf(const Node &N) {
  llvm::StringRef Op = N.opName();
  if (Op == "add") return fb::BinaryOp::ADD;
  if (Op == "sub") return fb::BinaryOp::SUB;
  if (Op == "mul") return fb::BinaryOp::MUL;
  if (Op == "div") return fb::BinaryOp::DIV;
  if (Op == "max") return fb::BinaryOp::MAXIMUM;
  if (Op == "min") return fb::BinaryOp::MINIMUM;
  if (Op == "equal") return fb::BinaryOp::EQUAL;
  if (Op == "greater") return fb::BinaryOp::GREATER;
  if (Op == "less") return fb::BinaryOp::LESS;
  return fb::BinaryOp::POW;
}

KilnOpSupport checkBinary(const Node &N) {
  ElementType A = N.operand(0)->type().Elem, B = N.operand(1)->type().Elem;
  if (A != B)
    return notSupported("operands of different types ({0}, {1})",
                        elementTypeName(A), elementTypeName(B));
  bool Integer = A == ElementType::I32 || A == ElementType::I64;
  if (A != ElementType::F32 && !(Integer && !N.isOp("pow")))
    return notSupported("{0} on {1}", N.opName(), elementTypeName(A));
  return supported();
}

llvm::Error lowerBinary(const Node &N, LoweringContext &Ctx) {
  if (isInt8Pattern(N, Ctx.options())) { // qs8 add or mul, in its first operand's layout
    // x * sigmoid(x): one table on x (the sigmoid emitted nothing).
    if (const Node *Sigmoid = siluSigmoidOf(N, Ctx.options())) {
      const Value *X = Sigmoid->operand(0);
      bool XNhwc = Ctx.hasNhwc(X->producer()->operand(0));
      int32_t In = int8Operand(Ctx, X, XNhwc);
      fb::UnaryOptionsT U;
      U.op = fb::UnaryOp::SILU;
      int32_t Out = int8Result(Ctx, N, XNhwc);
      Ctx.addOp(fb::OpKind::UNARY, {In}, {Out}, optionsOf(U),
                fb::Engine::REFERENCE);
      return llvm::Error::success();
    }
    const Value *A0 = N.operand(0)->producer()->operand(0);
    bool Nhwc = N.result()->type().rank() == 4 && Ctx.hasNhwc(A0);
    int32_t A = int8Operand(Ctx, N.operand(0), Nhwc);
    int32_t B = int8Operand(Ctx, N.operand(1), Nhwc);
    OutputActivation Act = N.def().findAttr("activation")
                               ? outputActivation(N)
                               : OutputActivation{-INFINITY, INFINITY, llvm::None};
    fb::BinaryOptionsT O;
    O.op = binaryOpOf(N);
    O.output_min = Act.Min, O.output_max = Act.Max;
    int32_t Out = int8Result(Ctx, N, Nhwc);
    Ctx.addOp(fb::OpKind::BINARY, {A, B}, {Out}, optionsOf(O),
              fb::Engine::XNNPACK);
    return llvm::Error::success();
  }
  bool Nhwc = preferNhwc(N, Ctx);
  int32_t A = operandIn(Ctx, N.operand(0), Nhwc);
  int32_t B = operandIn(Ctx, N.operand(1), Nhwc);
  fb::BinaryOptionsT O;
  O.op = binaryOpOf(N);
  OutputActivation Act = N.def().findAttr("activation")
                             ? outputActivation(N)
                             : OutputActivation{-INFINITY, INFINITY, llvm::None};
  O.output_min = Act.Min, O.output_max = Act.Max;
  bool Float = N.operand(0)->type().Elem == ElementType::F32;
  bool XnnpackHasIt = Float && O.op != fb::BinaryOp::POW &&
                      O.op < fb::BinaryOp::EQUAL;
  fb::Engine E = engineForF32(XnnpackHasIt, N.result()->type().rank());
  emitWithActivation(Ctx, N.result(), Nhwc, Act, [&](int32_t Out) {
    Ctx.addOp(fb::OpKind::BINARY, {A, B}, {Out}, optionsOf(O), E);
  });
  return llvm::Error::success();
}

//===-- Unary -------------------------------------------------------------===//

struct UnaryRule {
  const char *Op;
  fb::UnaryOp Kind;
  bool Xnnpack;
};

const UnaryRule UnaryRules[] = {
    {"relu", fb::UnaryOp::CLAMP, true},
    {"clip", fb::UnaryOp::CLAMP, true},
    {"abs", fb::UnaryOp::ABS, true},
    {"neg", fb::UnaryOp::NEG, true},
    {"floor", fb::UnaryOp::FLOOR, true},
    {"ceil", fb::UnaryOp::CEIL, true},
    {"sqrt", fb::UnaryOp::SQRT, true},
    {"exp", fb::UnaryOp::EXP, false},
    {"log", fb::UnaryOp::LOG, false},
    {"tanh", fb::UnaryOp::TANH, false},
    {"sigmoid", fb::UnaryOp::SIGMOID, true},
    {"erf", fb::UnaryOp::ERF, false},
    {"reciprocal", fb::UnaryOp::RECIPROCAL, false},
    {"sign", fb::UnaryOp::SIGN, false},
    {"leaky_relu", fb::UnaryOp::LEAKY_RELU, true},
    {"elu", fb::UnaryOp::ELU, true},
    {"selu", fb::UnaryOp::SELU, false},
    {"celu", fb::UnaryOp::CELU, false},
    {"hard_sigmoid", fb::UnaryOp::HARD_SIGMOID, false},
    {"hard_swish", fb::UnaryOp::HARD_SWISH, true},
    {"gelu", fb::UnaryOp::GELU, false},
    {"softplus", fb::UnaryOp::SOFTPLUS, false},
    {"mish", fb::UnaryOp::MISH, false},
};

const UnaryRule &unaryRuleOf(const Node &N) {
  for (const UnaryRule &R : UnaryRules)
    if (N.isOp(R.Op))
      return R;
  return UnaryRules[0];
}

KilnOpSupport checkUnary(const Node &N) {
  if (KilnOpSupport S = requireF32(N); !S.Supported)
    return S;
  if (N.isOp("clip"))
    for (unsigned I = 1; I < N.numOperands(); ++I)
      if (N.operand(I) && !constantScalar(N.operand(I)))
        return notSupported("clip bounds must be constant scalars");
  if (N.isOp("celu") && N.getFloat("alpha") == 0)
    return notSupported("celu with alpha 0");
  return supported();
}

/// The CLAMP bounds of relu or clip (bounds from operands override the
/// attributes; a lower bound above the upper one clamps to the upper one,
/// as numpy.clip does).
void clampBounds(const Node &N, fb::UnaryOptionsT &O) {
  if (N.isOp("relu")) {
    O.min = 0;
    return;
  }
  double Lo = N.getFloat("min"), Hi = N.getFloat("max");
  // The checks hold the bounds to constant scalars.
  if (N.numOperands() > 1 && N.operand(1))
    Lo = constantScalar(N.operand(1)).getValueOr(Lo);
  if (N.numOperands() > 2 && N.operand(2))
    Hi = constantScalar(N.operand(2)).getValueOr(Hi);
  if (Lo > Hi)
    Lo = Hi;
  O.min = float(Lo), O.max = float(Hi);
}

llvm::Error lowerUnary(const Node &N, LoweringContext &Ctx) {
  const UnaryRule &R = unaryRuleOf(N);
  fb::UnaryOptionsT O;
  O.op = R.Kind;
  if (R.Kind == fb::UnaryOp::CLAMP)
    clampBounds(N, O);
  if (const AttrSpec *A = N.def().findAttr("alpha"); A && A->Kind == AttrKind::Float)
    O.alpha = float(N.getFloat("alpha"));
  if (N.def().findAttr("beta"))
    O.beta = float(N.getFloat("beta"));
  if (N.def().findAttr("gamma"))
    O.gamma = float(N.getFloat("gamma"));
  if (N.isOp("gelu") && N.getString("approximate") == "tanh")
    O.op = fb::UnaryOp::GELU_TANH;
  if (isAbsorbedSigmoid(N, Ctx.options())) // part of its mul's SiLU table
    return llvm::Error::success();
  if (isInt8Pattern(N, Ctx.options())) { // an I8 UNARY: the runtime's table of the op
    bool Nhwc = Ctx.hasNhwc(N.operand(0)->producer()->operand(0));
    int32_t In = int8Operand(Ctx, N.operand(0), Nhwc);
    int32_t Out = int8Result(Ctx, N, Nhwc);
    Ctx.addOp(fb::OpKind::UNARY, {In}, {Out}, optionsOf(O),
              fb::Engine::REFERENCE);
    return llvm::Error::success();
  }
  const Value *X = N.operand(0);
  bool Nhwc = Ctx.hasNhwc(X);
  int32_t In = Nhwc ? Ctx.nhwc(X) : Ctx.canonical(X);
  int32_t Out = Ctx.resultTensor(N.result(), Nhwc);
  // GELU: XNNPACK has none, oneDNN's eltwise does where the runtime has
  // oneDNN (x86), so the runtime picks (the reference kernel elsewhere).
  bool Gelu = O.op == fb::UnaryOp::GELU || O.op == fb::UnaryOp::GELU_TANH;
  Ctx.addOp(fb::OpKind::UNARY, {In}, {Out}, optionsOf(O),
            Gelu ? fb::Engine::ANY : engineForF32(R.Xnnpack, 0));
  Ctx.define(N.result(), Out, Nhwc);
  return llvm::Error::success();
}

KilnOpSupport checkWhere(const Node &N) {
  if (N.operand(0)->type().Elem != ElementType::Bool)
    return notSupported("the condition must be bool");
  if (N.operand(1)->type().Elem != N.operand(2)->type().Elem)
    return notSupported("branches of different types");
  return supported();
}

llvm::Error lowerWhere(const Node &N, LoweringContext &Ctx) {
  std::vector<int32_t> In;
  for (const Value *V : N.operands())
    In.push_back(Ctx.canonical(V));
  int32_t Out = Ctx.resultTensor(N.result(), false);
  Ctx.addOp(fb::OpKind::SELECT, In, {Out}, optionsOf(fb::SelectOptionsT()),
            fb::Engine::REFERENCE);
  Ctx.define(N.result(), Out, false);
  return llvm::Error::success();
}

/// cast: elementwise, so it keeps its input's layout.
llvm::Error lowerCast(const Node &N, LoweringContext &Ctx) {
  const Value *X = N.operand(0);
  bool Nhwc = Ctx.hasNhwc(X);
  int32_t In = Nhwc ? Ctx.nhwc(X) : Ctx.canonical(X);
  int32_t Out = Ctx.resultTensor(N.result(), Nhwc);
  Ctx.addOp(fb::OpKind::CAST, {In}, {Out}, optionsOf(fb::CastOptionsT()),
            fb::Engine::REFERENCE);
  Ctx.define(N.result(), Out, Nhwc);
  return llvm::Error::success();
}

KilnOpSupport checkCast(const Node &) { return supported(); }

/// identity and inference dropout: the result is the operand's tensor.
KilnOpSupport checkIdentity(const Node &N) {
  if (N.numResults() != 1)
    return notSupported("dropout with a mask result");
  if (N.isOp("dropout") && N.numOperands() > 2 && N.operand(2)) {
    llvm::Optional<double> Training = constantScalar(N.operand(2));
    if (!Training || *Training != 0)
      return notSupported("training-mode dropout");
  }
  return supported();
}

llvm::Error lowerIdentity(const Node &N, LoweringContext &Ctx) {
  const Value *X = N.operand(0);
  if (Ctx.hasNhwc(X))
    Ctx.define(N.result(), Ctx.nhwc(X), true);
  if (Ctx.hasCanonical(X) || Ctx.constantOf(X) || !Ctx.hasNhwc(X))
    Ctx.define(N.result(), Ctx.canonical(X), false);
  return llvm::Error::success();
}

//===-- PReLU, softmax, batch_norm ----------------------------------------===//

/// The axis along which a prelu slope varies (-1: a single value), or -2 when
/// it varies along several.
int64_t slopeAxis(const Node &N) {
  std::vector<int64_t> X = sizesOf(N.operand(0)), S = sizesOf(N.operand(1));
  int64_t Axis = -1, Offset = int64_t(X.size()) - int64_t(S.size());
  for (int64_t I = 0; I < int64_t(S.size()); ++I)
    if (S[size_t(I)] != 1) {
      if (Axis != -1)
        return -2;
      Axis = I + Offset;
    }
  return Axis;
}

KilnOpSupport checkPRelu(const Node &N) {
  if (KilnOpSupport S = requireF32(N); !S.Supported)
    return S;
  if (KilnOpSupport S = requireConstant(N, 1, "slope"); !S.Supported)
    return S;
  int64_t Axis = slopeAxis(N), Rank = N.operand(0)->type().rank();
  if (Rank < 1 || N.operand(1)->type().rank() > Rank)
    return notSupported("slope does not broadcast to the input");
  if (Axis == -2 || (Axis >= 0 && Axis != Rank - 1 && !(Rank == 4 && Axis == 1)))
    return notSupported("slope must be per channel or along the last axis");
  return supported();
}

llvm::Error lowerPRelu(const Node &N, LoweringContext &Ctx) {
  const Value *X = N.operand(0);
  int64_t Axis = slopeAxis(N), Rank = X->type().rank();
  bool Nhwc = Rank == 4 && (Axis == 1 || (Axis == -1 && Ctx.hasNhwc(X)));
  std::vector<int64_t> Sizes = sizesOf(X);
  int64_t Channels = Nhwc ? Sizes[1] : Sizes.back();
  std::vector<float> Slope = floatsOf(*Ctx.constantOf(N.operand(1)));
  if (Slope.size() == 1)
    Slope.assign(size_t(Channels), Slope[0]);
  std::string Name = N.operand(1)->name().empty() ? "slope" : N.operand(1)->name();
  int32_t S = Ctx.addFloatConstant(Name + ".c", {Channels}, fb::Layout::PLAIN,
                                   Slope);
  int32_t In = Nhwc ? Ctx.nhwc(X) : Ctx.canonical(X);
  int32_t Out = Ctx.resultTensor(N.result(), Nhwc);
  Ctx.addOp(fb::OpKind::PRELU, {In, S}, {Out}, fb::OpOptionsUnion(),
            fb::Engine::XNNPACK);
  Ctx.define(N.result(), Out, Nhwc);
  return llvm::Error::success();
}

KilnOpSupport checkSoftmax(const Node &N) { return requireF32(N); }

llvm::Error lowerSoftmax(const Node &N, LoweringContext &Ctx) {
  const Value *X = N.operand(0);
  int64_t Rank = X->type().rank();
  int64_t Axis = N.getInt("axis");
  if (Axis < 0)
    Axis += Rank;
  bool Nhwc = Rank == 4 && Ctx.hasNhwc(X);
  if (Nhwc)
    Axis = std::array<int64_t, 4>{0, 3, 1, 2}[size_t(Axis)];
  fb::SoftmaxOptionsT O;
  O.axis = int32_t(Axis);
  O.log = N.isOp("log_softmax");
  int32_t In = Nhwc ? Ctx.nhwc(X) : Ctx.canonical(X);
  int32_t Out = Ctx.resultTensor(N.result(), Nhwc);
  // XNNPACK runs a plain softmax over the last axis; any other (and
  // log-softmax) is oneDNN's on x86 and Eigen's on ARM (ANY).
  bool Xnnpack = !O.log && Axis == Rank - 1 && Rank <= 6;
  Ctx.addOp(fb::OpKind::SOFTMAX, {In}, {Out}, optionsOf(O),
            Xnnpack ? fb::Engine::XNNPACK : fb::Engine::ANY);
  Ctx.define(N.result(), Out, Nhwc);
  return llvm::Error::success();
}

KilnOpSupport checkBatchNorm(const Node &N) {
  if (N.numResults() != 1 || N.getInt("training"))
    return notSupported("training-mode batch_norm");
  if (N.operand(0)->type().rank() < 2)
    return notSupported("batch_norm input must have rank >= 2");
  if (KilnOpSupport S = requireF32(N); !S.Supported)
    return S;
  for (unsigned I = 1; I < 5; ++I)
    if (KilnOpSupport S = requireConstant(N, I, "batch_norm parameter");
        !S.Supported)
      return S;
  return supported();
}

llvm::Error lowerBatchNorm(const Node &N, LoweringContext &Ctx) {
  const Value *X = N.operand(0);
  std::vector<float> Gamma = floatsOf(*Ctx.constantOf(N.operand(1))),
                     Beta = floatsOf(*Ctx.constantOf(N.operand(2))),
                     Mean = floatsOf(*Ctx.constantOf(N.operand(3))),
                     Var = floatsOf(*Ctx.constantOf(N.operand(4)));
  double Eps = N.getFloat("epsilon");
  size_t C = Gamma.size();
  std::vector<float> Scale(C), Shift(C);
  for (size_t I = 0; I < C; ++I) {
    double S = double(Gamma[I]) / std::sqrt(double(Var[I]) + Eps);
    Scale[I] = float(S);
    Shift[I] = float(double(Beta[I]) - double(Mean[I]) * S);
  }
  int64_t Rank = X->type().rank();
  bool Nhwc = Rank == 4 && Ctx.hasNhwc(X);
  std::vector<int64_t> Shape(size_t(Rank), 1);
  Shape[Nhwc ? 3 : 1] = int64_t(C);
  fb::Layout L = Nhwc ? fb::Layout::NHWC : canonicalLayout(size_t(Rank));
  std::string Base = N.displayName();
  int32_t ScaleT = Ctx.addFloatConstant(Base + ".scale", Shape, L, Scale);
  int32_t ShiftT = Ctx.addFloatConstant(Base + ".shift", Shape, L, Shift);
  int32_t In = Nhwc ? Ctx.nhwc(X) : Ctx.canonical(X);
  const fb::TensorT &InT = Ctx.tensor(In);
  int32_t Scaled = Ctx.addTensor(InT.name + ".scaled", ElementType::F32,
                                 InT.shape, InT.layout);
  fb::Engine E = engineForF32(true, Rank);
  fb::BinaryOptionsT Mul;
  Mul.op = fb::BinaryOp::MUL;
  Ctx.addOp(fb::OpKind::BINARY, {In, ScaleT}, {Scaled}, optionsOf(Mul), E);
  int32_t Out = Ctx.resultTensor(N.result(), Nhwc);
  fb::BinaryOptionsT Add;
  Add.op = fb::BinaryOp::ADD;
  Ctx.addOp(fb::OpKind::BINARY, {Scaled, ShiftT}, {Out}, optionsOf(Add), E);
  Ctx.define(N.result(), Out, Nhwc);
  return llvm::Error::success();
}

const CpuOpRule Rules[] = {
    {"add", checkBinary, lowerBinary},
    {"sub", checkBinary, lowerBinary},
    {"mul", checkBinary, lowerBinary},
    {"div", checkBinary, lowerBinary},
    {"max", checkBinary, lowerBinary},
    {"min", checkBinary, lowerBinary},
    {"pow", checkBinary, lowerBinary},
    {"equal", checkBinary, lowerBinary},
    {"greater", checkBinary, lowerBinary},
    {"less", checkBinary, lowerBinary},
    {"where", checkWhere, lowerWhere},
    {"cast", checkCast, lowerCast},
    {"relu", checkUnary, lowerUnary},
    {"clip", checkUnary, lowerUnary},
    {"abs", checkUnary, lowerUnary},
    {"neg", checkUnary, lowerUnary},
    {"floor", checkUnary, lowerUnary},
    {"ceil", checkUnary, lowerUnary},
    {"sqrt", checkUnary, lowerUnary},
    {"exp", checkUnary, lowerUnary},
    {"log", checkUnary, lowerUnary},
    {"tanh", checkUnary, lowerUnary},
    {"sigmoid", checkUnary, lowerUnary},
    {"erf", checkUnary, lowerUnary},
    {"reciprocal", checkUnary, lowerUnary},
    {"sign", checkUnary, lowerUnary},
    {"leaky_relu", checkUnary, lowerUnary},
    {"elu", checkUnary, lowerUnary},
    {"selu", checkUnary, lowerUnary},
    {"celu", checkUnary, lowerUnary},
    {"hard_sigmoid", checkUnary, lowerUnary},
    {"hard_swish", checkUnary, lowerUnary},
    {"gelu", checkUnary, lowerUnary},
    {"softplus", checkUnary, lowerUnary},
    {"mish", checkUnary, lowerUnary},
    {"identity", checkIdentity, lowerIdentity},
    {"dropout", checkIdentity, lowerIdentity},
    {"prelu", checkPRelu, lowerPRelu},
    {"softmax", checkSoftmax, lowerSoftmax},
    {"log_softmax", checkSoftmax, lowerSoftmax},
    {"batch_norm", checkBatchNorm, lowerBatchNorm},
};

} // namespace

llvm::ArrayRef<CpuOpRule> elementwiseRules() { return Rules; }

} // namespace kiln
