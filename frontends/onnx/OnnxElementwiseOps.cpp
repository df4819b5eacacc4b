// ONNX elementwise ops -> canonical IR: activations, arithmetic, comparisons
// and logic, variadic Sum/Mean/Max/Min (as binary chains; Mean divides by the
// count), Clip (constant bounds become attributes, dynamic ones operands),
// Cast and CastLike. Ops without a canonical twin are written with the ones
// that exist (LessOrEqual = where(less, true, equal), Not = where(x, F, T)).
#include "frontends/onnx/OnnxNodeImporter.h"
#include "frontends/onnx/OnnxTensors.h"

#include "IR/ShapeInference.h"

#include <limits>

namespace kiln::onnx_import {

namespace {

using Expected = llvm::Expected<Value *>;

llvm::Error bindOr(NodeImporter &N, Expected V) {
  if (!V)
    return V.takeError();
  N.bind(0, *V);
  return N.takeError();
}

/// One operand, one result, attributes given by the caller.
llvm::Error unaryAs(NodeImporter &N, llvm::StringRef Op, AttrMap Attrs = {}) {
  auto X = N.required(0);
  if (!X)
    return X.takeError();
  return bindOr(N, N.emit(Op, {*X}, std::move(Attrs)));
}

template <const char *Op> llvm::Error unary(NodeImporter &N) {
  return unaryAs(N, Op);
}

llvm::Error binaryAs(NodeImporter &N, llvm::StringRef Op) {
  auto A = N.required(0), B = N.required(1);
  if (!A)
    return A.takeError();
  if (!B)
    return B.takeError();
  return bindOr(N, N.emit(Op, {*A, *B}));
}

template <const char *Op> llvm::Error binary(NodeImporter &N) {
  return binaryAs(N, Op);
}

constexpr char Relu[] = "relu", Sigmoid[] = "sigmoid", Tanh[] = "tanh",
               Exp[] = "exp", Log[] = "log", Sqrt[] = "sqrt", Neg[] = "neg",
               Abs[] = "abs", Floor[] = "floor", Ceil[] = "ceil",
               Reciprocal[] = "reciprocal", Erf[] = "erf",
               Softplus[] = "softplus", Mish[] = "mish",
               HardSwish[] = "hard_swish", Identity[] = "identity",
               Sign[] = "sign", Add[] = "add", Sub[] = "sub", Mul[] = "mul",
               Div[] = "div", Pow[] = "pow", Equal[] = "equal",
               Less[] = "less", Greater[] = "greater", PRelu[] = "prelu";

llvm::Error convertLeakyRelu(NodeImporter &N) {
  return unaryAs(N, "leaky_relu", {{"alpha", N.attrFloat("alpha", 0.01)}});
}
llvm::Error convertElu(NodeImporter &N) {
  return unaryAs(N, "elu", {{"alpha", N.attrFloat("alpha", 1.0)}});
}
llvm::Error convertCelu(NodeImporter &N) {
  return unaryAs(N, "celu", {{"alpha", N.attrFloat("alpha", 1.0)}});
}
llvm::Error convertSelu(NodeImporter &N) {
  return unaryAs(N, "selu",
                 {{"alpha", N.attrFloat("alpha", 1.67326319217681884765625)},
                  {"gamma", N.attrFloat("gamma", 1.05070102214813232421875)}});
}
llvm::Error convertHardSigmoid(NodeImporter &N) {
  return unaryAs(N, "hard_sigmoid", {{"alpha", N.attrFloat("alpha", 0.2)},
                                     {"beta", N.attrFloat("beta", 0.5)}});
}
llvm::Error convertGelu(NodeImporter &N) {
  return unaryAs(N, "gelu",
                 {{"approximate", N.attrString("approximate", "none")}});
}

/// Softsign: x / (1 + |x|).
llvm::Error convertSoftsign(NodeImporter &N) {
  auto X = N.required(0);
  if (!X)
    return X.takeError();
  auto A = N.emit("abs", {*X});
  if (!A)
    return A.takeError();
  auto P = N.emit("add", {*A, N.constScalar((*X)->type().Elem, 1.0)});
  if (!P)
    return P.takeError();
  return bindOr(N, N.emit("div", {*X, *P}));
}

/// ThresholdedRelu: x if x > alpha else 0.
llvm::Error convertThresholdedRelu(NodeImporter &N) {
  auto X = N.required(0);
  if (!X)
    return X.takeError();
  ElementType E = (*X)->type().Elem;
  auto C = N.emit("greater", {*X, N.constScalar(E, N.attrFloat("alpha", 1.0))});
  if (!C)
    return C.takeError();
  return bindOr(N, N.emit("where", {*C, *X, N.constScalar(E, 0)}));
}

/// Clip-6..10 keeps its bounds in attributes; Clip-11+ takes optional
/// operands. Constant bounds become the canonical attributes.
llvm::Error convertClip(NodeImporter &N) {
  auto X = N.required(0);
  if (!X)
    return X.takeError();
  const double Lowest = -double(std::numeric_limits<float>::max());
  if (N.opset() < 11)
    return unaryAs(N, "clip",
                   {{"min", N.attrFloat("min", Lowest)},
                    {"max", N.attrFloat("max", -Lowest)}});
  Value *Min = N.input(1), *Max = N.input(2);
  auto MinC = Min ? constantFloats(Min) : llvm::None;
  auto MaxC = Max ? constantFloats(Max) : llvm::None;
  if ((!Min || (MinC && MinC->size() == 1)) &&
      (!Max || (MaxC && MaxC->size() == 1))) {
    AttrMap Attrs;
    if (Min)
      Attrs["min"] = (*MinC)[0];
    if (Max)
      Attrs["max"] = (*MaxC)[0];
    return unaryAs(N, "clip", std::move(Attrs));
  }
  return bindOr(N, N.emit("clip", {*X, Min, Max}));
}

/// Sum/Max/Min: a left-to-right chain of the binary op; Mean also divides by
/// the operand count.
llvm::Error variadic(NodeImporter &N, llvm::StringRef Op, bool IsMean) {
  if (N.numInputs() == 0)
    return N.fail("needs at least one input");
  auto Acc = N.required(0);
  if (!Acc)
    return Acc.takeError();
  Value *V = *Acc;
  for (unsigned I = 1; I < N.numInputs(); ++I) {
    auto B = N.required(I);
    if (!B)
      return B.takeError();
    auto R = N.emit(Op, {V, *B});
    if (!R)
      return R.takeError();
    V = *R;
  }
  if (IsMean && N.numInputs() > 1) {
    auto R = N.emit("div", {V, N.constScalar(V->type().Elem,
                                             double(N.numInputs()))});
    if (!R)
      return R.takeError();
    V = *R;
  } else if (N.numInputs() == 1) {
    auto R = N.emit("identity", {V});
    if (!R)
      return R.takeError();
    V = *R;
  }
  N.bind(0, V);
  return N.takeError();
}

llvm::Error convertSum(NodeImporter &N) { return variadic(N, "add", false); }
llvm::Error convertMean(NodeImporter &N) { return variadic(N, "add", true); }
llvm::Error convertMax(NodeImporter &N) { return variadic(N, "max", false); }
llvm::Error convertMin(NodeImporter &N) { return variadic(N, "min", false); }

llvm::Error castTo(NodeImporter &N, ElementType To) {
  return unaryAs(N, "cast", {{"to", elementTypeName(To).str()}});
}

llvm::Error convertCast(NodeImporter &N) {
  int64_t To = N.attrInt("to", 0);
  auto E = elementTypeFromOnnx(int32_t(To));
  if (!E)
    return N.fail("cast to {0} is not supported", onnxTypeName(int32_t(To)));
  return castTo(N, *E);
}

llvm::Error convertCastLike(NodeImporter &N) {
  auto Like = N.required(1);
  if (!Like)
    return Like.takeError();
  return castTo(N, (*Like)->type().Elem);
}

llvm::Error convertWhere(NodeImporter &N) {
  auto C = N.required(0), A = N.required(1), B = N.required(2);
  if (!C) return C.takeError();
  if (!A) return A.takeError();
  if (!B) return B.takeError();
  return bindOr(N, N.emit("where", {*C, *A, *B}));
}

/// a <= b as where(a < b, true, a == b) (false for NaN, as ONNX says).
llvm::Error orEqual(NodeImporter &N, llvm::StringRef Strict) {
  auto A = N.required(0), B = N.required(1);
  if (!A) return A.takeError();
  if (!B) return B.takeError();
  auto S = N.emit(Strict, {*A, *B});
  if (!S) return S.takeError();
  auto E = N.emit("equal", {*A, *B});
  if (!E) return E.takeError();
  return bindOr(N, N.emit("where", {*S, N.constScalar(ElementType::Bool, 1), *E}));
}
llvm::Error convertLessOrEqual(NodeImporter &N) { return orEqual(N, "less"); }
llvm::Error convertGreaterOrEqual(NodeImporter &N) {
  return orEqual(N, "greater");
}

llvm::Error convertNot(NodeImporter &N) {
  auto X = N.required(0);
  if (!X) return X.takeError();
  return bindOr(N, N.emit("where", {*X, N.constScalar(ElementType::Bool, 0),
                                    N.constScalar(ElementType::Bool, 1)}));
}

/// And = where(a, b, F); Or = where(a, T, b); Xor = where(a == b, F, T).
llvm::Error logic(NodeImporter &N, char Kind) {
  auto A = N.required(0), B = N.required(1);
  if (!A) return A.takeError();
  if (!B) return B.takeError();
  Value *T = N.constScalar(ElementType::Bool, 1);
  Value *F = N.constScalar(ElementType::Bool, 0);
  if (Kind == '&')
    return bindOr(N, N.emit("where", {*A, *B, F}));
  if (Kind == '|')
    return bindOr(N, N.emit("where", {*A, T, *B}));
  auto E = N.emit("equal", {*A, *B});
  if (!E) return E.takeError();
  return bindOr(N, N.emit("where", {*E, F, T}));
}
/// Mod: fmod = 0 (the default) takes the divisor's sign, and is only
/// defined for integers; fmod = 1 is C's fmod.
llvm::Error convertMod(NodeImporter &N) {
  auto A = N.required(0), B = N.required(1);
  if (!A)
    return A.takeError();
  if (!B)
    return B.takeError();
  int64_t Fmod = N.attrInt("fmod", 0);
  if (Fmod != 0 && Fmod != 1)
    return N.fail("fmod must be 0 or 1, got {0}", Fmod);
  if (!Fmod && !isIntegerType((*A)->type().Elem))
    return N.fail("fmod = 0 needs integer operands (ONNX); use fmod = 1 for "
                  "floating point");
  return bindOr(N, N.emit("mod", {*A, *B}, {{"fmod", Fmod}}));
}
llvm::Error convertAnd(NodeImporter &N) { return logic(N, '&'); }
llvm::Error convertOr(NodeImporter &N) { return logic(N, '|'); }
llvm::Error convertXor(NodeImporter &N) { return logic(N, '^'); }

const OpConverter Converters[] = {
    {"Relu", unary<Relu>, 1},
    {"Sigmoid", unary<Sigmoid>, 1},
    {"Tanh", unary<Tanh>, 1},
    {"Exp", unary<Exp>, 1},
    {"Log", unary<Log>, 1},
    {"Sqrt", unary<Sqrt>, 1},
    {"Neg", unary<Neg>, 1},
    {"Abs", unary<Abs>, 1},
    {"Floor", unary<Floor>, 1},
    {"Ceil", unary<Ceil>, 1},
    {"Reciprocal", unary<Reciprocal>, 1},
    {"Erf", unary<Erf>, 1},
    {"Softplus", unary<Softplus>, 1},
    {"Softsign", convertSoftsign, 1},
    {"Mish", unary<Mish>, 1},
    {"HardSwish", unary<HardSwish>, 1},
    {"Identity", unary<Identity>, 1},
    {"Sign", unary<Sign>, 1},
    {"LeakyRelu", convertLeakyRelu, 1},
    {"Elu", convertElu, 1},
    {"Celu", convertCelu, 1},
    {"Selu", convertSelu, 1},
    {"HardSigmoid", convertHardSigmoid, 1},
    {"ThresholdedRelu", convertThresholdedRelu, 1},
    {"Gelu", convertGelu, 1},
    {"Clip", convertClip, 6},
    {"PRelu", binary<PRelu>, 7},
    {"Add", binary<Add>, 7},
    {"Sub", binary<Sub>, 7},
    {"Mul", binary<Mul>, 7},
    {"Div", binary<Div>, 7},
    {"Pow", binary<Pow>, 7},
    {"Mod", convertMod, 10},
    {"Equal", binary<Equal>, 7},
    {"Less", binary<Less>, 7},
    {"Greater", binary<Greater>, 7},
    {"LessOrEqual", convertLessOrEqual, 7},
    {"GreaterOrEqual", convertGreaterOrEqual, 7},
    {"Not", convertNot, 1},
    {"And", convertAnd, 7},
    {"Or", convertOr, 7},
    {"Xor", convertXor, 7},
    {"Where", convertWhere, 9},
    {"Sum", convertSum, 8},
    {"Mean", convertMean, 8},
    {"Max", convertMax, 8},
    {"Min", convertMin, 8},
    {"Cast", convertCast, 6},
    {"CastLike", convertCastLike, 15},
};

} // namespace

llvm::ArrayRef<OpConverter> elementwiseConverters() { return Converters; }

} // namespace kiln::onnx_import
