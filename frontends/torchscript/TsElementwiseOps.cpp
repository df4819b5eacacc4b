// aten elementwise ops -> canonical IR: activations (relu6/hardtanh/clamp as
// clip, silu as x*sigmoid(x), PyTorch's hardsigmoid as hard_sigmoid with
// alpha 1/6), unary math, and the binary ops with PyTorch's scalar operands
// and `alpha` multipliers. In-place forms (relu_, add_) reuse these; the
// importer rebinds the mutated operand.
#include "frontends/torchscript/TsConverter.h"

#include <limits>

namespace kiln::ts_import {

namespace {

llvm::Error unary(NodeConverter &C, const char *Op, AttrMap A = {}) {
  return finish(C, C.emit(Op, {C.tensor(0)}, std::move(A)));
}

llvm::Error convertRelu(NodeConverter &C) { return unary(C, "relu"); }
llvm::Error convertSigmoid(NodeConverter &C) { return unary(C, "sigmoid"); }
llvm::Error convertTanh(NodeConverter &C) { return unary(C, "tanh"); }
llvm::Error convertHardswish(NodeConverter &C) { return unary(C, "hard_swish"); }
llvm::Error convertExp(NodeConverter &C) { return unary(C, "exp"); }
llvm::Error convertLog(NodeConverter &C) { return unary(C, "log"); }
llvm::Error convertSqrt(NodeConverter &C) { return unary(C, "sqrt"); }
llvm::Error convertNeg(NodeConverter &C) { return unary(C, "neg"); }
llvm::Error convertAbs(NodeConverter &C) { return unary(C, "abs"); }
llvm::Error convertErf(NodeConverter &C) { return unary(C, "erf"); }
llvm::Error convertReciprocal(NodeConverter &C) { return unary(C, "reciprocal"); }

// relu6(x) = hardtanh(x, 0, 6)
llvm::Error convertRelu6(NodeConverter &C) {
  return unary(C, "clip", {{"min", 0.0}, {"max", 6.0}});
}

// aten::hardtanh(input, min_val, max_val)
llvm::Error convertHardtanh(NodeConverter &C) {
  return unary(C, "clip", {{"min", C.getDouble(1)}, {"max", C.getDouble(2)}});
}

// aten::clamp(input, min?, max?) and clamp_min / clamp_max.
llvm::Error convertClamp(NodeConverter &C) {
  AttrMap A;
  if (auto Lo = C.getOptionalDouble(1))
    A["min"] = *Lo;
  if (C.numInputs() > 2)
    if (auto Hi = C.getOptionalDouble(2))
      A["max"] = *Hi;
  return unary(C, "clip", std::move(A));
}
llvm::Error convertClampMin(NodeConverter &C) {
  return unary(C, "clip", {{"min", C.getDouble(1)}});
}
llvm::Error convertClampMax(NodeConverter &C) {
  return unary(C, "clip", {{"max", C.getDouble(1)}});
}

// PyTorch: hardsigmoid(x) = relu6(x + 3) / 6
llvm::Error convertHardsigmoid(NodeConverter &C) {
  return unary(C, "hard_sigmoid", {{"alpha", 1.0 / 6.0}, {"beta", 0.5}});
}

// aten::leaky_relu(input, negative_slope)
llvm::Error convertLeakyRelu(NodeConverter &C) {
  return unary(C, "leaky_relu", {{"alpha", C.getDouble(1)}});
}

// aten::elu(input, alpha, scale, input_scale)
llvm::Error convertElu(NodeConverter &C) {
  if (C.getDouble(2) != 1.0 || C.getDouble(3) != 1.0)
    return C.fail("elu with scale or input_scale other than 1 is not supported");
  return unary(C, "elu", {{"alpha", C.getDouble(1)}});
}

// aten::gelu(input, approximate="none"|"tanh")
llvm::Error convertGelu(NodeConverter &C) {
  std::string Approx = C.numInputs() > 1 ? C.getString(1) : "none";
  return unary(C, "gelu", {{"approximate", Approx}});
}

// silu(x) = x * sigmoid(x)
llvm::Error convertSilu(NodeConverter &C) {
  Value *X = C.tensor(0);
  auto S = C.emit("sigmoid", {X});
  if (!S)
    return S.takeError();
  return finish(C, C.emit("mul", {X, *S}));
}

// rsqrt(x) = 1 / sqrt(x)
llvm::Error convertRsqrt(NodeConverter &C) {
  auto S = C.emit("sqrt", {C.tensor(0)});
  if (!S)
    return S.takeError();
  return finish(C, C.emit("reciprocal", {*S}));
}

/// The tensor among two operands (the other may be a Python number); the
/// scalar side takes its element type.
std::pair<Value *, Value *> binaryOperands(NodeConverter &C) {
  const Value *Like = nullptr;
  if (C.in(0).isTensor())
    Like = C.in(0).T;
  else if (C.in(1).isTensor())
    Like = C.in(1).T;
  return {C.scalarOrTensor(0, Like), C.scalarOrTensor(1, Like)};
}

/// aten::add/sub(self, other, alpha): self +- alpha * other.
llvm::Error convertAddSub(NodeConverter &C, const char *Op) {
  auto [A, B] = binaryOperands(C);
  if (!A || !B)
    return C.takeError();
  double Alpha = C.numInputs() > 2 ? C.getDouble(2) : 1.0;
  if (Alpha != 1.0) {
    auto Scaled = C.emit("mul", {B, C.constScalar(B->type().Elem, Alpha)});
    if (!Scaled)
      return Scaled.takeError();
    B = *Scaled;
  }
  return finish(C, C.emit(Op, {A, B}));
}
llvm::Error convertAdd(NodeConverter &C) { return convertAddSub(C, "add"); }
llvm::Error convertSub(NodeConverter &C) { return convertAddSub(C, "sub"); }

// aten::rsub(self, other, alpha) = other - alpha * self
llvm::Error convertRsub(NodeConverter &C) {
  auto [A, B] = binaryOperands(C);
  if (!A || !B)
    return C.takeError();
  double Alpha = C.numInputs() > 2 ? C.getDouble(2) : 1.0;
  if (Alpha != 1.0) {
    auto Scaled = C.emit("mul", {A, C.constScalar(A->type().Elem, Alpha)});
    if (!Scaled)
      return Scaled.takeError();
    A = *Scaled;
  }
  return finish(C, C.emit("sub", {B, A}));
}

llvm::Error convertMul(NodeConverter &C) {
  auto [A, B] = binaryOperands(C);
  return finish(C, C.emit("mul", {A, B}));
}

llvm::Expected<Value *> floorDivide(NodeConverter &C, Value *A, Value *B);

// aten::div(self, other, rounding_mode=None): true division; 'floor' is
// floor_divide, 'trunc' of integers the IR's integer division.
llvm::Error convertDiv(NodeConverter &C) {
  auto [A, B] = binaryOperands(C);
  if (C.numInputs() > 2 && !C.isNone(2)) {
    std::string Mode = C.getString(2);
    if (!A || !B)
      return C.takeError();
    if (Mode == "floor")
      return finish(C, floorDivide(C, A, B));
    if (Mode == "trunc" && isIntegerType(A->type().Elem))
      return finish(C, C.emit("div", {A, B}));
    return C.fail("div with rounding_mode='{0}' is not supported for {1}",
                  Mode, toString(A->type()));
  }
  if (A && isIntegerType(A->type().Elem))
    return C.fail("true division of integer tensors is not supported");
  return finish(C, C.emit("div", {A, B}));
}

llvm::Error convertPow(NodeConverter &C) {
  auto [A, B] = binaryOperands(C);
  return finish(C, C.emit("pow", {A, B}));
}

llvm::Error convertMaximum(NodeConverter &C) {
  auto [A, B] = binaryOperands(C);
  return finish(C, C.emit("max", {A, B}));
}
llvm::Error convertMinimum(NodeConverter &C) {
  auto [A, B] = binaryOperands(C);
  return finish(C, C.emit("min", {A, B}));
}

/// Python's floor division: floor(a / b) for floats; for integers
/// (a - a mod b) / b, which divides exactly, with the floored mod.
llvm::Expected<Value *> floorDivide(NodeConverter &C, Value *A, Value *B) {
  if (!isIntegerType(A->type().Elem)) {
    auto Q = C.emit("div", {A, B});
    if (!Q)
      return Q.takeError();
    return C.emit("floor", {*Q});
  }
  auto R = C.emit("mod", {A, B}, {{"fmod", int64_t(0)}});
  if (!R)
    return R.takeError();
  auto Exact = C.emit("sub", {A, *R});
  if (!Exact)
    return Exact.takeError();
  return C.emit("div", {*Exact, B});
}

// aten::floor_divide(self, other): floors (PyTorch 1.13 and later).
llvm::Error convertFloorDivide(NodeConverter &C) {
  auto [A, B] = binaryOperands(C);
  if (!A || !B)
    return C.takeError();
  return finish(C, floorDivide(C, A, B));
}

// aten::remainder (Python's %, the divisor's sign) and aten::fmod (C's).
llvm::Error convertRemainder(NodeConverter &C) {
  auto [A, B] = binaryOperands(C);
  return finish(C, C.emit("mod", {A, B}, {{"fmod", int64_t(0)}}));
}
llvm::Error convertFmod(NodeConverter &C) {
  auto [A, B] = binaryOperands(C);
  return finish(C, C.emit("mod", {A, B}, {{"fmod", int64_t(1)}}));
}

/// Comparisons to a bool tensor; ne is equal compared with false.
llvm::Error convertCompare(NodeConverter &C, const char *Op, bool Negate) {
  auto [A, B] = binaryOperands(C);
  if (!A || !B)
    return C.takeError();
  auto R = C.emit(Op, {A, B});
  if (!R || !Negate)
    return finish(C, std::move(R));
  return finish(C, C.emit("equal", {*R, C.constScalar(ElementType::Bool, 0)}));
}
llvm::Error convertEq(NodeConverter &C) { return convertCompare(C, "equal", false); }
llvm::Error convertNe(NodeConverter &C) { return convertCompare(C, "equal", true); }
llvm::Error convertLt(NodeConverter &C) { return convertCompare(C, "less", false); }
llvm::Error convertGt(NodeConverter &C) { return convertCompare(C, "greater", false); }
llvm::Error convertLe(NodeConverter &C) { return convertCompare(C, "greater", true); }
llvm::Error convertGe(NodeConverter &C) { return convertCompare(C, "less", true); }

const OpConverter Table[] = {
    {"aten::relu", convertRelu},
    {"aten::relu6", convertRelu6},
    {"aten::hardtanh", convertHardtanh},
    {"aten::clamp", convertClamp},
    {"aten::clamp_min", convertClampMin},
    {"aten::clamp_max", convertClampMax},
    {"aten::hardswish", convertHardswish},
    {"aten::hardsigmoid", convertHardsigmoid},
    {"aten::silu", convertSilu},
    {"aten::sigmoid", convertSigmoid},
    {"aten::tanh", convertTanh},
    {"aten::gelu", convertGelu},
    {"aten::leaky_relu", convertLeakyRelu},
    {"aten::elu", convertElu},
    {"aten::exp", convertExp},
    {"aten::log", convertLog},
    {"aten::sqrt", convertSqrt},
    {"aten::rsqrt", convertRsqrt},
    {"aten::neg", convertNeg},
    {"aten::abs", convertAbs},
    {"aten::erf", convertErf},
    {"aten::reciprocal", convertReciprocal},
    {"aten::add", convertAdd},
    {"aten::sub", convertSub},
    {"aten::rsub", convertRsub},
    {"aten::mul", convertMul},
    {"aten::div", convertDiv},
    {"aten::pow", convertPow},
    {"aten::maximum", convertMaximum},
    {"aten::minimum", convertMinimum},
    {"aten::floor_divide", convertFloorDivide},
    {"aten::remainder", convertRemainder},
    {"aten::fmod", convertFmod},
    {"aten::eq", convertEq},
    {"aten::ne", convertNe},
    {"aten::lt", convertLt},
    {"aten::gt", convertGt},
    {"aten::le", convertLe},
    {"aten::ge", convertGe},
};

} // namespace

llvm::ArrayRef<OpConverter> elementwiseConverters() { return Table; }

} // namespace kiln::ts_import
