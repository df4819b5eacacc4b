// Binary and unary elementwise operators, softmax and PReLU.
#include "backends/nnapi/NnapiLowering.h"
#include "schema/nnapi/NeuralNetworksApi.h"

#include <cstring>
#include <limits>
#include <string>

namespace kiln::nnapi {

namespace {

uint32_t floatConstant(Lowering &L, float V) {
  std::vector<uint8_t> B(4);
  std::memcpy(B.data(), &V, 4);
  return L.constant(TENSOR_FLOAT32, {1}, 0, 0, std::move(B));
}

} // namespace

void lowerBinary(Lowering &L, int32_t Op) {
  const fb::OperatorT &O = L.op(Op);
  const fb::BinaryOptionsT &C = *O.options.AsBinaryOptions();
  uint32_t A = L.operandOf(O.inputs[0]), B = L.operandOf(O.inputs[1]);
  if (C.op == fb::BinaryOp::EQUAL || C.op == fb::BinaryOp::GREATER ||
      C.op == fb::BinaryOp::LESS) {
    // A padding mask from token ids (int32 after narrow-index-inputs), or
    // a float comparison: TENSOR_BOOL8 out, operands of one type.
    int32_t TA = L.operand(A).type, TB = L.operand(B).type;
    if (TA != TB || (TA != TENSOR_INT32 && TA != TENSOR_FLOAT32))
      return L.fail(Op, "NNAPI compares two TENSOR_INT32 or two "
                        "TENSOR_FLOAT32 operands");
    int32_t Code = C.op == fb::BinaryOp::EQUAL     ? EQUAL
                   : C.op == fb::BinaryOp::GREATER ? GREATER
                                                   : LESS;
    return L.emit(Code, {A, B}, {L.operandOf(O.outputs[0])}, Op);
  }
  if (!L.floatOrInt8(O.outputs[0]))
    return L.fail(Op, "integer arithmetic is not lowered to NNAPI");
  uint32_t Out = L.operandOf(O.outputs[0]);
  bool Quant = L.quantized(O.outputs[0]);
  if (Quant && C.op == fb::BinaryOp::MUL) {
    // NNAPI's quantized MUL needs its multiplier s_a s_b / s_out below 1.
    // (AOSP compares with the float product.)
    const float Product = L.operand(A).scale * L.operand(B).scale;
    if (!(L.operand(Out).scale > Product)) {
      const std::string Why = "NNAPI's quantized MUL needs an output scale "
                              "above " + std::to_string(Product) +
                              " (the input scales' product); the output's is " +
                              std::to_string(L.operand(Out).scale);
      const int32_t Fuse = Lowering::fuseCode(C.output_min, C.output_max);
      if (Fuse < 0)
        return L.fail(Op, Why + ", and its clamp is no NNAPI fused activation");
      return lowerInt8MulViaFloat(L, Op, A, B, Out, Fuse, Why);
    }
  }
  switch (C.op) {
  case fb::BinaryOp::ADD:
  case fb::BinaryOp::MUL:
    return (void)L.emitWithClamp(C.op == fb::BinaryOp::ADD ? ADD : MUL,
                                 {A, B}, {}, Out, C.output_min, C.output_max,
                                 Op);
  case fb::BinaryOp::SUB:
    if (Quant && !L.need(29, "a quantized SUB", Op))
      return;
    return (void)L.emitWithClamp(SUB, {A, B}, {}, Out, C.output_min,
                                 C.output_max, Op);
  case fb::BinaryOp::DIV:
    if (Quant)
      return L.fail(Op, "NNAPI's DIV is float only");
    return (void)L.emitWithClamp(DIV, {A, B}, {}, Out, C.output_min,
                                 C.output_max, Op);
  case fb::BinaryOp::MAXIMUM:
  case fb::BinaryOp::MINIMUM:
  case fb::BinaryOp::POW: {
    if (Lowering::fuseCode(C.output_min, C.output_max) != FUSED_NONE)
      return L.fail(Op, "a clamp after MAXIMUM, MINIMUM or POW");
    int32_t Code = C.op == fb::BinaryOp::MAXIMUM   ? MAXIMUM
                   : C.op == fb::BinaryOp::MINIMUM ? MINIMUM
                                                   : POW;
    return L.emit(Code, {A, B}, {Out}, Op);
  }
  default:
    return L.fail(Op, std::string("no NNAPI lowering for ") +
                          fb::EnumNameBinaryOp(C.op));
  }
}

void lowerUnary(Lowering &L, int32_t Op) {
  const fb::OperatorT &O = L.op(Op);
  const fb::UnaryOptionsT &C = *O.options.AsUnaryOptions();
  if (!L.floatOrInt8(O.outputs[0]))
    return L.fail(Op, "integer arithmetic is not lowered to NNAPI");
  uint32_t X = L.operandOf(O.inputs[0]);
  uint32_t Out = L.operandOf(O.outputs[0]);
  if (!L.quantized(O.outputs[0]))
    return emitUnaryFloat(L, Op, X, Out);
  int32_t Fuse = C.op == fb::UnaryOp::CLAMP ? Lowering::fuseCode(C.min, C.max)
                                             : -1;
  if (Fuse <= FUSED_NONE)
    return lowerInt8Unary(L, Op, X, Out);
  // NNAPI's RELU family keeps the input's scale and zero point; where the
  // output has its own, an ADD of zero with the same fused clamp
  // requantizes and clamps in one operation.
  const fb::NnapiOperandT &A = L.operand(X), &B = L.operand(Out);
  if (A.scale != B.scale || A.zero_point != B.zero_point)
    return L.emit(ADD, {X, L.zeroLike(X), L.scalarI32(Fuse)}, {Out}, Op);
  L.emit(Fuse == FUSED_RELU    ? RELU
         : Fuse == FUSED_RELU1 ? RELU1
                               : RELU6,
         {X}, {Out}, Op);
}

void emitUnaryFloat(Lowering &L, int32_t Op, uint32_t X, uint32_t Out) {
  const fb::UnaryOptionsT &C = *L.op(Op).options.AsUnaryOptions();
  switch (C.op) {
  case fb::UnaryOp::CLAMP: {
    int32_t Fuse = Lowering::fuseCode(C.min, C.max);
    if (Fuse == FUSED_RELU)
      return L.emit(RELU, {X}, {Out}, Op);
    if (Fuse == FUSED_RELU1)
      return L.emit(RELU1, {X}, {Out}, Op);
    if (Fuse == FUSED_RELU6)
      return L.emit(RELU6, {X}, {Out}, Op);
    if (!L.need(29, "a clamp (MAXIMUM, MINIMUM)", Op))
      return;
    const float Inf = std::numeric_limits<float>::infinity();
    uint32_t Mid = C.min == -Inf ? X : L.activationLike(Out, L.operand(Out).dimensions);
    if (C.min != -Inf)
      L.emit(MAXIMUM, {X, floatConstant(L, C.min)},
             {C.max == Inf ? Out : Mid}, Op);
    if (C.max != Inf)
      L.emit(MINIMUM, {Mid, floatConstant(L, C.max)}, {Out}, Op);
    return;
  }
  case fb::UnaryOp::ABS:
    return L.emit(ABS, {X}, {Out}, Op);
  case fb::UnaryOp::NEG:
    return L.emit(NEG, {X}, {Out}, Op);
  case fb::UnaryOp::FLOOR:
    return L.emit(FLOOR, {X}, {Out}, Op);
  case fb::UnaryOp::SQRT:
    return L.emit(SQRT, {X}, {Out}, Op);
  case fb::UnaryOp::EXP:
    return L.emit(EXP, {X}, {Out}, Op);
  case fb::UnaryOp::LOG:
    return L.emit(LOG, {X}, {Out}, Op);
  case fb::UnaryOp::TANH:
    return L.emit(TANH, {X}, {Out}, Op);
  case fb::UnaryOp::SIGMOID:
    return L.emit(LOGISTIC, {X}, {Out}, Op);
  case fb::UnaryOp::SILU: {
    uint32_t Gate = L.activationLike(Out, L.operand(Out).dimensions);
    L.emit(LOGISTIC, {X}, {Gate}, Op);
    return L.emit(MUL, {X, Gate, L.scalarI32(FUSED_NONE)}, {Out}, Op);
  }
  case fb::UnaryOp::HARD_SWISH: {
    if (L.level() >= 30)
      return L.emit(HARD_SWISH, {X}, {Out}, Op);
    // Below level 30: x * (relu6(x + 3) / 6).
    std::vector<uint32_t> Dims = L.operand(Out).dimensions;
    uint32_t Gate = L.activationLike(Out, Dims);
    uint32_t Scaled = L.activationLike(Out, Dims);
    L.emit(ADD, {X, floatConstant(L, 3.f), L.scalarI32(FUSED_RELU6)}, {Gate},
           Op);
    L.emit(MUL, {Gate, floatConstant(L, 1.f / 6), L.scalarI32(FUSED_NONE)},
           {Scaled}, Op);
    return L.emit(MUL, {X, Scaled, L.scalarI32(FUSED_NONE)}, {Out}, Op);
  }
  case fb::UnaryOp::RECIPROCAL:
    return L.emit(DIV, {floatConstant(L, 1.f), X, L.scalarI32(FUSED_NONE)},
                  {Out}, Op);
  case fb::UnaryOp::SQUARE:
    return L.emit(MUL, {X, X, L.scalarI32(FUSED_NONE)}, {Out}, Op);
  case fb::UnaryOp::LEAKY_RELU:
    return L.emit(PRELU, {X, floatConstant(L, C.alpha)}, {Out}, Op);
  case fb::UnaryOp::HARD_SIGMOID: {
    // clamp(a x + b, 0, 1) = relu6(6a x + 6b) / 6: three level-27 ops.
    std::vector<uint32_t> Dims = L.operand(Out).dimensions;
    uint32_t Scaled = L.activationLike(Out, Dims);
    uint32_t Clamped = L.activationLike(Out, Dims);
    L.emit(MUL, {X, floatConstant(L, 6 * C.alpha), L.scalarI32(FUSED_NONE)},
           {Scaled}, Op);
    L.emit(ADD, {Scaled, floatConstant(L, 6 * C.beta), L.scalarI32(FUSED_RELU6)},
           {Clamped}, Op);
    return L.emit(MUL,
                  {Clamped, floatConstant(L, 1.f / 6), L.scalarI32(FUSED_NONE)},
                  {Out}, Op);
  }
  case fb::UnaryOp::ELU:
    return L.emit(ELU, {X, L.scalarF32(C.alpha)}, {Out}, Op);
  default:
    return L.fail(Op, std::string("no NNAPI operation computes ") +
                          fb::EnumNameUnaryOp(C.op));
  }
}

void lowerSoftmax(Lowering &L, int32_t Op) {
  const fb::OperatorT &O = L.op(Op);
  const fb::SoftmaxOptionsT &C = *O.options.AsSoftmaxOptions();
  uint32_t X = L.operandOf(O.inputs[0]);
  uint32_t Out = L.operandOf(O.outputs[0]);
  size_t Rank = L.operand(X).dimensions.size();
  if (C.log)
    return L.emit(LOG_SOFTMAX, {X, L.scalarF32(1.f), L.scalarI32(C.axis)},
                  {Out}, Op);
  if (size_t(C.axis) == Rank - 1 && (Rank == 2 || Rank == 4))
    return L.emit(SOFTMAX, {X, L.scalarF32(1.f)}, {Out}, Op);
  if (!L.need(29, "a softmax over an axis other than the last of a rank 2 "
                  "or 4 tensor",
              Op))
    return;
  L.emit(SOFTMAX, {X, L.scalarF32(1.f), L.scalarI32(C.axis)}, {Out}, Op);
}

void lowerPrelu(Lowering &L, int32_t Op) {
  const fb::OperatorT &O = L.op(Op);
  L.emit(PRELU, {L.operandOf(O.inputs[0]), L.operandOf(O.inputs[1])},
         {L.operandOf(O.outputs[0])}, Op);
}

void lowerCast(Lowering &L, int32_t Op) {
  const fb::OperatorT &O = L.op(Op);
  const fb::TensorT &In = L.tensor(O.inputs[0]);
  if (L.tensor(O.outputs[0]).dtype != fb::DType::F32 ||
      (In.dtype != fb::DType::I32 && In.dtype != fb::DType::BOOL))
    return L.fail(Op, std::string("a cast from ") +
                          fb::EnumNameDType(In.dtype) + " to " +
                          fb::EnumNameDType(L.tensor(O.outputs[0]).dtype) +
                          " (NNAPI lowers int32 and bool to f32)");
  uint32_t X = L.operandOf(O.inputs[0]), Out = L.operandOf(O.outputs[0]);
  if (In.dtype == fb::DType::I32)
    return L.emit(CAST, {X}, {Out}, Op);
  // CAST takes no TENSOR_BOOL8 before level 30, and then only to itself:
  // SELECT between constant ones and zeros of the output's shape.
  std::vector<uint32_t> Dims = L.operand(Out).dimensions;
  size_t N = 1;
  for (uint32_t D : Dims)
    N *= D;
  auto Filled = [&](float V) {
    std::vector<float> Values(N, V);
    std::vector<uint8_t> Bytes(N * 4);
    std::memcpy(Bytes.data(), Values.data(), Bytes.size());
    return L.constant(TENSOR_FLOAT32, Dims, 0, 0, std::move(Bytes));
  };
  L.emit(SELECT, {X, Filled(1.0f), Filled(0.0f)}, {Out}, Op);
}

} // namespace kiln::nnapi
