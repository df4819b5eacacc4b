// ONNX quantization -> the IR's QDQ form: QuantizeLinear/DequantizeLinear
// (QDQ models: torch.onnx.export of a quantized model, ONNX Runtime's QDQ
// format), DynamicQuantizeLinear, and the QOperator format's QLinearConv and
// QLinearMatMul written as dequantize -> conv/matmul -> quantize, their
// int32 bias read at x_scale * w_scale; and the integer ops of ONNX
// Runtime's dynamic QOperator models, MatMulInteger and ConvInteger, as
// cast<i32>(matmul/conv) of operands dequantized at scale 1 (exact while
// the sums stay under 2^24; fold-integer-op-scales then moves the scales
// the graph multiplies the result by onto those dequantizes). Scales and zero points of one
// element are per tensor whatever their rank and `axis` (ONNX Runtime reads
// them so); adopt-imported-qdq makes the result kiln's int8 form.
#include "frontends/onnx/OnnxNodeImporter.h"

namespace kiln::onnx_import {

namespace {

/// A 1-element 1-D value as a rank-0 one: the constant of the same value,
/// or (a graph input) reshaped.
Value *perTensorScalar(NodeImporter &N, Value *V) {
  if (!V || V->type().rank() != 1 || !V->type().Dims[0].isStatic() ||
      V->type().Dims[0].size() != 1)
    return V;
  if (const Tensor *T = V->constant())
    return N.constant(Tensor(TensorType(T->type().Elem, {}), T->buffer()));
  auto R = N.emit("reshape", {V, N.constInts({})});
  if (!R) {
    llvm::consumeError(R.takeError()); // the op then reports V's shape
    return V;
  }
  return *R;
}

/// quantize/dequantize of X with the scale and zero point at operands
/// S and S + 1 (the zero point optional), per axis along Axis.
llvm::Expected<Value *> qdq(NodeImporter &N, llvm::StringRef Op, Value *X,
                            unsigned S, int64_t Axis) {
  auto Scale = N.required(S);
  if (!Scale)
    return Scale.takeError();
  return N.emit(Op, {X, perTensorScalar(N, *Scale), perTensorScalar(N, N.input(S + 1))},
                {{"axis", Axis}});
}

/// The operand I dequantized with the scale and zero point after it.
llvm::Expected<Value *> dequantizedOperand(NodeImporter &N, unsigned I,
                                           int64_t Axis) {
  auto X = N.required(I);
  if (!X)
    return X.takeError();
  return qdq(N, "dequantize", *X, I + 1, Axis);
}

llvm::Error quant(NodeImporter &N, llvm::StringRef Op) {
  auto X = N.required(0);
  if (!X)
    return X.takeError();
  auto R = qdq(N, Op, *X, 1, N.attrInt("axis", 1));
  if (!R)
    return R.takeError();
  return finish(N, (*R)->producer());
}
llvm::Error convertQuantize(NodeImporter &N) { return quant(N, "quantize"); }
llvm::Error convertDequantize(NodeImporter &N) { return quant(N, "dequantize"); }

// DynamicQuantizeLinear(x) -> y (u8), y_scale, y_zero_point
llvm::Error convertDynamicQuantize(NodeImporter &N) {
  auto X = N.required(0);
  if (!X)
    return X.takeError();
  return finish(N, N.emitNode("dynamic_quantize", {*X}, {{"to", std::string("u8")}}, 3));
}

/// Y quantized with the scale and zero point at operands S, S + 1, bound
/// as the node's output.
llvm::Error quantizedResult(NodeImporter &N, llvm::Expected<Node *> Y, unsigned S) {
  if (!Y)
    return Y.takeError();
  auto Q = qdq(N, "quantize", (*Y)->result(), S, 1);
  if (!Q)
    return Q.takeError();
  return finish(N, (*Q)->producer());
}

// QLinearConv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B)
llvm::Error convertQLinearConv(NodeImporter &N) {
  auto X = dequantizedOperand(N, 0, 1), W = dequantizedOperand(N, 3, 0);
  if (!X)
    return X.takeError();
  if (!W)
    return W.takeError();
  Value *B = N.input(8);
  if (B) {
    // The int32 bias's scale: x_scale * w_scale (per output channel when
    // the weight's is).
    auto BScale = N.emit("mul", {perTensorScalar(N, N.input(1)),
                                 perTensorScalar(N, N.input(4))});
    if (!BScale)
      return BScale.takeError();
    auto DB = N.emit("dequantize", {B, *BScale}, {{"axis", int64_t(0)}});
    if (!DB)
      return DB.takeError();
    B = *DB;
  }
  return quantizedResult(N, emitConv(N, *X, *W, B), 6);
}

// QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp): b's
// scale may be per column (its last axis).
llvm::Error convertQLinearMatMul(NodeImporter &N) {
  auto BV = N.required(3);
  if (!BV)
    return BV.takeError();
  auto A = dequantizedOperand(N, 0, 1);
  auto B = dequantizedOperand(N, 3, std::max<int64_t>((*BV)->type().rank() - 1, 0));
  if (!A)
    return A.takeError();
  if (!B)
    return B.takeError();
  return quantizedResult(N, N.emitNode("matmul", {*A, *B}), 6);
}

/// X - Zp as f32: a dequantize of X at scale 1, per tensor for a scalar or
/// 1-element zero point, else along Axis (a scale of ones of Zp's shape).
llvm::Expected<Value *> minusZeroPoint(NodeImporter &N, Value *X, Value *Zp,
                                       int64_t Axis) {
  Zp = perTensorScalar(N, Zp);
  Value *One = N.constScalar(ElementType::F32, 1.0);
  if (Zp && Zp->type().rank() == 1) {
    auto Count = numElements(Zp->type().Dims);
    if (!Count)
      return N.fail("zero point {0} must have a static shape", toString(Zp->type()));
    One = N.constant(Tensor::fromValues<float>(ElementType::F32, Zp->type().Dims,
                                               std::vector<float>(size_t(*Count), 1.0f)));
  }
  return N.emit("dequantize", {X, One, Zp}, {{"axis", Axis}});
}

/// Operands 0 and 1 less their zero points (operands 2 and 3), per axis
/// along AxisA and AxisB (given the operands' ranks) where they have one
/// per slice.
llvm::Expected<std::pair<Value *, Value *>>
integerOperands(NodeImporter &N, int64_t (*AxisA)(int64_t),
                int64_t (*AxisB)(int64_t)) {
  auto A = N.required(0), B = N.required(1);
  if (!A)
    return A.takeError();
  if (!B)
    return B.takeError();
  auto AD = minusZeroPoint(N, *A, N.input(2), AxisA((*A)->type().rank()));
  if (!AD)
    return AD.takeError();
  auto BD = minusZeroPoint(N, *B, N.input(3), AxisB((*B)->type().rank()));
  if (!BD)
    return BD.takeError();
  return std::make_pair(*AD, *BD);
}

llvm::Error integerResult(NodeImporter &N, llvm::Expected<Value *> Y) {
  if (!Y)
    return Y.takeError();
  return finish(N, N.emitNode("cast", {*Y}, {{"to", std::string("i32")}}));
}

// MatMulInteger(a, b, a_zero_point, b_zero_point) -> i32: a's zero point
// per tensor or per row, b's per tensor or per column.
llvm::Error convertMatMulInteger(NodeImporter &N) {
  auto Ops = integerOperands(
      N, [](int64_t Rank) { return std::max<int64_t>(Rank - 2, 0); },
      [](int64_t Rank) { return std::max<int64_t>(Rank - 1, 0); });
  if (!Ops)
    return Ops.takeError();
  return integerResult(N, N.emit("matmul", {Ops->first, Ops->second}));
}

// ConvInteger(x, w, x_zero_point, w_zero_point) -> i32, Conv's attributes:
// x's zero point per tensor, w's per tensor or per output channel. The
// padding is x's zero point, i.e. 0 once it is subtracted.
llvm::Error convertConvInteger(NodeImporter &N) {
  auto Ops = integerOperands(
      N, [](int64_t) { return int64_t(1); }, [](int64_t) { return int64_t(0); });
  if (!Ops)
    return Ops.takeError();
  auto C = emitConv(N, Ops->first, Ops->second, nullptr);
  if (!C)
    return integerResult(N, C.takeError());
  return integerResult(N, (*C)->result());
}

const OpConverter Converters[] = {
    {"QuantizeLinear", convertQuantize, 10},
    {"DequantizeLinear", convertDequantize, 10},
    {"DynamicQuantizeLinear", convertDynamicQuantize, 11},
    {"QLinearConv", convertQLinearConv, 10},
    {"QLinearMatMul", convertQLinearMatMul, 10},
    {"MatMulInteger", convertMatMulInteger, 10},
    {"ConvInteger", convertConvInteger, 10},
};

} // namespace

llvm::ArrayRef<OpConverter> quantConverters() { return Converters; }

} // namespace kiln::onnx_import
